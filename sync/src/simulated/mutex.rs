//! Simulated `Mutex`: a std mutex plus a modelled lock bit.
//!
//! Invariant: inside an execution, `locked` is true exactly while some
//! actor holds a guard obtained in that execution; the real mutex is then
//! held too, so `inner.try_lock()` always succeeds after the model granted
//! the lock.

use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LockResult, TryLockError, TryLockResult};

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::{ObjectId, Op};

use super::guard;

/// Same API as [`std::sync::Mutex`]; scheduled under `sim`.
pub struct Mutex<T: ?Sized> {
    slot: ObjectSlot,
    locked: AtomicBool,
    inner: std::sync::Mutex<T>,
}

/// Same API as [`std::sync::MutexGuard`].
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct MutexGuard<'a, T: ?Sized> {
    pub(crate) mutex: &'a Mutex<T>,
    /// Always `Some` until the guard is dropped or taken apart by `Condvar`.
    pub(crate) inner: Option<std::sync::MutexGuard<'a, T>>,
    /// The engine object when the guard was taken inside an execution.
    pub(crate) object: Option<ObjectId>,
    /// Where the guard was made. Drop glue does not pass on its caller, so
    /// the unlock step of an implicit drop is reported at the lock site.
    pub(crate) location: &'static Location<'static>,
}

impl<T> Mutex<T> {
    /// Creates a new mutex in an unlocked state.
    pub const fn new(value: T) -> Mutex<T> {
        Mutex { slot: ObjectSlot::new(), locked: AtomicBool::new(false), inner: std::sync::Mutex::new(value) }
    }

    /// Consumes the mutex, returning the underlying data.
    pub fn into_inner(self) -> LockResult<T> {
        self.inner.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Returns this mutex's engine object, resetting the model on first use
    /// in an execution.
    pub(crate) fn object(&self) -> ObjectId {
        let (id, fresh) = self.slot.id("Mutex");
        if fresh {
            // A mutex that outlives executions (a `static`) starts each one
            // unlocked and unpoisoned: executions must not leak into each
            // other.
            self.locked.store(false, Ordering::Relaxed);
            self.inner.clear_poison();
        }
        id
    }

    /// Acquires the mutex, blocking the current thread until it is able to do so.
    #[track_caller]
    pub fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
        if !rt::active() {
            return guard::wrap(self.inner.lock(), |g| self.guard(g, None, Location::caller()));
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
        if !matches!(real, Err(TryLockError::WouldBlock)) {
            self.locked.store(true, Ordering::Relaxed);
            rt::acquired(object);
        }
        guard::try_wrap(real, |g| self.guard(g, Some(object), location))
    }

    /// Wraps a real guard of this mutex.
    pub(crate) fn guard<'a>(
        &'a self,
        real: std::sync::MutexGuard<'a, T>,
        object: Option<ObjectId>,
        location: &'static Location<'static>,
    ) -> MutexGuard<'a, T> {
        MutexGuard { mutex: self, inner: Some(real), object, location }
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
            return guard::try_wrap(self.inner.try_lock(), |g| self.guard(g, None, Location::caller()));
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
        self.inner.is_poisoned()
    }

    /// Clears the poisoned state from a mutex.
    pub fn clear_poison(&self) {
        self.inner.clear_poison();
    }

    /// Returns a mutable reference to the underlying data.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.inner.get_mut()
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else { return };
        match self.object {
            Some(object) if rt::active() => guard::release(
                Op::Unlock,
                object,
                self.location,
                inner,
                || self.mutex.inner.clear_poison(),
                || self.mutex.locked.store(false, Ordering::Relaxed),
            ),
            _ => drop(inner),
        }
    }
}

super::guard::guard_impls!(MutexGuard, mut);
super::guard::lock_impls!(Mutex);
