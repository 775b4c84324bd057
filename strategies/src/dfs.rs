//! Exhaustive depth-first search over every schedule.
//!
//! The search keeps a stack of the decisions with two or more alternatives
//! made by the current execution. Each execution replays the stack's
//! choices, then extends it with first alternatives; when it ends, the
//! deepest decision that still has an untried alternative is advanced and
//! everything below it dropped. At every decision the actor that ran last is
//! tried first, so the first execution has no preemptions, unless the
//! decisions so far repeat a pattern (see the `pump` module).
//!
//! Invariant: `frames[..depth]` are the decisions of the running execution;
//! while `depth < frames.len()` the execution is replaying a known prefix,
//! and a different set of alternatives there means the program is not
//! deterministic.

use samaritan_sim::{ActorId, ChoiceError, ChoicePoint, Outcome, SchedulePoint, Strategy};

use crate::pump::{prefer, Pump};

/// One decision of a depth-first search: its alternatives and which one
/// the running execution takes.
#[derive(Debug)]
pub(crate) struct Frame {
    /// Alternatives in the order they are tried (actor indices or values).
    options: Vec<u32>,
    /// Index into `options` of the one taken now.
    taken: usize,
    /// Hash of the alternatives' pending operations, to notice a replayed
    /// prefix that offers the same actors doing different things.
    signature: u64,
}

impl Frame {
    pub(crate) fn new(options: Vec<u32>, signature: u64) -> Frame {
        Frame { options, taken: 0, signature }
    }

    /// Checks that a replayed decision offers what it offered before.
    pub(crate) fn check(&self, options: &[u32], signature: u64) -> Result<(), ChoiceError> {
        if self.signature != signature {
            return Err(ChoiceError::Nondeterminism {
                detail: "replaying the same prefix, a thread announced a different operation than before".to_string(),
            });
        }
        let mut seen = options.to_vec();
        let mut known = self.options.clone();
        seen.sort_unstable();
        known.sort_unstable();
        if seen != known {
            return Err(ChoiceError::Nondeterminism {
                detail: format!(
                    "replaying the same prefix offered alternatives {seen:?} where the earlier execution had {known:?}"
                ),
            });
        }
        Ok(())
    }

    /// The alternative taken now.
    pub(crate) fn choice(&self) -> u32 {
        self.options[self.taken]
    }

    /// Moves to the next alternative; returns `false` when none is left.
    pub(crate) fn advance(&mut self) -> bool {
        if self.taken + 1 < self.options.len() {
            self.taken += 1;
            true
        } else {
            false
        }
    }
}

/// Hashes the enabled actors' pending operations at `point`.
pub(crate) fn signature(point: &SchedulePoint<'_>) -> u64 {
    point.enabled.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, &a| {
        let p = point.pending(a).expect("an enabled actor has a pending operation");
        let mut h = (h ^ a.index() as u64).wrapping_mul(0x0100_0000_01b3);
        h = (h ^ p.op as u64).wrapping_mul(0x0100_0000_01b3);
        h = (h ^ p.object.map_or(u64::MAX, |o| o.index() as u64)).wrapping_mul(0x0100_0000_01b3);
        (h ^ (p.location as *const _ as u64)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Exhaustive depth-first search.
#[derive(Debug, Default)]
pub struct Dfs {
    frames: Vec<Frame>,
    depth: usize,
    done: bool,
    pump: Pump,
}

impl Dfs {
    /// Creates a search that has explored nothing yet.
    pub fn new() -> Dfs {
        Dfs::default()
    }

    fn decide(&mut self, options: Vec<u32>, signature: u64) -> Result<u32, ChoiceError> {
        if let Some(frame) = self.frames.get(self.depth) {
            frame.check(&options, signature)?;
        } else {
            self.frames.push(Frame::new(options, signature));
        }
        let choice = self.frames[self.depth].choice();
        self.depth += 1;
        Ok(choice)
    }
}

impl Strategy for Dfs {
    fn name(&self) -> &'static str {
        "dfs"
    }

    fn begin_execution(&mut self) -> bool {
        self.depth = 0;
        self.pump.clear();
        !self.done
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        if point.enabled.len() == 1 {
            return Ok(point.enabled[0]);
        }
        let mut options: Vec<u32> = Vec::with_capacity(point.enabled.len());
        if let Some(current) = point.current {
            options.push(current.index() as u32);
        }
        options.extend(
            point
                .enabled
                .iter()
                .map(|a| a.index() as u32)
                .filter(|&a| Some(a as usize) != point.current.map(ActorId::index)),
        );
        if self.depth == self.frames.len() {
            prefer(&mut options, self.pump.predict());
        }
        let choice = self.decide(options, signature(point))?;
        self.pump.record(point, choice);
        Ok(ActorId::from_index(choice as usize))
    }

    fn choose_value(&mut self, point: &ChoicePoint) -> Result<usize, ChoiceError> {
        let signature = point.location as *const _ as u64 ^ point.alternatives as u64;
        Ok(self.decide((0..point.alternatives as u32).collect(), signature)? as usize)
    }

    fn end_execution(&mut self, _outcome: &Outcome) {
        self.frames.truncate(self.depth);
        while let Some(frame) = self.frames.last_mut() {
            if frame.advance() {
                return;
            }
            self.frames.pop();
        }
        self.done = true;
    }

    fn exhausted(&self) -> bool {
        self.done
    }
}
