//! Names for the values of data choices that mean the same in every order
//! of the steps before them, for state hashes.
//!
//! A choice's value is an index: for a load's choice of store, the `k`-th
//! newest store it may read. When the reductions let a weak load and the
//! stores of its atomic taken before it run in either order
//! ([`Access::Observe`]), the same store has another index in each order
//! (a store taken before the load is newer than the one the load reads),
//! and a state hash that named the read by index would give one state
//! two names, and two states one. So a load's value is named by the store
//! it reads: the actor that made it and that store's place among the
//! actor's steps (the POR paper's canonical action names a read by the
//! write it reads, por-for-context-bounded-search.txt, section 3.3). Every
//! other choice keeps its index, which its own dependency makes
//! meaningful.
//!
//! Invariant: the labels of the alternatives of one choice are distinct,
//! and a label of a store never equals the label of an index (bit 63).
//!
//! [`Access::Observe`]: samaritan_sim::Access::Observe

use samaritan_sim::ChoicePoint;

use crate::hb::History;
use crate::table::Map;

/// The label of a read of a value no step of the execution made (the
/// initial one).
const INITIAL: u64 = u64::MAX;

/// Marks the label of a store (its actor and place), apart from indices.
const STORE: u64 = 1 << 63;

/// The data choices of the running execution, by step: how many values
/// each had and, for a load's, their labels.
#[derive(Debug, Default)]
pub(crate) struct Labels {
    choices: Map<usize, Choice>,
    /// Per weak load, by step: the label of the store it read.
    reads: Map<usize, u64>,
}

#[derive(Debug)]
struct Choice {
    alternatives: u32,
    /// Per alternative, its label; `None` when the index is the label.
    stores: Option<Vec<u64>>,
    /// Whether it is a fault the platform injects ([`ChoicePoint::fault`]).
    fault: bool,
}

impl Labels {
    /// Forgets the last execution's choices.
    pub(crate) fn clear(&mut self) {
        self.choices.clear();
        self.reads.clear();
    }

    /// Records that the weak load at step `step` read the store made at
    /// step `source` (an event of `history`; `u32::MAX` for none).
    pub(crate) fn read(&mut self, step: usize, source: u32, history: &History) {
        self.reads.insert(step, store_label(source, history));
    }

    /// The label of the store the weak load at step `step` read, once
    /// [`Labels::read`] said.
    pub(crate) fn read_at(&self, step: usize) -> Option<u64> {
        self.reads.get(&step).copied()
    }

    /// The labels of the values of the choice at step `step`, if they name
    /// stores (a load's choice).
    pub(crate) fn stores(&self, step: usize) -> Option<&[u64]> {
        self.choices.get(&step).and_then(|c| c.stores.as_deref())
    }

    /// Records the choice `point` made at step `step`, naming a load's
    /// alternatives by the stores they read (events of `history`, which
    /// holds every step before).
    pub(crate) fn record(&mut self, step: usize, point: &ChoicePoint<'_>, history: &History) {
        let stores = point.sources.map(|sources| sources.iter().map(|&s| store_label(s, history)).collect());
        self.choices.insert(step, Choice { alternatives: point.alternatives as u32, stores, fault: point.fault });
    }

    /// How many values the choice at step `step` had (1 for a step that
    /// was no choice).
    pub(crate) fn alternatives(&self, step: usize) -> u32 {
        self.choices.get(&step).map_or(1, |c| c.alternatives.max(1))
    }

    /// The preemptions value `value` of the choice at step `step` costs: 1
    /// for a fault taken ([`ChoicePoint::fault`]), else 0.
    pub(crate) fn cost(&self, step: usize, value: u32) -> u32 {
        u32::from(value > 0 && self.choices.get(&step).is_some_and(|c| c.fault))
    }

    /// The label of value `value` of the choice at step `step`.
    pub(crate) fn of(&self, step: usize, value: u32) -> u64 {
        match self.choices.get(&step).and_then(|c| c.stores.as_ref()) {
            Some(stores) => stores.get(value as usize).copied().unwrap_or(u64::from(value)),
            None => u64::from(value),
        }
    }
}

/// The label of the store made at step `source`: its actor and its place
/// among that actor's steps.
fn store_label(source: u32, history: &History) -> u64 {
    match history.events.get(source as usize) {
        Some(e) if source != u32::MAX => STORE | u64::from(e.seq) << 24 | e.actor.index() as u64 & 0xff_ffff,
        _ => INITIAL,
    }
}

#[cfg(test)]
mod tests {
    use std::panic::Location;

    use samaritan_sim::{ActorId, ObjectId, Op, Pending, Step};

    use super::*;

    #[test]
    fn a_store_is_named_alike_whatever_came_before_it() {
        let at = Location::caller();
        let step = |i: u64, a: usize, op| {
            Step::new(i, ActorId::from_index(a), Pending::new(op, Some(ObjectId::from_index(0)), at), None)
        };
        // Two orders of one store (t1's second step) and another actor's
        // step: the store has another index, the same label.
        let mut first = History::default();
        for s in [step(0, 1, Op::Yield), step(1, 1, Op::Store), step(2, 2, Op::Yield)] {
            first.push(&s);
        }
        let mut second = History::default();
        for s in [step(0, 2, Op::Yield), step(1, 1, Op::Yield), step(2, 1, Op::Store)] {
            second.push(&s);
        }
        assert_eq!(store_label(1, &first), store_label(2, &second));
        assert_ne!(store_label(1, &first), store_label(0, &first));
        assert_eq!(store_label(u32::MAX, &first), INITIAL);
        assert_ne!(store_label(1, &first) & STORE, 0);
    }
}
