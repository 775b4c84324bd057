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

use crate::actor::{Actor, Co, Resume, Status, Suspend, TeardownSignal};
use crate::execution::{Execution, Next};
use crate::op::ActorId;
use crate::outcome::Outcome;
use crate::panics;

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

/// Creates an actor for `body` and runs it up to its first visible
/// operation. Called by the scheduler loop for the main actor and by a
/// running actor for the ones it spawns.
///
/// # Safety
///
/// Everything `body` borrows must outlive the actor (scoped threads join
/// their actors before the borrowed data goes away).
pub(crate) unsafe fn start_actor(
    cell: &ExecCell,
    name: Option<String>,
    stack_size: Option<usize>,
    body: Box<dyn FnOnce() + '_>,
) -> ActorId {
    let (id, stack) = {
        let mut e = cell.borrow_mut();
        let id = ActorId::from_index(e.actors.len());
        // SAFETY: the pool outlives the execution (`explore` owns it).
        let stack = unsafe { (*e.pool).take(stack_size) };
        (id, stack)
    };
    let entry = move |yielder: &corosensei::Yielder<Resume, Suspend>, _: Resume| {
        with_exec(|cell| cell.borrow_mut().actors[id.index()].yielder = yielder);
        let result = panic::catch_unwind(AssertUnwindSafe(body));
        let attached = with_exec(|cell| {
            let actor = &mut cell.borrow_mut().actors[id.index()];
            (std::mem::take(&mut actor.locals), actor.tag.take())
        });
        // Thread-local destructors run here, as in std at thread exit; a
        // panic in one must not escape the coroutine.
        let dropped = panic::catch_unwind(AssertUnwindSafe(move || drop(attached)));
        for payload in [result.err(), dropped.err()].into_iter().flatten() {
            if !payload.is::<TeardownSignal>() {
                let (message, location) = panics::describe(&*payload);
                with_exec(|cell| {
                    let mut e = cell.borrow_mut();
                    if !e.teardown {
                        let actor = e.actor_name(id);
                        e.fail(Outcome::Panic { actor, message, location });
                    }
                });
            }
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
        let added = e.add_actor(Actor::new(name, co));
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

/// Returns a pointer to actor `id`'s coroutine.
fn coroutine(e: &mut Execution, id: ActorId) -> *mut Co {
    let co: &mut Co = e.actors[id.index()].co.as_mut().expect("a live actor has a coroutine");
    co
}

/// Resumes the coroutine `co` of actor `id`; see [`resume`].
fn resume_at(cell: &ExecCell, id: ActorId, co: *mut Co, how: Resume) -> Option<Suspend> {
    // SAFETY: the coroutine is boxed, so the pointer stays valid while the
    // actor table grows during the run; the box is taken out of the table
    // only below, after `resume` returned, and an actor is never resumed
    // while it runs (one actor runs at a time), so this is the only access.
    let result = unsafe { (*co).resume(how) };
    match result {
        CoroutineResult::Yield(Suspend::Stuck) => {
            // The actor cannot unwind further; abandon its stack.
            let mut e = cell.borrow_mut();
            std::mem::forget(e.actors[id.index()].co.take());
            e.leaked += 1;
            e.actors[id.index()].status = Status::Finished;
            Some(Suspend::Stuck)
        }
        CoroutineResult::Yield(why) => Some(why),
        CoroutineResult::Return(()) => {
            let mut e = cell.borrow_mut();
            e.set_pending(id, None);
            let actor = &mut e.actors[id.index()];
            actor.status = Status::Finished;
            actor.ready = None;
            let co = actor.co.take().expect("a live actor has a coroutine");
            if e.current == Some(id) {
                e.current = None;
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
    struct Restore(*const ExecCell, u64);
    impl Drop for Restore {
        fn drop(&mut self) {
            EXEC.with(|c| c.set(self.0));
            GENERATION.with(|g| g.set(self.1));
        }
    }
    let _restore = Restore(EXEC.with(|c| c.replace(cell)), GENERATION.with(|g| g.replace(generation)));
    panics::install_hook(active);
    // SAFETY: `body` outlives this function, and the main actor is run to
    // completion or torn down before it returns.
    unsafe { start_actor(cell, None, None, Box::new(body)) };
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

/// Unwinds every actor that has not finished, so that destructors run.
fn teardown(cell: &ExecCell) {
    cell.borrow_mut().teardown = true;
    let count = cell.borrow().actors.len();
    for i in 0..count {
        let id = ActorId::from_index(i);
        loop {
            let live = {
                let e = cell.borrow();
                let actor = &e.actors[i];
                actor.status != Status::Finished && actor.co.is_some()
            };
            if !live {
                break;
            }
            cell.borrow_mut().current = Some(id);
            if resume(cell, id, Resume::Teardown).is_none() {
                break;
            }
        }
    }
    // Actors spawned by destructors during teardown are torn down too.
    if cell.borrow().actors.len() > count {
        teardown(cell);
    }
    cell.borrow_mut().current = None;
}
