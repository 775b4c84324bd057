//! What the models' tests share.

use samaritan::{Outcome, Report};

/// Explores `f` as `loom::model` does with no `LOOM_*` variable set
/// (every schedule up to the order of independent steps, no budget).
#[track_caller]
pub(crate) fn check(f: impl Fn() + Send + Sync + 'static) -> Report {
    check_with(|_| {}, f)
}

/// [`check`] with the builder's settings changed by `configure` first.
pub(crate) fn check_with(
    configure: impl FnOnce(&mut loom::model::Builder),
    f: impl Fn() + Send + Sync + 'static,
) -> Report {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = None;
    builder.max_permutations = None;
    builder.max_duration = None;
    builder.max_branches = 1_000;
    configure(&mut builder);
    builder.to_samaritan().persist(false).progress(false).explore(f).expect("valid settings")
}

/// Asserts that `report` passed after exhausting `executions` executions.
#[track_caller]
pub(crate) fn assert_pass(report: &Report, executions: u64) {
    assert_eq!(report.outcome, Outcome::Pass, "{report}");
    assert!(report.exhausted, "{report}");
    assert_eq!(report.executions, executions, "{report}");
}

/// Asserts that `report` is a panic whose message contains `message`.
#[track_caller]
pub(crate) fn assert_panic(report: &Report, message: &str) {
    match &report.outcome {
        Outcome::Panic { message: m, .. } if m.contains(message) => {}
        _ => panic!("expected a panic with {message:?}, got:\n{report}"),
    }
}

/// Asserts that `report` is a data race on an `UnsafeCell`.
#[track_caller]
pub(crate) fn assert_race(report: &Report) {
    assert!(matches!(report.outcome, Outcome::DataRace { .. }), "expected a data race, got:\n{report}");
}
