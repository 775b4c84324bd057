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
struct Frame {
    /// Alternatives in the order they are tried (actor indices or values).
    options: Vec<u32>,
    /// Index into `options` of the one taken now.
    taken: usize,
    /// Hash of the alternatives' pending operations, to notice a replayed
    /// prefix that offers the same actors doing different things.
    signature: u64,
}

impl Frame {
    fn new(options: Vec<u32>, signature: u64) -> Frame {
        Frame { options, taken: 0, signature }
    }

    /// Checks that a replayed decision offers what it offered before.
    fn check(&self, options: &[u32], signature: u64) -> Result<(), ChoiceError> {
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
    fn choice(&self) -> u32 {
        self.options[self.taken]
    }

    /// Moves to the next alternative; returns `false` when none is left.
    fn advance(&mut self) -> bool {
        if self.taken + 1 < self.options.len() {
            self.taken += 1;
            true
        } else {
            false
        }
    }
}

/// The stack of decisions of a depth-first search (what [`Dfs`] and the
/// free choices of ICB walk): `frames[..depth]` are the running execution's.
#[derive(Debug, Default)]
pub(crate) struct Frames {
    frames: Vec<Frame>,
    depth: usize,
}

impl Frames {
    /// Starts the next execution from the first decision.
    pub(crate) fn begin(&mut self) {
        self.depth = 0;
    }

    /// Forgets every decision.
    pub(crate) fn clear(&mut self) {
        self.frames.clear();
        self.depth = 0;
    }

    /// Returns whether the next decision is met for the first time (not a
    /// replay of a known prefix).
    pub(crate) fn is_new(&self) -> bool {
        self.depth == self.frames.len()
    }

    /// Takes the next decision: the known one when replaying (checking it
    /// offers what it did), else the first of `options`.
    pub(crate) fn decide(&mut self, options: Vec<u32>, signature: u64) -> Result<u32, ChoiceError> {
        if let Some(frame) = self.frames.get(self.depth) {
            frame.check(&options, signature)?;
        } else {
            self.frames.push(Frame::new(options, signature));
        }
        let choice = self.frames[self.depth].choice();
        self.depth += 1;
        Ok(choice)
    }

    /// After an execution: advances the deepest decision that has an
    /// untried alternative, dropping those below; returns `false` when
    /// every alternative has been tried.
    pub(crate) fn backtrack(&mut self) -> bool {
        self.frames.truncate(self.depth);
        while let Some(frame) = self.frames.last_mut() {
            if frame.advance() {
                return true;
            }
            self.frames.pop();
        }
        false
    }
}

/// The enabled actors at `point`, the one that ran last first (so the
/// first alternative never preempts).
pub(crate) fn current_first(point: &SchedulePoint<'_>) -> Vec<u32> {
    let current = point.current.map(ActorId::index);
    let mut options: Vec<u32> = Vec::with_capacity(point.enabled.len());
    options.extend(current.map(|c| c as u32));
    options.extend(point.enabled.iter().map(|a| a.index()).filter(|&a| Some(a) != current).map(|a| a as u32));
    options
}

/// What identifies a data choice when it is replayed.
pub(crate) fn value_signature(point: &ChoicePoint) -> u64 {
    point.location as *const _ as u64 ^ point.alternatives as u64
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
    frames: Frames,
    done: bool,
    pump: Pump,
}

impl Dfs {
    /// Creates a search that has explored nothing yet.
    pub fn new() -> Dfs {
        Dfs::default()
    }
}

impl Strategy for Dfs {
    fn name(&self) -> &'static str {
        "dfs"
    }

    fn begin_execution(&mut self) -> bool {
        self.frames.begin();
        self.pump.clear();
        !self.done
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        if point.enabled.len() == 1 {
            return Ok(point.enabled[0]);
        }
        let mut options = current_first(point);
        if self.frames.is_new() {
            prefer(&mut options, self.pump.predict());
        }
        let choice = self.frames.decide(options, signature(point))?;
        self.pump.record(point, choice);
        Ok(ActorId::from_index(choice as usize))
    }

    fn choose_value(&mut self, point: &ChoicePoint) -> Result<usize, ChoiceError> {
        Ok(self.frames.decide((0..point.alternatives as u32).collect(), value_signature(point))? as usize)
    }

    fn end_execution(&mut self, _outcome: &Outcome) {
        self.done = !self.frames.backtrack();
    }

    fn exhausted(&self) -> bool {
        self.done
    }
}
