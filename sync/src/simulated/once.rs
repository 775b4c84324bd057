//! Simulated `Once`, and the one-time-initialization model that `OnceLock`
//! and `LazyLock` share.
//!
//! An initialization is two [`Op::CallOnce`] steps: *begin* (blocked while
//! another thread runs the initializer; finds the state) and, after the
//! initializer ran, *complete* (publishes the result). A begin that finds
//! the initialization complete only reads it: it is taken as an
//! [`Op::Load`], so that two threads reaching a completed `Once` (a
//! `LazyLock` or `lazy_static!` read again and again) commute for the
//! reductions, as two loads do. Other threads may run
//! in between, so a thread arriving meanwhile blocks until completion, and a
//! reader may see the effects of the initializer before the completion.
//! Reads of the state (`is_completed`, `OnceLock::get`) are [`Op::Load`]
//! steps.
//!
//! Each execution models the object afresh: a `static` `Once` runs its
//! closure once per execution, like the rest of the test. Only a `Once`
//! completed outside any execution (where it is std's) starts complete.

use std::fmt;
use std::panic::Location;
use std::sync::atomic::{AtomicU8, Ordering};

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::{ObjectId, Op};

/// Modelled states of a one-time initialization.
pub(crate) const INCOMPLETE: u8 = 0;
pub(crate) const RUNNING: u8 = 1;
pub(crate) const COMPLETE: u8 = 2;
pub(crate) const POISONED: u8 = 3;

/// The modelled state of a one-time initialization in the running execution.
///
/// Invariant: `state` is [`RUNNING`] exactly while one thread is between a
/// begin and a complete step (or unwinding from its initializer), and that
/// thread is recorded as the object's holder.
#[derive(Debug)]
pub(crate) struct OnceModel {
    slot: ObjectSlot,
    state: AtomicU8,
}

impl OnceModel {
    pub(crate) const fn new() -> OnceModel {
        OnceModel { slot: ObjectSlot::new(), state: AtomicU8::new(INCOMPLETE) }
    }

    /// Returns the engine object; on first use in an execution the state
    /// starts complete if `done_outside`, else incomplete, and the id goes
    /// to `fresh`.
    pub(crate) fn object(
        &self,
        kind: &'static str,
        done_outside: impl FnOnce() -> bool,
        fresh: impl FnOnce(ObjectId),
    ) -> ObjectId {
        let (id, new) = self.slot.id(kind);
        if new {
            let state = if done_outside() { COMPLETE } else { INCOMPLETE };
            self.state.store(state, Ordering::Relaxed);
            fresh(id);
        }
        id
    }

    pub(crate) fn state(&self) -> u8 {
        self.state.load(Ordering::Relaxed)
    }

    pub(crate) fn set_state(&self, state: u8) {
        self.state.store(state, Ordering::Relaxed);
    }

    /// Announces a read of the state and returns whether it is complete.
    pub(crate) fn load_complete(&self, object: ObjectId, location: &'static Location<'static>) -> bool {
        rt::step(Op::Load, Some(object), location);
        self.state() == COMPLETE
    }

    /// The begin step: waits while another thread initializes, then returns
    /// the state found. Complete, it is a read ([`Op::Load`]): announced as
    /// one when already complete, else taken as one if another thread
    /// completed it meanwhile.
    pub(crate) fn begin(&self, object: ObjectId, location: &'static Location<'static>) -> u8 {
        if self.state() == COMPLETE {
            rt::step(Op::Load, Some(object), location);
        } else {
            let taken = || if self.state() == COMPLETE { Op::Load } else { Op::CallOnce };
            rt::step_when_as(Op::CallOnce, Some(object), location, &|| self.state() != RUNNING, &taken);
        }
        self.state()
    }

    /// Marks the initialization as running by this thread. Dropping the
    /// returned guard (an unwinding initializer) leaves `on_unwind`.
    pub(crate) fn start(&self, object: ObjectId, on_unwind: u8) -> Running<'_> {
        self.set_state(RUNNING);
        rt::acquired(object);
        Running { model: self, object, on_unwind }
    }
}

/// A running initialization; see [`OnceModel::start`].
#[derive(Debug)]
pub(crate) struct Running<'a> {
    model: &'a OnceModel,
    object: ObjectId,
    on_unwind: u8,
}

impl Running<'_> {
    /// The complete step: publishes the initialization.
    pub(crate) fn complete(self, location: &'static Location<'static>) {
        rt::step(Op::CallOnce, Some(self.object), location);
        self.model.set_state(COMPLETE);
        rt::released(self.object);
        std::mem::forget(self);
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        // Unwinding: no step here, so the panic ends the execution before
        // any other thread runs.
        self.model.set_state(self.on_unwind);
        if rt::active() {
            rt::released(self.object);
        }
    }
}

/// Same API as [`std::sync::Once`]; scheduled under `sim`.
pub struct Once {
    model: OnceModel,
    inner: std::sync::Once,
}

/// Same API as [`std::sync::OnceState`], which cannot be built outside std.
#[derive(Debug)]
pub struct OnceState {
    poisoned: bool,
}

impl OnceState {
    /// Returns `true` if the associated [`Once`] was poisoned prior to the
    /// invocation of the closure passed to [`Once::call_once_force()`].
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }
}

impl Once {
    /// Creates a new `Once` value.
    // std's `Once` has no `Default`; a drop-in must not add one.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Once {
        Once { model: OnceModel::new(), inner: std::sync::Once::new() }
    }

    fn object(&self) -> ObjectId {
        self.model.object("Once", || self.inner.is_completed(), |_| {})
    }

    /// Performs an initialization routine once and only once.
    ///
    /// # Panics
    ///
    /// Panics if the `Once` was poisoned by a panicking initializer.
    #[track_caller]
    pub fn call_once<F: FnOnce()>(&self, f: F) {
        if !rt::active() {
            return self.inner.call_once(f);
        }
        self.run(false, Location::caller(), |_| f());
    }

    /// Performs the same function as [`call_once()`](Once::call_once) except
    /// it ignores poisoning.
    #[track_caller]
    pub fn call_once_force<F: FnOnce(&OnceState)>(&self, f: F) {
        if !rt::active() {
            return self.inner.call_once_force(|s| f(&OnceState { poisoned: s.is_poisoned() }));
        }
        self.run(true, Location::caller(), f);
    }

    fn run(&self, force: bool, location: &'static Location<'static>, f: impl FnOnce(&OnceState)) {
        let object = self.object();
        let found = self.model.begin(object, location);
        if found == COMPLETE {
            return;
        }
        if found == POISONED && !force {
            panic!("Once instance has previously been poisoned");
        }
        let running = self.model.start(object, POISONED);
        f(&OnceState { poisoned: found == POISONED });
        running.complete(location);
    }

    /// Returns `true` if some [`call_once()`](Once::call_once) call has
    /// completed successfully.
    #[track_caller]
    pub fn is_completed(&self) -> bool {
        if !rt::active() {
            return self.inner.is_completed();
        }
        self.model.load_complete(self.object(), Location::caller())
    }
}

impl fmt::Debug for Once {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Once").finish_non_exhaustive()
    }
}
