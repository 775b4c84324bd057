//! Tasks: a spawned future, its run state and the handle that joins it.
//!
//! A [`Task`] owns a type-erased future behind a mutex that only the thread
//! running the task ever locks (so it is uncontended), plus an atomic state:
//!
//! - `IDLE`: not queued; the next wake queues it.
//! - `SCHEDULED`: sitting in exactly one run queue; wakes are no-ops.
//! - `RUNNING`: being polled; a wake turns it into `NOTIFIED`.
//! - `NOTIFIED`: woken while running; the runner queues it again after the
//!   poll instead of going back to `IDLE`.
//! - `DONE`: the future completed, was aborted or was dropped at shutdown;
//!   terminal, wakes are no-ops and the future is gone.
//!
//! Invariant: a task is in at most one queue, and only while `SCHEDULED`;
//! only the thread that moved it from `SCHEDULED` to `RUNNING` polls it.
//!
//! The output travels through a [`JoinSlot`] shared with the
//! [`JoinHandle`]. The spawned future is wrapped so that a panic in `poll` is
//! caught and stored as [`JoinError::Panic`], and dropping the wrapper before
//! it finished (abort, shutdown) stores [`JoinError::Cancelled`] — after the
//! user's future itself has been dropped, so a joiner that sees `Cancelled`
//! also sees the future's destructors done.

use crate::concurrency::atomic::{AtomicBool, AtomicU8, Ordering};
use crate::concurrency::{lock, Arc, Mutex, MutexGuard, TryLockError, Weak};
use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll, Wake, Waker};

use super::runtime::Shared;

const IDLE: u8 = 0;
const SCHEDULED: u8 = 1;
const RUNNING: u8 = 2;
const NOTIFIED: u8 = 3;
const DONE: u8 = 4;

type BoxFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// A spawned future and its scheduling state.
pub(crate) struct Task {
    /// Key in the runtime's registry of live tasks.
    pub(crate) id: u64,
    /// One of `IDLE`, `SCHEDULED`, `RUNNING`, `NOTIFIED`, `DONE`.
    state: AtomicU8,
    /// Set by `abort`; the next run drops the future instead of polling it.
    aborted: AtomicBool,
    /// `None` once `DONE`. Locked only by the runner and at shutdown.
    future: Mutex<Option<BoxFuture>>,
    /// Weak so that a waker kept alive elsewhere does not keep a shut-down
    /// runtime alive; scheduling after the runtime is gone is a no-op.
    shared: Weak<Shared>,
}

impl Task {
    pub(crate) fn new(id: u64, future: BoxFuture, shared: Weak<Shared>) -> Arc<Task> {
        Arc::new(Task {
            id,
            state: AtomicU8::new(IDLE),
            aborted: AtomicBool::new(false),
            future: Mutex::new(Some(future)),
            shared,
        })
    }

    fn lock_future(&self) -> MutexGuard<'_, Option<BoxFuture>> {
        // A panic while the lock is held is caught inside the wrapper, so
        // poisoning can only come from a panicking destructor: ignore it.
        lock(&self.future)
    }

    /// Queues the task if it is idle; records the wake if it is running.
    pub(crate) fn wake_task(self: &Arc<Self>) {
        let mut s = self.state.load(Ordering::Acquire);
        loop {
            let next = match s {
                IDLE => SCHEDULED,
                RUNNING => NOTIFIED,
                _ => return,
            };
            match self.state.compare_exchange_weak(s, next, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => break,
                Err(actual) => s = actual,
            }
        }
        if s == IDLE {
            self.schedule();
        }
    }

    /// Hands a `SCHEDULED` task to its runtime's queues.
    pub(crate) fn schedule(self: &Arc<Self>) {
        match self.shared.upgrade() {
            Some(shared) => shared.schedule(self.clone()),
            // The runtime is gone: its shutdown dropped (or will drop) the future.
            None => self.cancel(),
        }
    }

    /// Marks a fresh task `SCHEDULED` before its first queueing.
    pub(crate) fn mark_scheduled(&self) {
        self.state.store(SCHEDULED, Ordering::Release);
    }

    /// Polls the task once. Returns `true` if it must be queued again (it
    /// was woken during the poll), `false` if it is idle or done.
    pub(crate) fn run(self: &Arc<Self>) -> bool {
        if self.state.compare_exchange(SCHEDULED, RUNNING, Ordering::AcqRel, Ordering::Acquire).is_err() {
            return false;
        }
        let mut slot = self.lock_future();
        let ready = match slot.as_mut() {
            None => true,
            Some(_) if self.aborted.load(Ordering::Acquire) => true,
            Some(fut) => {
                let waker = Waker::from(self.clone());
                let mut cx = Context::from_waker(&waker);
                // The wrapper catches panics of the user's poll; this one
                // only guards against a panicking waker or destructor.
                matches!(catch_unwind(AssertUnwindSafe(|| fut.as_mut().poll(&mut cx))), Ok(Poll::Ready(())) | Err(_))
            }
        };
        if ready {
            let fut = slot.take();
            self.state.store(DONE, Ordering::Release);
            drop(slot);
            // Drop outside the lock: the destructor may wake or spawn.
            drop_quietly(fut);
            if let Some(shared) = self.shared.upgrade() {
                shared.release(self.id);
            }
            return false;
        }
        drop(slot);
        match self.state.compare_exchange(RUNNING, IDLE, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => false,
            Err(_) => {
                // NOTIFIED: woken while running; the caller queues it at the back.
                self.state.store(SCHEDULED, Ordering::Release);
                true
            }
        }
    }

    /// Asks the task to stop: its future is dropped at its next run.
    pub(crate) fn abort(self: &Arc<Self>) {
        self.aborted.store(true, Ordering::Release);
        self.wake_task();
    }

    /// Drops the future now (shutdown, or a runtime that is gone).
    pub(crate) fn cancel(&self) {
        let fut = {
            let mut slot = self.lock_future();
            self.state.store(DONE, Ordering::Release);
            slot.take()
        };
        drop_quietly(fut);
    }
    /// Drops the future at shutdown, unless a worker that outlived the
    /// shutdown timeout is still polling it (then that worker keeps it).
    pub(crate) fn cancel_at_shutdown(&self) {
        let fut = match self.future.try_lock() {
            Ok(mut slot) => {
                self.state.store(DONE, Ordering::Release);
                slot.take()
            }
            Err(TryLockError::Poisoned(e)) => {
                self.state.store(DONE, Ordering::Release);
                e.into_inner().take()
            }
            Err(TryLockError::WouldBlock) => return,
        };
        drop_quietly(fut);
    }
}

/// Drops a future, swallowing a panic from its destructor so that it
/// cannot take a worker down.
fn drop_quietly(fut: Option<BoxFuture>) {
    let _ = catch_unwind(AssertUnwindSafe(move || drop(fut)));
}

impl Wake for Task {
    fn wake(self: Arc<Self>) {
        self.wake_task();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wake_task();
    }
}

pin_project_lite::pin_project! {
    /// The user's future, with panics caught and its output sent to the slot.
    ///
    /// Field order matters: `future` drops before `guard`, so `Cancelled`
    /// is published only after the user's destructors ran.
    pub(crate) struct Wrapped<F: Future> {
        #[pin]
        future: F,
        guard: CompleteGuard<F::Output>,
    }
}

impl<F: Future> Wrapped<F> {
    pub(crate) fn new(future: F, slot: Arc<JoinSlot<F::Output>>) -> Self {
        Wrapped { future, guard: CompleteGuard { slot, done: false } }
    }
}

impl<F: Future> Future for Wrapped<F> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.project();
        if this.guard.done {
            return Poll::Ready(());
        }
        let future = this.future;
        let result = match catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(Poll::Pending) => return Poll::Pending,
            Ok(Poll::Ready(value)) => Ok(value),
            Err(payload) => Err(JoinError::panic(payload)),
        };
        this.guard.done = true;
        this.guard.slot.complete(result);
        Poll::Ready(())
    }
}

/// Publishes `Cancelled` if the task is dropped before it completed.
pub(crate) struct CompleteGuard<T> {
    slot: Arc<JoinSlot<T>>,
    done: bool,
}

impl<T> Drop for CompleteGuard<T> {
    fn drop(&mut self) {
        if !self.done {
            self.slot.complete(Err(JoinError::cancelled()));
        }
    }
}

/// Where a task's output waits for its [`JoinHandle`].
pub(crate) struct JoinSlot<T> {
    /// Set once the output (or error) is stored; never cleared.
    finished: AtomicBool,
    inner: Mutex<SlotInner<T>>,
}

struct SlotInner<T> {
    /// `Some` from completion until the handle takes it.
    output: Option<Result<T, JoinError>>,
    /// The waker of the last poll of the handle, if it is still waiting.
    waker: Option<Waker>,
}

impl<T> JoinSlot<T> {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(JoinSlot {
            finished: AtomicBool::new(false),
            inner: Mutex::new(SlotInner { output: None, waker: None }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, SlotInner<T>> {
        lock(&self.inner)
    }

    /// Stores the output (first call wins) and wakes the joiner.
    pub(crate) fn complete(&self, result: Result<T, JoinError>) {
        let waker = {
            let mut inner = self.lock();
            if self.finished.load(Ordering::Acquire) {
                return;
            }
            inner.output = Some(result);
            self.finished.store(true, Ordering::Release);
            inner.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// An owned permission to join a task: a future of its output.
///
/// Awaiting it gives `Ok(output)`, or a [`JoinError`] if the task panicked
/// or was cancelled (aborted, or dropped when its runtime shut down).
/// Dropping the handle detaches the task; it keeps running.
pub struct JoinHandle<T> {
    slot: Arc<JoinSlot<T>>,
    /// `None` for `spawn_blocking`, which cannot be aborted once started.
    task: Option<Arc<Task>>,
}

impl<T> JoinHandle<T> {
    pub(crate) fn new(slot: Arc<JoinSlot<T>>, task: Option<Arc<Task>>) -> Self {
        JoinHandle { slot, task }
    }

    /// Aborts the task: its future is dropped at its next scheduling, and
    /// the handle then resolves to [`JoinError::is_cancelled`]. No effect on
    /// a task that already finished, nor on a `spawn_blocking` closure.
    pub fn abort(&self) {
        if let Some(task) = &self.task {
            task.abort();
        }
    }

    /// Returns `true` once the task has finished: completed, panicked or
    /// been cancelled. Never blocks.
    pub fn is_finished(&self) -> bool {
        self.slot.finished.load(Ordering::Acquire)
    }
}

impl<T> Unpin for JoinHandle<T> {}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    /// Resolves to the task's output.
    ///
    /// # Panics
    ///
    /// If polled again after it returned `Ready`, like other futures.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut inner = self.slot.lock();
        if let Some(output) = inner.output.take() {
            return Poll::Ready(output);
        }
        assert!(!self.slot.finished.load(Ordering::Acquire), "join handle polled after completion");
        match &mut inner.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            w => *w = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle").field("finished", &self.is_finished()).finish_non_exhaustive()
    }
}

/// Why a task did not produce its output.
#[non_exhaustive]
pub enum JoinError {
    /// The task was aborted, or dropped when its runtime shut down.
    Cancelled,
    /// The task panicked; the payload is what `panic!` was given.
    Panic(Box<dyn Any + Send + 'static>),
}

impl JoinError {
    pub(crate) fn cancelled() -> Self {
        JoinError::Cancelled
    }

    pub(crate) fn panic(payload: Box<dyn Any + Send + 'static>) -> Self {
        JoinError::Panic(payload)
    }

    /// Returns `true` if the task was aborted or dropped at shutdown.
    pub fn is_cancelled(&self) -> bool {
        matches!(self, JoinError::Cancelled)
    }

    /// Returns `true` if the task panicked.
    pub fn is_panic(&self) -> bool {
        matches!(self, JoinError::Panic(_))
    }

    /// Returns the panic payload, or the error itself if it is not a panic.
    pub fn try_into_panic(self) -> Result<Box<dyn Any + Send + 'static>, JoinError> {
        match self {
            JoinError::Panic(payload) => Ok(payload),
            other => Err(other),
        }
    }

    /// Returns the panic payload, ready for [`std::panic::resume_unwind`].
    ///
    /// # Panics
    ///
    /// If the error is not a panic; check [`JoinError::is_panic`] first or
    /// use [`JoinError::try_into_panic`].
    #[track_caller]
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        self.try_into_panic().expect("join error is not a panic")
    }

    /// The panic message, when the payload is a string.
    fn message(&self) -> Option<&str> {
        match self {
            JoinError::Panic(p) => {
                p.downcast_ref::<&str>().copied().or_else(|| p.downcast_ref::<String>().map(|s| s.as_str()))
            }
            JoinError::Cancelled => None,
        }
    }
}

impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self, self.message()) {
            (JoinError::Panic(_), Some(msg)) => write!(f, "task panicked with message {msg:?}"),
            (JoinError::Panic(_), None) => f.write_str("task panicked"),
            (JoinError::Cancelled, _) => f.write_str("task was cancelled"),
        }
    }
}

impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self, self.message()) {
            (JoinError::Panic(_), Some(msg)) => write!(f, "Panic({msg:?})"),
            (JoinError::Panic(_), None) => f.write_str("Panic(..)"),
            (JoinError::Cancelled, _) => f.write_str("Cancelled"),
        }
    }
}

impl std::error::Error for JoinError {}

impl From<JoinError> for std::io::Error {
    fn from(e: JoinError) -> Self {
        std::io::Error::other(e.to_string())
    }
}
