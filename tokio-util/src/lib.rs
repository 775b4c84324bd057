//! tokio-util for production and, under the `sim` feature, its wrappers of
//! tokio's sync types over samaritan-tokio's: the companion of
//! samaritan-tokio, so that a crate whose graph holds tokio and tokio-util
//! switches both together.
//!
//! # Switching
//!
//! A crate that uses tokio-util renames it beside tokio:
//!
//! ```toml
//! [dependencies]
//! tokio = { package = "samaritan-tokio", path = "../samaritan/tokio" }
//! tokio-util = { package = "samaritan-tokio-util", path = "../samaritan/tokio-util" }
//!
//! [dev-dependencies]
//! tokio = { package = "samaritan-tokio", path = "../samaritan/tokio", features = ["sim"] }
//! tokio-util = { package = "samaritan-tokio-util", path = "../samaritan/tokio-util", features = ["sim"] }
//! ```
//!
//! tokio-util's feature names are this crate's too, forwarded. Without
//! `sim` this crate *is* tokio-util: every item is a re-export. With it,
//! the items that take tokio's own types (a `mpsc::Sender`, an
//! `Arc<Semaphore>`) take samaritan-tokio's instead, which under `sim` are
//! other types than tokio's: without this crate, `PollSender::new(tx)`
//! fails to compile with "expected `Sender`, found a different `Sender`".
//!
//! ```
//! extern crate samaritan_tokio as tokio;
//! extern crate samaritan_tokio_util as tokio_util;
//! use std::sync::Arc;
//! use tokio::sync::Semaphore;
//! use tokio_util::sync::PollSemaphore;
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() {
//!     let mut sem = PollSemaphore::new(Arc::new(Semaphore::new(1)));
//!     let permit = std::future::poll_fn(|cx| sem.poll_acquire(cx)).await.unwrap();
//!     assert_eq!(sem.available_permits(), 0);
//!     drop(permit);
//!     assert_eq!(sem.available_permits(), 1);
//! }
//! ```
//!
//! # What maps
//!
//! Under `sim`; without it everything is tokio-util's.
//!
//! | tokio-util 0.7 | under `sim` |
//! |---|---|
//! | `sync::{PollSender, PollSendError}` | this crate's, over samaritan-tokio's `mpsc::Sender` (its `reserve_owned`): `new`, `poll_reserve`, `send_item`, `is_closed`, `get_ref`, `close`, `abort_send`, `Clone`, `Sink` |
//! | `sync::PollSemaphore` | this crate's, over samaritan-tokio's `Semaphore` (its `acquire_many_owned`): `new`, `poll_acquire`, `poll_acquire_many`, `available_permits`, `add_permits`, `close`, `clone_inner`, `into_inner`, `Clone`, `Stream`, `AsRef<Semaphore>` |
//! | `sync::{CancellationToken, DropGuard, DropGuardRef, WaitForCancellationFuture, WaitForCancellationFutureOwned}` | this crate's, on samaritan's atomics, mutex and `Notify`: `new`, `child_token`, `cancel`, `is_cancelled`, `cancelled`, `cancelled_owned`, `drop_guard`, `drop_guard_ref`, `run_until_cancelled`, `run_until_cancelled_owned`, `Clone`, `Default`, `Eq`/`Hash` by identity, `Debug`; a cancel and every check of the flag are steps the explorer orders (tokio-util's own token keeps its state where the explorer cannot see it, so a race between a check and a cancel would be missed) |
//! | `sync::ReusableBoxFuture` | tokio-util's: it takes no tokio type |
//! | `codec`, `io`, `compat`, `either` | tokio-util's, over tokio's I/O traits (samaritan-tokio's are tokio's) |
//! | `task` (`TaskTracker`, `JoinMap`, `spawn_pinned`, `AbortOnDropHandle`), `time::DelayQueue`, `udp`, `net` | tokio-util's, not mapped: they spawn on, time with or return tokio's own types, which an exploration does not run; inside one their spawns and timers are reported as a test that cannot be checked as written |
#![doc(test(attr(deny(warnings))))]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use tokio_util::*;

#[cfg(feature = "sim")]
pub mod sync;
