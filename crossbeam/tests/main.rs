//! samaritan-crossbeam's tests: crossbeam's API in both modes (real
//! crossbeam in production, samaritan's models under `sim`, here outside
//! an exploration), and under `sim` the explorations.

mod api;
#[cfg(feature = "sim")]
mod explore;
