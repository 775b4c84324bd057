//! The fair counting semaphore every waiting primitive here is built on.
//!
//! A permit count and a FIFO [`WaitList`] behind one std mutex. Acquiring
//! `n` permits either takes them at once or queues; released permits go to
//! the head of the queue first, possibly in parts, so a large request (a
//! writer) is never starved by a stream of small ones (readers).
//!
//! Invariants, under the lock:
//! - If any waiter is queued, `permits == 0`: released permits always go to
//!   the head first, and only the rest returns to the pool.
//! - Only the head can hold a partial assignment (`remaining < requested`).
//! - A dequeued waiter's slot holds its outcome: `Granted` means it owns all
//!   `requested` permits; `Closed` means any partial assignment was already
//!   returned to the pool. The waiting future frees its slot when it reads
//!   the outcome or is dropped; on drop it hands back what it was given, so
//!   cancelling a pending acquire never loses permits (cancellation safety).
//! - Wakers are woken after the lock is released.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use super::semaphore::{AcquireError, TryAcquireError};
use super::wait_list::{Key, WaitList};

/// Locks a std mutex, ignoring poisoning: every critical section here keeps the state consistent.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[derive(Debug)]
pub(crate) struct BatchSemaphore {
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    permits: usize,
    closed: bool,
    waiters: WaitList<Waiter>,
}

#[derive(Debug)]
struct Waiter {
    requested: usize,
    /// Permits still missing; `requested - remaining` are assigned to this waiter.
    remaining: usize,
    waker: Option<Waker>,
    outcome: Outcome,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Waiting,
    Granted,
    Closed,
}

/// The largest permit count a semaphore can hold.
pub(crate) const MAX_PERMITS: usize = usize::MAX >> 3;

impl BatchSemaphore {
    pub(crate) const fn new(permits: usize) -> Self {
        assert!(permits <= MAX_PERMITS, "a semaphore holds at most MAX_PERMITS permits");
        BatchSemaphore { state: Mutex::new(State { permits, closed: false, waiters: WaitList::new() }) }
    }

    pub(crate) fn available_permits(&self) -> usize {
        lock(&self.state).permits
    }

    pub(crate) fn is_closed(&self) -> bool {
        lock(&self.state).closed
    }

    pub(crate) fn try_acquire(&self, n: usize) -> Result<(), TryAcquireError> {
        let mut s = lock(&self.state);
        if s.closed {
            return Err(TryAcquireError::Closed);
        }
        // Queued waiters imply `permits == 0`, so this never barges past them.
        if s.permits >= n {
            s.permits -= n;
            Ok(())
        } else {
            Err(TryAcquireError::NoPermits)
        }
    }

    pub(crate) fn acquire(&self, n: usize) -> Acquire<'_> {
        Acquire { sem: self, n, key: None }
    }

    /// Returns `n` permits: to the queued waiters in order, then to the pool.
    pub(crate) fn release(&self, n: usize) {
        if n == 0 {
            return;
        }
        let mut s = lock(&self.state);
        let wakers = s.distribute(n);
        drop(s);
        wakers.into_iter().for_each(Waker::wake);
    }

    /// Closes the semaphore: queued and future acquires fail; held permits may still be released.
    pub(crate) fn close(&self) {
        let mut s = lock(&self.state);
        s.closed = true;
        let mut wakers = Vec::new();
        while let Some(key) = s.waiters.pop_front() {
            let w = s.waiters.get_mut(key);
            w.outcome = Outcome::Closed;
            let given = w.requested - w.remaining;
            wakers.extend(w.waker.take());
            s.permits += given;
        }
        drop(s);
        wakers.into_iter().for_each(Waker::wake);
    }
}

impl State {
    fn distribute(&mut self, mut n: usize) -> Vec<Waker> {
        let mut wakers = Vec::new();
        while n > 0 {
            let Some(key) = self.waiters.front() else { break };
            let w = self.waiters.get_mut(key);
            let give = n.min(w.remaining);
            w.remaining -= give;
            n -= give;
            if w.remaining > 0 {
                break;
            }
            w.outcome = Outcome::Granted;
            wakers.extend(w.waker.take());
            self.waiters.pop_front();
        }
        assert!(self.permits + n <= MAX_PERMITS, "a semaphore holds at most MAX_PERMITS permits");
        self.permits += n;
        wakers
    }
}

/// Future of [`BatchSemaphore::acquire`]; dropping it while pending gives back any permits it was assigned.
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub(crate) struct Acquire<'a> {
    sem: &'a BatchSemaphore,
    n: usize,
    /// Our slot in the wait list once queued; `None` before the first poll and after completion.
    key: Option<Key>,
}

impl Future for Acquire<'_> {
    type Output = Result<(), AcquireError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        let mut s = lock(&this.sem.state);
        let Some(key) = this.key else {
            if s.closed {
                return Poll::Ready(Err(AcquireError(())));
            }
            // Queued waiters imply `permits == 0`, so this never barges past them.
            if s.permits >= this.n {
                s.permits -= this.n;
                return Poll::Ready(Ok(()));
            }
            // Take what is free now (only possible with an empty queue) and wait for the rest.
            let given = s.permits.min(this.n);
            s.permits -= given;
            let waiter = Waiter {
                requested: this.n,
                remaining: this.n - given,
                waker: Some(cx.waker().clone()),
                outcome: Outcome::Waiting,
            };
            this.key = Some(s.waiters.push_back(waiter));
            return Poll::Pending;
        };
        let w = s.waiters.get_mut(key);
        match w.outcome {
            Outcome::Waiting => {
                match &mut w.waker {
                    Some(old) if old.will_wake(cx.waker()) => {}
                    slot => *slot = Some(cx.waker().clone()),
                }
                Poll::Pending
            }
            outcome => {
                s.waiters.remove(key);
                this.key = None;
                Poll::Ready(if outcome == Outcome::Granted { Ok(()) } else { Err(AcquireError(())) })
            }
        }
    }
}

impl Drop for Acquire<'_> {
    fn drop(&mut self) {
        let Some(key) = self.key.take() else { return };
        let mut s = lock(&self.sem.state);
        let w = s.waiters.remove(key);
        let given = match w.outcome {
            Outcome::Waiting => w.requested - w.remaining,
            Outcome::Granted => w.requested,
            Outcome::Closed => 0,
        };
        let wakers = if given > 0 { s.distribute(given) } else { Vec::new() };
        drop(s);
        wakers.into_iter().for_each(Waker::wake);
    }
}
