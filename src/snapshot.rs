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

/// [`trace`] with every source position reduced to its file
/// (`tests/queue.rs:41:9` becomes `tests/queue.rs`), in the trace and in
/// the verdict: a snapshot of it changes when the schedule does, not when
/// code only moves (a line added above the test). The token stays in it:
/// tokens do not depend on positions either.
///
/// ```
/// # #[cfg(feature = "sim")] {
/// use samaritan::sync::atomic::{AtomicUsize, Ordering};
/// use samaritan::sync::Arc;
///
/// let report = samaritan::Builder::new()
///     .explore(|| {
///         let n = Arc::new(AtomicUsize::new(0));
///         let m = n.clone();
///         let t = samaritan::thread::spawn(move || {
///             let v = m.load(Ordering::SeqCst);
///             m.store(v + 1, Ordering::SeqCst);
///         });
///         let v = n.load(Ordering::SeqCst);
///         n.store(v + 1, Ordering::SeqCst);
///         t.join().unwrap();
///         assert_eq!(n.load(Ordering::SeqCst), 2, "lost update");
///     })
///     .unwrap();
/// let text = samaritan::snapshot::trace_redacted(&report);
/// assert!(text.contains("lost update"));
/// let positions = text.split(".rs:").skip(1).filter(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
/// assert_eq!(positions.count(), 0, "no line or column is left");
/// # }
/// ```
pub fn trace_redacted(report: &Report) -> String {
    redact_positions(&trace(report))
}

/// Cuts `:line:column` (and `:line`) after every `.rs` path in `text`.
fn redact_positions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(".rs:") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        // Up to two `:digits` groups.
        let mut cut = 0;
        for _ in 0..2 {
            let after = &tail[cut..];
            let digits = after.strip_prefix(':').map_or(0, |d| d.bytes().take_while(u8::is_ascii_digit).count());
            if digits == 0 {
                break;
            }
            cut += 1 + digits;
        }
        rest = &tail[cut..];
    }
    out.push_str(rest);
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

/// Asserts an insta snapshot of a report's failing schedule with source
/// positions reduced to files
/// ([`snapshot::trace_redacted`](crate::snapshot::trace_redacted)), so
/// that moving code is not a change: `assert_redacted_trace_snapshot!(report)`
/// or `assert_redacted_trace_snapshot!("name", report)`.
#[cfg(feature = "insta")]
#[macro_export]
macro_rules! assert_redacted_trace_snapshot {
    ($report:expr) => {
        $crate::__insta::assert_snapshot!($crate::snapshot::trace_redacted(&$report))
    };
    ($name:expr, $report:expr) => {
        $crate::__insta::assert_snapshot!($name, $crate::snapshot::trace_redacted(&$report))
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

#[cfg(test)]
mod tests {
    use super::redact_positions;

    #[test]
    fn positions_are_cut_back_to_their_file() {
        assert_eq!(redact_positions("at tests/a.rs:41:9: boom"), "at tests/a.rs: boom");
        assert_eq!(
            redact_positions("  3  t1  lock  Mutex#0  src/x.rs:7:13  <- preempt"),
            "  3  t1  lock  Mutex#0  src/x.rs  <- preempt"
        );
        assert_eq!(redact_positions("a.rs:12 b.rs:x c.rs"), "a.rs b.rs:x c.rs");
        assert_eq!(redact_positions("no paths"), "no paths");
    }
}
