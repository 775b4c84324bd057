//! Shareable mutable containers; see [`std::cell`].
//!
//! [`UnsafeCell`] is std's, with loom's access methods: code reaches the
//! value only through [`UnsafeCell::with`] (a read) and
//! [`UnsafeCell::with_mut`] (a write), so that under `sim` every access is
//! checked for data races. Without `sim` it is a `#[repr(transparent)]`
//! wrapper around [`std::cell::UnsafeCell`] and both methods compile to a
//! bare pointer.
//!
//! Under `sim`, inside an exploration, an access is not a scheduling point:
//! samaritan switches threads only at synchronization operations and checks
//! each execution's accesses against happens-before instead. Two accesses
//! from different threads, at least one of them a write, that no
//! synchronization orders (a lock released by one and taken by the other,
//! a spawn or a join, a message, an atomic store the other loads) end the
//! execution with a data-race verdict naming both. Atomics count as
//! sequentially consistent whatever their `Ordering`, so races that only
//! weak memory allows are not reported.
//!
//! Like std's, the cell is not `Sync`: a type that shares one between
//! threads declares `unsafe impl Sync` itself, which is the claim samaritan
//! checks.
//!
//! ```
//! # // Read as `samaritan::cell`, which re-exports this module.
//! # extern crate samaritan_sync as samaritan;
//! use samaritan::cell::UnsafeCell;
//!
//! let cell = UnsafeCell::new(1);
//! cell.with_mut(|p| unsafe { *p += 1 });
//! assert_eq!(cell.with(|p| unsafe { *p }), 2);
//! ```

use std::fmt;
#[cfg(feature = "sim")]
use std::panic::Location;

#[cfg(feature = "sim")]
use samaritan_sim::rt::{self, CellSlot};

/// Same as [`std::cell::UnsafeCell`], reached through [`with`](Self::with)
/// and [`with_mut`](Self::with_mut); under `sim`, accesses are checked for
/// data races.
#[cfg(not(feature = "sim"))]
#[repr(transparent)]
pub struct UnsafeCell<T: ?Sized> {
    inner: std::cell::UnsafeCell<T>,
}

/// Same as [`std::cell::UnsafeCell`], reached through [`with`](Self::with)
/// and [`with_mut`](Self::with_mut); under `sim`, accesses are checked for
/// data races.
#[cfg(feature = "sim")]
pub struct UnsafeCell<T: ?Sized> {
    slot: CellSlot,
    inner: std::cell::UnsafeCell<T>,
}

/// The label of cells in race reports.
#[cfg(feature = "sim")]
const KIND: &str = "UnsafeCell";

impl<T> UnsafeCell<T> {
    /// Constructs a new instance of `UnsafeCell` which will wrap the
    /// specified value.
    pub const fn new(value: T) -> UnsafeCell<T> {
        UnsafeCell {
            #[cfg(feature = "sim")]
            slot: CellSlot::new(),
            inner: std::cell::UnsafeCell::new(value),
        }
    }

    /// Unwraps the value, consuming the cell.
    pub fn into_inner(self) -> T {
        self.inner.into_inner()
    }
}

impl<T: ?Sized> UnsafeCell<T> {
    /// Calls `f` with a pointer to the value, for reading: a read access.
    ///
    /// The caller must make sure no write to the value happens while `f`
    /// reads through the pointer; under `sim`, a write by another thread
    /// that does not happen before this call is reported as a data race.
    #[inline]
    #[cfg_attr(feature = "sim", track_caller)]
    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        #[cfg(feature = "sim")]
        if rt::active() {
            rt::cell_read(&self.slot, KIND, Location::caller());
        }
        f(self.inner.get())
    }

    /// Calls `f` with a mutable pointer to the value: a write access.
    ///
    /// The caller must make sure no other access to the value happens while
    /// `f` uses the pointer; under `sim`, an access by another thread that
    /// does not happen before this call is reported as a data race.
    #[inline]
    #[cfg_attr(feature = "sim", track_caller)]
    pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        #[cfg(feature = "sim")]
        if rt::active() {
            rt::cell_write(&self.slot, KIND, Location::caller());
        }
        f(self.inner.get())
    }

    /// Returns a mutable reference to the value. The exclusive borrow
    /// rules out any other access, so nothing is checked.
    #[inline]
    pub fn get_mut(&mut self) -> &mut T {
        self.inner.get_mut()
    }
}

impl<T: Default> Default for UnsafeCell<T> {
    /// Creates an `UnsafeCell` with the `Default` value for `T`.
    fn default() -> UnsafeCell<T> {
        UnsafeCell::new(T::default())
    }
}

impl<T> From<T> for UnsafeCell<T> {
    /// Creates a new `UnsafeCell<T>` containing the given value.
    fn from(value: T) -> UnsafeCell<T> {
        UnsafeCell::new(value)
    }
}

impl<T: ?Sized> fmt::Debug for UnsafeCell<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnsafeCell").finish_non_exhaustive()
    }
}
