//! Simulated `Weak`: a reference that keeps the allocation, not the value.

use std::fmt;
use std::ptr::{self, NonNull};
use std::sync::atomic::Ordering;

use samaritan_sim::Op;

use super::{Arc, Header, Inner, MAX_REFCOUNT};

/// Same API as [`std::sync::Weak`]; counts are scheduled under `sim`.
pub struct Weak<T: ?Sized> {
    /// `None` for [`Weak::new`], which has no allocation.
    ptr: Option<NonNull<Inner<T>>>,
}

// SAFETY: as std's `Weak`: it can become an `Arc`.
unsafe impl<T: ?Sized + Send + Sync> Send for Weak<T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send + Sync> Sync for Weak<T> {}

impl<T> Weak<T> {
    /// Constructs a new `Weak<T>` without an allocation: `upgrade` always
    /// gives `None`.
    pub const fn new() -> Weak<T> {
        Weak { ptr: None }
    }
}

impl<T: ?Sized> Weak<T> {
    pub(super) fn from_inner(ptr: NonNull<Inner<T>>) -> Weak<T> {
        Weak { ptr: Some(ptr) }
    }

    fn header(&self) -> Option<&Header> {
        // SAFETY: the allocation lives while `self` counts in it.
        self.ptr.map(|p| unsafe { &(*p.as_ptr()).header })
    }

    /// Attempts to upgrade to an [`Arc`]; `None` once the value was
    /// dropped. A step.
    pub fn upgrade(&self) -> Option<Arc<T>> {
        let (ptr, header) = (self.ptr?, self.header()?);
        let object = header.step(Op::RefUpgrade);
        let increment = |n: usize| (n != 0).then(|| n + 1);
        let old = header.strong.fetch_update(Ordering::Acquire, Ordering::Relaxed, increment).ok()?;
        if old > MAX_REFCOUNT {
            std::process::abort();
        }
        header.acquired(object);
        Some(Arc::from_inner(ptr))
    }

    /// Gets the number of strong pointers to the allocation. A step.
    pub fn strong_count(&self) -> usize {
        let Some(header) = self.header() else { return 0 };
        header.step(Op::RefRead);
        header.strong.load(Ordering::Relaxed)
    }

    /// Gets the number of `Weak` pointers to the allocation, 0 once no
    /// strong pointer remains. A step.
    pub fn weak_count(&self) -> usize {
        let Some(header) = self.header() else { return 0 };
        header.step(Op::RefRead);
        let weak = header.weak.load(Ordering::Acquire);
        if header.strong.load(Ordering::Relaxed) == 0 {
            return 0;
        }
        // Less the `Arc`s' shared one; `usize::MAX` is `get_mut`'s lock,
        // taken when the count was 1.
        if weak == usize::MAX {
            0
        } else {
            weak - 1
        }
    }

    /// Returns whether the two `Weak`s point to the same allocation (or
    /// both to none).
    pub fn ptr_eq(&self, other: &Weak<T>) -> bool {
        match (self.ptr, other.ptr) {
            (Some(a), Some(b)) => ptr::addr_eq(a.as_ptr(), b.as_ptr()),
            (a, b) => a.is_none() && b.is_none(),
        }
    }
}

impl<T: ?Sized> Clone for Weak<T> {
    /// Makes a clone of the `Weak` pointer. A step.
    fn clone(&self) -> Weak<T> {
        if let Some(header) = self.header() {
            header.step(Op::RefInc);
            if header.weak.fetch_add(1, Ordering::Relaxed) > MAX_REFCOUNT {
                std::process::abort();
            }
        }
        Weak { ptr: self.ptr }
    }
}

impl<T: ?Sized> Drop for Weak<T> {
    /// Drops the `Weak`, and the allocation with the last reference. A step.
    fn drop(&mut self) {
        let Some(ptr) = self.ptr else { return };
        if let Some(header) = self.header() {
            header.step(Op::RefDec);
        }
        // SAFETY: this `Weak`'s reference, given up once.
        unsafe { Inner::release_weak(ptr) };
    }
}

impl<T> Default for Weak<T> {
    fn default() -> Weak<T> {
        Weak::new()
    }
}

impl<T: ?Sized> fmt::Debug for Weak<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(Weak)")
    }
}
