//! Simulated `RwLock`: a std reader-writer lock plus a modelled state word.
//!
//! Invariant: inside an execution, `state` counts the read guards obtained
//! in that execution, or is [`WRITER`] while a write guard is live; the real
//! lock is then held the same way, so `try_read`/`try_write` on it always
//! succeed after the model granted the lock.
//!
//! Policy: a reader is admitted whenever no writer holds the lock, even
//! while a writer waits (std leaves the policy to the platform). So a
//! recursive read that would block behind a queued writer on some platforms
//! is not reported as a deadlock.

use std::panic::Location;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::{ObjectId, Op};

/// The `state` value while a writer holds the lock.
const WRITER: usize = usize::MAX;

/// Same API as [`std::sync::RwLock`]; scheduled under `sim`.
pub struct RwLock<T: ?Sized> {
    slot: ObjectSlot,
    /// Read guards held in the running execution, or [`WRITER`].
    state: AtomicUsize,
    inner: std::sync::RwLock<T>,
}

/// Same API as [`std::sync::RwLockReadGuard`].
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockReadGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
    /// Always `Some` until the guard is dropped.
    inner: Option<std::sync::RwLockReadGuard<'a, T>>,
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
    inner: Option<std::sync::RwLockWriteGuard<'a, T>>,
    /// The engine object when the guard was taken inside an execution.
    object: Option<ObjectId>,
    /// Where the guard was made: drop glue does not pass on its caller, so
    /// the unlock step of an implicit drop is reported at the lock site.
    location: &'static Location<'static>,
}

impl<T> RwLock<T> {
    /// Creates a new instance of an `RwLock<T>` which is unlocked.
    pub const fn new(value: T) -> RwLock<T> {
        RwLock { slot: ObjectSlot::new(), state: AtomicUsize::new(0), inner: std::sync::RwLock::new(value) }
    }

    /// Consumes this `RwLock`, returning the underlying data.
    pub fn into_inner(self) -> LockResult<T> {
        self.inner.into_inner()
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Returns this lock's engine object, resetting the model on first use
    /// in an execution.
    fn object(&self) -> ObjectId {
        let (id, fresh) = self.slot.id("RwLock");
        if fresh {
            // As for `Mutex`: every execution starts unlocked and unpoisoned.
            self.state.store(0, Ordering::Relaxed);
            self.inner.clear_poison();
        }
        id
    }

    /// Locks this `RwLock` with shared read access, blocking the current
    /// thread until it can be acquired.
    #[track_caller]
    pub fn read(&self) -> LockResult<RwLockReadGuard<'_, T>> {
        if !rt::active() {
            return wrap_read(self, self.inner.read(), None, Location::caller());
        }
        let object = self.object();
        let location = Location::caller();
        rt::step_when(Op::ReadLock, Some(object), location, &|| self.state.load(Ordering::Relaxed) != WRITER);
        self.acquire_read(object, location)
    }

    /// Attempts to acquire this `RwLock` with shared read access.
    #[track_caller]
    pub fn try_read(&self) -> TryLockResult<RwLockReadGuard<'_, T>> {
        if !rt::active() {
            return match self.inner.try_read() {
                Ok(g) => Ok(RwLockReadGuard { lock: self, inner: Some(g), object: None, location: Location::caller() }),
                Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
                Err(TryLockError::Poisoned(p)) => Err(TryLockError::Poisoned(PoisonError::new(RwLockReadGuard {
                    lock: self,
                    inner: Some(p.into_inner()),
                    object: None,
                    location: Location::caller(),
                }))),
            };
        }
        let object = self.object();
        let location = Location::caller();
        rt::step(Op::TryReadLock, Some(object), location);
        if self.state.load(Ordering::Relaxed) == WRITER {
            return Err(TryLockError::WouldBlock);
        }
        self.acquire_read(object, location).map_err(TryLockError::Poisoned)
    }

    /// Locks this `RwLock` with exclusive write access, blocking the current
    /// thread until it can be acquired.
    #[track_caller]
    pub fn write(&self) -> LockResult<RwLockWriteGuard<'_, T>> {
        if !rt::active() {
            return wrap_write(self, self.inner.write(), None, Location::caller());
        }
        let object = self.object();
        let location = Location::caller();
        rt::step_when(Op::Lock, Some(object), location, &|| self.state.load(Ordering::Relaxed) == 0);
        self.acquire_write(object, location)
    }

    /// Attempts to lock this `RwLock` with exclusive write access.
    #[track_caller]
    pub fn try_write(&self) -> TryLockResult<RwLockWriteGuard<'_, T>> {
        if !rt::active() {
            return match self.inner.try_write() {
                Ok(g) => {
                    Ok(RwLockWriteGuard { lock: self, inner: Some(g), object: None, location: Location::caller() })
                }
                Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
                Err(TryLockError::Poisoned(p)) => Err(TryLockError::Poisoned(PoisonError::new(RwLockWriteGuard {
                    lock: self,
                    inner: Some(p.into_inner()),
                    object: None,
                    location: Location::caller(),
                }))),
            };
        }
        let object = self.object();
        let location = Location::caller();
        rt::step(Op::TryLock, Some(object), location);
        if self.state.load(Ordering::Relaxed) != 0 {
            return Err(TryLockError::WouldBlock);
        }
        self.acquire_write(object, location).map_err(TryLockError::Poisoned)
    }

    /// Adds a reader to the model (no writer may hold it) and takes the real
    /// read lock.
    fn acquire_read(
        &self,
        object: ObjectId,
        location: &'static Location<'static>,
    ) -> LockResult<RwLockReadGuard<'_, T>> {
        self.state.fetch_add(1, Ordering::Relaxed);
        rt::acquired(object);
        let real = match self.inner.try_read() {
            Ok(guard) => Ok(guard),
            Err(TryLockError::Poisoned(p)) => Err(p),
            // Held outside the model: block for real; the watchdog reports it.
            Err(TryLockError::WouldBlock) => self.inner.read(),
        };
        wrap_read(self, real, Some(object), location)
    }

    /// Marks the model write-locked (it must be free) and takes the real
    /// write lock.
    fn acquire_write(
        &self,
        object: ObjectId,
        location: &'static Location<'static>,
    ) -> LockResult<RwLockWriteGuard<'_, T>> {
        self.state.store(WRITER, Ordering::Relaxed);
        rt::acquired(object);
        let real = match self.inner.try_write() {
            Ok(guard) => Ok(guard),
            Err(TryLockError::Poisoned(p)) => Err(p),
            Err(TryLockError::WouldBlock) => self.inner.write(),
        };
        wrap_write(self, real, Some(object), location)
    }

    /// Determines whether the lock is poisoned.
    pub fn is_poisoned(&self) -> bool {
        self.inner.is_poisoned()
    }

    /// Clears the poisoned state from a lock.
    pub fn clear_poison(&self) {
        self.inner.clear_poison();
    }

    /// Returns a mutable reference to the underlying data.
    pub fn get_mut(&mut self) -> LockResult<&mut T> {
        self.inner.get_mut()
    }
}

fn wrap_read<'a, T: ?Sized>(
    lock: &'a RwLock<T>,
    real: LockResult<std::sync::RwLockReadGuard<'a, T>>,
    object: Option<ObjectId>,
    location: &'static Location<'static>,
) -> LockResult<RwLockReadGuard<'a, T>> {
    match real {
        Ok(g) => Ok(RwLockReadGuard { lock, inner: Some(g), object, location }),
        Err(p) => Err(PoisonError::new(RwLockReadGuard { lock, inner: Some(p.into_inner()), object, location })),
    }
}

fn wrap_write<'a, T: ?Sized>(
    lock: &'a RwLock<T>,
    real: LockResult<std::sync::RwLockWriteGuard<'a, T>>,
    object: Option<ObjectId>,
    location: &'static Location<'static>,
) -> LockResult<RwLockWriteGuard<'a, T>> {
    match real {
        Ok(g) => Ok(RwLockWriteGuard { lock, inner: Some(g), object, location }),
        Err(p) => Err(PoisonError::new(RwLockWriteGuard { lock, inner: Some(p.into_inner()), object, location })),
    }
}

impl<T: ?Sized> Drop for RwLockReadGuard<'_, T> {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else { return };
        match self.object {
            Some(object) if rt::active() => super::guard::release(
                Op::ReadUnlock,
                object,
                self.location,
                inner,
                || self.lock.inner.clear_poison(),
                || {
                    self.lock.state.fetch_sub(1, Ordering::Relaxed);
                },
            ),
            _ => drop(inner),
        }
    }
}

impl<T: ?Sized> Drop for RwLockWriteGuard<'_, T> {
    fn drop(&mut self) {
        let Some(inner) = self.inner.take() else { return };
        match self.object {
            Some(object) if rt::active() => super::guard::release(
                Op::Unlock,
                object,
                self.location,
                inner,
                || self.lock.inner.clear_poison(),
                || self.lock.state.store(0, Ordering::Relaxed),
            ),
            _ => drop(inner),
        }
    }
}

super::guard::guard_impls!(RwLockReadGuard);
super::guard::guard_impls!(RwLockWriteGuard, mut);
super::guard::lock_impls!(RwLock);
