//! An async reader-writer lock on a fair [`BatchSemaphore`].
//!
//! The semaphore holds `MAX_READS` permits: a reader takes one, a writer
//! takes all of them. Invariant: a live write guard owns every permit and
//! a live read guard owns one, so writers exclude everyone and readers
//! exclude writers. Because the semaphore serves waiters in FIFO order and
//! hands released permits to the head first, a queued writer collects the
//! permits of departing readers while later readers queue behind it: no
//! writer starves.

use std::cell::UnsafeCell;
use std::fmt;
use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::batch::{self, BatchSemaphore};
use super::mutex::AsyncTryLockError;
use super::vis::{Op, Site, Visible};

const KIND: &str = "AsyncRwLock";

/// Readers that may hold the lock at once.
const MAX_READS: usize = (u32::MAX >> 3) as usize;

/// An async reader-writer lock: many readers or one writer, waiting without blocking the thread.
///
/// Fair: readers and writers get the lock in the order they first polled,
/// so a writer is not starved by a stream of readers. Dropping a pending
/// `read()`/`write()` future leaves the queue and passes on whatever it
/// had been given. There is no poisoning.
pub struct AsyncRwLock<T: ?Sized> {
    sem: BatchSemaphore,
    vis: Visible,
    data: UnsafeCell<T>,
}

/// Shared access to an [`AsyncRwLock`]'s value; releases on drop.
#[must_use = "dropping the guard unlocks the lock at once"]
pub struct AsyncRwLockReadGuard<'a, T: ?Sized> {
    lock: &'a AsyncRwLock<T>,
    /// Where it was locked: names the unlock in a trace.
    site: Site,
}

/// Exclusive access to an [`AsyncRwLock`]'s value; releases on drop.
#[must_use = "dropping the guard unlocks the lock at once"]
pub struct AsyncRwLockWriteGuard<'a, T: ?Sized> {
    lock: &'a AsyncRwLock<T>,
    /// Where it was locked: names the unlock in a trace.
    site: Site,
}

// SAFETY: moving the lock moves the `T`.
unsafe impl<T: ?Sized + Send> Send for AsyncRwLock<T> {}
// SAFETY: readers on several threads share `&T` (needs `Sync`); a writer
// may be on another thread than the creator (needs `Send`).
unsafe impl<T: ?Sized + Send + Sync> Sync for AsyncRwLock<T> {}
// SAFETY: a read guard only gives `&T`.
unsafe impl<T: ?Sized + Send + Sync> Sync for AsyncRwLockReadGuard<'_, T> {}
// SAFETY: sharing a write guard only gives `&T`.
unsafe impl<T: ?Sized + Send + Sync> Sync for AsyncRwLockWriteGuard<'_, T> {}

impl<T> AsyncRwLock<T> {
    /// Creates an unlocked lock holding `value`.
    pub const fn new(value: T) -> Self {
        AsyncRwLock { sem: BatchSemaphore::new(MAX_READS), vis: Visible::new(), data: UnsafeCell::new(value) }
    }

    /// Consumes the lock and returns its value.
    pub fn into_inner(self) -> T {
        self.data.into_inner()
    }
}

impl<T: ?Sized> AsyncRwLock<T> {
    /// Waits for shared access; the returned future is cancel-safe.
    #[track_caller]
    pub fn read(&self) -> Read<'_, T> {
        Read { acquire: self.sem.acquire(1), lock: self, site: Site::here() }
    }

    /// Waits for exclusive access; the returned future is cancel-safe.
    #[track_caller]
    pub fn write(&self) -> Write<'_, T> {
        Write { acquire: self.sem.acquire(MAX_READS), lock: self, site: Site::here() }
    }

    /// Takes shared access if no writer holds or waits for the lock.
    #[track_caller]
    pub fn try_read(&self) -> Result<AsyncRwLockReadGuard<'_, T>, AsyncTryLockError> {
        let site = Site::here();
        self.vis.step(KIND, Op::TryReadLock, site);
        match self.sem.try_acquire(1) {
            Ok(()) => Ok(self.read_guard(site)),
            Err(_) => Err(AsyncTryLockError(())),
        }
    }

    /// Takes exclusive access if nobody holds or waits for the lock.
    #[track_caller]
    pub fn try_write(&self) -> Result<AsyncRwLockWriteGuard<'_, T>, AsyncTryLockError> {
        let site = Site::here();
        self.vis.step(KIND, Op::TryLock, site);
        match self.sem.try_acquire(MAX_READS) {
            Ok(()) => Ok(self.write_guard(site)),
            Err(_) => Err(AsyncTryLockError(())),
        }
    }

    /// Makes the guard of a read lock just taken at `site`.
    fn read_guard(&self, site: Site) -> AsyncRwLockReadGuard<'_, T> {
        self.vis.acquired(KIND);
        AsyncRwLockReadGuard { lock: self, site }
    }

    /// Makes the guard of a write lock just taken at `site`.
    fn write_guard(&self, site: Site) -> AsyncRwLockWriteGuard<'_, T> {
        self.vis.acquired(KIND);
        AsyncRwLockWriteGuard { lock: self, site }
    }

    /// Returns a mutable reference to the value; no locking is needed.
    pub fn get_mut(&mut self) -> &mut T {
        self.data.get_mut()
    }
}

impl<T: Default> Default for AsyncRwLock<T> {
    fn default() -> Self {
        AsyncRwLock::new(T::default())
    }
}

impl<T> From<T> for AsyncRwLock<T> {
    fn from(value: T) -> Self {
        AsyncRwLock::new(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for AsyncRwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("AsyncRwLock");
        match self.try_read() {
            Ok(guard) => d.field("data", &&*guard),
            Err(_) => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

/// Future of [`AsyncRwLock::read`].
#[must_use = "futures do nothing unless polled"]
pub struct Read<'a, T: ?Sized> {
    acquire: batch::Acquire<'a>,
    lock: &'a AsyncRwLock<T>,
    site: Site,
}

/// Future of [`AsyncRwLock::write`].
#[must_use = "futures do nothing unless polled"]
pub struct Write<'a, T: ?Sized> {
    acquire: batch::Acquire<'a>,
    lock: &'a AsyncRwLock<T>,
    site: Site,
}

fn poll_acquire(acquire: &mut batch::Acquire<'_>, cx: &mut Context<'_>) -> Poll<()> {
    match Pin::new(acquire).poll(cx) {
        Poll::Ready(Ok(())) => Poll::Ready(()),
        Poll::Ready(Err(_)) => unreachable!("an async rwlock's semaphore is never closed"),
        Poll::Pending => Poll::Pending,
    }
}

impl<'a, T: ?Sized> Future for Read<'a, T> {
    type Output = AsyncRwLockReadGuard<'a, T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        this.lock.vis.step(KIND, Op::ReadLock, this.site);
        poll_acquire(&mut this.acquire, cx).map(|()| this.lock.read_guard(this.site))
    }
}

impl<'a, T: ?Sized> Future for Write<'a, T> {
    type Output = AsyncRwLockWriteGuard<'a, T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        this.lock.vis.step(KIND, Op::Lock, this.site);
        poll_acquire(&mut this.acquire, cx).map(|()| this.lock.write_guard(this.site))
    }
}

impl<T: ?Sized> fmt::Debug for Read<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Read").finish_non_exhaustive()
    }
}

impl<T: ?Sized> fmt::Debug for Write<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Write").finish_non_exhaustive()
    }
}

impl<T: ?Sized> Deref for AsyncRwLockReadGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: this guard owns a read permit, so no write guard exists
        // (module invariant) and only shared references to `data` are live.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> Drop for AsyncRwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.vis.step(KIND, Op::ReadUnlock, self.site);
        self.lock.vis.released(KIND);
        self.lock.sem.release(1);
    }
}

impl<T: ?Sized> Deref for AsyncRwLockWriteGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: this guard owns every permit (module invariant), so no other guard exists.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T: ?Sized> DerefMut for AsyncRwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, and `&mut self` makes this the only borrow through the guard.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T: ?Sized> Drop for AsyncRwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        self.lock.vis.step(KIND, Op::Unlock, self.site);
        self.lock.vis.released(KIND);
        self.lock.sem.release(MAX_READS);
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for AsyncRwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for AsyncRwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
