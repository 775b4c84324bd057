//! A set of actors: one bit each, the first 64 in a word of their own, so
//! that the sets a search keeps per step (enabled, backtrack, done) cost no
//! allocation in programs of up to 64 threads.

use samaritan_sim::ActorId;

/// A set of actors (16 bytes while every actor is below 64).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ActorSet {
    /// Actors 0 to 63.
    low: u64,
    /// Actors from 64 on, 64 to a word. Boxed so that the set stays two
    /// words (a node of a search holds several).
    #[allow(clippy::box_collection)]
    high: Option<Box<Vec<u64>>>,
}

impl ActorSet {
    /// The set of the given actors.
    pub(crate) fn of(actors: &[ActorId]) -> ActorSet {
        let mut set = ActorSet::default();
        for &a in actors {
            set.insert(a);
        }
        set
    }

    fn place(a: ActorId) -> (usize, u64) {
        (a.index() / 64, 1 << (a.index() % 64))
    }

    pub(crate) fn insert(&mut self, a: ActorId) {
        match ActorSet::place(a) {
            (0, bit) => self.low |= bit,
            (w, bit) => {
                let high = self.high.get_or_insert_with(Box::default);
                if high.len() < w {
                    high.resize(w, 0);
                }
                high[w - 1] |= bit;
            }
        }
    }

    pub(crate) fn contains(&self, a: ActorId) -> bool {
        match ActorSet::place(a) {
            (0, bit) => self.low & bit != 0,
            (w, bit) => self.high.as_ref().and_then(|h| h.get(w - 1)).is_some_and(|word| word & bit != 0),
        }
    }

    pub(crate) fn remove(&mut self, a: ActorId) {
        match ActorSet::place(a) {
            (0, bit) => self.low &= !bit,
            (w, bit) => {
                if let Some(word) = self.high.as_mut().and_then(|h| h.get_mut(w - 1)) {
                    *word &= !bit;
                }
            }
        }
    }

    /// Adds every actor of `other`.
    pub(crate) fn union(&mut self, other: &ActorSet) {
        for a in other.iter() {
            self.insert(a);
        }
    }

    /// The actors, in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = ActorId> + '_ {
        std::iter::once(self.low).chain(self.high.iter().flat_map(|h| h.iter().copied())).enumerate().flat_map(
            |(w, mut word)| {
                std::iter::from_fn(move || {
                    if word == 0 {
                        return None;
                    }
                    let bit = word.trailing_zeros() as usize;
                    word &= word - 1;
                    Some(ActorId::from_index(w * 64 + bit))
                })
            },
        )
    }

    /// Whether the set holds exactly the actors of `actors` (in id order).
    pub(crate) fn equals(&self, actors: &[ActorId]) -> bool {
        self.iter().eq(actors.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_hold_actors_past_the_first_word() {
        let ids: Vec<ActorId> = [0, 3, 63, 64, 200].into_iter().map(ActorId::from_index).collect();
        let set = ActorSet::of(&ids);
        assert_eq!(set.iter().collect::<Vec<_>>(), ids);
        assert!(set.contains(ActorId::from_index(200)) && !set.contains(ActorId::from_index(199)));
        assert!(set.equals(&ids) && !set.equals(&ids[..4]));
        assert_eq!(ActorSet::of(&ids[..3]).high, None);
        assert_eq!(std::mem::size_of::<ActorSet>(), 16);
        let mut set = set;
        set.remove(ActorId::from_index(64));
        set.remove(ActorId::from_index(3));
        set.union(&ActorSet::of(&[ActorId::from_index(5)]));
        let left: Vec<usize> = set.iter().map(|a| a.index()).collect();
        assert_eq!(left, [0, 5, 63, 200]);
    }
}
