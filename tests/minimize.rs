//! Failure minimization: a failing schedule is shrunk (fewer preemptions,
//! threads and steps) before it is reported, and the shrunk schedule's
//! token replays to the same verdict.
//!
//! Without `sim` the models run once under the OS scheduler, where the
//! lost update is not provoked.

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::thread;

/// A lost update between `t3` and `t4`, with two workers `t1` and `t2`
/// (spawned first, joined last) that count on their own counter and have
/// nothing to do with it. `check` sees the count once both increments are
/// in, before the workers are joined.
fn busy_lost_update(check: fn(usize)) {
    let counter = Arc::new(AtomicUsize::new(0));
    let other = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let other = other.clone();
            thread::spawn(move || {
                for _ in 0..3 {
                    other.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    let incrementers: Vec<_> = (0..2)
        .map(|_| {
            let counter = counter.clone();
            thread::spawn(move || {
                let seen = counter.load(Ordering::SeqCst);
                counter.store(seen + 1, Ordering::SeqCst);
            })
        })
        .collect();
    for handle in incrementers {
        handle.join().unwrap();
    }
    check(counter.load(Ordering::SeqCst));
    for worker in workers {
        worker.join().unwrap();
    }
}

#[test]
fn the_model_counts_both_increments_when_run_once() {
    // Under the OS scheduler (and a sim build outside an exploration) the
    // two increments are far apart: none is lost in practice, and the
    // count is 1 or 2 either way.
    busy_lost_update(|seen| assert!(seen == 1 || seen == 2, "{seen}"));
}

#[cfg(feature = "sim")]
mod sim {
    use super::*;
    use samaritan::sync::Mutex;
    use samaritan::{Builder, Outcome, Report, SearchStrategy, Size};

    fn lost_update() {
        busy_lost_update(|seen| assert_eq!(seen, 2, "an increment was lost"));
    }

    fn size(steps: usize, preemptions: usize, actors: usize) -> (usize, usize, usize) {
        (steps, preemptions, actors)
    }

    fn parts(size: Size) -> (usize, usize, usize) {
        (size.steps, size.preemptions, size.actors)
    }

    /// Explores `f` with `builder`, checks that the report's trace has the
    /// minimized size (when minimized) and that its token replays to the
    /// same verdict, and returns the report.
    #[track_caller]
    fn check_found<F: Fn() + Send + Sync + Copy + 'static>(builder: Builder, f: F) -> Report {
        let report = builder.explore(f).unwrap();
        let failure = report.failure.as_ref().unwrap_or_else(|| panic!("no failure: {report}"));
        let shown = size(failure.trace.lines.len(), failure.trace.preemptions(), {
            let mut actors: Vec<&str> = failure.trace.lines.iter().map(|l| l.actor.as_str()).collect();
            actors.sort_unstable();
            actors.dedup();
            actors.len()
        });
        if let Some(shrink) = report.shrink {
            assert_eq!(parts(shrink.after), shown, "{report}");
        }
        let again = Builder::new().replay(&failure.token, f).unwrap();
        assert!(again.outcome.same_verdict(&report.outcome), "{again}\n\nwas\n\n{report}");
        report
    }

    #[test]
    fn a_random_lost_update_shrinks_to_one_preemption_and_the_two_racing_threads() {
        let builder = Builder::new().strategy(SearchStrategy::Random).seed(7);
        let report = check_found(builder.clone(), lost_update);
        let Outcome::Panic { actor, .. } = &report.outcome else { panic!("{report}") };
        assert_eq!(actor, "main");
        let shrink = report.shrink.unwrap();
        // Found: the random schedule (seed 7) runs the workers too, with
        // preemptions that have nothing to do with the bug.
        assert_eq!(parts(shrink.before), size(17, 4, 5), "{report}");
        // The smallest: 4 spawns, t3's load, t4's load (the one
        // preemption), the two stores, 2 joins and main's load: 11 steps by
        // main, t3 and t4; a lost update needs one preemption.
        assert_eq!(parts(shrink.after), size(11, 1, 3), "{report}");
        assert!(shrink.runs > 1 && shrink.runs <= 300, "{report}");
        let text = report.to_string();
        assert!(
            text.contains("minimized from 17 steps, 4 preemptions, 5 threads to 11 steps, 1 preemption, 3 threads"),
            "{text}"
        );
        // The token still names the search that found the bug.
        let schedule = samaritan::Schedule::from_token(report.token().unwrap()).unwrap();
        assert_eq!((schedule.strategy.as_str(), schedule.seed), ("random", Some(7)));
    }

    #[test]
    fn minimization_off_leaves_the_found_trace_alone() {
        let on = Builder::new().strategy(SearchStrategy::Random).seed(7);
        let off = check_found(on.clone().minimize(false), lost_update);
        assert_eq!(off.shrink, None);
        let failure = off.failure.as_ref().unwrap();
        // The trace as found: the `before` of the minimized run.
        let before = on.explore(lost_update).unwrap().shrink.unwrap().before;
        assert_eq!((failure.trace.lines.len(), failure.trace.preemptions()), (before.steps, before.preemptions));
        assert!(!off.to_string().contains("minimized"), "{off}");
    }

    #[test]
    fn an_icb_failure_keeps_its_preemption_count_and_loses_the_bystanders() {
        let report = check_found(Builder::new().strategy(SearchStrategy::Icb), lost_update);
        let shrink = report.shrink.unwrap();
        // ICB finds the bug at 1 preemption, which minimization never
        // raises nor, here, can lower; it drops what else ran.
        assert_eq!(report.completed_bound, Some(0));
        assert_eq!(shrink.after.preemptions, 1);
        assert_eq!(parts(shrink.after), size(11, 1, 3), "{report}");
        assert!(report.to_string().contains("it takes 1 preemption: every execution with <= 0 preemptions passed"));
    }

    /// Lock-order inversion between `t1` and `t2`, with an unrelated
    /// worker `t3`.
    fn busy_lock_order() {
        let locks = Arc::new((Mutex::new(0), Mutex::new(0)));
        let other = Arc::new(AtomicUsize::new(0));
        let worker = {
            let other = other.clone();
            thread::spawn(move || {
                for _ in 0..3 {
                    other.fetch_add(1, Ordering::SeqCst);
                }
            })
        };
        let a = {
            let locks = locks.clone();
            thread::spawn(move || {
                let _x = locks.0.lock().unwrap();
                let _y = locks.1.lock().unwrap();
            })
        };
        let b = {
            let locks = locks.clone();
            thread::spawn(move || {
                let _y = locks.1.lock().unwrap();
                let _x = locks.0.lock().unwrap();
            })
        };
        a.join().unwrap();
        b.join().unwrap();
        worker.join().unwrap();
    }

    #[test]
    fn a_deadlock_shrinks_and_keeps_its_verdict() {
        let report = check_found(Builder::new().strategy(SearchStrategy::Random).seed(3), busy_lock_order);
        assert!(matches!(report.outcome, Outcome::Deadlock(_)), "{report}");
        let shrink = report.shrink.unwrap();
        assert_eq!(parts(shrink.before), size(8, 3, 4), "{report}");
        // The worker must finish (an enabled thread is no deadlock), so all
        // four threads stay: 3 spawns, its 3 adds and one lock each by t2
        // and t3, one of which preempts the other between its two locks.
        assert_eq!(parts(shrink.after), size(8, 1, 4), "{report}");
    }

    /// Two threads each wait, yielding, for the other to give way first.
    fn polite_livelock() {
        let turn = Arc::new(AtomicUsize::new(0));
        let spawn = |me: usize| {
            let turn = turn.clone();
            thread::spawn(move || loop {
                turn.store(me, Ordering::SeqCst);
                thread::yield_now();
                if turn.load(Ordering::SeqCst) == me {
                    // The other thread has not moved: let it go first.
                    continue;
                }
            })
        };
        let (a, b) = (spawn(1), spawn(2));
        a.join().unwrap();
        b.join().unwrap();
    }

    #[test]
    fn a_livelock_is_not_minimized() {
        let report = Builder::new().strategy(SearchStrategy::Dfs).max_steps(2000).explore(polite_livelock).unwrap();
        assert!(report.outcome.diverged(), "{report}");
        assert_eq!(report.shrink, None);
    }
}
