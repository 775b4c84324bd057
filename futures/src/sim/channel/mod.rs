//! `futures::channel` under `sim`: `mpsc` and `oneshot` on samaritan's
//! async channels.

pub mod mpsc;
pub mod oneshot;
