//! What a DPOR search under a preemption bound needs beside DPOR itself:
//! the price of each choice and where the bound makes a race reversal look
//! for a cheaper place.
//!
//! Coons, Musuvathi and McKinley, "Bounded partial-order reduction"
//! (OOPSLA 2013), the algorithm loom runs when `LOOM_MAX_PREEMPTIONS` is
//! set (its `rt/path.rs`). DPOR that simply refuses backtrack choices
//! beyond the bound misses executions the bound allows: the bound makes
//! steps dependent that the program does not (reversing a race may be
//! affordable only if the other thread runs earlier, where a context
//! switch happens anyway). So besides the backtrack point of each race,
//! the search adds one at the latest context switch before it (the paper's
//! conservative backtrack point), where scheduling the racing thread costs
//! no more than the switch already made there. Sleep sets are left out:
//! with a bound they prune executions that only a pruned branch covered
//! (por-for-context-bounded-search.txt, section 1, Fig. 1).
//!
//! One more departure from unbounded DPOR, ours: a step races with every
//! earlier dependent step it does not come after, not only with the latest
//! before its actor's previous step. Unbounded, reversing the latest race
//! leads to executions where the earlier ones are the latest; when the
//! bound refuses that reversal, those executions never run, and the
//! earlier races are reversed nowhere. Found on three threads that drop
//! one `Arc` at bound 0: without it the first thread's drop is never the
//! last (`tests/reduction_agreement.rs`). On published loom suites it
//! adds under 0.1% of the executions.
//!
//! The price of a choice is the one iterative context bounding charges
//! (`icb.rs`): a switch away from an actor that could have gone on and did
//! not just yield costs a preemption, and so does a fault the platform
//! injects (a spurious wake-up or failure). A user's bound thus means here
//! what it means to `icb` and `cb-por`, and, as in loom, no choice beyond
//! it is ever taken.

use samaritan_sim::ActorId;

/// What choosing at one node of the search costs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Price {
    /// Preemptions spent on the way to the node.
    pub(crate) spent: u32,
    /// How the node's choices are charged.
    pub(crate) charge: Charge,
}

/// How a node's choices are charged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Charge {
    /// A choice of actor where none could have gone on (it blocked,
    /// finished, yielded or was made to give way): every one is free.
    #[default]
    Anyone,
    /// A choice of actor where this one could have gone on: any other
    /// costs a preemption.
    Running(ActorId),
    /// A data choice (a load's choice of store, a timeout): free.
    Data,
    /// A fault the platform may inject: value 1, the fault, costs one.
    Fault,
}

impl Price {
    /// What taking `choice` (an actor's index, or a value) costs here.
    pub(crate) fn cost(&self, choice: u32) -> u32 {
        match self.charge {
            Charge::Anyone | Charge::Data => 0,
            Charge::Running(a) => u32::from(a.index() as u32 != choice),
            Charge::Fault => u32::from(choice == 1),
        }
    }

    /// The preemptions spent once `choice` is taken here: the next node's
    /// [`Price::spent`].
    pub(crate) fn after(&self, choice: u32) -> u32 {
        self.spent + self.cost(choice)
    }

    /// Whether `choice` may be taken here under `bound` (always, without
    /// one).
    pub(crate) fn fits(&self, choice: u32, bound: Option<Bound>) -> bool {
        bound.is_none_or(|b| {
            let spent_out =
                b.loom && self.spent >= b.preemptions && matches!(self.charge, Charge::Running(_) | Charge::Anyone);
            self.after(choice) <= b.preemptions && !spent_out
        })
    }
}

/// A preemption bound, and how it is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bound {
    /// The most preemptions an execution may take.
    pub(crate) preemptions: u32,
    /// Whether the bound, once spent, also ends every other choice of
    /// actor, free ones included, as loom's does (its `Schedule::backtrack`
    /// adds nothing to a point whose execution has spent the bound): after
    /// its last preemption an execution lets the default actor go (the
    /// running one while it can, else the first that may) at every switch.
    /// Data choices stay explored.
    pub(crate) loom: bool,
}

/// The conservative backtrack point of a race whose earlier step is step
/// `i`: the latest step before it at which another actor than the one
/// before took over (or the first step), given who took each step. `None`
/// for the first step, which has nothing before it.
pub(crate) fn switch_before(i: usize, actor_of: impl Fn(usize) -> ActorId) -> Option<usize> {
    (0..i).rev().find(|&j| j == 0 || actor_of(j) != actor_of(j - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(i: usize) -> ActorId {
        ActorId::from_index(i)
    }

    #[test]
    fn a_switch_away_from_the_running_actor_and_a_fault_cost_one_preemption() {
        let running = Price { spent: 1, charge: Charge::Running(a(2)) };
        assert_eq!((running.cost(2), running.cost(0), running.after(0)), (0, 1, 2));
        let bound = |preemptions| Some(Bound { preemptions, loom: false });
        assert!(running.fits(0, bound(2)) && !running.fits(0, bound(1)) && running.fits(2, bound(1)));
        assert!(running.fits(0, None));
        let fault = Price { spent: 2, charge: Charge::Fault };
        assert_eq!((fault.cost(0), fault.cost(1)), (0, 1));
        assert!(fault.fits(0, bound(2)) && !fault.fits(1, bound(2)));
        let anyone = Price { spent: 2, charge: Charge::Anyone };
        assert_eq!(anyone.after(5), 2);
        assert!(anyone.fits(5, bound(2)));
    }

    #[test]
    fn loom_s_bound_once_spent_ends_every_other_choice_of_actor_but_no_data_choice() {
        let loom = |preemptions| Some(Bound { preemptions, loom: true });
        // Spent: not even a free switch, nor the running actor's own
        // alternative, is taken; a load's choice of store still is.
        assert!(!Price { spent: 1, charge: Charge::Anyone }.fits(3, loom(1)));
        assert!(!Price { spent: 1, charge: Charge::Running(a(0)) }.fits(0, loom(1)));
        assert!(Price { spent: 1, charge: Charge::Data }.fits(2, loom(1)));
        assert!(!Price { spent: 1, charge: Charge::Fault }.fits(1, loom(1)));
        // Not yet spent: as the bound counts without loom's rule.
        assert!(Price { spent: 0, charge: Charge::Running(a(0)) }.fits(1, loom(1)));
        assert!(Price { spent: 0, charge: Charge::Anyone }.fits(3, loom(1)));
    }

    #[test]
    fn the_conservative_point_is_the_latest_switch_before_the_race() {
        // Steps by t0 t0 t1 t1 t1 t0.
        let actors = [0, 0, 1, 1, 1, 0];
        let of = |j: usize| a(actors[j]);
        assert_eq!(switch_before(4, of), Some(2));
        assert_eq!(switch_before(3, of), Some(2));
        assert_eq!(switch_before(2, of), Some(0));
        assert_eq!(switch_before(6, of), Some(5));
        assert_eq!(switch_before(1, of), Some(0));
        assert_eq!(switch_before(0, of), None);
    }
}
