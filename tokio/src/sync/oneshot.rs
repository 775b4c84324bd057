//! tokio's `oneshot` channel on samaritan's.
//!
//! Same API as [`tokio::sync::oneshot`] for `channel`,
//! `Sender::{send, is_closed, closed}` and `Receiver` (a future;
//! `try_recv`, `close`, `blocking_recv`).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use samaritan::sync::oneshot as chan;

/// The errors of the channel: tokio's `TryRecvError`, and a `RecvError`
/// of this crate's with tokio's message (tokio's cannot be made outside
/// tokio).
pub mod error {
    use std::fmt;

    pub use tokio::sync::oneshot::error::TryRecvError;

    /// The sender was dropped without sending.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct RecvError(pub(super) ());

    impl fmt::Display for RecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("channel closed")
        }
    }

    impl std::error::Error for RecvError {}
}

use error::{RecvError, TryRecvError};

/// Creates a one-value channel.
#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = chan::channel();
    (Sender(tx), Receiver(rx))
}

/// Sends the channel's value.
pub struct Sender<T>(chan::Sender<T>);

/// Receives the channel's value: a future of it.
pub struct Receiver<T>(chan::Receiver<T>);

impl<T> Sender<T> {
    /// Sends `value`; gives it back if the receiver is gone.
    #[track_caller]
    pub fn send(self, value: T) -> Result<(), T> {
        self.0.send(value)
    }

    /// Returns `true` once the receiver is gone or closed.
    #[track_caller]
    pub fn is_closed(&self) -> bool {
        self.0.is_closed()
    }

    /// Waits until the receiver is gone or closed.
    #[track_caller]
    pub fn closed(&mut self) -> impl Future<Output = ()> + '_ {
        self.0.closed()
    }
}

impl<T> Receiver<T> {
    /// Takes the value if it was sent.
    #[track_caller]
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.0.try_recv().map_err(|e| match e {
            chan::TryRecvError::Empty => TryRecvError::Empty,
            _ => TryRecvError::Closed,
        })
    }

    /// Waits for the value from synchronous code.
    ///
    /// Runs the future on samaritan's `block_on` (a simulated thread's own
    /// executor inside an exploration); unlike tokio's, it does not panic
    /// when called from async code, which it would block.
    #[track_caller]
    pub fn blocking_recv(self) -> Result<T, RecvError> {
        samaritan::executor::block_on(self)
    }

    /// Refuses the value; a value already sent can still be taken.
    #[track_caller]
    pub fn close(&mut self) {
        self.0.close()
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, RecvError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx).map_err(|_| RecvError(()))
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}
