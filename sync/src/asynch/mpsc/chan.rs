//! The state of one `async_mpsc` channel, behind a single std mutex.
//!
//! Every operation takes the lock once: a send checks the free capacity
//! and queues its message in the same critical section, and a receive
//! pops a message and hands its slot to the first waiting sender (or back
//! to the pool) in the same one. Earlier versions kept the capacity in a
//! separate fair semaphore (`batch`) and so took two locks per message on
//! each side.
//!
//! Invariants, under the lock:
//! - Bounded: `queue.len() + granted + permits == capacity`, where
//!   `granted` counts the senders that were handed a slot and have not
//!   queued their message (or given the slot back) yet, and the slots
//!   reserved for a message to come (a permit: `mpsc/permit.rs`).
//! - If a sender is waiting, `permits == 0`: a freed slot goes to the
//!   head of `waiters` first, so waiting senders are served in FIFO order
//!   and a new send never overtakes them.
//! - A dequeued waiter's slot holds its outcome ([`Outcome::Granted`] or
//!   [`Outcome::Closed`]); its send future frees the slot when it reads
//!   the outcome or is dropped, and hands a granted slot on when dropped,
//!   so cancelling a pending send never loses capacity.
//! - `rx_closed` is set once and never cleared; from then on no waiter is
//!   queued.
//! - Wakers are woken after the lock is released.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};
use std::task::{Context, Waker};

use super::super::batch::lock;
use super::super::vis::{note, Op, Site, Visible};
use super::super::wait_list::{Key, WaitList};

const KIND: &str = "AsyncChannel";

/// The shared state of a channel; see the module docs.
#[derive(Debug)]
pub(super) struct Chan<T> {
    state: Mutex<State<T>>,
    /// Whether sends wait for a free slot.
    bounded: bool,
    /// The capacity it was made with (0 when unbounded).
    max: usize,
    vis: Visible,
}

#[derive(Debug)]
struct State<T> {
    queue: VecDeque<T>,
    senders: usize,
    rx_closed: bool,
    rx_waker: Option<Waker>,
    /// Free slots of a bounded channel; unused when unbounded.
    permits: usize,
    /// Senders waiting for a slot, in arrival order.
    waiters: WaitList<Waiter>,
}

#[derive(Debug)]
struct Waiter {
    waker: Option<Waker>,
    outcome: Outcome,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Waiting,
    Granted,
    Closed,
}

/// What one attempt of a send found.
pub(super) enum Attempt<T> {
    /// The message is queued.
    Sent,
    /// The receiver is closed; the message is given back.
    Closed(T),
    /// No free slot: the sender waits under `Key` (kept by the send future).
    Wait(Key, T),
    /// Bounded `try_send` only: no free slot now.
    Full(T),
}

/// What an attempt to reserve a slot found ([`Chan::try_reserve`]).
pub(super) enum Reserve {
    /// A slot is the caller's (counted as granted) until it sends into it
    /// or gives it back.
    Reserved,
    /// The receiver is closed.
    Closed,
    /// No free slot: the caller waits under `Key`.
    Wait(Key),
    /// No free slot now, and the caller does not wait.
    Full,
}

/// What a waiting sender's slot holds when polled ([`Chan::poll_grant`]).
enum Grant {
    Waiting,
    Closed,
    Granted,
}

/// What a receive found.
pub(super) enum Take<T> {
    Message(T),
    Empty,
    Disconnected,
}

impl<T> Chan<T> {
    /// A channel with one sender; `capacity` is `None` when unbounded.
    pub(super) fn new(capacity: Option<usize>) -> Chan<T> {
        let state = State {
            queue: VecDeque::new(),
            senders: 1,
            rx_closed: false,
            rx_waker: None,
            permits: capacity.unwrap_or(0),
            waiters: WaitList::new(),
        };
        Chan { state: Mutex::new(state), bounded: capacity.is_some(), max: capacity.unwrap_or(0), vis: Visible::new() }
    }

    /// Announces `op` on the channel's object inside an exploration.
    pub(super) fn step(&self, op: Op, site: Site) {
        self.vis.step(KIND, op, site);
    }

    /// Sends `value` if there is room (or the channel is unbounded). With
    /// `cx`, a sender that finds no room is queued as a waiter; without, it
    /// gets [`Attempt::Full`].
    pub(super) fn try_push(&self, value: T, cx: Option<&mut Context<'_>>) -> Attempt<T> {
        let mut s = lock(&self.state);
        if s.rx_closed {
            return Attempt::Closed(value);
        }
        if self.bounded {
            // A waiting sender implies `permits == 0`: this never overtakes one.
            if s.permits == 0 {
                let Some(cx) = cx else { return Attempt::Full(value) };
                let key = s.waiters.push_back(Waiter { waker: Some(cx.waker().clone()), outcome: Outcome::Waiting });
                return Attempt::Wait(key, value);
            }
            s.permits -= 1;
        }
        push(s, value)
    }

    /// Polls the waiter `key` again: sends `value` once it was granted a
    /// slot (freeing the waiter), or refreshes its waker while it waits.
    pub(super) fn poll_waiter(&self, key: Key, value: T, cx: &mut Context<'_>) -> Attempt<T> {
        match self.poll_grant(key, cx) {
            (_, Grant::Waiting) => Attempt::Wait(key, value),
            (_, Grant::Closed) => Attempt::Closed(value),
            (s, Grant::Granted) => push(s, value),
        }
    }

    /// Looks at the waiter `key`'s slot: still waiting (its waker
    /// refreshed), or closed or granted, the waiter freed (a slot granted
    /// after the receiver closed goes back to the pool: closing dequeued
    /// every waiter). Returns the guard with it, for a granted slot's use.
    fn poll_grant(&self, key: Key, cx: &mut Context<'_>) -> (MutexGuard<'_, State<T>>, Grant) {
        let mut s = lock(&self.state);
        let outcome = s.waiters.get_mut(key).outcome;
        let grant = match outcome {
            Outcome::Waiting => {
                match &mut s.waiters.get_mut(key).waker {
                    Some(old) if old.will_wake(cx.waker()) => {}
                    slot => *slot = Some(cx.waker().clone()),
                }
                Grant::Waiting
            }
            Outcome::Closed => {
                s.waiters.remove(key);
                Grant::Closed
            }
            Outcome::Granted => {
                s.waiters.remove(key);
                if s.rx_closed {
                    s.permits += 1;
                    Grant::Closed
                } else {
                    Grant::Granted
                }
            }
        };
        (s, grant)
    }

    /// Reserves a slot of a bounded channel (any channel has room for an
    /// unbounded one), as [`Chan::try_push`] takes one for a message; with
    /// `cx`, a caller that finds none waits in the senders' queue.
    pub(super) fn try_reserve(&self, cx: Option<&mut Context<'_>>) -> Reserve {
        let mut s = lock(&self.state);
        if s.rx_closed {
            return Reserve::Closed;
        }
        if self.bounded {
            if s.permits == 0 {
                let Some(cx) = cx else { return Reserve::Full };
                let key = s.waiters.push_back(Waiter { waker: Some(cx.waker().clone()), outcome: Outcome::Waiting });
                return Reserve::Wait(key);
            }
            s.permits -= 1;
        }
        Reserve::Reserved
    }

    /// Polls the reserving waiter `key` again: reserved once it was
    /// granted a slot (freeing the waiter), or its waker refreshed.
    pub(super) fn poll_reservation(&self, key: Key, cx: &mut Context<'_>) -> Reserve {
        match self.poll_grant(key, cx).1 {
            Grant::Waiting => Reserve::Wait(key),
            Grant::Closed => Reserve::Closed,
            Grant::Granted => Reserve::Reserved,
        }
    }

    /// Queues `value` into a reserved slot; once the receiver is closed the
    /// slot goes back to the pool and `value` is dropped, as tokio's
    /// permits do.
    pub(super) fn send_reserved(&self, value: T) {
        let mut s = lock(&self.state);
        if s.rx_closed {
            if self.bounded {
                s.permits += 1;
            }
            drop(s);
            drop(value);
            return;
        }
        let _ = push(s, value);
    }

    /// Gives a reserved slot back unused: to the first waiting sender, or
    /// to the pool.
    pub(super) fn release_reserved(&self) {
        if !self.bounded {
            return;
        }
        let waker = lock(&self.state).free_slot();
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Forgets the waiter `key` of a dropped send future, passing on a
    /// slot it had been granted.
    pub(super) fn cancel_waiter(&self, key: Key) {
        let mut s = lock(&self.state);
        let waker = match s.waiters.remove(key).outcome {
            Outcome::Granted => s.free_slot(),
            Outcome::Waiting | Outcome::Closed => None,
        };
        drop(s);
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Pops the next message (freeing its slot) or, when empty and given
    /// `cx`, stores the receiver's waker.
    pub(super) fn take(&self, cx: Option<&mut Context<'_>>) -> Take<T> {
        let mut s = lock(&self.state);
        match s.queue.pop_front() {
            Some(v) => {
                let waker = if self.bounded { s.free_slot() } else { None };
                drop(s);
                if let Some(w) = waker {
                    w.wake();
                }
                Take::Message(v)
            }
            None if s.senders == 0 || s.rx_closed => Take::Disconnected,
            None => {
                if let Some(cx) = cx {
                    s.rx_waker = Some(cx.waker().clone());
                }
                Take::Empty
            }
        }
    }

    /// Refuses further messages and fails every waiting sender; with
    /// `drain`, also drops the queued messages (after the wakes, outside
    /// the lock).
    pub(super) fn close(&self, drain: bool) {
        let mut s = lock(&self.state);
        s.rx_closed = true;
        let mut wakers = Vec::new();
        while let Some(key) = s.waiters.pop_front() {
            let w = s.waiters.get_mut(key);
            w.outcome = Outcome::Closed;
            wakers.extend(w.waker.take());
        }
        let queued = if drain { std::mem::take(&mut s.queue) } else { VecDeque::new() };
        drop(s);
        let left = queued.len();
        if left > 0 {
            note(&|| format!("{left} message{} dropped unreceived", if left == 1 { "" } else { "s" }));
        }
        wakers.into_iter().for_each(Waker::wake);
        drop(queued);
    }

    pub(super) fn add_sender(&self) {
        lock(&self.state).senders += 1;
    }

    pub(super) fn drop_sender(&self) {
        let mut s = lock(&self.state);
        s.senders -= 1;
        let waker = if s.senders == 0 { s.rx_waker.take() } else { None };
        drop(s);
        if let Some(w) = waker {
            w.wake();
        }
    }

    pub(super) fn is_closed(&self) -> bool {
        lock(&self.state).rx_closed
    }

    /// The free slots of a bounded channel (0 when unbounded).
    pub(super) fn capacity(&self) -> usize {
        if self.bounded {
            lock(&self.state).permits
        } else {
            0
        }
    }

    /// The capacity it was made with (0 when unbounded).
    pub(super) fn max_capacity(&self) -> usize {
        self.max
    }

    /// Messages queued.
    pub(super) fn len(&self) -> usize {
        lock(&self.state).queue.len()
    }

    /// Whether nothing more can arrive: the receiver closed, or every
    /// sender is gone.
    pub(super) fn is_finished(&self) -> bool {
        let s = lock(&self.state);
        s.rx_closed || s.senders == 0
    }
}

/// Queues `value` (its slot already taken) and wakes the receiver; takes
/// the guard so that the wake happens after unlocking.
fn push<T>(mut s: MutexGuard<'_, State<T>>, value: T) -> Attempt<T> {
    s.queue.push_back(value);
    let waker = s.rx_waker.take();
    drop(s);
    if let Some(w) = waker {
        w.wake();
    }
    Attempt::Sent
}

impl<T> State<T> {
    /// Hands one freed slot to the first waiting sender, or to the pool;
    /// returns the waker to wake after unlocking.
    fn free_slot(&mut self) -> Option<Waker> {
        match self.waiters.pop_front() {
            Some(key) => {
                let w = self.waiters.get_mut(key);
                w.outcome = Outcome::Granted;
                w.waker.take()
            }
            None => {
                self.permits += 1;
                None
            }
        }
    }
}
