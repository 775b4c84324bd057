//! tokio-util's sync wrappers on samaritan-tokio-util, in both modes.
//!
//! The programs are written as a tokio-util user writes them. Without
//! `sim` they run on tokio and tokio-util themselves; under `sim` the
//! `#[tokio::test]`s are explored, and `explored` explores the programs
//! through `samaritan::Builder::explore`, asserting exact verdicts and
//! execution counts.

extern crate samaritan_tokio as tokio;
extern crate samaritan_tokio_util as tokio_util;

mod api;
#[cfg(feature = "sim")]
mod explored;
mod programs;
