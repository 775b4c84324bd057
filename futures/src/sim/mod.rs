//! futures' synchronizing parts on samaritan's (the `sim` feature).
//!
//! Invariant: every operation that synchronizes reaches samaritan through
//! its public async primitives (`async_mpsc`, `oneshot`, `AsyncMutex`) or
//! its executor, so the explorer sees it; the bookkeeping kept beside
//! them (a sender's parking, a waiting waker) changes only inside such an
//! operation's poll.

pub mod channel;
pub mod executor;
pub mod lock;
