//! An async mutex: a one-permit [`BatchSemaphore`] guarding an `UnsafeCell`.
//!
//! Invariant: a live [`AsyncMutexGuard`] owns the semaphore's only permit,
//! so at most one guard exists per mutex and it alone touches `data`.

use std::cell::UnsafeCell;
use std::error::Error;
use std::fmt;
use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::batch::{self, BatchSemaphore};
use super::vis::{Op, Site, Visible};

const KIND: &str = "AsyncMutex";

/// An async mutual-exclusion lock: [`lock`](AsyncMutex::lock) waits without blocking the thread.
///
/// Fair: tasks get the lock in the order they first polled `lock()`.
/// Dropping a pending `lock()` future leaves the queue and passes the lock
/// on if it had just been handed to it. There is no poisoning. The guard
/// may be held across `.await`; for short critical sections that never
/// await, the blocking [`Mutex`](crate::Mutex) is cheaper.
pub struct AsyncMutex<T: ?Sized> {
    sem: BatchSemaphore,
    vis: Visible,
    data: UnsafeCell<T>,
}

/// Exclusive access to an [`AsyncMutex`]'s value; unlocks on drop.
#[must_use = "dropping the guard unlocks the mutex at once"]
pub struct AsyncMutexGuard<'a, T: ?Sized> {
    lock: &'a AsyncMutex<T>,
    /// Where it was locked: names the unlock in a trace.
    site: Site,
}

/// [`AsyncMutex::try_lock`] found the lock held (or waited for).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsyncTryLockError(pub(crate) ());

// SAFETY: the mutex hands out access to `T` to one guard at a time, so it
// may be shared across threads whenever `T` may be sent between them.
unsafe impl<T: ?Sized + Send> Send for AsyncMutex<T> {}
// SAFETY: as above; `&AsyncMutex<T>` only gives `&mut T` through the single guard.
unsafe impl<T: ?Sized + Send> Sync for AsyncMutex<T> {}
// SAFETY: sharing a guard shares `&T`, which needs `T: Sync`; the guard
// itself is `Send` through its `&AsyncMutex<T>` (needs `T: Send`).
unsafe impl<T: ?Sized + Send + Sync> Sync for AsyncMutexGuard<'_, T> {}

impl<T> AsyncMutex<T> {
    /// Creates an unlocked mutex holding `value`.
    pub const fn new(value: T) -> Self {
        AsyncMutex { sem: BatchSemaphore::new(1), vis: Visible::new(), data: UnsafeCell::new(value) }
    }

    /// Consumes the mutex and returns its value.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T: ?Sized> AsyncMutex<T> {
    /// Waits for the lock; the returned future is cancel-safe.
    #[track_caller]
    pub fn lock(&self) -> Lock<'_, T> {
        Lock { acquire: self.sem.acquire(1), mutex: self, site: Site::here() }
    }

    /// Takes the lock if it is free and nobody is waiting for it.
    #[track_caller]
    pub fn try_lock(&self) -> Result<AsyncMutexGuard<'_, T>, AsyncTryLockError> {
        let site = Site::here();
        self.vis.step(KIND, Op::TryLock, site);
        match self.sem.try_acquire(1) {
            Ok(()) => Ok(self.guard(site)),
            Err(_) => Err(AsyncTryLockError(())),
        }
    }

    /// Makes the guard of a lock just taken at `site`.
    fn guard(&self, site: Site) -> AsyncMutexGuard<'_, T> {
        self.vis.acquired(KIND);
        AsyncMutexGuard { lock: self, site }
    }

    /// Returns a mutable reference to the value; no locking is needed.
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }
}

impl<T: Default> Default for AsyncMutex<T> {
    fn default() -> Self {
        AsyncMutex::new(T::default())
    }
}

impl<T> From<T> for AsyncMutex<T> {
    fn from(value: T) -> Self {
        AsyncMutex::new(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for AsyncMutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("AsyncMutex");
        match self.try_lock() {
            Ok(guard) => d.field("data", &&*guard),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

/// Future of [`AsyncMutex::lock`].
#[must_use = "futures do nothing unless polled"]
pub struct Lock<'a, T: ?Sized> {
    acquire: batch::Acquire<'a>,
    mutex: &'a AsyncMutex<T>,
    site: Site,
}

impl<'a, T: ?Sized> Future for Lock<'a, T> {
    type Output = AsyncMutexGuard<'a, T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        this.mutex.vis.step(KIND, Op::Lock, this.site);
        match Pin::new(&mut this.acquire).poll(cx) {
            Poll::Ready(Ok(())) => Poll::Ready(this.mutex.guard(this.site)),
            Poll::Ready(Err(_)) => unreachable!("an async mutex's semaphore is never closed"),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: ?Sized> fmt::Debug for Lock<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lock").finish_non_exhaustive()
    }
}

impl<T: ?Sized> Deref for AsyncMutexGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: this guard owns the mutex's only permit (module invariant),
        // so no other reference to `data` exists while it lives.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> DerefMut for AsyncMutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, and `&mut self` makes this the only borrow through the guard.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T: ?Sized> Drop for AsyncMutexGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.vis.step(KIND, Op::Unlock, self.site);
        self.lock.vis.released(KIND);
        self.lock.sem.release(1);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for AsyncMutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for AsyncMutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl fmt::Display for AsyncTryLockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("lock is held or waited for")
    }
}

impl Error for AsyncTryLockError {}
