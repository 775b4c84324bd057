//! [`PollSemaphore`]: a semaphore acquired by polling, over
//! samaritan-tokio's [`Semaphore`].
//!
//! Invariant: `pending` holds the one acquire in flight and how many
//! permits it asks for; it is dropped (leaving the semaphore's queue) when
//! a poll asks for another number, when it completes, and with the
//! wrapper. A clone starts with none.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_core::Stream;
use samaritan_tokio::sync::futures::AcquireOwned;
use samaritan_tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};

/// A wrapper around [`Semaphore`] whose permits are taken with
/// `poll_acquire`; same API as tokio-util's `PollSemaphore`.
///
/// ```
/// # extern crate samaritan_tokio as tokio;
/// # extern crate samaritan_tokio_util as tokio_util;
/// use std::future::poll_fn;
/// use std::sync::Arc;
/// use tokio::sync::Semaphore;
/// use tokio_util::sync::PollSemaphore;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let mut sem = PollSemaphore::new(Arc::new(Semaphore::new(3)));
/// let two = poll_fn(|cx| sem.poll_acquire_many(cx, 2)).await.unwrap();
/// assert_eq!((two.num_permits(), sem.available_permits()), (2, 1));
/// sem.close();
/// assert!(poll_fn(|cx| sem.poll_acquire(cx)).await.is_none());
/// # }
/// ```
pub struct PollSemaphore {
    semaphore: Arc<Semaphore>,
    pending: Option<(u32, AcquireOwned)>,
}

impl PollSemaphore {
    /// Wraps `semaphore`.
    pub fn new(semaphore: Arc<Semaphore>) -> Self {
        PollSemaphore { semaphore, pending: None }
    }

    /// Closes the semaphore: pending and later acquires return `None`.
    #[track_caller]
    pub fn close(&self) {
        self.semaphore.close();
    }

    /// Returns a handle to the wrapped semaphore.
    pub fn clone_inner(&self) -> Arc<Semaphore> {
        self.semaphore.clone()
    }

    /// Returns the wrapped semaphore, dropping an acquire in flight.
    pub fn into_inner(self) -> Arc<Semaphore> {
        self.semaphore
    }

    /// Polls for one permit: `Ready(None)` once the semaphore is closed.
    /// Registers `cx`'s waker while none is free; only the waker of the
    /// last poll is woken.
    #[track_caller]
    pub fn poll_acquire(&mut self, cx: &mut Context<'_>) -> Poll<Option<OwnedSemaphorePermit>> {
        self.poll_acquire_many(cx, 1)
    }

    /// Polls for `permits` permits at once, as [`PollSemaphore::poll_acquire`];
    /// a poll that asks for another number than the acquire in flight
    /// gives that one up and starts over.
    #[track_caller]
    pub fn poll_acquire_many(&mut self, cx: &mut Context<'_>, permits: u32) -> Poll<Option<OwnedSemaphorePermit>> {
        if self.pending.as_ref().is_some_and(|(n, _)| *n != permits) {
            self.pending = None;
        }
        let acquire = match &mut self.pending {
            Some((_, acquire)) => acquire,
            None => match self.semaphore.clone().try_acquire_many_owned(permits) {
                Ok(permit) => return Poll::Ready(Some(permit)),
                Err(TryAcquireError::Closed) => return Poll::Ready(None),
                Err(TryAcquireError::NoPermits) => {
                    let acquire = self.semaphore.clone().acquire_many_owned(permits);
                    &mut self.pending.insert((permits, acquire)).1
                }
            },
        };
        match Pin::new(acquire).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(result) => {
                self.pending = None;
                Poll::Ready(result.ok())
            }
        }
    }

    /// Returns the number of permits available now.
    #[track_caller]
    pub fn available_permits(&self) -> usize {
        self.semaphore.available_permits()
    }

    /// Adds `n` permits to the semaphore.
    #[track_caller]
    pub fn add_permits(&self, n: usize) {
        self.semaphore.add_permits(n);
    }
}

impl Stream for PollSemaphore {
    type Item = OwnedSemaphorePermit;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::into_inner(self).poll_acquire(cx)
    }
}

impl Clone for PollSemaphore {
    fn clone(&self) -> Self {
        PollSemaphore::new(self.clone_inner())
    }
}

impl fmt::Debug for PollSemaphore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PollSemaphore").field("semaphore", &self.semaphore).finish()
    }
}

impl AsRef<Semaphore> for PollSemaphore {
    fn as_ref(&self) -> &Semaphore {
        &self.semaphore
    }
}
