//! An async counting semaphore with FIFO-fair wakeups.

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::batch::{self, BatchSemaphore};
use super::vis::{Op, Site, Visible};

const KIND: &str = "Semaphore";

/// An async counting semaphore: [`acquire`](Semaphore::acquire) waits for a
/// permit, dropping the [`SemaphorePermit`] returns it.
///
/// Fair: waiters are served in the order they first polled, and a request
/// for several permits collects them as they are released, so it is not
/// overtaken by smaller later requests. Dropping a pending acquire future
/// removes its waiter and passes on any permits it had been assigned.
#[derive(Debug)]
pub struct Semaphore {
    inner: BatchSemaphore,
    vis: Visible,
}

/// A permit from a [`Semaphore`]; dropping it returns its permits.
#[derive(Debug)]
#[must_use = "dropping a permit releases it at once"]
pub struct SemaphorePermit<'a> {
    sem: &'a Semaphore,
    permits: usize,
    /// Where it was acquired: names the release in a trace.
    site: Site,
}

/// The semaphore was closed while or before acquiring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcquireError(pub(crate) ());

/// Why [`Semaphore::try_acquire`] failed.
///
/// Exhaustive, as tokio's: a `match` on its two variants needs no
/// wildcard arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TryAcquireError {
    /// The semaphore was closed.
    Closed,
    /// Not enough permits are available now.
    NoPermits,
}

impl Semaphore {
    /// The largest number of permits a semaphore can hold.
    pub const MAX_PERMITS: usize = batch::MAX_PERMITS;

    /// Creates a semaphore with `permits` permits.
    ///
    /// # Panics
    ///
    /// If `permits` exceeds [`Semaphore::MAX_PERMITS`].
    pub const fn new(permits: usize) -> Self {
        Semaphore { inner: BatchSemaphore::new(permits), vis: Visible::new() }
    }

    /// Returns the number of permits available now.
    #[track_caller]
    pub fn available_permits(&self) -> usize {
        self.vis.step(KIND, Op::Load, Site::here());
        self.inner.available_permits()
    }

    /// Adds `n` permits, waking queued waiters in order.
    ///
    /// # Panics
    ///
    /// If the total would exceed [`Semaphore::MAX_PERMITS`].
    #[track_caller]
    pub fn add_permits(&self, n: usize) {
        self.vis.step(KIND, Op::Unlock, Site::here());
        self.inner.release(n);
    }

    /// Waits for one permit; fails once the semaphore is closed.
    #[track_caller]
    pub fn acquire(&self) -> Acquire<'_> {
        self.acquire_many(1)
    }

    /// Waits for `n` permits at once; fails once the semaphore is closed.
    #[track_caller]
    pub fn acquire_many(&self, n: u32) -> Acquire<'_> {
        Acquire { inner: self.inner.acquire(n as usize), sem: self, permits: n as usize, site: Site::here() }
    }

    /// Takes one permit if one is available now and nobody is queued.
    #[track_caller]
    pub fn try_acquire(&self) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.try_acquire_many(1)
    }

    /// Takes `n` permits if they are available now and nobody is queued.
    #[track_caller]
    pub fn try_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        let site = Site::here();
        self.vis.step(KIND, Op::TryLock, site);
        self.inner.try_acquire(n as usize)?;
        Ok(SemaphorePermit { sem: self, permits: n as usize, site })
    }

    /// Closes the semaphore: pending and later acquires fail with [`AcquireError`].
    /// Permits already held can still be released.
    #[track_caller]
    pub fn close(&self) {
        self.vis.step(KIND, Op::Close, Site::here());
        self.inner.close();
    }

    /// Returns true once [`close`](Semaphore::close) has been called.
    #[track_caller]
    pub fn is_closed(&self) -> bool {
        self.vis.step(KIND, Op::Load, Site::here());
        self.inner.is_closed()
    }
}

impl SemaphorePermit<'_> {
    /// Returns the number of permits this value holds.
    pub fn num_permits(&self) -> usize {
        self.permits
    }

    /// Drops the permit without returning it: the semaphore shrinks by its count.
    pub fn forget(mut self) {
        self.permits = 0;
    }
}

impl Drop for SemaphorePermit<'_> {
    fn drop(&mut self) {
        if self.permits > 0 {
            self.sem.vis.step(KIND, Op::Unlock, self.site);
        }
        self.sem.inner.release(self.permits);
    }
}

/// Future of [`Semaphore::acquire`]; cancel-safe (see [`Semaphore`]).
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub struct Acquire<'a> {
    inner: batch::Acquire<'a>,
    sem: &'a Semaphore,
    permits: usize,
    site: Site,
}

impl<'a> Future for Acquire<'a> {
    type Output = Result<SemaphorePermit<'a>, AcquireError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        this.sem.vis.step(KIND, Op::Lock, this.site);
        let site = this.site;
        Pin::new(&mut this.inner).poll(cx).map_ok(|()| SemaphorePermit { sem: this.sem, permits: this.permits, site })
    }
}

impl fmt::Display for AcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("semaphore closed")
    }
}

impl Error for AcquireError {}

impl fmt::Display for TryAcquireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TryAcquireError::Closed => "semaphore closed",
            TryAcquireError::NoPermits => "no permits available",
        })
    }
}

impl Error for TryAcquireError {}
