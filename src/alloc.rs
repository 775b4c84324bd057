//! The global allocator for test binaries whose code compares pointers to
//! memory it frees.
//!
//! Under `sim`, [`NoReuse`] is the system allocator except that a block
//! freed during an execution is handed back only when the execution ends:
//! no address comes back within an execution, so whether a
//! compare-exchange on a pointer meets a reused address (an ABA) never
//! depends on the allocator's state or on the explorer's own allocations,
//! which differ between a schedule's first run and its replay. Without it,
//! such a test can be reported as nondeterministic although it is correct.
//! A bug that needs a freed address to come back is then out of the model
//! (as it is out of loom's). Without `sim`, [`NoReuse`] is
//! [`std::alloc::System`] and nothing more.
//!
//! `samaritan-loom` installs it in every binary that links it under `sim`
//! (its default feature `allocator`); with samaritan's own API, install
//! it in the test binary:
//!
//! ```
//! #[global_allocator]
//! static ALLOC: samaritan::alloc::NoReuse = samaritan::alloc::NoReuse;
//!
//! fn main() {
//!     samaritan::check(|| {
//!         let first = Box::new(1u64);
//!         let address = &*first as *const u64;
//!         drop(first);
//!         let second = Box::new(2u64);
//!         // Under `sim` always true; without it, up to the allocator.
//!         # #[cfg(feature = "sim")]
//!         assert_ne!(&*second as *const u64, address);
//!         # let _ = (address, second);
//!     });
//! }
//! ```

#[cfg(feature = "sim")]
pub use samaritan_sim::{NoReuse, HELD_CAP};

#[cfg(not(feature = "sim"))]
pub use production::NoReuse;

#[cfg(not(feature = "sim"))]
mod production {
    use std::alloc::{GlobalAlloc, Layout, System};

    /// The global allocator for test binaries: without `sim`, the system
    /// allocator (under `sim`, memory freed during an execution is reused
    /// only after it ends).
    ///
    /// ```
    /// #[global_allocator]
    /// static ALLOC: samaritan::alloc::NoReuse = samaritan::alloc::NoReuse;
    ///
    /// fn main() {
    ///     assert_eq!(*Box::new(7), 7);
    /// }
    /// ```
    #[derive(Clone, Copy, Debug, Default)]
    pub struct NoReuse;

    // SAFETY: every method forwards to the system allocator unchanged.
    unsafe impl GlobalAlloc for NoReuse {
        #[inline]
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: the caller's contract.
            unsafe { System.alloc(layout) }
        }

        #[inline]
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            // SAFETY: the caller's contract.
            unsafe { System.alloc_zeroed(layout) }
        }

        #[inline]
        unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
            // SAFETY: the caller's contract.
            unsafe { System.dealloc(block, layout) }
        }

        #[inline]
        unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: the caller's contract.
            unsafe { System.realloc(block, layout, new_size) }
        }
    }
}
