//! Helpers shared by the integration tests that run under `sim`.
#![allow(dead_code)] // Each test binary uses its own subset.

use samaritan::{Builder, Outcome, Report, SearchStrategy};

pub(crate) mod finish_programs;
pub(crate) mod litmus;
pub(crate) mod models;
pub(crate) mod programs;
pub(crate) mod ref_programs;

/// Explores `f` with DFS and the default settings, to the end or the first
/// failure.
pub(crate) fn dfs<F: Fn() + Send + Sync + 'static>(f: F) -> Report {
    Builder::new().strategy(SearchStrategy::Dfs).explore(f).expect("valid settings")
}

/// Asserts that DFS passes `f` after exactly `executions` executions and
/// exhausts the space.
#[track_caller]
pub(crate) fn check_exhausts<F: Fn() + Send + Sync + 'static>(f: F, executions: u64) {
    let report = dfs(f);
    assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, executions, true), "{report}");
}
