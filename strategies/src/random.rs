//! Seeded uniform random search.
//!
//! Each decision picks uniformly among the alternatives with a xorshift64*
//! generator seeded once per exploration; the seed goes into replay tokens.
//! The search never exhausts: bound it with a number of executions or time.

use samaritan_sim::{ActorId, ChoiceError, ChoicePoint, Outcome, SchedulePoint, Strategy};

/// Seeded uniform random search.
#[derive(Debug)]
pub struct Random {
    seed: u64,
    state: u64,
}

impl Random {
    /// Creates a search drawing from `seed`.
    pub fn new(seed: u64) -> Random {
        // splitmix64 step so that small seeds give well-mixed states.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Random { seed, state: (z ^ (z >> 31)) | 1 }
    }

    fn below(&mut self, n: usize) -> usize {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        let x = self.state.wrapping_mul(0x2545_f491_4f6c_dd1d);
        (((x >> 32) * n as u64) >> 32) as usize
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
        Ok(point.enabled[self.below(point.enabled.len())])
    }

    fn choose_value(&mut self, point: &ChoicePoint) -> Result<usize, ChoiceError> {
        Ok(self.below(point.alternatives))
    }

    fn end_execution(&mut self, _outcome: &Outcome) {}

    fn seed(&self) -> Option<u64> {
        Some(self.seed)
    }
}
