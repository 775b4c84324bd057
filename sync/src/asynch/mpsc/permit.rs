//! Permits: a slot of a bounded channel reserved before the message
//! exists ([`Sender::reserve`], [`Sender::try_reserve`],
//! [`Sender::reserve_owned`], [`Sender::try_reserve_owned`]).
//!
//! A permit holds one slot, counted like a waiting sender's granted one
//! (`chan.rs`'s invariant), until it sends into it or is dropped, which
//! gives the slot to the first waiting sender or back to the pool. The
//! reservation waits in the same FIFO queue as senders, so it never
//! overtakes one. Each reservation poll, each send and each give-back is a
//! visible step on the channel (a send: they change its capacity or queue),
//! with a note in the trace saying which.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::super::vis::{note, Op, Site};
use super::super::wait_list::Key;
use super::chan::{Chan, Reserve};
use super::{SendError, Sender, TrySendError};

/// One slot of a bounded channel, reserved by [`Sender::reserve`] or
/// [`Sender::try_reserve`]: [`Permit::send`] queues a message into it
/// without waiting; dropping the permit gives the slot back.
///
/// ```
/// # extern crate samaritan_sync as samaritan;
/// use samaritan::async_mpsc;
///
/// let (tx, mut rx) = async_mpsc::channel(1);
/// let permit = tx.try_reserve().unwrap();
/// assert!(tx.try_send(2).is_err(), "the only slot is reserved");
/// permit.send(1);
/// assert_eq!(rx.try_recv(), Ok(1));
/// drop(tx.try_reserve().unwrap());
/// assert!(tx.try_send(3).is_ok(), "a dropped permit gives its slot back");
/// ```
#[must_use = "a permit holds a slot of the channel until it sends or is dropped"]
pub struct Permit<'a, T> {
    chan: &'a Chan<T>,
    site: Site,
}

/// A slot of a bounded channel reserved by [`Sender::reserve_owned`] or
/// [`Sender::try_reserve_owned`], owning the sender: [`OwnedPermit::send`]
/// and [`OwnedPermit::release`] hand the sender back.
#[must_use = "a permit holds a slot of the channel until it sends or is dropped"]
pub struct OwnedPermit<T> {
    /// `None` once it sent or released.
    sender: Option<Sender<T>>,
    site: Site,
}

impl<T> Sender<T> {
    /// Waits for a free slot and reserves it; fails once the receiver is
    /// closed. Cancel-safe: dropped while waiting, it leaves the queue of
    /// waiting senders and passes on a slot it had been given.
    #[track_caller]
    pub fn reserve(&self) -> impl Future<Output = Result<Permit<'_, T>, SendError<()>>> + '_ {
        let site = Site::here();
        let reserving = Reserving { chan: &self.chan, key: None, site };
        async move {
            reserving.await?;
            Ok(Permit { chan: &self.chan, site })
        }
    }

    /// Reserves a free slot if there is one now.
    #[track_caller]
    pub fn try_reserve(&self) -> Result<Permit<'_, T>, TrySendError<()>> {
        let site = Site::here();
        try_reserve(&self.chan, site)?;
        Ok(Permit { chan: &self.chan, site })
    }

    /// [`Sender::reserve`], owning the sender, which the permit hands back.
    /// The future is a named type ([`ReserveOwned`]), so that a wrapper
    /// can keep it in a field (tokio-util's `PollSender` does).
    #[track_caller]
    pub fn reserve_owned(self) -> ReserveOwned<T> {
        ReserveOwned { sender: Some(self), key: None, site: Site::here() }
    }

    /// [`Sender::try_reserve`], owning the sender; the error gives it back.
    #[track_caller]
    pub fn try_reserve_owned(self) -> Result<OwnedPermit<T>, TrySendError<Sender<T>>> {
        let site = Site::here();
        match try_reserve(&self.chan, site) {
            Ok(()) => Ok(OwnedPermit { sender: Some(self), site }),
            Err(TrySendError::Full(())) => Err(TrySendError::Full(self)),
            Err(TrySendError::Closed(())) => Err(TrySendError::Closed(self)),
        }
    }
}

/// One attempt to reserve a slot now, as a visible step.
fn try_reserve<T>(chan: &Chan<T>, site: Site) -> Result<(), TrySendError<()>> {
    chan.step(Op::TrySend, site);
    match chan.try_reserve(None) {
        Reserve::Reserved => {
            note(&|| "reserved a slot".to_string());
            Ok(())
        }
        Reserve::Full | Reserve::Wait(_) => Err(TrySendError::Full(())),
        Reserve::Closed => Err(TrySendError::Closed(())),
    }
}

impl<T> Permit<'_, T> {
    /// Queues `value` into the reserved slot, without waiting. If the
    /// receiver has closed since, `value` is dropped, as tokio's.
    pub fn send(self, value: T) {
        send(self.chan, self.site, value);
        // Its drop would give the slot back; it owns nothing else.
        std::mem::forget(self);
    }
}

impl<T> OwnedPermit<T> {
    /// Queues `value` into the reserved slot, without waiting, and gives
    /// the sender back.
    pub fn send(mut self, value: T) -> Sender<T> {
        let sender = self.sender.take().expect("a permit sends once");
        send(&sender.chan, self.site, value);
        sender
    }

    /// Gives the slot back unused, and the sender.
    pub fn release(mut self) -> Sender<T> {
        let sender = self.sender.take().expect("a permit is released once");
        release(&sender.chan, self.site);
        sender
    }
}

/// Queues `value` into a reserved slot, as a visible step.
fn send<T>(chan: &Chan<T>, site: Site, value: T) {
    chan.step(Op::Send, site);
    note(&|| "sent into a reserved slot".to_string());
    chan.send_reserved(value);
}

/// Gives a reserved slot back, as a visible step.
fn release<T>(chan: &Chan<T>, site: Site) {
    chan.step(Op::Send, site);
    note(&|| "gave a reserved slot back unused".to_string());
    chan.release_reserved();
}

impl<T> Drop for Permit<'_, T> {
    fn drop(&mut self) {
        release(self.chan, self.site);
    }
}

impl<T> Drop for OwnedPermit<T> {
    fn drop(&mut self) {
        if let Some(sender) = self.sender.take() {
            release(&sender.chan, self.site);
        }
    }
}

impl<T> fmt::Debug for Permit<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permit").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for OwnedPermit<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedPermit").finish_non_exhaustive()
    }
}

/// The future that reserves a slot: one visible step per poll, then one
/// attempt, or a look at the slot it waits for. Cancel-safe as
/// [`Sender::send`]'s.
struct Reserving<'a, T> {
    chan: &'a Chan<T>,
    /// Its place among the waiting senders, once queued.
    key: Option<Key>,
    site: Site,
}

impl<T> Future for Reserving<'_, T> {
    type Output = Result<(), SendError<()>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        poll_reserving(this.chan, &mut this.key, this.site, cx)
    }
}

/// One poll of a reservation: a visible step, then one attempt (no `key`
/// yet) or a look at the slot it waits for (`key`, its place among the
/// waiting senders, kept while it waits).
fn poll_reserving<T>(
    chan: &Chan<T>,
    key: &mut Option<Key>,
    site: Site,
    cx: &mut Context<'_>,
) -> Poll<Result<(), SendError<()>>> {
    chan.step(Op::Send, site);
    let found = match key.take() {
        None => chan.try_reserve(Some(cx)),
        Some(key) => chan.poll_reservation(key, cx),
    };
    match found {
        Reserve::Reserved => {
            note(&|| "reserved a slot".to_string());
            Poll::Ready(Ok(()))
        }
        Reserve::Closed | Reserve::Full => Poll::Ready(Err(SendError(()))),
        Reserve::Wait(waiting) => {
            *key = Some(waiting);
            Poll::Pending
        }
    }
}

impl<T> Drop for Reserving<'_, T> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.chan.cancel_waiter(key);
        }
    }
}

/// The future of [`Sender::reserve_owned`]: a reservation that owns its
/// sender and hands it to the [`OwnedPermit`]. Cancel-safe as
/// [`Sender::reserve`]'s; polled after it completed, it panics.
#[must_use = "futures do nothing unless awaited"]
pub struct ReserveOwned<T> {
    /// `None` once the permit has it.
    sender: Option<Sender<T>>,
    /// Its place among the waiting senders, once queued.
    key: Option<Key>,
    site: Site,
}

impl<T> Future for ReserveOwned<T> {
    type Output = Result<OwnedPermit<T>, SendError<()>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let sender = this.sender.as_ref().expect("`ReserveOwned` polled after it completed");
        match poll_reserving(&sender.chan, &mut this.key, this.site, cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(())) => Poll::Ready(Ok(OwnedPermit { sender: this.sender.take(), site: this.site })),
            Poll::Ready(Err(e)) => {
                this.sender = None;
                Poll::Ready(Err(e))
            }
        }
    }
}

impl<T> Drop for ReserveOwned<T> {
    fn drop(&mut self) {
        if let (Some(sender), Some(key)) = (&self.sender, self.key.take()) {
            sender.chan.cancel_waiter(key);
        }
    }
}

impl<T> fmt::Debug for ReserveOwned<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReserveOwned").field("waiting", &self.key.is_some()).finish_non_exhaustive()
    }
}
