//! tokio-style programs on samaritan-tokio, in both modes.
//!
//! The programs are written as a tokio user writes them (`use
//! tokio::...`, `#[tokio::test]`). Without `sim` (the workspace's
//! production run) they run on tokio itself. Under `sim` the
//! `#[tokio::test]`s are explored, and `explored` explores programs with a
//! bug and without one through `samaritan::Builder::explore`, asserting
//! exact verdicts and execution counts.

extern crate samaritan_tokio as tokio;

mod api;
#[cfg(feature = "sim")]
mod explored;
mod io;
mod outside;
#[cfg(feature = "sim")]
mod outside_wakes;
mod polls;
mod programs;
mod statics;
#[cfg(feature = "sim")]
mod std_clock;
#[cfg(feature = "sim")]
mod support;
#[cfg(feature = "sim")]
mod traits;
#[cfg(feature = "sim")]
mod ui;
