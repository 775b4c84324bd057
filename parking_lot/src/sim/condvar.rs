//! `Condvar`: samaritan's condition variable, waiting with `&mut` guard.
//!
//! Invariant: `waiting` counts the threads inside a wait (from before
//! samaritan's wait to after it returns); it is read by the notifications
//! only to answer how many threads were waiting.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use samaritan::sync;

use super::mutex::{unpoisoned, MutexGuard};

/// A condition variable, as parking_lot's: a wait takes `&mut` the guard,
/// a notification says whether anyone was waiting, a timed wait returns a
/// [`WaitTimeoutResult`].
///
/// ```
/// extern crate samaritan_parking_lot as parking_lot;
/// use parking_lot::{Condvar, Mutex};
/// use std::time::Duration;
///
/// let (m, cv) = (Mutex::new(0), Condvar::new());
/// let mut guard = m.lock();
/// assert!(cv.wait_for(&mut guard, Duration::from_millis(1)).timed_out());
/// assert!(!cv.notify_one());
/// ```
#[derive(Default)]
pub struct Condvar {
    inner: sync::Condvar,
    waiting: AtomicUsize,
}

/// Whether a timed wait returned because its time was up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitTimeoutResult(bool);

impl WaitTimeoutResult {
    /// Whether the wait timed out.
    pub fn timed_out(self) -> bool {
        self.0
    }
}

/// Counts a thread in a wait until dropped (also when the wait unwinds).
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn new(count: &'a AtomicUsize) -> Waiting<'a> {
        count.fetch_add(1, Ordering::SeqCst);
        Waiting(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Condvar {
    /// A new condition variable.
    pub const fn new() -> Condvar {
        Condvar { inner: sync::Condvar::new(), waiting: AtomicUsize::new(0) }
    }

    /// Releases the guard's lock, waits for a notification (or a spurious
    /// wake-up) and takes the lock again.
    #[track_caller]
    pub fn wait<T>(&self, guard: &mut MutexGuard<'_, T>) {
        let _waiting = Waiting::new(&self.waiting);
        let inner = guard.take();
        guard.put(unpoisoned(self.inner.wait(inner)));
    }

    /// Waits while `condition` holds of the locked value.
    #[track_caller]
    pub fn wait_while<T, F: FnMut(&mut T) -> bool>(&self, guard: &mut MutexGuard<'_, T>, mut condition: F) {
        while condition(&mut **guard) {
            self.wait(guard);
        }
    }

    /// Waits for a notification for at most `timeout`.
    #[track_caller]
    pub fn wait_for<T>(&self, guard: &mut MutexGuard<'_, T>, timeout: Duration) -> WaitTimeoutResult {
        let _waiting = Waiting::new(&self.waiting);
        let inner = guard.take();
        let (inner, result) = unpoisoned(self.inner.wait_timeout(inner, timeout));
        guard.put(inner);
        WaitTimeoutResult(result.timed_out())
    }

    /// Waits for a notification until `deadline` (std's clock, which
    /// follows the virtual one inside an exploration on Linux).
    #[track_caller]
    pub fn wait_until<T>(&self, guard: &mut MutexGuard<'_, T>, deadline: Instant) -> WaitTimeoutResult {
        self.wait_for(guard, deadline.saturating_duration_since(Instant::now()))
    }

    /// Waits while `condition` holds, for at most `timeout` in all; times
    /// out only with `condition` still holding.
    #[track_caller]
    pub fn wait_while_for<T, F: FnMut(&mut T) -> bool>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        mut condition: F,
        timeout: Duration,
    ) -> WaitTimeoutResult {
        let _waiting = Waiting::new(&self.waiting);
        let inner = guard.take();
        let (inner, result) = unpoisoned(self.inner.wait_timeout_while(inner, timeout, |v| condition(v)));
        guard.put(inner);
        WaitTimeoutResult(result.timed_out())
    }

    /// Waits while `condition` holds, until `deadline`.
    #[track_caller]
    pub fn wait_while_until<T, F: FnMut(&mut T) -> bool>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        condition: F,
        deadline: Instant,
    ) -> WaitTimeoutResult {
        self.wait_while_for(guard, condition, deadline.saturating_duration_since(Instant::now()))
    }

    /// Wakes one waiting thread; returns whether a thread was waiting.
    #[track_caller]
    pub fn notify_one(&self) -> bool {
        let waiting = self.waiting.load(Ordering::SeqCst) > 0;
        self.inner.notify_one();
        waiting
    }

    /// Wakes every waiting thread; returns how many were waiting.
    #[track_caller]
    pub fn notify_all(&self) -> usize {
        let waiting = self.waiting.load(Ordering::SeqCst);
        self.inner.notify_all();
        waiting
    }
}

impl fmt::Debug for Condvar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Condvar").finish_non_exhaustive()
    }
}
