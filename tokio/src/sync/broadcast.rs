//! tokio's `broadcast` channel, built on samaritan's `Mutex` (a step
//! inside an exploration, std's outside) and wakers.
//!
//! Same API as [`tokio::sync::broadcast`] for `channel`,
//! `Sender::{send, subscribe, receiver_count, len, is_empty}` (and
//! `Clone`) and `Receiver::{recv, try_recv, resubscribe, len, is_empty}`,
//! with tokio's error types and its semantics: the capacity is rounded up
//! to a power of two, a send with no receiver fails, a receiver that
//! falls more than the capacity behind gets `Lagged(n)` (n: the messages
//! it missed) and goes on from the oldest one kept, and `Closed` comes
//! once every sender is gone and the receiver has seen every message.

use std::collections::VecDeque;
use std::fmt;
use std::future::{poll_fn, Future};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use samaritan::sync::{Mutex, MutexGuard};

/// tokio's error types.
pub mod error {
    pub use tokio::sync::broadcast::error::{RecvError, SendError, TryRecvError};
}

use error::{RecvError, SendError, TryRecvError};

/// Creates a channel that keeps the last `capacity` messages (rounded up
/// to a power of two).
///
/// # Panics
///
/// If `capacity` is 0 or above `usize::MAX / 2`, as tokio's does.
#[track_caller]
pub fn channel<T: Clone>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    assert!(capacity > 0, "broadcast channel capacity cannot be zero");
    assert!(capacity <= usize::MAX >> 1, "broadcast channel capacity exceeded `usize::MAX / 2`");
    let state = State {
        queue: VecDeque::new(),
        next: 0,
        capacity: capacity.next_power_of_two(),
        senders: 1,
        receivers: 1,
        wakers: Vec::new(),
    };
    let shared = Arc::new(Shared { state: Mutex::new(state) });
    (Sender { shared: shared.clone() }, Receiver { shared, next: 0 })
}

struct Shared<T> {
    state: Mutex<State<T>>,
}

/// The channel's state.
///
/// Invariant: `queue` holds the messages numbered `next - queue.len()` to
/// `next - 1`, at most `capacity` of them.
struct State<T> {
    queue: VecDeque<T>,
    /// The number the next message sent gets.
    next: u64,
    capacity: usize,
    senders: usize,
    receivers: usize,
    /// Receivers waiting for a message (or for the last sender to go).
    wakers: Vec<Waker>,
}

impl<T> State<T> {
    /// The number of the oldest message kept.
    fn oldest(&self) -> u64 {
        self.next - self.queue.len() as u64
    }
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Sends to every receiver.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// Receives every message sent after it subscribed, unless it lags.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The number of the next message this receiver takes.
    next: u64,
}

impl<T> Sender<T> {
    /// Sends `value` to every receiver and returns how many there are;
    /// gives it back if there is none.
    pub fn send(&self, value: T) -> Result<usize, SendError<T>> {
        let mut s = self.shared.lock();
        if s.receivers == 0 {
            return Err(SendError(value));
        }
        s.queue.push_back(value);
        s.next += 1;
        if s.queue.len() > s.capacity {
            s.queue.pop_front();
        }
        let receivers = s.receivers;
        let wakers = std::mem::take(&mut s.wakers);
        drop(s);
        wakers.into_iter().for_each(Waker::wake);
        Ok(receivers)
    }

    /// Creates a receiver of the messages sent from now on.
    pub fn subscribe(&self) -> Receiver<T> {
        let mut s = self.shared.lock();
        s.receivers += 1;
        Receiver { shared: self.shared.clone(), next: s.next }
    }

    /// Returns the number of receivers.
    pub fn receiver_count(&self) -> usize {
        self.shared.lock().receivers
    }

    /// Returns the number of messages kept that some receiver may not have
    /// seen (those in the buffer).
    pub fn len(&self) -> usize {
        self.shared.lock().queue.len()
    }

    /// Returns `true` if the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: Clone> Receiver<T> {
    /// Waits for the next message.
    pub fn recv(&mut self) -> impl Future<Output = Result<T, RecvError>> + '_ {
        poll_fn(|cx| self.poll_recv(Some(cx)))
    }

    /// Takes the next message if there is one now.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        match self.poll_recv(None) {
            Poll::Ready(Ok(v)) => Ok(v),
            Poll::Ready(Err(RecvError::Lagged(n))) => Err(TryRecvError::Lagged(n)),
            Poll::Ready(Err(RecvError::Closed)) => Err(TryRecvError::Closed),
            Poll::Pending => Err(TryRecvError::Empty),
        }
    }

    /// Takes the next message; with `cx`, waits for one.
    fn poll_recv(&mut self, cx: Option<&mut Context<'_>>) -> Poll<Result<T, RecvError>> {
        let mut s = self.shared.lock();
        let oldest = s.oldest();
        if self.next < oldest {
            let missed = oldest - self.next;
            self.next = oldest;
            return Poll::Ready(Err(RecvError::Lagged(missed)));
        }
        if self.next < s.next {
            let value = s.queue[(self.next - oldest) as usize].clone();
            self.next += 1;
            return Poll::Ready(Ok(value));
        }
        if s.senders == 0 {
            return Poll::Ready(Err(RecvError::Closed));
        }
        if let Some(cx) = cx {
            if !s.wakers.iter().any(|w| w.will_wake(cx.waker())) {
                s.wakers.push(cx.waker().clone());
            }
        }
        Poll::Pending
    }
}

impl<T> Receiver<T> {
    /// Creates a receiver of the messages sent from now on.
    pub fn resubscribe(&self) -> Receiver<T> {
        let mut s = self.shared.lock();
        s.receivers += 1;
        Receiver { shared: self.shared.clone(), next: s.next }
    }

    /// Returns the number of kept messages this receiver has not seen.
    pub fn len(&self) -> usize {
        let s = self.shared.lock();
        (s.next - self.next.max(s.oldest())) as usize
    }

    /// Returns `true` if this receiver has seen every kept message.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.shared.lock().senders += 1;
        Sender { shared: self.shared.clone() }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let mut s = self.shared.lock();
        s.senders -= 1;
        let wakers = if s.senders == 0 { std::mem::take(&mut s.wakers) } else { Vec::new() };
        drop(s);
        wakers.into_iter().for_each(Waker::wake);
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.shared.lock().receivers -= 1;
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver").field("next", &self.next).finish_non_exhaustive()
    }
}
