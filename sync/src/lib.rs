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

pub use backend::{Barrier, BarrierWaitResult, Condvar, WaitTimeoutResult};
pub use backend::{LazyLock, Once, OnceLock, OnceState, RwLock, RwLockReadGuard, RwLockWriteGuard};
pub use backend::{Mutex, MutexGuard};
pub use std::sync::{Arc, LockResult, PoisonError, TryLockError, TryLockResult, Weak};

/// Reference counting whose counts samaritan schedules: same API as
/// [`std::sync::Arc`] and [`std::sync::Weak`] (std's own types without
/// `sim`).
///
/// Under `sim` every operation that reads or changes a count is a step
/// (`clone`, `drop`, `strong_count`, `try_unwrap`, `get_mut`, `upgrade`,
/// ...), so which owner frees the value is explored; the decrement that
/// frees is ordered after every other owner's accesses (a value whose
/// `Drop` touches an [`UnsafeCell`](cell::UnsafeCell) is no false data
/// race); and an `Arc` made in an execution and still alive when every
/// thread has finished (a reference cycle, `mem::forget`) fails the
/// execution with a leak verdict naming where it was made. An `Arc` made
/// outside the execution (captured by the test's closure) is not tracked.
///
/// What does not map: an `Arc<dyn Trait>` cannot be made (std's coercion
/// needs the unstable `CoerceUnsized`; use `Arc<Box<dyn Trait>>`), nor
/// passed where std's `Arc` is required (`std::task::Wake`, `self:
/// Arc<Self>` receivers); `make_mut` clones a value that only `Weak`s
/// share where std moves it; the steps of a drop are reported at the
/// allocation's creation site (drop glue passes on no caller).
///
/// Clones and drops that free nothing commute for partial-order
/// reduction (DPOR and cb-por add steps but few executions), but every one
/// is a scheduling point, so the searches without reduction (DFS, ICB, the
/// randomized ones) explore many more schedules: that is why
/// [`sync::Arc`](Arc) stays std's for now.
///
/// Outside an exploration it behaves as std's (`tests/arc.rs` explores it):
///
/// ```
/// # // Read as `samaritan::sync`, which re-exports this crate.
/// # extern crate samaritan_sync as sync;
/// use sync::counted::{Arc, Weak};
///
/// let a = Arc::new(5);
/// let weak: Weak<i32> = Arc::downgrade(&a);
/// assert_eq!((Arc::strong_count(&a), Arc::weak_count(&a)), (1, 1));
/// assert_eq!(Arc::try_unwrap(a), Ok(5));
/// assert!(weak.upgrade().is_none());
/// ```
pub mod counted {
    pub use crate::backend::{Arc, Weak};
}

pub mod cell;

mod asynch;
pub use asynch::{broadcast, mpsc as async_mpsc, oneshot, watch};
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
