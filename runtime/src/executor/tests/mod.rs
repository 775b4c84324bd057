//! Model tests of the executor's own concurrent core (issue #4): the worker
//! park/unpark protocol, the run queues, the task state machine and the
//! timer driver, explored under samaritan and under loom.
//!
//! The models (`models.rs`, and the timer's in `time/driver.rs`) are small
//! programs on the production code, written once against
//! `crate::concurrency`, which builds the core on samaritan-sync's
//! simulated primitives in this crate's unit tests with the `sim` feature,
//! and on loom's under `--cfg loom`:
//!
//! ```text
//! cargo test -p samaritan-runtime --features sim --lib
//! RUSTFLAGS="--cfg samaritan_loom" cargo test -p samaritan-runtime --lib --release loom_
//! ```
//!
//! Both searches bound preemptions at [`PREEMPTIONS`], as tokio's loom CI
//! does, so that each model takes a few seconds at most on two cores; the
//! samaritan search of the three-thread model takes one (see
//! `samaritan.rs`).

mod models;

#[cfg(samaritan_loom)]
mod loom;
#[cfg(not(samaritan_loom))]
mod samaritan;

pub(crate) use super::park::block_on;

/// The preemption bound of both searches.
pub(crate) const PREEMPTIONS: u32 = 2;

/// Explores `model` with iterative context bounding up to [`PREEMPTIONS`]
/// (the search `samaritan::Builder` runs by default, with the engine's
/// default settings, so no `SAMARITAN_*` variable changes the counts) and
/// checks that every execution passed, and that there were `executions`.
#[cfg(not(samaritan_loom))]
#[track_caller]
pub(crate) fn check(executions: u64, model: fn()) {
    check_bounded(PREEMPTIONS, executions, model);
}

/// [`check`] with at most `preemptions` preemptions.
#[cfg(not(samaritan_loom))]
#[track_caller]
pub(crate) fn check_bounded(preemptions: u32, executions: u64, model: fn()) {
    assert_passed(&explore(preemptions, model), preemptions, executions);
}

/// Checks that every execution of a search up to `preemptions` passed, and
/// that there were `executions`.
#[cfg(not(samaritan_loom))]
#[track_caller]
pub(crate) fn assert_passed(report: &samaritan_sim::Report, preemptions: u32, executions: u64) {
    assert_eq!(report.outcome, samaritan_sim::Outcome::Pass, "{report}");
    assert_eq!(report.completed_bound, Some(preemptions), "{report}");
    assert_eq!(report.executions, executions, "{report}");
}

/// Explores `model` with at most `preemptions` preemptions and returns the
/// report.
#[cfg(not(samaritan_loom))]
pub(crate) fn explore(preemptions: u32, model: fn()) -> samaritan_sim::Report {
    let mut config = samaritan_sim::Config::default();
    config.test_name = std::thread::current().name().map(str::to_string);
    let strategy = Box::new(samaritan_strategies::Icb::new(preemptions));
    samaritan_sim::explore(config, strategy, std::sync::Arc::new(model))
}

/// Runs `model` under every interleaving loom explores with at most
/// `preemptions` preemptions; loom panics on a failure or a deadlock.
#[cfg(samaritan_loom)]
pub(crate) fn model(preemptions: u32, model: fn()) {
    let mut builder = ::loom::model::Builder::new();
    builder.preemption_bound = Some(preemptions as usize);
    builder.check(model);
}
