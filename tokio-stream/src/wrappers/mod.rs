//! tokio-stream's `wrappers` module; under `sim`, [`ReceiverStream`],
//! [`UnboundedReceiverStream`] and [`IntervalStream`] wrap
//! samaritan-tokio's receivers and interval, which are then other types
//! than tokio's.
//!
//! Each is a thin `Stream` over the wrapped type's `poll_*` method, so
//! every step is the wrapped type's: explored inside an exploration, real
//! outside one. The rest of the module is tokio-stream's.

#[cfg(feature = "time")]
mod interval;
mod mpsc;

pub use tokio_stream::wrappers::*;

#[cfg(feature = "time")]
pub use interval::IntervalStream;
pub use mpsc::{ReceiverStream, UnboundedReceiverStream};
