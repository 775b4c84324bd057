//! Mock of `std::sync::atomic`; loom's atomics on samaritan's.
//!
//! Each type derefs to samaritan's atomic of the same name, which has
//! std's methods and layout; loom's own additions (`with_mut`,
//! `unsync_load`) are here. samaritan's atomics follow the C11 memory
//! model (each load's choice of store explored, every `Ordering`
//! honoured).

use std::fmt;
use std::ops::Deref;

pub use samaritan::sync::atomic::{compiler_fence, fence};
pub use std::sync::atomic::Ordering;

macro_rules! atomic {
    ($(#[$doc:meta])* $name:ident, $prim:ty) => {
        $(#[$doc])*
        ///
        /// Derefs to samaritan's atomic, which has std's methods.
        pub struct $name(samaritan::sync::atomic::$name);

        impl $name {
            /// Creates a new atomic.
            pub const fn new(v: $prim) -> $name {
                $name(samaritan::sync::atomic::$name::new(v))
            }

            /// Calls `f` with a mutable reference to the value (no other
            /// access can race).
            pub fn with_mut<R>(&mut self, f: impl FnOnce(&mut $prim) -> R) -> R {
                f(self.0.get_mut())
            }

            /// Loads the value without synchronization, as loom's.
            ///
            /// Under samaritan this is a sequentially consistent load, a
            /// scheduling point: unlike loom, a concurrent store is not
            /// reported.
            ///
            /// # Safety
            ///
            /// As loom's: no other thread may access the atomic
            /// concurrently.
            #[track_caller]
            pub unsafe fn unsync_load(&self) -> $prim {
                self.0.load(Ordering::SeqCst)
            }

            /// Consumes the atomic and returns the value.
            pub fn into_inner(self) -> $prim {
                self.0.into_inner()
            }
        }

        impl Deref for $name {
            type Target = samaritan::sync::atomic::$name;

            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }

        impl Default for $name {
            fn default() -> $name {
                $name::new(Default::default())
            }
        }

        impl From<$prim> for $name {
            fn from(v: $prim) -> $name {
                $name::new(v)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }
    };
}

atomic!(/// A boolean type which can be safely shared between threads.
    AtomicBool, bool);
atomic!(/// An integer type which can be safely shared between threads.
    AtomicU8, u8);
atomic!(/// An integer type which can be safely shared between threads.
    AtomicU16, u16);
atomic!(/// An integer type which can be safely shared between threads.
    AtomicU32, u32);
atomic!(/// An integer type which can be safely shared between threads.
    AtomicU64, u64);
atomic!(/// An integer type which can be safely shared between threads.
    AtomicUsize, usize);
atomic!(/// An integer type which can be safely shared between threads.
    AtomicI8, i8);
atomic!(/// An integer type which can be safely shared between threads.
    AtomicI16, i16);
atomic!(/// An integer type which can be safely shared between threads.
    AtomicI32, i32);
atomic!(/// An integer type which can be safely shared between threads.
    AtomicI64, i64);
atomic!(/// An integer type which can be safely shared between threads.
    AtomicIsize, isize);

/// A raw pointer type which can be safely shared between threads.
///
/// Derefs to samaritan's atomic, which has std's methods.
pub struct AtomicPtr<T>(samaritan::sync::atomic::AtomicPtr<T>);

impl<T> AtomicPtr<T> {
    /// Creates a new atomic pointer.
    pub const fn new(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr(samaritan::sync::atomic::AtomicPtr::new(p))
    }

    /// Calls `f` with a mutable reference to the pointer (no other access
    /// can race).
    pub fn with_mut<R>(&mut self, f: impl FnOnce(&mut *mut T) -> R) -> R {
        f(self.0.get_mut())
    }

    /// Loads the pointer without synchronization, as loom's; under
    /// samaritan a sequentially consistent load (see
    /// [`AtomicUsize::unsync_load`]).
    ///
    /// # Safety
    ///
    /// As loom's: no other thread may access the atomic concurrently.
    #[track_caller]
    pub unsafe fn unsync_load(&self) -> *mut T {
        self.0.load(Ordering::SeqCst)
    }

    /// Consumes the atomic and returns the pointer.
    pub fn into_inner(self) -> *mut T {
        self.0.into_inner()
    }
}

impl<T> Deref for AtomicPtr<T> {
    type Target = samaritan::sync::atomic::AtomicPtr<T>;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<T> Default for AtomicPtr<T> {
    fn default() -> AtomicPtr<T> {
        AtomicPtr::new(std::ptr::null_mut())
    }
}

impl<T> From<*mut T> for AtomicPtr<T> {
    fn from(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr::new(p)
    }
}

impl<T> fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// Signals a spin loop; loom's deprecated spelling of
/// [`crate::hint::spin_loop`].
#[track_caller]
pub fn spin_loop_hint() {
    samaritan::hint::spin_loop();
}
