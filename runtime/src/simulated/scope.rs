//! Scoped threads: threads that may borrow from the spawner's stack.
//!
//! Outside an exploration a [`Scope`] wraps std's own (reached through a
//! lifetime-erased pointer, see [`scope`]); inside one it counts its actors
//! and `scope` blocks until every one of them has finished.

use std::fmt;
use std::io;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::Arc;

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::Op;

use super::thread::{spawn_actor, Builder, SimHandle, Thread};

/// The modelled state of one simulated scope.
pub(super) struct ScopeData {
    /// Actors spawned in the scope that have not finished yet.
    running: AtomicUsize,
    /// Whether any actor was spawned in the scope.
    spawned: AtomicBool,
    /// The object the scope's end waits on; its running actors hold it.
    slot: ObjectSlot,
}

impl ScopeData {
    fn object(&self) -> samaritan_sim::ObjectId {
        self.slot.id("Scope").0
    }

    /// Called by a scoped actor when it starts.
    pub(super) fn enter(&self) {
        rt::acquired(self.object());
    }

    /// Called by a scoped actor as its very last act.
    pub(super) fn exit(&self) {
        rt::released(self.object());
        self.running.fetch_sub(1, Ordering::Relaxed);
    }

    /// Blocks until every actor of the scope has finished.
    fn wait(&self, location: &'static Location<'static>) {
        rt::step_when(Op::Join, Some(self.object()), location, &|| self.running.load(Ordering::Relaxed) == 0);
    }
}

/// Same API as [`std::thread::Scope`].
pub struct Scope<'scope, 'env: 'scope> {
    inner: ScopeInner,
    scope: PhantomData<&'scope mut &'scope ()>,
    env: PhantomData<&'env mut &'env ()>,
}

enum ScopeInner {
    /// A `*const std::thread::Scope<'_, '_>`, lifetimes erased; set before
    /// the user's closure runs.
    Real(AtomicPtr<()>),
    Sim(Arc<ScopeData>),
}

impl fmt::Debug for Scope<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner {
            ScopeInner::Real(_) => f.debug_struct("Scope").finish_non_exhaustive(),
            ScopeInner::Sim(data) => {
                f.debug_struct("Scope").field("running", &data.running.load(Ordering::Relaxed)).finish_non_exhaustive()
            }
        }
    }
}

/// Creates a scope for spawning threads that borrow local data; same API as
/// [`std::thread::scope`]. Every thread spawned in it is joined before it
/// returns.
#[track_caller]
pub fn scope<'env, F, T>(f: F) -> T
where
    F: for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> T,
{
    let location = Location::caller();
    if !rt::active() {
        // `ours` outlives the std scope, and every thread spawned through it
        // is a std scoped thread, which std joins before `scope` returns.
        let ours = Scope { inner: ScopeInner::Real(AtomicPtr::default()), scope: PhantomData, env: PhantomData };
        return std::thread::scope(|std_scope| {
            if let ScopeInner::Real(ptr) = &ours.inner {
                ptr.store(std_scope as *const std::thread::Scope<'_, '_> as *mut (), Ordering::Relaxed);
            }
            f(&ours)
        });
    }
    let data =
        Arc::new(ScopeData { running: AtomicUsize::new(0), spawned: AtomicBool::new(false), slot: ObjectSlot::new() });
    let ours = Scope { inner: ScopeInner::Sim(data.clone()), scope: PhantomData, env: PhantomData };
    let result = panic::catch_unwind(AssertUnwindSafe(|| f(&ours)));
    if data.spawned.load(Ordering::Relaxed) {
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| data.wait(location))) {
            // Only a teardown unwinds out of the wait. Wait again: in
            // teardown that returns at once if every actor has finished, and
            // otherwise the engine abandons this actor for good, stack and
            // all, so what the actors borrow stays valid while they unwind.
            data.wait(location);
            panic::resume_unwind(payload);
        }
    }
    match result {
        Ok(value) => value,
        Err(payload) => panic::resume_unwind(payload),
    }
}

impl<'scope, 'env> Scope<'scope, 'env> {
    /// Spawns a scoped thread running `f`; same API as
    /// [`std::thread::Scope::spawn`].
    #[track_caller]
    pub fn spawn<F, T>(&'scope self, f: F) -> ScopedJoinHandle<'scope, T>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        Builder::new().spawn_scoped(self, f).expect("failed to spawn thread")
    }
}

impl Builder {
    /// Spawns a scoped thread running `f`; same API as
    /// [`std::thread::Builder::spawn_scoped`].
    #[track_caller]
    pub fn spawn_scoped<'scope, 'env, F, T>(
        self,
        scope: &'scope Scope<'scope, 'env>,
        f: F,
    ) -> io::Result<ScopedJoinHandle<'scope, T>>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        match &scope.inner {
            ScopeInner::Real(ptr) => {
                let ptr = ptr.load(Ordering::Relaxed) as *const std::thread::Scope<'scope, 'env>;
                // SAFETY: `scope()` stored a pointer to the live std scope
                // before it let anyone see `scope`. `scope` can only be used
                // by the user's closure and by the threads spawned on that
                // std scope, all of which end before std's `scope` returns,
                // so the std scope is alive whenever this runs. Viewing it
                // with our `'scope` is sound: our `Scope` outlives the std
                // one, and what `f` borrows outlives our `'scope`.
                let std_scope = unsafe { &*ptr };
                let handle = self.into_std().spawn_scoped(std_scope, f)?;
                let thread = Thread::from_std(handle.thread().clone());
                Ok(ScopedJoinHandle(ScopedInner::Real { handle, thread }))
            }
            ScopeInner::Sim(data) => {
                data.running.fetch_add(1, Ordering::Relaxed);
                data.spawned.store(true, Ordering::Relaxed);
                // SAFETY: the actor is counted in `data.running`, and
                // `scope()` neither returns nor unwinds past the caller's
                // frame until `running` is zero; in teardown it is abandoned
                // by the engine instead, its stack never freed. Either way
                // what `f` borrows (for `'scope`, which outlives that wait)
                // outlives the actor.
                let handle = unsafe { spawn_actor(self, Location::caller(), Some(data.clone()), f) }?;
                Ok(ScopedJoinHandle(ScopedInner::Sim(handle, PhantomData)))
            }
        }
    }
}

/// Same API as [`std::thread::ScopedJoinHandle`].
pub struct ScopedJoinHandle<'scope, T>(ScopedInner<'scope, T>);

enum ScopedInner<'scope, T> {
    Real { handle: std::thread::ScopedJoinHandle<'scope, T>, thread: Thread },
    Sim(SimHandle<T>, PhantomData<&'scope ()>),
}

impl<T> fmt::Debug for ScopedJoinHandle<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScopedJoinHandle").field("thread", self.thread()).finish_non_exhaustive()
    }
}

impl<T> ScopedJoinHandle<'_, T> {
    /// Returns a handle to the spawned thread.
    pub fn thread(&self) -> &Thread {
        match &self.0 {
            ScopedInner::Real { thread, .. } => thread,
            ScopedInner::Sim(h, _) => &h.thread,
        }
    }

    /// Waits for the thread to finish and returns its result.
    #[track_caller]
    pub fn join(self) -> std::thread::Result<T> {
        match self.0 {
            ScopedInner::Real { handle, .. } => handle.join(),
            ScopedInner::Sim(h, _) => h.join(Location::caller()),
        }
    }

    /// Returns whether the thread has finished running its closure.
    ///
    /// Under `sim` a scheduling point; a thread that is done may still be
    /// reported running once (std gives a thread's end no fixed moment).
    #[track_caller]
    pub fn is_finished(&self) -> bool {
        match &self.0 {
            ScopedInner::Real { handle, .. } => handle.is_finished(),
            ScopedInner::Sim(h, _) => h.is_finished(Location::caller()),
        }
    }
}
