//! [`ReceiverStream`] and [`UnboundedReceiverStream`]: samaritan-tokio's
//! `mpsc` receivers as `Stream`s, one item per `poll_recv`.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use samaritan_tokio::sync::mpsc::{Receiver, UnboundedReceiver};

/// Defines the `Stream` wrapper `$name` of the receiver type `$rx`, with
/// tokio-stream's API.
macro_rules! receiver_stream {
    ($(#[$doc:meta])* $name:ident, $rx:ident) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<T> {
            inner: $rx<T>,
        }

        impl<T> $name<T> {
            /// Wraps `recv`.
            pub fn new(recv: $rx<T>) -> Self {
                Self { inner: recv }
            }

            /// Returns the receiver.
            pub fn into_inner(self) -> $rx<T> {
                self.inner
            }

            /// Closes the receiving half: senders fail from now on, and
            /// the messages already queued are still yielded.
            pub fn close(&mut self) {
                self.inner.close();
            }
        }

        impl<T> Stream for $name<T> {
            type Item = T;

            fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
                self.inner.poll_recv(cx)
            }
        }

        impl<T> AsRef<$rx<T>> for $name<T> {
            fn as_ref(&self) -> &$rx<T> {
                &self.inner
            }
        }

        impl<T> AsMut<$rx<T>> for $name<T> {
            fn as_mut(&mut self) -> &mut $rx<T> {
                &mut self.inner
            }
        }

        impl<T> From<$rx<T>> for $name<T> {
            fn from(recv: $rx<T>) -> Self {
                Self::new(recv)
            }
        }
    };
}

receiver_stream!(
    /// A bounded `mpsc::Receiver` as a `Stream`, ending when every sender
    /// is gone and the queue is empty.
    ///
    /// ```
    /// extern crate samaritan_tokio as tokio;
    /// extern crate samaritan_tokio_stream as tokio_stream;
    /// use tokio_stream::{wrappers::ReceiverStream, StreamExt};
    ///
    /// #[tokio::main(flavor = "current_thread")]
    /// async fn main() {
    ///     let (tx, rx) = tokio::sync::mpsc::channel(1);
    ///     tokio::spawn(async move { tx.send("hi").await.unwrap() });
    ///     let mut rx = ReceiverStream::new(rx);
    ///     assert_eq!(rx.next().await, Some("hi"));
    ///     assert_eq!(rx.next().await, None);
    /// }
    /// ```
    ReceiverStream,
    Receiver
);

receiver_stream!(
    /// An `mpsc::UnboundedReceiver` as a `Stream`, ending when every
    /// sender is gone and the queue is empty.
    ///
    /// ```
    /// extern crate samaritan_tokio as tokio;
    /// extern crate samaritan_tokio_stream as tokio_stream;
    /// use tokio_stream::{wrappers::UnboundedReceiverStream, StreamExt};
    ///
    /// #[tokio::main(flavor = "current_thread")]
    /// async fn main() {
    ///     let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    ///     tx.send(1).unwrap();
    ///     drop(tx);
    ///     let all: Vec<i32> = UnboundedReceiverStream::new(rx).collect().await;
    ///     assert_eq!(all, [1]);
    /// }
    /// ```
    UnboundedReceiverStream,
    UnboundedReceiver
);
