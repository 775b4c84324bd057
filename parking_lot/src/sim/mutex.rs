//! `Mutex` and its guards: samaritan's mutex without poisoning.
//!
//! Invariants:
//! - A `MutexGuard` holds samaritan's guard except inside
//!   [`MutexGuard::unlocked`] and a `Condvar` wait, which put it back
//!   before returning (or unwinding out of the wait).
//! - A `MappedMutexGuard` owns the guard it was made from, boxed: the
//!   pointer it derefs to stays valid for as long as the lock is held.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::time::{Duration, Instant};

use samaritan::sync::{self, PoisonError, TryLockError, TryLockResult};

/// A mutual exclusion lock, as parking_lot's: `lock` returns the guard
/// itself, and nothing is poisoned.
///
/// ```
/// extern crate samaritan_parking_lot as parking_lot;
/// use parking_lot::Mutex;
///
/// let m = Mutex::new(1);
/// *m.lock() += 1;
/// assert_eq!(*m.lock(), 2);
/// assert!(m.try_lock().is_some());
/// ```
#[derive(Default)]
pub struct Mutex<T: ?Sized> {
    inner: sync::Mutex<T>,
}

/// parking_lot's fair mutex: here the same lock as [`Mutex`] (see the
/// crate documentation).
pub type FairMutex<T> = Mutex<T>;
/// The guard of a [`FairMutex`].
pub type FairMutexGuard<'a, T> = MutexGuard<'a, T>;

/// A new [`Mutex`], in a `const` context.
///
/// ```
/// extern crate samaritan_parking_lot as parking_lot;
/// static COUNT: parking_lot::Mutex<u32> = parking_lot::const_mutex(0);
/// *COUNT.lock() += 1;
/// ```
pub const fn const_mutex<T>(value: T) -> Mutex<T> {
    Mutex::new(value)
}

/// A new [`FairMutex`], in a `const` context.
pub const fn const_fair_mutex<T>(value: T) -> FairMutex<T> {
    Mutex::new(value)
}

/// Takes samaritan's guard out of a poisoned result: parking_lot does not
/// poison.
pub(crate) fn unpoisoned<G>(result: Result<G, PoisonError<G>>) -> G {
    result.unwrap_or_else(PoisonError::into_inner)
}

/// A `try_lock`'s guard, poisoned or not; `None` if the lock is held.
pub(crate) fn try_unpoisoned<G>(result: TryLockResult<G>) -> Option<G> {
    match result {
        Ok(guard) => Some(guard),
        Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

impl<T> Mutex<T> {
    /// A new unlocked mutex holding `value`.
    pub const fn new(value: T) -> Mutex<T> {
        Mutex { inner: sync::Mutex::new(value) }
    }

    /// The value, consuming the mutex.
    pub fn into_inner(self) -> T {
        unpoisoned(self.inner.into_inner())
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Takes the lock, blocking until it is free.
    #[track_caller]
    pub fn lock(&self) -> MutexGuard<'_, T> {
        MutexGuard { mutex: self, inner: Some(unpoisoned(self.inner.lock())) }
    }

    /// Takes the lock if it is free.
    #[track_caller]
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
        try_unpoisoned(self.inner.try_lock()).map(|guard| MutexGuard { mutex: self, inner: Some(guard) })
    }

    /// Takes the lock if it is free now or after `timeout` (on the
    /// virtual clock under an exploration; see the crate documentation).
    #[track_caller]
    pub fn try_lock_for(&self, timeout: Duration) -> Option<MutexGuard<'_, T>> {
        if let Some(guard) = self.try_lock() {
            return Some(guard);
        }
        samaritan::thread::sleep(timeout);
        self.try_lock()
    }

    /// Takes the lock if it is free now or by `deadline`.
    #[track_caller]
    pub fn try_lock_until(&self, deadline: Instant) -> Option<MutexGuard<'_, T>> {
        self.try_lock_for(deadline.saturating_duration_since(Instant::now()))
    }

    /// Whether the lock is held: a [`Mutex::try_lock`] that gives the lock
    /// back at once.
    #[track_caller]
    pub fn is_locked(&self) -> bool {
        self.try_lock().is_none()
    }

    /// samaritan's mutex inside.
    #[cfg_attr(not(feature = "arc_lock"), allow(dead_code))]
    pub(crate) fn raw(&self) -> &sync::Mutex<T> {
        &self.inner
    }

    /// The value, through `&mut self` (no lock needed).
    pub fn get_mut(&mut self) -> &mut T {
        unpoisoned(self.inner.get_mut())
    }
}

impl<T> From<T> for Mutex<T> {
    fn from(value: T) -> Mutex<T> {
        Mutex::new(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Mutex");
        match try_unpoisoned(self.inner.try_lock()) {
            Some(guard) => d.field("data", &&*guard),
            None => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

/// The lock of a [`Mutex`], held until dropped.
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct MutexGuard<'a, T: ?Sized> {
    mutex: &'a Mutex<T>,
    inner: Option<sync::MutexGuard<'a, T>>,
}

impl<'a, T: ?Sized> MutexGuard<'a, T> {
    /// The mutex this guard locks.
    pub fn mutex(s: &Self) -> &'a Mutex<T> {
        s.mutex
    }

    /// Unlocks for the time `f` runs, then locks again.
    #[track_caller]
    pub fn unlocked<F: FnOnce() -> U, U>(s: &mut Self, f: F) -> U {
        drop(s.inner.take());
        let result = f();
        s.inner = Some(unpoisoned(s.mutex.inner.lock()));
        result
    }

    /// As [`MutexGuard::unlocked`] (fairness is not modelled).
    #[track_caller]
    pub fn unlocked_fair<F: FnOnce() -> U, U>(s: &mut Self, f: F) -> U {
        MutexGuard::unlocked(s, f)
    }

    /// Unlocks (fairness is not modelled: see the crate documentation).
    pub fn unlock_fair(s: Self) {
        drop(s);
    }

    /// Gives a waiting thread the chance to take the lock, then takes it
    /// back.
    #[track_caller]
    pub fn bump(s: &mut Self) {
        MutexGuard::unlocked(s, samaritan::thread::yield_now);
    }

    /// A guard for a part of the locked value.
    ///
    /// ```
    /// extern crate samaritan_parking_lot as parking_lot;
    /// use parking_lot::{Mutex, MutexGuard};
    ///
    /// let m = Mutex::new((1, 2));
    /// let mut second = MutexGuard::map(m.lock(), |pair| &mut pair.1);
    /// *second += 10;
    /// drop(second);
    /// assert_eq!(*m.lock(), (1, 12));
    /// ```
    pub fn map<U: ?Sized, F: FnOnce(&mut T) -> &mut U>(mut s: Self, f: F) -> MappedMutexGuard<'a, U>
    where
        T: 'a,
    {
        let mut guard = s.inner.take().expect("a guard holds its lock");
        let part = NonNull::from(f(&mut *guard));
        MappedMutexGuard { _held: Box::new(guard), part, _lock: PhantomData }
    }

    /// A guard for a part of the locked value, if `f` finds one; else the
    /// guard back.
    pub fn try_map<U: ?Sized, F: FnOnce(&mut T) -> Option<&mut U>>(
        mut s: Self,
        f: F,
    ) -> Result<MappedMutexGuard<'a, U>, Self>
    where
        T: 'a,
    {
        let mut guard = s.inner.take().expect("a guard holds its lock");
        match f(&mut *guard).map(NonNull::from) {
            Some(part) => Ok(MappedMutexGuard { _held: Box::new(guard), part, _lock: PhantomData }),
            None => {
                s.inner = Some(guard);
                Err(s)
            }
        }
    }

    /// Samaritan's guard, for a condition variable's wait.
    pub(crate) fn take(&mut self) -> sync::MutexGuard<'a, T> {
        self.inner.take().expect("a guard holds its lock")
    }

    /// Puts samaritan's guard back after a wait.
    pub(crate) fn put(&mut self, guard: sync::MutexGuard<'a, T>) {
        self.inner = Some(guard);
    }
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.inner.as_ref().expect("a guard holds its lock")
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.inner.as_mut().expect("a guard holds its lock")
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

/// Anything held for its `Drop` alone: the guard behind a mapped guard.
pub(crate) trait Held {}
impl<G> Held for G {}

/// The lock of a [`Mutex`], giving access to a part of its value
/// ([`MutexGuard::map`]).
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct MappedMutexGuard<'a, T: ?Sized> {
    /// The guard that holds the lock; never touched, only dropped.
    _held: Box<dyn Held + 'a>,
    /// The part, inside the locked value.
    part: NonNull<T>,
    _lock: PhantomData<&'a mut T>,
}

impl<'a, T: ?Sized> MappedMutexGuard<'a, T> {
    /// A guard for a part of this part.
    pub fn map<U: ?Sized, F: FnOnce(&mut T) -> &mut U>(mut s: Self, f: F) -> MappedMutexGuard<'a, U> {
        // SAFETY: `part` points into the value the held guard locks, and
        // `s` is the only way to it while the lock is held.
        let part = NonNull::from(f(unsafe { s.part.as_mut() }));
        MappedMutexGuard { _held: s._held, part, _lock: PhantomData }
    }
}

impl<T: ?Sized> Deref for MappedMutexGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: as in `map`; shared access through `&self`.
        unsafe { self.part.as_ref() }
    }
}

impl<T: ?Sized> DerefMut for MappedMutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `map`; exclusive through `&mut self`.
        unsafe { self.part.as_mut() }
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MappedMutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
