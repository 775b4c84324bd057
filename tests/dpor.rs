//! Dynamic partial-order reduction: one execution per order of dependent
//! steps, checked against exhaustive DFS on the same programs.
#![cfg(feature = "sim")]

mod common;

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

/// `n` threads each add one to a counter: `n!` orders of the additions.
fn fetch_adds(n: usize) {
    let c = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let c = c.clone();
            thread::spawn(move || {
                c.fetch_add(1, Ordering::SeqCst);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(c.load(Ordering::SeqCst), n);
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
    check_dpor(
        || {
            let m = Arc::new(Mutex::new(0));
            let handles: Vec<_> = (0..3)
                .map(|_| {
                    let m = m.clone();
                    thread::spawn(move || {
                        for _ in 0..2 {
                            *m.lock().unwrap() += 1;
                        }
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
            assert_eq!(*m.lock().unwrap(), 6);
        },
        90,
        0,
    );
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
    let report = dpor(|| {
        let n = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let n = n.clone();
                thread::spawn(move || {
                    let seen = n.load(Ordering::SeqCst);
                    n.store(seen + 1, Ordering::SeqCst);
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(n.load(Ordering::SeqCst), 2, "an increment was lost");
    });
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
    let report = dpor(|| {
        let (a, b) = (Arc::new(Mutex::new(())), Arc::new(Mutex::new(())));
        let (a2, b2) = (a.clone(), b.clone());
        let t = thread::spawn(move || {
            let _x = b2.lock().unwrap();
            let _y = a2.lock().unwrap();
        });
        {
            let _x = a.lock().unwrap();
            let _y = b.lock().unwrap();
        }
        t.join().unwrap();
    });
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
    let report = check_dpor(
        || {
            let (a, m) = (Arc::new(AtomicUsize::new(0)), Arc::new(Mutex::new(0)));
            let store = {
                let a = a.clone();
                thread::spawn(move || a.store(1, Ordering::SeqCst))
            };
            let readers: Vec<_> = (0..2)
                .map(|_| {
                    let (a, m) = (a.clone(), m.clone());
                    thread::spawn(move || {
                        let seen = a.load(Ordering::SeqCst);
                        *m.lock().unwrap() += seen;
                    })
                })
                .collect();
            store.join().unwrap();
            for r in readers {
                r.join().unwrap();
            }
        },
        9,
        1,
    );
    assert!(report.to_string().contains("9 executions (1 cut short as redundant)"), "{report}");
}
