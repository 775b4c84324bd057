//! A reference-counted pointer whose count is a samaritan atomic, as
//! loom's `Arc` is a loom object.
//!
//! std's `Arc` counts with std atomics, which samaritan does not see: the
//! drop of the value by the last owner would not be ordered after the
//! other owners' accesses, and a value whose `Drop` reaches an
//! [`UnsafeCell`](crate::cell::UnsafeCell) would be reported as a data
//! race. Here every clone and drop is a modelled step (as in loom), and
//! the decrement that frees is ordered after every other.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::pin::Pin;
use std::ptr::NonNull;

use samaritan::sync::atomic::{AtomicUsize, Ordering};

/// The allocation: the count, then the value.
#[repr(C)]
struct Shared<T: ?Sized> {
    /// The number of `Arc`s; the allocation is freed when it drops to 0.
    count: AtomicUsize,
    value: T,
}

/// Same API as loom's `Arc` (std's, less `Weak`); its count is modelled.
pub struct Arc<T: ?Sized> {
    /// Invariant: points to a live `Shared` from `Box::into_raw`, counted
    /// once in its `count`.
    ptr: NonNull<Shared<T>>,
}

// SAFETY: as std's `Arc`: sharing the `T` between threads needs `Sync`,
// dropping it on any of them `Send`.
unsafe impl<T: ?Sized + Send + Sync> Send for Arc<T> {}
// SAFETY: as above.
unsafe impl<T: ?Sized + Send + Sync> Sync for Arc<T> {}

impl<T> Arc<T> {
    /// Constructs a new `Arc<T>`.
    #[track_caller]
    pub fn new(value: T) -> Arc<T> {
        let shared = Box::new(Shared { count: AtomicUsize::new(1), value });
        Arc { ptr: NonNull::from(Box::leak(shared)) }
    }

    /// Constructs a new `Pin<Arc<T>>`.
    #[track_caller]
    pub fn pin(value: T) -> Pin<Arc<T>> {
        // SAFETY: the value is never moved out of its allocation while
        // `Arc`s to it exist, and a `Pin<Arc<T>>` gives out no `&mut T`.
        unsafe { Pin::new_unchecked(Arc::new(value)) }
    }

    /// Returns the inner value, if this is the only `Arc`.
    #[track_caller]
    pub fn try_unwrap(this: Arc<T>) -> Result<T, Arc<T>> {
        if this.shared().count.compare_exchange(1, 0, Ordering::Acquire, Ordering::Relaxed).is_err() {
            return Err(this);
        }
        let ptr = this.ptr;
        std::mem::forget(this);
        // SAFETY: the count was 1 and is now 0: this was the only `Arc`,
        // and the allocation is ours.
        let shared = unsafe { Box::from_raw(ptr.as_ptr()) };
        Ok(shared.value)
    }

    /// Consumes the `Arc`, returning a pointer to the value.
    pub fn into_raw(this: Arc<T>) -> *const T {
        let ptr = Arc::as_ptr(&this);
        std::mem::forget(this);
        ptr
    }

    /// Constructs an `Arc` from a pointer `into_raw` returned.
    ///
    /// # Safety
    ///
    /// As [`std::sync::Arc::from_raw`]: `ptr` comes from `Arc::<T>::into_raw`
    /// and its count is given back once.
    pub unsafe fn from_raw(ptr: *const T) -> Arc<T> {
        let offset = std::mem::offset_of!(Shared<T>, value);
        // SAFETY: `ptr` points to the `value` field of a `Shared<T>`.
        let shared = unsafe { ptr.byte_sub(offset) } as *mut Shared<T>;
        // SAFETY: non-null, as it came from an `Arc`.
        Arc { ptr: unsafe { NonNull::new_unchecked(shared) } }
    }

    /// Increments the count of the `Arc` that `ptr` came from.
    ///
    /// # Safety
    ///
    /// As [`std::sync::Arc::increment_strong_count`].
    #[track_caller]
    pub unsafe fn increment_strong_count(ptr: *const T) {
        // SAFETY: the caller's obligations.
        let arc = std::mem::ManuallyDrop::new(unsafe { Arc::from_raw(ptr) });
        std::mem::forget(Arc::clone(&arc));
    }

    /// Decrements the count of the `Arc` that `ptr` came from.
    ///
    /// # Safety
    ///
    /// As [`std::sync::Arc::decrement_strong_count`].
    #[track_caller]
    pub unsafe fn decrement_strong_count(ptr: *const T) {
        // SAFETY: the caller's obligations.
        drop(unsafe { Arc::from_raw(ptr) });
    }
}

impl<T: ?Sized> Arc<T> {
    fn shared(&self) -> &Shared<T> {
        // SAFETY: the allocation lives while `self` counts in it.
        unsafe { self.ptr.as_ref() }
    }

    /// Returns the number of `Arc`s to this allocation.
    #[track_caller]
    pub fn strong_count(this: &Arc<T>) -> usize {
        this.shared().count.load(Ordering::SeqCst)
    }

    /// Returns a mutable reference to the value, if this is the only `Arc`.
    #[track_caller]
    pub fn get_mut(this: &mut Arc<T>) -> Option<&mut T> {
        if this.shared().count.load(Ordering::Acquire) != 1 {
            return None;
        }
        // SAFETY: the only `Arc`, borrowed mutably: no other access.
        Some(unsafe { &mut (*this.ptr.as_ptr()).value })
    }

    /// Returns whether two `Arc`s point to the same allocation.
    pub fn ptr_eq(this: &Arc<T>, other: &Arc<T>) -> bool {
        std::ptr::addr_eq(this.ptr.as_ptr(), other.ptr.as_ptr())
    }

    /// Returns a pointer to the value.
    pub fn as_ptr(this: &Arc<T>) -> *const T {
        &this.shared().value
    }
}

impl<T: ?Sized> Clone for Arc<T> {
    #[track_caller]
    fn clone(&self) -> Arc<T> {
        self.shared().count.fetch_add(1, Ordering::Relaxed);
        Arc { ptr: self.ptr }
    }
}

impl<T: ?Sized> Drop for Arc<T> {
    #[track_caller]
    fn drop(&mut self) {
        // A modelled read-modify-write (sequentially consistent under
        // samaritan): the last decrement is ordered after every other,
        // so the free after every owner's accesses.
        if self.shared().count.fetch_sub(1, Ordering::AcqRel) == 1 {
            // SAFETY: the count reached 0: this was the last `Arc`.
            drop(unsafe { Box::from_raw(self.ptr.as_ptr()) });
        }
    }
}

impl<T: ?Sized> Deref for Arc<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.shared().value
    }
}

impl<T: ?Sized> AsRef<T> for Arc<T> {
    fn as_ref(&self) -> &T {
        self
    }
}

impl<T: ?Sized> Borrow<T> for Arc<T> {
    fn borrow(&self) -> &T {
        self
    }
}

impl<T: Default> Default for Arc<T> {
    #[track_caller]
    fn default() -> Arc<T> {
        Arc::new(T::default())
    }
}

impl<T> From<T> for Arc<T> {
    #[track_caller]
    fn from(value: T) -> Arc<T> {
        Arc::new(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<T: ?Sized + PartialEq> PartialEq for Arc<T> {
    fn eq(&self, other: &Arc<T>) -> bool {
        **self == **other
    }
}

impl<T: ?Sized + Eq> Eq for Arc<T> {}

impl<T: ?Sized + PartialOrd> PartialOrd for Arc<T> {
    fn partial_cmp(&self, other: &Arc<T>) -> Option<std::cmp::Ordering> {
        (**self).partial_cmp(&**other)
    }
}

impl<T: ?Sized + Ord> Ord for Arc<T> {
    fn cmp(&self, other: &Arc<T>) -> std::cmp::Ordering {
        (**self).cmp(&**other)
    }
}

impl<T: ?Sized + Hash> Hash for Arc<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}
