//! The join side of a task: the [`JoinHandle`] a spawn returns, the
//! [`JoinError`] it may resolve to, and the [`JoinSlot`] where an output
//! waits for it.
//!
//! A [`JoinHandle`] reaches its task through the [`Join`] trait: a spawned
//! task's own allocation (`task.rs`) implements it around an embedded slot;
//! a `spawn_blocking` closure, and a task inside an exploration (`sim.rs`),
//! share a stand-alone `Arc<JoinSlot>` with their handle.
//!
//! Under `sim`, a task inside an exploration runs its future in a
//! `Wrapped` that catches panics and stores the output in the slot, and
//! that, dropped before it finished (abort, shutdown), stores
//! [`JoinError::Cancelled`] after the user's future itself was dropped, so a
//! joiner that sees `Cancelled` also sees the future's destructors done.

use crate::concurrency::atomic::{AtomicBool, Ordering};
use crate::concurrency::{lock, Arc, Mutex, MutexGuard};
use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use super::id::Id;

/// What a [`JoinHandle`] asks of its task.
pub(crate) trait Join<T>: Send + Sync {
    /// Takes the output if it is there; otherwise keeps `cx`'s waker.
    fn poll_join(&self, cx: &mut Context<'_>) -> Poll<Result<T, JoinError>>;

    /// Whether the output (or the error) was stored.
    fn is_finished(&self) -> bool;

    /// Asks the task to stop; see [`JoinHandle::abort`].
    fn abort(self: Arc<Self>);

    /// The handle is gone: an output stored now or later is nobody's.
    fn detach(&self);

    /// The same task, for an [`AbortHandle`] (which knows no output type).
    fn abort_handle(self: Arc<Self>) -> Arc<dyn Abort>;

    /// The task's id.
    fn id(&self) -> Id;
}

/// What an [`AbortHandle`] reaches of a task.
pub(crate) trait Abort: Send + Sync {
    /// Asks the task to stop; see [`JoinHandle::abort`].
    fn abort(self: Arc<Self>);

    /// Whether the task has finished.
    fn is_finished(&self) -> bool;

    /// The task's id.
    fn id(&self) -> Id;
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
    /// Set when the handle was dropped (only by a task's own slot).
    detached: bool,
}

impl<T> JoinSlot<T> {
    /// An empty slot, to embed.
    pub(crate) fn empty() -> Self {
        JoinSlot {
            finished: AtomicBool::new(false),
            inner: Mutex::new(SlotInner { output: None, waker: None, detached: false }),
        }
    }

    /// An empty slot, to share.
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(JoinSlot::empty())
    }

    fn lock(&self) -> MutexGuard<'_, SlotInner<T>> {
        lock(&self.inner)
    }

    /// Stores the output (first call wins) and wakes the joiner; an
    /// output nobody can take any more is dropped here instead, outside
    /// the lock, a panic in its destructor swallowed.
    pub(crate) fn complete(&self, result: Result<T, JoinError>) {
        let mut inner = self.lock();
        if self.finished.load(Ordering::Acquire) {
            return;
        }
        self.finished.store(true, Ordering::Release);
        if inner.detached {
            drop(inner);
            let _ = catch_unwind(AssertUnwindSafe(move || drop(result)));
            return;
        }
        inner.output = Some(result);
        let waker = inner.waker.take();
        drop(inner);
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Takes the output, or keeps `cx`'s waker until it comes.
    ///
    /// # Panics
    ///
    /// If the output was already taken.
    pub(crate) fn poll_join(&self, cx: &mut Context<'_>) -> Poll<Result<T, JoinError>> {
        let mut inner = self.lock();
        if let Some(output) = inner.output.take() {
            return Poll::Ready(output);
        }
        assert!(!self.finished.load(Ordering::Acquire), "join handle polled after completion");
        match &mut inner.waker {
            Some(w) if w.will_wake(cx.waker()) => {}
            w => *w = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    pub(crate) fn is_finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }

    /// Drops a stored output now, and any later one when it comes.
    pub(crate) fn detach(&self) {
        let parts = {
            let mut inner = self.lock();
            inner.detached = true;
            (inner.waker.take(), inner.output.take())
        };
        // Outside the lock: both may run arbitrary destructors.
        drop(parts);
    }
}

/// A `spawn_blocking` closure's side: a stand-alone slot and an id;
/// nothing to abort, and the output lives as long as the slot.
pub(crate) struct Blocking<T> {
    slot: Arc<JoinSlot<T>>,
    id: Id,
}

impl<T> Blocking<T> {
    pub(crate) fn new(slot: Arc<JoinSlot<T>>, id: Id) -> Arc<Self> {
        Arc::new(Blocking { slot, id })
    }
}

impl<T: Send + 'static> Join<T> for Blocking<T> {
    fn poll_join(&self, cx: &mut Context<'_>) -> Poll<Result<T, JoinError>> {
        self.slot.poll_join(cx)
    }

    fn is_finished(&self) -> bool {
        self.slot.is_finished()
    }

    fn abort(self: Arc<Self>) {}

    fn detach(&self) {}

    fn abort_handle(self: Arc<Self>) -> Arc<dyn Abort> {
        self
    }

    fn id(&self) -> Id {
        self.id
    }
}

impl<T: Send + 'static> Abort for Blocking<T> {
    fn abort(self: Arc<Self>) {}

    fn is_finished(&self) -> bool {
        self.slot.is_finished()
    }

    fn id(&self) -> Id {
        self.id
    }
}

#[cfg(feature = "sim")]
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

#[cfg(feature = "sim")]
impl<F: Future> Wrapped<F> {
    pub(crate) fn new(future: F, slot: Arc<JoinSlot<F::Output>>) -> Self {
        Wrapped { future, guard: CompleteGuard { slot, done: false } }
    }
}

#[cfg(feature = "sim")]
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
#[cfg(feature = "sim")]
pub(crate) struct CompleteGuard<T> {
    slot: Arc<JoinSlot<T>>,
    done: bool,
}

#[cfg(feature = "sim")]
impl<T> Drop for CompleteGuard<T> {
    fn drop(&mut self) {
        if !self.done {
            self.slot.complete(Err(JoinError::cancelled()));
        }
    }
}

/// An owned permission to join a task: a future of its output.
///
/// Awaiting it gives `Ok(output)`, or a [`JoinError`] if the task panicked
/// or was cancelled (aborted, or dropped when its runtime shut down).
/// Dropping the handle detaches the task; it keeps running, and its output
/// is dropped as soon as it is produced.
pub struct JoinHandle<T> {
    raw: Arc<dyn Join<T>>,
}

impl<T> JoinHandle<T> {
    pub(crate) fn new(raw: Arc<dyn Join<T>>) -> Self {
        JoinHandle { raw }
    }

    /// Aborts the task: its future is dropped at its next scheduling, and
    /// the handle then resolves to [`JoinError::is_cancelled`]. No effect on
    /// a task that already finished, nor on a `spawn_blocking` closure.
    pub fn abort(&self) {
        self.raw.clone().abort();
    }

    /// Returns `true` once the task has finished: completed, panicked or
    /// been cancelled. Never blocks.
    pub fn is_finished(&self) -> bool {
        self.raw.is_finished()
    }

    /// Returns a handle that aborts the task without owning its output.
    pub fn abort_handle(&self) -> AbortHandle {
        AbortHandle { raw: self.raw.clone().abort_handle() }
    }

    /// Returns the task's id, the one [`id`](super::id) returns inside it.
    pub fn id(&self) -> Id {
        self.raw.id()
    }
}

/// Aborts a task without joining it (see [`JoinHandle::abort_handle`]);
/// cloning it gives another handle to the same task.
#[derive(Clone)]
pub struct AbortHandle {
    raw: Arc<dyn Abort>,
}

impl AbortHandle {
    /// Aborts the task, as [`JoinHandle::abort`] does.
    pub fn abort(&self) {
        self.raw.clone().abort();
    }

    /// Returns `true` once the task has finished.
    pub fn is_finished(&self) -> bool {
        self.raw.is_finished()
    }

    /// Returns the task's id.
    pub fn id(&self) -> Id {
        self.raw.id()
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle")
            .field("id", &self.id())
            .field("finished", &self.is_finished())
            .finish_non_exhaustive()
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
        self.raw.poll_join(cx)
    }
}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        self.raw.detach();
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle")
            .field("id", &self.id())
            .field("finished", &self.is_finished())
            .finish_non_exhaustive()
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
