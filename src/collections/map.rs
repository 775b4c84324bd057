//! [`HashMap`] under `sim`: std's map with samaritan's [`RandomState`].
//!
//! Invariant: the wrapper adds no state; every method std's map has is
//! reached through `Deref`/`DerefMut`, and the constructors and traits std
//! implements for `HashMap<K, V, RandomState>` are here for samaritan's.

use std::borrow::Borrow;
use std::collections::hash_map;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::ops::{Deref, DerefMut, Index};

use super::RandomState;

/// A hash map whose order is the same in every execution of a check (see
/// [the module](super)); in production, std's `HashMap` itself.
///
/// ```
/// use samaritan::collections::HashMap;
///
/// let mut m = HashMap::new();
/// m.insert("a", 1);
/// m.insert("b", 2);
/// let mut keys: Vec<_> = m.keys().copied().collect();
/// keys.sort();
/// assert_eq!(keys, ["a", "b"]);
/// ```
pub struct HashMap<K, V, S = RandomState> {
    inner: std::collections::HashMap<K, V, S>,
}

impl<K, V> HashMap<K, V, RandomState> {
    /// An empty map (as std's `HashMap::new`).
    pub fn new() -> HashMap<K, V, RandomState> {
        HashMap::with_hasher(RandomState::new())
    }

    /// An empty map with room for `capacity` entries (as std's
    /// `HashMap::with_capacity`).
    pub fn with_capacity(capacity: usize) -> HashMap<K, V, RandomState> {
        HashMap::with_capacity_and_hasher(capacity, RandomState::new())
    }
}

impl<K, V, S> HashMap<K, V, S> {
    /// An empty map that hashes with `hasher` (as std's
    /// `HashMap::with_hasher`).
    pub fn with_hasher(hasher: S) -> HashMap<K, V, S> {
        HashMap { inner: std::collections::HashMap::with_hasher(hasher) }
    }

    /// An empty map with room for `capacity` entries that hashes with
    /// `hasher` (as std's `HashMap::with_capacity_and_hasher`).
    pub fn with_capacity_and_hasher(capacity: usize, hasher: S) -> HashMap<K, V, S> {
        HashMap { inner: std::collections::HashMap::with_capacity_and_hasher(capacity, hasher) }
    }

    /// The std map inside.
    pub fn into_inner(self) -> std::collections::HashMap<K, V, S> {
        self.inner
    }
}

impl<K, V, S> Deref for HashMap<K, V, S> {
    type Target = std::collections::HashMap<K, V, S>;

    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

impl<K, V, S> DerefMut for HashMap<K, V, S> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.inner
    }
}

impl<K, V, S: Default> Default for HashMap<K, V, S> {
    fn default() -> HashMap<K, V, S> {
        HashMap::with_hasher(S::default())
    }
}

impl<K: Clone, V: Clone, S: Clone> Clone for HashMap<K, V, S> {
    fn clone(&self) -> HashMap<K, V, S> {
        HashMap { inner: self.inner.clone() }
    }
}

impl<K: fmt::Debug, V: fmt::Debug, S> fmt::Debug for HashMap<K, V, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<K: Eq + Hash, V: PartialEq, S: BuildHasher> PartialEq for HashMap<K, V, S> {
    fn eq(&self, other: &HashMap<K, V, S>) -> bool {
        self.inner == other.inner
    }
}

impl<K: Eq + Hash, V: Eq, S: BuildHasher> Eq for HashMap<K, V, S> {}

impl<K, Q, V, S> Index<&Q> for HashMap<K, V, S>
where
    K: Eq + Hash + Borrow<Q>,
    Q: Eq + Hash + ?Sized,
    S: BuildHasher,
{
    type Output = V;

    fn index(&self, key: &Q) -> &V {
        &self.inner[key]
    }
}

impl<K: Eq + Hash, V, S: BuildHasher + Default> FromIterator<(K, V)> for HashMap<K, V, S> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> HashMap<K, V, S> {
        let mut map = HashMap::default();
        map.extend(iter);
        map
    }
}

impl<K: Eq + Hash, V, const N: usize> From<[(K, V); N]> for HashMap<K, V, RandomState> {
    fn from(entries: [(K, V); N]) -> HashMap<K, V, RandomState> {
        entries.into_iter().collect()
    }
}

impl<K: Eq + Hash, V, S: BuildHasher> Extend<(K, V)> for HashMap<K, V, S> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        self.inner.extend(iter);
    }
}

impl<'a, K: Eq + Hash + Copy, V: Copy, S: BuildHasher> Extend<(&'a K, &'a V)> for HashMap<K, V, S> {
    fn extend<I: IntoIterator<Item = (&'a K, &'a V)>>(&mut self, iter: I) {
        self.inner.extend(iter);
    }
}

impl<K, V, S> IntoIterator for HashMap<K, V, S> {
    type Item = (K, V);
    type IntoIter = hash_map::IntoIter<K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.inner.into_iter()
    }
}

impl<'a, K, V, S> IntoIterator for &'a HashMap<K, V, S> {
    type Item = (&'a K, &'a V);
    type IntoIter = hash_map::Iter<'a, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.inner.iter()
    }
}

impl<'a, K, V, S> IntoIterator for &'a mut HashMap<K, V, S> {
    type Item = (&'a K, &'a mut V);
    type IntoIter = hash_map::IterMut<'a, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.inner.iter_mut()
    }
}
