//! Trait impls shared by the lock guards and locks of this backend.
//!
//! A guard holds its std guard in `inner: Option<_>` (always `Some` while
//! the guard lives; taken by `Drop` or by `Condvar`), and derefs to it.

use std::panic::Location;
use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult};

use samaritan_sim::rt;
use samaritan_sim::{ObjectId, Op};

/// Implements `Deref` (and `DerefMut` with `mut`), `Debug` and `Display`
/// for a guard type `$guard<'_, T>` with an `inner: Option<std guard>`.
macro_rules! guard_impls {
    ($guard:ident) => {
        impl<T: ?Sized> std::ops::Deref for $guard<'_, T> {
            type Target = T;
            fn deref(&self) -> &T {
                self.inner.as_ref().expect("guard is live")
            }
        }

        impl<T: ?Sized + std::fmt::Debug> std::fmt::Debug for $guard<'_, T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&**self, f)
            }
        }

        impl<T: ?Sized + std::fmt::Display> std::fmt::Display for $guard<'_, T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&**self, f)
            }
        }
    };
    ($guard:ident, mut) => {
        $crate::simulated::guard::guard_impls!($guard);

        impl<T: ?Sized> std::ops::DerefMut for $guard<'_, T> {
            fn deref_mut(&mut self) -> &mut T {
                self.inner.as_mut().expect("guard is live")
            }
        }
    };
}

/// Implements `Debug` (as the std lock inside, field `inner`), `Default`
/// and `From<T>` for a lock type `$lock<T>` with a `new` constructor.
macro_rules! lock_impls {
    ($lock:ident) => {
        impl<T: ?Sized + std::fmt::Debug> std::fmt::Debug for $lock<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&self.inner, f)
            }
        }

        impl<T: Default> Default for $lock<T> {
            fn default() -> $lock<T> {
                $lock::new(T::default())
            }
        }

        impl<T> From<T> for $lock<T> {
            fn from(value: T) -> $lock<T> {
                $lock::new(value)
            }
        }
    };
}

/// Maps a std lock result onto this backend's guard, poisoned or not.
pub(crate) fn wrap<G, W>(real: LockResult<G>, make: impl FnOnce(G) -> W) -> LockResult<W> {
    match real {
        Ok(g) => Ok(make(g)),
        Err(p) => Err(PoisonError::new(make(p.into_inner()))),
    }
}

/// Maps a std try-lock result onto this backend's guard.
pub(crate) fn try_wrap<G, W>(real: TryLockResult<G>, make: impl FnOnce(G) -> W) -> TryLockResult<W> {
    match real {
        Ok(g) => Ok(make(g)),
        Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
        Err(TryLockError::Poisoned(p)) => Err(TryLockError::Poisoned(PoisonError::new(make(p.into_inner())))),
    }
}

/// Takes the real lock behind a lock the model has just granted. It is
/// free unless something outside the model holds it (another exploration
/// sharing a `static`, say): then a blocking acquire (`block` given) waits
/// for real, which the watchdog reports if it never ends, and a `try_`
/// acquire gives up with `WouldBlock`.
pub(crate) fn take_real<G>(
    attempt: TryLockResult<G>,
    block: Option<impl FnOnce() -> LockResult<G>>,
) -> TryLockResult<G> {
    match (attempt, block) {
        (Err(TryLockError::WouldBlock), Some(block)) => block().map_err(TryLockError::Poisoned),
        (attempt, _) => attempt,
    }
}

/// Turns the result of a blocking acquire back into a `LockResult`.
pub(crate) fn blocking<G>(result: TryLockResult<G>) -> LockResult<G> {
    result.map_err(|err| match err {
        TryLockError::Poisoned(p) => p,
        TryLockError::WouldBlock => unreachable!("a blocking acquire waits instead of giving up"),
    })
}

/// Releases a lock whose guard is dropped inside an execution: announces
/// `op` on `object` at `location` (the lock site; drop glue does not pass on
/// its caller), releases the real guard, undoes the poisoning a teardown's
/// unwinding causes (it is not a panic of the program), then lets `model`
/// update the modelled state, and tells the engine the lock is free.
pub(crate) fn release<G>(
    op: Op,
    object: ObjectId,
    location: &'static Location<'static>,
    real: G,
    clear_poison: impl FnOnce(),
    model: impl FnOnce(),
) {
    rt::step(op, Some(object), location);
    drop(real);
    if rt::tearing_down() {
        clear_poison();
    }
    model();
    rt::released(object);
}

pub(crate) use guard_impls;
pub(crate) use lock_impls;
