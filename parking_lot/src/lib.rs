//! parking_lot for production and, under the `sim` feature, parking_lot's
//! locks, condition variable and `Once` on samaritan's explorer: a drop-in
//! for parking_lot users.
//!
//! # Switching
//!
//! ```toml
//! [dependencies]
//! parking_lot = { package = "samaritan-parking_lot", path = "../samaritan/parking_lot" }
//!
//! [dev-dependencies]
//! parking_lot = { package = "samaritan-parking_lot", path = "../samaritan/parking_lot", features = ["sim"] }
//! samaritan = { path = "../samaritan" }
//! ```
//!
//! The code stays as it is (`use parking_lot::Mutex; m.lock()`). Without
//! `sim` this crate *is* parking_lot: every item is a re-export. With
//! `sim`, the types are samaritan's models, written on samaritan's
//! primitives: inside an exploration every lock, unlock, wait and
//! notification is a scheduling point, a lock-order cycle is a deadlock
//! with its trace and replay token, and a timed wait may time out (an
//! explored choice, on the virtual clock); outside one they behave as
//! parking_lot's. parking_lot's semantics are kept where std's differ:
//! nothing is poisoned (a panic while a lock is held releases it), a
//! `Condvar` waits with `&mut` guard, `RwLock` has upgradable reads whose
//! upgrade no writer can come between, guards map to parts of the data.
//!
//! ```
//! extern crate samaritan_parking_lot as parking_lot;
//! use parking_lot::{Condvar, Mutex};
//! use std::sync::Arc;
//!
//! let pair = Arc::new((Mutex::new(false), Condvar::new()));
//! let other = pair.clone();
//! let t = std::thread::spawn(move || {
//!     *other.0.lock() = true;
//!     other.1.notify_one();
//! });
//! let mut ready = pair.0.lock();
//! while !*ready {
//!     pair.1.wait(&mut ready);
//! }
//! drop(ready);
//! t.join().unwrap();
//! ```
//!
//! # What does not map under `sim`
//!
//! - The `lock_api` layer (`lock_api::Mutex<R, T>` with a raw lock of
//!   one's own, `Mutex::raw`, `force_unlock`, `data_ptr`; `RawMutex` is
//!   only a name for `ArcMutexGuard<RawMutex, T>`) and, of the `arc_lock`
//!   guards, all but `Mutex::lock_arc`'s `ArcMutexGuard`
//!   (`ArcRwLock*Guard`, `ArcReentrantMutexGuard`).
//! - Guards are `Send` (parking_lot's are only with `send_guard`).
//! - `FairMutex` is `Mutex` and `unlock_fair` an unlock: the explorer
//!   also runs the schedules where another thread takes the lock before
//!   the waiter it would have been handed to.
//! - `Mutex::try_lock_for`/`try_lock_until` try, wait out the time on the
//!   virtual clock, and try again: the lock freed and taken back by
//!   others within the wait is not tried in between.
//! - `Condvar::notify_one`/`notify_all` say whether (how many) threads
//!   were waiting, counting a waiter already notified that has not woken.
//! - `Once::state` is `New` or `Done` (never `InProgress` or `Poisoned`).
//! - `Mutex::is_locked` and `RwLock::is_locked` are a `try_lock` (a step
//!   that takes and gives back the lock when free).
//! - A `Condvar` waits with a `MutexGuard` of a sized value only.

#[cfg(feature = "sim")]
mod sim;

#[cfg(not(feature = "sim"))]
pub use parking_lot::*;
#[cfg(feature = "sim")]
pub use sim::*;
