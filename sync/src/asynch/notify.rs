//! Task notification with a stored permit, as in tokio.
//!
//! State, under one std mutex: `permit` (at most one stored
//! [`notify_one`](Notify::notify_one)), `calls` (how many times
//! [`notify_waiters`](Notify::notify_waiters) ran) and a FIFO list of
//! queued [`Notified`] futures. Invariants:
//! - `permit` is only set while no waiter is queued: `notify_one` hands a
//!   notification to the first waiter if there is one, else stores it.
//! - A [`Notified`] completes once it was handed a notification, took the
//!   permit, or `calls` changed since it was created.
//! - A future dropped after `notify_one` picked it but before it was polled
//!   passes that notification on (to the next waiter, or back to `permit`),
//!   so it is never lost.

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll, Waker};

use super::batch::lock;
use super::vis::{Op, Site, Visible};
use super::wait_list::{Key, WaitList};

const KIND: &str = "Notify";

/// Wakes one waiting task or all of them; a wakeup with nobody waiting is kept as a permit.
///
/// [`notify_one`](Notify::notify_one) wakes the longest-waiting
/// [`notified`](Notify::notified) future; if none waits, it stores one
/// permit (several calls still store one) that the next `notified().await`
/// consumes at once. [`notify_waiters`](Notify::notify_waiters) wakes every
/// future that exists at the time of the call (polled or not) and stores
/// nothing.
#[derive(Debug)]
pub struct Notify {
    state: Mutex<State>,
    vis: Visible,
}

#[derive(Debug)]
struct State {
    permit: bool,
    calls: u64,
    waiters: WaitList<Waiter>,
}

#[derive(Debug)]
struct Waiter {
    waker: Option<Waker>,
    notified: Option<Kind>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    One,
    All,
}

impl Default for Notify {
    fn default() -> Self {
        Notify::new()
    }
}

impl Notify {
    /// Creates a `Notify` with no stored permit.
    pub const fn new() -> Self {
        Notify { state: Mutex::new(State { permit: false, calls: 0, waiters: WaitList::new() }), vis: Visible::new() }
    }

    /// Returns a future that completes when this `Notify` is notified.
    ///
    /// The future is woken by any [`notify_waiters`](Notify::notify_waiters)
    /// from now on; it joins the queue for [`notify_one`](Notify::notify_one)
    /// when first polled. Cancel-safe: a notification given to a dropped
    /// future is passed on.
    #[track_caller]
    pub fn notified(&self) -> Notified<'_> {
        let site = Site::here();
        self.vis.step(KIND, Op::Load, site);
        Notified { notify: self, calls: lock(&self.state).calls, key: None, done: false, site }
    }

    /// Wakes the first queued waiter, or stores a permit if none is queued.
    #[track_caller]
    pub fn notify_one(&self) {
        self.vis.step(KIND, Op::NotifyOne, Site::here());
        let mut s = lock(&self.state);
        let waker = s.notify_one();
        drop(s);
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Wakes every waiter that exists now; stores no permit.
    #[track_caller]
    pub fn notify_waiters(&self) {
        self.vis.step(KIND, Op::NotifyAll, Site::here());
        let mut s = lock(&self.state);
        s.calls += 1;
        let mut wakers = Vec::new();
        while let Some(key) = s.waiters.pop_front() {
            let w = s.waiters.get_mut(key);
            w.notified = Some(Kind::All);
            wakers.extend(w.waker.take());
        }
        drop(s);
        wakers.into_iter().for_each(Waker::wake);
    }
}

impl State {
    fn notify_one(&mut self) -> Option<Waker> {
        match self.waiters.pop_front() {
            Some(key) => {
                let w = self.waiters.get_mut(key);
                w.notified = Some(Kind::One);
                w.waker.take()
            }
            None => {
                self.permit = true;
                None
            }
        }
    }
}

/// Future of [`Notify::notified`].
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub struct Notified<'a> {
    notify: &'a Notify,
    /// `State::calls` when created: a change means `notify_waiters` ran since.
    calls: u64,
    key: Option<Key>,
    done: bool,
    site: Site,
}

impl Future for Notified<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(());
        }
        this.notify.vis.step(KIND, Op::Wait, this.site);
        let mut s = lock(&this.notify.state);
        match this.key {
            None => {
                if s.calls != this.calls {
                    // A `notify_waiters` since creation.
                } else if s.permit {
                    s.permit = false;
                } else {
                    let waiter = Waiter { waker: Some(cx.waker().clone()), notified: None };
                    this.key = Some(s.waiters.push_back(waiter));
                    return Poll::Pending;
                }
            }
            Some(key) => {
                let w = s.waiters.get_mut(key);
                if w.notified.is_none() {
                    match &mut w.waker {
                        Some(old) if old.will_wake(cx.waker()) => {}
                        slot => *slot = Some(cx.waker().clone()),
                    }
                    return Poll::Pending;
                }
                s.waiters.remove(key);
                this.key = None;
            }
        }
        this.done = true;
        Poll::Ready(())
    }
}

impl Drop for Notified<'_> {
    fn drop(&mut self) {
        let Some(key) = self.key.take() else { return };
        let mut s = lock(&self.notify.state);
        let w = s.waiters.remove(key);
        let waker = if w.notified == Some(Kind::One) { s.notify_one() } else { None };
        drop(s);
        if let Some(w) = waker {
            w.wake();
        }
    }
}
