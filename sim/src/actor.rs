//! Actors: simulated threads, each on its own stackful coroutine.
//!
//! Invariants:
//! - Only the engine switches between coroutines, and only at a scheduling
//!   point (`rt::step*`), at an actor's start or at its end.
//! - `ready` points at a closure on the actor's own stack; it is set only
//!   while the actor is suspended inside `rt::step_when` and cleared before
//!   that call returns, so the pointer is valid whenever it is set. So is
//!   `taken`, set only while the actor waits inside `rt::step_as`.
//! - Stacks come from a [`StackPool`] and go back to it when the coroutine
//!   is done, so executions do not map and unmap stacks.

use std::any::Any;
use std::io;

use corosensei::stack::{DefaultStack, Stack};
use corosensei::{Coroutine, Yielder};

use crate::op::{ObjectId, Op};
use crate::strategy::Pending;

/// What the engine passes to an actor's coroutine when it resumes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resume {
    /// Go on: you were chosen.
    Run,
}

/// What an actor's coroutine hands back when it suspends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Suspend {
    /// It reached its first visible operation after being spawned.
    Started,
    /// It made a scheduling decision; `Execution::next` says who runs.
    Switch,
    /// It reached an operation that can never proceed while it unwinds
    /// from its own panic (no other actor may run beside a panicking one):
    /// the engine gives up on unwinding it.
    Stuck,
}

pub(crate) type Co = Coroutine<Resume, Suspend, (), DefaultStack>;
pub(crate) type ActorYielder = Yielder<Resume, Suspend>;

/// Where an actor is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// Spawned; runs up to its first visible operation, then suspends.
    Starting,
    /// Announced `pending` and waits to be chosen.
    Waiting,
    /// Chosen; runs until its next visible operation.
    Running,
    /// Its closure returned or unwound.
    Finished,
}

/// The engine's record of one actor.
pub(crate) struct Actor {
    pub(crate) name: Option<String>,
    pub(crate) status: Status,
    pub(crate) pending: Option<Pending>,
    /// Whether `pending` can proceed; `None` means always.
    pub(crate) ready: Option<*const (dyn Fn() -> bool + 'static)>,
    /// Which operation `pending` is taken as, asked when it is taken;
    /// `None` means `pending.op`.
    pub(crate) taken: Option<*const (dyn Fn() -> Op + 'static)>,
    /// Boxed so that its address stays put while it runs, even if the
    /// actor table grows.
    pub(crate) co: Option<Box<Co>>,
    pub(crate) yielder: *const ActorYielder,
    /// Whether its last executed step was a yield.
    pub(crate) yielded: bool,
    /// The object of its last step on anything but a task's own poll or a
    /// wake: for a task pending in `poll`, what it was awaiting.
    pub(crate) awaiting: Option<ObjectId>,
    /// `thread_local!` values of this actor, keyed by the key's address,
    /// in the order they were created (destroyed last first; a `Vec`, not
    /// a map, so the order is the same in every execution).
    pub(crate) locals: Vec<(usize, Box<dyn Any>)>,
    /// Keys whose value has been destroyed, or is being: std refuses them
    /// from then on.
    pub(crate) destroyed: Vec<usize>,
    /// One value the runtime attaches to the actor (its thread handle).
    pub(crate) tag: Option<Box<dyn Any>>,
    /// Its stack: lowest mapped address (the guard page), one past the
    /// highest, and the usable size asked for.
    pub(crate) stack: (usize, usize, usize),
    /// Whether it overflowed its stack: the stack was reset under it and
    /// must not be reused (`overflow` module invariant).
    pub(crate) overflowed: bool,
    /// Work the actor put off until just before its next visible operation
    /// (`rt::defer_to_next_step`), in the order it was put off.
    pub(crate) deferred: Vec<Box<dyn FnOnce()>>,
}

impl std::fmt::Debug for Actor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Actor")
            .field("name", &self.name)
            .field("status", &self.status)
            .field("pending", &self.pending)
            .finish_non_exhaustive()
    }
}

impl Actor {
    pub(crate) fn new(name: Option<String>, co: Co, stack: (usize, usize, usize)) -> Actor {
        Actor {
            name,
            status: Status::Starting,
            pending: None,
            ready: None,
            taken: None,
            co: Some(Box::new(co)),
            yielder: std::ptr::null(),
            yielded: false,
            awaiting: None,
            locals: Vec::new(),
            destroyed: Vec::new(),
            tag: None,
            stack,
            overflowed: false,
            deferred: Vec::new(),
        }
    }

    /// Returns whether the actor's pending operation can proceed now.
    pub(crate) fn is_enabled(&self) -> bool {
        if self.status != Status::Waiting {
            return false;
        }
        match self.ready {
            None => true,
            // SAFETY: `ready` is set only while the actor is inside
            // `rt::step_when` (announcing or suspended there), whose frame
            // owns the closure (module invariant).
            Some(ready) => unsafe { (*ready)() },
        }
    }
}

/// Returns the display name of actor `index`.
pub(crate) fn display_name(index: usize, name: Option<&str>) -> String {
    match (index, name) {
        (_, Some(name)) => name.to_string(),
        (0, None) => "main".to_string(),
        (i, None) => format!("t{i}"),
    }
}

/// Maps a stack of `size` bytes, or returns why it cannot be had.
fn map_stack(size: usize) -> io::Result<DefaultStack> {
    // corosensei panics when the size and its guard page overflow; no
    // address space holds half the addresses anyway.
    if size > isize::MAX as usize {
        return Err(io::Error::new(io::ErrorKind::OutOfMemory, format!("no stack of {size} bytes fits in memory")));
    }
    DefaultStack::new(size)
}

/// Coroutine stacks kept across executions.
pub(crate) struct StackPool {
    size: usize,
    free: Vec<DefaultStack>,
}

impl std::fmt::Debug for StackPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StackPool").field("size", &self.size).field("free", &self.free.len()).finish()
    }
}

impl StackPool {
    pub(crate) fn new(size: usize) -> StackPool {
        StackPool { size, free: Vec::new() }
    }

    /// Returns the size of the stacks this pool keeps.
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// Takes a stack of at least `size` bytes (the pool's size by default),
    /// or returns the error of mapping one.
    pub(crate) fn take(&mut self, size: Option<usize>) -> io::Result<DefaultStack> {
        match size {
            Some(size) if size > self.size => map_stack(size),
            _ => match self.free.pop() {
                Some(stack) => Ok(stack),
                None => map_stack(self.size),
            },
        }
    }

    /// Returns a stack to the pool; oversized ones are freed.
    pub(crate) fn give(&mut self, stack: DefaultStack) {
        let size = stack.base().get() - stack.limit().get();
        if size <= self.size + 2 * 4096 && self.free.len() < 64 {
            self.free.push(stack);
        }
    }
}
