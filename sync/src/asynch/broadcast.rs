//! A multi-producer, multi-consumer channel in which every receiver sees
//! every message sent after it subscribed.
//!
//! [`channel`] returns a [`Sender`] and a [`Receiver`]; more receivers come
//! from [`Sender::subscribe`]. The channel keeps the last `capacity`
//! messages: a receiver that falls further behind is told how many it
//! missed ([`RecvError::Lagged`]) and goes on from the oldest message kept.
//!
//! Invariants: the messages kept, numbered `next - queue.len()` to
//! `next - 1`, the sender and receiver counts and the queue of waiting
//! `recv()` futures live under one std mutex. A send appends under it and
//! wakes every waiter after releasing it, so a receiver that found no
//! message and registered its waker cannot miss the next one. Each
//! receiver remembers the number of the next message it takes.

use std::collections::VecDeque;
use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use super::batch::lock;
use super::vis::{Op, Site, Visible};
use super::wait_list::{Key, WaitList};

const KIND: &str = "Broadcast";

/// Creates a channel that keeps the last `capacity` messages.
///
/// # Panics
///
/// If `capacity` is 0.
#[track_caller]
pub fn channel<T: Clone>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    assert!(capacity > 0, "a broadcast channel needs a capacity above 0");
    let state = State { queue: VecDeque::new(), next: 0, capacity, senders: 1, receivers: 1, waiters: WaitList::new() };
    let shared = Arc::new(Shared { state: Mutex::new(state), vis: Visible::new() });
    let site = Site::here();
    (Sender { shared: shared.clone(), site }, Receiver { shared, next: 0, site })
}

#[derive(Debug)]
struct Shared<T> {
    state: Mutex<State<T>>,
    vis: Visible,
}

#[derive(Debug)]
struct State<T> {
    /// The messages kept, oldest first; at most `capacity`.
    queue: VecDeque<T>,
    /// The number the next message sent gets.
    next: u64,
    capacity: usize,
    senders: usize,
    receivers: usize,
    /// Wakers of pending `recv()` futures.
    waiters: WaitList<Option<Waker>>,
}

impl<T> State<T> {
    /// The number of the oldest message kept.
    fn oldest(&self) -> u64 {
        self.next - self.queue.len() as u64
    }

    fn take_wakers(&mut self) -> Vec<Waker> {
        let mut wakers = Vec::new();
        while let Some(key) = self.waiters.pop_front() {
            wakers.extend(self.waiters.get_mut(key).take());
        }
        wakers
    }
}

impl<T> Shared<T> {
    fn step(&self, op: Op, site: Site) {
        self.vis.step(KIND, op, site);
    }
}

/// Sends to every receiver; see [`channel`]. Cloning adds a sender.
#[derive(Debug)]
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
    /// Where it was made: names its drop in a trace.
    site: Site,
}

/// Receives every message sent after it subscribed; see [`channel`].
#[derive(Debug)]
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The number of the next message this receiver takes.
    next: u64,
    /// Where it was made: names its drop in a trace.
    site: Site,
}

/// No receiver is left; the message is given back.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SendError<T>(pub T);

/// Why [`Receiver::recv`] gave no message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecvError {
    /// Every sender is gone and every message kept was received.
    Closed,
    /// The receiver fell behind: this many messages were dropped before it
    /// took them; the next `recv` gives the oldest message kept.
    Lagged(u64),
}

/// Why [`Receiver::try_recv`] gave no message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TryRecvError {
    /// No message is waiting now.
    Empty,
    /// Every sender is gone and every message kept was received.
    Closed,
    /// The receiver fell behind by this many messages (as [`RecvError::Lagged`]).
    Lagged(u64),
}

impl<T> Sender<T> {
    /// Sends `value` to every receiver and returns how many there are;
    /// gives it back if there is none.
    #[track_caller]
    pub fn send(&self, value: T) -> Result<usize, SendError<T>> {
        self.shared.step(Op::Send, Site::here());
        let mut s = lock(&self.shared.state);
        if s.receivers == 0 {
            return Err(SendError(value));
        }
        s.queue.push_back(value);
        s.next += 1;
        let dropped = if s.queue.len() > s.capacity { s.queue.pop_front() } else { None };
        let receivers = s.receivers;
        let wakers = s.take_wakers();
        drop(s);
        drop(dropped);
        wakers.into_iter().for_each(Waker::wake);
        Ok(receivers)
    }

    /// Creates a receiver of the messages sent from now on.
    #[track_caller]
    pub fn subscribe(&self) -> Receiver<T> {
        let site = Site::here();
        self.shared.step(Op::Load, site);
        let mut s = lock(&self.shared.state);
        s.receivers += 1;
        Receiver { shared: self.shared.clone(), next: s.next, site }
    }

    /// Returns the number of receivers.
    #[track_caller]
    pub fn receiver_count(&self) -> usize {
        self.shared.step(Op::Load, Site::here());
        lock(&self.shared.state).receivers
    }

    /// Returns the number of messages kept.
    #[track_caller]
    pub fn len(&self) -> usize {
        self.shared.step(Op::Load, Site::here());
        lock(&self.shared.state).queue.len()
    }

    /// Returns `true` if no message is kept.
    #[track_caller]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Clone for Sender<T> {
    #[track_caller]
    fn clone(&self) -> Self {
        lock(&self.shared.state).senders += 1;
        Sender { shared: self.shared.clone(), site: Site::here() }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.shared.step(Op::Close, self.site);
        let mut s = lock(&self.shared.state);
        s.senders -= 1;
        let wakers = if s.senders == 0 { s.take_wakers() } else { Vec::new() };
        drop(s);
        wakers.into_iter().for_each(Waker::wake);
    }
}

/// What a receiver finds: a message, a gap, the end, or nothing yet.
enum Take<T> {
    Message(T),
    Lagged(u64),
    Closed,
    Empty,
}

/// Takes what a receiver whose next message is numbered `next` finds.
fn take<T: Clone>(next: &mut u64, s: &mut State<T>) -> Take<T> {
    let oldest = s.oldest();
    if *next < oldest {
        let missed = oldest - *next;
        *next = oldest;
        return Take::Lagged(missed);
    }
    if *next < s.next {
        let value = s.queue[(*next - oldest) as usize].clone();
        *next += 1;
        return Take::Message(value);
    }
    if s.senders == 0 {
        Take::Closed
    } else {
        Take::Empty
    }
}

impl<T: Clone> Receiver<T> {
    /// Waits for the next message. Cancel-safe.
    #[track_caller]
    pub fn recv(&mut self) -> impl Future<Output = Result<T, RecvError>> + '_ {
        Recv { rx: self, key: None, site: Site::here() }
    }

    /// Takes the next message if one is waiting now.
    #[track_caller]
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.shared.step(Op::TryRecv, Site::here());
        let mut s = lock(&self.shared.state);
        match take(&mut self.next, &mut s) {
            Take::Message(v) => Ok(v),
            Take::Lagged(n) => Err(TryRecvError::Lagged(n)),
            Take::Closed => Err(TryRecvError::Closed),
            Take::Empty => Err(TryRecvError::Empty),
        }
    }
}

impl<T> Receiver<T> {
    /// Creates a receiver of the messages sent from now on.
    #[track_caller]
    pub fn resubscribe(&self) -> Receiver<T> {
        let site = Site::here();
        self.shared.step(Op::Load, site);
        let mut s = lock(&self.shared.state);
        s.receivers += 1;
        Receiver { shared: self.shared.clone(), next: s.next, site }
    }

    /// Returns the number of kept messages this receiver has not taken.
    #[track_caller]
    pub fn len(&self) -> usize {
        self.shared.step(Op::Load, Site::here());
        let s = lock(&self.shared.state);
        (s.next - self.next.max(s.oldest())) as usize
    }

    /// Returns `true` if this receiver has taken every kept message.
    #[track_caller]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.shared.step(Op::Close, self.site);
        lock(&self.shared.state).receivers -= 1;
    }
}

/// The future of [`Receiver::recv`].
struct Recv<'a, T> {
    rx: &'a mut Receiver<T>,
    key: Option<Key>,
    site: Site,
}

impl<T: Clone> Future for Recv<'_, T> {
    type Output = Result<T, RecvError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        this.rx.shared.step(Op::Recv, this.site);
        let mut s = lock(&this.rx.shared.state);
        let ready = match take(&mut this.rx.next, &mut s) {
            Take::Message(v) => Ok(v),
            Take::Lagged(n) => Err(RecvError::Lagged(n)),
            Take::Closed => Err(RecvError::Closed),
            Take::Empty => {
                s.waiters.register(&mut this.key, cx.waker());
                return Poll::Pending;
            }
        };
        if let Some(key) = this.key.take() {
            s.waiters.remove(key);
        }
        Poll::Ready(ready)
    }
}

impl<T> Drop for Recv<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            lock(&self.rx.shared.state).waiters.remove(key);
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

impl fmt::Display for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecvError::Closed => f.write_str("channel closed"),
            RecvError::Lagged(n) => write!(f, "channel lagged by {n}"),
        }
    }
}

impl Error for RecvError {}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryRecvError::Empty => f.write_str("channel empty"),
            TryRecvError::Closed => f.write_str("channel closed"),
            TryRecvError::Lagged(n) => write!(f, "channel lagged by {n}"),
        }
    }
}

impl Error for TryRecvError {}
