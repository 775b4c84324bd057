//! Mock of `std::sync::atomic`; loom's atomics on samaritan's.
//!
//! As loom's, an atomic is made by a call (`new` is not `const`), lives
//! on the heap (the value one word points at, so a value moved after it
//! was made stays the same object) and its making is a write that every
//! access must happen after: a thread that reaches an atomic another made
//! through a pointer published without synchronization (a `Relaxed` store
//! or compare-exchange) races with its initialization, which samaritan
//! reports as a data race on the atomic's creation (`AtomicNew#n`), as
//! loom reports "Concurrent load and mut accesses". Each type derefs to
//! samaritan's atomic of the same name, which has std's methods and
//! follows the C11 memory model (each load's choice of store explored,
//! every `Ordering` honoured); loom's own additions (`with_mut`,
//! `unsync_load`, `compare_and_swap`) are here.

use std::fmt;
use std::ops::Deref;
use std::panic::Location;

pub use samaritan::sync::atomic::{compiler_fence, fence};
pub use std::sync::atomic::Ordering;

/// The label of an atomic's creation in race reports.
#[cfg(feature = "sim")]
const CREATION: &str = "AtomicNew";

/// An atomic and, under `sim`, the race detector's record of its creation.
struct Made<A> {
    atomic: A,
    #[cfg(feature = "sim")]
    creation: samaritan_sim::rt::CellSlot,
}

impl<A> Made<A> {
    /// Boxes `atomic`, made at `location`: inside an exploration, its
    /// creation is a write by the calling thread.
    fn new(atomic: A, location: &'static Location<'static>) -> Box<Made<A>> {
        let made = Box::new(Made {
            atomic,
            #[cfg(feature = "sim")]
            creation: samaritan_sim::rt::CellSlot::new(),
        });
        #[cfg(feature = "sim")]
        if crate::exploring() {
            samaritan_sim::rt::cell_write(&made.creation, CREATION, location);
        }
        let _ = location;
        made
    }

    /// The atomic, for an access at `location`, which must happen after
    /// its creation.
    #[inline]
    fn get(&self, location: &'static Location<'static>) -> &A {
        #[cfg(feature = "sim")]
        if crate::exploring() {
            samaritan_sim::rt::cell_read(&self.creation, CREATION, location);
        }
        let _ = location;
        &self.atomic
    }
}

macro_rules! atomic {
    ($(#[$doc:meta])* $name:ident, $prim:ty) => {
        $(#[$doc])*
        ///
        /// Derefs to samaritan's atomic, which has std's methods.
        pub struct $name(Box<Made<samaritan::sync::atomic::$name>>);

        impl $name {
            /// Creates a new atomic; as loom's, not `const`, and inside an
            /// exploration a write every access must happen after.
            #[track_caller]
            pub fn new(v: $prim) -> $name {
                $name(Made::new(samaritan::sync::atomic::$name::new(v), Location::caller()))
            }

            /// Calls `f` with a mutable reference to the value (no other
            /// access can race).
            #[track_caller]
            pub fn with_mut<R>(&mut self, f: impl FnOnce(&mut $prim) -> R) -> R {
                self.0.get(Location::caller());
                f(self.0.atomic.get_mut())
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
                self.0.get(Location::caller()).load(Ordering::SeqCst)
            }

            /// Stores `new` if the value is `current`, returning the value
            /// before; loom's (and std's deprecated) `compare_and_swap`.
            #[track_caller]
            pub fn compare_and_swap(&self, current: $prim, new: $prim, order: Ordering) -> $prim {
                let failure = match order {
                    Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
                    Ordering::AcqRel | Ordering::Acquire => Ordering::Acquire,
                    _ => Ordering::SeqCst,
                };
                match self.0.get(Location::caller()).compare_exchange(current, new, order, failure) {
                    Ok(v) | Err(v) => v,
                }
            }

            /// Consumes the atomic and returns the value.
            pub fn into_inner(self) -> $prim {
                self.0.atomic.into_inner()
            }
        }

        impl Deref for $name {
            type Target = samaritan::sync::atomic::$name;

            #[track_caller]
            fn deref(&self) -> &Self::Target {
                self.0.get(Location::caller())
            }
        }

        impl Default for $name {
            #[track_caller]
            fn default() -> $name {
                $name::new(Default::default())
            }
        }

        impl From<$prim> for $name {
            #[track_caller]
            fn from(v: $prim) -> $name {
                $name::new(v)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0.atomic, f)
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
pub struct AtomicPtr<T>(Box<Made<samaritan::sync::atomic::AtomicPtr<T>>>);

impl<T> AtomicPtr<T> {
    /// Creates a new atomic pointer; as loom's, not `const`, and inside an
    /// exploration a write every access must happen after.
    #[track_caller]
    pub fn new(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr(Made::new(samaritan::sync::atomic::AtomicPtr::new(p), Location::caller()))
    }

    /// Calls `f` with a mutable reference to the pointer (no other access
    /// can race).
    #[track_caller]
    pub fn with_mut<R>(&mut self, f: impl FnOnce(&mut *mut T) -> R) -> R {
        self.0.get(Location::caller());
        f(self.0.atomic.get_mut())
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
        self.0.get(Location::caller()).load(Ordering::SeqCst)
    }

    /// Consumes the atomic and returns the pointer.
    pub fn into_inner(self) -> *mut T {
        self.0.atomic.into_inner()
    }
}

impl<T> Deref for AtomicPtr<T> {
    type Target = samaritan::sync::atomic::AtomicPtr<T>;

    #[track_caller]
    fn deref(&self) -> &Self::Target {
        self.0.get(Location::caller())
    }
}

impl<T> Default for AtomicPtr<T> {
    #[track_caller]
    fn default() -> AtomicPtr<T> {
        AtomicPtr::new(std::ptr::null_mut())
    }
}

impl<T> From<*mut T> for AtomicPtr<T> {
    #[track_caller]
    fn from(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr::new(p)
    }
}

impl<T> fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0.atomic, f)
    }
}

/// Signals a spin loop; loom's deprecated spelling of
/// [`crate::hint::spin_loop`].
#[track_caller]
pub fn spin_loop_hint() {
    samaritan::hint::spin_loop();
}
