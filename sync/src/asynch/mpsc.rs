//! Async multi-producer, single-consumer FIFO queues, bounded and unbounded.
//!
//! Named `async_mpsc` so it cannot be mistaken for the blocking
//! [`mpsc`](crate::mpsc). [`channel`] is bounded: [`Sender::send`] waits
//! while `capacity` messages are queued. [`unbounded_channel`] never makes
//! a sender wait. Both return the same [`Receiver`], whose
//! [`recv`](Receiver::recv) returns `None` once every sender is gone (or
//! the receiver was closed) and the queue is drained.
//!
//! Invariants: the queue, the sender count, `rx_closed` and the receiver's
//! waker live under one std mutex. A bounded channel's capacity is a fair
//! semaphore (`batch`): a sender holds a permit from before it queues its
//! message until the receiver takes that message, so
//! `queued + held-by-senders + available == capacity`, and blocked senders
//! are served in FIFO order. Closing the receiver closes the semaphore, so
//! waiting senders fail instead of hanging.

use std::collections::VecDeque;
use std::error::Error;
use std::fmt;
use std::future::{poll_fn, Future};
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use super::batch::{lock, BatchSemaphore};
use super::semaphore::TryAcquireError;
use super::vis::{Op, Site, Visible};

const KIND: &str = "AsyncChannel";

/// Creates a bounded channel holding at most `capacity` queued messages.
///
/// # Panics
///
/// If `capacity` is 0.
#[track_caller]
pub fn channel<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    assert!(capacity > 0, "a bounded async_mpsc channel needs a capacity above 0");
    let chan = Chan::new(Some(BatchSemaphore::new(capacity)));
    let site = Site::here();
    (Sender { chan: chan.clone(), site }, Receiver { chan, site })
}

/// Creates a channel whose senders never wait.
#[track_caller]
pub fn unbounded_channel<T>() -> (UnboundedSender<T>, Receiver<T>) {
    let chan = Chan::new(None);
    let site = Site::here();
    (UnboundedSender { chan: chan.clone(), site }, Receiver { chan, site })
}

#[derive(Debug)]
struct Chan<T> {
    state: Mutex<State<T>>,
    /// The free capacity of a bounded channel; `None` when unbounded.
    sem: Option<BatchSemaphore>,
    vis: Visible,
}

#[derive(Debug)]
struct State<T> {
    queue: VecDeque<T>,
    senders: usize,
    rx_closed: bool,
    rx_waker: Option<Waker>,
}

impl<T> Chan<T> {
    fn new(sem: Option<BatchSemaphore>) -> Arc<Self> {
        let state = State { queue: VecDeque::new(), senders: 1, rx_closed: false, rx_waker: None };
        Arc::new(Chan { state: Mutex::new(state), sem, vis: Visible::new() })
    }

    /// Queues `value`; the caller holds a permit when bounded (given back here on failure).
    fn push(&self, value: T) -> Result<(), SendError<T>> {
        let mut s = lock(&self.state);
        if s.rx_closed {
            drop(s);
            if let Some(sem) = &self.sem {
                sem.release(1);
            }
            return Err(SendError(value));
        }
        s.queue.push_back(value);
        let waker = s.rx_waker.take();
        drop(s);
        if let Some(w) = waker {
            w.wake();
        }
        Ok(())
    }

    fn step(&self, op: Op, site: Site) {
        self.vis.step(KIND, op, site);
    }

    fn add_sender(self: &Arc<Self>) -> Arc<Self> {
        lock(&self.state).senders += 1;
        self.clone()
    }

    fn drop_sender(&self) {
        let mut s = lock(&self.state);
        s.senders -= 1;
        let waker = if s.senders == 0 { s.rx_waker.take() } else { None };
        drop(s);
        if let Some(w) = waker {
            w.wake();
        }
    }

    fn is_closed(&self) -> bool {
        lock(&self.state).rx_closed
    }
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
        let site = Site::here();
        async move {
            let sem = self.chan.sem.as_ref().expect("a bounded channel has a semaphore");
            let mut acquire = pin!(sem.acquire(1));
            // One step per attempt: waiting for room, then queueing at once.
            let room = poll_fn(|cx| {
                self.chan.step(Op::Send, site);
                acquire.as_mut().poll(cx)
            });
            if room.await.is_err() {
                return Err(SendError(value));
            }
            self.chan.push(value)
        }
    }

    /// Queues `value` if there is room now.
    #[track_caller]
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        self.chan.step(Op::TrySend, Site::here());
        let sem = self.chan.sem.as_ref().expect("a bounded channel has a semaphore");
        match sem.try_acquire(1) {
            Ok(()) => self.chan.push(value).map_err(|SendError(v)| TrySendError::Closed(v)),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(value)),
            Err(_) => Err(TrySendError::Closed(value)),
        }
    }

    /// Returns the number of messages that can be sent now without waiting.
    #[track_caller]
    pub fn capacity(&self) -> usize {
        self.chan.step(Op::Load, Site::here());
        self.chan.sem.as_ref().map_or(0, BatchSemaphore::available_permits)
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
        self.chan.push(value)
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
        Sender { chan: self.chan.add_sender(), site: Site::here() }
    }
}

impl<T> Clone for UnboundedSender<T> {
    #[track_caller]
    fn clone(&self) -> Self {
        UnboundedSender { chan: self.chan.add_sender(), site: Site::here() }
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
        match self.take(Some(cx)) {
            Ok(v) => Poll::Ready(Some(v)),
            Err(TryRecvError::Disconnected) => Poll::Ready(None),
            Err(TryRecvError::Empty) => Poll::Pending,
        }
    }

    /// Takes the next message if one is queued.
    #[track_caller]
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.chan.step(Op::TryRecv, Site::here());
        self.take(None)
    }

    /// Refuses further messages; those already queued can still be received.
    #[track_caller]
    pub fn close(&mut self) {
        self.chan.step(Op::Close, Site::here());
        self.close_now();
    }

    fn close_now(&mut self) {
        lock(&self.chan.state).rx_closed = true;
        if let Some(sem) = &self.chan.sem {
            sem.close();
        }
    }

    /// Pops a message (then frees its slot, outside the lock) or, when empty and given `cx`, stores its waker.
    fn take(&self, cx: Option<&mut Context<'_>>) -> Result<T, TryRecvError> {
        let mut s = lock(&self.chan.state);
        match s.queue.pop_front() {
            Some(v) => {
                drop(s);
                if let Some(sem) = &self.chan.sem {
                    sem.release(1);
                }
                Ok(v)
            }
            None if s.senders == 0 || s.rx_closed => Err(TryRecvError::Disconnected),
            None => {
                if let Some(cx) = cx {
                    s.rx_waker = Some(cx.waker().clone());
                }
                Err(TryRecvError::Empty)
            }
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.chan.step(Op::Close, self.site);
        self.close_now();
        let queued = std::mem::take(&mut lock(&self.chan.state).queue);
        drop(queued);
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
