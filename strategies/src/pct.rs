//! Probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi,
//! Nagarakatte, ASPLOS 2010), for bugs of depth `d`.
//!
//! Each execution gives every actor a random priority of at least `d` and
//! picks `d - 1` priority change points among the steps `1..=k`; it always
//! runs the enabled actor of highest priority, and when the execution
//! passes the `i`-th change point, the actor that ran last drops to
//! priority `i` (below every initial priority). A bug that needs `d`
//! ordering constraints among `n` actors is then found by one execution
//! with probability at least `1 / (n * k^(d-1))`.
//!
//! Adaptations:
//! - Actors are created as the execution runs, so each gets its random
//!   priority when it first appears at a scheduling point.
//! - `k` is not known before the first execution: it starts at 64 and then
//!   is the longest execution seen (up to its last scheduling point).
//! - The strategy is consulted only where two or more actors may run, so a
//!   change point that falls on a forced step takes effect at the next
//!   scheduling point, on the actor that ran last.
//! - Data choices (a timeout, a spurious failure) are uniform.
//!
//! The search never exhausts: bound it with a number of executions or time.
//! The seed goes into replay tokens.

use samaritan_sim::{ActorId, ChoiceError, ChoicePoint, Outcome, SchedulePoint, Strategy};

use crate::rng::Rng;

/// Priority-based randomized search for bugs of a given depth.
#[derive(Debug)]
pub struct Pct {
    seed: u64,
    rng: Rng,
    depth: u32,
    /// Estimate of the steps in an execution: 64 before the first one,
    /// then the longest seen.
    k: u64,
    /// The longest execution seen, in steps (as far as scheduling points
    /// show it).
    longest: u64,
    /// Priority of each actor seen so far in this execution.
    priorities: Vec<u64>,
    /// Steps at which a change point fires, ascending, with the priority it
    /// gives.
    changes: Vec<(u64, u64)>,
    fired: usize,
    last: Option<ActorId>,
}

impl Pct {
    /// The deepest bug PCT looks for. Each execution draws `depth - 1`
    /// change points, so the depth is memory and time spent per execution,
    /// and what PCT promises for a bug of depth `d`, that one execution
    /// finds it with probability at least `1 / (n * k^(d-1))`, is below
    /// `2^-63` past this depth (an execution with a choice has `k >= 2`
    /// steps): nothing a search could use.
    pub const MAX_DEPTH: u32 = 64;

    /// Creates a search for bugs of depth `depth` drawing from `seed`; the
    /// depth is clamped to `1..=`[`Pct::MAX_DEPTH`].
    pub fn new(seed: u64, depth: u32) -> Pct {
        Pct {
            seed,
            rng: Rng::new(seed),
            depth: depth.clamp(1, Pct::MAX_DEPTH),
            k: 64,
            longest: 0,
            priorities: Vec::new(),
            changes: Vec::new(),
            fired: 0,
            last: None,
        }
    }

    /// Gives a random initial priority to the actors not seen yet: above
    /// every change-point priority, distinct (ties broken by id).
    fn meet(&mut self, actors: usize) {
        while self.priorities.len() < actors {
            let index = self.priorities.len() as u64;
            let random = self.rng.next_u64() >> 40;
            self.priorities.push((u64::from(self.depth) + random) << 16 | index);
        }
    }
}

impl Strategy for Pct {
    fn name(&self) -> &'static str {
        "pct"
    }

    fn begin_execution(&mut self) -> bool {
        self.priorities.clear();
        self.changes.clear();
        self.fired = 0;
        self.last = None;
        // Change point k_i gives priority i (Burckhardt et al., Fig. 2): the
        // points are drawn independently, so a later one may rank below an
        // earlier one; they are sorted only by when they fire.
        for i in 1..u64::from(self.depth) {
            let at = 1 + self.rng.next_u64() % self.k;
            self.changes.push((at, i << 16));
        }
        self.changes.sort_unstable_by_key(|c| c.0);
        true
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        self.meet(point.actors.len());
        self.longest = self.longest.max(point.step + 1);
        while let Some(&(at, priority)) = self.changes.get(self.fired) {
            if at > point.step {
                break;
            }
            if let Some(runner) = point.current.or(self.last) {
                self.priorities[runner.index()] = priority | runner.index() as u64;
            }
            self.fired += 1;
        }
        let chosen = *point
            .enabled
            .iter()
            .max_by_key(|a| self.priorities[a.index()])
            .expect("a scheduling point has enabled actors");
        self.last = Some(chosen);
        Ok(chosen)
    }

    fn choose_value(&mut self, point: &ChoicePoint<'_>) -> Result<usize, ChoiceError> {
        self.longest = self.longest.max(point.step + 1);
        Ok(self.rng.below(point.alternatives))
    }

    fn end_execution(&mut self, _outcome: &Outcome) {
        if self.longest > 0 {
            self.k = self.longest;
        }
    }

    fn seed(&self) -> Option<u64> {
        Some(self.seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absurd_depth_is_clamped_to_the_deepest_one() {
        let mut pct = Pct::new(7, u32::MAX);
        assert!(pct.begin_execution());
        assert_eq!((pct.depth, pct.changes.len()), (64, 63));
        let mut pct = Pct::new(7, 0);
        assert!(pct.begin_execution());
        assert_eq!((pct.depth, pct.changes.len()), (1, 0));
    }
}
