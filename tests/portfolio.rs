//! The default search, a portfolio of cb-por at rising bounds with PCT and
//! random search: what it finds, what a pass and a budget say, that its
//! tokens name the part that found a bug and replay, that the fair
//! scheduler works under every part, and that a long execution costs no
//! more than it should.
#![cfg(feature = "sim")]

use samaritan::sync::atomic::{AtomicBool, Ordering};
use samaritan::sync::Arc;
use samaritan::{thread, Budget, Builder, Outcome, Report, Schedule, SearchStrategy};

mod common;

/// SCTBench's shapes, as the search bench runs them.
#[allow(dead_code)] // Each test uses some.
mod shapes {
    use samaritan::{sync, thread};
    include!("../bench/benches/search/models.rs");
}

fn default() -> Builder {
    Builder::new().persist(false).progress(false)
}

#[test]
fn a_bug_of_many_threads_is_found_by_a_hunter_and_replays() {
    // 20 threads, one taking the wrong lock: ICB would first run every
    // order of the 19 others without a preemption.
    let report = default().explore(|| shapes::wronglock(20)).unwrap();
    let Outcome::Panic { message, .. } = &report.outcome else { panic!("{report}") };
    assert!(message.contains("wronglock: an increment was lost"), "{report}");
    assert_eq!((report.executions, report.strategy.as_str()), (6, "portfolio/random"), "{report}");
    let token = report.token().unwrap();
    let schedule = Schedule::from_token(token).unwrap();
    assert_eq!((schedule.strategy.as_str(), schedule.seed), ("portfolio/random", Some(2)));
    assert!(report.to_string().contains("samaritan found a bug in execution 6 (strategy portfolio/random, seed 2)"));
    // The token replays the same failure, trace and all.
    let replayed = default().replay(token, || shapes::wronglock(20)).unwrap();
    assert!(replayed.outcome.same_verdict(&report.outcome), "{replayed}");
    assert_eq!(replayed.failure.unwrap().trace, report.failure.unwrap().trace);
}

#[test]
fn a_pass_says_what_the_systematic_part_covered_and_how_many_randomized_ran() {
    let report = default().explore(common::models::mutex_counter).unwrap();
    assert_eq!(
        (&report.outcome, report.exhausted, report.completed_bound, report.bounded),
        (&Outcome::Pass, true, Some(2), true)
    );
    // The systematic part: cb-por at bounds 0, 1 and 2, 6 + 24 + 60
    // executions (the lock orders each bound reaches, `tests/cb_por.rs`),
    // and a hunter's execution after each but the last.
    assert_eq!((report.executions, report.randomized, report.pruned), (179, 89, 0));
    assert_eq!(
        report.to_string(),
        "pass: every execution with <= 2 preemptions explored: 90 executions, plus 89 randomized, no bug (strategy portfolio)"
    );
    // cb-por alone at bound 2 covers the same in its 60.
    let alone = default().strategy(SearchStrategy::CbPor).explore(common::models::mutex_counter).unwrap();
    assert_eq!((alone.executions, alone.randomized), (60, 0));
}

#[test]
fn a_budget_that_stops_the_default_search_says_so_and_what_was_covered() {
    let report = default().max_executions(500).explore(|| shapes::lock_once(8)).unwrap();
    assert_eq!(
        (&report.outcome, report.exhausted, report.stopped),
        (&Outcome::Pass, false, Some(Budget::Executions(500)))
    );
    assert_eq!(report.completed_bound, None);
    assert_eq!(
        report.to_string(),
        format!(
            "pass: the budget of 500 executions stopped the search before the space was exhausted: {} executions, plus {} randomized, no bug (strategy portfolio)",
            500 - report.randomized,
            report.randomized
        )
    );
    assert_eq!(report.randomized, 250);
}

/// The fair paper's spin loop (Fig. 3): a thread spins, yielding, until
/// another sets a flag. The fair scheduler ends every spin, whichever part
/// of the portfolio schedules it.
#[test]
fn the_fair_scheduler_ends_every_spin_under_every_part() {
    let report = default()
        .explore(|| {
            let flag = Arc::new(AtomicBool::new(false));
            let setter = {
                let flag = flag.clone();
                thread::spawn(move || flag.store(true, Ordering::SeqCst))
            };
            while !flag.load(Ordering::SeqCst) {
                thread::yield_now();
            }
            setter.join().unwrap();
        })
        .unwrap();
    assert_eq!((&report.outcome, report.exhausted), (&Outcome::Pass, true), "{report}");
    assert!(report.randomized > 0, "{report}");
}

/// The good-samaritan run: a thread spins without yielding for
/// the whole default step bound (100,000 steps) while another waits. The
/// default reports it (ICB used to copy its path at every step).
#[path = "../examples/good_samaritan.rs"]
#[allow(dead_code)] // Its `main`.
mod good_samaritan;

#[test]
fn a_good_samaritan_violation_at_the_default_step_bound_is_reported() {
    let report: Report = default().explore(good_samaritan::worker_shutdown).unwrap();
    let Outcome::GoodSamaritanViolation { actor, steps, .. } = &report.outcome else { panic!("{report}") };
    assert_eq!(actor, "t1");
    assert!(*steps > 90_000, "{report}");
    assert_eq!(report.failure.as_ref().unwrap().trace.lines.len(), 100_000);
}
