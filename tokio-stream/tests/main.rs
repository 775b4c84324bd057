//! tokio-stream's wrappers on samaritan-tokio-stream, in both modes.
//!
//! Without `sim` the programs run on tokio and tokio-stream themselves;
//! under `sim` the `#[tokio::test]`s are explored, and `explored`
//! explores a program through `samaritan::Builder::explore`, asserting
//! its outcomes and execution count.

extern crate samaritan_tokio as tokio;
extern crate samaritan_tokio_stream as tokio_stream;

mod api;
#[cfg(feature = "sim")]
mod explored;
mod programs;
