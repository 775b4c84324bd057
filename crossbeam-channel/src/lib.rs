//! crossbeam-channel's crate name for samaritan-crossbeam's channels, so
//! that `crossbeam-channel = { package = "samaritan-crossbeam-channel",
//! ... }` switches code written against `crossbeam_channel::`: in
//! production crossbeam's channels (crossbeam-channel itself, through the
//! umbrella crate), under `sim` samaritan's model and `select!` (see
//! samaritan-crossbeam).
//!
//! ```
//! extern crate samaritan_crossbeam_channel as crossbeam_channel;
//! use crossbeam_channel::{select, unbounded};
//!
//! let (tx, rx) = unbounded();
//! tx.send(1).unwrap();
//! select! {
//!     recv(rx) -> msg => assert_eq!(msg, Ok(1)),
//! }
//! ```

pub use samaritan_crossbeam::channel::*;
pub use samaritan_crossbeam::select;
