//! [`IntervalStream`]: samaritan-tokio's `time::Interval` as a `Stream`
//! of its ticks.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use samaritan_tokio::time::{Instant, Interval};

/// An `Interval` as a `Stream` that yields the instant of each tick and
/// never ends.
///
/// ```
/// extern crate samaritan_tokio as tokio;
/// extern crate samaritan_tokio_stream as tokio_stream;
/// use std::time::Duration;
/// use tokio_stream::{wrappers::IntervalStream, StreamExt};
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() {
///     let ticks = IntervalStream::new(tokio::time::interval(Duration::from_millis(1)));
///     let ticks: Vec<_> = ticks.take(3).collect().await;
///     assert!(ticks[2] - ticks[0] >= Duration::from_millis(2));
/// }
/// ```
#[derive(Debug)]
pub struct IntervalStream {
    inner: Interval,
}

impl IntervalStream {
    /// Wraps `interval`.
    pub fn new(interval: Interval) -> Self {
        Self { inner: interval }
    }

    /// Returns the interval.
    pub fn into_inner(self) -> Interval {
        self.inner
    }
}

impl Stream for IntervalStream {
    type Item = Instant;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Instant>> {
        self.inner.poll_tick(cx).map(Some)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

impl AsRef<Interval> for IntervalStream {
    fn as_ref(&self) -> &Interval {
        &self.inner
    }
}

impl AsMut<Interval> for IntervalStream {
    fn as_mut(&mut self) -> &mut Interval {
        &mut self.inner
    }
}
