//! Simulated `RwLock`: a real reader-writer lock (parking_lot's, with
//! std's poisoning added) plus a modelled state word.
//!
//! Invariants:
//! - Inside an execution, `state` counts the read guards obtained in that
//!   execution, or is [`WRITER`] while a write guard is live; the real
//!   lock is then held the same way, so `try_read`/`try_write` on it
//!   always succeed after the model granted the lock.
//! - A guard held by a thread abandoned when its execution ended early is
//!   never dropped: the engine releases its real lock instead
//!   (`rt::on_abandon`, [`RwLock::abandoned`]).
//!
//! Policy: as std's on Linux (futex), a waiting writer holds back new
//! readers, so a read taken while another thread holds the lock for
//! reading can block behind a writer that waits for that thread, and a
//! recursive read deadlocks (parity#8977). A writer counts in `writers`
//! from its announcement; a reader that reaches the lock while readers
//! hold it and a writer is announced does not know whether the writer
//! started waiting before it did: admitted (the writer was not there yet)
//! or queued behind the writer is an explored choice, made only then. A
//! queued reader waits until no writer is announced and none holds the
//! lock; `try_read` fails instead.

use std::panic::Location;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LockResult, TryLockError, TryLockResult};

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::{ObjectId, Op};

use super::guard::{self, Poison};
use super::pristine::{self, Action, Pristine, Raw, Snapshot};

/// The `state` value while a writer holds the lock.
const WRITER: usize = usize::MAX;

/// Same API as [`std::sync::RwLock`]; scheduled under `sim`.
pub struct RwLock<T: ?Sized> {
    slot: ObjectSlot,
    /// Read guards held in the running execution, or [`WRITER`].
    state: AtomicUsize,
    /// Writers announced in `write` and not yet holding the lock.
    writers: AtomicUsize,
    poison: Poison,
    /// The data as the program began with it, for a `static`.
    pristine: Pristine,
    inner: parking_lot::RwLock<T>,
}

/// Same API as [`std::sync::RwLockReadGuard`].
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockReadGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
    /// Always `Some` until the guard is dropped.
    inner: Option<parking_lot::RwLockReadGuard<'a, T>>,
    /// The engine object when the guard was taken inside an execution.
    object: Option<ObjectId>,
    /// Where the guard was made: drop glue does not pass on its caller, so
    /// the unlock step of an implicit drop is reported at the lock site.
    location: &'static Location<'static>,
}

/// Same API as [`std::sync::RwLockWriteGuard`].
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
    /// Always `Some` until the guard is dropped.
    inner: Option<parking_lot::RwLockWriteGuard<'a, T>>,
    /// Whether the thread was panicking when it took the lock (std's
    /// poisoning, which only a writer causes).
    panicking: bool,
    /// The engine object when the guard was taken inside an execution.
    object: Option<ObjectId>,
    /// Where the guard was made: drop glue does not pass on its caller, so
    /// the unlock step of an implicit drop is reported at the lock site.
    location: &'static Location<'static>,
}

impl<T> RwLock<T> {
    /// Creates a new instance of an `RwLock<T>` which is unlocked.
    pub const fn new(value: T) -> RwLock<T> {
        RwLock {
            slot: ObjectSlot::new(),
            state: AtomicUsize::new(0),
            writers: AtomicUsize::new(0),
            poison: Poison::new(),
            pristine: Pristine::new(),
            inner: parking_lot::RwLock::new(value),
        }
    }

    /// Consumes this `RwLock`, returning the underlying data.
    pub fn into_inner(self) -> LockResult<T> {
        let RwLock { poison, inner, .. } = self;
        poison.result(inner.into_inner())
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Returns this lock's engine object, resetting the model on first use
    /// in an execution.
    fn object(&self) -> ObjectId {
        let (id, fresh) = self.slot.id("RwLock");
        if fresh {
            // As for `Mutex`: every execution starts unlocked and
            // unpoisoned, and a static's data as the program began with it.
            self.state.store(0, Ordering::Relaxed);
            self.writers.store(0, Ordering::Relaxed);
            self.poison.clear();
            rt::on_abandon(id, pristine::erase(self), Self::abandoned);
            // SAFETY: `lend` is this type's, for this lock.
            unsafe { self.pristine.keep(pristine::erase(self), id, Self::lend) };
        }
        id
    }

    /// Releases the real lock of the lock `raw` points at for one holder
    /// abandoned with its guard when its execution ended early: the
    /// writer, or one of the readers.
    ///
    /// # Safety
    ///
    /// `raw` must point at a live `RwLock<T>` whose real lock is held by a
    /// guard that will never be dropped (`rt::on_abandon`'s contract).
    unsafe fn abandoned(raw: Raw) {
        // SAFETY: the caller's contract.
        let lock = unsafe { &*pristine::unerase::<RwLock<T>>(raw) };
        // SAFETY: the model counts the real lock's holders (module
        // invariant), so one of the kind it says holds it.
        unsafe {
            if lock.state.load(Ordering::Relaxed) == WRITER {
                lock.inner.force_unlock_write();
            } else {
                lock.inner.force_unlock_read();
            }
        }
    }

    /// Lends the data of the lock `raw` points at to `action` with the
    /// real lock held for writing (see `pristine::Lend`).
    unsafe fn lend(raw: Raw, action: Action) -> Option<Snapshot> {
        // SAFETY: `raw` was erased from an `RwLock<T>` that is a static
        // (`Pristine::keep`), so it is still there.
        let lock = unsafe { &*pristine::unerase::<RwLock<T>>(raw) };
        // SAFETY: the guard holds the data exclusively; a restore's bytes
        // are a snapshot of it before any use (`Pristine`).
        unsafe { pristine::lent(lock.inner.try_write(), &lock.poison, action) }
    }

    /// Locks this `RwLock` with shared read access, blocking the current
    /// thread until it can be acquired.
    #[track_caller]
    pub fn read(&self) -> LockResult<RwLockReadGuard<'_, T>> {
        if !rt::active() {
            self.pristine.used_outside();
            return self.poison.result(self.read_guard(self.inner.read(), None, Location::caller()));
        }
        let object = self.object();
        let location = Location::caller();
        rt::step_when(Op::ReadLock, Some(object), location, &|| self.state.load(Ordering::Relaxed) != WRITER);
        if self.queued_behind_a_writer() {
            // Queued behind the writer: wait until no writer is announced
            // or holds the lock.
            rt::step_when(Op::ReadLock, Some(object), location, &|| {
                self.state.load(Ordering::Relaxed) != WRITER && self.writers.load(Ordering::Relaxed) == 0
            });
        }
        guard::blocking(self.take_read(object, location, true))
    }

    /// Whether a reader that just took its step, with no writer holding
    /// the lock, arrived after a writer that waits for the readers started
    /// waiting: an explored choice when readers hold the lock and a writer
    /// is announced, `false` otherwise (a free lock the writer would have
    /// taken; the order of the two steps covers that).
    #[track_caller]
    fn queued_behind_a_writer(&self) -> bool {
        let state = self.state.load(Ordering::Relaxed);
        state != 0 && state != WRITER && self.writers.load(Ordering::Relaxed) != 0 && rt::choose(2) == 1
    }

    /// Attempts to acquire this `RwLock` with shared read access.
    #[track_caller]
    pub fn try_read(&self) -> TryLockResult<RwLockReadGuard<'_, T>> {
        if !rt::active() {
            self.pristine.used_outside();
            let real = self.inner.try_read();
            return self.poison.try_result(real.map(|g| self.read_guard(g, None, Location::caller())));
        }
        let object = self.object();
        let location = Location::caller();
        rt::step(Op::TryReadLock, Some(object), location);
        if self.state.load(Ordering::Relaxed) == WRITER || self.queued_behind_a_writer() {
            return Err(TryLockError::WouldBlock);
        }
        self.take_read(object, location, false)
    }

    /// Locks this `RwLock` with exclusive write access, blocking the current
    /// thread until it can be acquired.
    #[track_caller]
    pub fn write(&self) -> LockResult<RwLockWriteGuard<'_, T>> {
        if !rt::active() {
            self.pristine.used_outside();
            return self.poison.result(self.write_guard(self.inner.write(), None, Location::caller()));
        }
        let object = self.object();
        let location = Location::caller();
        // The writer's arrival is a step on the lock: readers decide from
        // it whether to queue behind the writer, and partial-order
        // reduction must see that they depend on a step of the writer on
        // this lock (not on whatever step the writer took before).
        rt::step(Op::Arrive, Some(object), location);
        let announced = Announced::new(&self.writers);
        rt::step_when(Op::Lock, Some(object), location, &|| self.state.load(Ordering::Relaxed) == 0);
        drop(announced);
        guard::blocking(self.take_write(object, location, true))
    }

    /// Attempts to lock this `RwLock` with exclusive write access.
    #[track_caller]
    pub fn try_write(&self) -> TryLockResult<RwLockWriteGuard<'_, T>> {
        if !rt::active() {
            self.pristine.used_outside();
            let real = self.inner.try_write();
            return self.poison.try_result(real.map(|g| self.write_guard(g, None, Location::caller())));
        }
        let object = self.object();
        let location = Location::caller();
        rt::step(Op::TryLock, Some(object), location);
        if self.state.load(Ordering::Relaxed) != 0 {
            return Err(TryLockError::WouldBlock);
        }
        self.take_write(object, location, false)
    }

    /// Takes the real read lock, then adds a reader to the model (no writer
    /// may hold it); with `block` false it gives up (leaving the model as it
    /// was) if the real lock is held outside the model.
    fn take_read(
        &self,
        object: ObjectId,
        location: &'static Location<'static>,
        block: bool,
    ) -> TryLockResult<RwLockReadGuard<'_, T>> {
        let real = guard::take_real(self.inner.try_read(), block.then_some(|| self.inner.read()));
        if real.is_some() {
            self.state.fetch_add(1, Ordering::Relaxed);
            rt::acquired(object);
        }
        self.poison.try_result(real.map(|g| self.read_guard(g, Some(object), location)))
    }

    /// Takes the real write lock, then marks the model write-locked (it must
    /// be free); gives up like [`RwLock::take_read`].
    fn take_write(
        &self,
        object: ObjectId,
        location: &'static Location<'static>,
        block: bool,
    ) -> TryLockResult<RwLockWriteGuard<'_, T>> {
        let real = guard::take_real(self.inner.try_write(), block.then_some(|| self.inner.write()));
        if real.is_some() {
            self.state.store(WRITER, Ordering::Relaxed);
            rt::acquired(object);
        }
        self.poison.try_result(real.map(|g| self.write_guard(g, Some(object), location)))
    }

    fn read_guard<'a>(
        &'a self,
        real: parking_lot::RwLockReadGuard<'a, T>,
        object: Option<ObjectId>,
        location: &'static Location<'static>,
    ) -> RwLockReadGuard<'a, T> {
        RwLockReadGuard { lock: self, inner: Some(real), object, location }
    }

    fn write_guard<'a>(
        &'a self,
        real: parking_lot::RwLockWriteGuard<'a, T>,
        object: Option<ObjectId>,
        location: &'static Location<'static>,
    ) -> RwLockWriteGuard<'a, T> {
        RwLockWriteGuard { lock: self, inner: Some(real), panicking: std::thread::panicking(), object, location }
    }

    /// Determines whether the lock is poisoned.
    pub fn is_poisoned(&self) -> bool {
        self.poison.get()
    }

    /// Clears the poisoned state from a lock.
    pub fn clear_poison(&self) {
        self.poison.clear();
    }

    /// Returns a mutable reference to the underlying data.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.poison.result(self.inner.get_mut())
    }
}

/// Counts a writer in [`RwLock::writers`] while it lives: from the
/// writer's announcement until its step (or its unwinding at teardown).
struct Announced<'a>(&'a AtomicUsize);

impl<'a> Announced<'a> {
    fn new(writers: &'a AtomicUsize) -> Announced<'a> {
        writers.fetch_add(1, Ordering::Relaxed);
        Announced(writers)
    }
}

impl Drop for Announced<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else { return };
        match self.object {
            Some(object) if rt::active() => guard::release(Op::ReadUnlock, object, self.location, inner, || {
                self.lock.state.fetch_sub(1, Ordering::Relaxed);
            }),
            _ => drop(inner),
        }
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else { return };
        let lock = self.lock;
        match self.object {
            Some(object) if rt::active() => guard::release(Op::Unlock, object, self.location, inner, || {
                lock.poison.done(self.panicking);
                lock.state.store(0, Ordering::Relaxed);
            }),
            _ => {
                lock.poison.done(self.panicking);
                drop(inner);
            }
        }
    }
}

super::guard::guard_impls!(RwLockReadGuard);
super::guard::guard_impls!(RwLockWriteGuard, mut);
super::guard::lock_impls!(RwLock, try_read);
