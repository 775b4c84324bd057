//! samaritan-futures' tests: futures' API in both modes (real futures in
//! production, samaritan's under `sim`, here outside an exploration), and
//! under `sim` the explorations.

mod api;
#[cfg(feature = "sim")]
mod explore;
