//! The simulated backend: the same names as the real one, modelled.

pub(crate) mod thread;
