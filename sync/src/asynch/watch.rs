//! A single-producer, multi-consumer channel that keeps only the latest value.
//!
//! [`channel`] returns a [`Sender`] and a [`Receiver`]; receivers
//! [`borrow`](Receiver::borrow) the current value and await
//! [`changed`](Receiver::changed) to learn of a newer one.
//!
//! Invariants: the value lives in a std `RwLock`; the version, the liveness
//! of the sender, the receiver count and the queue of waiting `changed()`
//! futures live under one std mutex, always taken after the value lock.
//! A send bumps the version while still holding the value's write lock,
//! then wakes every waiter after releasing both, so a receiver that saw
//! version `v` and registered its waker cannot miss version `v + 1`. Each
//! receiver remembers the version it last marked seen.

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::ops::Deref;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError, RwLock, RwLockReadGuard};
use std::task::{Context, Poll, Waker};

use super::batch::lock;
use super::vis::{Op, Site, Visible};
use super::wait_list::{Key, WaitList};

const KIND: &str = "Watch";

/// Creates a watch channel holding `init`; receivers start having seen it.
#[track_caller]
pub fn channel<T>(init: T) -> (Sender<T>, Receiver<T>) {
    let state = State { version: 0, tx_alive: true, receivers: 1, waiters: WaitList::new() };
    let shared = Arc::new(Shared { value: RwLock::new(init), state: Mutex::new(state), vis: Visible::new() });
    let site = Site::here();
    (Sender { shared: shared.clone(), site }, Receiver { shared, seen: 0, site })
}

#[derive(Debug)]
struct Shared<T> {
    value: RwLock<T>,
    state: Mutex<State>,
    vis: Visible,
}

#[derive(Debug)]
struct State {
    version: u64,
    tx_alive: bool,
    receivers: usize,
    /// Wakers of pending `changed()` futures.
    waiters: WaitList<Option<Waker>>,
}

impl State {
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

    fn read(&self) -> Ref<'_, T> {
        Ref { guard: self.value.read().unwrap_or_else(PoisonError::into_inner) }
    }
}

/// Publishes values; see [`channel`].
#[derive(Debug)]
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
    /// Where the channel was made: names the sender's drop in a trace.
    site: Site,
}

/// Observes the latest value; see [`channel`]. Cloning adds a receiver with the same seen version.
#[derive(Debug)]
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The version this receiver last marked seen.
    seen: u64,
    /// Where it was made (the channel, a subscribe or a clone): names its drop in a trace.
    site: Site,
}

/// A read borrow of the current value; holds a read lock, so keep it short and do not hold it across `.await`.
#[derive(Debug)]
pub struct Ref<'a, T> {
    guard: RwLockReadGuard<'a, T>,
}

impl<T> Deref for Ref<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.guard
    }
}

/// Every receiver is gone; the value is given back.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct SendError<T>(pub T);

/// The sender is gone and no unseen value remains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecvError(());

impl<T> Sender<T> {
    /// Publishes `value` and wakes every waiting receiver; fails if there are no receivers.
    #[track_caller]
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        self.shared.step(Op::Send, Site::here());
        if lock(&self.shared.state).receivers == 0 {
            return Err(SendError(value));
        }
        self.replace(value);
        Ok(())
    }

    /// Publishes `value` even with no receivers and returns the previous value.
    #[track_caller]
    pub fn send_replace(&self, value: T) -> T {
        self.shared.step(Op::Send, Site::here());
        self.replace(value)
    }

    /// Changes the value in place with `modify`, and publishes it (waking
    /// every waiting receiver) if `modify` returns true; receivers or not.
    /// Returns what `modify` returned.
    #[track_caller]
    pub fn send_if_modified(&self, modify: impl FnOnce(&mut T) -> bool) -> bool {
        self.shared.step(Op::Send, Site::here());
        let mut slot = self.shared.value.write().unwrap_or_else(PoisonError::into_inner);
        if !modify(&mut slot) {
            return false;
        }
        let mut s = lock(&self.shared.state);
        s.version += 1;
        let wakers = s.take_wakers();
        drop(s);
        drop(slot);
        wakers.into_iter().for_each(Waker::wake);
        true
    }

    /// Changes the value in place with `modify` and publishes it, receivers
    /// or not.
    #[track_caller]
    pub fn send_modify(&self, modify: impl FnOnce(&mut T)) {
        self.send_if_modified(|v| {
            modify(v);
            true
        });
    }

    fn replace(&self, value: T) -> T {
        let mut slot = self.shared.value.write().unwrap_or_else(PoisonError::into_inner);
        let old = std::mem::replace(&mut *slot, value);
        let mut s = lock(&self.shared.state);
        s.version += 1;
        let wakers = s.take_wakers();
        drop(s);
        drop(slot);
        wakers.into_iter().for_each(Waker::wake);
        old
    }

    /// Borrows the current value.
    #[track_caller]
    pub fn borrow(&self) -> Ref<'_, T> {
        self.shared.step(Op::Recv, Site::here());
        self.shared.read()
    }

    /// Creates a receiver that has seen the current value.
    #[track_caller]
    pub fn subscribe(&self) -> Receiver<T> {
        let site = Site::here();
        self.shared.step(Op::Load, site);
        let mut s = lock(&self.shared.state);
        s.receivers += 1;
        Receiver { shared: self.shared.clone(), seen: s.version, site }
    }

    /// Returns the number of receivers.
    #[track_caller]
    pub fn receiver_count(&self) -> usize {
        self.shared.step(Op::Load, Site::here());
        lock(&self.shared.state).receivers
    }

    /// Returns true if there are no receivers.
    #[track_caller]
    pub fn is_closed(&self) -> bool {
        self.receiver_count() == 0
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.shared.step(Op::Close, self.site);
        let mut s = lock(&self.shared.state);
        s.tx_alive = false;
        let wakers = s.take_wakers();
        drop(s);
        wakers.into_iter().for_each(Waker::wake);
    }
}

impl<T> Receiver<T> {
    /// Borrows the current value without marking it seen.
    #[track_caller]
    pub fn borrow(&self) -> Ref<'_, T> {
        self.shared.step(Op::Recv, Site::here());
        self.shared.read()
    }

    /// Borrows the current value and marks it seen.
    #[track_caller]
    pub fn borrow_and_update(&mut self) -> Ref<'_, T> {
        self.shared.step(Op::Recv, Site::here());
        let r = self.shared.read();
        // The version cannot move while we hold the read lock (a send bumps it under the write lock).
        self.seen = lock(&self.shared.state).version;
        r
    }

    /// Returns true if a value newer than the last seen one was sent; fails once the sender is gone.
    #[track_caller]
    pub fn has_changed(&self) -> Result<bool, RecvError> {
        self.shared.step(Op::TryRecv, Site::here());
        let s = lock(&self.shared.state);
        if !s.tx_alive {
            return Err(RecvError(()));
        }
        Ok(s.version != self.seen)
    }

    /// Waits for a value newer than the last seen one and marks it seen.
    ///
    /// Fails once the sender is gone and every sent value was seen. Cancel-safe.
    #[track_caller]
    pub fn changed(&mut self) -> impl Future<Output = Result<(), RecvError>> + '_ {
        Changed { rx: self, key: None, site: Site::here() }
    }
}

impl<T> Clone for Receiver<T> {
    #[track_caller]
    fn clone(&self) -> Self {
        lock(&self.shared.state).receivers += 1;
        Receiver { shared: self.shared.clone(), seen: self.seen, site: Site::here() }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.shared.step(Op::Close, self.site);
        lock(&self.shared.state).receivers -= 1;
    }
}

struct Changed<'a, T> {
    rx: &'a mut Receiver<T>,
    key: Option<Key>,
    site: Site,
}

impl<T> Future for Changed<'_, T> {
    type Output = Result<(), RecvError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        this.rx.shared.step(Op::Recv, this.site);
        let mut s = lock(&this.rx.shared.state);
        let ready = if s.version != this.rx.seen {
            this.rx.seen = s.version;
            Ok(())
        } else if !s.tx_alive {
            Err(RecvError(()))
        } else {
            s.waiters.register(&mut this.key, cx.waker());
            return Poll::Pending;
        };
        if let Some(key) = this.key.take() {
            s.waiters.remove(key);
        }
        Poll::Ready(ready)
    }
}

impl<T> Drop for Changed<'_, T> {
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
        f.write_str("sender dropped")
    }
}

impl Error for RecvError {}
