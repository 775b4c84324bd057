//! tokio-stream for production and, under the `sim` feature, its wrappers
//! of tokio's channels and interval over samaritan-tokio's: the companion
//! of samaritan-tokio, so that a crate whose graph holds tokio and
//! tokio-stream switches both together.
//!
//! # Switching
//!
//! A crate that uses tokio-stream renames it beside tokio:
//!
//! ```toml
//! [dependencies]
//! tokio = { package = "samaritan-tokio", path = "../samaritan/tokio" }
//! tokio-stream = { package = "samaritan-tokio-stream", path = "../samaritan/tokio-stream" }
//!
//! [dev-dependencies]
//! tokio = { package = "samaritan-tokio", path = "../samaritan/tokio", features = ["sim"] }
//! tokio-stream = { package = "samaritan-tokio-stream", path = "../samaritan/tokio-stream", features = ["sim"] }
//! ```
//!
//! tokio-stream's feature names (and its default, `time`) are this
//! crate's too, forwarded. Without `sim` this crate *is* tokio-stream:
//! every item is a re-export. With it, the wrappers that take tokio's own
//! types take samaritan-tokio's instead, which under `sim` are other types
//! than tokio's: without this crate, `UnboundedReceiverStream::new(rx)`
//! fails to compile with "expected `UnboundedReceiver`, found a different
//! `UnboundedReceiver`".
//!
//! ```
//! extern crate samaritan_tokio as tokio;
//! extern crate samaritan_tokio_stream as tokio_stream;
//! use tokio::sync::mpsc;
//! use tokio_stream::wrappers::ReceiverStream;
//! use tokio_stream::StreamExt;
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() {
//!     let (tx, rx) = mpsc::channel(2);
//!     tx.send(1).await.unwrap();
//!     tx.send(2).await.unwrap();
//!     drop(tx);
//!     let all: Vec<u32> = ReceiverStream::new(rx).collect().await;
//!     assert_eq!(all, [1, 2]);
//! }
//! ```
//!
//! # What maps
//!
//! Under `sim`; without it everything is tokio-stream's.
//!
//! | tokio-stream 0.1 | under `sim` |
//! |---|---|
//! | `wrappers::{ReceiverStream, UnboundedReceiverStream}` | this crate's, over samaritan-tokio's `mpsc` receivers: `new`, `into_inner`, `close`, `Stream`, `AsRef`, `AsMut`, `From` |
//! | `wrappers::IntervalStream` (`time`) | this crate's, over samaritan-tokio's `time::Interval` (virtual time inside an exploration): `new`, `into_inner`, `Stream`, `AsRef`, `AsMut` |
//! | `Stream`, `StreamExt` (but its timers), `StreamMap`, `iter`, `once`, `empty`, `pending`, `StreamNotifyClose`, `wrappers::{TcpListenerStream, LinesStream, SplitStream, ...}` | tokio-stream's: generic over streams, or over tokio's I/O types, which samaritan-tokio's are |
//! | `StreamExt::{timeout, timeout_repeating, throttle, chunks_timeout}`, `wrappers::{BroadcastStream, WatchStream}` (`sync`) | tokio-stream's, not mapped: the adapters sleep on tokio's own timer, which an exploration does not run (the test is then one that cannot be checked as written); the two wrappers take tokio's own `broadcast` and `watch` receivers, so they do not compile with samaritan-tokio's |
#![doc(test(attr(deny(warnings))))]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use tokio_stream::*;

#[cfg(feature = "sim")]
pub mod wrappers;
