//! The runtime object, its handle, and the per-thread "current runtime".
//!
//! [`Shared`] is what every worker, handle and task reaches: the run queues
//! of one flavour, the registry of live tasks, and the shutdown flag.
//! Invariants:
//!
//! - Every spawned task that has not finished is in the registry
//!   (`owned.rs`) until shutdown closes it; shutdown then drops every
//!   registered future, so none outlives its runtime (a waker held
//!   elsewhere keeps only the empty task alive); one that a worker which
//!   outlived the shutdown timeout is still polling is dropped by that
//!   worker once the poll returns.
//! - Once `shutdown` is set, scheduling a task drops its future instead of
//!   queueing it, and spawning returns a handle that resolves to
//!   [`JoinError::Cancelled`](super::JoinError::Cancelled).
//! - Tasks hold only a `Weak<Shared>`; the strong references are the
//!   [`Runtime`], its [`Handle`]s and its worker threads.

use crate::concurrency::atomic::{AtomicBool, AtomicU64, Ordering};
use crate::concurrency::{lock, thread, thread_local, Arc, Condvar, Mutex};
use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use super::join::JoinHandle;
use super::owned::OwnedTasks;
use super::task::{Header, Task, TaskCell};
use super::{current, multi, park};

/// The run queues of one flavour.
pub(crate) enum Flavor {
    Multi(multi::Queues),
    Current(current::Queue),
}

/// State shared by a runtime, its handles, workers and tasks.
pub(crate) struct Shared {
    pub(crate) flavor: Flavor,
    /// Live (unfinished) tasks; closed by shutdown.
    owned: OwnedTasks,
    /// Counts the runtime's spawns (the simulated tasks' ids; production's
    /// are process-wide: `id.rs`).
    pub(crate) next_id: AtomicU64,
    /// Set once by shutdown; never cleared.
    shutdown: AtomicBool,
    /// Worker threads still running, and the condvar shutdown waits on.
    running_workers: Mutex<usize>,
    workers_done: Condvar,
    /// The simulated tasks, inside an exploration.
    #[cfg(feature = "sim")]
    pub(crate) sim: super::sim::Registry,
}

impl Shared {
    pub(crate) fn new(flavor: Flavor) -> Arc<Shared> {
        // As tokio does: four shards per worker, so concurrent spawns and
        // completions seldom meet on one lock.
        let shards = match &flavor {
            Flavor::Multi(q) => 4 * q.workers(),
            Flavor::Current(_) => 4,
        };
        Arc::new(Shared {
            flavor,
            owned: OwnedTasks::new(shards),
            next_id: AtomicU64::new(0),
            shutdown: AtomicBool::new(false),
            running_workers: Mutex::new(0),
            workers_done: Condvar::new(),
            #[cfg(feature = "sim")]
            sim: Default::default(),
        })
    }

    pub(crate) fn is_shutdown(&self) -> bool {
        self.shutdown.load(Ordering::Acquire)
    }

    /// Queues a `SCHEDULED` task, or drops its future after shutdown.
    pub(crate) fn schedule(self: &Arc<Self>, task: Task) {
        if self.is_shutdown() {
            task.cancel();
            return;
        }
        match &self.flavor {
            Flavor::Multi(q) => q.push(self, task),
            Flavor::Current(q) => q.push(task),
        }
    }

    /// Forgets a finished task.
    pub(crate) fn release(&self, header: &Header) {
        self.owned.remove(header);
    }

    pub(crate) fn worker_started(&self) {
        *lock(&self.running_workers) += 1;
    }

    pub(crate) fn worker_exited(&self) {
        let mut n = lock(&self.running_workers);
        *n -= 1;
        if *n == 0 {
            self.workers_done.notify_all();
        }
    }

    /// Stops the workers, waits for them (at most `timeout`), then drops
    /// every pending task's future. Returns `true` if every worker exited.
    fn shutdown(&self, timeout: Option<Duration>) -> bool {
        self.shutdown.store(true, Ordering::Release);
        #[cfg(feature = "sim")]
        super::sim::shutdown(self);
        if let Flavor::Multi(q) = &self.flavor {
            q.wake_all();
        }
        // On one of our own workers (the runtime dropped inside a task),
        // waiting for the workers would wait for ourselves: do not wait.
        let own_worker = matches!(&self.flavor, Flavor::Multi(_)) && multi::on_worker_of(self);
        let timeout = if own_worker { Some(Duration::ZERO) } else { timeout };
        // A timeout too large for an `Instant` waits without one.
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let mut n = lock(&self.running_workers);
        let all_exited = loop {
            if *n == 0 {
                break true;
            }
            match deadline {
                None => n = self.workers_done.wait(n).unwrap_or_else(|e| e.into_inner()),
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        break false;
                    }
                    n = self.workers_done.wait_timeout(n, deadline - now).unwrap_or_else(|e| e.into_inner()).0;
                }
            }
        };
        drop(n);
        let live = self.owned.close();
        let queued = match &self.flavor {
            Flavor::Multi(q) => q.drain(),
            Flavor::Current(q) => q.drain(),
        };
        drop(queued);
        // Destructors run here, outside every lock: they may wake or spawn,
        // which the shutdown flag turns into drops. A task that a worker
        // which outlived the timeout is still polling is cancelled by that
        // worker after its poll.
        for task in live {
            task.cancel();
        }
        all_exited
    }
}

thread_local! {
    /// The runtime whose `block_on` or worker this thread is inside.
    static CURRENT: RefCell<Option<Handle>> = const { RefCell::new(None) };
}

/// Restores the previous current runtime when dropped.
pub(crate) struct EnterGuard {
    previous: Option<Handle>,
}

impl Drop for EnterGuard {
    fn drop(&mut self) {
        let previous = self.previous.take();
        let _ = CURRENT.try_with(|c| *c.borrow_mut() = previous);
    }
}

/// A handle to a runtime: spawns onto it from anywhere. Cheap to clone.
///
/// A handle does not keep the runtime running: once the [`Runtime`] is
/// dropped, spawning through a handle returns a [`JoinHandle`] that
/// resolves to [`JoinError::Cancelled`](super::JoinError::Cancelled).
#[derive(Clone)]
pub struct Handle {
    pub(crate) shared: Arc<Shared>,
}

/// Why [`Handle::try_current`] found no runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TryCurrentError {}

impl fmt::Display for TryCurrentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("no samaritan runtime on this thread: call from inside `Runtime::block_on` or a spawned task")
    }
}

impl std::error::Error for TryCurrentError {}

impl Handle {
    /// Returns the handle of the runtime this thread is running inside
    /// (a worker thread, or a thread inside `block_on`).
    ///
    /// # Panics
    ///
    /// Outside a runtime; use [`Handle::try_current`] to get an error instead.
    /// Inside an exploration the execution then ends with a misuse verdict
    /// (`Outcome::Misuse`), not as a bug of the program.
    #[track_caller]
    pub fn current() -> Handle {
        match Handle::try_current() {
            Ok(handle) => handle,
            Err(e) => super::outside_runtime("Handle::current", e),
        }
    }

    /// Returns the handle of the runtime this thread is running inside, or
    /// an error outside one.
    pub fn try_current() -> Result<Handle, TryCurrentError> {
        #[cfg(feature = "sim")]
        if samaritan_sim::rt::active() {
            return super::sim::try_current().ok_or(TryCurrentError {});
        }
        CURRENT.try_with(|c| c.borrow().clone()).ok().flatten().ok_or(TryCurrentError {})
    }

    /// Makes this runtime current on this thread until the guard drops.
    pub(crate) fn enter(&self) -> EnterGuard {
        let previous = CURRENT.with(|c| c.borrow_mut().replace(self.clone()));
        EnterGuard { previous }
    }

    /// Spawns a task on this runtime and returns the handle that joins it.
    ///
    /// A task only runs while the runtime has somewhere to run it: on a
    /// multi-thread runtime, its workers; on a current-thread runtime, a
    /// thread inside [`Runtime::block_on`] (or [`Handle::block_on`]).
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        // This crate's own unit tests explore the production executor on
        // simulated primitives (see `crate::concurrency`).
        #[cfg(feature = "sim")]
        if samaritan_sim::rt::active() && !cfg!(test) {
            return super::sim::spawn(self, future, std::panic::Location::caller());
        }
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let cell = TaskCell::new(id, future, Arc::downgrade(&self.shared));
        let handle = JoinHandle::new(cell.clone());
        let task: Task = cell;
        // Registered before it is queued, so that shutdown finds it.
        if !self.shared.owned.insert(&task, || self.shared.is_shutdown()) {
            task.cancel();
            return handle;
        }
        self.shared.schedule(task);
        handle
    }

    /// Runs a blocking closure on a thread of its own, so it does not stall
    /// the workers; see [`spawn_blocking`](super::spawn_blocking).
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        super::spawn_blocking_with(Some(self.clone()), f)
    }

    /// Runs a future to completion on the calling thread, with this runtime
    /// current. On a current-thread runtime the calling thread also runs the
    /// spawned tasks meanwhile; on a multi-thread runtime the workers do.
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        #[cfg(feature = "sim")]
        if samaritan_sim::rt::active() {
            return super::sim::block_on(self, future, std::panic::Location::caller());
        }
        let _enter = self.enter();
        match &self.shared.flavor {
            Flavor::Multi(_) => park::block_on(future),
            Flavor::Current(q) => q.block_on(&self.shared, future),
        }
    }
}

impl fmt::Debug for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let flavor = match self.shared.flavor {
            Flavor::Multi(_) => "multi_thread",
            Flavor::Current(_) => "current_thread",
        };
        f.debug_struct("Handle").field("flavor", &flavor).finish_non_exhaustive()
    }
}

/// An async runtime: run queues, worker threads (multi-thread flavour) and
/// the tasks spawned on it. Build one with [`Builder`](super::Builder).
///
/// Dropping it shuts it down gracefully: workers finish the poll they are
/// in and exit, then every task that has not finished has its future
/// dropped (its [`JoinHandle`] resolves to `Cancelled`). The drop waits for
/// the workers; [`Runtime::shutdown_timeout`] bounds that wait. Dropped on
/// one of its own workers (inside a task), it does not wait: the workers
/// exit on their own after their current poll.
pub struct Runtime {
    handle: Handle,
    workers: Vec<thread::JoinHandle<()>>,
}

impl Runtime {
    /// Builds a multi-thread runtime with default settings; same as
    /// `Builder::multi_thread().build()`.
    pub fn new() -> io::Result<Runtime> {
        super::Builder::multi_thread().build()
    }

    pub(crate) fn from_parts(handle: Handle, workers: Vec<thread::JoinHandle<()>>) -> Runtime {
        Runtime { handle, workers }
    }

    /// Returns a handle to this runtime.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Spawns a task on this runtime; see [`Handle::spawn`].
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle.spawn(future)
    }

    /// Runs a blocking closure on a thread of its own; see
    /// [`spawn_blocking`](super::spawn_blocking).
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, f: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        self.handle.spawn_blocking(f)
    }

    /// Runs a future to completion on the calling thread; see
    /// [`Handle::block_on`].
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.handle.block_on(future)
    }

    /// Shuts down, waiting at most `timeout` for the workers to finish the
    /// poll they are in. Returns `true` if they all exited in time; the ones
    /// that did not are left to exit on their own (detached). Pending tasks
    /// are dropped either way, except one stuck in a poll.
    pub fn shutdown_timeout(mut self, timeout: Duration) -> bool {
        let all = self.handle.shared.shutdown(Some(timeout));
        let workers = std::mem::take(&mut self.workers);
        if all {
            join_all(workers);
        }
        all
    }
}

fn join_all(workers: Vec<thread::JoinHandle<()>>) {
    for w in workers {
        // Workers catch task panics; a panic here would be our own bug.
        let _ = catch_unwind(AssertUnwindSafe(|| w.join()));
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if self.handle.shared.is_shutdown() {
            return;
        }
        if self.handle.shared.shutdown(None) {
            join_all(std::mem::take(&mut self.workers));
        }
    }
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime").field("handle", &self.handle).field("workers", &self.workers.len()).finish()
    }
}
