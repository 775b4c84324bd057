//! Dynamic partial-order reduction: one execution per order of dependent
//! steps, checked against exhaustive DFS on the same programs.
#![cfg(feature = "sim")]

mod common;

use common::models::{fetch_adds, lock_order_inversion, lost_update, mutex_counter, store_and_readers};

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::{Arc, Condvar, Mutex};
use samaritan::thread;
use samaritan::{Builder, Outcome, Report, SearchStrategy};

fn dpor<F: Fn() + Send + Sync + 'static>(f: F) -> Report {
    Builder::new().strategy(SearchStrategy::Dpor).persist(false).explore(f).unwrap()
}

/// Asserts that DPOR exhausts `f` without a bug in `executions`
/// executions, `pruned` of them cut short as redundant.
#[track_caller]
fn check_dpor<F: Fn() + Send + Sync + 'static>(f: F, executions: u64, pruned: u64) -> Report {
    let report = dpor(f);
    assert_eq!(
        (&report.outcome, report.executions, report.pruned, report.exhausted),
        (&Outcome::Pass, executions, pruned, true),
        "{report}"
    );
    report
}

#[test]
fn fetch_add_takes_one_execution_per_order_of_the_additions() {
    for (n, orders, dfs) in [(2, 2, 5), (3, 6, 44), (4, 24, 550)] {
        let f = move || fetch_adds(n);
        check_dpor(f, orders, 0);
        common::check_exhausts(f, dfs);
    }
}

/// Three threads take one lock twice each: 6! / (2! 2! 2!) = 90 orders of
/// the critical sections.
#[test]
fn a_mutex_counter_takes_one_execution_per_lock_order() {
    check_dpor(mutex_counter, 90, 0);
}

/// Loads of one atomic commute; a store orders them.
#[test]
fn independent_loads_are_not_reordered() {
    check_dpor(
        || {
            let c = Arc::new(AtomicUsize::new(0));
            let handles: Vec<_> = (0..3)
                .map(|_| {
                    let c = c.clone();
                    thread::spawn(move || c.load(Ordering::SeqCst))
                })
                .collect();
            for h in handles {
                assert_eq!(h.join().unwrap(), 0);
            }
        },
        1,
        0,
    );
}

/// A load-then-store increment in two threads loses an update.
#[test]
fn dpor_finds_a_lost_update_and_its_trace_replays() {
    let report = dpor(lost_update);
    assert!(
        matches!(&report.outcome, Outcome::Panic { message, .. } if message.contains("an increment was lost")),
        "{report}"
    );
    assert_eq!(report.strategy, "dpor");
    let failure = report.failure.as_ref().expect("a failing trace");
    assert_eq!(failure.trace.preemptions(), 1, "{report}");
}

/// Two threads take two locks in opposite orders.
#[test]
fn dpor_finds_a_lock_order_deadlock() {
    let report = dpor(lock_order_inversion);
    match &report.outcome {
        Outcome::Deadlock(d) => assert_eq!(d.cycle, ["main", "t1", "main"], "{report}"),
        other => panic!("expected a deadlock, got {other}"),
    }
}

/// A waiter and a notifier on a condition variable, with the flag checked
/// under the lock: every interleaving ends with the waiter done. DPOR and
/// DFS see the same distinct final states.
#[test]
fn a_condvar_handshake_passes_with_the_states_dfs_sees() {
    let program = || {
        let pair = Arc::new((Mutex::new(false), Condvar::new()));
        let pair2 = pair.clone();
        let waiter = thread::spawn(move || {
            let (lock, cv) = &*pair2;
            let mut ready = lock.lock().unwrap();
            while !*ready {
                ready = cv.wait(ready).unwrap();
            }
        });
        let (lock, cv) = &*pair;
        *lock.lock().unwrap() = true;
        cv.notify_one();
        waiter.join().unwrap();
        samaritan::coverage::state(u64::from(*lock.lock().unwrap()));
    };
    let by_dpor = dpor(program);
    let by_dfs = common::dfs(program);
    assert_eq!((&by_dpor.outcome, by_dpor.exhausted), (&Outcome::Pass, true), "{by_dpor}");
    assert_eq!(by_dpor.states, by_dfs.states);
    assert!(by_dpor.executions < by_dfs.executions, "{by_dpor}\n{by_dfs}");
}

/// A store racing two load-then-lock threads: 8 orders of the dependent
/// steps, reached in 9 executions, one of them cut short by a sleep set.
#[test]
fn sleep_set_blocked_executions_are_cut_short_and_counted() {
    let report = check_dpor(store_and_readers, 9, 1);
    assert!(report.to_string().contains("9 executions (1 cut short as redundant)"), "{report}");
}
