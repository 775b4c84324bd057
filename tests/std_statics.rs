//! Statics of std types that a test declares in its body start every
//! execution as a fresh process has them (a drop counter, a lock around a
//! list), under every strategy and through `#[samaritan::test]`; one the
//! test's function declares outside its closures gathers what every
//! execution saw; a module's static that makes executions differ is named
//! in the nondeterminism report.
#![cfg(feature = "sim")]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use samaritan::{thread, Builder, Outcome, SearchStrategy};

/// Counts its drops in the static it is given, as a pool's test counts
/// the connections it closed.
struct Connection(&'static AtomicUsize);

impl Drop for Connection {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn a_drop_counter_and_a_std_mutex_declared_in_the_body_start_every_execution_afresh() {
    // Outside the body: every execution adds to it.
    static EXECUTIONS: AtomicUsize = AtomicUsize::new(0);
    let body = || {
        static DROPPED: AtomicUsize = AtomicUsize::new(0);
        static OPENED: std::sync::Mutex<Vec<usize>> = std::sync::Mutex::new(Vec::new());
        static CLOSED_ONCE: AtomicBool = AtomicBool::new(false);
        EXECUTIONS.fetch_add(1, Ordering::SeqCst);
        let counter = samaritan::sync::Arc::new(samaritan::sync::atomic::AtomicUsize::new(0));
        let c = counter.clone();
        let t = thread::spawn(move || {
            let id = c.fetch_add(1, Ordering::SeqCst);
            OPENED.lock().unwrap().push(id);
            drop(Connection(&DROPPED));
        });
        let id = counter.fetch_add(1, Ordering::SeqCst);
        OPENED.lock().unwrap().push(id);
        drop(Connection(&DROPPED));
        t.join().unwrap();
        assert_eq!(DROPPED.load(Ordering::SeqCst), 2, "drops left by an earlier execution");
        let mut opened = OPENED.lock().unwrap().clone();
        opened.sort_unstable();
        assert_eq!(opened, [0, 1], "ids left by an earlier execution");
        assert!(!CLOSED_ONCE.swap(true, Ordering::SeqCst), "a flag left by an earlier execution");
    };
    for (strategy, executions) in
        [(SearchStrategy::Dfs, 2), (SearchStrategy::Dpor, 2), (SearchStrategy::Icb, 2), (SearchStrategy::Random, 1000)]
    {
        let report = Builder::new().strategy(strategy).explore(body).expect("valid settings");
        assert_eq!((&report.outcome, report.executions), (&Outcome::Pass, executions), "{strategy:?}: {report}");
    }
    // The default portfolio, as a user's test runs it.
    Builder::new().max_executions(3_000).check(body);
    assert!(EXECUTIONS.load(Ordering::SeqCst) > 2 + 2 + 2 + 1000, "gathered over every execution");
}

/// A helper that wraps the test's closure, as a suite's own `check` does.
#[expect(clippy::redundant_closure, reason = "the helper's own closure is what `explore` sees")]
fn explore_dfs(f: impl Fn() + Send + Sync + 'static) -> samaritan::Report {
    Builder::new().strategy(SearchStrategy::Dfs).explore(move || f()).expect("valid settings")
}

#[test]
fn the_body_is_found_through_a_helper_that_wraps_it() {
    let report = explore_dfs(|| {
        static ENTERED: AtomicBool = AtomicBool::new(false);
        assert!(!ENTERED.swap(true, Ordering::SeqCst), "a flag left by an earlier execution");
        let flag = samaritan::sync::Arc::new(samaritan::sync::atomic::AtomicBool::new(false));
        let f = flag.clone();
        let t = thread::spawn(move || f.store(true, Ordering::SeqCst));
        let _ = flag.load(Ordering::SeqCst);
        t.join().unwrap();
    });
    assert_eq!((&report.outcome, report.executions), (&Outcome::Pass, 2), "{report}");
}

#[samaritan::test(strategy = "dfs")]
fn a_static_in_a_samaritan_test_s_body_starts_every_execution_afresh() {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let flag = samaritan::sync::Arc::new(samaritan::sync::atomic::AtomicBool::new(false));
    let f = flag.clone();
    let t = thread::spawn(move || f.store(true, Ordering::SeqCst));
    let _ = flag.load(Ordering::SeqCst);
    t.join().unwrap();
    assert_eq!(RUNS.fetch_add(1, Ordering::SeqCst), 0);
}

/// A module's static is shared by every test of the binary: never put back.
static STARTED: AtomicUsize = AtomicUsize::new(0);

#[test]
fn a_module_static_that_makes_executions_differ_is_named_in_the_verdict() {
    let report = Builder::new()
        .strategy(SearchStrategy::Dfs)
        .explore(|| {
            // The first execution runs one thread beside main, the others two.
            let threads = if STARTED.fetch_add(1, Ordering::SeqCst) == 0 { 1 } else { 2 };
            let flag = samaritan::sync::Arc::new(samaritan::sync::atomic::AtomicBool::new(false));
            let spawned: Vec<_> = (0..threads)
                .map(|_| {
                    let f = flag.clone();
                    thread::spawn(move || f.store(true, Ordering::SeqCst))
                })
                .collect();
            let _ = flag.load(Ordering::SeqCst);
            spawned.into_iter().for_each(|t| t.join().unwrap());
        })
        .expect("valid settings");
    let Outcome::Nondeterminism { detail, .. } = &report.outcome else { panic!("{report}") };
    // Other tests' statics may change beside it (the binary runs its tests
    // in parallel); this test's is named.
    assert!(detail.contains("; the test's ") && detail.contains(" `std_statics::STARTED`"), "{detail}");
    assert!(
        detail.ends_with(
            " changed during the search, and samaritan puts back only the statics declared inside the test's \
             body (its closures or `#[samaritan::test]` body)"
        ),
        "{detail}"
    );
    assert_eq!(report.executions, 2);
}
