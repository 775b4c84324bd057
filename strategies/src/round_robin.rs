//! Round robin: switch at every scheduling point.
//!
//! Picks the next enabled actor after the current one in id order, so every
//! step with two or more enabled actors is a context switch. One execution
//! is the whole search. Useful as a stress schedule and to measure the cost
//! of a switch.

use samaritan_sim::{ActorId, ChoiceError, ChoicePoint, Outcome, SchedulePoint, Strategy};

/// Switch at every scheduling point.
#[derive(Debug, Default)]
pub struct RoundRobin {
    started: bool,
}

impl RoundRobin {
    /// Creates the strategy.
    pub fn new() -> RoundRobin {
        RoundRobin::default()
    }
}

impl Strategy for RoundRobin {
    fn name(&self) -> &'static str {
        "round-robin"
    }

    fn begin_execution(&mut self) -> bool {
        !std::mem::replace(&mut self.started, true)
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        let after = point.current.map_or(0, |c| c.index() + 1);
        let next = point.enabled.iter().find(|a| a.index() >= after).unwrap_or(&point.enabled[0]);
        Ok(*next)
    }

    fn choose_value(&mut self, _point: &ChoicePoint<'_>) -> Result<usize, ChoiceError> {
        Ok(0)
    }

    fn end_execution(&mut self, _outcome: &Outcome) {}

    fn exhausted(&self) -> bool {
        self.started
    }
}
