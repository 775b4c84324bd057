//! `Once`: samaritan's, with parking_lot's `OnceState`.
//!
//! Invariant: the closure runs at most once to completion, as samaritan's
//! `Once` runs it; a panic in it poisons the `Once` (parking_lot's too).

use std::fmt;

use samaritan::sync;

/// What a [`Once`] has done so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnceState {
    /// Its closure has not run (or, under `sim`, is running or panicked:
    /// see the crate documentation).
    New,
    /// A closure panicked.
    Poisoned,
    /// A closure is running.
    InProgress,
    /// A closure ran to its end.
    Done,
}

impl OnceState {
    /// Whether a closure panicked.
    pub fn poisoned(self) -> bool {
        self == OnceState::Poisoned
    }

    /// Whether a closure ran to its end.
    pub fn done(self) -> bool {
        self == OnceState::Done
    }
}

/// Runs a closure once, as parking_lot's `Once`.
///
/// ```
/// extern crate samaritan_parking_lot as parking_lot;
/// use parking_lot::{Once, OnceState};
///
/// static INIT: Once = Once::new();
/// let mut runs = 0;
/// INIT.call_once(|| runs += 1);
/// INIT.call_once(|| runs += 1);
/// assert_eq!((runs, INIT.state()), (1, OnceState::Done));
/// ```
pub struct Once {
    inner: sync::Once,
}

impl Once {
    /// A `Once` whose closure has not run.
    pub const fn new() -> Once {
        Once { inner: sync::Once::new() }
    }

    /// What it has done so far.
    pub fn state(&self) -> OnceState {
        if self.inner.is_completed() {
            OnceState::Done
        } else {
            OnceState::New
        }
    }

    /// Runs `f` if no closure has run to its end; others wait for it.
    /// Panics if an earlier closure panicked.
    #[track_caller]
    pub fn call_once<F: FnOnce()>(&self, f: F) {
        self.inner.call_once(f);
    }

    /// As [`Once::call_once`], also after a closure panicked; `f` is told
    /// which.
    #[track_caller]
    pub fn call_once_force<F: FnOnce(OnceState)>(&self, f: F) {
        self.inner.call_once_force(|state| {
            f(if state.is_poisoned() { OnceState::Poisoned } else { OnceState::New });
        });
    }
}

impl Default for Once {
    fn default() -> Once {
        Once::new()
    }
}

impl fmt::Debug for Once {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Once").field("state", &self.state()).finish()
    }
}
