//! `ArcMutexGuard` (the `arc_lock` feature): a mutex guard that owns an
//! `Arc` of its mutex instead of borrowing it.
//!
//! Invariant: `guard` borrows the mutex that `mutex` keeps alive; it is
//! declared first, so it is dropped (the lock released) before the `Arc`.

use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use samaritan::sync;

use super::mutex::{try_unpoisoned, unpoisoned, Mutex};

/// parking_lot's raw mutex type, named only as `ArcMutexGuard`'s first
/// parameter (`ArcMutexGuard<RawMutex, T>`); the `lock_api` layer does not
/// map under `sim`.
#[derive(Debug)]
pub struct RawMutex {
    _private: (),
}

/// A guard of a [`Mutex`] in an `Arc`, holding the `Arc`: it may outlive
/// the borrow it was made from.
///
/// ```
/// extern crate samaritan_parking_lot as parking_lot;
/// use parking_lot::{ArcMutexGuard, Mutex, RawMutex};
/// use std::sync::Arc;
///
/// let m = Arc::new(Mutex::new(1));
/// let mut guard: ArcMutexGuard<RawMutex, i32> = m.lock_arc();
/// *guard += 1;
/// drop(guard);
/// assert_eq!(*m.lock(), 2);
/// ```
#[must_use = "if unused the Mutex will immediately unlock"]
pub struct ArcMutexGuard<R, T: ?Sized + 'static> {
    guard: ManuallyDrop<sync::MutexGuard<'static, T>>,
    mutex: Arc<Mutex<T>>,
    _raw: PhantomData<R>,
}

impl<T: ?Sized + 'static> Mutex<T> {
    /// Takes the lock through an `Arc`, for a guard that holds the `Arc`.
    #[track_caller]
    pub fn lock_arc(self: &Arc<Self>) -> ArcMutexGuard<RawMutex, T> {
        let guard = unpoisoned(self.raw().lock());
        // SAFETY: the guard borrows the mutex inside `self`'s allocation,
        // which the `Arc` stored beside it keeps alive at least until the
        // guard is dropped (the module's invariant).
        let guard = unsafe { std::mem::transmute::<sync::MutexGuard<'_, T>, sync::MutexGuard<'static, T>>(guard) };
        ArcMutexGuard { guard: ManuallyDrop::new(guard), mutex: self.clone(), _raw: PhantomData }
    }

    /// Takes the lock through an `Arc` if it is free.
    #[track_caller]
    pub fn try_lock_arc(self: &Arc<Self>) -> Option<ArcMutexGuard<RawMutex, T>> {
        let guard = try_unpoisoned(self.raw().try_lock())?;
        // SAFETY: as in `lock_arc`.
        let guard = unsafe { std::mem::transmute::<sync::MutexGuard<'_, T>, sync::MutexGuard<'static, T>>(guard) };
        Some(ArcMutexGuard { guard: ManuallyDrop::new(guard), mutex: self.clone(), _raw: PhantomData })
    }
}

impl<R, T: ?Sized + 'static> ArcMutexGuard<R, T> {
    /// The `Arc` of the mutex this guard locks.
    pub fn mutex(s: &Self) -> &Arc<Mutex<T>> {
        &s.mutex
    }
}

impl<R, T: ?Sized + 'static> Deref for ArcMutexGuard<R, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<R, T: ?Sized + 'static> DerefMut for ArcMutexGuard<R, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<R, T: ?Sized + 'static> Drop for ArcMutexGuard<R, T> {
    fn drop(&mut self) {
        // SAFETY: dropped once, here, while `self.mutex` still keeps the
        // mutex alive.
        unsafe { ManuallyDrop::drop(&mut self.guard) };
    }
}

impl<R, T: ?Sized + fmt::Debug + 'static> fmt::Debug for ArcMutexGuard<R, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
