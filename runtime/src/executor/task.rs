//! Tasks: one allocation per spawn, holding the scheduling state, the
//! future and, once it finished, the output, as tokio's task cell does.
//!
//! A [`TaskCell`] is shared as [`Task`] (`Arc<dyn Run>`) by the run queues
//! and the runtime's registry, as its own [`Waker`] (through
//! [`std::task::Wake`]) by whoever was handed one, and as the target of
//! its [`JoinHandle`](super::JoinHandle) (through [`Join`]). Its state is
//! one atomic:
//!
//! - `IDLE`: not queued; the next wake queues it.
//! - `SCHEDULED`: queued (or about to be: a spawn starts here); wakes are
//!   no-ops.
//! - `RUNNING`: being polled, or its future being dropped; a wake turns it
//!   into `NOTIFIED`.
//! - `NOTIFIED`: woken while running; the runner queues it again after the
//!   poll instead of going back to `IDLE`.
//! - `DONE`: the future completed, was aborted or was dropped at shutdown;
//!   terminal, wakes are no-ops and the future is gone.
//! - `CANCEL`, a flag on `RUNNING` or `NOTIFIED`: a cancel (shutdown) found
//!   the task running; the runner cancels it after the poll, unless the
//!   poll completed it. Wakes are then no-ops.
//!
//! The cancel request travels in the state word, not in a flag beside it:
//! a runner that re-queued a task after reading a stale shutdown flag,
//! while shutdown read its state as `RUNNING`, would leave it queued
//! after the queues were drained (store buffering; loom found it). Two
//! read-modify-writes of one atomic cannot both miss each other.
//!
//! Invariant (the *run right*): only the thread whose compare-exchange
//! moved the task from `SCHEDULED` (a runner) or from `IDLE`/`SCHEDULED`
//! (a cancel) to `RUNNING` touches the future, until it stores `IDLE`,
//! `SCHEDULED` or `DONE`. That is what makes the unlocked [`UnsafeCell`]
//! sound, and what loom and samaritan's race detector check in the models.
//! A queue may still hold a task that a cancel finished; running it is a
//! no-op, as its compare-exchange fails.
//!
//! Completion drops the future first, then stores the output (or
//! [`JoinError`]) in the embedded [`JoinSlot`] and wakes the joiner, so a
//! joiner that sees the output also sees the future's destructors done;
//! then the task leaves the registry.

use crate::concurrency::atomic::{AtomicBool, AtomicU8, Ordering};
use crate::concurrency::{Arc, UnsafeCell, Weak};
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::atomic::AtomicUsize;
use std::task::{Context, Poll, Wake, Waker};

use super::id::{self, Id};
use super::join::{Abort, Join, JoinError, JoinSlot};
use super::runtime::Shared;

const IDLE: u8 = 0;
const SCHEDULED: u8 = 1;
const RUNNING: u8 = 2;
const NOTIFIED: u8 = 3;
const DONE: u8 = 4;
/// A flag on `RUNNING` and `NOTIFIED`.
const CANCEL: u8 = 8;

/// A spawned task as the queues and the registry hold it.
pub(crate) type Task = Arc<dyn Run>;

/// What the executor does with a task, whatever its future's type.
pub(crate) trait Run: Send + Sync {
    fn header(&self) -> &Header;

    /// Polls the task once if it is `SCHEDULED` (otherwise a cancel
    /// finished it: nothing to do). Returns it if it must be queued again
    /// (it was woken during the poll, and is `SCHEDULED` again).
    fn run(self: Arc<Self>) -> Option<Task>;

    /// Drops the future and resolves the join with `Cancelled` now, or
    /// asks the runner polling it to do so after its poll (unless that
    /// poll completes it); nothing if it is done.
    fn cancel(&self);
}

/// The type-independent part of a task.
pub(crate) struct Header {
    /// Counts the runtime's spawns; picks the registry shard.
    pub(crate) id: u64,
    /// The task's id, process-wide as tokio's (`id.rs`).
    task_id: Id,
    /// One of `IDLE`, `SCHEDULED`, `RUNNING`, `NOTIFIED`, `DONE`, the
    /// middle two possibly with `CANCEL`.
    state: AtomicU8,
    /// Set by `abort`; the next run drops the future instead of polling it.
    aborted: AtomicBool,
    /// Weak so that a waker kept alive elsewhere does not keep a shut-down
    /// runtime alive; scheduling after the runtime is gone cancels.
    shared: Weak<Shared>,
    /// The task's index in its registry shard, `usize::MAX` while it is in
    /// none; read and written only under that shard's lock, which orders
    /// the accesses (so a std atomic, which the models need not see).
    pub(crate) slot: AtomicUsize,
}

/// A task: header, future and join slot in one allocation.
pub(crate) struct TaskCell<F: Future> {
    header: Header,
    /// `Some` until the task finishes; reached only under the run right.
    future: UnsafeCell<Option<F>>,
    join: JoinSlot<F::Output>,
}

// SAFETY: the future is reached only by the holder of the run right (see
// the module docs), one thread at a time, with the state's AcqRel
// compare-exchanges ordering consecutive holders; it is `Send`, so it may
// move between those threads. Everything else is `Sync` on its own.
unsafe impl<F> Sync for TaskCell<F>
where
    F: Future + Send,
    F::Output: Send,
{
}

impl<F> TaskCell<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    /// A task about to be queued by its spawn (`SCHEDULED`).
    pub(crate) fn new(id: u64, future: F, shared: Weak<Shared>) -> Arc<TaskCell<F>> {
        Arc::new(TaskCell {
            header: Header {
                id,
                task_id: Id::next(),
                state: AtomicU8::new(SCHEDULED),
                aborted: AtomicBool::new(false),
                shared,
                slot: AtomicUsize::new(usize::MAX),
            },
            future: UnsafeCell::new(Some(future)),
            join: JoinSlot::empty(),
        })
    }

    /// Polls the future once; `Some` once it finished (or panicked).
    /// The caller holds the run right.
    fn poll_future(self: &Arc<Self>) -> Option<Result<F::Output, JoinError>> {
        let waker = Waker::from(self.clone());
        let mut cx = Context::from_waker(&waker);
        self.future.with_mut(|future| {
            // SAFETY: the caller holds the run right, so no other thread
            // touches the future (module docs).
            let future = unsafe { &mut *future }.as_mut()?;
            // SAFETY: the future lives in the `Arc` allocation and is never
            // moved out of it; it is dropped in place (`finish`).
            let future = unsafe { Pin::new_unchecked(future) };
            let _current = id::enter(self.header.task_id);
            match catch_unwind(AssertUnwindSafe(|| future.poll(&mut cx))) {
                Ok(Poll::Pending) => None,
                Ok(Poll::Ready(output)) => Some(Ok(output)),
                Err(payload) => Some(Err(JoinError::panic(payload))),
            }
        })
    }

    /// Drops the future, marks the task `DONE`, stores `result` and leaves
    /// the registry. The caller holds the run right.
    fn finish(&self, result: Result<F::Output, JoinError>) {
        // Dropped in place (the future is pinned); a panicking destructor
        // must not take a worker down. An assignment writes `None` even
        // when the old value's destructor unwinds.
        let _ = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: the caller holds the run right.
            self.future.with_mut(|future| unsafe { *future = None });
        }));
        self.header.state.store(DONE, Ordering::Release);
        self.join.complete(result);
        if let Some(shared) = self.header.shared.upgrade() {
            shared.release(&self.header);
        }
    }
}

impl<F> Run for TaskCell<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn header(&self) -> &Header {
        &self.header
    }

    fn run(self: Arc<Self>) -> Option<Task> {
        let state = &self.header.state;
        if state.compare_exchange(SCHEDULED, RUNNING, Ordering::AcqRel, Ordering::Acquire).is_err() {
            return None;
        }
        let done = if self.header.aborted.load(Ordering::Acquire) {
            Some(Err(JoinError::cancelled()))
        } else {
            self.poll_future()
        };
        if let Some(result) = done {
            self.finish(result);
            return None;
        }
        let mut s = RUNNING;
        loop {
            let next = match s {
                RUNNING => IDLE,
                // Woken while running: the caller queues it at the back.
                NOTIFIED => SCHEDULED,
                _ => {
                    debug_assert!(s & CANCEL != 0, "only a runner leaves RUNNING");
                    self.finish(Err(JoinError::cancelled()));
                    return None;
                }
            };
            // Strong: it fails only when a waker or a cancel changed the state.
            match state.compare_exchange(s, next, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) if next == SCHEDULED => return Some(self as Task),
                Ok(_) => return None,
                Err(actual) => s = actual,
            }
        }
    }

    fn cancel(&self) {
        let state = &self.header.state;
        let mut s = state.load(Ordering::Acquire);
        loop {
            let next = match s {
                IDLE | SCHEDULED => RUNNING,
                // A runner holds it: it cancels it after the poll.
                RUNNING | NOTIFIED => s | CANCEL,
                _ => return,
            };
            match state.compare_exchange(s, next, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) if next == RUNNING => break,
                Ok(_) => return,
                Err(actual) => s = actual,
            }
        }
        self.finish(Err(JoinError::cancelled()));
    }
}

impl Header {
    /// Records a wake: `true` if it moved the task from `IDLE` to
    /// `SCHEDULED`, and the caller must queue it.
    fn wake(&self) -> bool {
        let mut s = self.state.load(Ordering::Acquire);
        loop {
            let next = match s {
                IDLE => SCHEDULED,
                RUNNING => NOTIFIED,
                _ => return false,
            };
            match self.state.compare_exchange_weak(s, next, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return s == IDLE,
                Err(actual) => s = actual,
            }
        }
    }
}

/// Hands a task the caller moved to `SCHEDULED` to its runtime's queues.
fn schedule(task: Task) {
    match task.header().shared.upgrade() {
        Some(shared) => shared.schedule(task),
        // The runtime is gone: its shutdown dropped (or will drop) the future.
        None => task.cancel(),
    }
}

impl<F> Wake for TaskCell<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn wake(self: Arc<Self>) {
        if self.header.wake() {
            schedule(self);
        }
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if self.header.wake() {
            schedule(self.clone());
        }
    }
}

impl<F> Join<F::Output> for TaskCell<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn poll_join(&self, cx: &mut Context<'_>) -> Poll<Result<F::Output, JoinError>> {
        self.join.poll_join(cx)
    }

    fn is_finished(&self) -> bool {
        self.join.is_finished()
    }

    fn abort(self: Arc<Self>) {
        self.header.aborted.store(true, Ordering::Release);
        Wake::wake(self);
    }

    fn detach(&self) {
        self.join.detach();
    }

    fn abort_handle(self: Arc<Self>) -> Arc<dyn Abort> {
        self
    }

    fn id(&self) -> Id {
        self.header.task_id
    }
}

impl<F> Abort for TaskCell<F>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn abort(self: Arc<Self>) {
        Join::abort(self)
    }

    fn is_finished(&self) -> bool {
        Join::is_finished(self)
    }

    fn id(&self) -> Id {
        Join::id(self)
    }
}
