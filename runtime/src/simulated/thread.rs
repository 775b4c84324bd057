//! Simulated threads: each spawned thread is an engine actor.
//!
//! Outside an exploration every function defers to `std::thread`, so a
//! `sim` build behaves like production. Inside one, `spawn` creates an
//! actor on a coroutine, `join` blocks until it finished, `yield_now`,
//! `sleep` and `park_timeout` are yielding scheduling points, and `park`
//! blocks until the thread's token is set by `unpark`.
//!
//! All actors share one OS thread, so std's thread identity means nothing
//! inside an execution: a [`Thread`] there is the engine's handle of one
//! actor (its id from the actor's spawn index, its name from `Builder::name`,
//! `main` for the test closure), kept in the actor's thread-local storage.
//!
//! `park` may wake spuriously, as std allows: whether it will is an
//! explored choice made before its step (then always enabled), off with
//! `Builder::spurious_failures(false)` and never twice in a row for one
//! thread, like a spurious weak compare-exchange failure.
//!
//! Modelling limit: [`std::thread::panicking`] is per OS thread, so while
//! one actor unwinds, another one scheduled in the middle of that unwinding
//! sees `true` too.

use std::fmt;
use std::io;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::{ActorId, Op};

pub use super::local::LocalKey;
use super::scope::ScopeData;
pub use super::scope::{scope, Scope, ScopedJoinHandle};

/// The engine-side state of one simulated thread.
pub(super) struct SimThread {
    /// The actor's spawn index; `u32::MAX` until the actor starts, which it
    /// does before `spawn` returns.
    actor: AtomicU32,
    name: Option<String>,
    /// The park token, as in std: set by `unpark`, consumed by `park`.
    token: AtomicBool,
    /// Set once the thread's closure has returned (or unwound) and its
    /// thread-local destructors ran: what `join` waits for.
    finished: AtomicBool,
    /// Set once the thread's result is in place and it let go of it, before
    /// its thread-local destructors run: what std's `is_finished` reports
    /// (the result packet's count).
    done: AtomicBool,
    /// Whether an `is_finished` has answered `true` (later ones must too).
    seen_done: AtomicBool,
    /// Whether an `is_finished` answered `false` after it was done (at most
    /// once: see [`SimHandle::is_finished`]).
    stale: AtomicBool,
    /// Whether its last `park` woke spuriously (no second one in a row).
    spurious: AtomicBool,
    /// Whether the actor holds its own object while it runs (spawned threads
    /// do, for deadlock reports on `join`; the main actor does not).
    held: bool,
    /// The object for `join`, `park` and `unpark` on this thread.
    slot: ObjectSlot,
}

impl SimThread {
    fn new(actor: Option<usize>, name: Option<String>, held: bool) -> SimThread {
        SimThread {
            actor: AtomicU32::new(actor.map_or(u32::MAX, |a| a as u32)),
            name,
            token: AtomicBool::new(false),
            finished: AtomicBool::new(false),
            done: AtomicBool::new(false),
            seen_done: AtomicBool::new(false),
            stale: AtomicBool::new(false),
            spurious: AtomicBool::new(false),
            held,
            slot: ObjectSlot::new(),
        }
    }

    fn object(&self) -> samaritan_sim::ObjectId {
        self.slot.id("Thread").0
    }
}

/// Same API as [`std::thread::Thread`]; under `sim`, one actor's handle.
#[derive(Clone)]
pub struct Thread(ThreadInner);

#[derive(Clone)]
enum ThreadInner {
    Real(std::thread::Thread),
    Sim(Arc<SimThread>),
}

impl Thread {
    pub(super) fn from_std(thread: std::thread::Thread) -> Thread {
        Thread(ThreadInner::Real(thread))
    }

    fn sim(&self) -> Option<&Arc<SimThread>> {
        match &self.0 {
            ThreadInner::Real(_) => None,
            ThreadInner::Sim(sim) => Some(sim),
        }
    }

    /// Returns the thread's unique identifier.
    pub fn id(&self) -> ThreadId {
        match &self.0 {
            ThreadInner::Real(t) => ThreadId(IdInner::Real(t.id())),
            ThreadInner::Sim(sim) => ThreadId(IdInner::Sim(u64::from(sim.actor.load(Ordering::Relaxed)) + 1)),
        }
    }

    /// Returns the thread's name: `main` for the main thread (the test
    /// closure under `sim`), `None` for an unnamed spawned thread.
    pub fn name(&self) -> Option<&str> {
        match &self.0 {
            ThreadInner::Real(t) => t.name(),
            ThreadInner::Sim(sim) => sim.name.as_deref(),
        }
    }

    /// Makes the thread's park token available; a scheduling point under
    /// `sim`.
    #[track_caller]
    pub fn unpark(&self) {
        match &self.0 {
            ThreadInner::Real(t) => t.unpark(),
            ThreadInner::Sim(sim) => {
                if rt::active() {
                    rt::step(Op::Unpark, Some(sim.object()), Location::caller());
                }
                sim.token.store(true, Ordering::Relaxed);
            }
        }
    }
}

impl fmt::Debug for Thread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            ThreadInner::Real(t) => t.fmt(f),
            ThreadInner::Sim(_) => {
                f.debug_struct("Thread").field("id", &self.id()).field("name", &self.name()).finish_non_exhaustive()
            }
        }
    }
}

/// Same API as [`std::thread::ThreadId`]. Under `sim` it is the actor's
/// spawn index plus one (the main actor is `ThreadId(1)`), so it is the same
/// in every execution that spawns in the same order.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ThreadId(IdInner);

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum IdInner {
    Real(std::thread::ThreadId),
    Sim(u64),
}

impl fmt::Debug for ThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IdInner::Real(id) => id.fmt(f),
            IdInner::Sim(n) => f.debug_tuple("ThreadId").field(&n).finish(),
        }
    }
}

/// The `with_local` key of the running actor's [`Thread`]: an address no
/// `thread_local!` key can have.
/// Creates the handle of an actor that got none at spawn: the main actor.
fn init_current() -> Thread {
    let actor = rt::current();
    let name = rt::given_name(actor).or_else(|| (actor.index() == 0).then(|| "main".to_string()));
    Thread(ThreadInner::Sim(Arc::new(SimThread::new(Some(actor.index()), name, false))))
}

/// Returns a handle to the calling thread; same API as
/// [`std::thread::current`].
pub fn current() -> Thread {
    if rt::active() {
        if let Some(thread) = rt::with_tag(|t: Option<&Thread>| t.cloned()) {
            return thread;
        }
        let thread = init_current();
        rt::set_tag(Box::new(thread.clone()));
        thread
    } else {
        Thread::from_std(std::thread::current())
    }
}

/// Blocks until the calling thread's park token is available, then
/// consumes it; same API as [`std::thread::park`]. Under `sim` it may wake
/// spuriously (an explored choice, never twice in a row), and a park
/// nobody unparks is reported as a deadlock (when it does not).
#[track_caller]
pub fn park() {
    if !rt::active() {
        return std::thread::park();
    }
    let me = current();
    let sim = me.sim().expect("an actor's handle is simulated");
    let object = sim.object();
    // A parked thread waits for an unpark, not for itself: drop its hold on
    // its own object so a deadlock report shows no self-cycle.
    if sim.held {
        rt::released(object);
    }
    let location = Location::caller();
    let spurious = rt::spurious_failures() && !sim.spurious.load(Ordering::Relaxed) && rt::choose_fault(location);
    sim.spurious.store(spurious, Ordering::Relaxed);
    if spurious {
        // Always enabled: scheduled before an unpark, it wakes without one.
        rt::step(Op::Park, Some(object), location);
    } else {
        rt::step_when(Op::Park, Some(object), location, &|| sim.token.load(Ordering::Relaxed));
    }
    sim.token.store(false, Ordering::Relaxed);
    if sim.held {
        rt::acquired(object);
    }
}

/// Blocks until the park token is available or `dur` elapsed; same API as
/// [`std::thread::park_timeout`]. Under `sim` a yielding scheduling point:
/// if no token is there when it is scheduled it times out and advances the
/// virtual clock by `dur`.
#[track_caller]
pub fn park_timeout(dur: Duration) {
    if !rt::active() {
        return std::thread::park_timeout(dur);
    }
    let me = current();
    let sim = me.sim().expect("an actor's handle is simulated");
    rt::step(Op::ParkTimeout, Some(sim.object()), Location::caller());
    if !sim.token.swap(false, Ordering::Relaxed) {
        rt::advance_clock(nanos(dur));
    }
}

fn nanos(dur: Duration) -> u64 {
    dur.as_nanos().min(u128::from(u64::MAX)) as u64
}

/// Where a simulated thread leaves its result for `join`.
pub(super) struct Packet<T> {
    result: Mutex<Option<T>>,
}

/// The simulated side of a join handle, scoped or not.
pub(super) struct SimHandle<T> {
    pub(super) thread: Thread,
    packet: Arc<Packet<T>>,
}

impl<T> SimHandle<T> {
    fn sim(&self) -> &SimThread {
        self.thread.sim().expect("a simulated handle has a simulated thread")
    }

    /// Blocks until the thread finished and takes its result.
    pub(super) fn join(self, location: &'static Location<'static>) -> std::thread::Result<T> {
        let sim = self.sim();
        if rt::active() {
            rt::step_when(Op::Join, Some(sim.object()), location, &|| sim.finished.load(Ordering::Relaxed));
        }
        let value = crate::lock(&self.packet.result).take();
        // A panic in a simulated thread ends the execution, so a missing
        // value is seen only while the execution is torn down.
        value.ok_or_else(|| Box::new("the simulated thread did not finish") as Box<dyn std::any::Any + Send>)
    }

    /// Whether the thread is done (std's `is_finished`). Inside an
    /// execution a step ([`Op::IsFinished`]) that reads the thread's
    /// object, so that the search explores it before and after the
    /// thread's end. std gives the end of a thread no moment of its own:
    /// between its last visible operation and the release of its result
    /// any time may pass, so a thread that is done may still be reported
    /// running. That answer is an explored choice, offered once per thread
    /// (bounded like spurious wake-ups); once `true` has been answered,
    /// every later answer is `true`.
    pub(super) fn is_finished(&self, location: &'static Location<'static>) -> bool {
        let sim = self.sim();
        if !rt::active() {
            return sim.done.load(Ordering::Relaxed);
        }
        rt::step(Op::IsFinished, Some(sim.object()), location);
        let actor = ActorId::from_index(sim.actor.load(Ordering::Relaxed) as usize);
        if !sim.done.load(Ordering::Relaxed) {
            rt::note(&|name| format!("{} is still running", name(actor)));
            false
        } else if !sim.seen_done.load(Ordering::Relaxed)
            && !sim.stale.load(Ordering::Relaxed)
            && rt::choose_at(2, location) == 1
        {
            sim.stale.store(true, Ordering::Relaxed);
            rt::note(&|name| format!("{} is done, but reported as still running", name(actor)));
            false
        } else {
            sim.seen_done.store(true, Ordering::Relaxed);
            rt::note(&|name| format!("{} has finished", name(actor)));
            true
        }
    }
}

/// Runs when a simulated thread's closure returned or unwound: leaves its
/// scope (unless it left already) and marks the thread finished, as its
/// last acts.
struct Exit {
    thread: Arc<SimThread>,
    scope: Option<Arc<ScopeData>>,
}

impl Exit {
    /// The thread's result is in place and released: it is done as std's
    /// `is_finished` sees it. Reductions take that as part of the step
    /// just taken ([`rt::ended`]).
    fn done(&self) {
        self.thread.done.store(true, Ordering::Relaxed);
        rt::ended(self.thread.object());
    }

    /// Leaves the scope, as std's thread does when it drops its result
    /// packet: before its thread-local destructors run.
    fn leave_scope(&mut self) {
        if let Some(scope) = self.scope.take() {
            scope.exit();
        }
    }
}

impl Drop for Exit {
    fn drop(&mut self) {
        self.leave_scope();
        self.thread.finished.store(true, Ordering::Relaxed);
        rt::released(self.thread.object());
    }
}

/// Spawns an actor running `f`; `scope` is the scope that counts it, if any.
///
/// # Safety
///
/// Everything `f` and its result borrow must outlive the actor: the caller
/// must make sure the actor finishes (or the execution ends) first.
pub(super) unsafe fn spawn_actor<'a, F, T>(
    builder: Builder,
    location: &'static Location<'static>,
    scope: Option<Arc<ScopeData>>,
    f: F,
) -> io::Result<SimHandle<T>>
where
    F: FnOnce() -> T + Send + 'a,
    T: Send + 'a,
{
    let sim = Arc::new(SimThread::new(None, builder.name.clone(), true));
    let packet = Arc::new(Packet { result: Mutex::new(None) });
    let (their_sim, their_packet) = (sim.clone(), packet.clone());
    let body = move || {
        their_sim.actor.store(rt::current().index() as u32, Ordering::Relaxed);
        rt::set_tag(Box::new(Thread(ThreadInner::Sim(their_sim.clone()))));
        rt::acquired(their_sim.object());
        rt::represents(their_sim.object());
        if let Some(scope) = &scope {
            scope.enter();
        }
        // Declared first, dropped last (on unwinding too): the packet, and
        // with it any unclaimed result, goes before the thread leaves its
        // scope and counts as finished.
        let mut exit = Exit { thread: their_sim, scope };
        let packet = their_packet;
        let value = f();
        *crate::lock(&packet.result) = Some(value);
        drop(packet);
        exit.done();
        // As in std: the scope may end now, a `join` only once the
        // thread-local destructors ran (std's join waits for the OS thread,
        // which runs them at its exit, looping while they create values).
        exit.leave_scope();
        rt::destroy_locals();
        drop(exit);
    };
    // SAFETY: the caller guarantees that what `f` borrows outlives the actor.
    unsafe { rt::spawn_unchecked(builder.name, builder.stack_size, location, Box::new(body)) }?;
    Ok(SimHandle { thread: Thread(ThreadInner::Sim(sim)), packet })
}

/// Same API as [`std::thread::JoinHandle`].
pub struct JoinHandle<T>(Inner<T>);

enum Inner<T> {
    Real { handle: std::thread::JoinHandle<T>, thread: Thread },
    Sim(SimHandle<T>),
}

// SAFETY: as std's (which are unconditional too): a `JoinHandle<T>` is
// only made by `spawn`, which requires `T: Send`, and only `join(self)`
// touches the `T`, moving it to the joiner.
unsafe impl<T> Send for JoinHandle<T> {}
// SAFETY: as above; `&JoinHandle` gives no access to the `T`.
unsafe impl<T> Sync for JoinHandle<T> {}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Inner::Real { handle, .. } => handle.fmt(f),
            Inner::Sim(h) => f.debug_struct("JoinHandle").field("thread", &h.thread).finish_non_exhaustive(),
        }
    }
}

impl<T> JoinHandle<T> {
    /// Returns a handle to the spawned thread.
    pub fn thread(&self) -> &Thread {
        match &self.0 {
            Inner::Real { thread, .. } => thread,
            Inner::Sim(h) => &h.thread,
        }
    }

    /// Waits for the thread to finish and returns its result.
    #[track_caller]
    pub fn join(self) -> std::thread::Result<T> {
        match self.0 {
            Inner::Real { handle, .. } => handle.join(),
            Inner::Sim(h) => h.join(Location::caller()),
        }
    }

    /// Returns whether the thread has finished running its closure.
    ///
    /// Under `sim` a scheduling point; a thread that is done may still be
    /// reported running once (std gives a thread's end no fixed moment).
    #[track_caller]
    pub fn is_finished(&self) -> bool {
        match &self.0 {
            Inner::Real { handle, .. } => handle.is_finished(),
            Inner::Sim(h) => h.is_finished(Location::caller()),
        }
    }
}

/// Same API as [`std::thread::Builder`].
#[derive(Debug, Default)]
pub struct Builder {
    pub(super) name: Option<String>,
    pub(super) stack_size: Option<usize>,
}

impl Builder {
    /// Creates a builder with no name and the default stack size.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Names the thread; the name shows in traces and reports.
    pub fn name(mut self, name: String) -> Builder {
        self.name = Some(name);
        self
    }

    /// Sets the stack size of the thread (of its coroutine under `sim`). A
    /// size the OS cannot map makes [`Builder::spawn`] return the error, in
    /// an exploration as in std.
    pub fn stack_size(mut self, size: usize) -> Builder {
        self.stack_size = Some(size);
        self
    }

    /// Returns the equivalent std builder.
    pub(super) fn into_std(self) -> std::thread::Builder {
        let mut builder = std::thread::Builder::new();
        if let Some(name) = self.name {
            builder = builder.name(name);
        }
        if let Some(size) = self.stack_size {
            builder = builder.stack_size(size);
        }
        builder
    }

    /// Spawns a thread running `f`, or returns why it cannot (its stack
    /// cannot be had); a spawn that fails takes no step.
    #[track_caller]
    pub fn spawn<F, T>(self, f: F) -> io::Result<JoinHandle<T>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        if !rt::active() {
            let handle = self.into_std().spawn(f)?;
            let thread = Thread::from_std(handle.thread().clone());
            return Ok(JoinHandle(Inner::Real { handle, thread }));
        }
        // SAFETY: `f` and `T` are `'static`.
        let handle = unsafe { spawn_actor(self, Location::caller(), None, f) }?;
        Ok(JoinHandle(Inner::Sim(handle)))
    }
}

/// Spawns a new thread; same API as [`std::thread::spawn`].
#[track_caller]
pub fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    Builder::new().spawn(f).expect("failed to spawn thread")
}

/// Gives up the processor; a yielding scheduling point under `sim`.
#[track_caller]
pub fn yield_now() {
    if rt::active() {
        rt::step(Op::Yield, None, Location::caller());
    } else {
        std::thread::yield_now();
    }
}

/// Sleeps; under `sim` a yield that advances the virtual clock instead.
#[track_caller]
pub fn sleep(duration: Duration) {
    if rt::active() {
        rt::step(Op::Sleep, None, Location::caller());
        rt::advance_clock(nanos(duration));
    } else {
        std::thread::sleep(duration);
    }
}
