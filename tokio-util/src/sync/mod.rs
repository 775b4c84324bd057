//! tokio-util's `sync` module; under `sim`, [`PollSender`] and
//! [`PollSemaphore`] wrap samaritan-tokio's `mpsc::Sender` and
//! `Semaphore`, which are then other types than tokio's, and
//! [`CancellationToken`] (with its guards and futures) is built on
//! samaritan's atomics, mutex and `Notify`.
//!
//! All are built only on public APIs of samaritan-tokio and samaritan, so
//! every step they take (a reservation, an acquire, a cancel, a check of
//! the flag, a wake) is a primitive's, explored inside an exploration and
//! real outside one. The rest of the module (`ReusableBoxFuture`) is
//! tokio-util's, which takes no tokio type.

mod cancellation_token;
mod poll_semaphore;
mod poll_sender;

pub use tokio_util::sync::*;

pub use cancellation_token::{
    CancellationToken, DropGuard, DropGuardRef, WaitForCancellationFuture, WaitForCancellationFutureOwned,
};
pub use poll_semaphore::PollSemaphore;
pub use poll_sender::{PollSendError, PollSender};
