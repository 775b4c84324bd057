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

/// Support for [`crate::lazy_static!`], with what loom's module of the
/// same name re-exports.
pub mod lazy_static {
    pub use samaritan::thread::{yield_now, AccessError};
    #[doc(no_inline)]
    pub use std::thread::panicking;

    /// A value initialized on first use; behind [`crate::lazy_static!`].
    ///
    /// As loom's: inside an exploration each execution has its own value,
    /// made on first use (a samaritan `OnceLock`, so a thread that arrives
    /// while another initializes waits for it, as with the real
    /// `lazy_static`, and reads its value after it) and dropped when the
    /// test's closure returns, in the main thread (or, in an execution
    /// that ends early, once it has ended). So a global registry or
    /// domain starts empty in every execution, and a value holding an
    /// `Arc` is not reported as a leak. The `&'static T` it hands out
    /// lives as long as its execution, as loom's. Outside an exploration,
    /// one value for the process, as `lazy_static`'s.
    #[derive(Debug)]
    pub struct Lazy<T: 'static> {
        init: fn() -> T,
        outside: std::sync::OnceLock<T>,
    }

    impl<T: 'static> Lazy<T> {
        #[doc(hidden)]
        pub const fn new(init: fn() -> T) -> Lazy<T> {
            Lazy { init, outside: std::sync::OnceLock::new() }
        }

        /// Returns the value, initializing it first if needed.
        #[track_caller]
        pub fn get(&'static self) -> &'static T {
            #[cfg(feature = "sim")]
            {
                let key = self as *const Lazy<T> as usize;
                let made = || -> Box<dyn std::any::Any> { Box::new(samaritan::sync::OnceLock::<T>::new()) };
                if let Some(value) = samaritan_sim::rt::execution_value(key, made) {
                    // SAFETY: made above as a `OnceLock<T>` for this key, and
                    // kept (boxed, not moved) until the execution drops it:
                    // the reference is valid for the rest of the execution,
                    // which is how long loom's lazy values live too.
                    let cell = unsafe { &*value }
                        .downcast_ref::<samaritan::sync::OnceLock<T>>()
                        .expect("a lazy_static's value has its type");
                    // SAFETY: as above; the lifetime is the execution's,
                    // which the caller cannot outlive inside it.
                    let cell: &'static samaritan::sync::OnceLock<T> = unsafe { &*(cell as *const _) };
                    return cell.get_or_init(self.init);
                }
            }
            self.outside.get_or_init(self.init)
        }
    }
}
