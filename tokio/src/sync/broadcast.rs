//! tokio's `broadcast` channel on samaritan's.
//!
//! Same API as [`tokio::sync::broadcast`] for `channel`,
//! `Sender::{send, subscribe, receiver_count, len, is_empty}` (and
//! `Clone`) and `Receiver::{recv, try_recv, blocking_recv, resubscribe,
//! len, is_empty}`,
//! with tokio's error types and semantics: the capacity is rounded up to
//! a power of two, a send with no receiver fails, a receiver that falls
//! more than the capacity behind gets `Lagged(n)` (n: the messages it
//! missed) and goes on from the oldest one kept, and `Closed` comes once
//! every sender is gone and the receiver has taken every message.
//! Weak senders and `Sender::closed` are not mapped.

use std::fmt;
use std::future::Future;

use samaritan::sync::broadcast as chan;

/// tokio's error types.
pub mod error {
    pub use tokio::sync::broadcast::error::{RecvError, SendError, TryRecvError};
}

use error::{RecvError, SendError, TryRecvError};

/// Creates a channel that keeps the last `capacity` messages (rounded up
/// to a power of two, as tokio's).
///
/// # Panics
///
/// If `capacity` is 0 or above `usize::MAX / 2`, as tokio's does.
#[track_caller]
pub fn channel<T: Clone>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    assert!(capacity > 0, "broadcast channel capacity cannot be zero");
    assert!(capacity <= usize::MAX >> 1, "broadcast channel capacity exceeded `usize::MAX / 2`");
    let (tx, rx) = chan::channel(capacity.next_power_of_two());
    (Sender(tx), Receiver(rx))
}

/// Sends to every receiver.
pub struct Sender<T>(chan::Sender<T>);

/// Receives every message sent after it subscribed, unless it lags.
pub struct Receiver<T>(chan::Receiver<T>);

impl<T> Sender<T> {
    /// Sends `value` to every receiver and returns how many there are;
    /// gives it back if there is none.
    #[track_caller]
    pub fn send(&self, value: T) -> Result<usize, SendError<T>> {
        self.0.send(value).map_err(|e| SendError(e.0))
    }

    /// Creates a receiver of the messages sent from now on.
    #[track_caller]
    pub fn subscribe(&self) -> Receiver<T> {
        Receiver(self.0.subscribe())
    }

    /// Returns the number of receivers.
    #[track_caller]
    pub fn receiver_count(&self) -> usize {
        self.0.receiver_count()
    }

    /// Returns the number of messages kept.
    #[track_caller]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Returns `true` if no message is kept.
    #[track_caller]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T: Clone> Receiver<T> {
    /// Waits for the next message. Cancel-safe.
    #[track_caller]
    pub fn recv(&mut self) -> impl Future<Output = Result<T, RecvError>> + '_ {
        let recv = self.0.recv();
        async move {
            recv.await.map_err(|e| match e {
                chan::RecvError::Lagged(n) => RecvError::Lagged(n),
                _ => RecvError::Closed,
            })
        }
    }

    /// Waits for the next message from synchronous code.
    ///
    /// Runs the future on samaritan's `block_on` (a simulated thread's own
    /// executor inside an exploration); unlike tokio's, it does not panic
    /// when called from async code, which it would block.
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Result<T, RecvError> {
        samaritan::executor::block_on(self.recv())
    }

    /// Takes the next message if one is waiting now.
    #[track_caller]
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.0.try_recv().map_err(|e| match e {
            chan::TryRecvError::Empty => TryRecvError::Empty,
            chan::TryRecvError::Lagged(n) => TryRecvError::Lagged(n),
            _ => TryRecvError::Closed,
        })
    }
}

impl<T> Receiver<T> {
    /// Creates a receiver of the messages sent from now on.
    #[track_caller]
    pub fn resubscribe(&self) -> Receiver<T> {
        Receiver(self.0.resubscribe())
    }

    /// Returns the number of kept messages this receiver has not taken.
    #[track_caller]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Returns `true` if this receiver has taken every kept message.
    #[track_caller]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T> Clone for Sender<T> {
    #[track_caller]
    fn clone(&self) -> Self {
        Sender(self.0.clone())
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
