//! loom-style models run on samaritan-loom, with exact verdicts.
//!
//! The models are written as a loom user writes them (`use loom::...`);
//! `check` explores one with the settings `loom::model` uses by default
//! and returns samaritan's report instead of panicking, so that a bug
//! variant's verdict can be asserted.
//! Without the `sim` feature (the workspace's production run) only
//! `model_needs_the_sim_feature` runs.

extern crate samaritan_loom as loom;

#[cfg(feature = "sim")]
mod api;
#[cfg(feature = "sim")]
mod compat;
#[cfg(feature = "sim")]
mod oneshot;
#[cfg(feature = "sim")]
mod refcount;
#[cfg(feature = "sim")]
mod support;
#[cfg(feature = "sim")]
mod treiber;

#[cfg(feature = "sim")]
use support::{assert_panic, assert_pass, assert_race, check, check_with};

/// Without `sim` there is no explorer: `model` says how to get one.
#[cfg(not(feature = "sim"))]
#[test]
fn model_needs_the_sim_feature() {
    let err = std::panic::catch_unwind(|| loom::model(|| {})).unwrap_err();
    let message = err.downcast_ref::<String>().cloned().or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()));
    assert!(message.unwrap().contains("`sim` feature"));
}
