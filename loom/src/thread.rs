//! Mock of `std::thread`; loom's [`loom::thread`] API on samaritan's
//! simulated threads.
//!
//! [`loom::thread`]: https://docs.rs/loom/0.7/loom/thread/index.html

use std::marker::PhantomData;
use std::{fmt, io};

pub use samaritan::thread::{current, park, yield_now, AccessError, LocalKey, Thread, ThreadId};
#[doc(no_inline)]
pub use std::thread::panicking;

/// An owned permission to join a thread; same API as loom's (and
/// [`std::thread::JoinHandle`]'s `join` and `thread`).
pub struct JoinHandle<T> {
    inner: samaritan::thread::JoinHandle<OnExploringThread<T>>,
    /// As loom's: `Send` and `Sync` exactly when `T` is `Send`.
    _result: PhantomData<std::sync::Mutex<T>>,
}

impl<T> JoinHandle<T> {
    /// Waits for the thread to finish and returns its result.
    #[track_caller]
    pub fn join(self) -> std::thread::Result<T> {
        self.inner.join().map(OnExploringThread::into_inner)
    }

    /// Returns the handle of the thread.
    pub fn thread(&self) -> &Thread {
        self.inner.thread()
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinHandle").finish_non_exhaustive()
    }
}

/// A value that stays on the OS thread that runs the exploration.
///
/// Invariant: made only by [`spawn`] inside an exploration, for the body
/// of a simulated thread and its result.
struct OnExploringThread<T>(T);

impl<T> OnExploringThread<T> {
    /// Takes the value out; a method, so that a closure that calls it
    /// captures the whole wrapper (edition 2021 closures would capture the
    /// bare field otherwise, which is not `Send`).
    fn into_inner(self) -> T {
        self.0
    }
}

// SAFETY: samaritan runs every simulated thread of an execution as a
// coroutine on the one OS thread that runs the exploration (ARCHITECTURE.md,
// "Bird's-eye view"); a body and its result are created, run, moved and
// dropped by actors of that execution, so on that OS thread. An actor is
// never resumed on another OS thread: a search moves to a fresh exploring
// thread only between executions, and an actor left unfinished is
// abandoned with its stack, never dropped elsewhere. `spawn` makes the
// wrapper only when an exploration is running on the calling thread (it
// panics otherwise, where samaritan would start an OS thread), and
// `JoinHandle<T>` is `Send` only when `T` is, so the result cannot leave
// the execution through its handle either.
unsafe impl<T> Send for OnExploringThread<T> {}

/// Spawns a simulated thread; as loom's, `f` and `T` need not be `Send`.
///
/// # Panics
///
/// Outside [`crate::model()`] (loom's own `spawn` panics there too), and
/// without the `sim` feature.
#[track_caller]
pub fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T,
    F: 'static,
    T: 'static,
{
    spawn_with(samaritan::thread::Builder::new(), f).expect("failed to spawn thread")
}

#[track_caller]
fn spawn_with<F, T>(builder: samaritan::thread::Builder, f: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + 'static,
    T: 'static,
{
    assert!(
        crate::exploring(),
        "loom::thread::spawn called outside loom::model (samaritan-loom: threads are simulated only inside an exploration)"
    );
    let body = OnExploringThread(f);
    let inner = builder.spawn(move || OnExploringThread(body.into_inner()()))?;
    Ok(JoinHandle { inner, _result: PhantomData })
}

/// Thread factory; same API as loom's `thread::Builder`.
#[derive(Debug)]
pub struct Builder {
    inner: samaritan::thread::Builder,
}

impl Builder {
    /// Generates the base configuration for spawning a thread.
    #[allow(clippy::new_without_default)] // As loom's.
    pub fn new() -> Builder {
        Builder { inner: samaritan::thread::Builder::new() }
    }

    /// Names the thread-to-be.
    pub fn name(self, name: String) -> Builder {
        Builder { inner: self.inner.name(name) }
    }

    /// Sets the size of the stack for the new thread.
    pub fn stack_size(self, size: usize) -> Builder {
        Builder { inner: self.inner.stack_size(size) }
    }

    /// Spawns a new thread; as loom's, `f` and `T` must be `Send`.
    #[track_caller]
    pub fn spawn<F, T>(self, f: F) -> io::Result<JoinHandle<T>>
    where
        F: FnOnce() -> T,
        F: Send + 'static,
        T: Send + 'static,
    {
        spawn_with(self.inner, f)
    }
}
