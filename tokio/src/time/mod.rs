//! tokio's `time` module; under `sim`, [`sleep`], [`sleep_until`],
//! [`timeout`], [`timeout_at`], [`interval`], [`interval_at`] and
//! [`Instant`] are samaritan's virtual time inside an exploration and
//! tokio's outside one.
//!
//! Inside an exploration time is virtual: it stands still while a task
//! can run and jumps to the next deadline when none can, so a test with a
//! minute of timeouts takes no wall-clock time, and a timeout fires only
//! when nothing else can happen first (when its future becomes ready at
//! the same instant, which wins is an explored choice). [`Instant::now`]
//! reads that clock. Outside an exploration every item is tokio's. With
//! the `test-util` feature, `pause` and `resume` do nothing inside an
//! exploration (its clock always behaves as a paused tokio clock does)
//! and `advance` sleeps there.

mod instant;
mod interval;
#[cfg(feature = "test-util")]
mod paused;
mod sleep;
mod timeout;

pub use tokio::time::*;

pub use instant::Instant;
pub use interval::{interval, interval_at, Interval};
#[cfg(feature = "test-util")]
pub use paused::{advance, pause, resume};
pub use sleep::{sleep, sleep_until, Sleep};
pub use timeout::{timeout, timeout_at, Timeout};

/// The errors of the `time` module; same as [`tokio::time::error`], with
/// [`Elapsed`](error::Elapsed) this crate's (tokio's cannot be made
/// outside tokio).
pub mod error {
    pub use super::timeout::Elapsed;
    pub use tokio::time::error::Error;
}
