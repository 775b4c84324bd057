//! Snapshot texts of explorations, for insta (or any snapshot tool): a
//! failing schedule's trace ([`trace`]) and an exploration summary
//! ([`summary`]). With the `insta` feature, [`assert_trace_snapshot!`] and
//! [`assert_summary_snapshot!`](crate::assert_summary_snapshot) assert them
//! directly.
//!
//! Invariant: both texts depend only on the schedule explored, never on
//! timing, addresses or the machine, so a changed snapshot means changed
//! concurrent behaviour (or a changed program). They are line-based so that
//! a review shows which step moved.
//!
//! ```
//! # #[cfg(feature = "sim")] {
//! use samaritan::sync::atomic::{AtomicUsize, Ordering};
//! use samaritan::sync::Arc;
//!
//! let report = samaritan::Builder::new()
//!     .explore(|| {
//!         let n = Arc::new(AtomicUsize::new(0));
//!         let m = n.clone();
//!         let t = samaritan::thread::spawn(move || m.fetch_add(1, Ordering::SeqCst));
//!         n.fetch_add(1, Ordering::SeqCst);
//!         t.join().unwrap();
//!     })
//!     .unwrap();
//! assert!(samaritan::snapshot::summary(&report).starts_with("strategy: portfolio\n"));
//! # }
//! ```
//!
//! [`assert_trace_snapshot!`]: crate::assert_trace_snapshot

use std::fmt::Write;

use samaritan_sim::Report;

/// The summary of an exploration: strategy, preemption bound, executions
/// (and of them the portfolio's randomized ones), the budget that stopped
/// the search, whether the space was exhausted, the verdict, and the
/// distinct states the test named, one `key: value` per line.
pub fn summary(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "strategy: {}", report.strategy);
    if let Some(bound) = report.completed_bound {
        let beyond = if report.bounded { "; executions with more exist" } else { "" };
        let _ = writeln!(out, "bound: every execution with <= {bound} preemptions explored{beyond}");
    }
    let _ = writeln!(out, "executions: {}", report.executions);
    if report.pruned > 0 {
        let _ = writeln!(out, "cut short as redundant: {}", report.pruned);
    }
    if report.randomized > 0 {
        let _ = writeln!(out, "randomized (of the executions): {}", report.randomized);
    }
    if let Some(budget) = report.stopped {
        let _ = writeln!(out, "stopped by: {budget}");
    }
    let _ = writeln!(out, "exhausted: {}", report.exhausted);
    let _ = writeln!(out, "verdict: {}", report.outcome.kind());
    if let Some(states) = report.states {
        let _ = writeln!(out, "distinct states: {states}");
    }
    if let Some(pairs) = report.hapset_pairs {
        let _ = writeln!(out, "hapset pairs covered: {pairs}");
    }
    out
}

/// The record of a failing schedule: the summary, the whole verdict, the
/// preemption count, the replay token and the whole trace (in the trace
/// file format, version line included). For a pass, the summary alone.
pub fn trace(report: &Report) -> String {
    let mut out = summary(report);
    let Some(failure) = &report.failure else { return out };
    let _ = writeln!(out, "\n{}\n", report.outcome);
    let _ = writeln!(out, "preemptions: {}", failure.trace.preemptions());
    let _ = writeln!(out, "token: {}\n", failure.token);
    out.push_str(&failure.trace.to_file());
    out
}

/// Asserts an insta snapshot of a report's failing schedule
/// ([`snapshot::trace`](crate::snapshot::trace)): `assert_trace_snapshot!(report)`
/// or `assert_trace_snapshot!("name", report)`.
#[cfg(feature = "insta")]
#[cfg_attr(docsrs, doc(cfg(all(feature = "sim", feature = "insta"))))]
#[macro_export]
macro_rules! assert_trace_snapshot {
    ($report:expr) => {
        $crate::__insta::assert_snapshot!($crate::snapshot::trace(&$report))
    };
    ($name:expr, $report:expr) => {
        $crate::__insta::assert_snapshot!($name, $crate::snapshot::trace(&$report))
    };
}

/// Asserts an insta snapshot of an exploration summary
/// ([`snapshot::summary`](crate::snapshot::summary)):
/// `assert_summary_snapshot!(report)` or
/// `assert_summary_snapshot!("name", report)`.
#[cfg(feature = "insta")]
#[cfg_attr(docsrs, doc(cfg(all(feature = "sim", feature = "insta"))))]
#[macro_export]
macro_rules! assert_summary_snapshot {
    ($report:expr) => {
        $crate::__insta::assert_snapshot!($crate::snapshot::summary(&$report))
    };
    ($name:expr, $report:expr) => {
        $crate::__insta::assert_snapshot!($name, $crate::snapshot::summary(&$report))
    };
}
