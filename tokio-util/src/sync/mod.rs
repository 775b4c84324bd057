//! tokio-util's `sync` module; under `sim`, [`PollSender`] and
//! [`PollSemaphore`] wrap samaritan-tokio's `mpsc::Sender` and
//! `Semaphore`, which are then other types than tokio's.
//!
//! Both are built only on the wrapped primitive's public API, so every
//! step they take (a reservation, an acquire, a wake) is the primitive's,
//! explored inside an exploration and real outside one. The rest of the
//! module is tokio-util's, which takes no tokio type.

mod poll_semaphore;
mod poll_sender;

pub use tokio_util::sync::*;

pub use poll_semaphore::PollSemaphore;
pub use poll_sender::{PollSendError, PollSender};
