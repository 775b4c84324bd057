//! loom's smaller modules: `alloc`, `future`, `hint`, `lazy_static`.

/// Memory allocation; loom's `alloc` without leak tracking.
pub mod alloc {
    pub use std::alloc::Layout;

    /// Allocates memory; [`std::alloc::alloc`] (loom tracks it for leaks,
    /// samaritan does not).
    ///
    /// # Safety
    ///
    /// As [`std::alloc::alloc`].
    pub unsafe fn alloc(layout: Layout) -> *mut u8 {
        // SAFETY: the caller's obligations are std's.
        unsafe { std::alloc::alloc(layout) }
    }

    /// Allocates zeroed memory; [`std::alloc::alloc_zeroed`].
    ///
    /// # Safety
    ///
    /// As [`std::alloc::alloc_zeroed`].
    pub unsafe fn alloc_zeroed(layout: Layout) -> *mut u8 {
        // SAFETY: the caller's obligations are std's.
        unsafe { std::alloc::alloc_zeroed(layout) }
    }

    /// Deallocates memory; [`std::alloc::dealloc`].
    ///
    /// # Safety
    ///
    /// As [`std::alloc::dealloc`].
    pub unsafe fn dealloc(ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's obligations are std's.
        unsafe { std::alloc::dealloc(ptr, layout) }
    }

    /// A value loom tracks for leaks; here only a wrapper: samaritan does
    /// not report leaks.
    #[derive(Debug)]
    pub struct Track<T> {
        value: T,
    }

    impl<T> Track<T> {
        /// Tracks a value (loom: for leaks; here: not tracked).
        pub fn new(value: T) -> Track<T> {
            Track { value }
        }

        /// Gets a reference to the value.
        pub fn get_ref(&self) -> &T {
            &self.value
        }

        /// Gets a mutable reference to the value.
        pub fn get_mut(&mut self) -> &mut T {
            &mut self.value
        }

        /// Stops tracking the value.
        pub fn into_inner(self) -> T {
            self.value
        }
    }
}

/// Futures; loom's `future` module (feature `futures` in loom).
pub mod future {
    /// Runs a future to completion on the current simulated thread;
    /// samaritan's [`samaritan::executor::block_on`].
    #[track_caller]
    pub fn block_on<F>(f: F) -> F::Output
    where
        F: std::future::Future,
    {
        samaritan::executor::block_on(f)
    }

    pub use crate::atomic_waker::AtomicWaker;
}

/// Hints to the compiler; loom's `hint`.
pub mod hint {
    /// Signals a spin loop: a yielding scheduling point under samaritan.
    #[track_caller]
    pub fn spin_loop() {
        samaritan::hint::spin_loop();
    }

    /// Panics, as loom's: reaching it in a model is a bug found.
    ///
    /// # Safety
    ///
    /// None needed here; `unsafe` to keep std's and loom's signature.
    #[track_caller]
    pub unsafe fn unreachable_unchecked() -> ! {
        unreachable!("unreachable_unchecked was reached!");
    }
}

/// Support for [`crate::lazy_static!`].
pub mod lazy_static {
    /// A value initialized on first use; behind [`crate::lazy_static!`].
    ///
    /// samaritan's `LazyLock`: unlike loom's, which initializes the value
    /// again in each execution, the value made in the first execution
    /// that forces it is kept for the later ones (each still takes the
    /// initialization's steps). A value whose state one execution changes
    /// and a later one reads makes executions differ beyond their
    /// schedule, which samaritan reports as nondeterminism.
    #[derive(Debug)]
    pub struct Lazy<T: 'static> {
        inner: samaritan::sync::LazyLock<T, fn() -> T>,
    }

    impl<T: 'static> Lazy<T> {
        #[doc(hidden)]
        pub const fn new(init: fn() -> T) -> Lazy<T> {
            Lazy { inner: samaritan::sync::LazyLock::new(init) }
        }

        /// Returns the value, initializing it first if needed.
        #[track_caller]
        pub fn get(&'static self) -> &'static T {
            samaritan::sync::LazyLock::force(&self.inner)
        }
    }
}
