//! The fair scheduler and the liveness verdicts: spin loops that yield end,
//! livelocks and good-samaritan violations are reported, not hung on.
//!
//! Each model also runs once without `sim` (where the OS scheduler is fair
//! and the loops end), except those that are meant to diverge.

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::thread;

/// Thread `t` sets `x`; thread `u` spins on it with a yield (fair paper,
/// Fig. 3).
fn spin_on_flag() {
    let x = Arc::new(AtomicUsize::new(0));
    let t = {
        let x = x.clone();
        thread::spawn(move || x.store(1, Ordering::SeqCst))
    };
    while x.load(Ordering::SeqCst) != 1 {
        thread::yield_now();
    }
    t.join().unwrap();
}

#[test]
fn a_yielding_spin_loop_ends_in_both_modes() {
    samaritan::check(spin_on_flag);
}

#[cfg(feature = "sim")]
mod sim {
    use super::*;
    use samaritan::sync::atomic::AtomicBool;
    use samaritan::{Builder, Outcome, SearchStrategy};

    #[test]
    fn a_yielding_spin_loop_is_explored_exhaustively_with_fairness() {
        let report = Builder::new().strategy(SearchStrategy::Dfs).explore(spin_on_flag).unwrap();
        assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, 5, true), "{report}");
    }

    #[test]
    fn without_fairness_the_spin_loop_runs_into_the_step_bound() {
        let report =
            Builder::new().strategy(SearchStrategy::Dfs).fairness(false).max_steps(1000).explore(spin_on_flag).unwrap();
        assert_eq!(report.outcome, Outcome::StepBound { steps: 1000 }, "{report}");
    }

    /// Both philosophers take their left fork, try the right one, put the
    /// left one back and yield when it is taken: a fair livelock (fair
    /// paper, Fig. 1).
    fn philosophers() {
        let forks = Arc::new([samaritan::sync::Mutex::new(()), samaritan::sync::Mutex::new(())]);
        let spawn = |first: usize| {
            let forks = forks.clone();
            thread::spawn(move || loop {
                let _left = forks[first].lock().unwrap();
                if let Ok(_right) = forks[1 - first].try_lock() {
                    return;
                }
                drop(_left);
                thread::yield_now();
            })
        };
        let (a, b) = (spawn(0), spawn(1));
        a.join().unwrap();
        b.join().unwrap();
    }

    #[test]
    fn the_philosophers_livelock_is_reported_with_its_cycle() {
        let report = Builder::new().strategy(SearchStrategy::Dfs).explore(philosophers).unwrap();
        let Outcome::Livelock { cycle, repeats, steps } = &report.outcome else { panic!("{report}") };
        assert_eq!(*steps, 100_000);
        // Both philosophers take part and every one of them yields in it.
        for name in ["t1", "t2"] {
            assert!(cycle.iter().any(|s| s.actor == name && s.op == samaritan::Op::Yield), "{report}");
        }
        assert!(*repeats as usize * cycle.len() > 90_000, "{report}");
        let text = report.to_string();
        assert!(text.contains(&format!("repeated this cycle {repeats} times")), "{text}");
        // The token stays short though the schedule has thousands of
        // choices (they repeat), and the verdict survives its replay.
        assert!(report.token().unwrap().len() < 200, "{}", report.token().unwrap());
        let again = Builder::new().replay(report.token().unwrap(), philosophers).unwrap();
        assert_eq!(again.outcome, report.outcome);
    }

    #[test]
    fn a_preemption_bound_cannot_build_a_livelock_that_needs_a_switch_every_round() {
        // Each round of the lockstep needs a preemption; at most two are
        // allowed, so every bounded execution ends.
        let report = Builder::new().explore(philosophers).unwrap();
        assert_eq!(
            (&report.outcome, report.completed_bound, report.bounded),
            (&Outcome::Pass, Some(2), true),
            "{report}"
        );
    }

    /// Where `spin_without_yield` loads the flag, as traces print it.
    fn spin_location() -> String {
        let source = include_str!("liveness.rs");
        let (line, text) =
            source.lines().enumerate().find(|(_, l)| l.contains(concat!("while !stop", ".load("))).unwrap();
        format!("tests/liveness.rs:{}:{}", line + 1, text.find("load(").unwrap() + 1)
    }

    fn spin_without_yield() {
        let stop = Arc::new(AtomicBool::new(false));
        let t = {
            let stop = stop.clone();
            thread::spawn(move || stop.store(true, Ordering::SeqCst))
        };
        while !stop.load(Ordering::SeqCst) {}
        t.join().unwrap();
    }

    #[test]
    fn a_thread_spinning_without_a_yield_violates_the_good_samaritan_property() {
        let report = Builder::new().max_steps(5_000).explore(spin_without_yield).unwrap();
        let Outcome::GoodSamaritanViolation { actor, steps, cycle } = &report.outcome else { panic!("{report}") };
        // main spawns t (which starts at once, up to its store), then loads
        // the flag over and over: every step is main's.
        assert_eq!((actor.as_str(), *steps), ("main", 5_000), "{report}");
        assert_eq!(cycle.len(), 1);
        assert_eq!((cycle[0].op, cycle[0].location.as_str()), (samaritan::Op::Load, spin_location().as_str()));
        assert!(report
            .to_string()
            .contains("good-samaritan violation: thread 'main' took 5000 steps without yielding"));
    }
}

#[cfg(feature = "sim")]
mod unfinished {
    use samaritan::sync::atomic::{AtomicUsize, Ordering};
    use samaritan::sync::Arc;
    use samaritan::thread;
    use samaritan::{Builder, Outcome, SearchStrategy};

    /// Spawns a fresh thread each round, yields, and joins it, `rounds`
    /// times: no actor repeats, so no step pattern repeats either, and
    /// main yields in every round.
    fn rounds(rounds: usize) -> impl Fn() + Send + Sync + 'static {
        move || {
            let count = Arc::new(AtomicUsize::new(0));
            for _ in 0..rounds {
                let t = {
                    let count = count.clone();
                    thread::spawn(move || {
                        count.fetch_add(1, Ordering::Relaxed);
                    })
                };
                thread::yield_now();
                t.join().unwrap();
            }
            assert_eq!(count.load(Ordering::Relaxed), rounds);
        }
    }

    #[test]
    fn a_long_execution_with_no_repeating_tail_is_unfinished_not_a_bug() {
        let report = Builder::new().strategy(SearchStrategy::Dfs).max_steps(1_000).explore(rounds(10_000)).unwrap();
        // Execution 1 runs into the bound; its tail names no cycle and no
        // spinner, so there is no verdict and no token to replay.
        assert_eq!((&report.outcome, report.executions), (&Outcome::Unfinished { steps: 1_000 }, 1), "{report}");
        assert!(report.outcome.is_misuse(), "{report}");
        assert_eq!(report.token(), None, "{report}");
        assert!(report.to_string().contains("unfinished: the execution had not ended after 1000 steps"), "{report}");
    }

    #[test]
    fn the_same_program_within_the_bound_passes() {
        let report = Builder::new().strategy(SearchStrategy::Dfs).max_steps(1_000).explore(rounds(3)).unwrap();
        // Each round's child runs its add before or after main's yield:
        // 2 ways a round, 2^3 executions.
        assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, 8, true), "{report}");
    }
}
