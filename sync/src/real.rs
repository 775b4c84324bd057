//! The production backend: std's own types, re-exported at zero cost.

pub use std::sync::{Arc, Weak};
pub use std::sync::{Barrier, BarrierWaitResult, Condvar, WaitTimeoutResult};
pub use std::sync::{LazyLock, Once, OnceLock, OnceState, RwLock, RwLockReadGuard, RwLockWriteGuard};
pub use std::sync::{Mutex, MutexGuard};

pub(crate) mod mpsc {
    pub use std::sync::mpsc::{channel, sync_channel, IntoIter, Iter, Receiver, Sender, SyncSender, TryIter};
}

pub(crate) mod atomic {
    pub use std::sync::atomic::{
        compiler_fence, fence, AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize, AtomicPtr,
        AtomicU16, AtomicU32, AtomicU64, AtomicU8, AtomicUsize,
    };
}
