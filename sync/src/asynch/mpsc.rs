//! Async multi-producer, single-consumer FIFO queues, bounded and unbounded.
//!
//! Named `async_mpsc` so it cannot be mistaken for the blocking
//! [`mpsc`](crate::mpsc). [`channel`] is bounded: [`Sender::send`] waits
//! while `capacity` messages are queued. [`unbounded_channel`] never makes
//! a sender wait. Both return the same [`Receiver`], whose
//! [`recv`](Receiver::recv) returns `None` once every sender is gone (or
//! the receiver was closed) and the queue is drained.
//!
//! Invariants: the queue, the sender count, the free capacity, the
//! waiting senders, `rx_closed` and the receiver's waker live under one
//! std mutex (`chan.rs`), taken once per send and once per receive. A
//! bounded channel's sender holds a slot from before it queues its message
//! until the receiver takes that message, so
//! `queued + held-by-senders + free == capacity`, and blocked senders are
//! served in FIFO order. Closing the receiver fails the waiting senders
//! instead of leaving them hanging.

mod chan;
mod permit;

use std::error::Error;
use std::fmt;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::vis::{Op, Site};
use super::wait_list::Key;
use chan::{Attempt, Chan, Take};
pub use permit::{OwnedPermit, Permit, ReserveOwned};

/// Creates a bounded channel holding at most `capacity` queued messages.
///
/// # Panics
///
/// If `capacity` is 0.
#[track_caller]
pub fn channel<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    assert!(capacity > 0, "a bounded async_mpsc channel needs a capacity above 0");
    let chan = Arc::new(Chan::new(Some(capacity)));
    let site = Site::here();
    (Sender { chan: chan.clone(), site }, Receiver { chan, site })
}

/// Creates a channel whose senders never wait.
#[track_caller]
pub fn unbounded_channel<T>() -> (UnboundedSender<T>, Receiver<T>) {
    let chan = Arc::new(Chan::new(None));
    let site = Site::here();
    (UnboundedSender { chan: chan.clone(), site }, Receiver { chan, site })
}

/// Sends into a bounded channel; see [`channel`]. Cloning adds a sender.
#[derive(Debug)]
pub struct Sender<T> {
    chan: Arc<Chan<T>>,
    /// Where it was made (the channel, or the clone): names its drop in a trace.
    site: Site,
}

/// Sends into an unbounded channel; see [`unbounded_channel`]. Cloning adds a sender.
#[derive(Debug)]
pub struct UnboundedSender<T> {
    chan: Arc<Chan<T>>,
    /// Where it was made (the channel, or the clone): names its drop in a trace.
    site: Site,
}

/// Receives from either kind of channel.
#[derive(Debug)]
pub struct Receiver<T> {
    chan: Arc<Chan<T>>,
    /// Where it was made (the channel, or the clone): names its drop in a trace.
    site: Site,
}

/// The receiver is closed; the message is given back.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SendError<T>(pub T);

/// Why [`Sender::try_send`] failed; the message is given back.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TrySendError<T> {
    /// The channel is full now.
    Full(T),
    /// The receiver is closed.
    Closed(T),
}

/// Why [`Receiver::try_recv`] returned no message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TryRecvError {
    /// No message is queued now.
    Empty,
    /// No message is queued and none can come: every sender is gone or the receiver was closed.
    Disconnected,
}

impl<T> Sender<T> {
    /// Waits for room, then queues `value`; fails once the receiver is closed.
    ///
    /// Cancel-safe as to the queue of waiting senders: dropping the future
    /// leaves the queue and passes on a slot it had been given (the message
    /// itself is dropped with the future).
    #[track_caller]
    pub fn send(&self, value: T) -> impl Future<Output = Result<(), SendError<T>>> + '_ {
        Send { chan: &self.chan, value: Some(value), key: None, site: Site::here() }
    }

    /// Queues `value` if there is room now.
    #[track_caller]
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        self.chan.step(Op::TrySend, Site::here());
        match self.chan.try_push(value, None) {
            Attempt::Sent => Ok(()),
            Attempt::Full(v) => Err(TrySendError::Full(v)),
            Attempt::Closed(v) | Attempt::Wait(_, v) => Err(TrySendError::Closed(v)),
        }
    }

    /// Returns the number of messages that can be sent now without waiting.
    #[track_caller]
    pub fn capacity(&self) -> usize {
        self.chan.step(Op::Load, Site::here());
        self.chan.capacity()
    }

    /// Returns true once the receiver was dropped or closed.
    #[track_caller]
    pub fn is_closed(&self) -> bool {
        self.chan.step(Op::Load, Site::here());
        self.chan.is_closed()
    }
}

impl<T> UnboundedSender<T> {
    /// Queues `value`; fails once the receiver is closed.
    #[track_caller]
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        self.chan.step(Op::Send, Site::here());
        match self.chan.try_push(value, None) {
            Attempt::Sent => Ok(()),
            Attempt::Closed(v) | Attempt::Full(v) | Attempt::Wait(_, v) => Err(SendError(v)),
        }
    }

    /// Returns true once the receiver was dropped or closed.
    #[track_caller]
    pub fn is_closed(&self) -> bool {
        self.chan.step(Op::Load, Site::here());
        self.chan.is_closed()
    }
}

impl<T> Clone for Sender<T> {
    #[track_caller]
    fn clone(&self) -> Self {
        self.chan.add_sender();
        Sender { chan: self.chan.clone(), site: Site::here() }
    }
}

impl<T> Clone for UnboundedSender<T> {
    #[track_caller]
    fn clone(&self) -> Self {
        self.chan.add_sender();
        UnboundedSender { chan: self.chan.clone(), site: Site::here() }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.chan.step(Op::Close, self.site);
        self.chan.drop_sender();
    }
}

impl<T> Drop for UnboundedSender<T> {
    fn drop(&mut self) {
        self.chan.step(Op::Close, self.site);
        self.chan.drop_sender();
    }
}

impl<T> Receiver<T> {
    /// Waits for the next message; `None` once the channel is closed and drained.
    #[track_caller]
    pub fn recv(&mut self) -> impl Future<Output = Option<T>> + '_ {
        let site = Site::here();
        poll_fn(move |cx| self.poll_recv_at(cx, site))
    }

    /// Polls for the next message, storing `cx`'s waker if none is ready.
    #[track_caller]
    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        self.poll_recv_at(cx, Site::here())
    }

    fn poll_recv_at(&mut self, cx: &mut Context<'_>, site: Site) -> Poll<Option<T>> {
        self.chan.step(Op::Recv, site);
        match self.chan.take(Some(cx)) {
            Take::Message(v) => Poll::Ready(Some(v)),
            Take::Disconnected => Poll::Ready(None),
            Take::Empty => Poll::Pending,
        }
    }

    /// Takes the next message if one is queued.
    #[track_caller]
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.chan.step(Op::TryRecv, Site::here());
        match self.chan.take(None) {
            Take::Message(v) => Ok(v),
            Take::Disconnected => Err(TryRecvError::Disconnected),
            Take::Empty => Err(TryRecvError::Empty),
        }
    }

    /// Refuses further messages; those already queued can still be received.
    #[track_caller]
    pub fn close(&mut self) {
        self.chan.step(Op::Close, Site::here());
        self.chan.close(false);
    }

    /// Returns the number of messages queued.
    #[track_caller]
    pub fn len(&self) -> usize {
        self.chan.step(Op::Load, Site::here());
        self.chan.len()
    }

    /// Returns true when no message is queued.
    #[track_caller]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Returns true once no message can arrive any more: the receiver was
    /// closed or every sender dropped (queued messages may remain).
    #[track_caller]
    pub fn is_closed(&self) -> bool {
        self.chan.step(Op::Load, Site::here());
        self.chan.is_finished()
    }

    /// Returns the number of messages that can be sent now without
    /// waiting (0 for an unbounded channel).
    #[track_caller]
    pub fn capacity(&self) -> usize {
        self.chan.step(Op::Load, Site::here());
        self.chan.capacity()
    }

    /// Returns the capacity the channel was made with (0 for an unbounded
    /// channel).
    pub fn max_capacity(&self) -> usize {
        self.chan.max_capacity()
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.chan.step(Op::Close, self.site);
        // The queued messages are dropped after the waiting senders are woken.
        self.chan.close(true);
    }
}

/// The future of [`Sender::send`]: one visible step per poll, then one
/// attempt to queue the message, or to collect the slot it waits for.
///
/// Cancel-safe: dropped while waiting, it leaves the queue of waiting
/// senders and passes on a slot it had been granted.
struct Send<'a, T> {
    chan: &'a Chan<T>,
    /// `None` once sent or given back.
    value: Option<T>,
    /// The sender's place among the waiting ones, once queued.
    key: Option<Key>,
    site: Site,
}

// The message is never pinned: it is only moved in and out whole.
impl<T> Unpin for Send<'_, T> {}

impl<T> Future for Send<'_, T> {
    type Output = Result<(), SendError<T>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        this.chan.step(Op::Send, this.site);
        let value = this.value.take().expect("send future polled after completion");
        let attempt = match this.key.take() {
            None => this.chan.try_push(value, Some(cx)),
            Some(key) => this.chan.poll_waiter(key, value, cx),
        };
        match attempt {
            Attempt::Sent => Poll::Ready(Ok(())),
            Attempt::Closed(v) | Attempt::Full(v) => Poll::Ready(Err(SendError(v))),
            Attempt::Wait(key, v) => {
                this.key = Some(key);
                this.value = Some(v);
                Poll::Pending
            }
        }
    }
}

impl<T> Drop for Send<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.chan.cancel_waiter(key);
        }
    }
}

impl<T> fmt::Debug for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SendError(..)")
    }
}

impl<T> fmt::Display for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("channel closed")
    }
}

impl<T> Error for SendError<T> {}

impl<T> fmt::Debug for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TrySendError::Full(_) => "Full(..)",
            TrySendError::Closed(_) => "Closed(..)",
        })
    }
}

impl<T> fmt::Display for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TrySendError::Full(_) => "channel full",
            TrySendError::Closed(_) => "channel closed",
        })
    }
}

impl<T> Error for TrySendError<T> {}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TryRecvError::Empty => "channel empty",
            TryRecvError::Disconnected => "channel closed",
        })
    }
}

impl Error for TryRecvError {}
