//! `samaritan::sync::Condvar` in production mode and under exploration.

use std::collections::VecDeque;
use std::time::Duration;

use samaritan::sync::{Arc, Condvar, Mutex};
use samaritan::thread;

/// A flag handed from a producer to a waiting consumer, done right: the
/// consumer waits in a loop on the flag, under the mutex.
fn flag_handoff() {
    hand_off_flag(true);
}

/// [`flag_handoff`], the consumer waiting in a loop (`waits_in_loop`) or
/// trusting one wait (an `if` for the `while`: correct only if a wait
/// never wakes without a notification).
fn hand_off_flag(waits_in_loop: bool) {
    let pair = Arc::new((Mutex::new(false), Condvar::new()));
    let theirs = pair.clone();
    let t = thread::spawn(move || {
        let (m, cv) = &*theirs;
        *m.lock().unwrap() = true;
        cv.notify_one();
    });
    let (m, cv) = &*pair;
    let mut ready = m.lock().unwrap();
    if waits_in_loop {
        while !*ready {
            ready = cv.wait(ready).unwrap();
        }
    } else if !*ready {
        ready = cv.wait(ready).unwrap();
    }
    assert!(*ready, "woke without a notification");
    drop(ready);
    t.join().unwrap();
}

/// A bounded queue of capacity 1: a producer sends 1, 2, a consumer
/// receives them in order; both wait on one condvar with `wait_while`.
fn bounded_queue() {
    let shared = Arc::new((Mutex::new(VecDeque::new()), Condvar::new()));
    let theirs = shared.clone();
    let producer = thread::spawn(move || {
        let (q, cv) = &*theirs;
        for item in 1..=2 {
            let mut q = cv.wait_while(q.lock().unwrap(), |q| !q.is_empty()).unwrap();
            q.push_back(item);
            cv.notify_all();
        }
    });
    let (q, cv) = &*shared;
    let mut got = Vec::new();
    for _ in 0..2 {
        let mut guard = cv.wait_while(q.lock().unwrap(), |q| q.is_empty()).unwrap();
        got.push(guard.pop_front().unwrap());
        cv.notify_all();
    }
    producer.join().unwrap();
    assert_eq!(got, [1, 2]);
}

#[test]
fn wait_and_notify_hand_over_a_flag_with_real_threads() {
    // In both modes this runs for real: no exploration is started.
    flag_handoff();
    bounded_queue();
}

#[test]
fn wait_timeout_and_wait_timeout_while_time_out_without_a_notification() {
    let m = Mutex::new(0);
    let cv = Condvar::new();
    let (g, r) = cv.wait_timeout(m.lock().unwrap(), Duration::from_millis(1)).unwrap();
    assert!(r.timed_out());
    let (g, r) = cv.wait_timeout_while(g, Duration::from_millis(1), |n| *n == 0).unwrap();
    assert!(r.timed_out());
    let (g, r) = cv.wait_timeout_while(g, Duration::from_millis(1), |n| *n != 0).unwrap();
    assert!(!r.timed_out());
    drop(g);
    // Notifying without waiters does nothing.
    cv.notify_one();
    cv.notify_all();
    assert_eq!(format!("{:?}", Condvar::default()), format!("{:?}", std::sync::Condvar::new()));
}

#[cfg(feature = "sim")]
mod common;

#[cfg(feature = "sim")]
mod sim {
    use super::common::{check_exhausts, dfs};
    use super::*;
    use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering as StdOrdering};

    use samaritan::{BlockedActor, Builder, Deadlock, Outcome};

    #[test]
    fn a_flag_handoff_passes_in_four_executions() {
        // main S L [W1 W2 L'] U J, the bracket only when the flag is unset;
        // t1 Lt Ut N. After S: main L or t1 Lt.
        // - L: t1 is locked out, so W1 (queue up, unlock) is forced; main
        //   is then blocked until N, so Lt Ut N W2 L' U J are forced: 1.
        // - Lt: Ut forced (main locked out); then N or L.
        //   - N (lost, but the flag is set): L U J: 1.
        //   - L (flag set, no wait): then U or N, J last: 2.
        // That is 4 without spurious wake-ups. With them, W1 is followed by
        // main's choice; a spurious wait makes W2 always enabled, then L'
        // finds the flag set (main goes on) or not (a second wait, which
        // cannot be spurious, N wakes it):
        // - W2 before Lt: L' before Lt (a second wait: 1), or Lt Ut and
        //   then L' before N (2) or N (lost) before L' (1): 4.
        // - Lt before W2: W2 before Ut, then L' N or N L' (2 + 1), or Ut
        //   then W2 before N (2 + 1) or N (a real wake-up) W2 (1): 7.
        // Total 4 + 11 = 15.
        check_exhausts(flag_handoff, 15);
    }

    #[test]
    fn a_bounded_queue_passes_every_schedule() {
        let report = dfs(bounded_queue);
        assert_eq!((&report.outcome, report.exhausted), (&Outcome::Pass, true), "{report}");
    }

    /// The classic lost wake-up: the notification is not recorded anywhere,
    /// so when it runs before the wait, the waiter sleeps forever.
    fn lost_wakeup() {
        let pair = Arc::new((Mutex::new(()), Condvar::new()));
        let theirs = pair.clone();
        let t = thread::spawn(move || theirs.1.notify_one());
        let (m, cv) = &*pair;
        let guard = m.lock().unwrap();
        drop(cv.wait(guard).unwrap());
        t.join().unwrap();
    }

    #[test]
    fn a_lost_wakeup_is_a_deadlock_on_the_condvar() {
        // main S L W1 W2 L' U J; t1 N. DFS runs the current thread first:
        // execution 1 is S L W1 N W2 L' U J (passes); executions 2 to 5
        // make W2 spurious (always enabled) and put N after U, L', W2 or
        // before W2 (all pass); execution 6 moves N before W1, the
        // notification finds no waiter, and main blocks in W2.
        // Objects are numbered by first use: Thread#0 when t1 starts, then
        // Condvar#1 when t1 announces N (it runs up to its first step at S).
        let report = dfs(lost_wakeup);
        let Outcome::Deadlock(Deadlock { blocked, cycle, .. }) = &report.outcome else { panic!("{report}") };
        let BlockedActor { actor, op, object, holders, location, .. } = &blocked[0];
        assert_eq!(
            (blocked.len(), actor.as_str(), op.as_str(), object.as_deref(), holders.len()),
            (1, "main", "wait", Some("Condvar#1"), 0),
            "{report}"
        );
        assert!(location.starts_with("tests/condvar.rs:"), "{location}");
        assert!(cycle.is_empty());
        assert_eq!(report.executions, 6);
        // The report tells it as a lost wakeup, naming both steps.
        let text = report.to_string();
        let told = text.lines().find(|l| l.starts_with("  lost wakeup: ")).unwrap_or_else(|| panic!("{report}"));
        assert!(
            told.starts_with("  lost wakeup: 't1' notified Condvar#1 (notify_one at step 2, tests/condvar.rs:"),
            "{told}"
        );
        assert!(
            told.ends_with(") before 'main' began waiting on it at step 3, and no notification came after"),
            "{told}"
        );
        // The notify's trace line says the notification found nobody.
        let trace = &report.failure.as_ref().unwrap().trace;
        let notify = trace.lines.iter().find(|l| l.op == samaritan::Op::NotifyOne).expect("the notify");
        assert_eq!(notify.note.as_deref(), Some("nobody was waiting: the notification is lost"), "{report}");
        let token = report.token().expect("a failure has a token").to_string();
        let replayed = Builder::new().replay(&token, lost_wakeup).unwrap();
        assert_eq!(replayed.outcome, report.outcome);
    }

    #[test]
    fn the_trace_says_which_waiter_a_notification_woke() {
        // Two waiters, one notify_one: the one left waiting deadlocks; the
        // trace's notify line names whom it woke and who still waits.
        let report = dfs(|| {
            let pair = Arc::new((Mutex::new(0), Condvar::new()));
            let waiters: Vec<_> = (0..2)
                .map(|_| {
                    let pair = pair.clone();
                    thread::spawn(move || {
                        let (m, cv) = &*pair;
                        let mut n = m.lock().unwrap();
                        *n += 1;
                        drop(cv.wait(n).unwrap());
                    })
                })
                .collect();
            let (m, cv) = &*pair;
            // Notify once both wait (each counted itself under the lock).
            while *m.lock().unwrap() < 2 {
                thread::yield_now();
            }
            let _guard = m.lock().unwrap();
            cv.notify_one();
            drop(_guard);
            for w in waiters {
                w.join().unwrap();
            }
        });
        let Outcome::Deadlock(_) = &report.outcome else { panic!("{report}") };
        let trace = &report.failure.as_ref().unwrap().trace;
        let notes: Vec<&str> =
            trace.lines.iter().filter(|l| l.op == samaritan::Op::NotifyOne).filter_map(|l| l.note.as_deref()).collect();
        assert!(matches!(notes.as_slice(), ["woke t1; t2 still waiting"] | ["woke t2; t1 still waiting"]), "{report}");
        // Each wait shows as its block and, for the woken one, its wake-up.
        let waits: Vec<(&str, &str)> = trace
            .lines
            .iter()
            .filter(|l| l.op == samaritan::Op::Wait)
            .map(|l| (l.actor.as_str(), l.note.as_deref().unwrap_or("")))
            .collect();
        assert!(
            matches!(waits.as_slice(), [(_, "begins waiting"), (_, "begins waiting"), (_, "woken by main")]),
            "{report}"
        );
        assert!(report.to_string().contains("  (woke t"), "{report}");
    }

    #[test]
    fn wait_timeout_both_times_out_and_is_notified() {
        static TIMED_OUT: StdAtomicUsize = StdAtomicUsize::new(0);
        static NOTIFIED: StdAtomicUsize = StdAtomicUsize::new(0);
        let report = dfs(|| {
            let pair = Arc::new((Mutex::new(()), Condvar::new()));
            let theirs = pair.clone();
            let t = thread::spawn(move || theirs.1.notify_one());
            let (m, cv) = &*pair;
            let (guard, result) = cv.wait_timeout(m.lock().unwrap(), Duration::from_secs(1)).unwrap();
            drop(guard);
            let counter = if result.timed_out() { &TIMED_OUT } else { &NOTIFIED };
            counter.fetch_add(1, StdOrdering::SeqCst);
            t.join().unwrap();
        });
        // main S L W1 WT L' U J, where WT (the timed part) is always
        // enabled; t1 N, anywhere after S and before J: 6 places. Only N
        // between W1 and WT notifies; before W1 it is lost, after WT too
        // late: 5 time-outs, 1 notified.
        assert_eq!((&report.outcome, report.executions), (&Outcome::Pass, 6), "{report}");
        assert_eq!((TIMED_OUT.load(StdOrdering::SeqCst), NOTIFIED.load(StdOrdering::SeqCst)), (5, 1));
    }

    #[test]
    fn time_outs_hold_inside_an_execution() {
        check_exhausts(wait_timeout_and_wait_timeout_while_time_out_without_a_notification, 1);
    }

    #[test]
    fn wait_timeout_while_advances_the_virtual_clock() {
        check_exhausts(
            || {
                let m = Mutex::new(0);
                let cv = Condvar::new();
                let (g, r) = cv.wait_timeout_while(m.lock().unwrap(), Duration::from_secs(5), |n| *n == 0).unwrap();
                assert!(r.timed_out());
                assert_eq!(*g, 0);
            },
            1,
        );
    }

    #[test]
    fn notify_all_wakes_every_waiter() {
        let report = dfs(|| {
            let pair = Arc::new((Mutex::new(false), Condvar::new()));
            let waiters: Vec<_> = (0..2)
                .map(|_| {
                    let pair = pair.clone();
                    thread::spawn(move || {
                        let (m, cv) = &*pair;
                        drop(cv.wait_while(m.lock().unwrap(), |go| !*go).unwrap());
                    })
                })
                .collect();
            let (m, cv) = &*pair;
            *m.lock().unwrap() = true;
            cv.notify_all();
            for w in waiters {
                w.join().unwrap();
            }
        });
        assert_eq!((&report.outcome, report.exhausted), (&Outcome::Pass, true), "{report}");
    }

    /// t1 and then t2 wait once on one condvar (main sees each queued
    /// before it goes on); main notifies one; the woken one notifies the
    /// other. Returns the thread woken first.
    fn first_woken() -> usize {
        let shared = Arc::new((Mutex::new((0, None)), Condvar::new(), Condvar::new()));
        let waiters: Vec<_> = (1..=2)
            .map(|id| {
                let theirs = shared.clone();
                let (m, arrived, _) = &*shared;
                let waiter = thread::spawn(move || {
                    let (m, arrived, cv) = &*theirs;
                    let mut state = m.lock().unwrap();
                    state.0 += 1;
                    arrived.notify_one();
                    let mut state = cv.wait(state).unwrap();
                    state.1.get_or_insert(id);
                    cv.notify_one();
                });
                // Queued: its wait released the mutex in the step that
                // queued it.
                drop(arrived.wait_while(m.lock().unwrap(), |s| s.0 < id).unwrap());
                waiter
            })
            .collect();
        shared.2.notify_one();
        for w in waiters {
            w.join().unwrap();
        }
        let first = shared.0.lock().unwrap().1;
        first.expect("a waiter woke")
    }

    #[test]
    fn notify_one_wakes_either_waiter() {
        // Without spurious wake-ups (they would only add schedules here),
        // DFS explores 99 executions: notify_one's choice of waiter (t1,
        // the oldest, first) leads to 81 with t1 woken first and 18 with
        // t2 (fewer: main's join of t1 then waits for t2's notification).
        // Waking always the oldest, it ran the 81 and t2 never woke first.
        static FIRST: [StdAtomicUsize; 3] = [const { StdAtomicUsize::new(0) }; 3];
        let report = Builder::new()
            .strategy(samaritan::SearchStrategy::Dfs)
            .spurious_failures(false)
            .explore(|| {
                FIRST[first_woken()].fetch_add(1, StdOrdering::SeqCst);
            })
            .unwrap();
        assert_eq!((&report.outcome, report.executions), (&Outcome::Pass, 99), "{report}");
        let first: Vec<_> = FIRST.iter().map(|n| n.load(StdOrdering::SeqCst)).collect();
        assert_eq!(first, [0, 81, 18]);
    }

    #[test]
    fn wait_may_wake_spuriously() {
        // flag_handoff with `if` for `while`: correct only if a wait never
        // wakes without a notification. In DFS's second execution main's
        // wait is spurious and wakes before t1 set the flag.
        let body = || hand_off_flag(false);
        let report = dfs(body);
        let Outcome::Panic { message, .. } = &report.outcome else { panic!("{report}") };
        assert_eq!((message.as_str(), report.executions), ("woke without a notification", 2), "{report}");
        // Without spurious wake-ups it is flag_handoff's 4.
        let report =
            Builder::new().strategy(samaritan::SearchStrategy::Dfs).spurious_failures(false).explore(body).unwrap();
        assert_eq!((&report.outcome, report.executions), (&Outcome::Pass, 4), "{report}");
    }

    #[test]
    fn a_spurious_wake_up_costs_a_preemption_in_a_bounded_search() {
        // wait_may_wake_spuriously's `if` for `while`, under the searches
        // that bound preemptions: a spurious wake-up is the platform's
        // doing, as a preemption is, and costs one.
        let body = || hand_off_flag(false);
        // Executions at bound 0, and to the bug at bound 1.
        for (strategy, passed, found) in
            [(samaritan::SearchStrategy::Icb, 1, 3), (samaritan::SearchStrategy::CbPor, 1, 2)]
        {
            let at = |bound| Builder::new().strategy(strategy).preemption_bound(bound).explore(body).unwrap();
            // At bound 0 no wait wakes spuriously (main waits first and t1
            // notifies it), and the pass says what its bound counts.
            let none = at(0);
            assert_eq!((&none.outcome, none.executions, none.completed_bound), (&Outcome::Pass, passed, Some(0)));
            assert!(
                none.to_string().contains(
                    "every execution with <= 0 preemptions (a spurious wake-up or failure counting as one) explored"
                ),
                "{none}"
            );
            // At bound 1 main's wait wakes without t1's notification.
            let one = at(1);
            let Outcome::Panic { message, .. } = &one.outcome else { panic!("{one}") };
            assert_eq!(
                (message.as_str(), one.executions),
                ("woke without a notification", found),
                "{strategy:?}: {one}"
            );
        }
    }

    #[test]
    fn notify_one_instead_of_notify_all_strands_a_waiter() {
        let report = dfs(|| {
            let pair = Arc::new((Mutex::new(false), Condvar::new()));
            let waiters: Vec<_> = (0..2)
                .map(|_| {
                    let pair = pair.clone();
                    thread::spawn(move || {
                        let (m, cv) = &*pair;
                        drop(cv.wait_while(m.lock().unwrap(), |go| !*go).unwrap());
                    })
                })
                .collect();
            let (m, cv) = &*pair;
            *m.lock().unwrap() = true;
            cv.notify_one();
            for w in waiters {
                w.join().unwrap();
            }
        });
        let Outcome::Deadlock(Deadlock { blocked, .. }) = &report.outcome else { panic!("{report}") };
        let ops: Vec<_> = blocked.iter().map(|b| (b.actor.as_str(), b.op.as_str())).collect();
        assert_eq!(ops, [("main", "join"), ("t2", "wait")], "{report}");
    }
}
