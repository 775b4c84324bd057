//! Simulated atomics: a real atomic plus a scheduling point per access.
//!
//! Memory model: every access is modelled as sequentially consistent,
//! whatever `Ordering` the caller passes; the real operation runs with
//! `SeqCst` after the engine schedules it. Bugs that need weaker orderings
//! (a `Relaxed` store seen late by another thread) are not found yet.
//! `compare_exchange_weak` may fail spuriously even when the value matches:
//! that is an explored choice, off with `Builder::spurious_failures(false)`.
//! Two spurious failures in a row on one atomic are not explored, so the
//! usual retry loop stays finite under exhaustive search.

use std::panic::Location;
use std::sync::atomic::{AtomicBool as StdAtomicBool, Ordering};

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::Op;

/// The engine side of an atomic: its object, and whether its last weak
/// compare-exchange failed spuriously.
#[derive(Debug, Default)]
struct Site {
    slot: ObjectSlot,
    /// Set after a spurious failure, cleared by any other outcome: at most
    /// one spurious failure in a row, so that the usual retry loop
    /// terminates under exhaustive search while the failure is still seen.
    spurious: StdAtomicBool,
}

impl Site {
    const fn new() -> Site {
        Site { slot: ObjectSlot::new(), spurious: StdAtomicBool::new(false) }
    }

    /// Announces an access, if inside an execution.
    #[inline]
    #[track_caller]
    fn access(&self, op: Op) {
        if rt::active() {
            let (object, fresh) = self.slot.id("Atomic");
            if fresh {
                self.spurious.store(false, Ordering::Relaxed);
            }
            rt::step(op, Some(object), Location::caller());
        }
    }

    /// Decides whether a weak compare-exchange whose comparison `matches`
    /// fails spuriously (an explored choice); call after [`Site::access`].
    #[track_caller]
    fn fails_spuriously(&self, matches: bool) -> bool {
        let fails = rt::active()
            && matches
            && rt::spurious_failures()
            && !self.spurious.load(Ordering::Relaxed)
            && rt::choose(2) == 1;
        self.spurious.store(fails, Ordering::Relaxed);
        fails
    }
}

/// Same as [`std::sync::atomic::fence`]; a scheduling point under `sim`.
#[track_caller]
pub fn fence(order: Ordering) {
    if rt::active() {
        rt::step(Op::Fence, None, Location::caller());
    }
    std::sync::atomic::fence(order);
}

/// Same as [`std::sync::atomic::compiler_fence`]; not a scheduling point.
pub fn compiler_fence(order: Ordering) {
    std::sync::atomic::compiler_fence(order);
}

macro_rules! common {
    ($name:ident, $std:ty, $prim:ty) => {
        /// Same API as the std atomic of the same name; scheduled under `sim`.
        #[derive(Default)]
        pub struct $name {
            site: Site,
            inner: $std,
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&self.inner, f)
            }
        }

        impl From<$prim> for $name {
            fn from(value: $prim) -> $name {
                $name::new(value)
            }
        }

        impl $name {
            /// Creates a new atomic.
            pub const fn new(value: $prim) -> $name {
                $name { site: Site::new(), inner: <$std>::new(value) }
            }

            /// Returns a mutable reference to the value (no other access can race).
            pub fn get_mut(&mut self) -> &mut $prim {
                self.inner.get_mut()
            }

            /// Consumes the atomic and returns the value.
            pub fn into_inner(self) -> $prim {
                self.inner.into_inner()
            }

            /// Loads the value.
            #[track_caller]
            pub fn load(&self, _order: Ordering) -> $prim {
                self.site.access(Op::Load);
                self.inner.load(Ordering::SeqCst)
            }

            /// Stores a value.
            #[track_caller]
            pub fn store(&self, value: $prim, _order: Ordering) {
                self.site.access(Op::Store);
                self.inner.store(value, Ordering::SeqCst)
            }

            /// Stores a value, returning the previous one.
            #[track_caller]
            pub fn swap(&self, value: $prim, _order: Ordering) -> $prim {
                self.site.access(Op::Rmw);
                self.inner.swap(value, Ordering::SeqCst)
            }

            /// Stores `new` if the value is `current`.
            #[track_caller]
            pub fn compare_exchange(
                &self,
                current: $prim,
                new: $prim,
                _success: Ordering,
                _failure: Ordering,
            ) -> Result<$prim, $prim> {
                self.site.access(Op::CompareExchange);
                self.inner.compare_exchange(current, new, Ordering::SeqCst, Ordering::SeqCst)
            }

            /// Like `compare_exchange`, but may fail spuriously (an explored
            /// choice under `sim`).
            #[track_caller]
            pub fn compare_exchange_weak(
                &self,
                current: $prim,
                new: $prim,
                _success: Ordering,
                _failure: Ordering,
            ) -> Result<$prim, $prim> {
                self.site.access(Op::CompareExchange);
                let seen = self.inner.load(Ordering::SeqCst);
                if self.site.fails_spuriously(seen == current) {
                    return Err(seen);
                }
                self.inner.compare_exchange(current, new, Ordering::SeqCst, Ordering::SeqCst)
            }

            /// Fetches the value and applies `f` to it until `f` returns
            /// `None` or the update succeeds; each attempt is one step.
            #[track_caller]
            pub fn fetch_update<F>(&self, _set: Ordering, _fetch: Ordering, mut f: F) -> Result<$prim, $prim>
            where
                F: FnMut($prim) -> Option<$prim>,
            {
                self.site.access(Op::Rmw);
                self.inner.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |v| f(v))
            }

            /// Returns a pointer to the underlying value.
            pub const fn as_ptr(&self) -> *mut $prim {
                self.inner.as_ptr()
            }
        }
    };
}

macro_rules! rmw {
    ($name:ident, $prim:ty, $($method:ident),*) => {
        impl $name {
            $(
                /// Read-modify-write, returning the previous value.
                #[track_caller]
                pub fn $method(&self, value: $prim, _order: Ordering) -> $prim {
                    self.site.access(Op::Rmw);
                    self.inner.$method(value, Ordering::SeqCst)
                }
            )*
        }
    };
}

macro_rules! int {
    ($name:ident, $std:ty, $prim:ty) => {
        common!($name, $std, $prim);
        rmw!($name, $prim, fetch_add, fetch_sub, fetch_and, fetch_nand, fetch_or, fetch_xor, fetch_max, fetch_min);
    };
}

int!(AtomicI8, std::sync::atomic::AtomicI8, i8);
int!(AtomicI16, std::sync::atomic::AtomicI16, i16);
int!(AtomicI32, std::sync::atomic::AtomicI32, i32);
int!(AtomicI64, std::sync::atomic::AtomicI64, i64);
int!(AtomicIsize, std::sync::atomic::AtomicIsize, isize);
int!(AtomicU8, std::sync::atomic::AtomicU8, u8);
int!(AtomicU16, std::sync::atomic::AtomicU16, u16);
int!(AtomicU32, std::sync::atomic::AtomicU32, u32);
int!(AtomicU64, std::sync::atomic::AtomicU64, u64);
int!(AtomicUsize, std::sync::atomic::AtomicUsize, usize);

common!(AtomicBool, std::sync::atomic::AtomicBool, bool);
rmw!(AtomicBool, bool, fetch_and, fetch_nand, fetch_or, fetch_xor);

impl AtomicBool {
    /// Logical "not" with the current value, returning the previous one.
    #[track_caller]
    pub fn fetch_not(&self, _order: Ordering) -> bool {
        self.site.access(Op::Rmw);
        self.inner.fetch_xor(true, Ordering::SeqCst)
    }
}

/// Same API as [`std::sync::atomic::AtomicPtr`]; scheduled under `sim`.
pub struct AtomicPtr<T> {
    site: Site,
    inner: std::sync::atomic::AtomicPtr<T>,
}

impl<T> Default for AtomicPtr<T> {
    fn default() -> AtomicPtr<T> {
        AtomicPtr::new(std::ptr::null_mut())
    }
}

impl<T> std::fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.inner, f)
    }
}

impl<T> AtomicPtr<T> {
    /// Creates a new atomic pointer.
    pub const fn new(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr { site: Site::new(), inner: std::sync::atomic::AtomicPtr::new(p) }
    }

    /// Returns a mutable reference to the pointer.
    pub fn get_mut(&mut self) -> &mut *mut T {
        self.inner.get_mut()
    }

    /// Consumes the atomic and returns the pointer.
    pub fn into_inner(self) -> *mut T {
        self.inner.into_inner()
    }

    /// Loads the pointer.
    #[track_caller]
    pub fn load(&self, _order: Ordering) -> *mut T {
        self.site.access(Op::Load);
        self.inner.load(Ordering::SeqCst)
    }

    /// Stores a pointer.
    #[track_caller]
    pub fn store(&self, p: *mut T, _order: Ordering) {
        self.site.access(Op::Store);
        self.inner.store(p, Ordering::SeqCst)
    }

    /// Stores a pointer, returning the previous one.
    #[track_caller]
    pub fn swap(&self, p: *mut T, _order: Ordering) -> *mut T {
        self.site.access(Op::Rmw);
        self.inner.swap(p, Ordering::SeqCst)
    }

    /// Stores `new` if the pointer is `current`.
    #[track_caller]
    pub fn compare_exchange(
        &self,
        current: *mut T,
        new: *mut T,
        _success: Ordering,
        _failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        self.site.access(Op::CompareExchange);
        self.inner.compare_exchange(current, new, Ordering::SeqCst, Ordering::SeqCst)
    }

    /// Like `compare_exchange`, but may fail spuriously (an explored choice).
    #[track_caller]
    pub fn compare_exchange_weak(
        &self,
        current: *mut T,
        new: *mut T,
        _success: Ordering,
        _failure: Ordering,
    ) -> Result<*mut T, *mut T> {
        self.site.access(Op::CompareExchange);
        let seen = self.inner.load(Ordering::SeqCst);
        if self.site.fails_spuriously(seen == current) {
            return Err(seen);
        }
        self.inner.compare_exchange(current, new, Ordering::SeqCst, Ordering::SeqCst)
    }

    /// Fetches the pointer and applies `f` until it returns `None` or the
    /// update succeeds.
    #[track_caller]
    pub fn fetch_update<F>(&self, _set: Ordering, _fetch: Ordering, f: F) -> Result<*mut T, *mut T>
    where
        F: FnMut(*mut T) -> Option<*mut T>,
    {
        self.site.access(Op::Rmw);
        self.inner.fetch_update(Ordering::SeqCst, Ordering::SeqCst, f)
    }
}

// SAFETY: the std `AtomicPtr` is `Send + Sync` for every `T`; `ObjectSlot`
// is made of atomics.
unsafe impl<T> Send for AtomicPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for AtomicPtr<T> {}
