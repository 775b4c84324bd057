//! Drop-in threads and sync primitives that production code runs on, and
//! that a deterministic scheduler explores under the `sim` feature.
//!
//! ```
//! use samaritan::sync::atomic::{AtomicUsize, Ordering};
//! use samaritan::sync::Arc;
//! use samaritan::thread;
//!
//! samaritan::check(|| {
//!     let n = Arc::new(AtomicUsize::new(0));
//!     let handles: Vec<_> = (0..2)
//!         .map(|_| {
//!             let n = n.clone();
//!             thread::spawn(move || {
//!                 n.fetch_add(1, Ordering::SeqCst);
//!             })
//!         })
//!         .collect();
//!     for h in handles {
//!         h.join().unwrap();
//!     }
//!     assert_eq!(n.load(Ordering::SeqCst), 2);
//! });
//! ```
//!
//! Without `sim`, `check` runs the closure once and every type is std's.
//! With `sim` (put it in `[dev-dependencies]`), `check` runs the closure
//! once per schedule until every schedule has been explored or one fails,
//! and a failure panics with a trace and a replay token.
#![doc(test(attr(deny(warnings))))]

#[cfg(feature = "sim")]
mod check;
#[cfg(feature = "sim")]
pub mod env;
#[cfg(not(feature = "sim"))]
mod production;

#[cfg(feature = "sim")]
pub use check::{check, replay, Builder, Error, SearchStrategy};
#[cfg(not(feature = "sim"))]
pub use production::check;

#[cfg(feature = "sim")]
pub use samaritan_sim::{BlockedActor, Deadlock, Failure, Op, Outcome, Report, Schedule, TokenError, Trace, TraceLine};

pub use samaritan_runtime::{hint, thread, thread_local};
pub use samaritan_sync as sync;
