//! crossbeam for production and, under the `sim` feature, crossbeam's
//! channels, `select!` and `Backoff` on samaritan's explorer: a drop-in
//! for crossbeam users.
//!
//! # Switching
//!
//! ```toml
//! [dependencies]
//! crossbeam = { package = "samaritan-crossbeam", path = "../samaritan/crossbeam" }
//!
//! [dev-dependencies]
//! crossbeam = { package = "samaritan-crossbeam", path = "../samaritan/crossbeam", features = ["sim"] }
//! samaritan = { path = "../samaritan", features = ["sim"] }
//! ```
//!
//! This crate mirrors the `crossbeam` umbrella crate; for code written
//! against `crossbeam_channel::`, `samaritan-crossbeam-channel` is the
//! same channels under crossbeam-channel's name (`crossbeam-utils` has no
//! such crate). Without `sim` every item is crossbeam's, re-exported.
//! With `sim`:
//!
//! - `channel` is samaritan's model: `bounded` (including zero capacity,
//!   a rendezvous), `unbounded`, `after`, `at`, `tick` and `never` on the
//!   virtual clock, every send, receive and timeout a scheduling point,
//!   and `select!`'s choice among ready operations an explored choice
//!   (`select_biased!` takes the first ready one). One difference from
//!   crossbeam: a send on a zero-capacity channel waiting inside a
//!   `select!` does not pair with a receiver's `try_recv` or with a
//!   `select!` that has a `default` arm (only with a receive that waits),
//!   where crossbeam's would hand the message over.
//! - `utils::Backoff`'s `spin` and `snooze` yield, so a spin loop is seen
//!   (and ended) by the fair scheduler.
//! - `queue::{ArrayQueue, SegQueue}` and `atomic::AtomicCell` are
//!   sequentially consistent models: each operation one step under a
//!   samaritan mutex (`AtomicCell::is_lock_free` says `false`).
//! - `scope` and `thread` (`Scope::spawn`, `builder`, `ScopedJoinHandle`)
//!   spawn samaritan's threads, so an exploration schedules them.
//! - `deque`, `epoch`, `sync` and `utils::CachePadded` stay crossbeam's
//!   own: their operations are not scheduling points.
//!
//! ```
//! extern crate samaritan_crossbeam as crossbeam;
//! use crossbeam::channel::{bounded, select};
//!
//! let (tx, rx) = bounded(1);
//! std::thread::spawn(move || tx.send(7).unwrap());
//! select! {
//!     recv(rx) -> msg => assert_eq!(msg, Ok(7)),
//! }
//! ```

#[cfg(feature = "sim")]
mod macros;
#[cfg(feature = "sim")]
mod sim;

#[cfg(not(feature = "sim"))]
pub use crossbeam::*;
#[cfg(feature = "sim")]
pub use crossbeam::{deque, epoch, sync};
#[cfg(feature = "sim")]
pub use sim::thread::scope;
#[cfg(feature = "sim")]
pub use sim::{atomic, channel, queue, thread, utils};

/// Waits on several channel operations at once (crossbeam's `select!`;
/// under `sim`, the choice among ready operations is explored).
#[cfg(feature = "sim")]
pub use crate::__samaritan_crossbeam_select as select;

/// As [`select!`], taking the first ready operation in the arms' order.
#[cfg(feature = "sim")]
pub use crate::__samaritan_crossbeam_select_biased as select_biased;
