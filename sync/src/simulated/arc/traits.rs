//! The standard traits of [`Arc`], as std's: comparisons, hashing and
//! formatting pass through to the value; conversions allocate.
//!
//! Slices and strings get their own allocations here (`Inner<[T]>`), laid
//! out as the `#[repr(C)]` struct is: the header, then the elements at the
//! offset `Layout::extend` gives. An `Arc<dyn Trait>` has no conversion:
//! building one needs unsized coercion, which is unstable.

use std::alloc::Layout;
use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::mem::ManuallyDrop;
use std::panic::Location;
use std::ptr::{self, NonNull};

use super::{Arc, Header, Inner};

impl<T> Inner<[T]> {
    /// Moves the elements of `elements` into a new allocation.
    fn from_vec(mut elements: Vec<T>, created: &'static Location<'static>) -> NonNull<Inner<[T]>> {
        let len = elements.len();
        let array = Layout::array::<T>(len).expect("an Arc<[T]> larger than isize::MAX bytes");
        let (layout, offset) = Layout::new::<Header>().extend(array).expect("an Arc<[T]> larger than isize::MAX bytes");
        let layout = layout.pad_to_align();
        // SAFETY: the layout is not zero-sized (it holds a header).
        let memory = unsafe { std::alloc::alloc(layout) };
        if memory.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        // SAFETY: `memory` is fresh, of `layout`: the header at 0 and `len`
        // elements at `offset`, moved (not copied: the vector forgets them).
        unsafe {
            ptr::write(memory.cast::<Header>(), Header::new(created));
            ptr::copy_nonoverlapping(elements.as_ptr(), memory.add(offset).cast::<T>(), len);
            elements.set_len(0);
        }
        let fat = ptr::slice_from_raw_parts_mut(memory.cast::<T>(), len) as *mut Inner<[T]>;
        NonNull::new(fat).expect("a fresh allocation is not null")
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

impl<T> From<Box<T>> for Arc<T> {
    #[track_caller]
    fn from(value: Box<T>) -> Arc<T> {
        Arc::new(*value)
    }
}

impl<T> From<Vec<T>> for Arc<[T]> {
    #[track_caller]
    fn from(elements: Vec<T>) -> Arc<[T]> {
        Arc::from_inner(Inner::from_vec(elements, Location::caller()))
    }
}

impl<T: Clone> From<&[T]> for Arc<[T]> {
    #[track_caller]
    fn from(elements: &[T]) -> Arc<[T]> {
        Arc::from_inner(Inner::from_vec(elements.to_vec(), Location::caller()))
    }
}

impl<T> FromIterator<T> for Arc<[T]> {
    #[track_caller]
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Arc<[T]> {
        Arc::from_inner(Inner::from_vec(iter.into_iter().collect(), Location::caller()))
    }
}

impl From<&str> for Arc<str> {
    #[track_caller]
    fn from(text: &str) -> Arc<str> {
        let bytes = ManuallyDrop::new(Arc::from_inner(Inner::from_vec(text.as_bytes().to_vec(), Location::caller())));
        // SAFETY: the same allocation, whose bytes are valid UTF-8; `str`
        // and `[u8]` have the same layout and metadata.
        Arc::from_inner(unsafe { NonNull::new_unchecked(bytes.ptr.as_ptr() as *mut Inner<str>) })
    }
}

impl From<String> for Arc<str> {
    #[track_caller]
    fn from(text: String) -> Arc<str> {
        Arc::from(text.as_str())
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

impl<T: ?Sized> Unpin for Arc<T> {}

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

impl<T: ?Sized> fmt::Pointer for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(&Arc::as_ptr(self), f)
    }
}

impl<T: ?Sized + PartialEq> PartialEq for Arc<T> {
    fn eq(&self, other: &Arc<T>) -> bool {
        **self == **other
    }
}

impl<T: ?Sized + Eq> Eq for Arc<T> {}

impl<T: ?Sized + PartialOrd> PartialOrd for Arc<T> {
    fn partial_cmp(&self, other: &Arc<T>) -> Option<Ordering> {
        (**self).partial_cmp(&**other)
    }
}

impl<T: ?Sized + Ord> Ord for Arc<T> {
    fn cmp(&self, other: &Arc<T>) -> Ordering {
        (**self).cmp(&**other)
    }
}

impl<T: ?Sized + Hash> Hash for Arc<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl<T: ?Sized + std::error::Error> std::error::Error for Arc<T> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        (**self).source()
    }
}
