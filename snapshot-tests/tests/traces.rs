//! Snapshots of failing schedules and exploration summaries.
#![cfg(feature = "sim")]

use samaritan::sync::{Arc, Mutex};
use samaritan::{thread, Builder, SearchStrategy};

/// Explores `f` with `strategy` and snapshots the record under `name`.
#[track_caller]
fn check<F: Fn() + Send + Sync + 'static>(name: &str, strategy: SearchStrategy, seed: u64, f: F) {
    let report = Builder::new().strategy(strategy).seed(seed).max_executions(10_000).explore(f).unwrap();
    insta::with_settings!({
        snapshot_suffix => format!("{strategy:?}").to_lowercase(),
        description => format!("strategy {strategy:?}, seed {seed}, max 10000 executions"),
        omit_expression => true,
    }, {
        samaritan::assert_trace_snapshot!(name, report);
    });
}

/// The examples themselves, so that their snapshots follow the programs
/// users run.
#[path = "../../examples/lost_update.rs"]
#[allow(dead_code)]
mod lost_update_example;

#[path = "../../examples/lock_order_deadlock.rs"]
#[allow(dead_code)]
mod lock_order_example;

#[path = "../../examples/data_race.rs"]
#[allow(dead_code)]
mod data_race_example;

use data_race_example::producer_and_consumer as ring_buffer_race;
use lock_order_example::transfer_and_audit as lock_order_inversion;
use lost_update_example::two_increments as lost_update;

fn locked_counter() {
    let n = Arc::new(Mutex::new(0));
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let n = n.clone();
            thread::spawn(move || *n.lock().unwrap() += 1)
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(*n.lock().unwrap(), 3);
}

#[test]
fn lost_update_dfs() {
    check("lost_update", SearchStrategy::Dfs, 0, lost_update);
}

#[test]
fn lost_update_icb() {
    check("lost_update", SearchStrategy::Icb, 0, lost_update);
}

#[test]
fn lost_update_pct() {
    check("lost_update", SearchStrategy::Pct, 3, lost_update);
}

#[test]
fn lock_order_deadlock_icb() {
    check("lock_order_deadlock", SearchStrategy::Icb, 0, lock_order_inversion);
}

#[test]
fn lost_update_random() {
    check("lost_update", SearchStrategy::Random, 1, lost_update);
}

#[test]
fn lock_order_deadlock_dfs() {
    check("lock_order_deadlock", SearchStrategy::Dfs, 0, lock_order_inversion);
}

#[test]
fn locked_counter_summary_icb() {
    check("locked_counter", SearchStrategy::Icb, 0, locked_counter);
}

#[test]
fn locked_counter_summary_dfs() {
    check("locked_counter", SearchStrategy::Dfs, 0, locked_counter);
}

#[test]
fn data_race_icb() {
    check("data_race", SearchStrategy::Icb, 0, ring_buffer_race);
}

#[test]
fn data_race_dfs() {
    check("data_race", SearchStrategy::Dfs, 0, ring_buffer_race);
}

// The reductions: how many executions each needs for the same programs is
// part of the reviewed behaviour.

#[test]
fn locked_counter_summary_dpor() {
    check("locked_counter", SearchStrategy::Dpor, 0, locked_counter);
}

#[test]
fn locked_counter_summary_cb_por() {
    check("locked_counter", SearchStrategy::CbPor, 0, locked_counter);
}

#[test]
fn locked_counter_summary_hapset() {
    check("locked_counter", SearchStrategy::HapSet, 0, locked_counter);
}

#[test]
fn lost_update_dpor() {
    check("lost_update", SearchStrategy::Dpor, 0, lost_update);
}

#[test]
fn lock_order_deadlock_dpor() {
    check("lock_order_deadlock", SearchStrategy::Dpor, 0, lock_order_inversion);
}

#[test]
fn data_race_dpor() {
    check("data_race", SearchStrategy::Dpor, 0, ring_buffer_race);
}
