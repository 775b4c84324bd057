//! Simulated `Mutex`: a real lock (parking_lot's, with std's poisoning
//! added) plus a modelled lock bit.
//!
//! Invariants:
//! - Inside an execution, `locked` is true exactly while some actor holds
//!   a guard obtained in that execution; the real lock is then held too,
//!   so `inner.try_lock()` always succeeds after the model granted the
//!   lock.
//! - A guard held by a thread abandoned when its execution ended early is
//!   never dropped: the engine releases its real lock instead
//!   (`rt::on_abandon`, [`Mutex::abandoned`]).

use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LockResult, TryLockError, TryLockResult};

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::{ObjectId, Op};

use super::guard::{self, Poison};
use super::pristine::{self, Action, Pristine, Raw, Snapshot};

/// Same API as [`std::sync::Mutex`]; scheduled under `sim`.
pub struct Mutex<T: ?Sized> {
    slot: ObjectSlot,
    locked: AtomicBool,
    pub(crate) poison: Poison,
    /// The data as the program began with it, for a `static`.
    pristine: Pristine,
    inner: parking_lot::Mutex<T>,
}

/// Same API as [`std::sync::MutexGuard`].
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct MutexGuard<'a, T: ?Sized> {
    pub(crate) mutex: &'a Mutex<T>,
    /// Always `Some` until the guard is dropped or taken apart by `Condvar`.
    pub(crate) inner: Option<parking_lot::MutexGuard<'a, T>>,
    /// Whether the thread was panicking when it took the lock (std's
    /// poisoning).
    pub(crate) panicking: bool,
    /// The engine object when the guard was taken inside an execution.
    pub(crate) object: Option<ObjectId>,
    /// Where the guard was made. Drop glue does not pass on its caller, so
    /// the unlock step of an implicit drop is reported at the lock site.
    pub(crate) location: &'static Location<'static>,
}

impl<T> Mutex<T> {
    /// Creates a new mutex in an unlocked state.
    pub const fn new(value: T) -> Mutex<T> {
        Mutex {
            slot: ObjectSlot::new(),
            locked: AtomicBool::new(false),
            poison: Poison::new(),
            pristine: Pristine::new(),
            inner: parking_lot::Mutex::new(value),
        }
    }

    /// Consumes the mutex, returning the underlying data.
    pub fn into_inner(self) -> LockResult<T> {
        let Mutex { poison, inner, .. } = self;
        poison.result(inner.into_inner())
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Returns this mutex's engine object, resetting the model on first use
    /// in an execution.
    pub(crate) fn object(&self) -> ObjectId {
        let (id, fresh) = self.slot.id("Mutex");
        if fresh {
            // A mutex that outlives executions (a `static`) starts each one
            // unlocked and unpoisoned, and a static's data as the program
            // began with it: executions must not leak into each other.
            self.locked.store(false, Ordering::Relaxed);
            self.poison.clear();
            rt::on_abandon(id, pristine::erase(self), Self::abandoned);
            // SAFETY: `lend` is this type's, for this mutex.
            unsafe { self.pristine.keep(pristine::erase(self), id, Self::lend) };
        }
        id
    }

    /// Releases the real lock of the mutex `raw` points at, whose holder
    /// was abandoned with its guard when its execution ended early.
    ///
    /// # Safety
    ///
    /// `raw` must point at a live `Mutex<T>` whose real lock is held by a
    /// guard that will never be dropped (`rt::on_abandon`'s contract).
    unsafe fn abandoned(raw: Raw) {
        // SAFETY: the caller's contract.
        unsafe { (*pristine::unerase::<Mutex<T>>(raw)).inner.force_unlock() };
    }

    /// Lends the data of the mutex `raw` points at to `action` with the
    /// real lock held (see `pristine::Lend`); put-back data is no longer
    /// poisoned.
    unsafe fn lend(raw: Raw, action: Action) -> Option<Snapshot> {
        // SAFETY: `raw` was erased from a `Mutex<T>` that is a static
        // (`Pristine::keep`), so it is still there.
        let mutex = unsafe { &*pristine::unerase::<Mutex<T>>(raw) };
        // SAFETY: the guard holds the data exclusively; a restore's bytes
        // are a snapshot of it before any use (`Pristine`).
        unsafe { pristine::lent(mutex.inner.try_lock(), &mutex.poison, action) }
    }

    /// Acquires the mutex, blocking the current thread until it is able to do so.
    #[track_caller]
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        if !rt::active() {
            self.pristine.used_outside();
            return self.poison.result(self.guard(self.inner.lock(), None, Location::caller()));
        }
        let object = self.object();
        let location = Location::caller();
        rt::step_when(Op::Lock, Some(object), location, &|| !self.locked.load(Ordering::Relaxed));
        self.acquire(object, location)
    }

    /// Takes the modelled lock (which must be free) and the real one,
    /// blocking for the real one if it is held outside the model.
    pub(crate) fn acquire(
        &self,
        object: ObjectId,
        location: &'static Location<'static>,
    ) -> LockResult<MutexGuard<'_, T>> {
        guard::blocking(self.take(object, location, true))
    }

    /// Takes the real lock, then the modelled one; with `block` false it
    /// gives up (leaving the model as it was) if the real lock is held
    /// outside the model.
    fn take(
        &self,
        object: ObjectId,
        location: &'static Location<'static>,
        block: bool,
    ) -> TryLockResult<MutexGuard<'_, T>> {
        let real = guard::take_real(self.inner.try_lock(), block.then_some(|| self.inner.lock()));
        if real.is_some() {
            self.locked.store(true, Ordering::Relaxed);
            rt::acquired(object);
        }
        self.poison.try_result(real.map(|g| self.guard(g, Some(object), location)))
    }

    /// Wraps a real guard of this mutex.
    pub(crate) fn guard<'a>(
        &'a self,
        real: parking_lot::MutexGuard<'a, T>,
        object: Option<ObjectId>,
        location: &'static Location<'static>,
    ) -> MutexGuard<'a, T> {
        MutexGuard { mutex: self, inner: Some(real), panicking: std::thread::panicking(), object, location }
    }

    /// Returns whether the model holds the lock (read by `Condvar`).
    pub(crate) fn is_locked(&self) -> bool {
        self.locked.load(Ordering::Relaxed)
    }

    /// Clears the modelled lock after the real guard was dropped (`Condvar`).
    pub(crate) fn release(&self, object: ObjectId) {
        self.locked.store(false, Ordering::Relaxed);
        rt::released(object);
    }

    /// Attempts to acquire this lock without blocking.
    #[track_caller]
    pub fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
        if !rt::active() {
            self.pristine.used_outside();
            let real = self.inner.try_lock();
            return self.poison.try_result(real.map(|g| self.guard(g, None, Location::caller())));
        }
        let object = self.object();
        let location = Location::caller();
        rt::step(Op::TryLock, Some(object), location);
        if self.locked.load(Ordering::Relaxed) {
            return Err(TryLockError::WouldBlock);
        }
        self.take(object, location, false)
    }

    /// Determines whether the mutex is poisoned.
    pub fn is_poisoned(&self) -> bool {
        self.poison.get()
    }

    /// Clears the poisoned state from a mutex.
    pub fn clear_poison(&self) {
        self.poison.clear();
    }

    /// Returns a mutable reference to the underlying data.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.poison.result(self.inner.get_mut())
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else { return };
        let mutex = self.mutex;
        match self.object {
            Some(object) if rt::active() => guard::release(Op::Unlock, object, self.location, inner, || {
                mutex.poison.done(self.panicking);
                mutex.locked.store(false, Ordering::Relaxed);
            }),
            _ => {
                mutex.poison.done(self.panicking);
                drop(inner);
            }
        }
    }
}

super::guard::guard_impls!(MutexGuard, mut);
super::guard::lock_impls!(Mutex, try_lock);
