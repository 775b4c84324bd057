//! `crossbeam::atomic::AtomicCell` under `sim`: a sequentially consistent
//! model, one samaritan mutex per cell (crossbeam's cell is `SeqCst`).
//!
//! Invariant: every operation takes the cell's lock once, so it is one
//! atomic step, ordered with every other operation on the cell.

use std::fmt;

use samaritan::sync::{Mutex, MutexGuard};

use super::unpoisoned;

/// A thread-safe mutable memory location, as crossbeam's.
///
/// ```
/// extern crate samaritan_crossbeam as crossbeam;
/// use crossbeam::atomic::AtomicCell;
///
/// let cell = AtomicCell::new(5u32);
/// assert_eq!(cell.fetch_add(2), 5);
/// assert_eq!(cell.compare_exchange(7, 1), Ok(7));
/// assert_eq!((cell.swap(9), cell.load()), (1, 9));
/// ```
pub struct AtomicCell<T> {
    value: Mutex<T>,
}

impl<T> AtomicCell<T> {
    /// A new cell holding `value`.
    pub const fn new(value: T) -> AtomicCell<T> {
        AtomicCell { value: Mutex::new(value) }
    }

    #[track_caller]
    fn lock(&self) -> MutexGuard<'_, T> {
        unpoisoned(self.value.lock())
    }

    /// Stores `value`.
    #[track_caller]
    pub fn store(&self, value: T) {
        *self.lock() = value;
    }

    /// Stores `value`, returning the old one.
    #[track_caller]
    pub fn swap(&self, value: T) -> T {
        std::mem::replace(&mut *self.lock(), value)
    }

    /// The value, consuming the cell.
    pub fn into_inner(self) -> T {
        unpoisoned(self.value.into_inner())
    }

    /// Whether the operations are lock-free: under `sim` every cell is a
    /// model, and this says `false`.
    pub const fn is_lock_free() -> bool {
        false
    }
}

impl<T: Default> AtomicCell<T> {
    /// Takes the value, leaving the default.
    #[track_caller]
    pub fn take(&self) -> T {
        std::mem::take(&mut *self.lock())
    }
}

impl<T: Copy> AtomicCell<T> {
    /// Replaces the value with `f` of it, returning the old one.
    #[track_caller]
    fn modify(&self, f: impl FnOnce(T) -> T) -> T {
        let mut value = self.lock();
        let old = *value;
        *value = f(old);
        old
    }

    /// The value.
    #[track_caller]
    pub fn load(&self) -> T {
        *self.lock()
    }

    /// Updates the value with `f` while it returns `Some`, returning the
    /// old value, or `Err` with the value `f` refused.
    #[track_caller]
    pub fn fetch_update<F: FnMut(T) -> Option<T>>(&self, mut f: F) -> Result<T, T> {
        let mut value = self.lock();
        match f(*value) {
            Some(new) => Ok(std::mem::replace(&mut *value, new)),
            None => Err(*value),
        }
    }
}

impl<T: Copy + Eq> AtomicCell<T> {
    /// Stores `new` if the value is `current`; returns the previous value,
    /// `Ok` if it was stored.
    #[track_caller]
    pub fn compare_exchange(&self, current: T, new: T) -> Result<T, T> {
        let mut value = self.lock();
        if *value == current {
            Ok(std::mem::replace(&mut *value, new))
        } else {
            Err(*value)
        }
    }
}

/// The integer operations crossbeam's cell has, for each integer type.
macro_rules! integer_ops {
    ($($t:ty)*) => {$(
        impl AtomicCell<$t> {
            /// Adds (wrapping), returning the previous value.
            #[track_caller]
            pub fn fetch_add(&self, v: $t) -> $t {
                self.modify(|x| x.wrapping_add(v))
            }

            /// Subtracts (wrapping), returning the previous value.
            #[track_caller]
            pub fn fetch_sub(&self, v: $t) -> $t {
                self.modify(|x| x.wrapping_sub(v))
            }

            /// Bitwise and, returning the previous value.
            #[track_caller]
            pub fn fetch_and(&self, v: $t) -> $t {
                self.modify(|x| x & v)
            }

            /// Bitwise nand, returning the previous value.
            #[track_caller]
            pub fn fetch_nand(&self, v: $t) -> $t {
                self.modify(|x| !(x & v))
            }

            /// Bitwise or, returning the previous value.
            #[track_caller]
            pub fn fetch_or(&self, v: $t) -> $t {
                self.modify(|x| x | v)
            }

            /// Bitwise xor, returning the previous value.
            #[track_caller]
            pub fn fetch_xor(&self, v: $t) -> $t {
                self.modify(|x| x ^ v)
            }

            /// The maximum, returning the previous value.
            #[track_caller]
            pub fn fetch_max(&self, v: $t) -> $t {
                self.modify(|x| x.max(v))
            }

            /// The minimum, returning the previous value.
            #[track_caller]
            pub fn fetch_min(&self, v: $t) -> $t {
                self.modify(|x| x.min(v))
            }
        }
    )*};
}

integer_ops!(u8 i8 u16 i16 u32 i32 u64 i64 u128 i128 usize isize);

impl AtomicCell<bool> {
    /// Logical and, returning the previous value.
    #[track_caller]
    pub fn fetch_and(&self, v: bool) -> bool {
        self.modify(|x| x & v)
    }

    /// Logical nand, returning the previous value.
    #[track_caller]
    pub fn fetch_nand(&self, v: bool) -> bool {
        self.modify(|x| !(x & v))
    }

    /// Logical or, returning the previous value.
    #[track_caller]
    pub fn fetch_or(&self, v: bool) -> bool {
        self.modify(|x| x | v)
    }

    /// Logical xor, returning the previous value.
    #[track_caller]
    pub fn fetch_xor(&self, v: bool) -> bool {
        self.modify(|x| x ^ v)
    }
}

impl<T: Default> Default for AtomicCell<T> {
    fn default() -> AtomicCell<T> {
        AtomicCell::new(T::default())
    }
}

impl<T> From<T> for AtomicCell<T> {
    fn from(value: T) -> AtomicCell<T> {
        AtomicCell::new(value)
    }
}

impl<T: Copy + fmt::Debug> fmt::Debug for AtomicCell<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AtomicCell").field("value", &self.load()).finish()
    }
}
