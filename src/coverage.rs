//! State coverage: a test names the abstract state it is in, and an
//! exploration counts the distinct states it reached
//! (`Report::states` under `sim`).
//!
//! The state is whatever the test says it is: a hash of the variables that
//! matter, canonicalized as the test sees fit (the fair paper's Table 2
//! counts states this way, section 4.2.1). Naming a state is not a visible
//! operation: it takes no step and changes no schedule.
//!
//! ```
//! use samaritan::sync::atomic::{AtomicUsize, Ordering};
//!
//! let x = AtomicUsize::new(1);
//! samaritan::coverage::state(x.load(Ordering::SeqCst) as u64);
//! ```

/// Records that the program is in the abstract state `hash`. Outside an
/// exploration (and without `sim`) it does nothing.
#[inline]
pub fn state(hash: u64) {
    #[cfg(feature = "sim")]
    if samaritan_sim::rt::active() {
        samaritan_sim::rt::coverage_state(hash);
    }
    #[cfg(not(feature = "sim"))]
    let _ = hash;
}
