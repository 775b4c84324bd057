//! Sleep-set entries, with what a weak load that a write woke may still
//! read.
//!
//! A sleep set (Godefroid; the inspect paper's section 1) holds the
//! actors whose next step was explored from an earlier state: every
//! execution that takes such a step next is covered elsewhere, and it
//! stays so after steps independent of it. Two pairs of a weak load
//! ([`Op::WeakLoad`], an [`Access::Observe`]) and a write of its atomic
//! are dependent, yet a step of the pair leaves part of the sleeper
//! covered:
//!
//! - A sleeping write stays asleep after a weak load of its atomic: the
//!   load cannot have read the write (not taken yet), and a load of any
//!   other store commutes with it (the load may read that store in
//!   either order, the write's choices are untouched: the thread that
//!   loads is not known to the writer).
//! - A sleeping weak load that a write wakes is woken *partially*: it was
//!   explored, with every store it could read then, from the state where
//!   it fell asleep, step `since`; a store made before that step it could
//!   read there or never will, so the executions where it reads one are
//!   covered. Only a store made from step `since` on is new to it. It may
//!   run again, and its choice of store keeps only those
//!   ([`allowed`]); with none, the execution is covered.
//!
//! A step dependent with the sleeper in any other way wakes it fully.
//!
//! Invariant: `partial` is set only on a weak load's entry, and once set
//! stays until the entry is dropped (the actor runs or is woken fully).

use samaritan_sim::{Access, ActorId, Footprint, Pending};

/// An actor asleep along a branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sleeper {
    pub(crate) actor: ActorId,
    /// Its operation when it fell asleep.
    pub(crate) pending: Pending,
    /// The step from whose state it was explored (the index of the node
    /// it fell asleep at).
    pub(crate) since: u32,
    /// A weak load a write woke: it may run, reading only stores made at
    /// step `since` or later.
    pub(crate) partial: bool,
}

impl Sleeper {
    /// Actor `actor`, explored with `pending` from the state of step
    /// `since`.
    pub(crate) fn new(actor: ActorId, pending: Pending, since: usize) -> Sleeper {
        Sleeper { actor, pending, since: since.min(u32::MAX as usize) as u32, partial: false }
    }

    /// Whether it keeps its actor from being chosen (a partial sleeper
    /// may run).
    pub(crate) fn blocks(&self) -> bool {
        !self.partial
    }

    /// The entry after a step `taken` by `actor`: `None` when the step
    /// wakes it, else it stays asleep, partially after a write of the
    /// atomic it loads weakly (module docs).
    pub(crate) fn after(self, actor: ActorId, taken: Footprint) -> Option<Sleeper> {
        if actor == self.actor {
            return None;
        }
        let mine = self.pending.footprint();
        let mut partial = self.partial;
        for (o, a) in mine.touches() {
            for (p, b) in taken.touches() {
                if o != p || !a.conflicts(b) {
                    continue;
                }
                match (a, b) {
                    (Access::Write, Access::Observe) => {}
                    (Access::Observe, Access::Write) => partial = true,
                    _ => return None,
                }
            }
        }
        if mine.op.clock().conflicts(taken.op.clock()) || mine.fence_order().conflicts(taken.fence_order()) {
            return None;
        }
        Some(Sleeper { partial, ..self })
    }
}

/// The alternatives of a load's choice that a partial sleeper explored
/// from step `since` may take: those reading a store made at step `since`
/// or later (`sources` as [`ChoicePoint::sources`] gives them).
///
/// [`ChoicePoint::sources`]: samaritan_sim::ChoicePoint::sources
pub(crate) fn allowed(sources: &[u32], since: u32) -> Vec<u32> {
    (0..sources.len() as u32).filter(|&k| sources[k as usize] != u32::MAX && sources[k as usize] >= since).collect()
}

#[cfg(test)]
mod tests {
    use std::panic::Location;

    use samaritan_sim::{ObjectId, Op};

    use super::*;

    fn on(op: Op, object: usize) -> Pending {
        Pending::new(op, Some(ObjectId::from_index(object)), Location::caller())
    }

    #[test]
    fn a_write_wakes_a_weak_load_only_for_the_stores_after_it_fell_asleep() {
        let (load, t) = (ActorId::from_index(1), ActorId::from_index(2));
        let asleep = Sleeper::new(load, on(Op::WeakLoad, 0), 5);
        let woken = asleep.after(t, on(Op::Store, 0).footprint()).expect("partially");
        assert!(woken.partial && !woken.blocks() && woken.since == 5);
        // Other loads and other atomics leave it as it was.
        assert_eq!(asleep.after(t, on(Op::WeakLoad, 0).footprint()), Some(asleep));
        assert_eq!(asleep.after(t, on(Op::Store, 1).footprint()), Some(asleep));
        // A strong load is woken by the write (it would read it).
        assert_eq!(Sleeper::new(load, on(Op::Load, 0), 5).after(t, on(Op::Store, 0).footprint()), None);
        // Its own step ends its entry.
        assert_eq!(asleep.after(load, on(Op::Fence, 2).footprint()), None);
        // Stores from step 5 on only; the initial value never.
        assert_eq!(allowed(&[9, 5, 4, u32::MAX], 5), [0, 1]);
    }

    #[test]
    fn a_weak_load_leaves_a_sleeping_write_asleep_and_a_strong_one_wakes_it() {
        let (writer, t) = (ActorId::from_index(1), ActorId::from_index(2));
        for op in [Op::Store, Op::Rmw, Op::CompareExchange] {
            let asleep = Sleeper::new(writer, on(op, 0), 3);
            assert_eq!(asleep.after(t, on(Op::WeakLoad, 0).footprint()), Some(asleep), "{op}");
            assert_eq!(asleep.after(t, on(Op::Load, 0).footprint()), None, "{op}");
            assert_eq!(asleep.after(t, on(Op::Store, 0).footprint()), None, "{op}");
        }
    }
}
