//! samaritan's sync primitives.
//!
//! One export list, two backends: without the `sim` feature every name is
//! std's own type (zero overhead); with it, each is a modelled wrapper that
//! behaves like std outside an exploration and is scheduled by the engine
//! inside one. A name missing from either backend fails to compile.

#[cfg(not(feature = "sim"))]
mod real;
#[cfg(not(feature = "sim"))]
use real as backend;

#[cfg(feature = "sim")]
mod simulated;
#[cfg(feature = "sim")]
use simulated as backend;

pub use backend::{Barrier, BarrierWaitResult, Condvar, WaitTimeoutResult};
pub use backend::{LazyLock, Once, OnceLock, OnceState, RwLock, RwLockReadGuard, RwLockWriteGuard};
pub use backend::{Mutex, MutexGuard};
pub use std::sync::{Arc, LockResult, PoisonError, TryLockError, TryLockResult, Weak};

/// Atomic types; see [`std::sync::atomic`].
pub mod atomic {
    pub use crate::backend::atomic::{
        compiler_fence, fence, AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize, AtomicPtr,
        AtomicU16, AtomicU32, AtomicU64, AtomicU8, AtomicUsize,
    };
    pub use std::sync::atomic::Ordering;
}

/// Multi-producer, single-consumer FIFO queues; see [`std::sync::mpsc`].
pub mod mpsc {
    pub use crate::backend::mpsc::{channel, sync_channel, IntoIter, Iter, Receiver, Sender, SyncSender, TryIter};
    pub use std::sync::mpsc::{RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError};
}
