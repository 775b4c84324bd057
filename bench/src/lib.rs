//! Side-by-side speed of samaritan, shuttle 0.9 and loom 0.7 on the same
//! models.
//!
//! Run everything with one command from the workspace root:
//!
//! ```text
//! cargo bench -p samaritan-bench --features sim
//! ```
//!
//! The bench target (`benches/compare/main.rs`) needs this crate's `sim`
//! feature, which turns on `samaritan/sim`. It is off by default so that the
//! workspace's production-mode runs (`cargo test` without features) never
//! switch on the simulation backend through this crate. shuttle and loom are
//! dev-dependencies, so only the bench target sees them.
//!
//! What is measured (details and results in `BENCHMARKS.md`):
//! - ns per scheduling point without a switch: one thread doing `N` atomic
//!   loads in one execution;
//! - ns per scheduling point with a switch: two threads each doing `N`
//!   loads under a round-robin schedule;
//! - the fixed cost of one search (a model that does nothing);
//! - executions per second of each tool's exhaustive search (and how many
//!   executions it took) on three small models;
//! - the process's resident memory while samaritan runs many executions.
//!
//! `benches/table2.rs` (samaritan only) redoes the dining-philosophers rows
//! of the fair stateless model checking paper's Table 2: distinct states
//! reached with and without the fair scheduler.
//!
//! `examples/hot.rs` runs one of the samaritan measurements in a loop for a
//! profiler (`perf record`, `valgrind --tool=callgrind`).
//!
//! This library holds the harness: medians, the table, and the RSS probe.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// The tools compared, in column order.
pub const TOOLS: [&str; 3] = ["samaritan", "shuttle", "loom"];

/// Runs `f` once and returns how long it took, with its value.
pub fn time<R>(f: impl FnOnce() -> R) -> (Duration, R) {
    let start = Instant::now();
    let value = f();
    (start.elapsed(), value)
}

/// Returns the median of `samples` (the mean of the middle two for an even
/// count); `NaN` when there are none.
pub fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// Returns the process's resident set size in bytes, read from
/// `/proc/self/statm` (second field, in pages of 4 KiB), or `None` where
/// that file does not exist.
pub fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// What a measurement counts, which decides how it is printed and which
/// way is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Nanoseconds per scheduling point; lower is better.
    NsPerPoint,
    /// Executions per second; higher is better.
    ExecPerSec,
    /// A number of executions (to exhaustion); informative.
    Executions,
    /// Microseconds per search (set-up and tear-down); lower is better.
    UsPerSearch,
}

impl Unit {
    fn label(self) -> &'static str {
        match self {
            Unit::NsPerPoint => "ns/point",
            Unit::ExecPerSec => "exec/s",
            Unit::Executions => "executions",
            Unit::UsPerSearch => "us/search",
        }
    }

    fn format(self, value: f64) -> String {
        match self {
            Unit::NsPerPoint | Unit::UsPerSearch => format!("{value:.1}"),
            Unit::ExecPerSec | Unit::Executions => format!("{value:.0}"),
        }
    }
}

/// One tool's result for one model.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// A measured value.
    Value(f64),
    /// No number, with a short reason (`n/a`, `pending`).
    Text(String),
}

/// One line of the table.
#[derive(Clone, Debug)]
pub struct Row {
    /// The model and what was measured.
    pub model: String,
    /// The unit of the three cells.
    pub unit: Unit,
    /// One cell per tool, in [`TOOLS`] order.
    pub cells: [Cell; 3],
}

/// Renders rows as a Markdown table with the ratios to samaritan.
///
/// A ratio is `tool / samaritan` on the raw values: for ns/point and
/// us/search a ratio above 1 means samaritan is faster; for exec/s a ratio
/// below 1 does.
pub fn render(rows: &[Row]) -> String {
    let header = ["model", "unit", TOOLS[0], TOOLS[1], TOOLS[2], "shuttle/samaritan", "loom/samaritan"];
    let mut lines: Vec<[String; 7]> = Vec::new();
    for row in rows {
        let show = |c: &Cell| match c {
            Cell::Value(v) => row.unit.format(*v),
            Cell::Text(t) => t.clone(),
        };
        let ratio = |c: &Cell| match (c, &row.cells[0]) {
            (Cell::Value(v), Cell::Value(s)) if *s > 0.0 => format!("{:.2}", v / s),
            _ => "-".to_string(),
        };
        lines.push([
            row.model.clone(),
            row.unit.label().to_string(),
            show(&row.cells[0]),
            show(&row.cells[1]),
            show(&row.cells[2]),
            ratio(&row.cells[1]),
            ratio(&row.cells[2]),
        ]);
    }
    let mut widths = header.map(str::len);
    for line in &lines {
        for (w, cell) in widths.iter_mut().zip(line) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = String::new();
    let mut emit = |cells: &[String]| {
        out.push('|');
        for (i, cell) in cells.iter().enumerate() {
            if i < 2 {
                let _ = write!(out, " {cell:<w$} |", w = widths[i]);
            } else {
                let _ = write!(out, " {cell:>w$} |", w = widths[i]);
            }
        }
        out.push('\n');
    };
    emit(&header.map(str::to_string));
    emit(
        &widths
            .iter()
            .enumerate()
            .map(|(i, w)| if i < 2 { "-".repeat(*w) } else { format!("{}:", "-".repeat(w - 1)) })
            .collect::<Vec<_>>(),
    );
    for line in &lines {
        emit(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn render_prints_ratios_to_samaritan() {
        let rows = [Row {
            model: "m".to_string(),
            unit: Unit::ExecPerSec,
            cells: [Cell::Value(100.0), Cell::Value(50.0), Cell::Text("n/a".to_string())],
        }];
        let table = render(&rows);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], "| model | unit   | samaritan | shuttle | loom | shuttle/samaritan | loom/samaritan |");
        assert_eq!(lines[2], "| m     | exec/s |       100 |      50 |  n/a |              0.50 |              - |");
    }

    #[test]
    fn rss_is_readable_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(rss_bytes().unwrap() > 0);
        }
    }
}
