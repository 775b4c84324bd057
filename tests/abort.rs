//! Destructors that panic while a thread unwinds. samaritan never unwinds
//! a thread itself: a thread cut short when an execution ends is
//! abandoned, so its destructors do not run, a bomb among them cannot go
//! off, and the tests after it in the same binary run. A thread unwinding
//! from its own panic is another matter: a destructor that panics then
//! makes std abort the process, as it would in production, and samaritan
//! writes what it knows first.
//!
//! An abort would take the test harness with it, so each scenario runs
//! in a child process: this test binary again, told by an environment
//! variable which scenario to run, and the parent reads its output.
#![cfg(all(feature = "sim", unix))]

use std::os::unix::process::ExitStatusExt;
use std::process::Command;

use samaritan::sync::{Arc, Mutex};
use samaritan::thread;

/// The environment variable that makes a run of this binary a child.
const CHILD: &str = "SAMARITAN_TEST_ABORT_CHILD";

/// Bombs dropped, in this process.
static EXPLODED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Panics when dropped.
struct Bomb;

impl Drop for Bomb {
    fn drop(&mut self) {
        EXPLODED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        panic!("bomb exploded in drop");
    }
}

/// r02: t1 deadlocks with main; at teardown its `Bomb` panics while it
/// unwinds.
fn deadlock_with_a_bomb() {
    let m = Arc::new(Mutex::new(()));
    let _held = m.lock().unwrap();
    let m2 = m.clone();
    let t = thread::spawn(move || {
        let _bomb = Bomb;
        let _g = m2.lock().unwrap();
    });
    t.join().unwrap();
}

/// A thread that panics with a bomb among its locals: the bomb goes off
/// while the thread unwinds from its own panic.
fn panic_with_a_bomb() {
    let t = thread::spawn(|| {
        let _bomb = Bomb;
        panic!("boom");
    });
    let _ = t.join();
}

/// Runs the tests of this binary that `filter` names (`--exact` when
/// `exact`) in a child process with `CHILD` set to `mode`; returns its
/// signal, standard output and standard error.
fn child(filter: &str, exact: bool, mode: &str) -> (Option<i32>, String, String) {
    let mut args = vec![filter, "--nocapture", "--test-threads=1"];
    if exact {
        args.push("--exact");
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(args)
        .env(CHILD, mode)
        .env_remove("SAMARITAN_REPLAY")
        .output()
        .unwrap();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (out.status.signal(), text(&out.stdout), text(&out.stderr))
}

/// The lines of `stderr` that start with `samaritan:` or belong to the
/// verdict written after one (indented).
fn notes(stderr: &str) -> Vec<&str> {
    let mut kept = Vec::new();
    let mut inside = false;
    for line in stderr.lines() {
        inside = line.starts_with("samaritan:") || (inside && line.starts_with("  "));
        if inside {
            kept.push(line);
        }
    }
    kept
}

/// r02: t1 deadlocks with main, holding a bomb. The execution ends with
/// t1 cut short: it is abandoned, not unwound, so the bomb never goes
/// off, the lock it holds is released, and the next test of the binary
/// runs (in the child, `the_test_after_the_bomb_runs`).
#[test]
fn a_bomb_in_a_thread_cut_short_never_goes_off_and_the_next_test_runs() {
    if std::env::var(CHILD).as_deref() == Ok("teardown") {
        let report = samaritan::Builder::new().persist(false).explore(deadlock_with_a_bomb).unwrap();
        assert!(matches!(report.outcome, samaritan::Outcome::Deadlock(_)), "{report}");
        // Every execution up to the deadlock, the replay of the first
        // one's schedule and the traced replay: the bomb is never dropped.
        assert_eq!(EXPLODED.load(std::sync::atomic::Ordering::SeqCst), 0);
        return;
    }
    if std::env::var(CHILD).is_ok() {
        return;
    }
    let (signal, stdout, stderr) = child("a_bomb_in_a_thread_cut_short", false, "teardown");
    assert_eq!(signal, None, "{stdout}{stderr}");
    let (signal, stdout, stderr) = child("the_test_after_the_bomb_runs", false, "teardown");
    assert_eq!(signal, None, "{stdout}{stderr}");
    // All in one child process (tests run in name order: the bomb's first).
    let (signal, stdout, stderr) = child("a_", false, "teardown");
    assert_eq!(signal, None, "{stdout}{stderr}");
    assert!(stdout.contains("test result: ok. 3 passed"), "{stdout}{stderr}");
}

/// The second test of the child process: it runs, and explores, after the
/// first one's exploration ended with threads cut short.
#[test]
fn a_the_test_after_the_bomb_runs() {
    if std::env::var(CHILD).as_deref() != Ok("teardown") {
        return;
    }
    samaritan::check(|| {
        let m = Arc::new(Mutex::new(0));
        let m2 = m.clone();
        let t = thread::spawn(move || *m2.lock().unwrap() += 1);
        *m.lock().unwrap() += 1;
        t.join().unwrap();
        assert_eq!(*m.lock().unwrap(), 2);
    });
}

#[test]
fn a_destructor_panicking_while_its_thread_unwinds_from_a_panic_writes_the_token_before_the_abort() {
    const TEST: &str = "a_destructor_panicking_while_its_thread_unwinds_from_a_panic_writes_the_token_before_the_abort";
    match std::env::var(CHILD).as_deref() {
        Ok("check") => return samaritan::Builder::new().persist(false).check(panic_with_a_bomb),
        Ok("teardown") => return,
        Ok(token) => return samaritan::replay(token, panic_with_a_bomb),
        Err(_) => {}
    }
    let (signal, _, stderr) = child(TEST, true, "check");
    assert_eq!(signal, Some(6), "the child should abort (SIGABRT):\n{stderr}");
    let first = notes(&stderr);
    let token_line = first.last().copied().unwrap_or_default();
    let token = token_line.strip_prefix("samaritan: replay token of the execution so far: ").unwrap_or_else(|| {
        panic!("no token in:\n{stderr}");
    });
    assert_eq!(
        first[..first.len() - 1],
        [
            "samaritan: thread 't1' panicked at tests/abort.rs:32:9: bomb exploded in drop",
            "samaritan: while it was unwinding from its panic at tests/abort.rs:54:9: boom.",
            "samaritan: std aborts the process on a panic that leaves a destructor during unwinding; before it does:",
        ],
        "{stderr}"
    );
    // The token replays the execution: the replay (which records a trace)
    // reaches the same abort, and says so again, with the trace.
    let (signal, _, replayed) = child(TEST, true, token);
    assert_eq!(signal, Some(6), "{replayed}");
    let again = notes(&replayed);
    assert!(again.iter().any(|l| l.starts_with("samaritan: the trace so far:")), "{replayed}");
}
