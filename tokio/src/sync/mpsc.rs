//! tokio's `mpsc` channels on samaritan's async channel.
//!
//! Same API as [`tokio::sync::mpsc`] for `channel`, `unbounded_channel`,
//! `Sender::{send, try_send, capacity, is_closed}`,
//! `UnboundedSender::{send, is_closed}` and
//! `Receiver`/`UnboundedReceiver::{recv, poll_recv, try_recv, close, len,
//! is_empty, is_closed}`, `Receiver::{capacity, max_capacity}` and the
//! `blocking_*` forms, `Sender::{reserve, try_reserve, reserve_owned,
//! try_reserve_owned}` with [`Permit`] and [`OwnedPermit`], with tokio's
//! error types. `reserve_many`, `recv_many` and weak senders are not
//! mapped.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use samaritan::sync::async_mpsc as chan;

/// tokio's error types.
pub mod error {
    pub use tokio::sync::mpsc::error::{SendError, TryRecvError, TrySendError};
}

use error::{SendError, TryRecvError, TrySendError};

/// Creates a channel of `buffer` messages at most.
///
/// # Panics
///
/// If `buffer` is 0, as tokio's does.
#[track_caller]
pub fn channel<T>(buffer: usize) -> (Sender<T>, Receiver<T>) {
    assert!(buffer > 0, "mpsc bounded channel requires buffer > 0");
    let (tx, rx) = chan::channel(buffer);
    (Sender(tx), Receiver(rx))
}

/// Creates a channel whose senders never wait.
#[track_caller]
pub fn unbounded_channel<T>() -> (UnboundedSender<T>, UnboundedReceiver<T>) {
    let (tx, rx) = chan::unbounded_channel();
    (UnboundedSender(tx), UnboundedReceiver(rx))
}

/// Sends to a bounded channel.
pub struct Sender<T>(chan::Sender<T>);

/// Sends to an unbounded channel.
pub struct UnboundedSender<T>(chan::UnboundedSender<T>);

/// Receives from a bounded channel.
pub struct Receiver<T>(chan::Receiver<T>);

/// Receives from an unbounded channel.
pub struct UnboundedReceiver<T>(chan::Receiver<T>);

/// `chan`'s try-recv error as tokio's.
fn try_recv_error(e: chan::TryRecvError) -> TryRecvError {
    match e {
        chan::TryRecvError::Empty => TryRecvError::Empty,
        _ => TryRecvError::Disconnected,
    }
}

impl<T> Sender<T> {
    /// Sends `value`, waiting for room; fails if the receiver is gone.
    #[track_caller]
    pub fn send(&self, value: T) -> impl Future<Output = Result<(), SendError<T>>> + '_ {
        let send = self.0.send(value);
        async move { send.await.map_err(|e| SendError(e.0)) }
    }

    /// Sends `value` from synchronous code, waiting for room; fails if the
    /// receiver is gone.
    ///
    /// Runs the future on samaritan's `block_on` (a simulated thread's own
    /// executor inside an exploration); unlike tokio's, it does not panic
    /// when called from async code, which it would block.
    #[track_caller]
    pub fn blocking_send(&self, value: T) -> Result<(), SendError<T>> {
        samaritan::executor::block_on(self.send(value))
    }

    /// Sends `value` if there is room now.
    #[track_caller]
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        self.0.try_send(value).map_err(|e| match e {
            chan::TrySendError::Full(v) => TrySendError::Full(v),
            chan::TrySendError::Closed(v) => TrySendError::Closed(v),
        })
    }

    /// Returns the room left now.
    #[track_caller]
    pub fn capacity(&self) -> usize {
        self.0.capacity()
    }

    /// Returns `true` once the receiver is gone or closed.
    #[track_caller]
    pub fn is_closed(&self) -> bool {
        self.0.is_closed()
    }

    /// Waits for room and reserves one slot for a message to come; fails
    /// if the receiver is gone.
    #[track_caller]
    pub fn reserve(&self) -> impl Future<Output = Result<Permit<'_, T>, SendError<()>>> + '_ {
        let reserve = self.0.reserve();
        async move { reserve.await.map(Permit).map_err(|_| SendError(())) }
    }

    /// Reserves one slot if there is room now.
    #[track_caller]
    pub fn try_reserve(&self) -> Result<Permit<'_, T>, TrySendError<()>> {
        self.0.try_reserve().map(Permit).map_err(|e| match e {
            chan::TrySendError::Full(()) => TrySendError::Full(()),
            chan::TrySendError::Closed(()) => TrySendError::Closed(()),
        })
    }

    /// [`Sender::reserve`], owning the sender, which the permit gives back.
    ///
    /// The future is a named type, [`ReserveOwned`], which a wrapper can
    /// keep in a field (tokio-util's `PollSender` does).
    #[track_caller]
    pub fn reserve_owned(self) -> ReserveOwned<T> {
        ReserveOwned(self.0.reserve_owned())
    }

    /// [`Sender::try_reserve`], owning the sender; the error gives it back.
    #[track_caller]
    pub fn try_reserve_owned(self) -> Result<OwnedPermit<T>, TrySendError<Self>> {
        self.0.try_reserve_owned().map(OwnedPermit).map_err(|e| match e {
            chan::TrySendError::Full(tx) => TrySendError::Full(Sender(tx)),
            chan::TrySendError::Closed(tx) => TrySendError::Closed(Sender(tx)),
        })
    }
}

/// The future of [`Sender::reserve_owned`]: resolves to an [`OwnedPermit`],
/// or to `SendError(())` once the receiver is gone. Cancel-safe: dropped
/// while it waits, it leaves the senders' queue.
#[must_use = "futures do nothing unless awaited"]
pub struct ReserveOwned<T>(chan::ReserveOwned<T>);

impl<T> Future for ReserveOwned<T> {
    type Output = Result<OwnedPermit<T>, SendError<()>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // samaritan's future holds no self-reference: it is `Unpin`.
        Pin::new(&mut self.0).poll(cx).map(|r| r.map(OwnedPermit).map_err(|_| SendError(())))
    }
}

impl<T> fmt::Debug for ReserveOwned<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// One reserved slot of a bounded channel; same API as tokio's `Permit`
/// (`send`; dropping it gives the slot back).
pub struct Permit<'a, T>(chan::Permit<'a, T>);

/// One reserved slot, owning its sender; same API as tokio's
/// `OwnedPermit` (`send` and `release` give the sender back).
pub struct OwnedPermit<T>(chan::OwnedPermit<T>);

impl<T> Permit<'_, T> {
    /// Queues `value` into the reserved slot without waiting.
    pub fn send(self, value: T) {
        self.0.send(value)
    }
}

impl<T> OwnedPermit<T> {
    /// Queues `value` into the reserved slot without waiting; returns the
    /// sender.
    pub fn send(self, value: T) -> Sender<T> {
        Sender(self.0.send(value))
    }

    /// Gives the slot back unused; returns the sender.
    pub fn release(self) -> Sender<T> {
        Sender(self.0.release())
    }
}

// Their `Debug` is samaritan's permits' (the same names, no bound on `T`).
impl<T> fmt::Debug for Permit<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<T> fmt::Debug for OwnedPermit<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<T> UnboundedSender<T> {
    /// Sends `value`; fails if the receiver is gone.
    #[track_caller]
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        self.0.send(value).map_err(|e| SendError(e.0))
    }

    /// Returns `true` once the receiver is gone or closed.
    #[track_caller]
    pub fn is_closed(&self) -> bool {
        self.0.is_closed()
    }
}

/// The receiving half's methods, the same for both kinds of channel.
macro_rules! receiver {
    ($name:ident) => {
        impl<T> $name<T> {
            /// Waits for the next message; `None` once every sender is gone
            /// (or the receiver closed) and the channel is drained.
            #[track_caller]
            pub fn recv(&mut self) -> impl Future<Output = Option<T>> + '_ {
                self.0.recv()
            }

            /// Waits for the next message from synchronous code.
            ///
            /// Runs the future on samaritan's `block_on` (a simulated
            /// thread's own executor inside an exploration); unlike
            /// tokio's, it does not panic when called from async code,
            /// which it would block.
            #[track_caller]
            pub fn blocking_recv(&mut self) -> Option<T> {
                samaritan::executor::block_on(self.0.recv())
            }

            /// Polls for the next message.
            #[track_caller]
            pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
                self.0.poll_recv(cx)
            }

            /// Takes the next message if one is queued.
            #[track_caller]
            pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
                self.0.try_recv().map_err(try_recv_error)
            }

            /// Refuses further messages; queued ones can still be received.
            #[track_caller]
            pub fn close(&mut self) {
                self.0.close()
            }

            /// Returns the number of messages queued.
            #[track_caller]
            pub fn len(&self) -> usize {
                self.0.len()
            }

            /// Returns true when no message is queued.
            #[track_caller]
            pub fn is_empty(&self) -> bool {
                self.0.is_empty()
            }

            /// Returns true once the receiver was closed or every sender
            /// dropped.
            #[track_caller]
            pub fn is_closed(&self) -> bool {
                self.0.is_closed()
            }
        }

        impl<T> fmt::Debug for $name<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).finish_non_exhaustive()
            }
        }
    };
}

receiver!(Receiver);
receiver!(UnboundedReceiver);

impl<T> Receiver<T> {
    /// Returns the number of messages that can be sent now without
    /// waiting.
    #[track_caller]
    pub fn capacity(&self) -> usize {
        self.0.capacity()
    }

    /// Returns the buffer size the channel was made with.
    pub fn max_capacity(&self) -> usize {
        self.0.max_capacity()
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender(self.0.clone())
    }
}

impl<T> Clone for UnboundedSender<T> {
    fn clone(&self) -> Self {
        UnboundedSender(self.0.clone())
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for UnboundedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnboundedSender").finish_non_exhaustive()
    }
}
