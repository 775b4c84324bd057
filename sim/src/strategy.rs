//! The strategy API: how a search strategy sees and steers an execution.
//!
//! A strategy is a small state machine driven by the explorer:
//! [`Strategy::begin_execution`], then one [`Strategy::choose_actor`] per
//! scheduling point and one [`Strategy::choose_value`] per data choice, then
//! [`Strategy::end_execution`]. It never sees a primitive's type: only actors,
//! their pending operations and objects.

use std::panic::Location;

use crate::fair::Fairness;
use crate::op::{ActorId, Footprint, ObjectId, Op};
use crate::outcome::Outcome;

/// A pending operation: what an actor will do when it is next scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    /// The operation.
    pub op: Op,
    /// The object it touches, if any.
    pub object: Option<ObjectId>,
    /// Where in the user's code the operation is.
    pub location: &'static Location<'static>,
    /// A second object the operation changes besides `object`, for the
    /// dependency relation ([`Footprint`]): the mutex a condition-variable
    /// wait releases.
    pub second: Option<ObjectId>,
    /// Whether it is a `SeqCst` access of an atomic, which takes part in
    /// the order of `SeqCst` fences ([`Footprint::fence_order`]).
    pub seq_cst: bool,
}

impl Pending {
    /// Builds a pending operation on `object`, changing no second object.
    pub fn new(op: Op, object: Option<ObjectId>, location: &'static Location<'static>) -> Pending {
        Pending { op, object, location, second: None, seq_cst: false }
    }

    /// Returns what the operation touches.
    pub fn footprint(&self) -> Footprint {
        Footprint { op: self.op, object: self.object, second: self.second, seq_cst: self.seq_cst }
    }
}

/// What one actor looks like at a scheduling point.
#[derive(Clone, Copy, Debug)]
pub struct ActorView {
    /// The actor.
    pub id: ActorId,
    /// Its pending operation; `None` once it has finished. An operation
    /// whose kind the state decides ([`rt::step_as`](crate::rt::step_as))
    /// shows as it would be taken now.
    pub pending: Option<Pending>,
    /// Whether its pending operation can proceed now.
    pub enabled: bool,
}

/// The decision a strategy makes at a scheduling point.
///
/// `#[non_exhaustive]` so that later strategies can be given more context
/// without breaking existing ones.
#[non_exhaustive]
#[derive(Debug)]
pub struct SchedulePoint<'a> {
    /// Number of steps taken so far in this execution.
    pub step: u64,
    /// The actor that ran last, if it may go on (`None` after it blocked or
    /// finished, at the first step, and when the fair scheduler made it
    /// give way). Choosing another actor preempts it, unless `yielding`.
    pub current: Option<ActorId>,
    /// The actors that may be chosen, in id order; at least two. These are
    /// the enabled actors, less those the fair scheduler holds back while an
    /// actor they have kept waiting is enabled.
    pub enabled: &'a [ActorId],
    /// Every actor of the execution, in id order.
    pub actors: &'a [ActorView],
    /// Whether the last step of `current` was a yield ([`Op::is_yield`]):
    /// switching away from it then is not a preemption.
    pub yielding: bool,
    /// The fair scheduler, when it is on: its digest is computed only for
    /// a strategy that asks ([`SchedulePoint::fairness`]).
    pub(crate) fair: Option<&'a Fairness>,
}

impl SchedulePoint<'_> {
    /// Returns whether choosing `actor` is a preempting context switch
    /// (iterative-context-bounding.txt, section 2): the running actor could
    /// have gone on, did not just yield, and another is chosen.
    pub fn preempts(&self, actor: ActorId) -> bool {
        !self.yielding && self.current.is_some_and(|c| c != actor)
    }

    /// Returns the pending operation of `actor`.
    pub fn pending(&self, actor: ActorId) -> Option<Pending> {
        self.actors.get(actor.index()).and_then(|a| a.pending)
    }

    /// A digest of the fair scheduler's state (its priority relation and
    /// the windows of the actors that have yielded); 0 until an actor
    /// yields, and always 0 without fairness. With the program's state it
    /// decides which actors the scheduler lets run from here on, so a
    /// strategy that caches what it explored from a state keys it too.
    /// Computed when asked: a strategy that does not cache pays nothing.
    pub fn fairness(&self) -> u64 {
        self.fair.map_or(0, Fairness::digest)
    }
}

/// A data choice: the engine needs a value in `0..alternatives`.
#[non_exhaustive]
#[derive(Debug)]
pub struct ChoicePoint<'a> {
    /// Number of steps taken so far in this execution.
    pub step: u64,
    /// The actor asking.
    pub actor: ActorId,
    /// How many values there are to choose from (at least 2).
    pub alternatives: usize,
    /// Where the choice is made.
    pub location: &'static Location<'static>,
    /// For a load's choice of store (after an [`Op::WeakLoad`] or
    /// [`Op::Load`] step): per alternative, the index of the step that
    /// made the store it reads, or `u32::MAX` for a value no step of this
    /// execution made (the initial one). Unlike the alternative's index,
    /// which counts back from the newest store, this names the store the
    /// same in every order of the steps before. `None` for other choices.
    ///
    /// [`Op::WeakLoad`]: crate::Op::WeakLoad
    /// [`Op::Load`]: crate::Op::Load
    pub sources: Option<&'a [u32]>,
    /// Whether the choice is a fault the platform may inject
    /// ([`rt::choose_fault`](crate::rt::choose_fault): a spurious wake-up
    /// or failure), value 1 the fault: a search that bounds preemptions
    /// counts taking it as one.
    pub fault: bool,
}

/// A step just taken, as shown to a strategy that observes steps.
#[non_exhaustive]
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// Its index in the execution, from 0.
    pub index: u64,
    /// The actor that took it.
    pub actor: ActorId,
    /// The operation, its object and location.
    pub pending: Pending,
    /// The value chosen, for [`Op::Choose`](crate::Op::Choose) steps.
    pub value: u32,
    /// Whether it preempted an actor that could have gone on.
    pub preempt: bool,
    /// The other actor the step synchronizes with: for a spawn, the child
    /// it creates; for a join on a thread's object, that thread (which
    /// has finished). Happens-before edges that no shared object carries.
    pub peer: Option<ActorId>,
    /// Whether no other actor could have taken a step instead (whatever
    /// the fair scheduler allows): the state before it had this one
    /// successor. Never true of a data choice.
    pub alone: bool,
}

impl Step {
    /// Builds a step that is not a data choice and preempts nobody (for
    /// strategies' own tests; the engine builds the real ones).
    pub fn new(index: u64, actor: ActorId, pending: Pending, peer: Option<ActorId>) -> Step {
        Step { index, actor, pending, value: 0, preempt: false, peer, alone: false }
    }
}

/// Why a strategy could not make a choice.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChoiceError {
    /// Replaying a known prefix gave a different set of enabled actors or
    /// choices than before: the program is not deterministic.
    Nondeterminism {
        /// What was expected and what was seen.
        detail: String,
    },
    /// Replaying a known prefix, the enabled actors announced the same
    /// operations at the same places as before, on other objects: the
    /// objects came in another order (the engine names them).
    OtherObjects,
    /// A replayed schedule does not fit this program.
    ScheduleMismatch {
        /// What does not fit.
        detail: String,
    },
    /// Every continuation of this execution is covered by executions
    /// explored elsewhere (a sleep set with nothing left awake, say): the
    /// engine runs the rest of it without asking the strategy again (each
    /// decision the running actor if it may go on, else the first enabled
    /// one; each data choice 0), shows the strategy none of its steps, and
    /// the report counts it as pruned. Its outcome is kept only when it is
    /// a failure of the program (which a sound strategy never leaves to
    /// such an execution); one that would run on for long is cut off.
    Redundant,
}

/// A search strategy.
pub trait Strategy {
    /// Short lowercase name, recorded in replay tokens and summaries.
    fn name(&self) -> &'static str;

    /// Prepares the next execution; returns `false` when the search is over.
    fn begin_execution(&mut self) -> bool;

    /// Picks the actor that takes the next step; must return a member of
    /// `point.enabled`. Called only at scheduling points where two or more
    /// actors are enabled: a forced step is taken without asking.
    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError>;

    /// Picks a value in `0..point.alternatives`.
    fn choose_value(&mut self, point: &ChoicePoint<'_>) -> Result<usize, ChoiceError>;

    /// Learns how the execution ended.
    fn end_execution(&mut self, outcome: &Outcome);

    /// Returns whether the strategy wants [`Strategy::on_step`] called for
    /// every step, forced ones included (what partial-order reduction and
    /// coverage tracking need). Asked once per exploration; off by default
    /// because it costs a call per step.
    fn observes_steps(&self) -> bool {
        false
    }

    /// Sees a step just taken; called only if [`Strategy::observes_steps`].
    fn on_step(&mut self, _step: &Step) {}

    /// Learns that the step just taken also ended the thread whose object
    /// is `object` ([`rt::ended`](crate::rt::ended)): for the dependency
    /// of partial-order reduction, that step then touches `object` as
    /// [`Access::End`](crate::Access::End) too (what an
    /// [`Op::IsFinished`](crate::Op::IsFinished) depends on). Called only
    /// if [`Strategy::observes_steps`].
    fn on_end(&mut self, _object: ObjectId) {}

    /// Learns which store the weak load just taken ([`Op::WeakLoad`])
    /// read: the step that made it, or `u32::MAX` for a value no step of
    /// this execution made (the initial one). Called once per weak load,
    /// after its step and after its choice of store if it had one, before
    /// any other step; only if [`Strategy::observes_steps`]. A weak load
    /// is ordered after no store ([`Access::Observe`](crate::Access::Observe)),
    /// so what it read is what a state made of its steps must name.
    fn on_read(&mut self, _source: u32) {}

    /// Returns whether the whole search space has been explored.
    fn exhausted(&self) -> bool {
        false
    }

    /// The seed the strategy draws from, if it is randomized.
    fn seed(&self) -> Option<u64> {
        None
    }

    /// For a search that bounds preemptions: the largest bound `c` such
    /// that every execution with at most `c` preemptions has been explored.
    fn completed_bound(&self) -> Option<u32> {
        None
    }

    /// Returns whether the search left out executions beyond its
    /// preemption bound (so "exhausted" means "exhausted up to the bound").
    fn bounded(&self) -> bool {
        false
    }

    /// For a search that bounds preemptions: whether an execution that has
    /// spent the bound also takes no other choice of actor, free switches
    /// included (loom's count of its bound), so that a pass covers fewer
    /// executions than every one with that many preemptions. The report
    /// says so.
    fn bound_ends_switches(&self) -> bool {
        false
    }

    /// For a coverage-guided search: how many coverage pairs (HaPSet
    /// predecessor pairs) it has covered, loaded ones included.
    fn coverage_pairs(&self) -> Option<u64> {
        None
    }

    /// For a search made of parts (a portfolio): the name of the part that
    /// runs the current execution, which a replay token records.
    fn part(&self) -> Option<&'static str> {
        None
    }

    /// Whether the execution that just ended (asked after
    /// [`Strategy::end_execution`]) belongs to another shard of the space
    /// (`samaritan_strategies::Sharded`): the search neither counts nor
    /// reports it, whatever its outcome; the shard that owns it does.
    fn elsewhere(&self) -> bool {
        false
    }

    /// For a portfolio: how many executions its randomized parts ran,
    /// beside those its systematic part counts towards what it covered.
    fn randomized(&self) -> u64 {
        0
    }

    /// For one worker of a search shared out by work stealing
    /// (`samaritan_strategies::Dfs::team`): where the last failing
    /// execution stands in the order one worker would run executions (a
    /// sequence compared lexicographically). Of the failures the workers
    /// report, [`explore_parallel`](crate::explore_parallel) keeps the
    /// lowest; and a worker that finds one stops only itself, since the
    /// others may hold work that comes before it. `None` for a search cut
    /// into fixed parts, whose order is the parts' order.
    fn rank(&self) -> Option<Vec<u32>> {
        None
    }

    /// Gives the strategy the flag that, once set, means its search is
    /// called off (by [`explore_parallel`](crate::explore_parallel): another
    /// worker stalled or found a misuse). Only a strategy that can wait
    /// between executions needs it (a worker of a search shared out by
    /// work stealing, waiting for work): it must then stop waiting and end
    /// the search. Called before the first execution.
    fn set_cancel(&mut self, _cancel: std::sync::Arc<std::sync::atomic::AtomicBool>) {}

    /// Where the search is, in a few words for a progress line ("bound 2",
    /// "bound 1 complete"); asked now and then, never per execution.
    fn progress(&self) -> Option<String> {
        None
    }
}
