//! Thread-local storage: one value per simulated thread.
//!
//! `thread_local!` declares a [`LocalKey`] that holds a std thread-local
//! (used outside an exploration) and the key's initializer. Inside an
//! exploration every actor has its own value, kept by the engine under the
//! key's address and destroyed when the actor finishes, as std does at
//! thread exit: the last created first, values created by destructors
//! too, and a key refused (`with` panics, `try_with` fails) once its
//! value's destruction began. A spawned thread's values are destroyed
//! before its `join` returns (a scope may end before); the main actor's
//! (the test closure's) when the closure returns, as a test thread's are
//! when the test returns, while spawned threads it did not join may still
//! run.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::thread::AccessError;

use samaritan_sim::rt;

std::thread_local! {
    /// A value on its way into an actor's thread-local storage: `with_local`
    /// takes an initializer without a closure, which reads it from here.
    static HANDOFF: Cell<Option<Box<dyn Any>>> = const { Cell::new(None) };
}

fn take_handoff<T: 'static>() -> T {
    let value = HANDOFF.with(Cell::take).expect("a thread-local value was handed off");
    *value.downcast::<T>().expect("the handed-off value has the key's type")
}

/// Initializes the running actor's value for `key` with `value`, without
/// running the key's initializer; gives `value` back if the key already has
/// a value in this actor.
pub(super) fn init_local_with<T: 'static>(key: usize, value: T) -> Option<T> {
    HANDOFF.with(|h| h.set(Some(Box::new(value))));
    rt::with_local(key, take_handoff::<T>, |_| ());
    HANDOFF.with(Cell::take).map(|v| *v.downcast::<T>().expect("the handed-off value has the key's type"))
}

/// Returns std's [`AccessError`], which only std can make: read once from a
/// std thread-local that asks for itself while it is destroyed, on a std
/// thread of its own (outside any execution).
fn access_error() -> AccessError {
    static ERROR: std::sync::OnceLock<AccessError> = std::sync::OnceLock::new();
    *ERROR.get_or_init(|| {
        struct Probe;
        std::thread_local!(static PROBE: Probe = const { Probe });
        static SEEN: std::sync::Mutex<Option<AccessError>> = std::sync::Mutex::new(None);
        impl Drop for Probe {
            fn drop(&mut self) {
                *SEEN.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = PROBE.try_with(|_| ()).err();
            }
        }
        std::thread::spawn(|| PROBE.with(|_| ())).join().expect("the probe thread does not panic");
        let seen = *SEEN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        seen.expect("std refuses a thread-local during its destruction")
    })
}

/// Same API as [`std::thread::LocalKey`]; declared with `thread_local!`.
/// Under `sim` each simulated thread has its own value.
pub struct LocalKey<T: 'static> {
    real: &'static std::thread::LocalKey<T>,
    init: fn() -> T,
}

impl<T: 'static> fmt::Debug for LocalKey<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LocalKey").finish_non_exhaustive()
    }
}

impl<T: 'static> LocalKey<T> {
    /// Builds a key from its std counterpart and its initializer; used by
    /// `thread_local!`, not meant to be called directly.
    #[doc(hidden)]
    pub const fn __new(real: &'static std::thread::LocalKey<T>, init: fn() -> T) -> LocalKey<T> {
        LocalKey { real, init }
    }

    fn address(&'static self) -> usize {
        self as *const LocalKey<T> as usize
    }

    /// Calls `f` with this thread's value, initializing it on first use.
    pub fn with<F, R>(&'static self, f: F) -> R
    where
        F: FnOnce(&T) -> R,
    {
        if rt::active() {
            rt::with_local(self.address(), self.init, f)
        } else {
            self.real.with(f)
        }
    }

    /// Calls `f` with this thread's value, or fails if the value is being or
    /// has been destroyed.
    pub fn try_with<F, R>(&'static self, f: F) -> Result<R, AccessError>
    where
        F: FnOnce(&T) -> R,
    {
        if rt::active() {
            rt::try_with_local(self.address(), self.init, f).ok_or_else(access_error)
        } else {
            self.real.try_with(f)
        }
    }
}

impl<T: 'static> LocalKey<Cell<T>> {
    /// Sets this thread's value, without running the initializer if the
    /// value was not initialized yet.
    pub fn set(&'static self, value: T) {
        if !rt::active() {
            return self.real.set(value);
        }
        if let Some(cell) = init_local_with(self.address(), Cell::new(value)) {
            self.with(|c| c.set(cell.into_inner()));
        }
    }

    /// Returns a copy of this thread's value.
    pub fn get(&'static self) -> T
    where
        T: Copy,
    {
        self.with(Cell::get)
    }

    /// Takes this thread's value, leaving `Default::default()`.
    pub fn take(&'static self) -> T
    where
        T: Default,
    {
        self.with(Cell::take)
    }

    /// Replaces this thread's value, returning the old one.
    pub fn replace(&'static self, value: T) -> T {
        self.with(|c| c.replace(value))
    }
}

impl<T: 'static> LocalKey<RefCell<T>> {
    /// Calls `f` with a shared borrow of this thread's value.
    pub fn with_borrow<F, R>(&'static self, f: F) -> R
    where
        F: FnOnce(&T) -> R,
    {
        self.with(|c| f(&c.borrow()))
    }

    /// Calls `f` with an exclusive borrow of this thread's value.
    pub fn with_borrow_mut<F, R>(&'static self, f: F) -> R
    where
        F: FnOnce(&mut T) -> R,
    {
        self.with(|c| f(&mut c.borrow_mut()))
    }

    /// Sets this thread's value, without running the initializer if the
    /// value was not initialized yet.
    pub fn set(&'static self, value: T) {
        if !rt::active() {
            return self.real.set(value);
        }
        if let Some(cell) = init_local_with(self.address(), RefCell::new(value)) {
            self.with(|c| *c.borrow_mut() = cell.into_inner());
        }
    }

    /// Takes this thread's value, leaving `Default::default()`.
    pub fn take(&'static self) -> T
    where
        T: Default,
    {
        self.with(|c| c.take())
    }

    /// Replaces this thread's value, returning the old one.
    pub fn replace(&'static self, value: T) -> T {
        self.with(|c| c.replace(value))
    }
}

/// Declares thread-local statics; same syntax as [`std::thread_local!`].
/// Under `sim` each simulated thread has its own value of each.
#[macro_export]
macro_rules! thread_local {
    () => {};
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = const $init:block; $($rest:tt)*) => {
        $crate::thread_local!($(#[$attr])* $vis static $name: $t = const $init);
        $crate::thread_local!($($rest)*);
    };
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = const $init:block) => {
        $(#[$attr])* $vis static $name: $crate::thread::LocalKey<$t> = {
            ::std::thread_local!(static __SAMARITAN_REAL: $t = const $init);
            fn __samaritan_init() -> $t {
                $init
            }
            $crate::thread::LocalKey::__new(&__SAMARITAN_REAL, __samaritan_init)
        };
    };
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = $init:expr; $($rest:tt)*) => {
        $crate::thread_local!($(#[$attr])* $vis static $name: $t = $init);
        $crate::thread_local!($($rest)*);
    };
    ($(#[$attr:meta])* $vis:vis static $name:ident: $t:ty = $init:expr) => {
        $(#[$attr])* $vis static $name: $crate::thread::LocalKey<$t> = {
            ::std::thread_local!(static __SAMARITAN_REAL: $t = $init);
            fn __samaritan_init() -> $t {
                $init
            }
            $crate::thread::LocalKey::__new(&__SAMARITAN_REAL, __samaritan_init)
        };
    };
}
