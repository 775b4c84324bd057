//! samaritan's threads: std in production, engine actors under `sim`.
//!
//! One export list, two backends: without the `sim` feature every name is
//! std's own (zero overhead); with it, each is a wrapper that behaves like
//! std outside an exploration and is scheduled by the engine inside one.
//! A name missing from either backend fails to compile.

#[cfg(not(feature = "sim"))]
mod real;
#[cfg(not(feature = "sim"))]
use real as backend;

#[cfg(feature = "sim")]
mod simulated;
#[cfg(feature = "sim")]
use simulated as backend;

mod concurrency;
pub mod executor;
pub mod time;

/// Locks `m`, recovering from poisoning: the runtime's own locks guard
/// no invariant a panic can break (user code, destructors included, runs
/// outside them).
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Declares thread-local statics; same syntax as [`std::thread_local!`].
#[cfg(not(feature = "sim"))]
pub use std::thread_local;

/// Threads; same API as [`std::thread`].
pub mod thread {
    pub use crate::backend::thread::{
        current, park, park_timeout, scope, sleep, spawn, yield_now, Builder, JoinHandle, LocalKey, Scope,
        ScopedJoinHandle, Thread, ThreadId,
    };
    pub use std::thread::{available_parallelism, panicking, AccessError, Result};
}

/// Hints to the processor; same API as [`std::hint`].
pub mod hint {
    /// Signals a busy-wait loop; a yielding scheduling point under `sim`.
    #[track_caller]
    #[inline]
    pub fn spin_loop() {
        #[cfg(feature = "sim")]
        if samaritan_sim::rt::active() {
            samaritan_sim::rt::step(samaritan_sim::Op::SpinLoop, None, std::panic::Location::caller());
            return;
        }
        std::hint::spin_loop();
    }
}
