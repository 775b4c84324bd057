//! A channel for sending one value between tasks.
//!
//! [`channel`] returns a [`Sender`] and a [`Receiver`]; the receiver is a
//! future of the value, failing with [`RecvError`] if the sender is dropped
//! without sending. State, under one std mutex: the value, whether each end
//! is alive, and each end's waker. Invariant: `value` is only set while the
//! receiver is alive (a send to a dropped receiver returns the value), and
//! every change the other end waits for wakes its waker after the lock is
//! released.

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use super::batch::lock;
use super::vis::{Op, Site, Visible};

const KIND: &str = "Oneshot";

/// Creates a one-value channel.
#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let state = State { value: None, tx_alive: true, rx_alive: true, rx_waker: None, tx_waker: None };
    let inner = Arc::new(Inner { state: Mutex::new(state), vis: Visible::new() });
    let site = Site::here();
    (Sender { inner: inner.clone(), site }, Receiver { inner, site })
}

#[derive(Debug)]
struct Inner<T> {
    state: Mutex<State<T>>,
    vis: Visible,
}

impl<T> Inner<T> {
    fn step(&self, op: Op, site: Site) {
        self.vis.step(KIND, op, site);
    }
}

#[derive(Debug)]
struct State<T> {
    value: Option<T>,
    tx_alive: bool,
    rx_alive: bool,
    rx_waker: Option<Waker>,
    tx_waker: Option<Waker>,
}

/// Sends the value; see [`channel`].
#[derive(Debug)]
pub struct Sender<T> {
    inner: Arc<Inner<T>>,
    /// Where the channel was made: names the sender's drop in a trace.
    site: Site,
}

/// Receives the value by being awaited; see [`channel`].
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub struct Receiver<T> {
    inner: Arc<Inner<T>>,
    /// Where the channel was made: names the receiver's polls and drop in a trace.
    site: Site,
}

/// The sender was dropped without sending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecvError(());

/// Why [`Receiver::try_recv`] returned no value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TryRecvError {
    /// Nothing was sent yet.
    Empty,
    /// The sender was dropped without sending, or the value was already taken.
    Closed,
}

fn wake(waker: Option<Waker>) {
    if let Some(w) = waker {
        w.wake();
    }
}

impl<T> Sender<T> {
    /// Sends `value`; returns it back if the receiver is gone.
    #[track_caller]
    pub fn send(self, value: T) -> Result<(), T> {
        self.inner.step(Op::Send, Site::here());
        let mut s = lock(&self.inner.state);
        if !s.rx_alive {
            return Err(value);
        }
        s.value = Some(value);
        let waker = s.rx_waker.take();
        drop(s);
        wake(waker);
        Ok(())
    }

    /// Returns true once the receiver was dropped or closed.
    #[track_caller]
    pub fn is_closed(&self) -> bool {
        self.inner.step(Op::Load, Site::here());
        !lock(&self.inner.state).rx_alive
    }

    /// Waits until the receiver is dropped or closed.
    #[track_caller]
    pub fn closed(&mut self) -> impl std::future::Future<Output = ()> + '_ {
        let site = Site::here();
        std::future::poll_fn(move |cx| {
            self.inner.step(Op::Wait, site);
            let mut s = lock(&self.inner.state);
            if !s.rx_alive {
                return Poll::Ready(());
            }
            s.tx_waker = Some(cx.waker().clone());
            Poll::Pending
        })
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.inner.step(Op::Close, self.site);
        let mut s = lock(&self.inner.state);
        s.tx_alive = false;
        let waker = s.rx_waker.take();
        drop(s);
        wake(waker);
    }
}

impl<T> Receiver<T> {
    /// Takes the value if it was sent.
    #[track_caller]
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.inner.step(Op::TryRecv, Site::here());
        let mut s = lock(&self.inner.state);
        match s.value.take() {
            Some(v) => Ok(v),
            None if s.tx_alive => Err(TryRecvError::Empty),
            None => Err(TryRecvError::Closed),
        }
    }

    /// Refuses the value from now on: a later send fails; a value already sent can still be taken.
    #[track_caller]
    pub fn close(&mut self) {
        self.inner.step(Op::Close, Site::here());
        let mut s = lock(&self.inner.state);
        s.rx_alive = false;
        let waker = s.tx_waker.take();
        drop(s);
        wake(waker);
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.inner.step(Op::Recv, self.site);
        let mut s = lock(&self.inner.state);
        match s.value.take() {
            Some(v) => Poll::Ready(Ok(v)),
            None if !s.tx_alive => Poll::Ready(Err(RecvError(()))),
            None => {
                s.rx_waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.inner.step(Op::Close, self.site);
        let mut s = lock(&self.inner.state);
        s.rx_alive = false;
        let value = s.value.take();
        let waker = s.tx_waker.take();
        drop(s);
        drop(value);
        wake(waker);
    }
}

impl fmt::Display for RecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("sender dropped without sending")
    }
}

impl Error for RecvError {}

impl fmt::Display for TryRecvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TryRecvError::Empty => "no value sent yet",
            TryRecvError::Closed => "sender dropped without sending",
        })
    }
}

impl Error for TryRecvError {}
