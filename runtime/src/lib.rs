//! samaritan's threads: std in production, engine actors under `sim`.

#[cfg(feature = "sim")]
mod simulated;

/// Threads; same API as [`std::thread`].
pub mod thread {
    #[cfg(not(feature = "sim"))]
    pub use std::thread::{sleep, spawn, yield_now, Builder, JoinHandle};

    #[cfg(feature = "sim")]
    pub use crate::simulated::thread::{sleep, spawn, yield_now, Builder, JoinHandle};

    pub use std::thread::Result;
}

/// Hints to the processor; same API as [`std::hint`].
pub mod hint {
    /// Signals a busy-wait loop; a yielding scheduling point under `sim`.
    #[track_caller]
    #[inline]
    pub fn spin_loop() {
        #[cfg(feature = "sim")]
        if samaritan_sim::rt::active() {
            samaritan_sim::rt::step(samaritan_sim::Op::SpinLoop, None, std::panic::Location::caller());
            return;
        }
        std::hint::spin_loop();
    }
}
