//! The simulated backend: the same names as the real one, modelled.

mod local;
mod scope;
pub(crate) mod thread;
