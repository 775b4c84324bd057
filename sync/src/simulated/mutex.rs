//! Simulated `Mutex`: a std mutex plus a modelled lock bit.
//!
//! Invariant: inside an execution, `locked` is true exactly while some
//! actor holds a guard obtained in that execution; the real mutex is then
//! held too, so `inner.try_lock()` always succeeds after the model granted
//! the lock.

use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::{ObjectId, Op};

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
            return wrap(self, self.inner.lock(), None, Location::caller());
        }
        let object = self.object();
        let location = Location::caller();
        rt::step_when(Op::Lock, Some(object), location, &|| !self.locked.load(Ordering::Relaxed));
        self.acquire(object, location)
    }

    /// Takes the modelled lock (which must be free) and the real one.
    pub(crate) fn acquire(
        &self,
        object: ObjectId,
        location: &'static Location<'static>,
    ) -> LockResult<MutexGuard<'_, T>> {
        self.locked.store(true, Ordering::Relaxed);
        rt::acquired(object);
        let real = match self.inner.try_lock() {
            Ok(guard) => Ok(guard),
            Err(TryLockError::Poisoned(p)) => Err(p),
            // Held outside the model: block for real; the watchdog reports it.
            Err(TryLockError::WouldBlock) => self.inner.lock(),
        };
        wrap(self, real, Some(object), location)
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
            return match self.inner.try_lock() {
                Ok(g) => Ok(MutexGuard { mutex: self, inner: Some(g), object: None, location: Location::caller() }),
                Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
                Err(TryLockError::Poisoned(p)) => Err(TryLockError::Poisoned(PoisonError::new(MutexGuard {
                    mutex: self,
                    inner: Some(p.into_inner()),
                    object: None,
                    location: Location::caller(),
                }))),
            };
        }
        let object = self.object();
        let location = Location::caller();
        rt::step(Op::TryLock, Some(object), location);
        if self.locked.load(Ordering::Relaxed) {
            return Err(TryLockError::WouldBlock);
        }
        match self.inner.try_lock() {
            // Held outside the model (by another exploration sharing this
            // mutex, say): a try_lock must not block for it.
            Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
            // Free for real too, so `acquire` will not block.
            Ok(real) => {
                drop(real);
                self.acquire(object, location).map_err(TryLockError::Poisoned)
            }
            Err(TryLockError::Poisoned(_)) => self.acquire(object, location).map_err(TryLockError::Poisoned),
        }
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

fn wrap<'a, T: ?Sized>(
    mutex: &'a Mutex<T>,
    real: LockResult<std::sync::MutexGuard<'a, T>>,
    object: Option<ObjectId>,
    location: &'static Location<'static>,
) -> LockResult<MutexGuard<'a, T>> {
    match real {
        Ok(g) => Ok(MutexGuard { mutex, inner: Some(g), object, location }),
        Err(p) => Err(PoisonError::new(MutexGuard { mutex, inner: Some(p.into_inner()), object, location })),
    }
}

impl<T: ?Sized> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else { return };
        match self.object {
            Some(object) if rt::active() => super::guard::release(
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
