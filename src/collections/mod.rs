//! Hash maps and sets whose iteration order a check can rely on.
//!
//! In production these are std's own `HashMap`, `HashSet` and
//! `RandomState`, re-exported: nothing changes. Under the `sim` feature a
//! std map iterates in an order that its `RandomState` draws afresh in
//! every execution, so a test whose threads take locks, send messages or
//! spawn in a map's order runs a different program each time and is
//! reported as nondeterministic (or, with a search that cannot tell,
//! explored unsoundly). Under `sim` the types here wrap std's map and set
//! with a [`RandomState`] whose keys are fixed inside an exploration: the
//! same insertions iterate in the same order in every execution, replay
//! and run, while outside an exploration the keys are std's random ones.
//!
//! Invariants:
//! - Production builds use std's types themselves (the same type, zero
//!   overhead); under `sim` [`HashMap`] and [`HashSet`] dereference to
//!   std's `HashMap<K, V, S>` and `HashSet<T, S>`, so every std method,
//!   `std::collections::hash_map::Entry` and the iterator types are std's.
//! - Inside an exploration every [`RandomState`] has the same keys; a map
//!   made outside one (before the check, or in a `static` first used
//!   outside) keeps the random keys it was made with.
//!
//! std's own `RandomState` cannot be made deterministic from outside: std
//! draws its keys from the OS once per thread, keeps them in a private
//! thread-local and advances them on every `RandomState::new`, and none
//! of that is reachable without changing the code that makes the map.
//!
//! ```
//! use samaritan::collections::HashMap;
//!
//! let mut ages: HashMap<&str, u32> = HashMap::new();
//! ages.insert("ada", 36);
//! *ages.entry("ada").or_insert(0) += 1;
//! assert_eq!(ages["ada"], 37);
//! let names: HashMap<u32, char> = [(1, 'a'), (2, 'b')].into_iter().collect();
//! assert_eq!(names.len(), 2);
//! ```

#[cfg(feature = "sim")]
mod map;
#[cfg(feature = "sim")]
mod set;
#[cfg(feature = "sim")]
mod state;

#[cfg(feature = "sim")]
pub use map::HashMap;
#[cfg(feature = "sim")]
pub use set::HashSet;
#[cfg(feature = "sim")]
pub use state::RandomState;
#[cfg(not(feature = "sim"))]
pub use std::collections::{HashMap, HashSet};
#[cfg(not(feature = "sim"))]
pub use std::hash::RandomState;
