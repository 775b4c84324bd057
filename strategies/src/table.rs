//! Hash tables keyed by small integers and by state hashes, with a
//! multiply-rotate hasher (as rustc's `FxHasher`) in place of std's
//! SipHash: the keys come from the search itself, not from an adversary,
//! and the tables are read at every scheduling point.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The hasher: one rotate, xor and multiply per word.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Mixer(u64);

const K: u64 = 0xf135_7aea_2e62_a9c5;

impl Mixer {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(26) ^ word).wrapping_mul(K);
    }
}

impl Hasher for Mixer {
    fn finish(&self) -> u64 {
        // hashbrown takes its control bits from the top: fold the well
        // mixed high half down too.
        self.0 ^ self.0 >> 32
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

/// A hash map with the [`Mixer`] hasher.
pub(crate) type Map<K, V> = HashMap<K, V, BuildHasherDefault<Mixer>>;

/// A hash set with the [`Mixer`] hasher.
pub(crate) type Set<K> = HashSet<K, BuildHasherDefault<Mixer>>;

/// Entries a search's table that only prunes or caches may hold before it
/// forgets them all (forgetting costs executions or recomputation, never
/// coverage; the table keeps its memory for what comes next): with the
/// keys and values the searches keep (8 to 24 bytes), tens of megabytes
/// to a few hundred per table, so that a long search's memory levels off
/// instead of growing with its executions (a cb-por search of a small
/// queue grew by 1.5 GB a minute).
pub(crate) const TABLE_CAP: usize = 1 << 23;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_keep_what_is_put_in_them() {
        let mut m: Map<(u64, u32), u32> = Map::default();
        for i in 0..10_000u64 {
            m.insert((i.wrapping_mul(0x9e37_79b9_7f4a_7c15), i as u32 % 7), i as u32);
        }
        assert_eq!(m.len(), 10_000);
        assert_eq!(m.get(&(3u64.wrapping_mul(0x9e37_79b9_7f4a_7c15), 3)), Some(&3));
        let s: Set<u64> = (0..100).collect();
        assert!(s.contains(&99) && !s.contains(&100));
    }
}
