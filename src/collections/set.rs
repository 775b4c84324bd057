//! [`HashSet`] under `sim`: std's set with samaritan's [`RandomState`].
//!
//! Invariant: as for the map, the wrapper adds no state and reaches std's
//! methods through `Deref`/`DerefMut`.

use std::collections::hash_set;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::ops::{Deref, DerefMut};

use super::RandomState;

/// A hash set whose order is the same in every execution of a check (see
/// [the module](super)); in production, std's `HashSet` itself.
///
/// ```
/// use samaritan::collections::HashSet;
///
/// let mut s = HashSet::new();
/// assert!(s.insert(3));
/// assert!(!s.insert(3));
/// assert!(s.contains(&3));
/// ```
pub struct HashSet<T, S = RandomState> {
    inner: std::collections::HashSet<T, S>,
}

impl<T> HashSet<T, RandomState> {
    /// An empty set (as std's `HashSet::new`).
    pub fn new() -> HashSet<T, RandomState> {
        HashSet::with_hasher(RandomState::new())
    }

    /// An empty set with room for `capacity` values (as std's
    /// `HashSet::with_capacity`).
    pub fn with_capacity(capacity: usize) -> HashSet<T, RandomState> {
        HashSet::with_capacity_and_hasher(capacity, RandomState::new())
    }
}

impl<T, S> HashSet<T, S> {
    /// An empty set that hashes with `hasher` (as std's
    /// `HashSet::with_hasher`).
    pub fn with_hasher(hasher: S) -> HashSet<T, S> {
        HashSet { inner: std::collections::HashSet::with_hasher(hasher) }
    }

    /// An empty set with room for `capacity` values that hashes with
    /// `hasher` (as std's `HashSet::with_capacity_and_hasher`).
    pub fn with_capacity_and_hasher(capacity: usize, hasher: S) -> HashSet<T, S> {
        HashSet { inner: std::collections::HashSet::with_capacity_and_hasher(capacity, hasher) }
    }

    /// The std set inside.
    pub fn into_inner(self) -> std::collections::HashSet<T, S> {
        self.inner
    }
}

impl<T, S> Deref for HashSet<T, S> {
    type Target = std::collections::HashSet<T, S>;

    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

impl<T, S> DerefMut for HashSet<T, S> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.inner
    }
}

impl<T, S: Default> Default for HashSet<T, S> {
    fn default() -> HashSet<T, S> {
        HashSet::with_hasher(S::default())
    }
}

impl<T: Clone, S: Clone> Clone for HashSet<T, S> {
    fn clone(&self) -> HashSet<T, S> {
        HashSet { inner: self.inner.clone() }
    }
}

impl<T: fmt::Debug, S> fmt::Debug for HashSet<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T: Eq + Hash, S: BuildHasher> PartialEq for HashSet<T, S> {
    fn eq(&self, other: &HashSet<T, S>) -> bool {
        self.inner == other.inner
    }
}

impl<T: Eq + Hash, S: BuildHasher> Eq for HashSet<T, S> {}

impl<T: Eq + Hash, S: BuildHasher + Default> FromIterator<T> for HashSet<T, S> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> HashSet<T, S> {
        let mut set = HashSet::default();
        set.extend(iter);
        set
    }
}

impl<T: Eq + Hash, const N: usize> From<[T; N]> for HashSet<T, RandomState> {
    fn from(values: [T; N]) -> HashSet<T, RandomState> {
        values.into_iter().collect()
    }
}

impl<T: Eq + Hash, S: BuildHasher> Extend<T> for HashSet<T, S> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        self.inner.extend(iter);
    }
}

impl<'a, T: Eq + Hash + Copy + 'a, S: BuildHasher> Extend<&'a T> for HashSet<T, S> {
    fn extend<I: IntoIterator<Item = &'a T>>(&mut self, iter: I) {
        self.inner.extend(iter);
    }
}

impl<T, S> IntoIterator for HashSet<T, S> {
    type Item = T;
    type IntoIter = hash_set::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.inner.into_iter()
    }
}

impl<'a, T, S> IntoIterator for &'a HashSet<T, S> {
    type Item = &'a T;
    type IntoIter = hash_set::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.inner.iter()
    }
}
