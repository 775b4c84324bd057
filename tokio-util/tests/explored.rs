//! The programs explored through `samaritan::Builder`, with exact verdicts
//! and execution counts.

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::{Arc, Mutex};

use samaritan::{Builder, Outcome, Report, SearchStrategy};

use crate::programs;

/// Explores the async program `f` makes, as the main task of samaritan's
/// executor, with dynamic partial-order reduction (exhaustive).
fn explore<F, Fut>(f: F) -> Report
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()>,
{
    Builder::new()
        .strategy(SearchStrategy::Dpor)
        .persist(false)
        .progress(false)
        .explore(move || samaritan::executor::block_on(f()))
        .expect("valid settings")
}

/// Explores `program` to exhaustion and returns every value it returned,
/// with the number of executions.
fn outcomes<T, Fut>(program: fn() -> Fut) -> (BTreeSet<T>, u64)
where
    T: Ord + Send + 'static,
    Fut: Future<Output = T> + 'static,
{
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let record = seen.clone();
    let report = explore(move || {
        let record = record.clone();
        async move {
            let v = program().await;
            record.lock().unwrap().insert(v);
        }
    });
    assert_eq!(report.outcome, Outcome::Pass, "{report}");
    assert!(report.exhausted, "{report}");
    let values = std::mem::take(&mut *seen.lock().unwrap());
    (values, report.executions)
}

#[test]
fn a_sink_delivers_its_items_in_order_in_every_execution() {
    let (orders, executions) = outcomes(programs::sink_two_items);
    assert_eq!(orders, BTreeSet::from([vec![1, 2]]));
    assert_eq!(executions, 108);
}

#[test]
fn holding_a_slot_while_reserving_another_is_a_deadlock() {
    let report = explore(|| async {
        programs::reserve_two_slots(false).await;
    });
    let Outcome::Deadlock(deadlock) = &report.outcome else {
        panic!("expected a deadlock, got:\n{report}");
    };
    let blocked: Vec<_> = deadlock.blocked.iter().map(|b| (b.actor.as_str(), b.awaiting.as_deref())).collect();
    // The receiver waits for the slot main reserved; main waits for a
    // second slot, which only that receive would free.
    assert_eq!(blocked, [("main", Some("AsyncChannel#2")), ("task-1", Some("AsyncChannel#2"))], "{report}");
    assert_eq!(report.executions, 1, "{report}");
    assert!(report.token().is_some(), "{report}");
}

#[test]
fn sending_into_the_slot_before_reserving_the_next_passes() {
    let (got, executions) = outcomes(|| programs::reserve_two_slots(true));
    assert_eq!(got, BTreeSet::from([vec![1, 2]]));
    assert_eq!(executions, 270);
}

#[test]
fn one_permit_keeps_the_section_to_one_task() {
    let (most, executions) = outcomes(|| programs::guarded_section(1));
    assert_eq!(most, BTreeSet::from([1]));
    assert_eq!(executions, 12);
}

#[test]
fn two_permits_let_both_tasks_in_and_the_check_finds_it() {
    let report = explore(|| async {
        programs::guarded_section(2).await;
    });
    match &report.outcome {
        Outcome::Panic { message, .. } => assert_eq!(message, "2 tasks inside the section at once", "{report}"),
        _ => panic!("expected a panic, got:\n{report}"),
    }
    assert_eq!(report.executions, 12, "{report}");
    assert!(report.token().is_some(), "{report}");
}

#[test]
fn work_checked_under_the_cancelling_lock_is_never_done_after_the_cancel() {
    let (done, executions) = outcomes(|| programs::work_unless_cancelled(false));
    // Either order of the cancel and the check, and nothing else.
    assert_eq!(done, BTreeSet::from([0, 1]));
    assert_eq!(executions, 4);
}

#[test]
fn a_cancel_between_the_check_and_the_work_is_found() {
    let report = explore(|| async {
        programs::work_unless_cancelled(true).await;
    });
    match &report.outcome {
        Outcome::Panic { message, .. } => {
            assert!(message.starts_with("assertion `left == right` failed: work done after the cancel"), "{report}")
        }
        _ => panic!("expected a panic, got:\n{report}"),
    }
    assert_eq!(report.executions, 2, "{report}");
    assert!(report.token().is_some(), "{report}");
    // The trace shows the race on the child token's flag: the worker's
    // check reads `false`, then main's cancel writes it.
    let text = report.to_string();
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split_whitespace().collect()).collect();
    let check = lines.iter().position(|w| w.get(1) == Some(&"task-1") && w.get(2) == Some(&"load=false"));
    let cancel = lines.iter().rposition(|w| w.get(1) == Some(&"main") && w.get(2) == Some(&"store"));
    assert!(matches!((check, cancel), (Some(c), Some(s)) if c < s), "{report}");
}
