//! The search strategies: iterative context bounding, PCT and random, and
//! the state-coverage count.

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::thread;

/// Two threads each add one to a counter; main joins them.
fn two_adds() {
    let n = Arc::new(AtomicUsize::new(0));
    let spawn = || {
        let n = n.clone();
        thread::spawn(move || {
            n.fetch_add(1, Ordering::SeqCst);
        })
    };
    let (a, b) = (spawn(), spawn());
    a.join().unwrap();
    b.join().unwrap();
    samaritan::coverage::state(n.load(Ordering::SeqCst) as u64);
    assert_eq!(n.load(Ordering::SeqCst), 2);
}

/// Two threads increment with a separate load and store: one increment can
/// be lost, with one preemption. (Explored only: on real threads it fails
/// only now and then.)
#[cfg_attr(not(feature = "sim"), allow(dead_code))]
fn lost_update() {
    let n = Arc::new(AtomicUsize::new(0));
    let spawn = || {
        let n = n.clone();
        thread::spawn(move || {
            let seen = n.load(Ordering::SeqCst);
            n.store(seen + 1, Ordering::SeqCst);
        })
    };
    let (a, b) = (spawn(), spawn());
    a.join().unwrap();
    b.join().unwrap();
    let total = n.load(Ordering::SeqCst);
    samaritan::coverage::state(total as u64);
    assert_eq!(total, 2, "an increment was lost");
}

#[test]
fn the_models_run_in_production() {
    samaritan::check(two_adds);
}

#[cfg(feature = "sim")]
mod sim {
    use super::*;
    use samaritan::{Builder, Outcome, Report, Schedule, SearchStrategy};

    fn icb(bound: u32, f: fn()) -> Report {
        Builder::new().strategy(SearchStrategy::Icb).preemption_bound(bound).explore(f).unwrap()
    }

    /// Asserts a passing ICB run: executions, the bound it completed, and
    /// whether executions beyond it were left out.
    #[track_caller]
    fn check_icb(bound: u32, executions: u64, bounded: bool) {
        let report = icb(bound, two_adds);
        assert_eq!(
            (&report.outcome, report.executions, report.exhausted, report.completed_bound, report.bounded),
            (&Outcome::Pass, executions, true, Some(bound), bounded),
            "{report}"
        );
    }

    #[test]
    fn icb_explores_more_executions_as_the_bound_grows_and_ends_where_dfs_does() {
        // main: spawn t1 (S1), spawn t2 (S2), join t1, join t2; t1, t2: one
        // add each. Bound 0: main spawns both (running t1 right after S1
        // would preempt main), then blocks in join t1: t1 or t2 runs first
        // (free); after t1 finishes, main or t2 (free); after t2 only t1. 3.
        check_icb(0, 3, true);
        // Bound 1: the one preemption point of those runs is after S1: t1
        // adds, main spawns t2, then main (join t1 is ready) goes on, its
        // switch to t2 being a second preemption. 1 more: 4.
        check_icb(1, 4, true);
        // Bound 2: that switch to t2. 5, and no execution needs a third:
        // the whole space, the same executions DFS runs.
        check_icb(2, 5, false);
        let dfs = Builder::new().strategy(SearchStrategy::Dfs).explore(two_adds).unwrap();
        assert_eq!((dfs.executions, dfs.exhausted), (5, true));
        assert_eq!(
            icb(2, two_adds).to_string(),
            "pass: every execution explored: 5 executions, no bug (strategy icb); 1 distinct states"
        );
        assert_eq!(
            icb(1, two_adds).to_string(),
            "pass: every execution with <= 1 preemption explored: 4 executions, no bug (strategy icb); 1 distinct states"
        );
    }

    #[test]
    fn icb_reports_a_bug_with_the_fewest_preemptions_that_expose_it() {
        let report = icb(2, lost_update);
        assert!(matches!(report.outcome, Outcome::Panic { .. }), "{report}");
        let failure = report.failure.as_ref().unwrap();
        assert_eq!((failure.trace.preemptions(), report.completed_bound), (1, Some(0)), "{report}");
        assert!(report.to_string().contains("it takes 1 preemption: every execution with <= 0 preemptions passed"));
        // At bound 0 it is not there at all.
        let none = icb(0, lost_update);
        assert_eq!((&none.outcome, none.completed_bound, none.bounded), (&Outcome::Pass, Some(0), true), "{none}");
    }

    #[test]
    fn switches_the_fair_scheduler_forces_are_not_charged_to_the_bound() {
        // The spinner must give way to the setter; with no preemption
        // allowed that switch still happens: it follows a yield.
        let spin = || {
            let x = Arc::new(AtomicUsize::new(0));
            let t = {
                let x = x.clone();
                thread::spawn(move || x.store(1, Ordering::SeqCst))
            };
            while x.load(Ordering::SeqCst) != 1 {
                thread::yield_now();
            }
            t.join().unwrap();
        };
        let report = Builder::new().preemption_bound(0).explore(spin).unwrap();
        assert_eq!((&report.outcome, report.exhausted), (&Outcome::Pass, true), "{report}");
    }

    #[test]
    fn pct_and_random_find_the_lost_update_and_record_their_seed() {
        for strategy in [SearchStrategy::Pct, SearchStrategy::Random] {
            let report = Builder::new().strategy(strategy).seed(7).explore(lost_update).unwrap();
            assert!(matches!(report.outcome, Outcome::Panic { .. }), "{strategy:?}: {report}");
            let token = report.token().unwrap();
            let schedule = Schedule::from_token(token).unwrap();
            assert_eq!((schedule.seed, schedule.fair), (Some(7), true));
            assert_eq!(schedule.strategy, format!("{strategy:?}").to_lowercase());
            let again = Builder::new().replay(token, lost_update).unwrap();
            assert_eq!(again.outcome, report.outcome);
        }
    }

    #[test]
    fn pct_with_depth_one_never_switches_unless_forced() {
        // Depth 1: no priority change points, so the actor of highest
        // priority runs until it blocks; a lost update needs a switch
        // between a load and its store, which never comes.
        let report =
            Builder::new().strategy(SearchStrategy::Pct).pct_depth(1).max_executions(200).explore(lost_update).unwrap();
        assert_eq!((&report.outcome, report.executions), (&Outcome::Pass, 200), "{report}");
    }

    /// A bug of depth 3 (PCT's sense): it needs a1 < b1 < a2 < b2, each
    /// thread running twenty steps between its two.
    fn depth_three() {
        let s = Arc::new(AtomicUsize::new(0));
        let noise = Arc::new(AtomicUsize::new(0));
        let (s2, noise2) = (s.clone(), noise.clone());
        let a = thread::spawn(move || {
            s2.store(1, Ordering::SeqCst);
            for _ in 0..20 {
                noise2.load(Ordering::SeqCst);
            }
            s2.store(3, Ordering::SeqCst);
        });
        let seen_one = s.load(Ordering::SeqCst) == 1;
        for _ in 0..20 {
            noise.load(Ordering::SeqCst);
        }
        assert!(!(seen_one && s.load(Ordering::SeqCst) == 3), "saw 1 then 3");
        a.join().unwrap();
    }

    #[test]
    fn pct_finds_a_depth_three_bug_that_needs_a_demotion_below_an_earlier_one() {
        // With d = 3 the two change points must be able to rank either way:
        // the second demotion has to put the first-demoted thread back on
        // top. Found within the default 1000 executions (seed 0).
        let report = Builder::new().strategy(SearchStrategy::Pct).pct_depth(3).explore(depth_three).unwrap();
        assert!(matches!(report.outcome, Outcome::Panic { .. }), "{report}");
        assert!(report.executions < 1000, "{report}");
    }

    #[test]
    fn the_coverage_hook_counts_distinct_states_per_exploration() {
        // The final counter is 2, or 1 when an increment is lost: DFS stops
        // at the first failure, having seen both.
        let report = Builder::new().strategy(SearchStrategy::Dfs).explore(lost_update).unwrap();
        assert_eq!(report.states, Some(2), "{report}");
        // The first execution reaches 2, the failing one (the fourth) 1.
        assert_eq!(report.coverage, [(1, 1), (4, 2)], "{report}");
        let report = Builder::new().strategy(SearchStrategy::Dfs).explore(|| {}).unwrap();
        assert_eq!(report.states, None);
    }

    #[test]
    fn a_token_replays_with_the_fairness_it_was_made_with() {
        let report = icb(2, lost_update);
        let token = report.token().unwrap();
        let again = Builder::new().fairness(false).replay(token, lost_update).unwrap();
        assert_eq!(again.outcome, report.outcome);
    }

    #[test]
    fn version_1_tokens_are_still_read_as_made_without_fairness() {
        // The lost-update example's token as version 1 wrote it: runs of
        // one 0, one 1 and two 2s.
        let old = Schedule::from_token("s1_A2RmcwDhtIs7AwABAQECAr3Y").unwrap();
        assert_eq!((old.strategy.as_str(), old.seed, old.fair), ("dfs", None, false));
        assert_eq!(old.choices, [0, 1, 2, 2]);
        // Written again it is a version 2 token that reads back the same.
        let again = Schedule::from_token(&old.to_token()).unwrap();
        assert!(old.to_token().starts_with("s2_"));
        assert_eq!(again, old);
    }

    /// Fails once executions are past the second (with `only`, in the third
    /// alone), whatever the schedule: state kept outside the model, in a
    /// `static` counter, decides.
    fn leftover(runs: &'static std::sync::atomic::AtomicUsize, only: bool) -> impl Fn() + Send + Sync + 'static {
        move || {
            let run = runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            two_adds_without_assert();
            assert!(if only { run != 2 } else { run < 2 }, "leftover state: run {run}");
        }
    }

    /// [`two_adds`] without its assertion or state count.
    fn two_adds_without_assert() {
        let n = Arc::new(AtomicUsize::new(0));
        let n2 = n.clone();
        let t = thread::spawn(move || {
            n2.fetch_add(1, Ordering::SeqCst);
        });
        n.fetch_add(1, Ordering::SeqCst);
        t.join().unwrap();
    }

    #[test]
    fn state_left_between_executions_is_nondeterminism_for_the_randomized_searches_too() {
        for strategy in [SearchStrategy::Random, SearchStrategy::Pct, SearchStrategy::Portfolio] {
            for only in [false, true] {
                let runs = Box::leak(Box::new(std::sync::atomic::AtomicUsize::new(0)));
                let report = Builder::new().strategy(strategy).explore(leftover(runs, only)).unwrap();
                let Outcome::Nondeterminism { step, detail } = &report.outcome else {
                    panic!("{strategy:?}, only {only}: {report}")
                };
                // The third execution (run 2) fails, and no token is given.
                assert_eq!(report.executions, 3, "{report}");
                assert!(report.is_misuse() && report.token().is_none(), "{report}");
                let (start, end) = if only {
                    // The failing schedule, replayed, passes.
                    (
                        "the failing schedule ended with \"panic in thread 'main' at ",
                        ": leftover state: run 2\" when searched but with \"pass\" when replayed",
                    )
                } else {
                    // The first execution's schedule, replayed (run 3), fails.
                    assert_eq!(*step, 4, "{report}");
                    (
                        "execution 1 passed when searched, but its schedule ended with \"panic in thread 'main' at ",
                        ": leftover state: run 3\" when replayed after execution 3 failed",
                    )
                };
                assert!(detail.starts_with(start) && detail.ends_with(end), "{strategy:?}, only {only}: {detail}");
            }
        }
    }
}
