//! `JoinHandle::is_finished` under exploration: a scheduling point whose
//! answer every search explores on both sides of the thread's end, and a
//! thread that is done may still be reported running (std gives a thread's
//! end no moment of its own after its last visible operation).
#![cfg(feature = "sim")]

use std::collections::BTreeSet;
use std::sync::Mutex as StdMutex;

use samaritan::sync::atomic::{AtomicBool, Ordering};
use samaritan::sync::Arc;
use samaritan::{thread, Builder, Outcome, Report, SearchStrategy};

/// One exploration at a time: `SEEN` serves one.
static SERIAL: StdMutex<()> = StdMutex::new(());
static SEEN: StdMutex<BTreeSet<(bool, bool)>> = StdMutex::new(BTreeSet::new());

/// Explores `run` with `strategy` (no persistence) and returns the report
/// and the pairs `run` returned.
fn pairs(strategy: SearchStrategy, run: fn() -> (bool, bool)) -> (Report, BTreeSet<(bool, bool)>) {
    let _one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    SEEN.lock().unwrap().clear();
    let report = Builder::new()
        .strategy(strategy)
        .persist(false)
        .explore(move || {
            let pair = run();
            SEEN.lock().unwrap().insert(pair);
        })
        .unwrap();
    assert!(report.outcome.is_pass() && report.exhausted, "{report}");
    (report, std::mem::take(&mut *SEEN.lock().unwrap()))
}

/// The test closure asks right after the spawn, then reads what the
/// thread stored: (finished, stored).
fn ask_then_read() -> (bool, bool) {
    let flag = Arc::new(AtomicBool::new(false));
    let theirs = flag.clone();
    let handle = thread::spawn(move || theirs.store(true, Ordering::SeqCst));
    let finished = handle.is_finished();
    let stored = flag.load(Ordering::SeqCst);
    handle.join().unwrap();
    (finished, stored)
}

/// The test closure reads, then asks: (stored, finished).
fn read_then_ask() -> (bool, bool) {
    let flag = Arc::new(AtomicBool::new(false));
    let theirs = flag.clone();
    let handle = thread::spawn(move || theirs.store(true, Ordering::SeqCst));
    let stored = flag.load(Ordering::SeqCst);
    let finished = handle.is_finished();
    handle.join().unwrap();
    (stored, finished)
}

/// Asserts that dfs, dpor, cb-por and icb each reach exactly `all` from
/// `run`, in `executions` executions (no reduction applies to these).
#[track_caller]
fn every_search_reaches(run: fn() -> (bool, bool), all: &[(bool, bool)], executions: u64) {
    let all: BTreeSet<_> = all.iter().copied().collect();
    for strategy in [SearchStrategy::Dfs, SearchStrategy::Dpor, SearchStrategy::CbPor, SearchStrategy::Icb] {
        let (report, seen) = pairs(strategy, run);
        assert_eq!(seen, all, "{strategy:?}");
        assert_eq!(report.executions, executions, "{strategy:?}: {report}");
    }
}

/// The `is_finished` steps of a failure's trace: who asked, and the note.
fn asked(report: &Report) -> Vec<(String, Option<String>)> {
    let failure = report.failure.as_ref().unwrap_or_else(|| panic!("no failure: {report}"));
    let steps = failure.trace.lines.iter().filter(|l| l.op == samaritan::Op::IsFinished);
    steps.map(|l| (l.actor.clone(), l.note.clone())).collect()
}

#[test]
fn a_thread_may_finish_before_its_spawner_asks() {
    // Before, the question was no step: right after the spawn the thread
    // never ran, so `true` was never answered.
    every_search_reaches(ask_then_read, &[(false, false), (false, true), (true, true)], 4);
}

#[test]
fn a_thread_whose_store_is_seen_may_still_be_reported_running() {
    // (true, false): the store is visible, the thread has not let go of
    // its result yet (before, never: its end came with its store).
    // Load before the store: running, done, done but reported running;
    // after it: done, or reported running.
    every_search_reaches(read_then_ask, &[(false, false), (false, true), (true, false), (true, true)], 5);
}

#[test]
fn once_reported_finished_a_thread_stays_finished_and_is_reported_running_at_most_once() {
    let (report, seen) = pairs(SearchStrategy::Dfs, || {
        let handle = thread::spawn(|| {});
        // An idle thread is done as soon as it is spawned: only the one
        // answer std allows for a thread that has not let go of its
        // result yet can say otherwise, and only once.
        let answers: Vec<bool> = (0..3).map(|_| handle.is_finished()).collect();
        handle.join().unwrap();
        assert!(answers.windows(2).all(|w| w[0] <= w[1]), "{answers:?}");
        (answers[0], answers[1])
    });
    assert_eq!(seen, [(false, true), (true, true)].into());
    assert_eq!(report.executions, 2, "{report}");
}

#[test]
fn a_check_that_assumes_a_fresh_thread_is_running_fails_and_says_why() {
    let report = Builder::new()
        .strategy(SearchStrategy::Dpor)
        .persist(false)
        .explore(|| {
            let handle = thread::spawn(|| {});
            assert!(!handle.is_finished(), "the worker finished already");
            handle.join().unwrap();
        })
        .unwrap();
    let Outcome::Panic { message, .. } = &report.outcome else { panic!("{report}") };
    assert_eq!(message, "the worker finished already");
    assert_eq!(report.executions, 1, "{report}");
    assert_eq!(asked(&report), [("main".to_string(), Some("t1 has finished".to_string()))]);
}

#[test]
fn the_answer_std_allows_for_a_thread_not_yet_gone_is_told_in_the_trace() {
    let report = Builder::new()
        .strategy(SearchStrategy::Dfs)
        .persist(false)
        .explore(|| {
            let flag = Arc::new(AtomicBool::new(false));
            let theirs = flag.clone();
            let handle = thread::spawn(move || theirs.store(true, Ordering::SeqCst));
            let stored = flag.load(Ordering::SeqCst);
            assert!(!stored || handle.is_finished(), "stored, but not finished");
            handle.join().unwrap();
        })
        .unwrap();
    let Outcome::Panic { message, .. } = &report.outcome else { panic!("{report}") };
    assert_eq!(message, "stored, but not finished");
    assert_eq!(asked(&report), [("main".to_string(), Some("t1 is done, but reported as still running".to_string()))]);
}

#[test]
fn scoped_handles_are_asked_the_same_way() {
    let (report, seen) = pairs(SearchStrategy::Dpor, || {
        let flag = AtomicBool::new(false);
        thread::scope(|s| {
            let handle = s.spawn(|| flag.store(true, Ordering::SeqCst));
            let stored = flag.load(Ordering::SeqCst);
            (stored, handle.is_finished())
        })
    });
    assert_eq!(seen, [(false, false), (false, true), (true, false), (true, true)].into());
    assert_eq!(report.executions, 5, "{report}");
}
