//! An async executor to run services on: a work-stealing multi-thread
//! runtime and a current-thread one.
//!
//! ```
//! # // The documentation is read as `samaritan::executor`; this crate is
//! # // what `samaritan` re-exports there.
//! # extern crate samaritan_runtime as samaritan;
//! use samaritan::executor::{self, Builder};
//!
//! let rt = Builder::multi_thread().worker_threads(2).build().unwrap();
//! let sum = rt.block_on(async {
//!     let tasks: Vec<_> = (0..10u64).map(|i| executor::spawn(async move { i * i })).collect();
//!     let mut sum = 0;
//!     for t in tasks {
//!         sum += t.await.unwrap();
//!     }
//!     sum
//! });
//! assert_eq!(sum, 285);
//! ```
//!
//! Under the `sim` feature, outside an exploration this is the production
//! executor; inside one (`samaritan::check`), every task is an actor the
//! checker schedules and polls and wakes are visible operations (see the
//! `sim` module; a runtime built there starts no OS threads).
//!
//! Invariants:
//!
//! - A task's future is polled by at most one thread at a time, and only
//!   after a wake (or its spawn) queued it; a wake while it is being polled
//!   queues it again afterwards, at the back of the queue.
//! - A panic in a task's `poll` is caught and becomes that task's
//!   [`JoinError::Panic`]; it never unwinds into a worker.
//! - A task that never finishes has its future dropped when its runtime shuts
//!   down; every [`JoinHandle`] therefore resolves, or its runtime is alive.

mod current;
mod id;
mod join;
mod multi;
mod owned;
mod park;
#[cfg(feature = "sim")]
mod run_queue;
mod runtime;
#[cfg(feature = "sim")]
pub(crate) mod sim;
mod task;
#[cfg(all(test, any(samaritan_loom, feature = "sim")))]
pub(crate) mod tests;

use std::fmt;
use std::future::Future;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

pub use id::{id, try_id, Id};
pub use join::{AbortHandle, JoinError, JoinHandle};
pub use runtime::{Handle, Runtime, TryCurrentError};

use join::{Blocking, JoinSlot};

/// Which kind of runtime a [`Builder`] makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    MultiThread,
    CurrentThread,
}

/// Configures and builds a [`Runtime`].
#[derive(Debug, Clone)]
pub struct Builder {
    kind: Kind,
    /// `None`: the available parallelism.
    worker_threads: Option<usize>,
    thread_name: String,
    thread_stack_size: Option<usize>,
    /// `None`: no limit inside an exploration.
    polls_at_once: Option<usize>,
    /// Polls in tokio's current-thread order inside an exploration.
    tokio_order: bool,
}

impl Builder {
    /// A work-stealing runtime with one worker per available CPU by default.
    pub fn multi_thread() -> Builder {
        Builder {
            kind: Kind::MultiThread,
            worker_threads: None,
            thread_name: "samaritan-worker".into(),
            thread_stack_size: None,
            polls_at_once: None,
            tokio_order: false,
        }
    }

    /// A runtime without threads of its own: tasks run on the thread inside
    /// [`Runtime::block_on`], and only while one is.
    pub fn current_thread() -> Builder {
        Builder { kind: Kind::CurrentThread, ..Builder::multi_thread() }
    }

    /// Sets the number of worker threads of a multi-thread runtime (default:
    /// [`std::thread::available_parallelism`]). Ignored by a current-thread
    /// runtime. Zero makes [`Builder::build`] fail.
    pub fn worker_threads(&mut self, n: usize) -> &mut Builder {
        self.worker_threads = Some(n);
        self
    }

    /// Names the worker threads `{name}-{index}` (default `samaritan-worker`).
    pub fn thread_name(&mut self, name: impl Into<String>) -> &mut Builder {
        self.thread_name = name.into();
        self
    }

    /// Sets the stack size of the worker threads, in bytes (default: std's).
    pub fn thread_stack_size(&mut self, bytes: usize) -> &mut Builder {
        self.thread_stack_size = Some(bytes);
        self
    }

    /// Inside an exploration, lets at most `n` of the runtime's tasks (its
    /// `block_on` future included) be inside a poll at once, as `n` worker
    /// threads would: with `n = 1` a poll runs to its end before another
    /// task's begins, which is what a current-thread runtime does, so the
    /// explorer interleaves tasks only where `poll` returns (and with
    /// threads, `spawn_blocking`'s included). By default there is no
    /// limit: every task is an actor whose steps interleave with every
    /// other's, which covers a runtime of any size. Outside an exploration
    /// it changes nothing; zero makes [`Builder::build`] fail.
    ///
    /// ```
    /// # extern crate samaritan_runtime as samaritan;
    /// use samaritan::executor::Builder;
    ///
    /// let rt = Builder::current_thread().polls_at_once(1).build().unwrap();
    /// assert_eq!(rt.block_on(async { 6 * 7 }), 42);
    /// assert!(Builder::current_thread().polls_at_once(0).build().is_err());
    /// ```
    pub fn polls_at_once(&mut self, n: usize) -> &mut Builder {
        self.polls_at_once = Some(n);
        self
    }

    /// Inside an exploration, with [`polls_at_once(1)`](Builder::polls_at_once),
    /// polls the woken tasks in the order tokio's current-thread scheduler
    /// polls them, instead of exploring every order: tasks in the order they
    /// were woken (a spawned one as woken at its spawn), the `block_on`
    /// future when the run queue is empty or after 61 task polls, and a task
    /// that called [`yield_now`] after the others woken in that batch.
    /// What stays explored is what tokio leaves open: where threads
    /// (`spawn_blocking`'s included) run and wake tasks, `select!`'s
    /// choices, timers. This is how `#[tokio::test]` explores a
    /// current-thread test under samaritan-tokio. Outside an exploration it
    /// changes nothing; without `polls_at_once(1)`, [`Builder::build`]
    /// fails.
    ///
    /// ```
    /// # extern crate samaritan_runtime as samaritan;
    /// use samaritan::executor::Builder;
    ///
    /// let rt = Builder::current_thread().polls_at_once(1).tokio_order().build().unwrap();
    /// assert_eq!(rt.block_on(async { 6 * 7 }), 42);
    /// assert!(Builder::current_thread().tokio_order().build().is_err());
    /// ```
    pub fn tokio_order(&mut self) -> &mut Builder {
        self.tokio_order = true;
        self
    }

    /// Builds the runtime, starting its workers.
    ///
    /// Fails with [`io::ErrorKind::InvalidInput`] for zero worker threads
    /// or zero [`polls_at_once`](Builder::polls_at_once) (or
    /// [`tokio_order`](Builder::tokio_order) without one), or with the OS
    /// error if a worker thread cannot be started.
    pub fn build(&mut self) -> io::Result<Runtime> {
        if self.polls_at_once == Some(0) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "polls_at_once must be at least 1"));
        }
        if self.tokio_order && self.polls_at_once != Some(1) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "tokio_order needs polls_at_once(1)"));
        }
        match self.kind {
            Kind::CurrentThread => Ok(self.simulated(current::build())),
            Kind::MultiThread => {
                let n = match self.worker_threads {
                    Some(0) => {
                        return Err(io::Error::new(io::ErrorKind::InvalidInput, "worker_threads must be at least 1"))
                    }
                    Some(n) => n,
                    None => std::thread::available_parallelism().map_or(1, |n| n.get()),
                };
                // Inside an exploration tasks are actors: no worker threads.
                #[cfg(feature = "sim")]
                if samaritan_sim::rt::active() {
                    return Ok(self.simulated(current::build()));
                }
                multi::build(n, &self.thread_name, self.thread_stack_size)
            }
        }
    }

    /// Applies the settings that matter inside an exploration to `rt`.
    fn simulated(&self, rt: Runtime) -> Runtime {
        #[cfg(feature = "sim")]
        if let Some(n) = self.polls_at_once {
            rt.handle().shared.sim.limit_polls(n, self.tokio_order);
        }
        rt
    }
}

/// Runs a future to completion on a fresh current-thread runtime on this
/// thread; tasks it spawns run on this thread too, and are dropped when it
/// returns.
#[track_caller]
pub fn block_on<F: Future>(future: F) -> F::Output {
    current::build().block_on(future)
}

/// Spawns a task on the current runtime; see [`Handle::spawn`].
///
/// # Panics
///
/// Outside a runtime (a worker, or a thread inside `block_on`); use
/// [`Handle::try_current`] and [`Handle::spawn`] to get an error instead.
/// Inside an exploration the execution then ends with a misuse verdict
/// (`Outcome::Misuse`), not as a bug of the program.
#[track_caller]
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    match Handle::try_current() {
        Ok(handle) => handle.spawn(future),
        Err(e) => outside_runtime("spawn", e),
    }
}

/// Panics because `what` was called outside a runtime. Inside an
/// exploration the execution first ends with a misuse verdict, so that the
/// report blames the test's use of the executor, not the program.
#[track_caller]
pub(crate) fn outside_runtime(what: &str, e: TryCurrentError) -> ! {
    #[cfg(feature = "sim")]
    if samaritan_sim::rt::active() {
        let at = std::panic::Location::caller();
        let place = format!("{}:{}:{}", at.file(), at.line(), at.column());
        samaritan_sim::rt::misuse(format!("`{what}` called outside a runtime at {place}: {e}"));
    }
    panic!("`{what}` called outside a runtime: {e}")
}

/// Runs a blocking closure on a thread of its own, so it does not stall
/// the async workers, and returns a handle to await its result.
///
/// A panic in `f` resolves the handle to [`JoinError::Panic`]. The closure
/// cannot be aborted ([`JoinHandle::abort`] does nothing) and runtime
/// shutdown does not wait for it. Works outside a runtime too.
///
/// # Panics
///
/// If the OS cannot start a thread.
#[track_caller]
pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    spawn_blocking_with(Handle::try_current().ok(), f)
}

/// `spawn_blocking`, with `handle` made current on the blocking thread.
#[track_caller]
fn spawn_blocking_with<F, R>(handle: Option<Handle>, f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    #[cfg(feature = "sim")]
    if samaritan_sim::rt::active() {
        return sim::spawn_blocking(handle, f, std::panic::Location::caller());
    }
    let slot = JoinSlot::new();
    let out = slot.clone();
    let id = Id::next();
    let result = crate::concurrency::thread::Builder::new().name("samaritan-blocking".into()).spawn(move || {
        let _enter = handle.as_ref().map(Handle::enter);
        let result = catch_unwind(AssertUnwindSafe(f)).map_err(JoinError::panic);
        out.complete(result);
    });
    if let Err(e) = result {
        panic!("failed to start a blocking thread: {e}");
    }
    JoinHandle::new(Blocking::new(slot, id))
}

/// Yields to the scheduler once: the task is queued again, behind every
/// task already waiting, and resumes when its turn comes. Under `sim`, a
/// yield for the fair scheduler; on a runtime in tokio's order
/// ([`Builder::tokio_order`]) the task goes after the rest of the batch,
/// as tokio defers it.
#[track_caller]
pub fn yield_now() -> YieldNow {
    YieldNow {
        yielded: false,
        #[cfg(feature = "sim")]
        location: std::panic::Location::caller(),
    }
}

/// The future returned by [`yield_now`].
#[must_use = "futures do nothing unless awaited"]
pub struct YieldNow {
    yielded: bool,
    #[cfg(feature = "sim")]
    location: &'static std::panic::Location<'static>,
}

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.yielded {
            return Poll::Ready(());
        }
        #[cfg(feature = "sim")]
        if samaritan_sim::rt::active() {
            samaritan_sim::rt::step(samaritan_sim::Op::Yield, None, self.location);
        }
        self.yielded = true;
        #[cfg(feature = "sim")]
        if samaritan_sim::rt::active() {
            // A yield goes after the batch, as tokio defers it.
            sim::defer(cx.waker());
            return Poll::Pending;
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl fmt::Debug for YieldNow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("YieldNow").field("yielded", &self.yielded).finish()
    }
}
