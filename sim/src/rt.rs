//! The verbs primitives use to reach the engine.
//!
//! A primitive announces each visible operation with [`step`] (always able
//! to proceed) or [`step_when`] (able to proceed once a condition holds),
//! then performs it. The engine decides, at every announcement, which actor
//! takes the next step. Primitives keep their own modelled state; the engine
//! only learns which objects are held by whom ([`acquired`], [`released`]),
//! for deadlock reports.
//!
//! Every verb here must be called from inside an execution ([`active`]
//! returns `true`); outside one, primitives behave like production.

use std::any::Any;
use std::panic::Location;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::actor::{Resume, Status, Suspend};
use crate::execution::{Announce, Next};
use crate::op::{ActorId, ObjectId, Op};
use crate::run::{self, with_exec, ExecCell};
use crate::strategy::Pending;

/// Returns whether the caller runs on an actor of an execution.
#[inline]
pub fn active() -> bool {
    run::active()
}

/// A primitive's link to its engine object, valid for one execution.
///
/// Primitives hold one slot each. The object is registered on first use in
/// an execution, so a primitive created outside (a `static`, say) still gets
/// a fresh id in every execution.
#[derive(Debug, Default)]
pub struct ObjectSlot {
    /// `generation << 24 | index`, or 0 when never registered.
    packed: AtomicU64,
}

impl ObjectSlot {
    /// Creates an unregistered slot.
    pub const fn new() -> ObjectSlot {
        ObjectSlot { packed: AtomicU64::new(0) }
    }

    /// Returns the object's id in the running execution, registering it
    /// under `kind` (a label such as `"Mutex"`) on first use. The second
    /// value is `true` when the object was registered just now, so the
    /// primitive should reset its modelled state.
    #[inline]
    pub fn id(&self, kind: &'static str) -> (ObjectId, bool) {
        let packed = self.packed.load(Ordering::Relaxed);
        if packed >> 24 == run::generation() && packed != 0 {
            return (ObjectId((packed & 0xff_ffff) as u32), false);
        }
        self.register(kind)
    }

    #[cold]
    fn register(&self, kind: &'static str) -> (ObjectId, bool) {
        with_exec(|cell| {
            let packed = self.packed.load(Ordering::Relaxed);
            let mut e = cell.borrow_mut();
            if packed >> 24 == e.generation {
                return (ObjectId((packed & 0xff_ffff) as u32), false);
            }
            let index = e.objects.len() as u64;
            e.objects.push(crate::execution::ObjectInfo::new(kind));
            self.packed.store(e.generation << 24 | index, Ordering::Relaxed);
            (ObjectId(index as u32), true)
        })
        .expect("ObjectSlot::id called outside an execution")
    }
}

pub use crate::objects::{execution_value, flag, forget_at, is_static, keep_static, object_at, on_abandon, set_flag};

/// Announces `op` on `object` and returns once this actor may perform it.
#[inline]
pub fn step(op: Op, object: Option<ObjectId>, location: &'static Location<'static>) {
    announce(Pending::new(op, object, location), None, None);
}

/// Announces `op` on atomic `object`, a `SeqCst` access when `seq_cst`
/// (which then takes part in the order of `SeqCst` fences for the
/// reductions: [`Footprint::fence_order`](crate::Footprint::fence_order)),
/// and returns once this actor may perform it.
#[inline]
pub fn atomic_step(op: Op, object: ObjectId, seq_cst: bool, location: &'static Location<'static>) {
    announce(Pending { seq_cst, ..Pending::new(op, Some(object), location) }, None, None);
}

/// Announces `op` on `object` and returns once this actor may perform it;
/// the step is taken as the operation `taken()` returns then, which only
/// the state at that moment decides (a reference count's decrement is
/// [`Op::RefFree`] when it will free the value). Strategies see `op` as
/// the pending operation and the returned one in the step. `taken` must
/// only read the primitive's state, as `step_when`'s condition.
#[inline]
pub fn step_as(op: Op, object: Option<ObjectId>, location: &'static Location<'static>, taken: &dyn Fn() -> Op) {
    announce(Pending::new(op, object, location), None, Some(taken));
}

/// Announces `op` on `object`, which can proceed only while `ready()`
/// returns `true`, as [`step_when`], and is taken as the operation
/// `taken()` returns then, as [`step_as`] (a one-time initialization's
/// begin step, which only reads the state once another thread has
/// completed it). Both must only read the primitive's state.
#[inline]
pub fn step_when_as(
    op: Op,
    object: Option<ObjectId>,
    location: &'static Location<'static>,
    ready: &dyn Fn() -> bool,
    taken: &dyn Fn() -> Op,
) {
    announce(Pending::new(op, object, location), Some(ready), Some(taken));
}

/// Announces `op` on `object` that also changes `second` in the same step
/// (a condition variable's wait releases its mutex), and returns once this
/// actor may perform it. Naming `second` keeps partial-order reduction
/// sound without making the step conflict with everything.
#[inline]
pub fn step_with(op: Op, object: Option<ObjectId>, second: ObjectId, location: &'static Location<'static>) {
    announce(Pending { op, object, location, second: Some(second), seq_cst: false }, None, None);
}

/// Announces `op` on `object` that also changes `second`, as
/// [`step_with`], and can proceed only while `ready()` returns `true`, as
/// [`step_when`] (an async task's poll that takes a worker thread: what
/// enables it, a wake or a worker given back, touches one of the two).
#[inline]
pub fn step_with_when(
    op: Op,
    object: Option<ObjectId>,
    second: ObjectId,
    location: &'static Location<'static>,
    ready: &dyn Fn() -> bool,
) {
    announce(Pending { op, object, location, second: Some(second), seq_cst: false }, Some(ready), None);
}

/// Announces `op` on `object`, which can proceed only while `ready()`
/// returns `true`; returns once this actor may perform it (with `ready()`
/// true). `ready` must only read the primitive's state: it is evaluated
/// whenever the engine makes a decision, with the engine borrowed.
#[inline]
pub fn step_when(op: Op, object: Option<ObjectId>, location: &'static Location<'static>, ready: &dyn Fn() -> bool) {
    announce(Pending::new(op, object, location), Some(ready), None);
}

/// Says that the thread whose object is `object` has ended (its result is
/// in place): part of the step just taken, which is the thread's last (or
/// the spawn that ran an idle thread to its end), since std gives a
/// thread's end no moment of its own. Partial-order reduction then orders
/// that step after every [`Op::IsFinished`] on `object` before it
/// ([`Strategy::on_end`](crate::Strategy::on_end)). Does nothing outside
/// an execution, after its verdict, during teardown or while the actor
/// unwinds from a panic.
pub fn ended(object: ObjectId) {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        if !e.teardown && !std::thread::panicking() {
            e.ended(object);
        }
    });
}

fn announce(pending: Pending, ready: Option<&dyn Fn() -> bool>, taken: Option<&dyn Fn() -> Op>) {
    let Some(cell) = run::with_exec(|c| c as *const ExecCell) else { return };
    // SAFETY: `with_exec` handed out a pointer to the live execution, which
    // outlives every actor call into the engine.
    let cell = unsafe { &*cell };
    let me;
    {
        let mut e = cell.borrow_mut();
        me = e.current.expect("a visible operation outside any actor");
        // While this actor unwinds from a panic (the execution is failing;
        // another actor must not run and observe
        // `std::thread::panicking()`), operations take no step.
        if std::thread::panicking() {
            if ready.is_none_or(|r| r()) {
                return;
            }
            // It can never go on. Its panic is the verdict: record it now,
            // since its unwinding ends here.
            let (message, location) = crate::panics::in_flight();
            let actor = e.actor_name(me);
            e.fail(crate::panics::verdict(actor, message, location));
            drop(e);
            // Give up unwinding this actor: its stack is abandoned with
            // the unwinding half done, which leaves this OS thread's panic
            // count raised; the explorer moves to a fresh thread.
            run::suspend(cell, me, Suspend::Stuck);
            unreachable!("an abandoned actor is never resumed");
        }
        if !e.actors[me.index()].deferred.is_empty() {
            // What the actor put off happens first, in steps of its own
            // (`defer_to_next_step`); then this operation is announced.
            drop(e);
            run_deferred();
            return announce(pending, ready, taken);
        }
        if e.actors[me.index()].status == Status::Running && e.try_forced_step(me, pending, ready, taken) {
            return;
        }
        // SAFETY: the closure lives on this frame, which stays put until
        // `ready` is cleared after the switch below or by `decide` (actor
        // module invariant); only the lifetime is erased.
        let ready = ready.map(|r| unsafe {
            std::mem::transmute::<*const (dyn Fn() -> bool + '_), *const (dyn Fn() -> bool + 'static)>(r)
        });
        // SAFETY: as `ready`: the closure lives on this frame until the
        // step is taken, when `decide` clears it.
        let taken = taken.map(|t| unsafe {
            std::mem::transmute::<*const (dyn Fn() -> Op + '_), *const (dyn Fn() -> Op + 'static)>(t)
        });
        let announce = Announce { actor: me, pending, ready, taken };
        let starting = e.actors[me.index()].status == Status::Starting;
        if starting {
            // Started eagerly by its spawner: file the operation and go back.
            e.wait(announce);
        } else {
            match e.decide(Some(announce)) {
                Next::Run(next) if next == me => return,
                Next::Run(next) => e.next = Some(next),
                Next::End => e.next = None,
            }
        }
        drop(e);
        let why = if starting { Suspend::Started } else { Suspend::Switch };
        match run::suspend(cell, me, why) {
            Resume::Run => {}
        }
    }
}

/// Records that the program reached the abstract state `hash` (a value the
/// test computes from its own variables), for the count of distinct states
/// an exploration reaches. Not a visible operation: it takes no step.
pub fn coverage_state(hash: u64) {
    with_exec(|cell| {
        cell.borrow_mut().states.insert(hash);
    });
}

/// Returns the name of the test the running exploration checks
/// ([`Config::test_name`](crate::Config::test_name)), when called inside an
/// execution and the exploration has one: an exploration started there (a
/// check inside a check) belongs to the same test.
pub fn test_name() -> Option<String> {
    if !active() {
        return None;
    }
    crate::config::running_test()
}

/// Ends the running execution with a misuse verdict
/// ([`Outcome::Misuse`](crate::Outcome::Misuse)): the running actor used
/// samaritan in a way it cannot check, described by `detail` (what, where,
/// what to do instead). Takes no step; the caller goes on (and typically
/// panics, as it would outside an exploration), and the execution ends at
/// its next scheduling point with this verdict rather than a panic's.
pub fn misuse(detail: String) {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        if let Some(me) = e.current {
            let actor = e.actor_name(me);
            e.fail(crate::outcome::Outcome::Misuse { actor, detail });
        }
    });
}

/// Makes a panic whose message starts with `starts` a misuse of the test
/// (`detail` says what it used that an exploration cannot run, and what to
/// do instead) rather than a bug: a library that panics when it finds no
/// runtime of its own, say. Process-wide; registering a start again keeps
/// the first detail.
pub fn misuse_on_panic(starts: &'static str, detail: &'static str) {
    crate::panics::misuse_on_panic(starts, detail);
}

/// Asks the engine for a value in `0..alternatives` (an explored choice).
#[track_caller]
pub fn choose(alternatives: usize) -> usize {
    choose_at(alternatives, Location::caller())
}

/// [`choose`], made at `location` (for a primitive whose caller's location
/// was taken earlier).
pub fn choose_at(alternatives: usize, location: &'static Location<'static>) -> usize {
    // A choice is a scheduling point too: what was put off comes first.
    run_deferred();
    with_exec(|cell| cell.borrow_mut().choose_value(None, alternatives, location, None, false)).flatten().unwrap_or(0)
}

/// Whether a fault the platform may inject happens at `location`: a
/// spurious wake-up or a spurious failure (only asked when spurious
/// failures are on). An explored data choice, `true` its second value,
/// which a search that bounds preemptions counts as one
/// ([`ChoicePoint::fault`](crate::ChoicePoint::fault)): like a
/// preemption, it is the environment's doing, and a bug that needs a
/// few of them is found at a small bound.
pub fn choose_fault(location: &'static Location<'static>) -> bool {
    run_deferred();
    with_exec(|cell| cell.borrow_mut().choose_value(None, 2, location, None, true)).flatten() == Some(1)
}

/// Spawns an actor running `body` on a stack of at least `stack_size`
/// bytes (the exploration's by default); announces [`Op::Spawn`] first.
/// Returns the error of mapping the stack, as std's `spawn` returns the
/// OS's, without taking a step.
pub fn spawn(
    name: Option<String>,
    stack_size: Option<usize>,
    location: &'static Location<'static>,
    body: Box<dyn FnOnce() + Send + 'static>,
) -> std::io::Result<ActorId> {
    // SAFETY: `body` is `'static`.
    unsafe { spawn_unchecked(name, stack_size, location, body) }
}

/// Spawns an actor whose body may borrow from the spawner; see [`spawn`].
///
/// # Safety
///
/// Everything `body` borrows must outlive the actor: the caller must join
/// the actor (or the execution must end) before the borrowed data goes away.
pub unsafe fn spawn_unchecked<'a>(
    name: Option<String>,
    stack_size: Option<usize>,
    location: &'static Location<'static>,
    body: Box<dyn FnOnce() + Send + 'a>,
) -> std::io::Result<ActorId> {
    let cell = with_exec(|c| c as *const ExecCell).expect("spawn outside an execution");
    // SAFETY: the execution outlives its actors.
    let cell = unsafe { &*cell };
    // The stack first: a spawn that fails takes no step, so every spawn
    // step has its actor (reductions read the spawned actor off the step).
    let stack = run::take_stack(cell, stack_size)?;
    step(Op::Spawn, None, location);
    // SAFETY: the caller upholds the borrow contract.
    Ok(unsafe { run::start_actor(cell, name, stack, body) })
}

/// Puts `work` off until just before the running actor's next visible
/// operation, or until it calls [`run_deferred`], whichever comes first;
/// outside an execution it runs now. `work` may take steps of its own.
///
/// For a visible operation that the program makes while it may hold a
/// lock samaritan does not see (a `std::sync::Mutex` around a list of
/// wakers, as `futures::lock::Mutex`'s unlock holds one while it wakes):
/// taken there, its scheduling point could let another actor run and
/// block on that lock for real, while the holder waits to be resumed on
/// the same OS thread. Put off, it is taken at the actor's next scheduling
/// point, where the code between (invisible to the model: no step) has
/// run, the lock released with it. The visible steps and their order are
/// the same either way; only what the actor does in between without a
/// step now comes before the put-off step's scheduling point.
///
/// # Examples
///
/// ```
/// use samaritan_sim::rt;
/// // Outside an execution the work runs at once.
/// let ran = std::rc::Rc::new(std::cell::Cell::new(false));
/// let flag = ran.clone();
/// rt::defer_to_next_step(Box::new(move || flag.set(true)));
/// assert!(ran.get());
/// ```
pub fn defer_to_next_step(work: Box<dyn FnOnce()>) {
    // `work` comes back when there is no actor to put it off for.
    let mut work = Some(work);
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        if let Some(me) = e.current.filter(|_| !e.teardown) {
            e.actors[me.index()].deferred.extend(work.take());
        }
    });
    if let Some(work) = work {
        work();
    }
}

/// Runs the work the running actor put off ([`defer_to_next_step`]) now,
/// in the order it was put off. Does nothing outside an execution.
pub fn run_deferred() {
    run::run_deferred();
}

/// Returns the running actor.
pub fn current() -> ActorId {
    with_exec(|cell| cell.borrow().current).flatten().expect("rt::current outside an actor")
}

/// Returns the location of the running actor's latest step (the step that
/// resumed it, or a later one it took), if it took one. Taking no step
/// itself, this lets a primitive name where an actor last did something
/// visible (an async task's last operation before it returned `Pending`).
pub fn last_location() -> Option<&'static Location<'static>> {
    with_exec(|cell| cell.borrow().last_location).flatten()
}

/// Returns the name given to `actor` at spawn, if any.
pub fn given_name(actor: ActorId) -> Option<String> {
    with_exec(|cell| cell.borrow().actors.get(actor.index()).and_then(|a| a.name.clone())).flatten()
}

/// Records that the running actor now holds `object` (for reports). A
/// try-lock's acquire (happens-before, for data races) happens here, once
/// it took the lock.
pub fn acquired(object: ObjectId) {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        if let Some(me) = e.current {
            e.objects[object.index()].holders.push(me);
            e.race.acquired(me, object);
        }
    });
}

/// Records that `object` stands for the running actor (a thread's handle):
/// a join on it then happens after every step of the actor, for analyses
/// that track happens-before ([`crate::Step::peer`]).
pub fn represents(object: ObjectId) {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let me = e.current;
        e.objects[object.index()].actor = me;
    });
}

/// Records that the running actor no longer holds `object`. It releases
/// `object` (happens-before, for data races) here too, which covers locks
/// given up without a step on them (a condition variable's wait) and a
/// thread's exit.
pub fn released(object: ObjectId) {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let me = e.current;
        if let Some(me) = me {
            e.race.release(me, object);
        }
        let holders = &mut e.objects[object.index()].holders;
        if let Some(pos) = holders.iter().position(|&h| Some(h) == me) {
            holders.swap_remove(pos);
        } else if !holders.is_empty() {
            // Released by another actor (a guard sent across threads).
            holders.pop();
        }
    });
}

/// Makes the running actor's latest step on `object` acquire after all:
/// for an operation that acquires only when it succeeds (a try-lock that
/// took the lock, a reference count's decrement that freed the value, an
/// upgrade that got a reference; see [`Op`]). Takes no step.
pub fn acquire(object: ObjectId) {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        if let Some(me) = e.current {
            e.race.acquired(me, object);
        }
    });
}

pub use crate::leak::Allocation;

/// Registers a value of `kind` (a label such as `"Arc"`) that the running
/// execution created at `location` and must free ([`freed`]) before it
/// ends: an execution whose actors all finish with it still registered
/// fails with [`Outcome::Leak`](crate::Outcome::Leak). Takes no step.
/// Returns `None` outside an execution (nothing is tracked there).
pub fn allocated(kind: &'static str, location: &'static Location<'static>) -> Option<Allocation> {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let generation = e.generation;
        e.allocations.add(generation, kind, location)
    })
}

/// Unregisters a value [`allocated`] returned: it was freed. A value of
/// an earlier execution (kept in a `static`), or freed outside any, is
/// ignored.
pub fn freed(allocation: Allocation) {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let generation = e.generation;
        e.allocations.free(generation, allocation);
    });
}

/// A cell's link to its data-race state, valid for one execution.
///
/// Like [`ObjectSlot`], it registers on first use in an execution; cells
/// are numbered in their own space, apart from objects, and never appear
/// in traces.
#[derive(Debug, Default)]
pub struct CellSlot {
    /// `generation << 24 | index`, or 0 when never registered.
    packed: AtomicU64,
}

impl CellSlot {
    /// Creates an unregistered slot.
    pub const fn new() -> CellSlot {
        CellSlot { packed: AtomicU64::new(0) }
    }

    /// Returns the cell's index in execution `e`, registering it under
    /// `kind` on first use.
    fn id(&self, e: &mut crate::execution::Execution, kind: &'static str) -> usize {
        let packed = self.packed.load(Ordering::Relaxed);
        if packed != 0 && packed >> 24 == e.generation {
            return (packed & 0xff_ffff) as usize;
        }
        let index = e.race.register_cell(kind);
        self.packed.store(e.generation << 24 | index as u64, Ordering::Relaxed);
        index
    }
}

/// Records that the running actor reads the cell `cell` (labelled `kind`)
/// at `location`. Not a scheduling point: it takes no step. When an
/// earlier write of another actor does not happen before it, the execution
/// fails with [`Outcome::DataRace`](crate::Outcome::DataRace).
pub fn cell_read(cell: &CellSlot, kind: &'static str, location: &'static Location<'static>) {
    cell_access(cell, kind, false, location);
}

/// Records that the running actor writes the cell `cell`; like
/// [`cell_read`], but every earlier access of another actor, read or
/// write, must happen before it.
pub fn cell_write(cell: &CellSlot, kind: &'static str, location: &'static Location<'static>) {
    cell_access(cell, kind, true, location);
}

fn cell_access(cell: &CellSlot, kind: &'static str, write: bool, location: &'static Location<'static>) {
    with_exec(|c| {
        let mut e = c.borrow_mut();
        // A failing execution (a panicking actor's verdict is recorded
        // only once it has unwound) and teardown check nothing more.
        let Some(me) = e.current.filter(|_| e.outcome.is_none() && !e.teardown && !std::thread::panicking()) else {
            return;
        };
        let id = cell.id(&mut e, kind);
        let ex = &mut *e;
        let memory = &mut ex.memory;
        let race = ex.race.access(id, me, write, location, &ex.objects, &mut |r, m| memory.apply(m, r));
        if let Some(race) = race {
            // Only while a report's trace is recorded: a backtrace costs.
            let in_std_arc_drop = e.config.tracing && in_std_arc_drop();
            let outcome = e.race.report(&race, in_std_arc_drop, |a| e.actor_name(a));
            e.fail(outcome);
        }
    });
}

/// Whether the calling thread runs in a destructor that std's `Arc`
/// started on its last drop: its `drop_slow`, never inlined, is on the
/// stack. Without debug info the frame is the symbol's full path
/// (`alloc::sync::Arc<T,A>::drop_slow`; symbol names survive in release
/// builds unless stripped); with line tables only, the name is short
/// (`drop_slow<..>`) and the line under it names `alloc/src/sync.rs`.
fn in_std_arc_drop() -> bool {
    let trace = std::backtrace::Backtrace::force_capture().to_string();
    let lines: Vec<&str> = trace.lines().collect();
    lines.iter().enumerate().any(|(i, l)| {
        let frame = l.trim_start();
        let short =
            frame.contains(": drop_slow<") && lines.get(i + 1).is_some_and(|at| at.contains("alloc/src/sync.rs"));
        short || (frame.contains("alloc::sync::Arc<") && frame.contains("drop_slow"))
    })
}

/// Returns whether weak compare-exchange may fail spuriously, and
/// condition-variable waits and parks wake spuriously
/// ([`Config::spurious_failures`](crate::Config::spurious_failures)).
pub fn spurious_failures() -> bool {
    with_exec(|cell| cell.borrow().config.spurious_failures).unwrap_or(false)
}

/// Advances the virtual clock by `nanos` and returns the new time.
pub fn advance_clock(nanos: u64) -> u64 {
    // Timers the clock reaches fire at the next scheduling point, which
    // must not be a step put off from before the move.
    run_deferred();
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let to = e.clock_ns.saturating_add(nanos);
        e.clock_to(to);
        e.clock_ns
    })
    .unwrap_or(0)
}

/// Arms a timer for virtual time `deadline_ns`: the engine calls `fire` at
/// the first scheduling point once the clock has reached it (sleeps move
/// the clock), or, when no actor can run, moves the clock there. `fire` runs with
/// the engine borrowed: it may only set state that a [`step_when`]
/// condition reads (a flag), never call into `rt`. Timers of an execution
/// that ends unfired are dropped.
pub fn wake_at(deadline_ns: u64, fire: Box<dyn Fn()>) {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        e.timers.arm(deadline_ns, fire);
    });
}

/// Returns the virtual clock, in nanoseconds since the execution began.
pub fn now() -> u64 {
    with_exec(|cell| cell.borrow().clock_ns).unwrap_or(0)
}

/// Calls `f` with the running actor's value for the thread-local key at
/// address `key`, creating it with `init` on first use. The value is dropped
/// when the actor finishes ([`destroy_locals`]).
///
/// # Panics
///
/// If the key's value has been destroyed or is being destroyed, as std's
/// `LocalKey::with` does.
pub fn with_local<T: 'static, R>(key: usize, init: fn() -> T, f: impl FnOnce(&T) -> R) -> R {
    try_with_local(key, init, f).expect("cannot access a Thread Local Storage value during or after destruction")
}

/// [`with_local`], returning `None` instead of panicking when the key's
/// value has been destroyed or is being destroyed (std's
/// `LocalKey::try_with`).
pub fn try_with_local<T: 'static, R>(key: usize, init: fn() -> T, f: impl FnOnce(&T) -> R) -> Option<R> {
    let cell = with_exec(|c| c as *const ExecCell).expect("with_local outside an execution");
    // SAFETY: the execution outlives its actors.
    let cell = unsafe { &*cell };
    let ptr: *const T = {
        let mut e = cell.borrow_mut();
        let me = e.current.expect("with_local outside an actor");
        let actor = &e.actors[me.index()];
        if actor.destroyed.contains(&key) {
            return None;
        }
        let mut found = actor.locals.iter().position(|(k, _)| *k == key);
        if found.is_none() {
            drop(e);
            // `init` may itself use the engine, so run it unborrowed.
            let value: Box<dyn Any> = Box::new(init());
            e = cell.borrow_mut();
            let locals = &mut e.actors[me.index()].locals;
            // `init` may have created the value itself (recursively).
            found = locals.iter().position(|(k, _)| *k == key);
            if found.is_none() {
                locals.push((key, value));
                found = Some(locals.len() - 1);
            }
        }
        let value = &e.actors[me.index()].locals[found.expect("just found or created")].1;
        value.downcast_ref::<T>().expect("thread-local key used with two types") as *const T
    };
    // SAFETY: the value is boxed, so it does not move when the list grows,
    // and it is dropped only by `destroy_locals`, which takes it out of the
    // list first and is called once the actor's closure returned, from its
    // own loop (a destructor it runs may call `with_local`, on values
    // still in the list, but not destroy any).
    Some(f(unsafe { &*ptr }))
}

/// Destroys the running actor's thread-local values, as std does at
/// thread exit: the most recently created first, one at a time with the
/// engine unborrowed (a destructor may take steps), until none is left, so
/// values created by destructors are destroyed too. A destroyed key is
/// refused from then on ([`try_with_local`]). Called by the runtime before
/// a thread counts as finished (its join returns after this), and by the
/// engine when an actor's body returns.
pub fn destroy_locals() {
    run::destroy_locals();
}

/// Attaches `tag` to the running actor, replacing any earlier one; it is
/// dropped when the actor finishes. The runtime keeps the thread handle
/// here.
pub fn set_tag(tag: Box<dyn Any>) {
    let old = with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let me = e.current.expect("set_tag outside an actor");
        e.actors[me.index()].tag.replace(tag)
    });
    drop(old);
}

/// Calls `f` with the running actor's tag, if it has one of type `T`.
pub fn with_tag<T: 'static, R>(f: impl FnOnce(Option<&T>) -> R) -> R {
    let cell = with_exec(|c| c as *const ExecCell).expect("with_tag outside an execution");
    // SAFETY: the execution outlives its actors.
    let cell = unsafe { &*cell };
    let ptr: Option<*const T> = {
        let e = cell.borrow();
        let me = e.current.expect("with_tag outside an actor");
        e.actors[me.index()].tag.as_ref().and_then(|t| t.downcast_ref::<T>()).map(|t| t as *const T)
    };
    // SAFETY: the tag is boxed and replaced or dropped only by its own
    // actor, which is running `f` now and does not call `set_tag` from it.
    f(ptr.map(|p| unsafe { &*p }))
}

/// Returns whether atomics follow the C11 memory model in the running
/// execution ([`Config::memory_model`](crate::Config::memory_model)):
/// a primitive then performs its accesses through [`atomic_load`],
/// [`atomic_store`], [`atomic_rmw`] and [`atomic_fence`] after their step.
pub fn weak_memory() -> bool {
    with_exec(|cell| cell.borrow().config.memory_model.is_weak()).unwrap_or(false)
}

/// The operation a load of atomic `object` with `order` announces:
/// [`Op::WeakLoad`] when the C11 model lets it read any readable store
/// (weak memory, not `SeqCst`, and the running thread not under the
/// progress rule), else [`Op::Load`]. Outside an execution, `Op::Load`.
pub fn load_op(object: ObjectId, order: Ordering) -> Op {
    with_exec(|cell| if weak_load(&cell.borrow(), object, order) { Op::WeakLoad } else { Op::Load }).unwrap_or(Op::Load)
}

/// Whether a load of `object` with `order` by the running actor now is a
/// weak one ([`load_op`]).
fn weak_load(e: &crate::execution::Execution, object: ObjectId, order: Ordering) -> bool {
    e.config.memory_model.is_weak()
        && order != Ordering::SeqCst
        && e.current.is_some_and(|me| !e.memory.progress_rule(object.index(), me.index()))
}

/// Makes atomic `object` (whose real value is `current`) a live location
/// of the memory model and returns the running actor, with the clocks
/// live; `None` outside an actor.
#[inline]
fn memory_begin(e: &mut crate::execution::Execution, object: ObjectId, current: u64) -> Option<ActorId> {
    let me = e.current?;
    if !e.memory.is_current(object.index(), current) {
        memory_touch(e, object, current);
    }
    // The access's own step, taken just before (a choice it makes comes
    // after).
    e.memory.step = e.steps.saturating_sub(1).min(u64::from(u32::MAX - 1)) as u32;
    Some(me)
}

/// Makes `object` a live location, or restarts its history (see
/// [`memory_begin`]).
#[cold]
fn memory_touch(e: &mut crate::execution::Execution, object: ObjectId, current: u64) {
    if e.memory.restarts(object.index(), current) && !e.race.settled() {
        // A restart drops stores deferred events may name.
        live_clocks(e);
    }
    e.memory.touch(object.index(), current);
    e.objects[object.index()].memory = true;
}

/// Brings the race detector's clocks live, running the memory model's
/// deferred events in their places: an access whose choices or effects
/// depend on clocks needs them (the memory model says when: its
/// `readable`, `places` and `cas_readable` fail without them, and
/// `prune_due` asks for them). Until then an execution whose atomics
/// make no choice (a SeqCst-only program) keeps them a log, as the race
/// detector does until a cell is touched.
fn live_clocks(e: &mut crate::execution::Execution) {
    let memory = &mut e.memory;
    e.race.ensure_live(&e.objects, &mut |r, m| memory.apply(m, r));
}

/// Prunes `o`'s history after a store when it is due (with the clocks
/// live then).
fn after_store(e: &mut crate::execution::Execution, o: usize) {
    if e.memory.prune_due(o, &e.race) {
        live_clocks(e);
        e.memory.prune(o, &e.race);
    }
}

/// Names an actor as the trace does (for [`note`]).
pub type Namer<'a> = &'a dyn Fn(ActorId) -> String;

/// While a report's trace is recorded, attaches a note to the step the
/// running actor took last (not counting data choices since), for the
/// reader of the trace: `text` gets a
/// function naming an actor as the trace does and returns a short line
/// (what the step did that the trace cannot show: which waiter a
/// notification woke, how many messages a close dropped). Called only
/// while tracing, so a search pays nothing; one note per step, the last
/// wins.
///
/// ```
/// use samaritan_sim::rt;
///
/// // Inside a primitive, after its step:
/// rt::note(&|_name| "2 messages dropped".to_string());
/// ```
pub fn note(text: &dyn Fn(Namer<'_>) -> String) {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        if !e.config.tracing {
            return;
        }
        // The actor's own latest step, not a data choice it made since.
        let Some(me) = e.current else { return };
        let Some(step) = e.trace.iter().rposition(|s| s.actor == me && s.op != Op::Choose) else { return };
        let mut line = text(&|actor| e.actor_name(actor)).replace(['\n', '\r'], " ");
        // So that it reads back as a note, not as another mark.
        if line == "yield" || line.starts_with("from ") {
            line.insert_str(0, "note: ");
        }
        match e.notes.last_mut() {
            Some((last, kept)) if *last == step => *kept = line,
            _ => e.notes.push((step, line)),
        }
    });
}

/// Says how the trace shows the values atomic `object` holds (the memory
/// model's 64 bits): `show` returns the text, or `None` for a value that
/// would not read the same from run to run (an address). Without it, a
/// read's trace line names the store it read but not the value.
pub fn show_values(object: ObjectId, show: fn(u64) -> Option<String>) {
    with_exec(|cell| {
        if let Some(info) = cell.borrow_mut().objects.get_mut(object.index()) {
            info.show = Some(show);
        }
    });
}

/// While tracing, notes which store the read of `object` whose step was
/// the last one traced read: store `index` of its history.
fn note_read(e: &mut crate::execution::Execution, object: ObjectId, step: Option<usize>, index: usize) {
    if let Some(step) = step {
        let origin = e.memory.origin(object.index(), index);
        e.reads.push(crate::trace::TraceRead { step, object, origin });
    }
}

/// A load of `object` reads store `index`: noted for the trace
/// ([`note_read`]) and, for a weak load, shown to the strategy
/// (`Execution::show_read`).
fn load_from(e: &mut crate::execution::Execution, object: ObjectId, step: Option<usize>, index: usize, weak: bool) {
    note_read(e, object, step, index);
    if weak {
        e.show_read(e.memory.step_of(object.index(), index));
    }
}

/// The index of the step just traced (the access's own, since the memory
/// model runs right after it), when tracing.
fn traced_step(e: &crate::execution::Execution) -> Option<usize> {
    if e.config.tracing {
        e.trace.len().checked_sub(1)
    } else {
        None
    }
}

/// Reads atomic `object` with `order` after its [`Op::Load`] step: which
/// store it reads is an explored choice among those the C11 model allows
/// (0 = the newest). `current` is the primitive's real value; returns the
/// value read.
pub fn atomic_load(object: ObjectId, current: u64, order: Ordering, location: &'static Location<'static>) -> u64 {
    let sc = order == Ordering::SeqCst;
    let Some((me, count, step, weak, value)) = with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let e = &mut *e;
        let step = traced_step(e);
        // As `load_op` decided it for the step: nothing moved since.
        let weak = e.config.observed && weak_load(e, object, order);
        if let Some(me) = e.current {
            if let Some(value) = e.memory.reread(object.index(), me, current) {
                // The fast path's claims, checked against the full rule
                // (when the clocks are live to say it): one readable
                // store, whose message the reader holds.
                if cfg!(debug_assertions) && e.race.settled() {
                    assert_eq!(e.memory.readable(object.index(), me, &e.race, sc), Some(1));
                    assert!(e.memory.holds_newest_message(object.index(), me, &e.race));
                }
                let newest = e.memory.newest(object.index());
                load_from(e, object, step, newest, weak);
                return Some((me, 1, step, weak, Some(value)));
            }
        }
        let me = memory_begin(e, object, current)?;
        let count = match e.memory.readable(object.index(), me, &e.race, sc) {
            Some(count) => count,
            None => {
                live_clocks(e);
                e.memory.readable(object.index(), me, &e.race, sc).expect("live clocks decide")
            }
        };
        // No choice: read the newest store at once.
        let value = (count == 1).then(|| {
            let newest = e.memory.newest(object.index());
            load_from(e, object, step, newest, weak);
            e.memory.read(object.index(), me, newest, order, false, &mut e.race)
        });
        Some((me, count, step, weak, value))
    })
    .flatten() else {
        return current;
    };
    if let Some(value) = value {
        return value;
    }
    let k = choose_store(object, count, location);
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let e = &mut *e;
        let index = e.memory.newest(object.index()) - k;
        load_from(e, object, step, index, weak);
        e.memory.read(object.index(), me, index, order, false, &mut e.race)
    })
    .unwrap_or(current)
}

/// Writes `value` to atomic `object` with `order` after its
/// [`Op::Store`] step: where the store goes in the modification order is
/// an explored choice (0 = last). `current` is the primitive's real value;
/// returns the value the real atomic must hold now (the newest store's).
pub fn atomic_store(
    object: ObjectId,
    current: u64,
    value: u64,
    order: Ordering,
    location: &'static Location<'static>,
) -> u64 {
    let sc = order == Ordering::SeqCst;
    // One borrow when the store has one place (every SeqCst store after a
    // SeqCst one), else a choice between two.
    let Some(placed) = with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let e = &mut *e;
        let me = memory_begin(e, object, current)?;
        let o = object.index();
        if e.memory.one_place(o, sc) {
            let end = e.memory.newest(o) + 1;
            let now = e.memory.write(o, me, end, value, order, false, location, &mut e.race);
            after_store(e, o);
            return Some(Err(now));
        }
        // Lent for the access, so that it allocates nothing.
        let mut places = std::mem::take(&mut e.memory.scratch);
        if !e.memory.places(o, me, &e.race, sc, &mut places) {
            live_clocks(e);
            assert!(e.memory.places(o, me, &e.race, sc, &mut places), "live clocks decide");
        }
        Some(Ok((me, places)))
    })
    .flatten() else {
        return value;
    };
    let (me, places) = match placed {
        Ok(choice) => choice,
        Err(now) => return now,
    };
    let k = choose_on(object, places.len(), location);
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let e = &mut *e;
        let now = e.memory.write(object.index(), me, places[k], value, order, false, location, &mut e.race);
        e.memory.scratch = places;
        after_store(e, object.index());
        now
    })
    .unwrap_or(value)
}

/// A read-modify-write of atomic `object` after its step. `f` maps the
/// value read to the value to write, or `None` for a failure (a
/// compare-exchange whose comparison fails): a success reads the newest
/// store with `success` and writes right after it; a failure is a load
/// with `failure`. When `stale` is given (and the model is not
/// [`MemoryModel::WeakCasNewest`](crate::MemoryModel::WeakCasNewest)), an older readable store whose
/// value `stale` says fails may be read too (a failing compare-exchange
/// is a load); which store is read is an explored choice (0 = the
/// newest). Returns `f`'s verdict on the value read (`Ok(read)` when it
/// wrote) and the value the real atomic must hold now.
#[allow(clippy::too_many_arguments)]
pub fn atomic_rmw(
    object: ObjectId,
    current: u64,
    success: Ordering,
    failure: Ordering,
    location: &'static Location<'static>,
    stale: Option<&dyn Fn(u64) -> bool>,
    f: &mut dyn FnMut(u64) -> Option<u64>,
) -> (Result<u64, u64>, u64) {
    // The store read: the newest unless a failing compare-exchange may
    // read an older one, which is then an explored choice among them.
    enum Reads {
        Known { index: usize, newest: usize, value: u64 },
        Choice(Vec<usize>),
    }
    let Some((me, step, reads)) = with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let e = &mut *e;
        let me = memory_begin(e, object, current)?;
        let step = traced_step(e);
        let o = object.index();
        let newest = e.memory.newest(o);
        let known = Reads::Known { index: newest, newest, value: e.memory.value(o, newest) };
        // Loom's approximation, when asked for: a failing compare-exchange
        // reads the newest store too.
        let Some(fails) = stale.filter(|_| e.config.memory_model != crate::config::MemoryModel::WeakCasNewest) else {
            return Some((me, step, known));
        };
        // Lent for the access, so that it allocates nothing.
        let mut candidates = std::mem::take(&mut e.memory.scratch);
        let sc = failure == Ordering::SeqCst;
        if !e.memory.cas_readable(o, me, &e.race, sc, fails, &mut candidates) {
            live_clocks(e);
            assert!(e.memory.cas_readable(o, me, &e.race, sc, fails, &mut candidates), "live clocks decide");
        }
        if candidates.len() == 1 {
            e.memory.scratch = candidates;
            return Some((me, step, known));
        }
        Some((me, step, Reads::Choice(candidates)))
    })
    .flatten() else {
        return match f(current) {
            Some(new) => (Ok(current), new),
            None => (Err(current), current),
        };
    };
    let (index, newest, read) = match reads {
        Reads::Known { index, newest, value } => (index, newest, value),
        Reads::Choice(candidates) => {
            let index = candidates[choose_on(object, candidates.len(), location)];
            let known = with_exec(|cell| {
                let mut e = cell.borrow_mut();
                e.memory.scratch = candidates;
                (e.memory.newest(object.index()), e.memory.value(object.index(), index))
            });
            let (newest, value) = known.unwrap_or((index, current));
            (index, newest, value)
        }
    };
    // A stale candidate fails by construction; the newest may go either way.
    let outcome = if index == newest { f(read) } else { None };
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let e = &mut *e;
        let o = object.index();
        note_read(e, object, step, index);
        match outcome {
            Some(new) => {
                let now = e.memory.rmw(o, me, new, success, location, &mut e.race);
                after_store(e, o);
                (Ok(read), now)
            }
            None => {
                e.memory.read(o, me, index, failure, false, &mut e.race);
                (Err(read), e.memory.value(o, e.memory.newest(o)))
            }
        }
    })
    .unwrap_or((Err(read), current))
}

/// The object SeqCst fences step on in the running execution (made on
/// first use): partial-order reduction orders two SeqCst fences, since
/// each joins what the earlier ones published. The engine keeps it, not a
/// `static` slot, so that explorations running at once on other threads
/// do not renumber it.
pub fn sc_fence_object() -> Option<ObjectId> {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        if let Some(object) = e.memory.fence_object {
            return object;
        }
        let object = ObjectId(e.objects.len() as u32);
        e.objects.push(crate::execution::ObjectInfo { memory: true, ..crate::execution::ObjectInfo::new("Fence") });
        e.memory.fence_object = Some(object);
        object
    })
}

/// The memory-model effect of a fence with `order`, after its
/// [`Op::Fence`] step (which names the SeqCst fences' shared object when
/// `order` is `SeqCst`, so that partial-order reduction orders them).
pub fn atomic_fence(order: Ordering) {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let e = &mut *e;
        if let Some(me) = e.current {
            // A fence reads and moves clocks.
            live_clocks(e);
            if e.race.tracking {
                e.race.epoch(me.index());
            }
            e.memory.fence(me, order, &mut e.race);
        }
    });
}

/// [`choose_at`], as a step on `object` (a load's choice of store shows
/// the atomic in the trace).
fn choose_on(object: ObjectId, alternatives: usize, location: &'static Location<'static>) -> usize {
    with_exec(|cell| cell.borrow_mut().choose_value(Some(object), alternatives, location, None, false))
        .flatten()
        .unwrap_or(0)
}

/// A load's choice among the `count` newest stores of `object` (0 = the
/// newest), shown to the strategy with the step that made each
/// ([`ChoicePoint::sources`](crate::ChoicePoint::sources)).
fn choose_store(object: ObjectId, count: usize, location: &'static Location<'static>) -> usize {
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let mut sources = std::mem::take(&mut e.memory.sources_scratch);
        e.memory.sources(object.index(), count, &mut sources);
        let k = e.choose_value(Some(object), count, location, Some(&sources), false);
        e.memory.sources_scratch = sources;
        k
    })
    .flatten()
    .unwrap_or(0)
}
