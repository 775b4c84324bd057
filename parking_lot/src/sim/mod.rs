//! parking_lot's API on samaritan's primitives (the `sim` feature).
//!
//! Invariant: every blocking operation reaches samaritan through one of
//! its primitives (`Mutex`, `RwLock`, `Condvar`, `Once`, `thread::sleep`),
//! so the explorer sees it; each public method that takes a lock or
//! waits is `#[track_caller]`, so traces name the user's line.

#[cfg(feature = "arc_lock")]
mod arc_guard;
mod condvar;
mod mutex;
mod once;
mod reentrant;
mod rwlock;

#[cfg(feature = "arc_lock")]
pub use arc_guard::{ArcMutexGuard, RawMutex};
pub use condvar::{Condvar, WaitTimeoutResult};
pub use mutex::{const_fair_mutex, const_mutex, FairMutex, FairMutexGuard, MappedMutexGuard, Mutex, MutexGuard};
pub use once::{Once, OnceState};
pub use reentrant::{const_reentrant_mutex, ReentrantMutex, ReentrantMutexGuard};
pub use rwlock::{
    const_rwlock, MappedRwLockReadGuard, MappedRwLockWriteGuard, RwLock, RwLockReadGuard, RwLockUpgradableReadGuard,
    RwLockWriteGuard,
};
