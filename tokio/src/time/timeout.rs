//! [`timeout`]: samaritan's inside an exploration (a deadline that passes
//! only when nothing else can happen first), tokio's outside.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use super::Instant;
use crate::exploring;

/// The error of a [`timeout`] whose deadline passed first; the same
/// message as tokio's `Elapsed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elapsed(());

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("deadline has elapsed")
    }
}

impl std::error::Error for Elapsed {}

impl From<Elapsed> for std::io::Error {
    fn from(e: Elapsed) -> Self {
        std::io::Error::new(std::io::ErrorKind::TimedOut, e)
    }
}

/// Runs `future` with a time limit; same API as [`tokio::time::timeout`].
#[track_caller]
pub fn timeout<F: IntoFuture>(duration: Duration, future: F) -> Timeout<F::IntoFuture> {
    let future = future.into_future();
    if exploring() {
        Timeout { repr: Repr::Sim { inner: samaritan::time::timeout(duration, future) } }
    } else {
        Timeout { repr: Repr::Tokio { inner: tokio::time::timeout(duration, future) } }
    }
}

/// Like [`timeout`], with a deadline; same API as
/// [`tokio::time::timeout_at`].
#[track_caller]
pub fn timeout_at<F: IntoFuture>(deadline: Instant, future: F) -> Timeout<F::IntoFuture> {
    let future = future.into_future();
    if exploring() {
        let duration = deadline.saturating_duration_since(Instant::now());
        Timeout { repr: Repr::Sim { inner: samaritan::time::timeout(duration, future) } }
    } else {
        Timeout { repr: Repr::Tokio { inner: tokio::time::timeout_at(deadline.into(), future) } }
    }
}

pin_project_lite::pin_project! {
    /// The future returned by [`timeout`] and [`timeout_at`]; same API as
    /// [`tokio::time::Timeout`].
    #[must_use = "futures do nothing unless awaited"]
    pub struct Timeout<F> {
        #[pin]
        repr: Repr<F>,
    }
}

pin_project_lite::pin_project! {
    /// Whose timeout it is.
    #[project = ReprProj]
    enum Repr<F> {
        Sim { #[pin] inner: samaritan::time::Timeout<F> },
        Tokio { #[pin] inner: tokio::time::Timeout<F> },
    }
}

impl<F> Timeout<F> {
    /// Returns the wrapped future.
    pub fn get_ref(&self) -> &F {
        match &self.repr {
            Repr::Sim { inner } => inner.get_ref(),
            Repr::Tokio { inner } => inner.get_ref(),
        }
    }

    /// Consumes the timeout, returning the wrapped future.
    pub fn into_inner(self) -> F {
        match self.repr {
            Repr::Sim { inner } => inner.into_inner(),
            Repr::Tokio { inner } => inner.into_inner(),
        }
    }
}

impl<F: Future> Future for Timeout<F> {
    type Output = Result<F::Output, Elapsed>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project().repr.project() {
            ReprProj::Sim { inner } => inner.poll(cx).map(|r| r.map_err(|_| Elapsed(()))),
            ReprProj::Tokio { inner } => inner.poll(cx).map(|r| r.map_err(|_| Elapsed(()))),
        }
    }
}

impl<F> fmt::Debug for Timeout<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timeout").finish_non_exhaustive()
    }
}
