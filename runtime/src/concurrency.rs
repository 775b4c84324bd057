//! The primitives the executor's concurrent core and the timer driver are
//! built on, from one of three backends, as tokio's internal `loom` module
//! does it.
//!
//! - Production: std's own items, re-exported at zero cost.
//! - `cfg(samaritan_loom)` (`RUSTFLAGS="--cfg samaritan_loom"`): loom's,
//!   so that `loom::model` explores the core (the tests in
//!   `executor/tests/`). The cfg is not loom's own `loom`: a user who
//!   builds their crate with `--cfg loom` to run its loom tests (on loom
//!   or on samaritan-loom) must not switch samaritan's executor onto loom.
//! - This crate's own unit tests with the `sim` feature: samaritan-sync's
//!   simulated types and this crate's simulated threads, so that samaritan
//!   explorations check the core with samaritan itself. Only the test build
//!   of this crate gets them: every other build, the facade's `sim` one
//!   included, keeps std's, so an exploration of user code sees the
//!   executor exactly as before (through its `sim` module, which keeps
//!   std's primitives in every backend).
//!
//! One export list: a name missing from a backend fails to compile. `Arc`
//! and `Weak` are std's in every backend: a task is its own `Waker` through
//! [`std::task::Wake`], which takes std's `Arc`. [`UnsafeCell`] has loom's
//! `with`/`with_mut` in every backend, so that loom and samaritan's race
//! detector check who touches a task's future.

#[cfg(not(all(test, any(samaritan_loom, feature = "sim"))))]
mod backend {
    pub(crate) use crate::lock;
    pub(crate) use std::sync::{atomic, Condvar, Mutex, MutexGuard};
    pub(crate) use std::thread;
    pub(crate) use std::thread_local;

    /// std's cell, reached through loom's `with_mut`; compiles to the bare
    /// pointer.
    #[repr(transparent)]
    pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        pub(crate) const fn new(value: T) -> UnsafeCell<T> {
            UnsafeCell(std::cell::UnsafeCell::new(value))
        }

        /// Calls `f` with a pointer to the value, for any access.
        #[inline]
        pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }
}

#[cfg(all(test, samaritan_loom))]
mod backend {
    pub(crate) use loom::cell::UnsafeCell;
    pub(crate) use loom::sync::{Condvar, Mutex, MutexGuard};
    pub(crate) use loom::thread;

    pub(crate) mod atomic {
        pub(crate) use loom::sync::atomic::{fence, AtomicU64, AtomicU8, AtomicUsize};
        use std::sync::atomic::Ordering;

        /// loom's `AtomicBool`, with `swap` as a compare-exchange.
        ///
        /// loom 0.7.3 lets a thread's `swap` read back its own earlier
        /// `swap` although a newer store of another thread happens before
        /// it (the RMW-atomicity rule of C++'s model is not applied
        /// across threads; compare tokio-rs/loom#389): `park.rs`'s loop of
        /// `swap(false)` and `park` then misses a wake and loom reports a
        /// deadlock no real execution has. A compare-exchange of the other
        /// value reads the newest store, and when it fails the value was
        /// already `val`, which a swap would only have rewritten.
        #[derive(Default)]
        pub(crate) struct AtomicBool(loom::sync::atomic::AtomicBool);

        impl AtomicBool {
            pub(crate) fn new(v: bool) -> AtomicBool {
                AtomicBool(loom::sync::atomic::AtomicBool::new(v))
            }

            #[track_caller]
            pub(crate) fn load(&self, order: Ordering) -> bool {
                self.0.load(order)
            }

            #[track_caller]
            pub(crate) fn store(&self, val: bool, order: Ordering) {
                self.0.store(val, order);
            }

            #[track_caller]
            pub(crate) fn swap(&self, val: bool, order: Ordering) -> bool {
                let failure = match order {
                    Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
                    Ordering::AcqRel | Ordering::Acquire => Ordering::Acquire,
                    _ => Ordering::SeqCst,
                };
                match self.0.compare_exchange(!val, val, order, failure) {
                    Ok(previous) | Err(previous) => previous,
                }
            }
        }
    }

    /// `loom::thread_local!` for one declaration with a `const` initializer,
    /// which loom's macro (edition 2018: an `expr` is no `const` block)
    /// does not take.
    macro_rules! loom_thread_local {
        ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = const $init:block $(;)?) => {
            loom::thread_local!($(#[$attr])* $vis static $name: $t = $init);
        };
    }
    pub(crate) use loom_thread_local as thread_local;

    // `crate::lock` serves std's `Mutex`, which only the `sim` module keeps
    // under loom; without it, this keeps the helper from warning.
    #[cfg(not(feature = "sim"))]
    const _: fn(&std::sync::Mutex<()>) -> std::sync::MutexGuard<'_, ()> = crate::lock;

    /// Locks `m`, recovering from poisoning (see [`crate::lock`]).
    #[track_caller]
    pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
        m.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(all(test, feature = "sim", not(samaritan_loom)))]
mod backend {
    pub(crate) use crate::thread;
    pub(crate) use crate::thread_local;
    pub(crate) use samaritan_sync::cell::UnsafeCell;
    pub(crate) use samaritan_sync::{atomic, Condvar, Mutex, MutexGuard};

    /// Locks `m`, recovering from poisoning (see [`crate::lock`]).
    #[track_caller]
    pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
        m.lock().unwrap_or_else(|e| e.into_inner())
    }
}

pub(crate) use backend::{lock, thread_local, Condvar, Mutex, MutexGuard, UnsafeCell};
pub(crate) use std::sync::{Arc, Weak};

/// Atomic types; see [`std::sync::atomic`].
pub(crate) mod atomic {
    pub(crate) use super::backend::atomic::{fence, AtomicBool, AtomicU64, AtomicU8, AtomicUsize};
    pub(crate) use std::sync::atomic::Ordering;
}

/// Threads; see [`std::thread`].
pub(crate) mod thread {
    pub(crate) use super::backend::thread::{current, park, Builder, JoinHandle, Thread};
}
