//! Snapshots of what samaritan reports on the papers' programs: the
//! verdict, the trace (elided in the middle when long), and the summary.
#![cfg(feature = "sim")]

use samaritan::{Builder, SearchStrategy};

#[path = "../../examples/dining_philosophers.rs"]
#[allow(dead_code)]
mod dining_philosophers;
#[path = "../../examples/good_samaritan.rs"]
#[allow(dead_code)]
mod good_samaritan;
#[path = "../../examples/spin_loop.rs"]
#[allow(dead_code)]
mod spin_loop;
#[path = "../../examples/spinlock.rs"]
#[allow(dead_code)]
mod spinlock;
#[path = "../../examples/stale_copy_livelock.rs"]
#[allow(dead_code)]
mod stale_copy_livelock;
#[path = "../../examples/work_stealing.rs"]
#[allow(dead_code)]
mod work_stealing;

/// Explores `f` with `strategy` (preemption bound `bound` for ICB, step
/// bound 1000 so that livelock traces stay short) and snapshots the report
/// as users see it.
#[track_caller]
fn check(name: &str, strategy: SearchStrategy, bound: u32, f: fn()) {
    let report =
        Builder::new().strategy(strategy).preemption_bound(bound).max_steps(1000).explore(f).expect("valid settings");
    insta::with_settings!({
        description => format!("strategy {strategy:?}, preemption bound {bound}, step bound 1000"),
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, report.to_string());
    });
}

#[test]
fn philosophers_livelock() {
    check("philosophers_livelock", SearchStrategy::Dfs, 0, dining_philosophers::livelock);
}

#[test]
fn philosophers_ordered() {
    check("philosophers_ordered", SearchStrategy::Icb, 2, dining_philosophers::ordered);
}

#[test]
fn spin_loop() {
    check("spin_loop", SearchStrategy::Dfs, 0, spin_loop::spin_loop);
}

#[test]
fn good_samaritan_violation() {
    check("good_samaritan_violation", SearchStrategy::Icb, 2, good_samaritan::worker_shutdown);
}

#[test]
fn stale_copy_livelock() {
    check("stale_copy_livelock", SearchStrategy::Icb, 2, stale_copy_livelock::stale_copy);
}

#[test]
fn work_stealing_bug_at_two_preemptions() {
    check("work_stealing_bug", SearchStrategy::Icb, 2, work_stealing::buggy);
}

#[test]
fn work_stealing_bug_absent_at_one_preemption() {
    check("work_stealing_bound_1", SearchStrategy::Icb, 1, work_stealing::buggy);
}

#[test]
fn spinlock_three_threads() {
    check("spinlock", SearchStrategy::Icb, 2, spinlock::three_threads);
}
