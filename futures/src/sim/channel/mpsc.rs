//! `futures::channel::mpsc` under `sim`: messages go through samaritan's
//! unbounded async channel (each send and receive a visible step); the
//! bound is futures' own rule, kept beside it.
//!
//! Invariants:
//! - futures' capacity rule: a bounded channel holds at most `buffer`
//!   messages plus one per sender. A sender whose send makes more than
//!   `buffer` queued is *parked*: it may not send again until the
//!   receiver takes a message and unparks it (in the order they parked).
//! - The shared state is a std mutex held for a few instructions, never
//!   across a samaritan step: a send checks and counts itself in
//!   (`inflight`), takes its step, then settles; the receiver ends after a
//!   `close_channel` only once no send is in flight, so no message sent
//!   before the close is lost.

use std::collections::VecDeque;
use std::fmt;
use std::pin::Pin;
use std::sync::{Arc, Mutex as StdMutex, PoisonError};
use std::task::{Context, Poll, Waker};

pub use futures::channel::mpsc::{RecvError, TryRecvError};
use futures::stream::{FusedStream, Stream};
use futures::Sink;
use samaritan::sync::async_mpsc;
use std::future::Future;

fn lock<T>(m: &StdMutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Why a send failed: the channel was full or its receiver is gone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SendError {
    full: bool,
}

impl SendError {
    /// Whether the channel was full.
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// Whether the receiver is gone.
    pub fn is_disconnected(&self) -> bool {
        !self.full
    }
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.full {
            "send failed because channel is full"
        } else {
            "send failed because receiver is gone"
        })
    }
}

impl std::error::Error for SendError {}

/// A failed `try_send`, with the message.
#[derive(Clone, PartialEq, Eq)]
pub struct TrySendError<T> {
    err: SendError,
    val: T,
}

impl<T> TrySendError<T> {
    /// Whether the channel was full.
    pub fn is_full(&self) -> bool {
        self.err.is_full()
    }

    /// Whether the receiver is gone.
    pub fn is_disconnected(&self) -> bool {
        self.err.is_disconnected()
    }

    /// The message back.
    pub fn into_inner(self) -> T {
        self.val
    }

    /// The error without the message.
    pub fn into_send_error(self) -> SendError {
        self.err
    }
}

impl<T> fmt::Debug for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TrySendError").field("kind", &self.err).finish_non_exhaustive()
    }
}

impl<T> fmt::Display for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.err, f)
    }
}

impl<T: core::any::Any> std::error::Error for TrySendError<T> {}

/// A sender's permission to send, shared with the channel's queue of
/// parked senders.
#[derive(Default)]
struct Park {
    parked: bool,
    waker: Option<Waker>,
}

/// What the senders and the receiver of a channel share beside the
/// messages (never locked across a samaritan step).
struct Shared {
    /// `None`: unbounded.
    buffer: Option<usize>,
    state: StdMutex<SharedState>,
}

#[derive(Default)]
struct SharedState {
    /// Messages sent and not yet taken, counting sends under way.
    queued: usize,
    /// Sends between their check and their step.
    inflight: usize,
    parked: VecDeque<Arc<StdMutex<Park>>>,
    /// A sender closed the channel (`close_channel`).
    tx_closed: bool,
    /// The receiver closed or went.
    rx_closed: bool,
    rx_waker: Option<Waker>,
}

fn wake_park(park: &StdMutex<Park>) {
    let waker = {
        let mut p = lock(park);
        p.parked = false;
        p.waker.take()
    };
    if let Some(w) = waker {
        w.wake();
    }
}

impl Shared {
    fn new(buffer: Option<usize>) -> Arc<Shared> {
        Arc::new(Shared { buffer, state: StdMutex::new(SharedState::default()) })
    }

    /// Before a send's step: whether it may go, and whether its sender is
    /// parked after it (futures' rule).
    fn begin_send(&self, park: Option<&Arc<StdMutex<Park>>>) -> Result<(), SendError> {
        // A parked sender is full before anything else (futures' order).
        if let Some(park) = park {
            if lock(park).parked {
                return Err(SendError { full: true });
            }
        }
        let mut st = lock(&self.state);
        if st.tx_closed || st.rx_closed {
            return Err(SendError { full: false });
        }
        st.queued += 1;
        st.inflight += 1;
        if let (Some(buffer), Some(park)) = (self.buffer, park) {
            if st.queued > buffer {
                lock(park).parked = true;
                st.parked.push_back(park.clone());
            }
        }
        Ok(())
    }

    /// After a send's step (`sent`: it went in).
    fn end_send(&self, sent: bool, park: Option<&Arc<StdMutex<Park>>>) {
        let mut st = lock(&self.state);
        st.inflight -= 1;
        if !sent {
            st.queued -= 1;
            if let Some(park) = park {
                st.parked.retain(|p| !Arc::ptr_eq(p, park));
                lock(park).parked = false;
            }
        }
        let waker = if st.tx_closed && st.inflight == 0 { st.rx_waker.take() } else { None };
        drop(st);
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// A message was taken: unparks the sender that parked first.
    fn taken(&self) {
        let mut st = lock(&self.state);
        st.queued = st.queued.saturating_sub(1);
        let next = st.parked.pop_front();
        drop(st);
        if let Some(park) = next {
            wake_park(&park);
        }
    }

    /// Whether the receiver, finding no message, has seen the end: a
    /// sender closed the channel and no send is under way. Otherwise it
    /// leaves its waker for `close_tx`.
    fn ended(&self, cx: &mut Context<'_>) -> bool {
        let mut st = lock(&self.state);
        if st.tx_closed && st.inflight == 0 {
            return true;
        }
        st.rx_waker = Some(cx.waker().clone());
        false
    }

    /// `close_channel`: no more sends; the receiver ends once empty.
    /// Parked senders stay parked (each taken message unparks one, which
    /// then finds the channel closed), as in futures.
    fn close_tx(&self) {
        let mut st = lock(&self.state);
        st.tx_closed = true;
        let waker = if st.inflight == 0 { st.rx_waker.take() } else { None };
        drop(st);
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// The receiver closed or went: senders fail, parked ones wake.
    fn close_rx(&self) {
        let mut st = lock(&self.state);
        st.rx_closed = true;
        let parked: Vec<_> = st.parked.drain(..).collect();
        drop(st);
        for park in parked {
            wake_park(&park);
        }
    }

    fn is_closed(&self) -> bool {
        let st = lock(&self.state);
        st.tx_closed || st.rx_closed
    }
}

/// Creates a bounded channel: `buffer` messages, plus one per sender.
///
/// ```
/// extern crate samaritan_futures as futures;
/// use futures::channel::mpsc;
///
/// let (mut tx, mut rx) = mpsc::channel::<u8>(0);
/// // Every sender has one slot of its own.
/// tx.try_send(1).unwrap();
/// assert!(tx.try_send(2).unwrap_err().is_full());
/// assert_eq!(rx.try_recv(), Ok(1));
/// tx.try_send(2).unwrap();
/// ```
pub fn channel<T>(buffer: usize) -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = async_mpsc::unbounded_channel();
    let shared = Shared::new(Some(buffer));
    (
        Sender { inner: Some(tx), shared: shared.clone(), park: Arc::new(StdMutex::new(Park::default())) },
        Receiver { inner: rx, shared, done: false },
    )
}

/// Creates an unbounded channel.
pub fn unbounded<T>() -> (UnboundedSender<T>, UnboundedReceiver<T>) {
    let (tx, rx) = async_mpsc::unbounded_channel();
    let shared = Shared::new(None);
    (
        UnboundedSender { inner: Some(tx), shared: shared.clone() },
        UnboundedReceiver { inner: Receiver { inner: rx, shared, done: false } },
    )
}

/// The sending side of a bounded channel.
pub struct Sender<T> {
    /// `None` once this sender disconnected.
    inner: Option<async_mpsc::UnboundedSender<T>>,
    shared: Arc<Shared>,
    park: Arc<StdMutex<Park>>,
}

/// The sending side of an unbounded channel.
pub struct UnboundedSender<T> {
    inner: Option<async_mpsc::UnboundedSender<T>>,
    shared: Arc<Shared>,
}

/// The receiving side of a bounded channel: a `Stream`.
pub struct Receiver<T> {
    inner: async_mpsc::Receiver<T>,
    shared: Arc<Shared>,
    done: bool,
}

/// The receiving side of an unbounded channel: a `Stream`.
pub struct UnboundedReceiver<T> {
    inner: Receiver<T>,
}

/// Sends `msg` on `tx` under `shared`'s rules: the check, then the step,
/// then the count settled, the lock never held across the step.
#[track_caller]
fn send<T>(
    tx: Option<&async_mpsc::UnboundedSender<T>>,
    shared: &Shared,
    park: Option<&Arc<StdMutex<Park>>>,
    msg: T,
) -> Result<(), TrySendError<T>> {
    let Some(tx) = tx else { return Err(TrySendError { err: SendError { full: false }, val: msg }) };
    if let Err(err) = shared.begin_send(park) {
        return Err(TrySendError { err, val: msg });
    }
    let result = tx.send(msg);
    shared.end_send(result.is_ok(), park);
    result.map_err(|e| TrySendError { err: SendError { full: false }, val: e.0 })
}

impl<T> Sender<T> {
    /// Sends now, if this sender is not parked and the channel is open.
    #[track_caller]
    pub fn try_send(&mut self, msg: T) -> Result<(), TrySendError<T>> {
        send(self.inner.as_ref(), &self.shared, Some(&self.park), msg)
    }

    /// Sends, as `Sink::start_send` does (after `poll_ready`).
    #[track_caller]
    pub fn start_send(&mut self, msg: T) -> Result<(), SendError> {
        self.try_send(msg).map_err(TrySendError::into_send_error)
    }

    /// Ready once this sender may send (it is not parked), or an error if
    /// the channel is closed.
    pub fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        if self.is_closed() {
            return Poll::Ready(Err(SendError { full: false }));
        }
        let mut park = lock(&self.park);
        if park.parked {
            park.waker = Some(cx.waker().clone());
            Poll::Pending
        } else {
            Poll::Ready(Ok(()))
        }
    }

    /// Whether the channel is closed (or this sender disconnected).
    pub fn is_closed(&self) -> bool {
        self.inner.is_none() || self.shared.is_closed()
    }

    /// Closes the channel: no sender can send any more, and the receiver
    /// ends once it has taken what was sent.
    pub fn close_channel(&mut self) {
        self.shared.close_tx();
    }

    /// Drops this sender's link to the channel.
    pub fn disconnect(&mut self) {
        self.inner = None;
    }

    /// Whether both send to the same receiver.
    pub fn same_receiver(&self, other: &Sender<T>) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// Whether this sender sends to `receiver`.
    pub fn is_connected_to(&self, receiver: &Receiver<T>) -> bool {
        Arc::ptr_eq(&self.shared, &receiver.shared)
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Sender<T> {
        // A new sender has a slot of its own: it starts unparked.
        Sender {
            inner: self.inner.clone(),
            shared: self.shared.clone(),
            park: Arc::new(StdMutex::new(Park::default())),
        }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").field("closed", &self.is_closed()).finish()
    }
}

impl<T> Sink<T> for Sender<T> {
    type Error = SendError;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Sender::poll_ready(self.get_mut(), cx)
    }

    fn start_send(self: Pin<&mut Self>, msg: T) -> Result<(), SendError> {
        Sender::start_send(self.get_mut(), msg)
    }

    /// Flushed once this sender may send again (its message taken, if it
    /// was parked by it), or the receiver is gone: futures' rule.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        match Sender::poll_ready(self.get_mut(), cx) {
            Poll::Ready(Err(e)) if e.is_disconnected() => Poll::Ready(Ok(())),
            other => other,
        }
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        self.get_mut().disconnect();
        Poll::Ready(Ok(()))
    }
}

impl<T> UnboundedSender<T> {
    /// Sends (an unbounded channel is never full).
    #[track_caller]
    pub fn unbounded_send(&self, msg: T) -> Result<(), TrySendError<T>> {
        send(self.inner.as_ref(), &self.shared, None, msg)
    }

    /// Sends, as `Sink::start_send` does.
    #[track_caller]
    pub fn start_send(&mut self, msg: T) -> Result<(), SendError> {
        self.unbounded_send(msg).map_err(TrySendError::into_send_error)
    }

    /// Ready unless the channel is closed.
    pub fn poll_ready(&self, _cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Poll::Ready(if self.is_closed() { Err(SendError { full: false }) } else { Ok(()) })
    }

    /// Whether the channel is closed (or this sender disconnected).
    pub fn is_closed(&self) -> bool {
        self.inner.is_none() || self.shared.is_closed()
    }

    /// Closes the channel for every sender; the receiver ends once it has
    /// taken what was sent.
    pub fn close_channel(&self) {
        self.shared.close_tx();
    }

    /// Drops this sender's link to the channel.
    pub fn disconnect(&mut self) {
        self.inner = None;
    }

    /// Whether both send to the same receiver.
    pub fn same_receiver(&self, other: &UnboundedSender<T>) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl<T> Clone for UnboundedSender<T> {
    fn clone(&self) -> UnboundedSender<T> {
        UnboundedSender { inner: self.inner.clone(), shared: self.shared.clone() }
    }
}

impl<T> fmt::Debug for UnboundedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnboundedSender").field("closed", &self.is_closed()).finish()
    }
}

impl<T> Sink<T> for UnboundedSender<T> {
    type Error = SendError;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        UnboundedSender::poll_ready(&*self, cx)
    }

    fn start_send(self: Pin<&mut Self>, msg: T) -> Result<(), SendError> {
        UnboundedSender::start_send(self.get_mut(), msg)
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        self.get_mut().disconnect();
        Poll::Ready(Ok(()))
    }
}

impl<T> Sink<T> for &UnboundedSender<T> {
    type Error = SendError;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        UnboundedSender::poll_ready(*self, cx)
    }

    fn start_send(self: Pin<&mut Self>, msg: T) -> Result<(), SendError> {
        self.unbounded_send(msg).map_err(TrySendError::into_send_error)
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        self.close_channel();
        Poll::Ready(Ok(()))
    }
}

impl<T> Receiver<T> {
    /// The next message if one is there, else `Empty`, or `Closed` once
    /// the channel is closed and empty.
    #[track_caller]
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        if self.done {
            return Err(TryRecvError::Closed);
        }
        match self.inner.try_recv() {
            Ok(msg) => {
                self.shared.taken();
                Ok(msg)
            }
            Err(async_mpsc::TryRecvError::Disconnected) => {
                self.done = true;
                Err(TryRecvError::Closed)
            }
            Err(_) => {
                let st = lock(&self.shared.state);
                if st.tx_closed && st.inflight == 0 {
                    drop(st);
                    self.done = true;
                    Err(TryRecvError::Closed)
                } else {
                    Err(TryRecvError::Empty)
                }
            }
        }
    }

    /// `Ok(Some)` for a message, `Ok(None)` once the channel is closed
    /// and empty, `Err` if empty with senders left.
    #[deprecated(note = "please use `try_recv` instead")]
    #[track_caller]
    pub fn try_next(&mut self) -> Result<Option<T>, TryRecvError> {
        match self.try_recv() {
            Ok(msg) => Ok(Some(msg)),
            Err(TryRecvError::Closed) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Waits for a message; `RecvError` once the channel is closed and
    /// empty.
    pub fn recv(&mut self) -> Recv<'_, T> {
        Recv { rx: self }
    }

    /// Closes the channel: senders fail from now on; the messages already
    /// in it can still be received.
    #[track_caller]
    pub fn close(&mut self) {
        self.shared.close_rx();
        self.inner.close();
    }
}

/// [`Receiver::recv`]'s future.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Recv<'a, T> {
    rx: &'a mut Receiver<T>,
}

impl<T> Future for Recv<'_, T> {
    type Output = Result<T, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T, RecvError>> {
        Pin::new(&mut *self.get_mut().rx).poll_next(cx).map(|m| m.ok_or(RecvError))
    }
}

impl<T> fmt::Debug for Recv<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Recv { .. }")
    }
}

impl<T> Stream for Receiver<T> {
    type Item = T;

    #[track_caller]
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        match this.inner.poll_recv(cx) {
            Poll::Ready(Some(msg)) => {
                this.shared.taken();
                Poll::Ready(Some(msg))
            }
            Poll::Ready(None) => {
                this.done = true;
                Poll::Ready(None)
            }
            Poll::Pending if this.shared.ended(cx) => {
                this.done = true;
                Poll::Ready(None)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T> FusedStream for Receiver<T> {
    fn is_terminated(&self) -> bool {
        self.done
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.shared.close_rx();
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver").field("terminated", &self.done).finish()
    }
}

impl<T> UnboundedReceiver<T> {
    /// As [`Receiver::try_recv`].
    #[track_caller]
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        self.inner.try_recv()
    }

    /// As [`Receiver::try_next`].
    #[deprecated(note = "please use `try_recv` instead")]
    #[track_caller]
    pub fn try_next(&mut self) -> Result<Option<T>, TryRecvError> {
        #[allow(deprecated)]
        self.inner.try_next()
    }

    /// As [`Receiver::recv`].
    pub fn recv(&mut self) -> Recv<'_, T> {
        self.inner.recv()
    }

    /// As [`Receiver::close`].
    #[track_caller]
    pub fn close(&mut self) {
        self.inner.close();
    }
}

impl<T> Stream for UnboundedReceiver<T> {
    type Item = T;

    #[track_caller]
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        Pin::new(&mut self.get_mut().inner).poll_next(cx)
    }
}

impl<T> FusedStream for UnboundedReceiver<T> {
    fn is_terminated(&self) -> bool {
        self.inner.done
    }
}

impl<T> fmt::Debug for UnboundedReceiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnboundedReceiver").field("terminated", &self.inner.done).finish()
    }
}
