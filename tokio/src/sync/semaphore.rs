//! [`Semaphore`]: samaritan's async semaphore under tokio's names, with
//! tokio's owned permits.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use samaritan::sync::futures::Acquire;

pub use samaritan::sync::{AcquireError, SemaphorePermit, TryAcquireError};

/// An async counting semaphore, fair (FIFO); same API as
/// [`tokio::sync::Semaphore`] for `new`, `const_new`, `MAX_PERMITS`,
/// `available_permits`, `add_permits`, `acquire`, `acquire_many`,
/// `try_acquire`, `try_acquire_many`, their `_owned` forms, `close` and
/// `is_closed`.
pub struct Semaphore(samaritan::sync::Semaphore);

impl Semaphore {
    /// The largest number of permits a semaphore can hold.
    pub const MAX_PERMITS: usize = samaritan::sync::Semaphore::MAX_PERMITS;

    /// Creates a semaphore with `permits` permits.
    pub const fn new(permits: usize) -> Self {
        Semaphore(samaritan::sync::Semaphore::new(permits))
    }

    /// Creates a semaphore with `permits` permits, in a `const` context.
    pub const fn const_new(permits: usize) -> Self {
        Semaphore::new(permits)
    }

    /// Returns the number of permits available now.
    #[track_caller]
    pub fn available_permits(&self) -> usize {
        self.0.available_permits()
    }

    /// Adds `n` permits.
    #[track_caller]
    pub fn add_permits(&self, n: usize) {
        self.0.add_permits(n)
    }

    /// Waits for a permit.
    #[track_caller]
    pub fn acquire(&self) -> Acquire<'_> {
        self.0.acquire()
    }

    /// Waits for `n` permits.
    #[track_caller]
    pub fn acquire_many(&self, n: u32) -> Acquire<'_> {
        self.0.acquire_many(n)
    }

    /// Takes a permit if one is available now.
    #[track_caller]
    pub fn try_acquire(&self) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.0.try_acquire()
    }

    /// Takes `n` permits if they are available now.
    #[track_caller]
    pub fn try_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.0.try_acquire_many(n)
    }

    /// Waits for a permit that keeps the semaphore alive.
    #[track_caller]
    pub fn acquire_owned(self: Arc<Self>) -> AcquireOwned {
        self.acquire_many_owned(1)
    }

    /// Waits for `n` permits that keep the semaphore alive.
    #[track_caller]
    pub fn acquire_many_owned(self: Arc<Self>, n: u32) -> AcquireOwned {
        let acquire = self.0.acquire_many(n);
        // SAFETY: the future borrows the semaphore inside `self`'s
        // allocation, which the `Arc` stored beside it keeps alive and in
        // place (moving the `Arc` moves a pointer, not the semaphore) for
        // as long as the future exists: `AcquireOwned::drop` drops the
        // future before the `Arc`, and the `'static` lifetime never
        // leaves this module.
        let acquire = unsafe { std::mem::transmute::<Acquire<'_>, Acquire<'static>>(acquire) };
        AcquireOwned { acquire: Some(acquire), sem: self }
    }

    /// Takes a permit, if one is available now, that keeps the semaphore alive.
    #[track_caller]
    pub fn try_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        self.try_acquire_many_owned(1)
    }

    /// Takes `n` permits, if available now, that keep the semaphore alive.
    #[track_caller]
    pub fn try_acquire_many_owned(self: Arc<Self>, n: u32) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        let permit = self.0.try_acquire_many(n)?;
        // SAFETY: as in `acquire_many_owned`: the permit borrows the
        // semaphore that the `Arc` stored beside it keeps alive, and
        // `OwnedSemaphorePermit::drop` drops it first.
        let permit = unsafe { std::mem::transmute::<SemaphorePermit<'_>, SemaphorePermit<'static>>(permit) };
        Ok(OwnedSemaphorePermit { permit: Some(permit), sem: self })
    }

    /// Closes the semaphore: pending and later acquires fail.
    #[track_caller]
    pub fn close(&self) {
        self.0.close()
    }

    /// Returns `true` once the semaphore is closed.
    #[track_caller]
    pub fn is_closed(&self) -> bool {
        self.0.is_closed()
    }
}

impl fmt::Debug for Semaphore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The future of [`Semaphore::acquire_owned`] and
/// [`Semaphore::acquire_many_owned`].
#[must_use = "futures do nothing unless awaited"]
pub struct AcquireOwned {
    /// Dropped first, in `drop`, while `sem` keeps the semaphore alive.
    acquire: Option<Acquire<'static>>,
    sem: Arc<Semaphore>,
}

impl Future for AcquireOwned {
    type Output = Result<OwnedSemaphorePermit, AcquireError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let acquire = this.acquire.as_mut().expect("`AcquireOwned` polled after it completed");
        let permit = ready!(Pin::new(acquire).poll(cx));
        this.acquire = None;
        Poll::Ready(permit.map(|permit| OwnedSemaphorePermit { permit: Some(permit), sem: this.sem.clone() }))
    }
}

impl Drop for AcquireOwned {
    fn drop(&mut self) {
        self.acquire = None;
    }
}

impl fmt::Debug for AcquireOwned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AcquireOwned").finish_non_exhaustive()
    }
}

/// Permits that keep their [`Semaphore`] alive; dropping them returns
/// them.
pub struct OwnedSemaphorePermit {
    /// Borrows the semaphore in `sem`; dropped first, in `drop`. `None`
    /// only once dropped or forgotten.
    permit: Option<SemaphorePermit<'static>>,
    sem: Arc<Semaphore>,
}

impl OwnedSemaphorePermit {
    /// Returns the semaphore the permits are from.
    pub fn semaphore(&self) -> &Arc<Semaphore> {
        &self.sem
    }

    /// Returns the number of permits held.
    pub fn num_permits(&self) -> usize {
        self.permit.as_ref().map_or(0, SemaphorePermit::num_permits)
    }

    /// Drops the permits without returning them.
    pub fn forget(mut self) {
        if let Some(permit) = self.permit.take() {
            permit.forget();
        }
    }
}

impl Drop for OwnedSemaphorePermit {
    fn drop(&mut self) {
        // Before `sem`, which a field drops after this body.
        self.permit = None;
    }
}

impl fmt::Debug for OwnedSemaphorePermit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedSemaphorePermit").field("permits", &self.num_permits()).finish()
    }
}
