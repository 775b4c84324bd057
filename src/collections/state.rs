//! The hasher builder of samaritan's maps under `sim`: std's random keys
//! outside an exploration, fixed ones inside.
//!
//! Invariant: inside an exploration every `RandomState` builds the same
//! hasher, so a map's order follows only from its insertions.

use std::hash::{BuildHasher, DefaultHasher, Hasher};

/// The key every hasher built inside an exploration starts from.
const EXPLORATION_KEY: u64 = 0x5a3a_7b1e_c0ff_ee11;

/// Builds the hashers of [`HashMap`](super::HashMap) and
/// [`HashSet`](super::HashSet): as std's `RandomState` outside an
/// exploration; inside one, with keys that are the same in every
/// execution and replay.
///
/// ```
/// use std::hash::BuildHasher;
/// use samaritan::collections::RandomState;
///
/// let s = RandomState::new();
/// assert_eq!(s.hash_one("key"), s.hash_one("key"));
/// ```
#[derive(Clone, Debug)]
pub struct RandomState(Keys);

/// Where a [`RandomState`]'s keys come from.
#[derive(Clone, Debug)]
enum Keys {
    /// Made outside an exploration: std's random keys.
    Random(std::hash::RandomState),
    /// Made inside one.
    Exploration,
}

impl RandomState {
    /// A new builder: fixed keys when called inside an exploration, std's
    /// random ones otherwise.
    ///
    /// ```
    /// use samaritan::collections::{HashMap, RandomState};
    ///
    /// let mut m: HashMap<u8, u8> = HashMap::with_hasher(RandomState::new());
    /// m.insert(1, 2);
    /// assert_eq!(m.get(&1), Some(&2));
    /// ```
    pub fn new() -> RandomState {
        if samaritan_sim::rt::active() {
            RandomState(Keys::Exploration)
        } else {
            RandomState(Keys::Random(std::hash::RandomState::new()))
        }
    }
}

impl Default for RandomState {
    fn default() -> RandomState {
        RandomState::new()
    }
}

impl BuildHasher for RandomState {
    type Hasher = DefaultHasher;

    fn build_hasher(&self) -> DefaultHasher {
        match &self.0 {
            Keys::Random(std) => std.build_hasher(),
            Keys::Exploration => {
                // `DefaultHasher::new` is SipHash with zero keys: the same
                // in every execution; the key makes it samaritan's own.
                let mut h = DefaultHasher::new();
                h.write_u64(EXPLORATION_KEY);
                h
            }
        }
    }
}
