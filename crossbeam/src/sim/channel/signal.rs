//! A selector's wake-up: fired by any channel it waits on.
//!
//! Invariant: a channel fires a signal while holding its own state lock,
//! and a selector never holds the signal's lock while taking a channel's,
//! so the lock order is always channel, then signal.

use std::time::Instant;

use samaritan::sync::{Condvar, Mutex};

use crate::sim::unpoisoned;

/// A flag and a condition variable.
pub(crate) struct Signal {
    fired: Mutex<bool>,
    woken: Condvar,
}

impl Signal {
    pub(crate) fn new() -> Signal {
        Signal { fired: Mutex::new(false), woken: Condvar::new() }
    }

    /// Sets the flag and wakes the selector.
    #[track_caller]
    pub(crate) fn fire(&self) {
        *unpoisoned(self.fired.lock()) = true;
        self.woken.notify_one();
    }

    /// Waits until fired or, with one, until `deadline`; returns whether
    /// the deadline passed first. (`wait_while`: no spurious wake-ups.)
    #[track_caller]
    pub(crate) fn wait(&self, deadline: Option<Instant>) -> bool {
        let fired = unpoisoned(self.fired.lock());
        match deadline {
            None => {
                drop(unpoisoned(self.woken.wait_while(fired, |f| !*f)));
                false
            }
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return !*fired;
                }
                let (fired, _) = unpoisoned(self.woken.wait_timeout_while(fired, left, |f| !*f));
                !*fired
            }
        }
    }
}
