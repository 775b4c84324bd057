//! Simulated `LazyLock`: a [`OnceLock`] plus the initializer.
//!
//! A `static` `LazyLock` starts every execution uninitialized, as a fresh
//! process does: its initializer runs again in each execution that forces
//! it (`rt::keep_static` puts the initializer back once the execution
//! ended; the value an execution made is leaked, as references to it may
//! remain). Any other lock's initializer runs once, in the first
//! execution that forces it (or outside executions); a later execution
//! still replays the initialization protocol (begin and complete steps,
//! with other threads blocked in between) but keeps the value produced
//! earlier.

use std::fmt;
use std::ops::Deref;
use std::panic::Location;
use std::sync::PoisonError;

use std::mem::{size_of, MaybeUninit};
use std::ptr;

use samaritan_sim::rt;
use samaritan_sim::ObjectId;

use super::once_lock::OnceLock;
use super::pristine::{self, Raw};

/// Same API as [`std::sync::LazyLock`]; scheduled under `sim`.
pub struct LazyLock<T, F = fn() -> T> {
    cell: OnceLock<T>,
    /// The initializer until it is called.
    init: std::sync::Mutex<Option<F>>,
}

impl<T, F: FnOnce() -> T> LazyLock<T, F> {
    /// Creates a new lazy value with the given initializing function.
    pub const fn new(f: F) -> LazyLock<T, F> {
        LazyLock { cell: OnceLock::new(), init: std::sync::Mutex::new(Some(f)) }
    }

    fn take_init(&self) -> Option<F> {
        self.init.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// Forces the evaluation of this lazy value and returns a reference to
    /// the result.
    ///
    /// # Panics
    ///
    /// Panics if the initializer panicked before (the lock is poisoned).
    #[track_caller]
    pub fn force(this: &LazyLock<T, F>) -> &T {
        if !rt::active() {
            if let Some(value) = this.cell.get() {
                return value;
            }
            let consumed = this.init.lock().unwrap_or_else(PoisonError::into_inner).is_none();
            if let Some(value) = this.cell.earlier_value().filter(|_| consumed) {
                // Initialized inside an execution.
                return value;
            }
            return this.cell.get_or_init(|| match this.take_init() {
                Some(f) => f(),
                None => poisoned(),
            });
        }
        this.cell.object_with(|object| this.keep_init(object));
        this.cell.sim_init(Location::caller(), || match this.take_init() {
            Some(f) => Some(f()),
            // Called in an earlier execution: keep its value.
            None if this.cell.has_earlier_value() => None,
            None => poisoned(),
        })
    }
}

impl<T, F> LazyLock<T, F> {
    /// On the lock's first use in an execution, as `object`: a `static`'s
    /// initializer is copied, to be put back once the execution ended.
    fn keep_init(&self, object: ObjectId) {
        let raw = pristine::erase(self);
        rt::keep_static(raw[0], object, || {
            let init = self.init.lock().unwrap_or_else(PoisonError::into_inner);
            let Some(f) = init.as_ref() else {
                return Err(
                    "its initializer ran before the exploration, or in an execution that could not put it back",
                );
            };
            let len = size_of::<F>();
            let bytes: Box<[MaybeUninit<u8>]> = (0..len).map(|_| MaybeUninit::uninit()).collect();
            let bytes = Box::into_raw(bytes);
            // SAFETY: `f` is `len` bytes, `bytes` has room for them.
            unsafe { ptr::copy_nonoverlapping((f as *const F).cast::<MaybeUninit<u8>>(), bytes.cast(), len) };
            // SAFETY: as `put_back` requires: `raw` points at this lock, a
            // static (`keep_static` calls this only for one), and `bytes`
            // holds its initializer's.
            Ok(unsafe { put_back(raw, bytes, Self::restore_init) })
        });
    }

    /// Puts the initializer copied into `bytes` back into the lock `raw`
    /// points at, unless it is still there.
    ///
    /// # Safety
    ///
    /// `raw` must point at a static `LazyLock<T, F>` and `bytes` hold a copy
    /// of its `F`. The copy is a second `F` made from the first one's
    /// bytes: sound because a `static`'s `F` is always `Copy` on stable
    /// Rust (a static's type is named, so its `F` is a function pointer or
    /// a shared reference to a `dyn Fn`; closure types cannot be named and
    /// the `Fn` traits cannot be implemented by hand), and only one of the
    /// two is ever called.
    unsafe fn restore_init(raw: Raw, bytes: *const MaybeUninit<u8>) {
        // SAFETY: the caller's contract.
        let this = unsafe { &*pristine::unerase::<LazyLock<T, F>>(raw) };
        let mut init = this.init.lock().unwrap_or_else(PoisonError::into_inner);
        if init.is_none() {
            // SAFETY: the caller's contract; `read_unaligned` as a byte
            // buffer has no alignment.
            *init = Some(unsafe { ptr::read_unaligned(bytes.cast::<F>()) });
        }
    }
}

/// What puts a static `LazyLock`'s initializer back (a function of its
/// own, not generic, so that what it returns borrows nothing); the copy's
/// bytes are freed then.
///
/// # Safety
///
/// As `LazyLock::restore_init` for `restore`, `raw` and `bytes`.
unsafe fn put_back(
    raw: Raw,
    bytes: *mut [MaybeUninit<u8>],
    restore: unsafe fn(Raw, *const MaybeUninit<u8>),
) -> Box<dyn FnOnce() + Send> {
    let (at, len) = (bytes as *mut MaybeUninit<u8> as usize, bytes.len());
    Box::new(move || {
        let bytes = ptr::slice_from_raw_parts_mut(at as *mut MaybeUninit<u8>, len);
        // SAFETY: the caller's contract; `bytes` came from `Box::into_raw`
        // and is freed here, once.
        unsafe {
            restore(raw, at as *const MaybeUninit<u8>);
            drop(Box::from_raw(bytes));
        }
    })
}

fn poisoned() -> ! {
    panic!("LazyLock instance has previously been poisoned")
}

impl<T, F: FnOnce() -> T> Deref for LazyLock<T, F> {
    type Target = T;

    #[track_caller]
    fn deref(&self) -> &T {
        LazyLock::force(self)
    }
}

impl<T: Default> Default for LazyLock<T> {
    fn default() -> LazyLock<T> {
        LazyLock::new(T::default)
    }
}

impl<T: fmt::Debug, F> fmt::Debug for LazyLock<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_tuple("LazyLock");
        match self.cell.peek() {
            Some(v) => d.field(v),
            None => d.field(&format_args!("<uninit>")),
        };
        d.finish()
    }
}
