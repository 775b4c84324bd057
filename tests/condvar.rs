//! `samaritan::sync::Condvar` in production mode and under exploration.

use std::collections::VecDeque;
use std::time::Duration;

use samaritan::sync::{Arc, Condvar, Mutex};
use samaritan::thread;

/// A flag handed from a producer to a waiting consumer, done right: the
/// consumer waits in a loop on the flag, under the mutex.
fn flag_handoff() {
    let pair = Arc::new((Mutex::new(false), Condvar::new()));
    let theirs = pair.clone();
    let t = thread::spawn(move || {
        let (m, cv) = &*theirs;
        *m.lock().unwrap() = true;
        cv.notify_one();
    });
    let (m, cv) = &*pair;
    let mut ready = m.lock().unwrap();
    while !*ready {
        ready = cv.wait(ready).unwrap();
    }
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
        // Total 4.
        check_exhausts(flag_handoff, 4);
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
        // execution 1 is S L W1 N W2 L' U J (passes); execution 2 moves N
        // before W1, the notification finds no waiter, and main blocks in W2.
        // Objects are numbered by first use: Thread#0 when t1 starts, then
        // Condvar#1 when t1 announces N (it runs up to its first step at S).
        let report = dfs(lost_wakeup);
        let Outcome::Deadlock(Deadlock { blocked, cycle }) = &report.outcome else { panic!("{report}") };
        let BlockedActor { actor, op, object, holders, location, .. } = &blocked[0];
        assert_eq!(
            (blocked.len(), actor.as_str(), op.as_str(), object.as_deref(), holders.len()),
            (1, "main", "wait", Some("Condvar#1"), 0),
            "{report}"
        );
        assert!(location.starts_with("tests/condvar.rs:"), "{location}");
        assert!(cycle.is_empty());
        assert_eq!(report.executions, 2);
        let token = report.token().expect("a failure has a token").to_string();
        let replayed = Builder::new().replay(&token, lost_wakeup).unwrap();
        assert_eq!(replayed.outcome, report.outcome);
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
