//! Failure persistence: `check` keeps a failing schedule under
//! `target/samaritan/failures/<binary>/<test>/` and replays it first next time,
//! until it passes.
#![cfg(feature = "sim")]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering as StdOrdering};

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::{thread, Builder, Schedule, Trace};

/// Whether `counter` has its bug: a load and a store where a fetch_add
/// belongs. Tests flip it to "fix" the program between runs.
static BUGGY: AtomicBool = AtomicBool::new(true);

fn counter() {
    let n = Arc::new(AtomicUsize::new(0));
    let spawn = || {
        let n = n.clone();
        thread::spawn(move || {
            if BUGGY.load(StdOrdering::Relaxed) {
                let seen = n.load(Ordering::SeqCst);
                n.store(seen + 1, Ordering::SeqCst);
            } else {
                n.fetch_add(1, Ordering::SeqCst);
            }
        })
    };
    let (a, b) = (spawn(), spawn());
    a.join().unwrap();
    b.join().unwrap();
    assert_eq!(n.load(Ordering::SeqCst), 2, "an increment was lost");
}

/// This test's failure directory, emptied: `target/samaritan/failures/<name>`.
fn failures_dir(test: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let target = exe.ancestors().find(|d| d.join("CACHEDIR.TAG").is_file()).unwrap().to_path_buf();
    let dir = target.join("samaritan").join("failures").join("persist").join(test);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn files(dir: &PathBuf) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

fn check_message(builder: &Builder) -> Option<String> {
    let payload = catch_unwind(AssertUnwindSafe(|| builder.check(counter))).err()?;
    Some(payload.downcast_ref::<String>().cloned().expect("a report"))
}

#[test]
fn a_failure_is_kept_replayed_first_and_dropped_once_fixed() {
    let dir = failures_dir("a_failure_is_kept_replayed_first_and_dropped_once_fixed");
    let builder = Builder::new().persist(true);

    // First run: found by the search, and persisted.
    let first = check_message(&builder).expect("the bug is found");
    // The portfolio's random part finds it first (the token says so).
    assert!(first.contains("samaritan found a bug in execution 6 (strategy portfolio/random, seed 2)"), "{first}");
    assert!(first.contains("note: persisted at "), "{first}");
    let names = files(&dir);
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names[0].ends_with(".html") && names[1].ends_with(".token") && names[2].ends_with(".trace"), "{names:?}");
    let page = std::fs::read_to_string(dir.join(&names[0])).unwrap();
    assert!(page.contains("an increment was lost"), "{page}");
    let token = std::fs::read_to_string(dir.join(&names[1])).unwrap();
    let schedule = Schedule::from_token(token.trim()).unwrap();
    assert_eq!((schedule.strategy.as_str(), schedule.seed), ("portfolio/random", Some(2)));
    let text = std::fs::read_to_string(dir.join(&names[2])).unwrap();
    // Comment lines name the test and the command that replays it.
    let test = "a_failure_is_kept_replayed_first_and_dropped_once_fixed";
    let command = format!("SAMARITAN_REPLAY={} cargo test {test} -- --exact", token.trim());
    assert_eq!(text.lines().nth(1), Some(format!("# test: {test}").as_str()));
    assert_eq!(text.lines().nth(2), Some(format!("# replay with: {command}").as_str()));
    let trace = Trace::parse(&text).unwrap();
    assert_eq!((trace.lines.len(), trace.preemptions()), (9, 1));

    // Second run: the persisted schedule is replayed before any search.
    let second = check_message(&builder).expect("still failing");
    assert!(
        second.contains("samaritan replayed a failing schedule (found by strategy portfolio/random, seed 2)"),
        "{second}"
    );
    assert!(second.contains("note: this failure was persisted by an earlier run at"), "{second}");

    // Fixed: the replay passes, the files go, and the search passes.
    BUGGY.store(false, StdOrdering::Relaxed);
    assert_eq!(check_message(&builder), None);
    assert_eq!(files(&dir), Vec::<String>::new());
    BUGGY.store(true, StdOrdering::Relaxed);

    // Opted out: nothing is written.
    let off = Builder::new().persist(false);
    assert!(check_message(&off).is_some());
    assert_eq!(files(&dir), Vec::<String>::new());
    // explore never persists either.
    assert!(builder.explore(counter).unwrap().is_failure());
    assert_eq!(files(&dir), Vec::<String>::new());
}

/// Two threads each do a load and a store: an increment can be lost.
fn lost_update() {
    let n = Arc::new(AtomicUsize::new(0));
    let n2 = n.clone();
    let t = thread::spawn(move || {
        let v = n2.load(Ordering::SeqCst);
        n2.store(v + 1, Ordering::SeqCst);
    });
    let v = n.load(Ordering::SeqCst);
    n.store(v + 1, Ordering::SeqCst);
    t.join().unwrap();
    assert_eq!(n.load(Ordering::SeqCst), 2, "lost update");
}

#[test]
fn a_check_inside_a_check_is_named_after_the_outer_test_and_keeps_nothing() {
    // r09: the inner check named its test after the exploring OS thread,
    // and kept its failure under a directory every test shares.
    let name = "a_check_inside_a_check_is_named_after_the_outer_test_and_keeps_nothing";
    let dir = failures_dir(name);
    let explorer = failures_dir("samaritan-explorer");
    let outer = Builder::new().persist(true);
    let message = catch_unwind(AssertUnwindSafe(|| {
        outer.check(|| {
            let t = thread::spawn(|| ());
            Builder::new().persist(true).check(lost_update);
            t.join().unwrap();
        })
    }))
    .expect_err("the inner check fails, and with it the outer");
    let message = message.downcast_ref::<String>().unwrap();
    // The inner report, inside the outer one's panic message, names the
    // outer test.
    assert!(!message.contains("samaritan-explorer"), "{message}");
    assert_eq!(message.matches(&format!("cargo test {name} -- --exact")).count(), 2, "{message}");
    // Only the outer failure is kept, in the outer test's directory.
    assert_eq!(files(&explorer), Vec::<String>::new());
    assert_eq!(files(&dir).len(), 3, "{:?}", files(&dir));
    assert_eq!(message.matches("note: persisted at ").count(), 1, "{message}");
}

/// Which version of `edited` runs: 0 as first written, 1 the same steps
/// written on other lines (an edit that only moves code), 2 a program that
/// does something else first.
static EDIT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A lost update, in the version `EDIT` selects.
fn edited() {
    let n = Arc::new(AtomicUsize::new(0));
    let n2 = n.clone();
    if EDIT.load(StdOrdering::Relaxed) == 2 {
        n.fetch_add(0, Ordering::SeqCst);
    }
    let t = thread::spawn(move || {
        let v = n2.load(Ordering::SeqCst);
        n2.store(v + 1, Ordering::SeqCst);
    });
    let v = match EDIT.load(StdOrdering::Relaxed) {
        0 => n.load(Ordering::SeqCst),
        // The same load, on another line.
        _ => n.load(Ordering::SeqCst),
    };
    n.store(v + 1, Ordering::SeqCst);
    t.join().unwrap();
    assert_eq!(n.load(Ordering::SeqCst), 2, "lost update");
}

fn check_edited(builder: &Builder) -> String {
    let payload = catch_unwind(AssertUnwindSafe(|| builder.check(edited))).expect_err("the bug is found");
    payload.downcast_ref::<String>().cloned().expect("a report")
}

#[test]
fn a_persisted_failure_survives_moved_code_and_says_how_changed_code_differs() {
    let dir = failures_dir("a_persisted_failure_survives_moved_code_and_says_how_changed_code_differs");
    let builder = Builder::new().persist(true);
    EDIT.store(0, StdOrdering::Relaxed);
    let first = check_edited(&builder);
    assert!(first.contains("note: persisted at "), "{first}");
    let token = files(&dir).into_iter().find(|n| n.ends_with(".token")).unwrap();

    // Moved code: the persisted failure replays as it was.
    EDIT.store(1, StdOrdering::Relaxed);
    let moved = check_edited(&builder);
    assert!(moved.contains("note: this failure was persisted by an earlier run at"), "{moved}");
    assert!(files(&dir).contains(&token));

    // Changed code: the old schedule no longer fits; the report of the
    // new search says so, naming the first step that differs.
    EDIT.store(2, StdOrdering::Relaxed);
    let changed = check_edited(&builder);
    EDIT.store(0, StdOrdering::Relaxed);
    assert!(!files(&dir).contains(&token), "the old failure is deleted");
    let note = changed.lines().skip_while(|l| !l.contains("no longer replays")).take(4).collect::<Vec<_>>();
    assert_eq!(note.len(), 4, "{changed}");
    assert!(note[0].ends_with("schedule does not fit the program at step 8: the schedule replays, but the operations differ from those it was recorded with: the program changed since the token was made"), "{changed}");
    assert_eq!(note[1], "  first step that differs: 0");
    assert!(note[2].starts_with("    then:    0  main  spawn             -         tests/persist.rs:"), "{changed}");
    assert!(note[3].starts_with("    now:     0  main  rmw=0             Atomic#0  tests/persist.rs:"), "{changed}");
}
