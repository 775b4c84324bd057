//! The simulated backend: the same names as the production backend (`real.rs`), modelled.

mod arc;
pub(crate) mod atomic;
mod barrier;
mod condvar;
mod guard;
mod lazy_lock;
pub(crate) mod mpsc;
mod mutex;
mod once;
mod once_lock;
mod pristine;
mod rwlock;

pub use arc::{Arc, Weak};
pub use barrier::{Barrier, BarrierWaitResult};
pub use condvar::{Condvar, WaitTimeoutResult};
pub use lazy_lock::LazyLock;
pub use mutex::{Mutex, MutexGuard};
pub use once::{Once, OnceState};
pub use once_lock::OnceLock;
pub use rwlock::{RwLock, RwLockReadGuard, RwLockWriteGuard};
