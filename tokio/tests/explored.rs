//! Programs explored through `samaritan::Builder`, with exact verdicts.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use samaritan::{Outcome, SearchStrategy};

use crate::programs;
use crate::support::explore;

#[test]
fn a_check_then_act_race_across_await_is_found() {
    let report = explore(|| programs::two_withdrawals(true));
    match &report.outcome {
        Outcome::Panic { message, .. } => assert_eq!(message, "overdrawn: -60", "{report}"),
        _ => panic!("expected a panic, got:\n{report}"),
    }
    let text = report.to_string();
    assert!(text.starts_with("samaritan found a bug"), "{text}");
    assert!(text.contains("AsyncMutex"), "{text}");
}

#[test]
fn withdrawals_under_one_lock_hold_pass() {
    let report = explore(|| programs::two_withdrawals(false));
    assert_eq!(report.outcome, Outcome::Pass, "{report}");
    assert!(report.exhausted, "{report}");
    assert_eq!(report.executions, 136, "{report}");
}

/// The outcomes of `select_one(biased)` over every execution.
fn select_outcomes(biased: bool) -> (BTreeSet<&'static str>, u64) {
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let record = seen.clone();
    let report = explore(move || {
        let record = record.clone();
        async move {
            let v = programs::select_one(biased).await;
            record.lock().unwrap().insert(v);
        }
    });
    assert_eq!(report.outcome, Outcome::Pass, "{report}");
    assert!(report.exhausted, "{report}");
    let outcomes = seen.lock().unwrap().clone();
    (outcomes, report.executions)
}

#[test]
fn select_branch_order_is_an_explored_choice() {
    assert_eq!(select_outcomes(false), (BTreeSet::from(["a", "b"]), 2));
}

#[test]
fn a_biased_select_polls_its_branches_in_order() {
    assert_eq!(select_outcomes(true), (BTreeSet::from(["a"]), 1));
}

#[test]
fn a_lost_notify_waiters_wakeup_is_a_deadlock() {
    let report = explore(|| programs::flag_then_notify_waiters(true));
    let Outcome::Deadlock(deadlock) = &report.outcome else {
        panic!("expected a deadlock, got:\n{report}");
    };
    assert_eq!(deadlock.blocked.len(), 1, "{report}");
    let blocked = &deadlock.blocked[0];
    assert_eq!(blocked.actor, "main", "{report}");
    assert_eq!(blocked.awaiting.as_deref(), Some("Notify#2"), "{report}");
    assert_eq!(report.executions, 4, "{report}");
}

#[test]
fn a_notified_future_made_before_the_check_passes() {
    let report = explore(|| programs::flag_then_notify_waiters(false));
    assert_eq!(report.outcome, Outcome::Pass, "{report}");
    assert!(report.exhausted, "{report}");
    assert_eq!(report.executions, 5, "{report}");
}

#[test]
fn a_broadcast_subscription_after_the_send_is_found() {
    let report = explore(|| programs::listener(true));
    match &report.outcome {
        Outcome::Panic { message, .. } => {
            assert_eq!(message, "the listener subscribed too late: Err(Closed)", "{report}")
        }
        _ => panic!("expected a panic, got:\n{report}"),
    }
    assert!(report.to_string().contains("Broadcast#"), "{report}");
}

#[test]
fn a_broadcast_subscription_before_the_spawn_passes() {
    let report = explore(|| programs::listener(false));
    assert_eq!(report.outcome, Outcome::Pass, "{report}");
    assert!(report.exhausted, "{report}");
    assert_eq!(report.executions, 16, "{report}");
}

#[test]
fn reserved_sends_all_arrive_and_a_dropped_permit_is_found() {
    // One worker (a current-thread runtime): every order of the polls;
    // every task an actor, under DPOR (DFS: 102,757).
    let report = crate::support::explore_on(Some(1), SearchStrategy::Dfs, || programs::reserved_sends(false));
    assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, 4, true), "{report}");
    let report = crate::support::explore_on(None, SearchStrategy::Dpor, || programs::reserved_sends(false));
    assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, 2511, true), "{report}");
    let report = explore(|| programs::reserved_sends(true));
    match &report.outcome {
        Outcome::Panic { message, .. } => assert_eq!(message, "a reserved message was never sent", "{report}"),
        _ => panic!("expected a panic, got:\n{report}"),
    }
    assert!(report.to_string().contains("gave a reserved slot back unused"), "{report}");
}

/// The attribute's own exploration finds the race: the test fails with
/// samaritan's report, whose verdict carries the program's message. On
/// two workers, where the race is real: on a current-thread runtime the
/// uncontended locks never give up the thread, and each withdrawal runs
/// in one poll.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[should_panic(expected = "overdrawn: -60")]
async fn tokio_test_explores_its_body_and_fails_on_the_race() {
    programs::two_withdrawals(true).await;
}
