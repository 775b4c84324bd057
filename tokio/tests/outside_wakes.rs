//! A task woken by a thread outside the model (a `std::thread`) is waited
//! for, up to a quarter of the watchdog, instead of being called a
//! deadlock at once; a wake that never comes is a deadlock that says so.

use std::time::Duration;

use samaritan::{Builder, Outcome, SearchStrategy};

use crate::programs;

/// Explores the reply program with a 400 ms watchdog (waits of 100 ms).
fn explore_reply(after: Duration, send: bool) -> samaritan::Report {
    Builder::new()
        .strategy(SearchStrategy::Dfs)
        .persist(false)
        .progress(false)
        .watchdog(Duration::from_millis(400))
        .explore(move || samaritan::executor::block_on(programs::reply_from_a_std_thread(after, send)))
        .expect("valid settings")
}

#[test]
fn a_wake_from_a_std_thread_is_waited_for() {
    let report = explore_reply(Duration::from_millis(20), true);
    assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, 1, true), "{report}");
}

#[test]
fn a_wake_that_never_comes_from_outside_is_a_deadlock_that_says_so() {
    let report = explore_reply(Duration::from_millis(300), false);
    let Outcome::Deadlock(deadlock) = &report.outcome else { panic!("expected a deadlock, got:\n{report}") };
    let blocked: Vec<_> = deadlock.blocked.iter().map(|b| (b.actor.as_str(), b.op.as_str())).collect();
    assert_eq!(blocked, [("main", "poll")], "{report}");
    assert_eq!(deadlock.outside_wait_ms, Some(100), "{report}");
    let text = report.to_string();
    assert!(text.contains("it waited 100 ms") && text.contains("waits on something outside the model"), "{text}");
}
