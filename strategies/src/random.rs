//! Seeded uniform random search.
//!
//! Each decision picks uniformly among the alternatives with a xorshift64*
//! generator seeded once per exploration; the seed goes into replay tokens.
//! The search never exhausts: bound it with a number of executions or time.

use samaritan_sim::{ActorId, ChoiceError, ChoicePoint, Outcome, SchedulePoint, Strategy};

use crate::rng::Rng;

/// Seeded uniform random search.
#[derive(Debug)]
pub struct Random {
    seed: u64,
    rng: Rng,
}

impl Random {
    /// Creates a search drawing from `seed`.
    pub fn new(seed: u64) -> Random {
        Random { seed, rng: Rng::new(seed) }
    }
}

impl Strategy for Random {
    fn name(&self) -> &'static str {
        "random"
    }

    fn begin_execution(&mut self) -> bool {
        true
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        if point.enabled.len() == 1 {
            return Ok(point.enabled[0]);
        }
        Ok(point.enabled[self.rng.below(point.enabled.len())])
    }

    fn choose_value(&mut self, point: &ChoicePoint<'_>) -> Result<usize, ChoiceError> {
        Ok(self.rng.below(point.alternatives))
    }

    fn end_execution(&mut self, _outcome: &Outcome) {}

    fn seed(&self) -> Option<u64> {
        Some(self.seed)
    }
}
