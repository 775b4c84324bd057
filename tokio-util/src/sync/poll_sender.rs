//! [`PollSender`]: a bounded `mpsc::Sender` driven by polls, reserving a
//! slot before the item exists.
//!
//! The state machine is tokio-util's, observable state for observable
//! state: `Idle` (holding a sender) → `Acquiring` (a reservation in
//! flight, which owns that sender) → `ReadyToSend` (an owned permit) →
//! `Idle` again after `send_item`; `Closed` once the receiver is gone or
//! [`PollSender::close`] was called. Invariant: a reservation is in flight
//! (`acquire` is `Some`) exactly when the state is `Acquiring`. `sender`
//! is the wrapper's own handle, kept so that a clone or an aborted
//! reservation has a sender to start from; `close` drops it, which closes
//! the channel once the permit in hand (if any) is used or dropped.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_sink::Sink;
use samaritan_tokio::sync::futures::ReserveOwned;
use samaritan_tokio::sync::mpsc::{OwnedPermit, Sender};

/// The error of a [`PollSender`] whose channel is closed: it holds the
/// item [`PollSender::send_item`] could not send, if that is where it
/// came from.
#[derive(Debug)]
pub struct PollSendError<T>(Option<T>);

impl<T> PollSendError<T> {
    /// Returns the item that was not sent, if any.
    pub fn into_inner(self) -> Option<T> {
        self.0
    }
}

impl<T> fmt::Display for PollSendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("channel closed")
    }
}

impl<T: fmt::Debug> std::error::Error for PollSendError<T> {}

enum State<T> {
    Idle(Sender<T>),
    Acquiring,
    ReadyToSend(OwnedPermit<T>),
    Closed,
}

/// A bounded `mpsc::Sender` with a poll-based API and a `Sink` impl, as
/// tokio-util's: [`poll_reserve`](PollSender::poll_reserve) waits for a
/// slot, [`send_item`](PollSender::send_item) fills it.
///
/// ```
/// extern crate samaritan_tokio as tokio;
/// extern crate samaritan_tokio_util as tokio_util;
/// use tokio::sync::mpsc;
/// use tokio_util::sync::PollSender;
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() {
///     let (tx, mut rx) = mpsc::channel(1);
///     let mut tx = PollSender::new(tx);
///     std::future::poll_fn(|cx| tx.poll_reserve(cx)).await.unwrap();
///     tx.send_item(7).unwrap();
///     assert_eq!(rx.recv().await, Some(7));
///     tx.close();
///     assert!(tx.is_closed());
///     assert_eq!(rx.recv().await, None);
/// }
/// ```
pub struct PollSender<T> {
    sender: Option<Sender<T>>,
    state: State<T>,
    acquire: Option<ReserveOwned<T>>,
}

impl<T: Send> PollSender<T> {
    /// Wraps `sender`.
    pub fn new(sender: Sender<T>) -> Self {
        PollSender { sender: Some(sender.clone()), state: State::Idle(sender), acquire: None }
    }

    /// Waits for a slot in the channel and reserves it for the next
    /// [`send_item`](PollSender::send_item); ready at once if one is
    /// already reserved. Fails once the channel is closed, which also
    /// closes this sender.
    pub fn poll_reserve(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), PollSendError<T>>> {
        loop {
            match std::mem::replace(&mut self.state, State::Closed) {
                State::Idle(sender) => {
                    // Start a reservation and poll it on the next turn.
                    self.acquire = Some(sender.reserve_owned());
                    self.state = State::Acquiring;
                }
                State::Acquiring => {
                    let acquire = self.acquire.as_mut().expect("an acquiring PollSender has a reservation");
                    return match Pin::new(acquire).poll(cx) {
                        Poll::Pending => {
                            self.state = State::Acquiring;
                            Poll::Pending
                        }
                        Poll::Ready(Ok(permit)) => {
                            self.acquire = None;
                            self.state = State::ReadyToSend(permit);
                            Poll::Ready(Ok(()))
                        }
                        Poll::Ready(Err(_)) => {
                            self.acquire = None;
                            Poll::Ready(Err(PollSendError(None)))
                        }
                    };
                }
                State::Closed => return Poll::Ready(Err(PollSendError(None))),
                ready @ State::ReadyToSend(_) => {
                    self.state = ready;
                    return Poll::Ready(Ok(()));
                }
            }
        }
    }

    /// Sends `value` into the slot [`poll_reserve`](PollSender::poll_reserve)
    /// reserved; gives it back in the error if this sender is closed.
    ///
    /// # Panics
    ///
    /// If no slot is reserved (`poll_reserve` was not called, or has not
    /// returned ready), as tokio-util's does.
    #[track_caller]
    pub fn send_item(&mut self, value: T) -> Result<(), PollSendError<T>> {
        let (result, next) = match std::mem::replace(&mut self.state, State::Closed) {
            State::Idle(_) | State::Acquiring => {
                panic!("`send_item` called without first calling `poll_reserve`")
            }
            State::ReadyToSend(permit) => (Ok(()), State::Idle(permit.send(value))),
            State::Closed => (Err(PollSendError(Some(value))), State::Closed),
        };
        // A `close` between the reservation and this send takes effect now.
        self.state = if self.sender.is_some() { next } else { State::Closed };
        result
    }

    /// Returns `true` once this sender is closed: by [`close`](PollSender::close)
    /// or by a reservation that found the channel closed.
    pub fn is_closed(&self) -> bool {
        matches!(self.state, State::Closed) || self.sender.is_none()
    }

    /// Returns the wrapped sender, unless this one is closed.
    pub fn get_ref(&self) -> Option<&Sender<T>> {
        self.sender.as_ref()
    }

    /// Closes this sender. A reservation in flight is cancelled; a slot
    /// already reserved stays usable by one more `send_item`.
    pub fn close(&mut self) {
        self.sender = None;
        match self.state {
            State::Idle(_) => self.state = State::Closed,
            State::Acquiring => {
                self.acquire = None;
                self.state = State::Closed;
            }
            State::ReadyToSend(_) | State::Closed => {}
        }
    }

    /// Gives up the reservation in flight or the slot reserved, if any;
    /// returns whether there was one.
    pub fn abort_send(&mut self) -> bool {
        let (aborted, next) = match std::mem::replace(&mut self.state, State::Closed) {
            State::Acquiring => {
                // The dropped reservation owned its sender: start again
                // from the wrapper's own.
                self.acquire = None;
                (true, self.sender.clone().map_or(State::Closed, State::Idle))
            }
            State::ReadyToSend(permit) => {
                let sender = permit.release();
                (true, if self.sender.is_some() { State::Idle(sender) } else { State::Closed })
            }
            other => (false, other),
        };
        self.state = next;
        aborted
    }
}

impl<T> Clone for PollSender<T> {
    /// A fresh sender on the same channel, with no slot reserved (closed if
    /// this one is).
    fn clone(&self) -> Self {
        match &self.sender {
            Some(sender) => {
                PollSender { sender: Some(sender.clone()), state: State::Idle(sender.clone()), acquire: None }
            }
            None => PollSender { sender: None, state: State::Closed, acquire: None },
        }
    }
}

impl<T: Send> Sink<T> for PollSender<T> {
    type Error = PollSendError<T>;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.get_mut().poll_reserve(cx)
    }

    fn start_send(self: Pin<&mut Self>, item: T) -> Result<(), Self::Error> {
        self.get_mut().send_item(item)
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.get_mut().close();
        Poll::Ready(Ok(()))
    }
}

impl<T> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            State::Idle(_) => "Idle",
            State::Acquiring => "Acquiring",
            State::ReadyToSend(_) => "ReadyToSend",
            State::Closed => "Closed",
        })
    }
}

impl<T> fmt::Debug for PollSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PollSender").field("state", &self.state).field("closed", &self.sender.is_none()).finish()
    }
}
