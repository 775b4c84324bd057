//! What the lock guards and locks of this backend share: trait impls,
//! std's poisoning, taking and releasing the real lock.
//!
//! A guard holds its real (parking_lot) guard in `inner: Option<_>`
//! (always `Some` while the guard lives; taken by `Drop` or by `Condvar`),
//! and derefs to it.

use std::panic::Location;
use std::sync::atomic::{AtomicBool, Ordering};
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

/// Implements `Debug` (as std's: the data, read without waiting through
/// `$try_read` on the real lock `inner`, and the poisoning), `Default`,
/// `From<T>` and std's unwind-safety for a lock type `$lock<T>` with a
/// `new` constructor and a `poison` field.
macro_rules! lock_impls {
    ($lock:ident, $try_read:ident) => {
        impl<T: ?Sized + std::fmt::Debug> std::fmt::Debug for $lock<T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let mut d = f.debug_struct(stringify!($lock));
                match self.inner.$try_read() {
                    Some(data) => d.field("data", &&*data),
                    None => d.field("data", &format_args!("<locked>")),
                };
                d.field("poisoned", &self.poison.get());
                d.finish_non_exhaustive()
            }
        }

        // As std's locks: poisoning is what tells a panic left the data
        // half-changed.
        impl<T: ?Sized> std::panic::UnwindSafe for $lock<T> {}
        impl<T: ?Sized> std::panic::RefUnwindSafe for $lock<T> {}

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

/// std's poisoning, for a lock whose real side (parking_lot's) has none: a
/// lock is poisoned when a guard taken while its thread was not panicking
/// is dropped while it is.
#[derive(Debug)]
pub(crate) struct Poison(AtomicBool);

impl Poison {
    pub(crate) const fn new() -> Poison {
        Poison(AtomicBool::new(false))
    }

    pub(crate) fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    pub(crate) fn clear(&self) {
        self.0.store(false, Ordering::Relaxed);
    }

    /// The result of taking the guard `g`, as std's: an error that holds
    /// it when the lock is poisoned.
    pub(crate) fn result<G>(&self, g: G) -> LockResult<G> {
        if self.get() {
            Err(PoisonError::new(g))
        } else {
            Ok(g)
        }
    }

    /// The result of trying to take a guard (`None`: held elsewhere).
    pub(crate) fn try_result<G>(&self, g: Option<G>) -> TryLockResult<G> {
        match g {
            None => Err(TryLockError::WouldBlock),
            Some(g) => self.result(g).map_err(TryLockError::Poisoned),
        }
    }

    /// A guard taken when its thread was `panicking` is dropped now.
    pub(crate) fn done(&self, panicking: bool) {
        if !panicking && std::thread::panicking() {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

/// Maps the guard of a lock result, poisoned or not.
pub(crate) fn wrap<G, W>(result: LockResult<G>, make: impl FnOnce(G) -> W) -> LockResult<W> {
    match result {
        Ok(g) => Ok(make(g)),
        Err(p) => Err(PoisonError::new(make(p.into_inner()))),
    }
}

/// Takes the real lock behind a lock the model has just granted with
/// `attempt`. It is free unless something outside the model holds it
/// (another exploration sharing a `static`, say): then a blocking acquire
/// (`block` given) waits for real, which the watchdog reports if it never
/// ends, and a `try_` acquire gives up.
pub(crate) fn take_real<G>(attempt: Option<G>, block: Option<impl FnOnce() -> G>) -> Option<G> {
    match (attempt, block) {
        (None, Some(block)) => Some(block()),
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
/// its caller), lets `model` update the modelled state (and the
/// poisoning, before the real lock is free, as std's), releases the real
/// guard, and tells the engine the lock is free.
pub(crate) fn release<G>(
    op: Op,
    object: ObjectId,
    location: &'static Location<'static>,
    real: G,
    model: impl FnOnce(),
) {
    rt::step(op, Some(object), location);
    model();
    drop(real);
    rt::released(object);
}

pub(crate) use guard_impls;
pub(crate) use lock_impls;
