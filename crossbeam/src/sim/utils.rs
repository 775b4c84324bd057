//! `crossbeam::utils` under `sim`: `Backoff` yields, so spin loops are
//! seen by the fair scheduler; `CachePadded` is crossbeam's own;
//! `thread` is [`crate::thread`].

use std::cell::Cell;
use std::fmt;

pub use crossbeam::utils::CachePadded;

/// Scoped threads (`crossbeam::utils::thread`), as `crossbeam::thread`.
pub mod thread {
    pub use super::super::thread::*;
}

/// The steps after which [`Backoff::is_completed`] says to block instead.
const YIELD_LIMIT: u32 = 10;

/// Exponential backoff for spin loops, as crossbeam's; under `sim` each
/// `spin` and `snooze` is a yield (a scheduling point the fair scheduler
/// counts), so a loop that waits for another thread lets it run.
///
/// ```
/// extern crate samaritan_crossbeam as crossbeam;
/// use crossbeam::utils::Backoff;
///
/// let backoff = Backoff::new();
/// while !backoff.is_completed() {
///     backoff.snooze();
/// }
/// backoff.reset();
/// assert!(!backoff.is_completed());
/// ```
pub struct Backoff {
    step: Cell<u32>,
}

impl Backoff {
    /// A new backoff.
    pub fn new() -> Backoff {
        Backoff { step: Cell::new(0) }
    }

    /// Starts over.
    pub fn reset(&self) {
        self.step.set(0);
    }

    /// Backs off in a lock-free loop: a yield.
    #[track_caller]
    pub fn spin(&self) {
        samaritan::thread::yield_now();
        self.step.set((self.step.get() + 1).min(YIELD_LIMIT + 1));
    }

    /// Backs off in a blocking loop: a yield.
    #[track_caller]
    pub fn snooze(&self) {
        samaritan::thread::yield_now();
        self.step.set((self.step.get() + 1).min(YIELD_LIMIT + 1));
    }

    /// Whether backing off has gone on long enough that the thread should
    /// block instead.
    pub fn is_completed(&self) -> bool {
        self.step.get() > YIELD_LIMIT
    }
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff::new()
    }
}

impl fmt::Debug for Backoff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Backoff").field("step", &self.step.get()).field("is_completed", &self.is_completed()).finish()
    }
}
