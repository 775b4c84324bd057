//! samaritan-parking_lot's tests: parking_lot's API in both modes (real
//! parking_lot in production, samaritan's models under `sim`, here outside
//! an exploration), and under `sim` the explorations.

mod api;
#[cfg(feature = "sim")]
mod explore;
