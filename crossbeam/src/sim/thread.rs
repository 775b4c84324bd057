//! `crossbeam::thread` (and `crossbeam::scope`) under `sim`: scoped
//! threads on samaritan's threads, so an exploration schedules them.
//!
//! Invariants:
//! - Every thread a scope (or a thread of it) spawns is in `handles`
//!   until joined, and `scope` joins every one left before it returns, so
//!   no spawned closure outlives the borrows of `'env` it holds: what
//!   makes erasing its lifetime to spawn it sound.
//! - A thread's result goes into its own slot, read by its handle's
//!   `join` only.

use std::any::Any;
use std::fmt;
use std::io;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Arc, Mutex as StdMutex};

use samaritan::thread::{self, JoinHandle, Thread};

use super::unpoisoned;

/// A spawned thread's handle, shared by the scope and its
/// `ScopedJoinHandle` (whichever joins it first takes it).
type Shared = Arc<StdMutex<Option<JoinHandle<()>>>>;

fn lock<T>(m: &StdMutex<T>) -> std::sync::MutexGuard<'_, T> {
    unpoisoned(m.lock())
}

/// Runs `f` with a scope whose threads may borrow from the caller's stack;
/// joins them all before returning: `Err` with their panics if any
/// panicked unjoined, as crossbeam's.
///
/// ```
/// extern crate samaritan_crossbeam as crossbeam;
///
/// let mut counts = [0, 0];
/// crossbeam::scope(|s| {
///     for c in counts.iter_mut() {
///         s.spawn(move |_| *c += 1);
///     }
/// })
/// .unwrap();
/// assert_eq!(counts, [1, 1]);
/// ```
#[track_caller]
pub fn scope<'env, F, R>(f: F) -> std::thread::Result<R>
where
    F: FnOnce(&Scope<'env>) -> R,
{
    let scope = Scope { handles: Arc::new(StdMutex::new(Vec::new())), _env: PhantomData };
    let result = panic::catch_unwind(AssertUnwindSafe(|| f(&scope)));
    let mut panics: Vec<Box<dyn Any + Send + 'static>> = Vec::new();
    // Nested spawns may add handles while these are joined.
    loop {
        let next = lock(&scope.handles).pop();
        let Some(shared) = next else { break };
        let handle = lock(&shared).take();
        if let Some(Err(p)) = handle.map(JoinHandle::join) {
            panics.push(p);
        }
    }
    match result {
        Err(p) => panic::resume_unwind(p),
        Ok(r) if panics.is_empty() => Ok(r),
        Ok(_) => Err(Box::new(panics)),
    }
}

/// A scope for spawning threads that borrow from `'env`.
pub struct Scope<'env> {
    handles: Arc<StdMutex<Vec<Shared>>>,
    _env: PhantomData<&'env mut &'env ()>,
}

impl<'env> Scope<'env> {
    /// Spawns a scoped thread, which gets the scope to spawn more.
    #[track_caller]
    pub fn spawn<'scope, F, T>(&'scope self, f: F) -> ScopedJoinHandle<'scope, T>
    where
        F: FnOnce(&Scope<'env>) -> T + Send + 'env,
        T: Send + 'env,
    {
        self.builder().spawn(f).expect("failed to spawn a scoped thread")
    }

    /// A builder for a scoped thread with a name or a stack size.
    pub fn builder<'scope>(&'scope self) -> ScopedThreadBuilder<'scope, 'env> {
        ScopedThreadBuilder { scope: self, builder: thread::Builder::new() }
    }
}

impl fmt::Debug for Scope<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Scope { .. }")
    }
}

/// Configures a scoped thread ([`Scope::builder`]).
#[derive(Debug)]
pub struct ScopedThreadBuilder<'scope, 'env> {
    scope: &'scope Scope<'env>,
    builder: thread::Builder,
}

impl<'scope, 'env> ScopedThreadBuilder<'scope, 'env> {
    /// Names the thread.
    pub fn name(self, name: String) -> ScopedThreadBuilder<'scope, 'env> {
        ScopedThreadBuilder { builder: self.builder.name(name), ..self }
    }

    /// Sets its stack size.
    pub fn stack_size(self, size: usize) -> ScopedThreadBuilder<'scope, 'env> {
        ScopedThreadBuilder { builder: self.builder.stack_size(size), ..self }
    }

    /// Spawns it.
    #[track_caller]
    pub fn spawn<F, T>(self, f: F) -> io::Result<ScopedJoinHandle<'scope, T>>
    where
        F: FnOnce(&Scope<'env>) -> T + Send + 'env,
        T: Send + 'env,
    {
        let slot: Arc<StdMutex<Option<T>>> = Arc::new(StdMutex::new(None));
        let (result, handles) = (slot.clone(), self.scope.handles.clone());
        let run: Box<dyn FnOnce() + Send + 'env> = Box::new(move || {
            let inner = Scope { handles, _env: PhantomData };
            *lock(&result) = Some(f(&inner));
        });
        // SAFETY: `scope` joins this thread before it returns (the
        // module's invariant), so the closure's borrows of `'env` outlive
        // it; only the lifetime changes.
        let run: Box<dyn FnOnce() + Send + 'static> = unsafe { std::mem::transmute(run) };
        let handle = self.builder.spawn(run)?;
        let thread = handle.thread().clone();
        let shared: Shared = Arc::new(StdMutex::new(Some(handle)));
        lock(&self.scope.handles).push(shared.clone());
        Ok(ScopedJoinHandle { shared, slot, thread, _scope: PhantomData })
    }
}

/// A scoped thread's handle.
pub struct ScopedJoinHandle<'scope, T> {
    shared: Shared,
    slot: Arc<StdMutex<Option<T>>>,
    thread: Thread,
    _scope: PhantomData<&'scope ()>,
}

impl<T> ScopedJoinHandle<'_, T> {
    /// Waits for the thread; its result, or its panic.
    #[track_caller]
    pub fn join(self) -> std::thread::Result<T> {
        let handle = lock(&self.shared).take().expect("a scoped thread is joined once");
        handle.join()?;
        Ok(lock(&self.slot).take().expect("a thread that returned left its result"))
    }

    /// The thread.
    pub fn thread(&self) -> &Thread {
        &self.thread
    }
}

impl<T> fmt::Debug for ScopedJoinHandle<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("ScopedJoinHandle { .. }")
    }
}
