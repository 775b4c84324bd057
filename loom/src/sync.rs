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
/// collapse into one.
#[derive(Debug, Default)]
pub struct Notify {
    /// Whether a notification is pending.
    permit: Mutex<bool>,
    wakeup: Condvar,
    /// Enforces the single waiter (not a modelled object: a check only).
    waiting: std::sync::atomic::AtomicBool,
}

impl Notify {
    /// Creates a `Notify` without a pending notification.
    pub fn new() -> Notify {
        Notify::default()
    }

    /// Notifies the waiter, or the next one to wait.
    #[track_caller]
    pub fn notify(&self) {
        *self.permit.lock().unwrap() = true;
        self.wakeup.notify_one();
    }

    /// Waits for a notification and consumes it.
    ///
    /// # Panics
    ///
    /// If two threads wait at the same time, as loom's.
    #[track_caller]
    pub fn wait(&self) {
        use std::sync::atomic::Ordering::SeqCst;

        self.waiting.compare_exchange(false, true, SeqCst, SeqCst).expect("only a single thread may wait on `Notify`");
        let mut permit = self.permit.lock().unwrap();
        while !*permit {
            permit = self.wakeup.wait(permit).unwrap();
        }
        *permit = false;
        drop(permit);
        self.waiting.store(false, SeqCst);
    }
}
