//! The simulated backend: the same names as [`crate::real`], modelled.

pub(crate) mod atomic;
mod mutex;

pub use mutex::{Mutex, MutexGuard};
