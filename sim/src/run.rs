//! Running one execution: the scheduler loop, actor start-up and teardown.
//!
//! The loop runs on the exploring OS thread's own stack. Each actor runs on
//! a coroutine; an actor that picks someone else at a scheduling point
//! suspends back to the loop, which resumes the chosen actor. When the chosen
//! actor is the one already running, no switch happens at all.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult};

use crate::actor::{Actor, Co, Resume, Status, Suspend};
use crate::alloc;
use crate::execution::{Execution, Next};
use crate::op::ActorId;
use crate::outcome::Outcome;
use crate::overflow;
use crate::panics;
use crate::wall_clock;

pub(crate) type ExecCell = RefCell<Execution>;

thread_local! {
    /// The execution running on this OS thread, if any.
    static EXEC: Cell<*const ExecCell> = const { Cell::new(std::ptr::null()) };
    /// The generation of that execution (0 when none), readable without
    /// borrowing it: the fast path of `ObjectSlot::id`.
    static GENERATION: Cell<u64> = const { Cell::new(0) };
}

/// Returns the generation of the execution running on this thread.
#[inline]
pub(crate) fn generation() -> u64 {
    GENERATION.with(Cell::get)
}

/// Calls `f` with the execution running on this thread, if there is one and
/// an actor is running (as opposed to the scheduler loop itself).
#[inline]
pub(crate) fn with_exec<R>(f: impl FnOnce(&ExecCell) -> R) -> Option<R> {
    let ptr = EXEC.with(Cell::get);
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `EXEC` is set only for the duration of `run_execution`, which
    // owns the cell and clears the pointer before the cell is dropped.
    Some(f(unsafe { &*ptr }))
}

/// Runs the work the running actor put off (`rt::defer_to_next_step`), in
/// the order it was put off, including work that work puts off.
pub(crate) fn run_deferred() {
    loop {
        let work = with_exec(|cell| {
            let mut e = cell.borrow_mut();
            let me = e.current?;
            let deferred = &mut e.actors[me.index()].deferred;
            (!deferred.is_empty()).then(|| std::mem::take(deferred))
        })
        .flatten();
        let Some(work) = work else { return };
        for w in work {
            w();
        }
    }
}

/// Returns whether the caller runs inside an execution.
#[inline]
pub(crate) fn active() -> bool {
    !EXEC.with(Cell::get).is_null()
}

/// Suspends the running actor `me` and returns what it is resumed with.
pub(crate) fn suspend(cell: &ExecCell, me: ActorId, why: Suspend) -> Resume {
    let yielder = cell.borrow().actors[me.index()].yielder;
    // SAFETY: `yielder` was stored by the actor's own coroutine body and
    // stays valid while that coroutine exists; `me` is the running actor, so
    // we are on its stack.
    unsafe { (*yielder).suspend(why) }
}

/// Destroys the running actor's thread-local values, the most recently
/// created first, one at a time with the engine unborrowed, until none is
/// left (see `rt::destroy_locals`).
pub(crate) fn destroy_locals() {
    let Some(cell) = with_exec(|c| c as *const ExecCell) else { return };
    // SAFETY: `with_exec` handed out a pointer to the live execution, which
    // outlives every actor call into the engine.
    let cell = unsafe { &*cell };
    loop {
        let value = {
            let mut e = cell.borrow_mut();
            let Some(me) = e.current else { return };
            let actor = &mut e.actors[me.index()];
            let Some((key, value)) = actor.locals.pop() else { return };
            actor.destroyed.push(key);
            value
        };
        drop(value);
    }
}

/// Drops the values the running execution keeps (`rt::execution_value`),
/// the last made first, one at a time with the engine unborrowed (a drop
/// may take steps, or make another value, which is dropped in turn).
pub(crate) fn drop_values() {
    loop {
        let Some(value) = with_exec(|cell| cell.borrow_mut().values.pop()).flatten() else { return };
        drop(value);
    }
}

/// Takes a stack of at least `size` bytes (the pool's by default) for an
/// actor about to start, or returns why it cannot be had.
pub(crate) fn take_stack(cell: &ExecCell, size: Option<usize>) -> std::io::Result<DefaultStack> {
    let pool = cell.borrow().pool;
    // SAFETY: the pool outlives the execution (`explore` owns it), and
    // only the running actor or the scheduler loop, one at a time, use it.
    unsafe { (*pool).take(size) }
}

/// Creates an actor for `body` on `stack` and runs it up to its first
/// visible operation. Called by the scheduler loop for the main actor and
/// by a running actor for the ones it spawns.
///
/// # Safety
///
/// Everything `body` borrows must outlive the actor (scoped threads join
/// their actors before the borrowed data goes away).
pub(crate) unsafe fn start_actor(
    cell: &ExecCell,
    name: Option<String>,
    stack: DefaultStack,
    body: Box<dyn FnOnce() + '_>,
) -> ActorId {
    let id = ActorId::from_index(cell.borrow().actors.len());
    let bounds = {
        use corosensei::stack::Stack as _;
        let (limit, base) = (stack.limit().get(), stack.base().get());
        // The mapping holds one guard page below the usable stack.
        (limit, base, base - limit - overflow::page_size())
    };
    let entry = move |yielder: &corosensei::Yielder<Resume, Suspend>, _: Resume| {
        with_exec(|cell| cell.borrow_mut().actors[id.index()].yielder = yielder);
        let result = panic::catch_unwind(AssertUnwindSafe(move || {
            body();
            // What it put off last happens before it ends.
            run_deferred();
            if id == ActorId::MAIN {
                // The execution's values go when the test's body returns,
                // dropped by the main thread (`rt::execution_value`).
                drop_values();
            }
        }));
        panics::caught();
        // Thread-local destructors run here, as in std at thread exit
        // (those of a runtime thread have run already, before it counted
        // as finished), then the tag goes; a panic in one must not escape
        // the coroutine.
        let dropped = panic::catch_unwind(AssertUnwindSafe(|| {
            destroy_locals();
            let tag = with_exec(|cell| cell.borrow_mut().actors[id.index()].tag.take());
            drop(tag);
        }));
        panics::caught();
        for payload in [result.err(), dropped.err()].into_iter().flatten() {
            let (message, location) = panics::describe(&*payload);
            with_exec(|cell| {
                let mut e = cell.borrow_mut();
                let actor = e.actor_name(id);
                e.fail(panics::verdict(actor, message, location));
            });
            // Dropping a payload runs arbitrary code; keep it contained.
            let _ = panic::catch_unwind(AssertUnwindSafe(move || drop(payload)));
        }
    };
    // SAFETY: the caller guarantees that what `body` borrows outlives the
    // coroutine; the coroutine is always run to completion or abandoned
    // (never resumed again) before the execution ends.
    let co: Co = unsafe { Coroutine::with_stack_unchecked(stack, entry) };
    let parent = {
        let mut e = cell.borrow_mut();
        // The watchdog names a thread that blocks while starting.
        e.progress.actor.store(id.0, std::sync::atomic::Ordering::Relaxed);
        if let Some(name) = &name {
            e.progress.names.lock().unwrap_or_else(|p| p.into_inner()).push((id.0, name.clone()));
        }
        let added = e.add_actor(Actor::new(name, co, bounds));
        debug_assert_eq!(added, id);
        e.current.replace(id)
    };
    resume(cell, id, Resume::Run);
    let mut e = cell.borrow_mut();
    e.current = parent;
    if let Some(parent) = parent {
        e.progress.actor.store(parent.0, std::sync::atomic::Ordering::Relaxed);
    }
    drop(e);
    id
}

/// Resumes actor `id` and files it away again when it suspends or ends.
/// Returns why it suspended, or `None` if it finished.
fn resume(cell: &ExecCell, id: ActorId, how: Resume) -> Option<Suspend> {
    let co = coroutine(&mut cell.borrow_mut(), id);
    resume_at(cell, id, co, how)
}

/// Returns a pointer to actor `id`'s coroutine, and what the overflow
/// handler needs to know while it runs.
fn coroutine(e: &mut Execution, id: ActorId) -> (*mut Co, overflow::Running) {
    let actor = &mut e.actors[id.index()];
    let co: &mut Co = actor.co.as_mut().expect("a live actor has a coroutine");
    let running = overflow::Running::new(co, actor.stack, id.index(), actor.name.as_deref(), engine_free, on_overflow);
    (co, running)
}

/// Resumes the coroutine `co` of actor `id`; see [`resume`].
fn resume_at(
    cell: &ExecCell,
    id: ActorId,
    (co, running): (*mut Co, overflow::Running),
    how: Resume,
) -> Option<Suspend> {
    let outer = overflow::running(Some(running));
    // SAFETY: the coroutine is boxed, so the pointer stays valid while the
    // actor table grows during the run; the box is taken out of the table
    // only below, after `resume` returned, and an actor is never resumed
    // while it runs (one actor runs at a time), so this is the only access.
    let result = unsafe { (*co).resume(how) };
    overflow::running(outer);
    match result {
        CoroutineResult::Yield(Suspend::Stuck) => {
            // The actor cannot unwind further; abandon its stack.
            let mut e = cell.borrow_mut();
            std::mem::forget(e.actors[id.index()].co.take());
            e.leaked += 1;
            e.finish(id);
            Some(Suspend::Stuck)
        }
        CoroutineResult::Yield(why) => Some(why),
        CoroutineResult::Return(()) => {
            let mut e = cell.borrow_mut();
            e.set_pending(id, None);
            e.memory.on_finish(id);
            e.finish(id);
            let actor = &mut e.actors[id.index()];
            actor.ready = None;
            let co = actor.co.take().expect("a live actor has a coroutine");
            let overflowed = actor.overflowed;
            if e.current == Some(id) {
                e.current = None;
            }
            if overflowed {
                // What the reset stack held may still be borrowed.
                std::mem::forget(co);
                return None;
            }
            let stack: DefaultStack = co.into_stack();
            // SAFETY: as in `start_actor`.
            unsafe { (*e.pool).give(stack) };
            None
        }
    }
}

/// Runs one execution of `body` to its end and tears it down.
pub(crate) fn run_execution(cell: &ExecCell, body: &(dyn Fn() + Sync)) {
    let generation = cell.borrow().generation;
    /// Restores this thread's execution pointers, even if the engine itself
    /// panics: nothing may see a pointer to an execution being dropped.
    struct Restore(*const ExecCell, u64, bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            EXEC.with(|c| c.set(self.0));
            GENERATION.with(|g| g.set(self.1));
            wall_clock::end(self.2);
            alloc::end();
        }
    }
    // The engine cannot run the test without a stack for its main thread.
    let stack = take_stack(cell, None).unwrap_or_else(|err| {
        // SAFETY: as in `take_stack`.
        let size = unsafe { (*cell.borrow().pool).size() };
        panic!("cannot allocate the main thread's coroutine stack of {size} bytes: {err}")
    });
    let _restore = Restore(
        EXEC.with(|c| c.replace(cell)),
        GENERATION.with(|g| g.replace(generation)),
        // std's clocks follow the virtual clock from here on (`wall_clock`).
        wall_clock::begin(),
    );
    // What this thread frees from here on is held until `_restore` drops
    // (the `alloc` module: no address comes back within an execution).
    alloc::begin();
    panics::install_hook(panics::Engine { active, before_abort });
    // SAFETY: `body` outlives this function, and the main actor is run to
    // completion or torn down before it returns.
    unsafe { start_actor(cell, None, stack, Box::new(body)) };
    loop {
        let (id, co) = {
            let mut e = cell.borrow_mut();
            let id = match e.next.take() {
                Some(next) => next,
                None => match e.decide(None) {
                    Next::Run(id) => id,
                    Next::End => break,
                },
            };
            (id, coroutine(&mut e, id))
        };
        resume_at(cell, id, co, Resume::Run);
    }
    teardown(cell);
}

/// Whether nothing borrows the execution on this thread, so that an
/// actor that overflowed its stack can end normally (see `overflow`).
fn engine_free() -> bool {
    with_exec(|cell| cell.try_borrow_mut().is_ok()).unwrap_or(false)
}

/// Runs on the fresh stack of actor `index` after it overflowed its old
/// one; records the verdict, and the actor then ends.
fn on_overflow(index: usize) {
    panics::caught();
    with_exec(|cell| {
        let mut e = cell.borrow_mut();
        let id = ActorId::from_index(index);
        let actor = &mut e.actors[id.index()];
        actor.overflowed = true;
        // Its thread-locals are never destroyed, as its frames are not.
        std::mem::forget(std::mem::take(&mut actor.locals));
        std::mem::forget(actor.tag.take());
        let stack_size = actor.stack.2;
        let actor = e.actor_name(id);
        e.fail(Outcome::StackOverflow { actor, stack_size });
    });
}

/// What to say on standard error when a panic starts while the running
/// actor unwinds from its own panic (`first`), which makes std abort the
/// process once it leaves the destructor (as it would in production): both
/// panics, the execution's verdict if it has one, and the replay token of
/// what ran so far. `None` when the actor does not unwind. (samaritan
/// never unwinds a thread itself: see [`teardown`].)
fn before_abort(first: Option<(&str, &str)>, second: (&str, &str)) -> Option<String> {
    with_exec(|cell| {
        let e = cell.try_borrow().ok()?;
        let me = e.current?;
        let (message, location) = first?;
        let why = format!("from its panic at {location}: {message}");
        let mut note = format!(
            "samaritan: thread '{}' panicked at {}: {}\nsamaritan: while it was unwinding {why}.\n\
             samaritan: std aborts the process on a panic that leaves a destructor during unwinding; before it does:\n",
            e.actor_name(me),
            second.1,
            second.0
        );
        if let Some(outcome) = &e.outcome {
            note.push_str(&format!("samaritan: the execution's verdict: {outcome}\n"));
        }
        if e.config.tracing {
            note.push_str(&format!("samaritan: the trace so far:\n{}", e.readable_trace()));
        }
        // SAFETY: the strategy outlives the execution (`search` owns
        // both); only its name, part and seed are read.
        let (name, part, seed) = unsafe { ((*e.strategy).name(), (*e.strategy).part(), (*e.strategy).seed()) };
        let schedule = crate::schedule::Schedule {
            // As in `search`: a portfolio's token names the part that ran.
            strategy: part.map_or_else(|| name.to_string(), |part| format!("{name}/{part}")),
            seed,
            choices: e.schedule.clone(),
            fingerprint: if e.config.tracing { e.fingerprint() } else { 0 },
            fair: e.config.fair,
            memory_model: e.config.memory_model,
        };
        note.push_str(&format!("samaritan: replay token of the execution so far: {}\n", schedule.to_token()));
        Some(note)
    })
    .flatten()
}

/// Ends an execution that stopped early: every actor that has not
/// finished is abandoned where it stands, not unwound.
///
/// Unwinding the threads that were cut short (the other side of a
/// deadlock, threads still running when another panicked or the step
/// bound was reached) would run their destructors, but a destructor that
/// panics while its thread unwinds makes std abort the whole process, the
/// test binary with every later test in it. So their frames are left as
/// they are, as if `mem::forget`: their destructors do not run and what
/// they own is leaked (a few values per execution cut short). Locks they
/// hold are released (`rt::on_abandon`), so that a lock that outlives the
/// execution (a `static`, or one the test's closure captured) is free for
/// the next one; then their stacks go back to the pool. A value pinned on
/// such a stack that something outside the execution still points to (an
/// intrusive waiter list in a static or captured object) is the one case
/// this cannot make safe; samaritan's own primitives keep no such
/// pointers.
///
/// An actor abandoned half-way through unwinding from its own panic
/// leaves this OS thread's panic count raised; the explorer then moves to
/// a fresh thread (search module invariant).
fn teardown(cell: &ExecCell) {
    let releases = {
        let mut e = cell.borrow_mut();
        e.teardown = true;
        let cut: Vec<ActorId> = (0..e.actors.len())
            .map(ActorId::from_index)
            .filter(|id| e.actors[id.index()].status != Status::Finished)
            .collect();
        if cut.is_empty() {
            e.current = None;
            return;
        }
        // Each lock one of them holds, once per such holder.
        let mut releases = Vec::new();
        for object in &e.objects {
            if let Some(release) = object.abandon {
                releases.extend(object.holders.iter().filter(|h| cut.contains(h)).map(|_| release));
            }
        }
        releases
    };
    for (data, release) in releases {
        // SAFETY: the primitive's contract (`rt::on_abandon`): the object
        // is alive while held, and its holder here never drops its guard.
        unsafe { release(data) };
    }
    let mut e = cell.borrow_mut();
    // The other actors may borrow from an overflowed actor's discarded
    // frames (scoped threads): no stack of this execution may be reused.
    let reuse = !e.actors.iter().any(|a| a.overflowed);
    for i in 0..e.actors.len() {
        let actor = &mut e.actors[i];
        if actor.status == Status::Finished {
            continue;
        }
        // Never destroyed, as their frames are not.
        std::mem::forget(std::mem::take(&mut actor.locals));
        std::mem::forget(actor.tag.take());
        actor.status = Status::Finished;
        actor.ready = None;
        actor.taken = None;
        let Some(mut co) = actor.co.take() else { continue };
        if !reuse {
            std::mem::forget(co);
            continue;
        }
        // SAFETY: the actor is suspended and never resumed again; what
        // its frames hold is forgotten, not dropped (see above), and no
        // engine record points into its stack any more.
        unsafe { co.force_reset() };
        let stack: DefaultStack = co.into_stack();
        // SAFETY: as in `start_actor`.
        unsafe { (*e.pool).give(stack) };
    }
    e.current = None;
}
