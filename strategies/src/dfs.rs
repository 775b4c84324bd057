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
//! With workers ([`Dfs::team`]) the search tree is shared out by work
//! stealing (`pool.rs`): a worker that runs out takes a subtree another
//! gave, and a worker asked for work gives half the untried alternatives
//! of its shallowest decision that has any. Each execution still runs
//! exactly once, so the workers' counts add up to one worker's; and since
//! work after the first failure found is dropped and the rest explored,
//! the failure reported is the one a single worker finds first.
//!
//! Invariant: `frames[..depth]` are the decisions of the running execution;
//! while `depth < frames.len()` the execution is replaying a known prefix,
//! and a different set of alternatives there means the program is not
//! deterministic. `frames[..floor]` belong to the subtree's prefix: never
//! advanced, never dropped; the alternatives of a frame this search
//! explores are those before its `stop`.

use samaritan_sim::{ActorId, ChoiceError, ChoicePoint, Outcome, SchedulePoint, Strategy};

use crate::pool::{team, Member};
use crate::pump::{prefer, Pump};
use crate::signature::Signature;

/// One decision of a depth-first search: where its alternatives are in
/// [`Frames::options`], and which one the running execution takes.
#[derive(Clone, Copy, Debug)]
struct Frame {
    /// Its alternatives are `options[start..start + len]`, in the order
    /// they are tried (actor indices or values).
    start: u32,
    len: u32,
    /// Index of the one taken now.
    taken: u32,
    /// The alternatives from this index on are another worker's.
    stop: u32,
    /// The alternatives' pending operations, to notice a replayed prefix
    /// that offers the same actors doing different things.
    signature: Signature,
}

/// The stack of decisions of a depth-first search (what [`Dfs`] and the
/// free choices of ICB walk): `frames[..depth]` are the running execution's.
/// The alternatives of every frame live in one buffer, so a decision costs
/// no allocation.
#[derive(Debug, Default)]
pub(crate) struct Frames {
    frames: Vec<Frame>,
    options: Vec<u32>,
    depth: usize,
    /// Frames of the subtree's prefix (see the module invariant).
    floor: usize,
}

impl Frames {
    /// Starts the next execution from the first decision.
    pub(crate) fn begin(&mut self) {
        self.depth = 0;
    }

    /// Forgets every decision.
    pub(crate) fn clear(&mut self) {
        self.frames.clear();
        self.options.clear();
        self.depth = 0;
        self.floor = 0;
    }

    /// The rank of the running execution (or, after [`Frames::backtrack`],
    /// of the prefix every later execution starts with): the index of the
    /// alternative taken at each decision, which orders executions as a
    /// depth-first search runs them.
    pub(crate) fn rank(&self, all: bool) -> Vec<u32> {
        let end = if all { self.frames.len() } else { self.depth };
        self.frames[..end].iter().map(|f| f.taken).collect()
    }

    /// Splits off, for another worker, half the untried alternatives of
    /// the shallowest decision that has any: the subtree's frames and its
    /// rank. Call after [`Frames::backtrack`].
    pub(crate) fn split(&mut self) -> Option<(Vec<u32>, Frames)> {
        let f = (self.floor..self.frames.len()).find(|&f| self.frames[f].taken + 1 < self.frames[f].stop)?;
        let root = self.frames[f];
        let untried = root.stop - root.taken - 1;
        // The giver keeps the first half (at least none), the taker gets
        // the rest (at least one).
        let mid = root.taken + 1 + untried / 2;
        let mut given = Frames { floor: f, ..Frames::default() };
        for (i, &frame) in self.frames[..=f].iter().enumerate() {
            let start = given.options.len() as u32;
            given.options.extend_from_slice(self.alternatives(frame));
            let (taken, stop) = if i == f { (mid, root.stop) } else { (frame.taken, frame.taken + 1) };
            given.frames.push(Frame { start, taken, stop, ..frame });
        }
        self.frames[f].stop = mid;
        Some((given.rank(true), given))
    }

    /// Returns whether the next decision is met for the first time (not a
    /// replay of a known prefix).
    pub(crate) fn is_new(&self) -> bool {
        self.depth == self.frames.len()
    }

    fn alternatives(&self, frame: Frame) -> &[u32] {
        &self.options[frame.start as usize..(frame.start + frame.len) as usize]
    }

    /// Takes the next decision: the known one when replaying (checking it
    /// offers what it did), else the first of `options`.
    pub(crate) fn decide(&mut self, options: &[u32], signature: Signature) -> Result<u32, ChoiceError> {
        match self.frames.get(self.depth).copied() {
            Some(frame) => self.check(frame, options, signature)?,
            None => {
                let start = self.options.len() as u32;
                self.options.extend_from_slice(options);
                let len = options.len() as u32;
                self.frames.push(Frame { start, len, taken: 0, stop: len, signature });
            }
        }
        let frame = self.frames[self.depth];
        self.depth += 1;
        Ok(self.options[(frame.start + frame.taken) as usize])
    }

    /// Checks that a replayed decision offers what it offered before.
    fn check(&self, frame: Frame, options: &[u32], signature: Signature) -> Result<(), ChoiceError> {
        frame.signature.replayed(signature)?;
        let known = self.alternatives(frame);
        if !same_set(known, options) {
            let (mut seen, mut known) = (options.to_vec(), known.to_vec());
            seen.sort_unstable();
            known.sort_unstable();
            return Err(ChoiceError::Nondeterminism {
                detail: format!(
                    "replaying the same prefix offered alternatives {seen:?} where the earlier execution had {known:?}"
                ),
            });
        }
        Ok(())
    }

    /// After an execution: advances the deepest decision that has an
    /// untried alternative, dropping those below; returns `false` when
    /// every alternative of the subtree has been tried.
    pub(crate) fn backtrack(&mut self) -> bool {
        self.frames.truncate(self.depth);
        while self.frames.len() > self.floor {
            let root = self.frames.len() == self.floor + 1;
            let frame = self.frames.last_mut().expect("past the floor");
            self.options.truncate((frame.start + frame.len) as usize);
            if frame.taken + 1 < frame.stop {
                frame.taken += 1;
                return true;
            }
            if root {
                // The subtree's root decision: its own alternatives are done.
                return false;
            }
            self.options.truncate(frame.start as usize);
            self.frames.pop();
        }
        false
    }
}

/// Puts the enabled actors at `point` in `options`, the one that ran last
/// first (so the first alternative never preempts).
pub(crate) fn current_first(point: &SchedulePoint<'_>, options: &mut Vec<u32>) {
    let current = point.current.map(ActorId::index);
    options.clear();
    options.extend(current.map(|c| c as u32));
    options.extend(point.enabled.iter().map(|a| a.index()).filter(|&a| Some(a) != current).map(|a| a as u32));
}

/// Whether `a` and `b` hold the same options (each list has no repeats).
/// Most replays offer them in the order they were stored; a long list in
/// another order is compared sorted, not option by option, which would
/// cost its length squared at every replayed step of a program with
/// thousands of tasks enabled at once.
fn same_set(a: &[u32], b: &[u32]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a == b {
        return true;
    }
    if a.len() <= 16 {
        return b.iter().all(|o| a.contains(o));
    }
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

/// Puts the values `0..point.alternatives` in `options`.
pub(crate) fn values(point: &ChoicePoint<'_>, options: &mut Vec<u32>) {
    options.clear();
    options.extend(0..point.alternatives as u32);
}

/// Exhaustive depth-first search.
#[derive(Debug, Default)]
pub struct Dfs {
    frames: Frames,
    done: bool,
    pump: Pump,
    /// The alternatives of the decision being made.
    options: Vec<u32>,
    /// With workers: this one's handle on the shared pool of subtrees.
    member: Option<Member<Frames>>,
    /// With workers: whether this one holds no subtree now.
    idle: bool,
    /// The rank of the last failing execution.
    failed: Option<Vec<u32>>,
}

impl Dfs {
    /// Creates a search that has explored nothing yet.
    pub fn new() -> Dfs {
        Dfs::default()
    }

    /// Creates the `n` workers of one depth-first search, which share its
    /// tree by work stealing (module docs): together they run every
    /// execution once, and a failure they report is the one [`Dfs::new`]
    /// would find first.
    ///
    /// ```
    /// use samaritan_sim::Strategy;
    /// use samaritan_strategies::Dfs;
    ///
    /// let workers = Dfs::team(2);
    /// assert_eq!(workers.len(), 2);
    /// assert_eq!(workers[1].name(), "dfs");
    /// ```
    pub fn team(n: usize) -> Vec<Dfs> {
        team(n)
            .into_iter()
            .enumerate()
            .map(|(i, member)| Dfs { member: Some(member), idle: i > 0, ..Dfs::default() })
            .collect()
    }
}

impl Strategy for Dfs {
    fn name(&self) -> &'static str {
        "dfs"
    }

    fn begin_execution(&mut self) -> bool {
        self.frames.begin();
        self.pump.clear();
        let Some(member) = &mut self.member else { return !self.done };
        loop {
            if self.done {
                return false;
            }
            if !self.idle {
                if !member.beyond_best(|| self.frames.rank(true)) {
                    return true;
                }
                // The rest of this subtree comes after a failure found.
                self.idle = true;
            }
            match member.take() {
                Some(frames) => (self.frames, self.idle) = (frames, false),
                None => self.done = true,
            }
        }
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        if point.enabled.len() == 1 {
            return Ok(point.enabled[0]);
        }
        current_first(point, &mut self.options);
        if self.frames.is_new() {
            prefer(&mut self.options, self.pump.predict());
        }
        let choice = self.frames.decide(&self.options, Signature::of(point))?;
        self.pump.record(point, choice);
        Ok(ActorId::from_index(choice as usize))
    }

    fn choose_value(&mut self, point: &ChoicePoint<'_>) -> Result<usize, ChoiceError> {
        values(point, &mut self.options);
        Ok(self.frames.decide(&self.options, Signature::of_value(point))? as usize)
    }

    fn end_execution(&mut self, outcome: &Outcome) {
        if !outcome.is_pass() {
            let rank = self.frames.rank(false);
            if let Some(member) = &self.member {
                member.failed(&rank);
            }
            self.failed = Some(rank);
        }
        let more = self.frames.backtrack();
        match &self.member {
            None => self.done = !more,
            Some(_) if !more => self.idle = true,
            Some(member) => {
                if member.hungry() {
                    if let Some((rank, frames)) = self.frames.split() {
                        member.give(rank, frames);
                    }
                }
            }
        }
    }

    fn exhausted(&self) -> bool {
        self.done
    }

    fn rank(&self) -> Option<Vec<u32>> {
        self.failed.clone()
    }

    fn set_cancel(&mut self, cancel: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        if let Some(member) = &mut self.member {
            member.set_cancel(cancel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::same_set;

    #[test]
    fn option_lists_compare_as_sets_at_every_length() {
        let long: Vec<u32> = (0..40).collect();
        let reversed: Vec<u32> = long.iter().rev().copied().collect();
        let mut other = long.clone();
        other[39] = 99;
        assert!(same_set(&[2, 0, 1], &[0, 1, 2]));
        assert!(same_set(&long, &reversed));
        assert!(!same_set(&long, &other));
        assert!(!same_set(&reversed, &other));
        assert!(!same_set(&[0, 1], &[0, 2]));
        assert!(!same_set(&long, &long[1..]));
    }
}
