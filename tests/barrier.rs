//! `samaritan::sync::Barrier` in production mode and under exploration.

use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering as StdOrdering};

use samaritan::sync::{Arc, Barrier};
use samaritan::thread;

/// `threads` threads meet `rounds` times at a barrier for `threads`; each
/// round has exactly one leader.
fn rendezvous(threads: usize, rounds: usize) {
    let barrier = Arc::new(Barrier::new(threads));
    let leaders = Arc::new(StdAtomicUsize::new(0));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (barrier, leaders) = (barrier.clone(), leaders.clone());
            thread::spawn(move || {
                for _ in 0..rounds {
                    if barrier.wait().is_leader() {
                        leaders.fetch_add(1, StdOrdering::SeqCst);
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(leaders.load(StdOrdering::SeqCst), rounds);
}

#[test]
fn every_round_has_one_leader_with_real_threads() {
    // In both modes this runs for real: no exploration is started.
    rendezvous(3, 10);
}

#[test]
fn a_barrier_for_one_thread_never_blocks() {
    let barrier = Barrier::new(1);
    assert!(barrier.wait().is_leader());
    assert!(barrier.wait().is_leader());
    assert_eq!(format!("{:?}", barrier), format!("{:?}", std::sync::Barrier::new(1)));
}

#[cfg(feature = "sim")]
mod common;

#[cfg(feature = "sim")]
mod sim {
    use super::common::{check_exhausts, dfs};
    use super::*;
    use samaritan::{Builder, Deadlock, Outcome};

    #[test]
    fn two_threads_meet_once_in_four_executions() {
        // main S1 S2 J1 J2. The first to arrive takes two steps (arrive A,
        // then the blocked B, enabled once the other arrived); the last one
        // only A and leads. After S1: t1's A1 or main's S2.
        // - A1: S2 A2 B1 J1 J2 forced: 1.
        // - S2 (J1 is disabled): A1 then A2 B1 J1 J2 forced: 1; or A2 then
        //   A1, after which B2 and J1 go in either order: 2.
        // Total 4, one leader in each.
        check_exhausts(|| rendezvous(2, 1), 4);
    }

    #[test]
    fn a_barrier_for_one_thread_never_blocks_inside_an_execution() {
        check_exhausts(a_barrier_for_one_thread_never_blocks, 1);
    }

    #[test]
    fn a_barrier_is_reusable_across_rounds() {
        let report = dfs(|| rendezvous(2, 2));
        assert_eq!((&report.outcome, report.exhausted), (&Outcome::Pass, true), "{report}");
    }

    #[test]
    fn a_barrier_for_more_threads_than_arrive_deadlocks() {
        let body = || {
            let barrier = Arc::new(Barrier::new(3));
            let b = barrier.clone();
            let t = thread::spawn(move || {
                b.wait();
            });
            barrier.wait();
            t.join().unwrap();
        };
        let report = dfs(body);
        let Outcome::Deadlock(Deadlock { blocked, cycle, .. }) = &report.outcome else { panic!("{report}") };
        let ops: Vec<_> =
            blocked.iter().map(|b| (b.actor.as_str(), b.op.as_str(), b.object.as_deref().unwrap_or(""))).collect();
        // Thread#0 is t1's own object; the barrier is the next one used.
        assert_eq!(ops, [("main", "barrier_wait", "Barrier#1"), ("t1", "barrier_wait", "Barrier#1")], "{report}");
        assert!(cycle.is_empty());
        // The first execution already deadlocks: every schedule does.
        assert_eq!(report.executions, 1);
        let token = report.token().expect("a failure has a token").to_string();
        assert_eq!(Builder::new().replay(&token, body).unwrap().outcome, report.outcome);
    }
}
