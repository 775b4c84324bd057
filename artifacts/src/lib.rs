//! Pictures and tools for samaritan's schedules.
//!
//! - [`html::report`] renders a [`Report`](samaritan_sim::Report) as one
//!   self-contained page: for a failure, a timeline with one lane per
//!   thread, one row per step, preemptions, yields and blocking operations
//!   marked, the source location of each step on hover, and arrows for the
//!   happens-before edges between threads; for a pass, a summary.
//! - [`svg::coverage_chart`] draws how the number of distinct states grew
//!   with the executions, one line per strategy
//!   ([`Report::coverage`](samaritan_sim::Report::coverage)).
//! - The `samaritan` binary decodes replay tokens and lists persisted
//!   failures.
//!
//! Everything a program put into a report (thread names, panic messages,
//! object labels) is escaped, and the output is well-formed XML, so an XML
//! parser can check it.
//!
//! ```
//! let chart = samaritan_artifacts::svg::coverage_chart(&[("dfs", &[(1, 1), (4, 3)])]);
//! assert!(chart.starts_with("<svg"));
//! ```

mod escape;
pub mod html;
pub mod json;
pub mod svg;
