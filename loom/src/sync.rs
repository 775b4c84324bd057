//! Mock of `std::sync`; loom's [`loom::sync`] on samaritan's primitives.
//!
//! [`loom::sync`]: https://docs.rs/loom/0.7/loom/sync/index.html

pub mod atomic;

/// samaritan's scheduled `Arc` (loom's models its count too): the last
/// drop is ordered after the other owners' accesses, and one still alive
/// at the end of an execution is reported as a leak, as loom does.
pub use samaritan::sync::counted::Arc;

pub use samaritan::sync::{Barrier, BarrierWaitResult, Condvar, WaitTimeoutResult};
pub use samaritan::sync::{LockResult, TryLockResult};
pub use samaritan::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Multi-producer, single-consumer FIFO queues; samaritan's (a superset
/// of loom's `channel`).
pub mod mpsc {
    pub use samaritan::sync::mpsc::*;
}

/// A single permit that one thread waits for and others give, as loom's
/// `Notify`: a notification establishes a release/acquire ordering, a
/// notification with no waiter is kept for the next `wait`, and several
/// collapse into one. As loom's, the first `wait` on a `Notify` in an
/// execution may return spuriously, without a notification and leaving a
/// pending one in place (an explored choice, once per `Notify` per
/// execution: loom's `did_spur`).
#[derive(Debug, Default)]
pub struct Notify {
    /// Whether a notification is pending, and whether a `wait` has
    /// already returned spuriously in this execution.
    state: Mutex<NotifyState>,
    wakeup: Condvar,
    /// Enforces the single waiter (not a modelled object: a check only).
    waiting: std::sync::atomic::AtomicBool,
}

/// What a [`Notify`]'s mutex guards.
#[derive(Debug, Default)]
struct NotifyState {
    permit: bool,
    spurred: bool,
}

impl Notify {
    /// Creates a `Notify` without a pending notification.
    pub fn new() -> Notify {
        Notify::default()
    }

    /// Notifies the waiter, or the next one to wait.
    #[track_caller]
    pub fn notify(&self) {
        self.state.lock().unwrap().permit = true;
        self.wakeup.notify_one();
    }

    /// Waits for a notification and consumes it, or (once per execution,
    /// as loom's) returns spuriously.
    ///
    /// # Panics
    ///
    /// If two threads wait at the same time, as loom's.
    #[track_caller]
    pub fn wait(&self) {
        use std::sync::atomic::Ordering::SeqCst;

        self.waiting.compare_exchange(false, true, SeqCst, SeqCst).expect("only a single thread may wait on `Notify`");
        let mut state = self.state.lock().unwrap();
        if !state.spurred && spurs() {
            state.spurred = true;
            drop(state);
            self.waiting.store(false, SeqCst);
            crate::thread::yield_now();
            return;
        }
        while !state.permit {
            state = self.wakeup.wait(state).unwrap();
        }
        state.permit = false;
        drop(state);
        self.waiting.store(false, SeqCst);
    }
}

/// Whether a `wait` returns spuriously: an explored choice inside an
/// exploration, never outside one.
fn spurs() -> bool {
    #[cfg(feature = "sim")]
    return crate::exploring() && samaritan_sim::rt::choose(2) == 1;
    #[cfg(not(feature = "sim"))]
    return false;
}
