//! Shareable mutable containers; loom's [`loom::cell`] on samaritan's
//! race-checked cell.
//!
//! Every access is checked against happens-before under samaritan, as
//! loom checks it. One difference: loom counts an access from
//! [`UnsafeCell::get`] or [`UnsafeCell::get_mut`] as lasting until the
//! [`ConstPtr`] or [`MutPtr`] is dropped; samaritan counts it at the call.
//! A conflicting access that another thread makes while the pointer is
//! still held, ordered after the call by synchronization in between, is
//! then not reported.
//!
//! [`loom::cell`]: https://docs.rs/loom/0.7/loom/cell/index.html

use std::fmt;

/// Same API as loom's `UnsafeCell`; under samaritan, every access is
/// checked for data races.
pub struct UnsafeCell<T: ?Sized> {
    inner: samaritan::cell::UnsafeCell<T>,
}

/// A checked immutable raw pointer to an [`UnsafeCell`]'s value; as
/// loom's.
pub struct ConstPtr<T: ?Sized> {
    ptr: *const T,
}

/// A checked mutable raw pointer to an [`UnsafeCell`]'s value; as loom's.
pub struct MutPtr<T: ?Sized> {
    ptr: *mut T,
}

impl<T> UnsafeCell<T> {
    /// Constructs a new instance of `UnsafeCell` which will wrap the
    /// specified value.
    pub const fn new(data: T) -> UnsafeCell<T> {
        UnsafeCell { inner: samaritan::cell::UnsafeCell::new(data) }
    }

    /// Unwraps the value.
    pub fn into_inner(self) -> T {
        self.inner.into_inner()
    }
}

impl<T: ?Sized> UnsafeCell<T> {
    /// Gets an immutable pointer to the wrapped value: a read access.
    #[track_caller]
    pub fn with<F, R>(&self, f: F) -> R
    where
        F: FnOnce(*const T) -> R,
    {
        self.inner.with(f)
    }

    /// Gets a mutable pointer to the wrapped value: a write access.
    #[track_caller]
    pub fn with_mut<F, R>(&self, f: F) -> R
    where
        F: FnOnce(*mut T) -> R,
    {
        self.inner.with_mut(f)
    }

    /// Gets an immutable pointer to the wrapped value: a read access,
    /// checked now (loom checks it until the pointer is dropped).
    #[track_caller]
    pub fn get(&self) -> ConstPtr<T> {
        ConstPtr { ptr: self.inner.with(|p| p) }
    }

    /// Gets a mutable pointer to the wrapped value: a write access,
    /// checked now (loom checks it until the pointer is dropped).
    #[track_caller]
    pub fn get_mut(&self) -> MutPtr<T> {
        MutPtr { ptr: self.inner.with_mut(|p| p) }
    }
}

impl<T: Default> Default for UnsafeCell<T> {
    fn default() -> UnsafeCell<T> {
        UnsafeCell::new(T::default())
    }
}

impl<T> From<T> for UnsafeCell<T> {
    fn from(src: T) -> UnsafeCell<T> {
        UnsafeCell::new(src)
    }
}

impl<T: ?Sized> fmt::Debug for UnsafeCell<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnsafeCell").finish_non_exhaustive()
    }
}

impl<T: ?Sized> ConstPtr<T> {
    /// Dereferences the pointer.
    ///
    /// # Safety
    ///
    /// As dereferencing a `*const T`: the value must be valid, and not
    /// mutated while the returned reference lives.
    pub unsafe fn deref(&self) -> &T {
        // SAFETY: the caller's obligations are those of this dereference.
        unsafe { &*self.ptr }
    }

    /// Calls `f` with the raw pointer.
    pub fn with<F, R>(&self, f: F) -> R
    where
        F: FnOnce(*const T) -> R,
    {
        f(self.ptr)
    }
}

impl<T: ?Sized> MutPtr<T> {
    /// Dereferences the pointer.
    ///
    /// # Safety
    ///
    /// As dereferencing a `*mut T`: the value must be valid, and not
    /// accessed otherwise while the returned reference lives.
    #[allow(clippy::mut_from_ref)] // It stands for a raw pointer, as loom's.
    pub unsafe fn deref(&self) -> &mut T {
        // SAFETY: the caller's obligations are those of this dereference.
        unsafe { &mut *self.ptr }
    }

    /// Calls `f` with the raw pointer.
    pub fn with<F, R>(&self, f: F) -> R
    where
        F: FnOnce(*mut T) -> R,
    {
        f(self.ptr)
    }
}

impl<T: ?Sized> fmt::Debug for ConstPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ConstPtr").field(&self.ptr).finish()
    }
}

impl<T: ?Sized> fmt::Debug for MutPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("MutPtr").field(&self.ptr).finish()
    }
}

/// Same API as loom's `Cell` (std's `Cell`, its accesses checked for data
/// races like [`UnsafeCell`]'s).
#[derive(Debug, Default)]
pub struct Cell<T> {
    cell: UnsafeCell<T>,
}

impl<T> Cell<T> {
    /// Creates a new `Cell` containing the given value.
    pub const fn new(v: T) -> Cell<T> {
        Cell { cell: UnsafeCell::new(v) }
    }

    /// Sets the contained value.
    #[track_caller]
    pub fn set(&self, val: T) {
        drop(self.replace(val));
    }

    /// Swaps the values of two cells.
    #[track_caller]
    pub fn swap(&self, other: &Cell<T>) {
        if std::ptr::eq(self, other) {
            return;
        }
        self.cell.with_mut(|mine| {
            // SAFETY: `Cell` is not `Sync`: no other thread accesses
            // either value, and the two are distinct.
            other.cell.with_mut(|theirs| unsafe { std::ptr::swap(mine, theirs) })
        })
    }

    /// Replaces the contained value, returning the old one.
    #[track_caller]
    pub fn replace(&self, val: T) -> T {
        // SAFETY: `Cell` is not `Sync`, and no reference to the value
        // escapes.
        self.cell.with_mut(|p| unsafe { std::mem::replace(&mut *p, val) })
    }

    /// Returns a copy of the contained value.
    #[track_caller]
    pub fn get(&self) -> T
    where
        T: Copy,
    {
        // SAFETY: as `replace`.
        self.cell.with(|p| unsafe { *p })
    }

    /// Takes the value, leaving `Default::default()` in its place.
    #[track_caller]
    pub fn take(&self) -> T
    where
        T: Default,
    {
        self.replace(T::default())
    }

    /// Unwraps the value.
    pub fn into_inner(self) -> T {
        self.cell.into_inner()
    }
}

impl<T> From<T> for Cell<T> {
    fn from(v: T) -> Cell<T> {
        Cell::new(v)
    }
}
