//! samaritan's sync primitives.
//!
//! One export list, two backends: without the `sim` feature every name is
//! std's own type (zero overhead); with it, each is a modelled wrapper that
//! behaves like std outside an exploration and is scheduled by the engine
//! inside one. A name missing from either backend fails to compile.
//!
//! The async primitives (tasks wait on them by `Waker`, threads never block)
//! are one real implementation in both modes. So that a blocking and an
//! async variant cannot be confused, the async locks are named
//! [`AsyncMutex`] and [`AsyncRwLock`] and the async queue is [`async_mpsc`];
//! [`Semaphore`], [`Notify`], [`oneshot`] and [`watch`] have no blocking twin.
//!
//! [`cell::UnsafeCell`] is the one non-synchronizing type: std's cell with
//! loom-style `with`/`with_mut` accesses, which `sim` checks for data races.

#[cfg(not(feature = "sim"))]
mod real;
#[cfg(not(feature = "sim"))]
use real as backend;

#[cfg(feature = "sim")]
mod simulated;
#[cfg(feature = "sim")]
use simulated as backend;

pub use backend::{Arc, Weak};
pub use backend::{Barrier, BarrierWaitResult, Condvar, WaitTimeoutResult};
pub use backend::{LazyLock, Once, OnceLock, OnceState, RwLock, RwLockReadGuard, RwLockWriteGuard};
pub use backend::{Mutex, MutexGuard};
pub use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

pub mod cell;

mod asynch;
pub use asynch::{mpsc as async_mpsc, oneshot, watch};
pub use asynch::{AcquireError, Notify, Semaphore, SemaphorePermit, TryAcquireError};
pub use asynch::{AsyncMutex, AsyncMutexGuard, AsyncTryLockError};
pub use asynch::{AsyncRwLock, AsyncRwLockReadGuard, AsyncRwLockWriteGuard};

/// Futures returned by the async primitives' methods.
pub mod futures {
    pub use crate::asynch::{Acquire, Lock, Notified, Read, Write};
}

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
