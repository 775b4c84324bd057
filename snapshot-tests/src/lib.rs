//! insta snapshots of samaritan's schedules and exploration summaries.
//!
//! The tests in `tests/` run the programs of `examples/` and the engine's
//! verdicts under `sim` and snapshot a dedicated, line-per-step record: a
//! change in concurrent behaviour then shows up in `cargo insta review`.
