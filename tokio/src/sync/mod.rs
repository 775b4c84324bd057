//! tokio's `sync` module; under `sim`, [`mpsc`], [`oneshot`],
//! [`broadcast`], [`watch`], [`Mutex`], [`RwLock`], [`Notify`] and
//! [`Semaphore`] are samaritan's.
//!
//! These are one implementation for both sides of an exploration:
//! samaritan's async primitives are executor-agnostic (wakers only) and
//! behave like real ones outside an exploration, on a tokio runtime too;
//! inside one every operation is a step the explorer schedules. They keep
//! tokio's names, signatures and error types (tokio's own error types
//! where tokio lets them be made: `mpsc::error::*`,
//! `broadcast::error::*`, `watch::error::SendError`,
//! `oneshot::error::TryRecvError`; this crate's with the same name and
//! message otherwise). The rest of the module (`Barrier`, `OnceCell`,
//! owned `RwLock` guards, ...) is tokio's and not simulated.

pub mod broadcast;
pub mod mpsc;
mod mutex;
pub mod oneshot;
mod rwlock;
mod semaphore;
pub mod watch;

pub use tokio::sync::*;

pub use mutex::{Mutex, MutexGuard, OwnedMutexGuard, TryLockError};
pub use rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};
pub use samaritan::sync::Notify;
pub use semaphore::{AcquireError, OwnedSemaphorePermit, Semaphore, SemaphorePermit, TryAcquireError};

/// The futures the primitives' methods return.
pub mod futures {
    pub use super::mpsc::ReserveOwned;
    pub use super::mutex::LockOwned;
    pub use super::semaphore::AcquireOwned;
    pub use samaritan::sync::futures::{Acquire, Lock, Notified, Read, Write};
}
