//! Unavoidable aborts: when a destructor panics while teardown unwinds a
//! thread, std aborts the process; samaritan writes what it knows first.
//!
//! The abort would take the test harness with it, so each scenario runs
//! in a child process: this test binary again, told by an environment
//! variable which scenario to run, and the parent reads its standard error.
#![cfg(all(feature = "sim", unix))]

use std::os::unix::process::ExitStatusExt;
use std::process::Command;

use samaritan::sync::{Arc, Mutex};
use samaritan::thread;

/// The environment variable that makes a run of this binary a child.
const CHILD: &str = "SAMARITAN_TEST_ABORT_CHILD";

/// Panics when dropped.
struct Bomb;

impl Drop for Bomb {
    fn drop(&mut self) {
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

/// Runs `test` of this binary in a child process with `CHILD` set to
/// `mode`; returns its signal and standard error.
fn child(test: &str, mode: &str) -> (Option<i32>, String) {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(CHILD, mode)
        .env_remove("SAMARITAN_REPLAY")
        .output()
        .unwrap();
    (out.status.signal(), String::from_utf8_lossy(&out.stderr).into_owned())
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

#[test]
fn a_destructor_panicking_at_teardown_writes_the_verdict_and_token_before_the_abort() {
    const TEST: &str = "a_destructor_panicking_at_teardown_writes_the_verdict_and_token_before_the_abort";
    match std::env::var(CHILD).as_deref() {
        Ok("check") => return samaritan::Builder::new().persist(false).check(deadlock_with_a_bomb),
        Ok(token) => return samaritan::replay(token, deadlock_with_a_bomb),
        Err(_) => {}
    }
    let (signal, stderr) = child(TEST, "check");
    assert_eq!(signal, Some(6), "the child should abort (SIGABRT):\n{stderr}");
    let first = notes(&stderr);
    let token_line = first.last().copied().unwrap_or_default();
    let token = token_line.strip_prefix("samaritan: replay token of the execution so far: ").unwrap_or_else(|| {
        panic!("no token in:\n{stderr}");
    });
    assert_eq!(
        first[..first.len() - 1],
        [
            "samaritan: thread 't1' panicked at tests/abort.rs:23:9: bomb exploded in drop",
            "samaritan: while it was unwinding at the end of the execution (samaritan unwinds the threads left so that destructors run).",
            "samaritan: std aborts the process on a panic that leaves a destructor during unwinding; before it does:",
            "samaritan: the execution's verdict: deadlock: no thread can go on",
            "  thread 'main' blocked in join on Thread#1 held by 't1' at tests/abort.rs:37:7",
            "  thread 't1' blocked in lock on Mutex#0 held by 'main' at tests/abort.rs:35:21",
            "  wait-for cycle: main -> t1 -> main",
        ],
        "{stderr}"
    );
    // The token replays the execution: the replay (which records a trace)
    // reaches the same deadlock and the same abort, and says so again,
    // with the trace.
    let (signal, replayed) = child(TEST, token);
    assert_eq!(signal, Some(6), "{replayed}");
    let again = notes(&replayed);
    assert!(again.contains(&"samaritan: the execution's verdict: deadlock: no thread can go on"), "{replayed}");
    assert!(again.iter().any(|l| l.starts_with("samaritan: the trace so far:")), "{replayed}");
}
