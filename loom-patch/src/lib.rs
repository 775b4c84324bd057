//! samaritan-loom under loom's own name: one `[patch.crates-io]` line
//! moves every crate of a dependency graph that uses loom onto samaritan.
//!
//! Renaming the dependency (`loom = { package = "samaritan-loom", … }`)
//! switches one crate. When a crate's loom tests also run code of its
//! dependencies that use loom under `cfg(loom)` themselves (crossbeam-epoch
//! and crossbeam-utils, async-lock and event-listener and
//! concurrent-queue), those would stay on real loom, and one test would mix
//! the two. Patching loom itself switches them all:
//!
//! ```toml
//! [patch.crates-io]
//! loom = { path = "../samaritan/loom-patch" }
//! ```
//!
//! and the suite runs as its authors run it (`RUSTFLAGS="--cfg loom" cargo
//! test --release`). Under `--cfg loom` this crate turns samaritan's
//! explorer on (samaritan-loom's `sim` feature); loom's features
//! `futures` and `checkpoint` are accepted. Everything else, and what maps
//! how, is [samaritan-loom](samaritan_loom)'s.
//!
//! ```
//! # #[cfg(any(loom, feature = "sim"))]
//! # fn main() {
//! # extern crate loom;
//! use loom::sync::atomic::{AtomicUsize, Ordering};
//! use loom::sync::Arc;
//!
//! loom::model(|| {
//!     let n = Arc::new(AtomicUsize::new(0));
//!     let m = n.clone();
//!     let t = loom::thread::spawn(move || m.fetch_add(1, Ordering::AcqRel));
//!     n.fetch_add(1, Ordering::AcqRel);
//!     t.join().unwrap();
//!     assert_eq!(n.load(Ordering::Acquire), 2);
//! });
//! # }
//! # #[cfg(not(any(loom, feature = "sim")))]
//! # fn main() {}
//! ```
#![doc(test(attr(deny(warnings))))]

#[doc(inline)]
pub use samaritan_loom::*;
