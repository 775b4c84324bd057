//! The explorer end to end: exact DFS counts, verdicts, reports, replay.
#![cfg(feature = "sim")]

use std::sync::atomic::AtomicUsize as StdAtomicUsize;
use std::time::Duration;

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::{Arc, Mutex};
use samaritan::{thread, Builder, Outcome, SearchStrategy};

mod common;
use common::{check_exhausts, dfs};

/// Two threads each run `body`; the main thread joins both.
fn two_threads(body: fn(&AtomicUsize)) -> impl Fn() + Send + Sync + 'static {
    move || {
        let n = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let n = n.clone();
                thread::spawn(move || body(&n))
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }
}

#[test]
fn a_single_thread_has_one_execution() {
    check_exhausts(
        || {
            let n = AtomicUsize::new(0);
            n.fetch_add(1, Ordering::SeqCst);
            assert_eq!(n.load(Ordering::SeqCst), 1);
        },
        1,
    );
}

#[test]
fn two_fetch_adds_have_five_executions() {
    // Steps: main S1 S2 J1 J2, t1 A, t2 B, with S1<A<J1, S2<B<J2 and main in
    // program order. DFS runs each linear extension once. S1 comes first.
    // A next: then S2, then B and J1 in either order, then J2: 2.
    // S2 next: J2 is last; A<J1 and B interleave in 3 ways: 3. Total 5.
    check_exhausts(
        two_threads(|n| {
            n.fetch_add(1, Ordering::SeqCst);
        }),
        5,
    );
}

#[test]
fn two_load_store_pairs_have_nineteen_executions() {
    // main S1 S2 J1 J2, t1 L1 St1, t2 L2 St2. After S1, t1 takes k of its
    // 2 steps before S2 (k = 0, 1, 2). After S2, the chain of t1's other
    // 2-k steps then J1 interleaves with t2's chain L2 St2, and J2 is last:
    // C(5-k, 2) ways. 10 + 6 + 3 = 19.
    check_exhausts(
        two_threads(|n| {
            let v = n.load(Ordering::SeqCst);
            n.store(v + 1, Ordering::SeqCst);
        }),
        19,
    );
}

/// The lost update of `examples/lost_update.rs`.
fn lost_update() {
    let counter = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let counter = counter.clone();
            thread::spawn(move || {
                let seen = counter.load(Ordering::SeqCst);
                counter.store(seen + 1, Ordering::SeqCst);
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(counter.load(Ordering::SeqCst), 2, "an increment was lost");
}

#[test]
fn a_lost_update_is_found_reported_and_replayed() {
    let report = dfs(lost_update);
    let Outcome::Panic { actor, message, location } = &report.outcome else { panic!("{report}") };
    assert_eq!(actor, "main");
    assert!(message.contains("an increment was lost"), "{message}");
    assert!(location.starts_with("tests/explore.rs:"), "{location}");
    // DFS tries the running thread first, so the first failing execution is
    // the fourth: t1 runs L1 (after both spawns), then the schedules are
    // t1 St1 (pass), t2 L2 then t2 St2 / t1 St1 orders.
    assert_eq!(report.executions, 4);
    let failure = report.failure.as_ref().expect("a failure has a trace");
    assert_eq!(failure.trace.preemptions(), 1);
    let steps: Vec<String> = failure
        .trace
        .lines
        .iter()
        .map(|l| format!("{} {} {}", l.actor, l.op, l.object.as_deref().unwrap_or("-")))
        .collect();
    assert_eq!(
        steps,
        [
            "main spawn -",
            "main spawn -",
            "t1 load Atomic#1",
            "t2 load Atomic#1",
            "t2 store Atomic#1",
            "t1 store Atomic#1",
            "main join Thread#0",
            "main join Thread#2",
            "main load Atomic#1",
        ]
    );
    assert!(failure.token.starts_with("s2_"));

    let again = Builder::new().replay(&failure.token, lost_update).expect("a token we just made");
    assert_eq!(again.outcome, report.outcome);
    assert_eq!(again.failure.as_ref().unwrap().trace, failure.trace);
    assert_eq!(again.executions, 1);
}

#[test]
fn random_search_finds_the_lost_update_and_records_its_seed() {
    let report = Builder::new().strategy(SearchStrategy::Random).seed(7).explore(lost_update).unwrap();
    assert!(matches!(report.outcome, Outcome::Panic { .. }), "{report}");
    let failure = report.failure.as_ref().unwrap();
    assert_eq!(failure.schedule.seed, Some(7));
    assert_eq!(failure.schedule.strategy, "random");
    let again = Builder::new().replay(&failure.token, lost_update).unwrap();
    assert_eq!(again.outcome, report.outcome);
}

/// Two threads take two locks in opposite orders.
fn lock_order_inversion() {
    let a = Arc::new(Mutex::new(()));
    let b = Arc::new(Mutex::new(()));
    let (a2, b2) = (a.clone(), b.clone());
    let first = thread::Builder::new()
        .name("first".into())
        .spawn(move || {
            let _a = a2.lock().unwrap();
            let _b = b2.lock().unwrap();
        })
        .unwrap();
    let second = thread::Builder::new()
        .name("second".into())
        .spawn(move || {
            let _b = b.lock().unwrap();
            let _a = a.lock().unwrap();
        })
        .unwrap();
    first.join().unwrap();
    second.join().unwrap();
}

#[test]
fn a_lock_order_inversion_is_a_deadlock_naming_both_locks_and_threads() {
    let report = dfs(lock_order_inversion);
    let Outcome::Deadlock(deadlock) = &report.outcome else { panic!("{report}") };
    let blocked: Vec<_> = deadlock
        .blocked
        .iter()
        .map(|b| (b.actor.as_str(), b.op.as_str(), b.object.as_deref().unwrap_or("-"), b.holders.join(",")))
        .collect();
    assert_eq!(
        blocked,
        [
            ("main", "join", "Thread#0", "first".to_string()),
            ("first", "lock", "Mutex#3", "second".to_string()),
            ("second", "lock", "Mutex#1", "first".to_string()),
        ]
    );
    assert_eq!(deadlock.cycle, ["first", "second", "first"]);
    let text = report.to_string();
    assert!(text.contains("wait-for cycle: first -> second -> first"), "{text}");
    assert!(text.contains("replay with:  SAMARITAN_REPLAY=s2_"), "{text}");
}

#[test]
fn a_thread_waiting_forever_on_a_flag_is_a_livelock() {
    // The only thread yields in its loop, so the fair scheduler has no one
    // to let through: a fair cycle of one thread, cut at the step bound.
    let report = Builder::new()
        .max_steps(50)
        .explore(|| {
            let flag = AtomicUsize::new(0);
            while flag.load(Ordering::SeqCst) == 0 {
                thread::yield_now();
            }
        })
        .unwrap();
    let Outcome::Livelock { cycle, repeats, steps } = &report.outcome else { panic!("{report}") };
    let ops: Vec<samaritan::Op> = cycle.iter().map(|s| s.op).collect();
    assert_eq!((ops, *repeats, *steps), (vec![samaritan::Op::Load, samaritan::Op::Yield], 25, 50));
    assert_eq!(report.failure.unwrap().trace.lines.len(), 50);
}

#[test]
fn blocking_on_a_lock_the_engine_cannot_see_is_reported_not_hung() {
    let report = Builder::new()
        .watchdog(Duration::from_millis(300))
        .explore(|| {
            let lock = Arc::new(std::sync::Mutex::new(()));
            let held = lock.lock().unwrap();
            let lock2 = lock.clone();
            let t = thread::spawn(move || {
                drop(lock2.lock().unwrap());
            });
            thread::yield_now();
            drop(held);
            t.join().unwrap();
        })
        .unwrap();
    let Outcome::UncontrolledBlocking { actor, silent_ms, .. } = &report.outcome else { panic!("{report}") };
    // t1 blocks on the std mutex as soon as it starts.
    assert_eq!(actor, "t1");
    assert!(*silent_ms >= 300);
}

#[test]
fn state_kept_between_executions_is_reported_as_nondeterminism() {
    static RUNS: StdAtomicUsize = StdAtomicUsize::new(0);
    let report = dfs(|| {
        let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let n = Arc::new(AtomicUsize::new(0));
        let n2 = n.clone();
        let t = thread::spawn(move || {
            n2.fetch_add(1, Ordering::SeqCst);
        });
        // The second execution takes a path the first did not offer.
        if run == 1 {
            let n3 = n.clone();
            thread::spawn(move || {
                n3.fetch_add(1, Ordering::SeqCst);
            })
            .join()
            .unwrap();
        }
        n.fetch_add(1, Ordering::SeqCst);
        t.join().unwrap();
    });
    let Outcome::Nondeterminism { step, detail } = &report.outcome else { panic!("{report}") };
    assert_eq!(*step, 1);
    assert_eq!(
        detail,
        "replaying the same prefix, a thread announced a different operation than before; the test's `static` \
         `explore::state_kept_between_executions_is_reported_as_nondeterminism::RUNS` changed during the search, \
         and samaritan puts back only the statics declared inside the test's body (its closures or \
         `#[samaritan::test]` body)"
    );
    // Not a bug of the program, and no schedule reproduces it.
    assert!(report.is_misuse() && !report.is_failure(), "{report}");
    assert_eq!(report.token(), None);
    assert!(report
        .to_string()
        .starts_with("samaritan cannot check this test as written (execution 2, strategy dfs)\n"));
}

#[test]
fn weak_compare_exchange_may_fail_spuriously_unless_turned_off() {
    let body = || {
        let n = AtomicUsize::new(0);
        let _ = n.compare_exchange_weak(0, 1, Ordering::SeqCst, Ordering::SeqCst);
    };
    // One data choice with two values: succeed or fail spuriously.
    let icb = Builder::new().strategy(SearchStrategy::Icb);
    let on = icb.clone().spurious_failures(true).explore(body).unwrap();
    assert_eq!((on.executions, on.exhausted), (2, true));
    let off = icb.spurious_failures(false).explore(body).unwrap();
    assert_eq!((off.executions, off.exhausted), (1, true));
}

#[test]
fn max_executions_stops_the_search_before_it_is_exhausted() {
    let report = Builder::new()
        .strategy(SearchStrategy::Dfs)
        .max_executions(3)
        .explore(two_threads(|n| {
            n.fetch_add(1, Ordering::SeqCst);
        }))
        .unwrap();
    assert_eq!((report.executions, report.exhausted, &report.outcome), (3, false, &Outcome::Pass));
    assert_eq!(
        report.to_string(),
        "pass: the budget of 3 executions stopped the search before the space was exhausted: 3 executions, no bug (strategy dfs)"
    );
}

#[test]
fn a_budget_never_stops_a_search_before_its_first_execution() {
    let report = Builder::new()
        .strategy(SearchStrategy::Dfs)
        .max_time(Duration::from_nanos(1))
        .explore(two_threads(|n| {
            n.fetch_add(1, Ordering::SeqCst);
        }))
        .unwrap();
    assert_eq!((report.executions, report.stopped), (1, Some(samaritan::Budget::Time(Duration::from_nanos(1)))));
}

#[test]
fn the_watchdog_names_a_thread_that_blocks_while_starting() {
    let report = Builder::new()
        .watchdog(Duration::from_millis(300))
        .explore(|| {
            let lock = Arc::new(std::sync::Mutex::new(()));
            let held = lock.lock().unwrap();
            let lock2 = lock.clone();
            let t = thread::Builder::new()
                .name("worker".into())
                .spawn(move || {
                    // Blocks before its first visible operation.
                    drop(lock2.lock().unwrap());
                })
                .unwrap();
            drop(held);
            t.join().unwrap();
        })
        .unwrap();
    let Outcome::UncontrolledBlocking { actor, .. } = &report.outcome else { panic!("{report}") };
    assert_eq!(actor, "worker");
    assert_eq!(report.strategy, "portfolio");
}

#[test]
fn a_test_without_visible_operations_says_that_nothing_was_explored() {
    // A leftover std import: std's mutex is no scheduling point, and the
    // test took no step at all.
    let leftover = || {
        let m = std::sync::Mutex::new(0);
        *m.lock().unwrap() += 1;
    };
    let report = dfs(leftover);
    assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, 1, true));
    assert_eq!(
        report.to_string(),
        "pass: nothing explored: the test made no visible operation in 1 execution (strategy dfs); it uses no samaritan thread or primitive, or std's in their place (a leftover std::sync or std::thread import?)"
    );
    // A spawn is a step: a thread that then does nothing is explored.
    let report = dfs(|| thread::spawn(|| ()).join().unwrap());
    assert_eq!(report.to_string(), "pass: every execution explored: 1 executions, no bug (strategy dfs)");
}

/// What `check` of a test with no visible operation writes to standard
/// error, past the test harness's capture: the same test run again in a
/// child process runs the check.
#[test]
fn check_says_on_standard_error_that_nothing_was_explored() {
    const CHILD: &str = "SAMARITAN_TEST_NOTHING_EXPLORED";
    if std::env::var_os(CHILD).is_some() {
        Builder::new().persist(false).check(|| drop(std::sync::Mutex::new(0).lock()));
        return;
    }
    let name = "check_says_on_standard_error_that_nothing_was_explored";
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--test-threads=1"])
        .env(CHILD, "1")
        .env_remove("SAMARITAN_STRATEGY")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        stderr,
        format!("samaritan: {name}: pass: nothing explored: the test made no visible operation in 1 execution (strategy portfolio); it uses no samaritan thread or primitive, or std's in their place (a leftover std::sync or std::thread import?)\n")
    );
}
