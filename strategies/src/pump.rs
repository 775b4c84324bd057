//! Cycle pumping: a search-order heuristic that lets depth-first search
//! reach the fair livelocks the fair scheduler is meant to report.
//!
//! A livelock that needs a context switch in every round (two philosophers
//! in lockstep, fair paper Fig. 1) is an infinite path that takes a
//! non-default alternative at every decision; depth-first search, which
//! varies the deepest decisions first, would need exponentially many
//! executions to build it up to the step bound. So when the last decisions
//! of an execution repeat one pattern three times over, the search tries
//! continuing the pattern first at a new decision. This only reorders the
//! alternatives of new decisions (every one is still tried), so it changes
//! which execution comes first, never what is explored; a pattern that is
//! not a livelock breaks by itself as the program's state moves on.

use samaritan_sim::{ActorId, SchedulePoint};

/// Longest pattern looked for, in decisions.
const MAX_PERIOD: usize = 32;

/// The decisions of the running execution, as (actor, what it did), and
/// for each period `p` how many of the latest decisions equal the one `p`
/// before them (so a prediction costs O(`MAX_PERIOD`), not its square).
#[derive(Debug)]
pub(crate) struct Pump {
    history: Vec<(u32, u64)>,
    runs: [usize; MAX_PERIOD + 1],
}

impl Default for Pump {
    fn default() -> Pump {
        Pump { history: Vec::new(), runs: [0; MAX_PERIOD + 1] }
    }
}

impl Pump {
    /// Forgets the last execution.
    pub(crate) fn clear(&mut self) {
        self.history.clear();
        self.runs = [0; MAX_PERIOD + 1];
    }

    /// Records that `actor` was chosen at `point`.
    pub(crate) fn record(&mut self, point: &SchedulePoint<'_>, actor: u32) {
        let what = point
            .pending(ActorId::from_index(actor as usize))
            .map_or(0, |p| (p.op as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (p.location as *const _ as u64));
        let n = self.history.len();
        for p in 1..=MAX_PERIOD {
            self.runs[p] = if n >= p && self.history[n - p] == (actor, what) { self.runs[p] + 1 } else { 0 };
        }
        self.history.push((actor, what));
    }

    /// Returns the actor that continues the pattern the last decisions
    /// repeat three times, if there is one: the shortest period `p` whose
    /// last `2p` decisions each equal the one `p` before.
    pub(crate) fn predict(&self) -> Option<u32> {
        let n = self.history.len();
        (1..=MAX_PERIOD.min(n / 3)).find(|&p| self.runs[p] >= 2 * p).map(|p| self.history[n - p].0)
    }
}

/// Moves `predicted` to the front of `options`, if it is there.
pub(crate) fn prefer(options: &mut [u32], predicted: Option<u32>) {
    if let Some(at) = predicted.and_then(|p| options.iter().position(|&o| o == p)) {
        options[..=at].rotate_right(1);
    }
}
