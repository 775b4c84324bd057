//! Trait impls shared by the lock guards and locks of this backend.
//!
//! A guard holds its std guard in `inner: Option<_>` (always `Some` while
//! the guard lives; taken by `Drop` or by `Condvar`), and derefs to it.

use std::panic::Location;

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
