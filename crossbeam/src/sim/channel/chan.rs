//! The channel itself: a queue under one samaritan mutex, one condition
//! variable every change notifies, and the selectors waiting on it.
//!
//! Invariants:
//! - Every change of `State` that could let a waiter go on notifies
//!   `changed` (all waiters) and fires every registered [`Signal`].
//! - With capacity 0 the queue holds the senders waiting to hand a
//!   message over (a rendezvous): a blocking `send` waits until its
//!   message is taken (`taken` passes its number) or every receiver is
//!   gone; a non-blocking send goes in only while a receiver waits for
//!   one (`waiting_receivers` exceeds the queue and the reservations).
//! - A select that chose an operation reserved it: a received message is
//!   in `handed` under the selecting thread, a send slot counted in
//!   `reserved` (its thread in `reserving`).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

use crossbeam::channel::{RecvTimeoutError, SendError, SendTimeoutError, TryRecvError, TrySendError};
use samaritan::sync::{Condvar, Mutex, MutexGuard};
use samaritan::thread::{self, ThreadId};

use super::signal::Signal;
use crate::sim::unpoisoned;

/// A channel's state, under its mutex.
pub(crate) struct State<T> {
    queue: VecDeque<(u64, T)>,
    /// `None`: unbounded.
    cap: Option<usize>,
    next_seq: u64,
    /// One past the number of the last message taken.
    taken: u64,
    pub(crate) senders: usize,
    pub(crate) receivers: usize,
    /// Receivers blocked in a receive, or selecting one, right now, by
    /// thread: a select's own receive does not pair with its own send.
    waiting_receivers: Vec<ThreadId>,
    /// Threads blocked on `changed` right now.
    blocked: usize,
    reserved: usize,
    reserving: Vec<ThreadId>,
    /// Messages (or, `None`, the disconnection) selects took.
    handed: Vec<(ThreadId, Option<T>)>,
    signals: Vec<Arc<Signal>>,
}

/// A channel shared by its senders and receivers.
pub(crate) struct Chan<T> {
    state: Mutex<State<T>>,
    changed: Condvar,
}

/// Removes one `thread` from `waiting`.
fn remove_one(waiting: &mut Vec<ThreadId>, thread: ThreadId) {
    if let Some(at) = waiting.iter().position(|t| *t == thread) {
        waiting.swap_remove(at);
    }
}

impl<T> State<T> {
    fn is_rendezvous(&self) -> bool {
        self.cap == Some(0)
    }

    /// Whether a send may go in now without waiting: with capacity 0,
    /// whether a receiver on another thread waits for it.
    fn has_room(&self) -> bool {
        match self.cap {
            None => true,
            Some(0) => {
                let me = thread::current().id();
                let others = self.waiting_receivers.iter().filter(|t| **t != me).count();
                others > self.queue.len() + self.reserved
            }
            Some(cap) => self.queue.len() + self.reserved < cap,
        }
    }

    fn push(&mut self, value: T) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queue.push_back((seq, value));
        seq
    }

    fn pop(&mut self) -> Option<T> {
        let (seq, value) = self.queue.pop_front()?;
        self.taken = seq + 1;
        Some(value)
    }

    /// Takes back a rendezvous message nobody took.
    fn remove(&mut self, seq: u64) -> Option<T> {
        let at = self.queue.iter().position(|(s, _)| *s == seq)?;
        self.queue.remove(at).map(|(_, v)| v)
    }

    pub(crate) fn len(&self) -> usize {
        if self.is_rendezvous() {
            0
        } else {
            self.queue.len()
        }
    }

    pub(crate) fn capacity(&self) -> Option<usize> {
        self.cap
    }

    pub(crate) fn is_full(&self) -> bool {
        self.cap.is_some_and(|cap| self.len() >= cap)
    }
}

impl<T> Drop for State<T> {
    /// Drops the messages left one at a time, front first; if one's
    /// `Drop` panics, the ones after it leak (crossbeam's behaviour),
    /// instead of a second panic aborting the process.
    fn drop(&mut self) {
        let mut left = std::mem::ManuallyDrop::new(std::mem::take(&mut self.queue));
        while let Some((_, value)) = left.pop_front() {
            drop(value);
        }
        // Only reached without a panic: the (empty) buffer is freed.
        drop(std::mem::ManuallyDrop::into_inner(left));
    }
}

impl<T> Chan<T> {
    pub(crate) fn new(cap: Option<usize>) -> Chan<T> {
        Chan {
            state: Mutex::new(State {
                queue: VecDeque::new(),
                cap,
                next_seq: 0,
                taken: 0,
                senders: 1,
                receivers: 1,
                waiting_receivers: Vec::new(),
                blocked: 0,
                reserved: 0,
                reserving: Vec::new(),
                handed: Vec::new(),
                signals: Vec::new(),
            }),
            changed: Condvar::new(),
        }
    }

    #[track_caller]
    pub(crate) fn lock(&self) -> MutexGuard<'_, State<T>> {
        unpoisoned(self.state.lock())
    }

    /// Wakes every waiter of the channel, blocked or selecting (a step
    /// only when there is one).
    #[track_caller]
    pub(crate) fn notify(&self, state: &State<T>) {
        self.notify_except(state, None);
    }

    /// As [`Chan::notify`], but not `except` (a selector registering must
    /// not wake itself).
    #[track_caller]
    fn notify_except(&self, state: &State<T>, except: Option<&Arc<Signal>>) {
        if state.blocked > 0 {
            self.changed.notify_all();
        }
        for s in state.signals.iter().filter(|s| except.is_none_or(|e| !Arc::ptr_eq(s, e))) {
            s.fire();
        }
    }

    /// Waits while `blocked` holds of the state, until `deadline` if
    /// there is one; returns the guard and whether the deadline passed
    /// with `blocked` still holding. (`wait_while` does not wake
    /// spuriously: the channel's own waits add no spurious wake-ups to
    /// the exploration.)
    #[track_caller]
    fn wait_while<'a>(
        &'a self,
        mut guard: MutexGuard<'a, State<T>>,
        deadline: Option<Instant>,
        mut blocked: impl FnMut(&mut State<T>) -> bool,
    ) -> (MutexGuard<'a, State<T>>, bool) {
        if !blocked(&mut guard) {
            return (guard, false);
        }
        guard.blocked += 1;
        let (mut guard, timed_out) = match deadline {
            None => (unpoisoned(self.changed.wait_while(guard, |st| blocked(st))), false),
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    (guard, true)
                } else {
                    let (guard, result) = unpoisoned(self.changed.wait_timeout_while(guard, left, |st| blocked(st)));
                    (guard, result.timed_out())
                }
            }
        };
        guard.blocked -= 1;
        (guard, timed_out)
    }

    /// Sends, waiting until `deadline` (`None`: for ever).
    #[track_caller]
    pub(crate) fn send(&self, value: T, deadline: Option<Instant>) -> Result<(), SendTimeoutError<T>> {
        let mut st = self.lock();
        if st.is_rendezvous() {
            if st.receivers == 0 {
                return Err(SendTimeoutError::Disconnected(value));
            }
            let seq = st.push(value);
            self.notify(&st);
            let (mut st, _) = self.wait_while(st, deadline, |st| st.taken <= seq && st.receivers > 0);
            if st.taken > seq {
                return Ok(());
            }
            return match st.remove(seq) {
                None => Ok(()),
                Some(v) if st.receivers == 0 => Err(SendTimeoutError::Disconnected(v)),
                Some(v) => Err(SendTimeoutError::Timeout(v)),
            };
        }
        let (mut st, _) = self.wait_while(st, deadline, |st| st.receivers > 0 && !st.has_room());
        if st.receivers == 0 {
            return Err(SendTimeoutError::Disconnected(value));
        }
        if !st.has_room() {
            return Err(SendTimeoutError::Timeout(value));
        }
        st.push(value);
        self.notify(&st);
        Ok(())
    }

    /// Sends if it can without waiting.
    #[track_caller]
    pub(crate) fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        let mut st = self.lock();
        if st.receivers == 0 {
            return Err(TrySendError::Disconnected(value));
        }
        if !st.has_room() {
            return Err(TrySendError::Full(value));
        }
        st.push(value);
        self.notify(&st);
        Ok(())
    }

    /// Receives, waiting until `deadline` (`None`: for ever).
    #[track_caller]
    pub(crate) fn recv(&self, deadline: Option<Instant>) -> Result<T, RecvTimeoutError> {
        let mut st = self.lock();
        let rendezvous = st.is_rendezvous();
        if rendezvous {
            st.waiting_receivers.push(thread::current().id());
            self.notify(&st);
        }
        let (mut st, _) = self.wait_while(st, deadline, |st| st.queue.is_empty() && st.senders > 0);
        let result = match st.pop() {
            Some(value) => {
                self.notify(&st);
                Ok(value)
            }
            None if st.senders == 0 => Err(RecvTimeoutError::Disconnected),
            None => Err(RecvTimeoutError::Timeout),
        };
        if rendezvous {
            remove_one(&mut st.waiting_receivers, thread::current().id());
        }
        result
    }

    /// Receives if a message (or a waiting rendezvous sender) is there.
    #[track_caller]
    pub(crate) fn try_recv(&self) -> Result<T, TryRecvError> {
        let mut st = self.lock();
        match st.pop() {
            Some(value) => {
                self.notify(&st);
                Ok(value)
            }
            None if st.senders == 0 => Err(TryRecvError::Disconnected),
            None => Err(TryRecvError::Empty),
        }
    }

    /// A sender or receiver is gone: the other side may be disconnected.
    #[track_caller]
    pub(crate) fn drop_side(&self, sender: bool) {
        let mut st = self.lock();
        if sender {
            st.senders -= 1;
        } else {
            st.receivers -= 1;
        }
        if st.senders == 0 || st.receivers == 0 {
            self.notify(&st);
        }
    }

    // The select operations (`super::select`).

    /// Whether a receive could go on now (a message, or disconnected).
    #[track_caller]
    pub(crate) fn recv_ready(&self) -> bool {
        let st = self.lock();
        !st.queue.is_empty() || st.senders == 0
    }

    /// Takes a message (or the disconnection) for the selecting thread.
    #[track_caller]
    pub(crate) fn reserve_recv(&self) -> bool {
        let mut st = self.lock();
        let taken = match st.pop() {
            Some(value) => Some(value),
            None if st.senders == 0 => None,
            None => return false,
        };
        let got = taken.is_some();
        st.handed.push((thread::current().id(), taken));
        if got {
            self.notify(&st);
        }
        true
    }

    /// The selecting thread's reserved message.
    #[track_caller]
    pub(crate) fn take_handed(&self) -> Option<T> {
        let me = thread::current().id();
        let mut st = self.lock();
        let at = st.handed.iter().position(|(t, _)| *t == me).expect("a select reserved this receive");
        st.handed.remove(at).1
    }

    /// Whether a send could go on now (room, or disconnected).
    #[track_caller]
    pub(crate) fn send_ready(&self) -> bool {
        let st = self.lock();
        st.has_room() || st.receivers == 0
    }

    /// Reserves a send slot for the selecting thread.
    #[track_caller]
    pub(crate) fn reserve_send(&self) -> bool {
        let mut st = self.lock();
        if st.receivers == 0 {
            return true;
        }
        if !st.has_room() {
            return false;
        }
        st.reserved += 1;
        st.reserving.push(thread::current().id());
        true
    }

    /// Sends into the selecting thread's reserved slot (it does not wait
    /// for a rendezvous receiver: one was waiting).
    #[track_caller]
    pub(crate) fn send_reserved(&self, value: T) -> Result<(), SendError<T>> {
        let me = thread::current().id();
        let mut st = self.lock();
        if let Some(at) = st.reserving.iter().position(|t| *t == me) {
            st.reserving.remove(at);
            st.reserved -= 1;
        }
        if st.receivers == 0 {
            self.notify(&st);
            return Err(SendError(value));
        }
        st.push(value);
        self.notify(&st);
        Ok(())
    }

    /// Registers a selector; a receive's also counts as a waiting receiver
    /// for a rendezvous sender.
    #[track_caller]
    pub(crate) fn register(&self, signal: &Arc<Signal>, receiving: bool) {
        let mut st = self.lock();
        st.signals.push(signal.clone());
        if receiving && st.is_rendezvous() {
            st.waiting_receivers.push(thread::current().id());
            // A rendezvous sender may go on now; the selector's own signal
            // is not fired (it would wake itself).
            self.notify_except(&st, Some(signal));
        }
    }

    /// Undoes [`Chan::register`].
    #[track_caller]
    pub(crate) fn unregister(&self, signal: &Arc<Signal>, receiving: bool) {
        let mut st = self.lock();
        st.signals.retain(|s| !Arc::ptr_eq(s, signal));
        if receiving && st.is_rendezvous() {
            remove_one(&mut st.waiting_receivers, thread::current().id());
        }
    }
}
