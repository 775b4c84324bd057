//! crossbeam's channels and `Backoff` on samaritan's primitives (the
//! `sim` feature).
//!
//! Invariant: every blocking operation reaches samaritan through one of
//! its primitives (`Mutex`, `Condvar`, `thread::sleep`, `yield_now`) or
//! its explored choice, so the explorer sees it; the public methods that
//! block are `#[track_caller]`, so traces name the user's line.

pub mod atomic;
pub mod channel;
pub mod queue;
pub mod thread;
pub mod utils;

/// A lock's guard (or a wait's result) whether or not a thread panicked
/// while holding it: crossbeam's types do not poison.
pub(crate) fn unpoisoned<G>(result: std::sync::LockResult<G>) -> G {
    result.unwrap_or_else(std::sync::PoisonError::into_inner)
}
