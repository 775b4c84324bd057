//! Partial-order reduction that stays sound under a preemption bound.
//!
//! Musuvathi and Qadeer, "Partial-Order Reduction for Context-Bounded State
//! Exploration" (por-for-context-bounded-search.txt). Sleep sets plus a
//! bound are unsound (section 1, Fig. 1): a sleeping thread's branch may be
//! covered only by an execution the bound pruned. Instead, states are
//! happens-before graphs, remembered in a table `H`, and each step has a
//! context bound `CB(s, t)`: the least preemption count of any execution
//! ending with it.
//!
//! - Algorithm 2 (section 3.1), run statelessly: every scheduling point of
//!   the running execution is a `Search(s)` frame; an alternative `t` is
//!   taken only if `next(s, t)` is not in `H` and the execution stays
//!   within the bound. Only `Mark` adds states to `H`: at the end of an
//!   execution (a terminal state) it adds the state, then each prefix all
//!   of whose bounded successors are in `H`, recursively (lines 15-22).
//! - A fault the platform injects (a spurious wake-up or failure,
//!   [`ChoicePoint::fault`]) costs a preemption, as in `icb.rs`: in the
//!   running execution's count, in an alternative's, and in `CB` (a cost
//!   of the step itself, whatever the order).
//! - The guard of line 9 counts the preemptions of the running execution
//!   itself, not `CB(s, t)`. Since `CB(s, t)` is the least count of any
//!   execution ending with the same step, every execution this search
//!   runs is one that iterative context bounding runs at the same bound,
//!   so it never runs more executions than ICB; and it still reaches
//!   every state with `CB(s) <= bound` (by definition some execution
//!   reaches `s` with `CB(s)` preemptions, and this search runs it unless
//!   `H` prunes it). Pruning stays sound: `s` is in `H` only when every
//!   terminal state reachable from it by steps with `CB <= bound` was
//!   visited (the paper's `TerminalClosure`, kept by `Mark`), and each
//!   step of a bounded continuation has `CB` at most its execution's
//!   count.
//! - States are hashed incrementally (section 3.3): an action is its actor,
//!   its index in the actor, its operation, objects and chosen value, and
//!   its vector clock (which is what the paper's `<o, t, n, v, m>` tuple
//!   encodes, extended to operations that are not reads or writes); a state
//!   is the XOR of its actions' hashes. A weak load ([`Op::WeakLoad`]),
//!   which no store orders, is named by the store it read (`labels.rs`),
//!   learnt after its step and its choice of store
//!   ([`Strategy::on_read`]); its choice adds nothing of its own. So the
//!   two orders of a weak load and a store it did not read reach one
//!   state, which `H` then prunes. The load and its choice are one step
//!   for the prefixes `Mark` and `CB` walk (no execution stops between
//!   them), and a prefix that holds a store made after the load is one
//!   whose successor by the load `Mark` cannot name (the load could read
//!   that store there).
//! - `CB(s, t)` by dynamic programming over prefixes with memoization
//!   (section 3.2): `CB(s, t) = min over frontier threads t' of
//!   CB(s - t', t') + (t' = t or t' not enabled in s ? 0 : 1)`, keyed by the
//!   state's hash across executions. Switching away from an actor whose
//!   last step was a yield is free, as in iterative context bounding. Only
//!   `Mark` needs it.
//! - Work is linear in the execution: `Mark` and `CB` run iteratively (no
//!   recursion as deep as the execution) within a budget of prefixes per
//!   execution proportional to its length. Past it `CB` answers 0 (a lower
//!   bound: `Mark` then asks more successors to be in `H`) and `Mark`
//!   stops: both only keep states out of `H`, the safe side.
//!
//! Beside `H`, a *budget table* remembers the scheduling points whose
//! every continuation within the bound was explored (all their
//! alternatives done: the depth-first search's own completion), keyed by
//! the state, who may go on without a preemption there, and the
//! preemptions spent on reaching it. Reaching the same state again with
//! as much spent (or one more, when a different actor was running: that
//! changes the cost of one switch at most) is then redundant: iterative
//! context bounding with state caching. It needs no `CB`, and catches the
//! equivalent interleavings that `Mark` cannot, when the prefixes `Mark`
//! would need are not known to be all done. After a yield the fair
//! scheduler's choices depend on more than the program's state: a point
//! is then keyed by its state and the scheduler's
//! ([`SchedulePoint::fairness`]), and a successor, whose scheduler state
//! is not known before it is reached, is looked up only when reached.
//!
//! Prefixes that no execution visited need "is this thread enabled here?"
//! answered without running the program. A thread that does not exist yet
//! or has finished is not; a blocking lock is enabled when nobody holds the
//! lock in the prefix; a join when the joined thread has finished; every
//! operation that cannot block is. Other blocking operations are unknown,
//! and each use takes the safe side: an unknown thread costs no preemption
//! in `CB` (so `CB` is never overestimated), and must have its successor in
//! `H` before `Mark` adds a prefix. Object and actor ids are numbered in
//! creation order, so two equivalent executions that create objects in
//! another order hash differently: the search then explores both (more
//! executions, never fewer).
//!
//! `H`, the budget tables and `CB`'s memo are forgotten whenever one fills
//! up ([`TABLE_CAP`] entries): they only prune or cache, so forgetting
//! costs executions, never coverage, and bounds the search's memory.
//!
//! Workers ([`CbPor::team`]) share the search by work stealing
//! (`pool.rs`), as the depth-first search that Algorithm 2 is: a worker
//! asked for work gives half the alternatives left to it at its
//! shallowest frame that has any (from the first still open). Each worker
//! prunes with its own `H` and budget table only, as shards do: a state a
//! worker marked is one whose bounded continuations it explored itself.
//! A frame whose alternatives were given or received never goes into the
//! budget table (its continuations were not all explored by this worker),
//! nor do the frames above it. Together the workers run at least the
//! executions one search runs; when one finds a failure they all stop, and
//! the failure whose schedule comes first among those found is reported.
//!
//! Sound for what the engine treats as dependent (`Footprint::dependent`)
//! and for terminating programs; under the fair scheduler `H` still speaks
//! of every truly enabled successor, so fairness can only keep states out
//! of it.

use samaritan_sim::{
    ActorId, ChoiceError, ChoicePoint, Footprint, ObjectId, Op, Outcome, SchedulePoint, Shard, Step, Strategy,
};

use crate::hb::{canonical, component, Clock, History};
use crate::labels::Labels;
use crate::pool::{team, Member};
use crate::shard::Split;
use crate::signature::Signature;
use crate::table::{Map, Set, TABLE_CAP};

/// Execution steps per unit of work `Mark` and `CB` may do, beyond a
/// fixed allowance ([`MARK_BASE`]): the work stays linear in the
/// execution, and small beside the execution's own. A unit is one actor
/// of one prefix visited (a prefix of `n` actors costs `n`: its frontier
/// and successors take time in proportion).
const MARK_STEPS_PER_UNIT: usize = 4;

/// Units of work `Mark` and `CB` may do per execution however short it is.
const MARK_BASE: usize = 4_096;

/// One alternative at a node: an actor or a value, and the state it leads
/// to.
#[derive(Clone, Copy, Debug)]
struct Alt {
    id: u32,
    next: Next,
    /// Preemptions spent once it is taken.
    spent: u32,
}

/// The alternatives of a node: most nodes are forced steps with one, kept
/// without an allocation.
#[derive(Clone, Debug)]
enum Alts {
    One(Alt),
    Many(Vec<Alt>),
}

impl Alts {
    fn as_mut(&mut self) -> &mut [Alt] {
        match self {
            Alts::One(alt) => std::slice::from_mut(alt),
            Alts::Many(alts) => alts,
        }
    }

    fn get(&self, i: usize) -> Alt {
        match self {
            Alts::One(alt) => *alt,
            Alts::Many(alts) => alts[i],
        }
    }
}

/// The state an alternative leads to, worked out only when the search
/// asks whether to take it (most alternatives of a long or many-thread
/// execution never are: their node is left before the search comes back).
#[derive(Clone, Copy, Debug)]
enum Next {
    /// Its hash (`None`: cannot be foretold, a join's).
    Known(Option<u64>),
    /// Not worked out yet: the step `actor` would take there.
    Unknown { actor: u32, fp: Footprint, value: u64 },
}

/// A `Search(s)` frame.
#[derive(Clone, Debug)]
struct Node {
    /// Whether the alternatives are values of a data choice.
    value: bool,
    /// The hash of its state, and the steps of the execution before it.
    state: u64,
    depth: usize,
    alts: Alts,
    /// Index into `alts` of the alternative the current branch takes. The
    /// ones before it were taken or closed (and a closed one stays closed:
    /// `H` and the budget table only grow).
    taken: usize,
    /// What the budget table records of this node's state once every
    /// alternative is done, if it may.
    budget: Option<Budgeted>,
    /// The alternatives from this index on are another worker's.
    stop: usize,
    /// Whether some of its continuations are another worker's (it, or a
    /// frame below it, gave or received alternatives): it never goes into
    /// the budget table.
    shared: bool,
    /// What the point offered, for a replay to check; `None` for a forced
    /// step, which is not asked.
    signature: Option<Signature>,
}

/// A state as the budget table keys it: its hash, who may go on for free
/// ([`switch_key`]), and the preemptions spent on reaching it.
#[derive(Clone, Copy, Debug)]
struct Budgeted {
    state: u64,
    key: u32,
    spent: u32,
}

/// Who may go on at a scheduling point without a preemption: `0` when
/// every switch is free (nobody runs, or the running actor just yielded),
/// else the running actor's index plus one.
fn switch_key(point: &SchedulePoint<'_>) -> u32 {
    match point.current {
        Some(c) if !point.yielding => c.index() as u32 + 1,
        _ => 0,
    }
}

/// A frame of the iterative `CB` computation: `CB(cut, t)`.
#[derive(Debug)]
struct CbFrame {
    cut: Vec<u32>,
    t: usize,
    key: (u64, u32),
    frontier: Vec<usize>,
    next: usize,
    best: u32,
    /// The cost to add to the child being computed: 0 or 1.
    add: u32,
    /// Whether every value below was computed within the budget.
    exact: bool,
}

/// Preemption-bounded search with partial-order reduction (`cb-por`).
#[derive(Debug)]
pub struct CbPor {
    bound: u32,
    nodes: Vec<Node>,
    depth: usize,
    history: History,
    /// Per actor, `prefix[a][k]`: XOR of the hashes of `a`'s first `k`
    /// actions.
    prefix: Vec<Vec<u64>>,
    /// The running execution's state hash.
    hash: u64,
    /// Preemptions of the running execution so far.
    preemptions: u32,
    /// Each object's name in state hashes ([`CbPor::name`]), by id, with
    /// the event that gave it.
    names: Vec<Option<(u64, usize)>>,
    /// A clock and a list of predecessors to compute an action's in.
    scratch: Clock,
    preds: Vec<u32>,
    /// The data choices of the running execution, by step, with the
    /// labels their values go by in state hashes.
    choices: Labels,
    /// `H`: states every bounded terminal continuation of which was explored.
    visited: Set<u64>,
    /// `CB(s, t)` by `(hash of s, t)`.
    memo: Map<(u64, u32), u32>,
    /// The budget table: `(state, switch key)` to the fewest preemptions
    /// spent on reaching it when every continuation within the bound from
    /// there had been explored.
    budgets: Map<(u64, u32), u32>,
    /// The same, whatever the switch key.
    budgets_any: Map<u64, u32>,
    /// Entries each of `visited`, `memo` and the budget tables may hold
    /// before it is forgotten ([`CbPor::bound_tables`]).
    table_cap: usize,
    /// The running execution took a yield: the fair scheduler may filter
    /// from here on, so the budget table is neither read nor written.
    yielded: bool,
    /// The running execution reached a state in `H`.
    blocked: bool,
    /// The running execution was cut short as redundant.
    cut_short: bool,
    /// Each actor's pending operation at the latest scheduling point: its
    /// next step in every prefix that holds all its events.
    pending: Vec<Option<Footprint>>,
    exhausted: bool,
    /// Whether some alternative was left out for exceeding the bound.
    cut_by_bound: bool,
    /// Prefixes `Mark` and `CB` may still visit in this execution's `Mark`.
    budget: usize,
    /// The part of the space this search explores ([`CbPor::sharded`]).
    split: Split,
    /// Whether the execution that just ended is another shard's.
    elsewhere: bool,
    /// With workers: this one's handle on the shared pool of prefixes.
    member: Option<Member<Vec<Node>>>,
    /// Frames of the prefix this worker was given (see `Dfs`'s `floor`):
    /// `nodes[floor]` is its root, advanced only up to its `stop`.
    floor: usize,
    /// With workers: whether this one holds no prefix now.
    idle: bool,
    /// The rank of the last failing execution.
    failed: Option<Vec<u32>>,
}

impl CbPor {
    /// Creates the search for executions with at most `bound` preemptions.
    pub fn new(bound: u32) -> CbPor {
        CbPor {
            bound,
            nodes: Vec::new(),
            depth: 0,
            history: History::default(),
            prefix: Vec::new(),
            hash: 0,
            preemptions: 0,
            names: Vec::new(),
            scratch: Clock::default(),
            preds: Vec::new(),
            choices: Labels::default(),
            visited: Set::default(),
            memo: Map::default(),
            budgets: Map::default(),
            budgets_any: Map::default(),
            table_cap: TABLE_CAP,
            yielded: false,
            blocked: false,
            cut_short: false,
            pending: Vec::new(),
            exhausted: false,
            cut_by_bound: false,
            budget: 0,
            split: Split::default(),
            elsewhere: false,
            member: None,
            floor: 0,
            idle: false,
            failed: None,
        }
    }

    /// Creates the `n` workers of one search for executions with at most
    /// `bound` preemptions (of the part `shard` owns, as
    /// [`CbPor::sharded`] says, unless it is the whole), which share it by
    /// work stealing (module docs).
    ///
    /// ```
    /// use samaritan_sim::{Shard, Strategy};
    /// use samaritan_strategies::CbPor;
    ///
    /// let workers = CbPor::team(2, 2, Shard::WHOLE);
    /// assert_eq!((workers.len(), workers[1].name()), (2, "cb-por"));
    /// ```
    pub fn team(n: usize, bound: u32, shard: Shard) -> Vec<CbPor> {
        team(n)
            .into_iter()
            .enumerate()
            .map(|(i, member)| CbPor { member: Some(member), idle: i > 0, ..CbPor::sharded(bound, shard) })
            .collect()
    }

    /// With workers: records a failure found beside this search (by a
    /// portfolio's hunter), which stops every worker.
    pub(crate) fn team_failed(&self, rank: &[u32]) {
        if let Some(member) = &self.member {
            member.failed(rank);
        }
    }

    /// With workers: whether a worker found a failure (every worker stops).
    pub(crate) fn team_stopped(&self) -> bool {
        self.member.as_ref().is_some_and(Member::any_failed)
    }

    /// Gives a waiting worker half the alternatives left at the shallowest
    /// frame that has any, from the first still open (module docs). Call
    /// after backtracking, while the history is the last execution's.
    fn give_away(&mut self) {
        let Some(f) = (self.floor..self.nodes.len()).find(|&f| self.nodes[f].taken + 1 < self.nodes[f].stop) else {
            return;
        };
        let (taken, stop, state, depth) = {
            let n = &self.nodes[f];
            (n.taken, n.stop, n.state, n.depth)
        };
        let mid = taken + 1 + (stop - taken - 1) / 2;
        let cut = self.history.prefix_cut(depth);
        let mut alts = std::mem::replace(&mut self.nodes[f].alts, Alts::Many(Vec::new()));
        let first = (mid..stop).find(|&i| self.open(&mut alts.as_mut()[i], state, Some(&cut[..])));
        self.nodes[f].alts = alts;
        let Some(first) = first else { return };
        let mut nodes = self.nodes[..=f].to_vec();
        for node in &mut nodes[..f] {
            node.stop = node.taken + 1;
        }
        nodes[f].taken = first;
        for node in nodes.iter_mut().chain(&mut self.nodes[..=f]) {
            node.shared = true;
        }
        self.nodes[f].stop = mid;
        let rank = nodes.iter().map(|n| n.taken as u32).collect();
        if let Some(member) = &self.member {
            member.give(rank, nodes);
        }
    }

    /// Creates the search over the part `shard` owns of what
    /// [`CbPor::new`]`(bound)` explores, cut by schedule prefix as a
    /// depth-first search is (`shard.rs`): an execution another shard owns
    /// ends where that is known, cut short (it is not terminal, so `Mark`
    /// skips it). Algorithm 2 takes every alternative not pruned, so no
    /// shard depends on another's races; each prunes only with what it
    /// explored itself (`H` and the budget table), and a frame whose
    /// alternatives were cut is covered by the shards that own them. The
    /// shards' executions add up to at least the unsharded search's (a
    /// state one shard explored is not pruned in another).
    ///
    /// ```
    /// use samaritan_sim::{Shard, Strategy};
    /// use samaritan_strategies::CbPor;
    ///
    /// assert_eq!(CbPor::sharded(2, Shard::new(1, 2).unwrap()).name(), "cb-por");
    /// ```
    pub fn sharded(bound: u32, shard: Shard) -> CbPor {
        CbPor { split: Split::new(shard), ..CbPor::new(bound) }
    }

    /// The full cut: every event of the running execution.
    fn full_cut(&self) -> Vec<u32> {
        (0..self.prefix.len()).map(|a| self.prefix[a].len() as u32 - 1).collect()
    }

    fn cut_hash(&self, cut: &[u32]) -> u64 {
        cut.iter().enumerate().fold(0, |h, (a, &k)| h ^ self.prefix[a][k as usize])
    }

    /// The event index of actor `a`'s `k`-th event (from 0).
    fn event_of(&self, a: usize, k: u32) -> usize {
        self.history.of_actor(ActorId::from_index(a))[k as usize]
    }

    /// Returns whether actor `a` exists in the prefix `cut`.
    fn exists(&self, cut: &[u32], a: usize) -> bool {
        a == 0 || self.history.spawned_at(ActorId::from_index(a)).is_some_and(|i| self.inside(cut, i))
    }

    fn inside(&self, cut: &[u32], i: usize) -> bool {
        let e = &self.history.events[i];
        e.seq <= cut.get(e.actor.index()).copied().unwrap_or(0)
    }

    /// Whether actor `a` can take its next step in the prefix `cut`:
    /// `Some` when known, `None` when it depends on state the prefix does
    /// not show.
    fn enabled_at(&self, cut: &[u32], a: usize) -> Option<bool> {
        if !self.exists(cut, a) {
            return Some(false);
        }
        let taken = cut.get(a).copied().unwrap_or(0);
        let events = self.history.of_actor(ActorId::from_index(a));
        let (op, object, peer) = match events.get(taken as usize) {
            Some(&next) => {
                let e = &self.history.events[next];
                (e.op, e.object, e.peer)
            }
            // Its operation pending now, or none: it has finished.
            None => match self.pending.get(a).copied().flatten() {
                Some(fp) => (fp.op, fp.object, None),
                None => return Some(false),
            },
        };
        match op {
            Op::Lock => object.and_then(|m| self.held_at(cut, m).map(|held| !held)),
            Op::Join => peer.map(|p| {
                let done = self.history.of_actor(p).len() as u32;
                cut.get(p.index()).copied().unwrap_or(0) == done
            }),
            op if can_block(op) => None,
            _ => Some(true),
        }
    }

    /// Whether lock `m` is held in the prefix `cut`, if that can be told.
    fn held_at(&self, cut: &[u32], m: ObjectId) -> Option<bool> {
        let mut held = false;
        for (a, &k) in cut.iter().enumerate() {
            held |= self.history.locks_after(ActorId::from_index(a), k as usize)?.contains(&m);
        }
        Some(held)
    }

    /// Opens a frame of the `CB` computation for `CB(cut, t)`, or returns
    /// its value when it needs none: `(value, exact)`.
    fn cb_frame(&mut self, cut: Vec<u32>, t: usize) -> Result<CbFrame, (u32, bool)> {
        if cut.iter().all(|&k| k == 0) {
            return Err((0, true));
        }
        let key = (self.cut_hash(&cut), t as u32);
        if let Some(&known) = self.memo.get(&key) {
            return Err((known, true));
        }
        if self.budget < cut.len() {
            return Err((0, false));
        }
        self.budget -= cut.len();
        let frontier = self.frontier(&cut);
        Ok(CbFrame { cut, t, key, frontier, next: 0, best: u32::MAX, add: 0, exact: true })
    }

    /// `CB(cut, t)` (section 3.2), memoized by the prefix's hash, computed
    /// with an explicit stack within the budget (0 past it, a lower bound).
    fn cb(&mut self, cut: &[u32], t: usize) -> u32 {
        let mut stack = match self.cb_frame(cut.to_vec(), t) {
            Ok(frame) => vec![frame],
            Err((value, _)) => return value,
        };
        let mut returned: Option<(u32, bool)> = None;
        loop {
            let top = stack.last_mut().expect("the stack holds the frame being computed");
            if let Some((value, exact)) = returned.take() {
                top.best = top.best.min(value.saturating_add(top.add));
                top.exact &= exact;
            }
            if top.next < top.frontier.len() {
                let f = top.frontier[top.next];
                top.next += 1;
                let (mut child, t) = (top.cut.clone(), top.t);
                let back = self.back(f, child[f]);
                let last = &self.history.events[self.event_of(f, back)];
                let free = f == t || last.op.is_yield() || self.enabled_at(&child, f) != Some(true);
                // A fault taken costs a preemption whatever the order.
                let cost = self.choices.cost(self.event_of(f, back), last.value);
                child[f] = back;
                stack.last_mut().expect("still there").add = u32::from(!free) + cost;
                match self.cb_frame(child, f) {
                    Ok(frame) => stack.push(frame),
                    Err(done) => returned = Some(done),
                }
                continue;
            }
            let frame = stack.pop().expect("still there");
            let best = if frame.best == u32::MAX { 0 } else { frame.best };
            if frame.exact {
                self.memo.insert(frame.key, best);
            }
            if stack.is_empty() {
                return best;
            }
            returned = Some((best, frame.exact));
        }
    }

    /// How many of actor `f`'s events a prefix that holds its first `k`
    /// keeps without the last: one fewer, or two for a weak load's choice
    /// of store, which goes with its load.
    fn back(&self, f: usize, k: u32) -> u32 {
        let events = self.history.of_actor(ActorId::from_index(f));
        match k.checked_sub(1).map(|k| events[k as usize]) {
            Some(i) if k >= 2 && self.is_load_choice(i) => k - 2,
            _ => k.saturating_sub(1),
        }
    }

    /// Whether event `i` is a weak load's choice of store: a data choice
    /// right after its actor's weak load (the engine asks for it during
    /// the load's access).
    fn is_load_choice(&self, i: usize) -> bool {
        let events = &self.history.events;
        i > 0
            && events[i].op == Op::Choose
            && events[i - 1].op == Op::WeakLoad
            && events[i - 1].actor == events[i].actor
    }

    /// The hash of event `i`'s action with `value` (for a weak load, the
    /// label of the store it read), its clock as the history has it and
    /// its objects named as when it was taken.
    fn event_hash(&self, i: usize, value: u64) -> u64 {
        let e = &self.history.events[i];
        let name = |o: ObjectId| self.names.get(o.index()).copied().flatten().map_or(0, |n| n.0);
        let objects = [e.object, e.second].map(|o| o.map(name));
        action_hash(e.actor, e.seq, e.op, objects, value, self.history.clock_of(i))
    }

    /// The actors whose last event in `cut` no other event of `cut`
    /// depends on: those that can be taken off it.
    fn frontier(&self, cut: &[u32]) -> Vec<usize> {
        (0..cut.len())
            .filter(|&f| {
                cut[f] > 0 && {
                    let seq = cut[f];
                    (0..cut.len()).all(|a| {
                        a == f || cut[a] == 0 || {
                            let last = self.event_of(a, cut[a] - 1);
                            component(self.history.clock_of(last), ActorId::from_index(f)) < seq
                        }
                    })
                }
            })
            .collect()
    }

    /// The hash of the action actor `a` takes next from the prefix `cut`
    /// (`None`: every event so far): `fp` with `value`, `peer` for a join.
    fn action_at(&mut self, cut: Option<&[u32]>, a: usize, fp: Footprint, value: u64, peer: Option<ActorId>) -> u64 {
        let actor = ActorId::from_index(a);
        let events = |who: ActorId| match cut {
            Some(cut) => cut.get(who.index()).copied().unwrap_or(0),
            None => self.history.of_actor(who).len() as u32,
        };
        let taken = events(actor);
        let mut clock = std::mem::take(&mut self.scratch);
        let mut preds = std::mem::take(&mut self.preds);
        self.history.clock_after(actor, taken, &mut clock);
        clock.set(actor, taken + 1);
        self.history.predecessors(fp, cut, &mut preds);
        for &p in &preds {
            clock.join(self.history.clock_of(p as usize));
        }
        if let (Op::Join, Some(p)) = (fp.op, peer) {
            let done = events(p);
            if done > 0 {
                clock.join(self.history.clock_of(self.event_of(p.index(), done - 1)));
            }
        }
        let objects = [fp.object, fp.second].map(|o| o.map(|o| self.name(o, actor, taken + 1, cut)));
        let hash = action_hash(actor, taken + 1, fp.op, objects, value, clock.as_slice());
        self.scratch = clock;
        self.preds = preds;
        hash
    }

    /// The name an object goes by in state hashes: the actor and event
    /// (index in the actor) that first touched it in this execution, or
    /// that would, for an object not touched yet. Ids number objects in
    /// the order of their first use in the whole execution, so two
    /// interleavings of independent steps that first touch two objects in
    /// the other order number them apart; this name does not.
    fn name(&self, object: ObjectId, actor: ActorId, seq: u32, cut: Option<&[u32]>) -> u64 {
        match self.names.get(object.index()).copied().flatten() {
            Some((name, first)) if cut.is_none_or(|cut| self.inside(cut, first)) => name,
            _ => u64::from(seq) << 32 | actor.index() as u64,
        }
    }

    /// The hashes of the states actor `a`'s next step from `cut` can lead
    /// to (one per value of a data choice), in a terminal execution.
    fn successors(&mut self, cut: &[u32], a: usize) -> Vec<u64> {
        let base = self.cut_hash(cut);
        let i = self.event_of(a, cut[a]);
        let (op, fp, value, peer) = {
            let e = &self.history.events[i];
            (e.op, e.footprint(), e.value, e.peer)
        };
        if op == Op::WeakLoad {
            // One per store it read here (all its choice's, or the one).
            let labels: Vec<u64> = match self.stores_after_load(i) {
                Some(stores) => stores.to_vec(),
                None => self.choices.read_at(i).into_iter().collect(),
            };
            return labels.into_iter().map(|label| base ^ self.action_at(Some(cut), a, fp, label, None)).collect();
        }
        let values = self.choices.alternatives(i);
        (0..values)
            .map(|v| {
                let value = self.choices.of(i, if op == Op::Choose { v } else { value });
                base ^ self.action_at(Some(cut), a, fp, value, peer)
            })
            .collect()
    }

    /// Whether actor `a`'s next step from `cut` is a weak load
    /// ([`Op::WeakLoad`]) and `cut` holds a store to its atomic that this
    /// execution made after the load (and its choice): in `cut`'s order
    /// the load could also read that store, which no label this
    /// execution knows names, so the successors of `cut` are not known.
    /// (A weak load is ordered after no store, so such a prefix is one
    /// some execution reaches.)
    fn weak_load_unknown(&self, cut: &[u32], a: usize) -> bool {
        let taken = cut.get(a).copied().unwrap_or(0) as usize;
        let Some(&load) = self.history.of_actor(ActorId::from_index(a)).get(taken) else { return false };
        let e = &self.history.events[load];
        if e.op != Op::WeakLoad {
            return false;
        }
        let end = if self.stores_after_load(load).is_some() { load + 1 } else { load };
        e.object.and_then(|o| self.history.last_write_inside(o, cut)).is_some_and(|w| w > end)
    }

    /// The labels of the stores weak load `i` could read, when it made a
    /// choice among them (its next event).
    fn stores_after_load(&self, i: usize) -> Option<&[u64]> {
        let next = i + 1;
        (next < self.history.events.len() && self.is_load_choice(next)).then(|| self.choices.stores(next)).flatten()
    }

    /// Keeps each table within `table_cap` entries by forgetting a full
    /// one. Sound: `H` and the budget tables only prune (a state missing
    /// from them is explored again; an alternative closed while its state
    /// was in `H` was covered then, and stays so), and `memo` is a cache
    /// of `CB`. Memory then levels off however long the search runs.
    fn bound_tables(&mut self) {
        let cap = self.table_cap;
        if self.visited.len() >= cap {
            self.visited.clear();
        }
        if self.memo.len() >= cap {
            self.memo.clear();
        }
        // The two budget tables answer one question: forget them together.
        if self.budgets.len() >= cap || self.budgets_any.len() >= cap {
            self.budgets.clear();
            self.budgets_any.clear();
        }
    }

    /// The hash of event `i`'s action as the history has it now (its
    /// objects named as when it was taken).
    fn action_of(&self, i: usize) -> u64 {
        if self.is_load_choice(i) {
            // Its load is named by the store read (`event_hash`).
            return 0;
        }
        let e = &self.history.events[i];
        if e.op == Op::WeakLoad {
            return self.choices.read_at(i).map_or(0, |label| self.event_hash(i, label));
        }
        self.event_hash(i, self.choices.of(i, e.value))
    }

    /// `Mark(s)` (Algorithm 2, lines 15-22) on the terminal state of the
    /// running execution, with an explicit stack in place of recursion.
    fn mark(&mut self) {
        struct Frame {
            cut: Vec<u32>,
            frontier: Vec<usize>,
            next: usize,
        }
        let enter = |me: &mut CbPor, cut: Vec<u32>| -> Frame {
            me.visited.insert(me.cut_hash(&cut));
            let frontier = me.frontier(&cut);
            Frame { cut, frontier, next: 0 }
        };
        let mut stack = vec![enter(self, self.full_cut())];
        while let Some(top) = stack.last_mut() {
            if top.next == top.frontier.len() {
                stack.pop();
                continue;
            }
            if self.budget < top.cut.len() {
                return;
            }
            self.budget -= top.cut.len();
            let f = top.frontier[top.next];
            top.next += 1;
            let mut x = top.cut.clone();
            x[f] = self.back(f, x[f]);
            let hash = self.cut_hash(&x);
            // Line 17 asks `CB(x, f) <= bound` too; marking a state with
            // every successor done is sound whatever its bound (it only
            // marks one the search may never meet), and skipping the
            // question saves a `CB` computation per prefix.
            if !self.visited.contains(&hash) && self.all_successors_done(&x) {
                let frame = enter(self, x);
                stack.push(frame);
            }
        }
    }

    /// Line 18: every enabled thread's successor of `cut` is in `H` or
    /// beyond the bound (a thread whose enabledness is unknown counts as
    /// enabled). `CB` is computed only for a successor not in `H`.
    fn all_successors_done(&mut self, cut: &[u32]) -> bool {
        for a in 0..cut.len() {
            if self.enabled_at(cut, a) == Some(false) {
                continue;
            }
            if self.weak_load_unknown(cut, a) {
                return false;
            }
            let successors = self.successors(cut, a);
            if successors.iter().any(|h| !self.visited.contains(h)) && self.cb(cut, a) <= self.bound {
                return false;
            }
        }
        true
    }

    /// Adds a node for a scheduling point with these alternatives and
    /// takes the first that passes the guard of line 9; with none, records
    /// the point in the budget table (every continuation is covered).
    fn push_node(
        &mut self,
        value: bool,
        mut alts: Vec<Alt>,
        budget: Option<Budgeted>,
        signature: Signature,
    ) -> Option<u32> {
        let (state, depth) = (self.hash, self.history.events.len());
        let Some(taken) = (0..alts.len()).find(|&i| self.open(&mut alts[i], state, None)) else {
            if let Some(b) = budget {
                self.record(b);
            }
            return None;
        };
        let id = alts[taken].id;
        let stop = alts.len();
        self.nodes.push(Node {
            value,
            state,
            depth,
            alts: Alts::Many(alts),
            taken,
            budget,
            stop,
            shared: false,
            signature: Some(signature),
        });
        Some(id)
    }

    /// The guard of Algorithm 2, line 9: within the bound and not in `H`
    /// (nor covered by the budget table). Works the alternative's state
    /// out if it is not known yet, from `state`, the hash of its node's,
    /// and `cut`, its node's prefix of the history (`None`: all of it).
    fn open(&mut self, alt: &mut Alt, state: u64, cut: Option<&[u32]>) -> bool {
        if alt.spent > self.bound {
            self.cut_by_bound = true;
            return false;
        }
        if let Next::Unknown { actor, fp, value } = alt.next {
            alt.next = Next::Known(Some(state ^ self.action_at(cut, actor as usize, fp, value, None)));
        }
        let Next::Known(next) = alt.next else { unreachable!("worked out above") };
        next.is_none_or(|h| !self.visited.contains(&h) && (self.yielded || !self.covered(h, None, alt.spent)))
    }

    /// Records in the budget table that every continuation within the
    /// bound from `b`'s state was explored.
    fn record(&mut self, b: Budgeted) {
        let exact = self.budgets.entry((b.state, b.key)).or_insert(u32::MAX);
        *exact = (*exact).min(b.spent);
        let any = self.budgets_any.entry(b.state).or_insert(u32::MAX);
        *any = (*any).min(b.spent);
    }

    /// Whether the budget table covers a state reached with `spent`
    /// preemptions and switch key `key` (`None` when not known yet: the
    /// key of a successor is known only at its own scheduling point). An
    /// exploration from the state with a key that charges no more (the
    /// same key, or `0`) and no more spent covers it; with another key it
    /// needs one preemption less, since a key changes the cost of the
    /// first switch only.
    fn covered(&self, state: u64, key: Option<u32>, spent: u32) -> bool {
        let at = |k: u32| self.budgets.get(&(state, k)).is_some_and(|&p| p <= spent);
        at(0)
            || key.is_some_and(|k| k != 0 && at(k))
            || self.budgets_any.get(&state).is_some_and(|&p| p.saturating_add(1) <= spent)
    }

    fn grow(&mut self, a: usize) {
        while self.prefix.len() <= a {
            self.prefix.push(vec![0]);
        }
    }

    fn mismatch(&self) -> ChoiceError {
        ChoiceError::Nondeterminism {
            detail: format!(
                "replaying the same prefix, step {} offered a choice the earlier execution did not have",
                self.depth
            ),
        }
    }
}

/// Whether an operation can block its actor (wait for another's step).
fn can_block(op: Op) -> bool {
    matches!(
        op,
        Op::Lock
            | Op::ReadLock
            | Op::Join
            | Op::Park
            | Op::Wait
            | Op::BarrierWait
            | Op::CallOnce
            | Op::Send
            | Op::Recv
            | Op::Poll
    )
}

/// A 64-bit hash of one action (section 3.3's universal hash, here a fixed
/// mix of its fields: the same action hashes the same in every execution).
fn action_hash(actor: ActorId, n: u32, op: Op, objects: [Option<u64>; 2], value: u64, clock: &[u32]) -> u64 {
    let mut h = mix(0x9e37_79b9_7f4a_7c15 ^ actor.index() as u64);
    h = mix(h ^ u64::from(n));
    h = mix(h ^ Op::ALL.iter().position(|&o| o == op).unwrap_or(0) as u64);
    for object in objects {
        h = mix(h ^ object.unwrap_or(u64::MAX));
    }
    h = mix(h ^ value);
    for (i, &c) in canonical(clock).iter().enumerate() {
        h = mix(h ^ ((i as u64) << 32 | u64::from(c)));
    }
    h
}

/// splitmix64's finalizer.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Strategy for CbPor {
    fn name(&self) -> &'static str {
        "cb-por"
    }

    fn begin_execution(&mut self) -> bool {
        // A worker stops when any worker found a failure.
        if self.exhausted || self.member.as_ref().is_some_and(Member::any_failed) {
            return false;
        }
        if self.idle {
            // This worker's part is explored: take another's, unless a
            // failure was found (then every worker stops).
            let member = self.member.as_mut().expect("only workers are idle");
            match member.take().filter(|_| !member.any_failed()) {
                Some(nodes) => (self.floor, self.nodes, self.idle) = (nodes.len() - 1, nodes, false),
                None => {
                    self.exhausted = true;
                    return false;
                }
            }
        }
        self.depth = 0;
        self.history.clear();
        self.prefix.clear();
        self.hash = 0;
        self.preemptions = 0;
        self.names.clear();
        self.yielded = false;
        self.choices.clear();
        self.blocked = false;
        self.cut_short = false;
        self.pending.clear();
        self.split.begin();
        true
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        if let Some(node) = self.nodes.get(self.depth) {
            let alt = node.alts.get(node.taken);
            let fits = !node.value && point.enabled.iter().any(|a| a.index() as u32 == alt.id);
            let known = node.signature;
            self.split.take(alt.id, point.enabled.len());
            if !fits {
                return Err(self.mismatch());
            }
            known.map_or(Ok(()), |s| s.replayed(Signature::of(point)))?;
            return Ok(ActorId::from_index(alt.id as usize));
        }
        if self.split.is_elsewhere() {
            // Another shard's: not terminal, so not marked.
            self.cut_short = true;
            return Err(ChoiceError::Redundant);
        }
        // After a yield the fair scheduler's state decides, with the
        // program's, who may run from here on: it is part of the key.
        let budget =
            Some(Budgeted { state: self.hash ^ point.fairness(), key: switch_key(point), spent: self.preemptions });
        if self.blocked || budget.is_some_and(|b| self.covered(b.state, Some(b.key), b.spent)) {
            // Every continuation is explored already.
            self.cut_short = true;
            return Err(ChoiceError::Redundant);
        }
        self.pending.clear();
        self.pending.extend(point.actors.iter().map(|v| v.pending.map(|p| p.footprint())));
        // The running actor first: fewer preemptions first.
        let mut order: Vec<ActorId> = point.current.into_iter().collect();
        order.extend(point.enabled.iter().copied().filter(|&a| Some(a) != point.current));
        let mut alts = Vec::with_capacity(order.len());
        for a in order {
            self.grow(a.index());
            let pending = point.pending(a).expect("an enabled actor has a pending operation");
            // A join's peer is not known before it is taken, nor what a
            // weak load will read: no prediction.
            let next = match pending.op {
                Op::Join | Op::WeakLoad => Next::Known(None),
                _ => Next::Unknown { actor: a.index() as u32, fp: pending.footprint(), value: 0 },
            };
            let spent = self.preemptions + u32::from(point.preempts(a));
            alts.push(Alt { id: a.index() as u32, next, spent });
        }
        match self.push_node(false, alts, budget, Signature::of(point)) {
            Some(id) => {
                self.split.take(id, point.enabled.len());
                Ok(ActorId::from_index(id as usize))
            }
            // Every continuation is in `H`, covered, or beyond the bound.
            None => {
                self.cut_short = true;
                Err(ChoiceError::Redundant)
            }
        }
    }

    fn choose_value(&mut self, point: &ChoicePoint<'_>) -> Result<usize, ChoiceError> {
        self.choices.record(self.depth, point, &self.history);
        if let Some(node) = self.nodes.get(self.depth) {
            let alt = node.alts.get(node.taken);
            self.split.take(alt.id, point.alternatives);
            return if node.value && (alt.id as usize) < point.alternatives {
                node.signature.map_or(Ok(()), |s| s.replayed(Signature::of_value(point)))?;
                Ok(alt.id as usize)
            } else {
                Err(self.mismatch())
            };
        }
        if self.split.is_elsewhere() {
            self.cut_short = true;
            return Err(ChoiceError::Redundant);
        }
        let actor = point.actor.index();
        self.grow(actor);
        let fp = Footprint { op: Op::Choose, object: None, second: None, seq_cst: false };
        // A weak load's choice: each value names the load by its store.
        let load = self.history.events.len().checked_sub(1).filter(|&i| {
            let e = &self.history.events[i];
            e.op == Op::WeakLoad && e.actor == point.actor && point.sources.is_some()
        });
        let alts = (0..point.alternatives as u32)
            .map(|v| {
                let value = self.choices.of(self.depth, v);
                let spent = self.preemptions + self.choices.cost(self.depth, v);
                let next = match load {
                    Some(i) => Next::Known(Some(self.hash ^ self.event_hash(i, value))),
                    None => Next::Unknown { actor: actor as u32, fp, value },
                };
                Alt { id: v, next, spent }
            })
            .collect();
        match self.push_node(true, alts, None, Signature::of_value(point)) {
            Some(v) => {
                self.split.take(v, point.alternatives);
                Ok(v as usize)
            }
            // Every value leads into `H`: explored already.
            None => {
                self.cut_short = true;
                Err(ChoiceError::Redundant)
            }
        }
    }

    fn observes_steps(&self) -> bool {
        true
    }

    fn on_step(&mut self, step: &Step) {
        let a = step.actor.index();
        self.grow(a);
        if let Some(child) = step.peer.filter(|_| step.pending.op == Op::Spawn) {
            self.grow(child.index());
        }
        let forced = self.nodes.len() == self.depth;
        // A state with one successor continues the same whoever ran last:
        // the budget table keys it with the free key.
        let alone = (forced && step.alone && !self.yielded).then_some(Budgeted {
            state: self.hash,
            key: 0,
            spent: self.preemptions,
        });
        // A fault the platform injects costs a preemption (`icb.rs`).
        self.preemptions += u32::from(step.preempt) + self.choices.cost(self.depth, step.value);
        self.yielded |= step.pending.op.is_yield();
        let i = self.history.push(step);
        let e = &self.history.events[i];
        let objects = [e.object, e.second].map(|o| {
            o.map(|o| {
                if self.names.len() <= o.index() {
                    self.names.resize(o.index() + 1, None);
                }
                self.names[o.index()].get_or_insert((u64::from(e.seq) << 32 | e.actor.index() as u64, i)).0
            })
        });
        // A weak load is named once it is known what it read (`on_read`);
        // its choice adds nothing.
        let h = if e.op == Op::WeakLoad || self.is_load_choice(i) {
            0
        } else {
            action_hash(e.actor, e.seq, e.op, objects, self.choices.of(i, e.value), self.history.clock_of(i))
        };
        let last = *self.prefix[a].last().expect("a prefix starts with 0");
        self.prefix[a].push(last ^ h);
        self.hash ^= h;
        // A state in `H` (reached by a forced step, or by a choice whose
        // successor could not be foretold: a join): the rest of this
        // execution is redundant.
        if self.visited.contains(&self.hash) {
            self.blocked = true;
        }
        if forced {
            // The only actor that could go: a frame with one alternative.
            self.nodes.push(Node {
                value: false,
                state: self.hash ^ h,
                depth: i,
                alts: Alts::One(Alt { id: a as u32, next: Next::Known(Some(self.hash)), spent: self.preemptions }),
                taken: 0,
                budget: alone,
                stop: 1,
                shared: false,
                signature: None,
            });
        }
        self.depth += 1;
    }

    fn on_read(&mut self, source: u32) {
        // The weak load just taken (with its choice, if it made one) read
        // the store of step `source`: that names it in the state.
        let Some(last) = self.history.events.len().checked_sub(1) else { return };
        let load = if self.is_load_choice(last) { last - 1 } else { last };
        if self.history.events[load].op != Op::WeakLoad {
            return;
        }
        self.choices.read(load, source, &self.history);
        let h = self.action_of(load);
        let (a, seq) = (self.history.events[load].actor.index(), self.history.events[load].seq as usize);
        for p in &mut self.prefix[a][seq..] {
            *p ^= h;
        }
        self.hash ^= h;
        if let Some(node) = self.nodes.iter_mut().rev().take(2).find(|n| n.depth == load && !n.value) {
            if let Alts::One(alt) = &mut node.alts {
                alt.next = Next::Known(Some(self.hash));
            }
        }
        if self.visited.contains(&self.hash) {
            self.blocked = true;
        }
    }

    fn on_end(&mut self, object: ObjectId) {
        // The step just taken also ended a thread. Its action changes only
        // if that orders it after an `is_finished` it did not come after
        // (its clock grows); then so does the state reached.
        let Some(i) = self.history.events.len().checked_sub(1) else { return };
        let before = self.action_of(i);
        if !self.history.end(object).is_some_and(|(_, grew)| grew) {
            return;
        }
        let after = self.action_of(i);
        let a = self.history.events[i].actor.index();
        if let Some(last) = self.prefix[a].last_mut() {
            *last ^= before ^ after;
        }
        self.hash ^= before ^ after;
        if let Some(node) = self.nodes.last_mut().filter(|n| n.depth == i && !n.value) {
            if let Alts::One(alt) = &mut node.alts {
                alt.next = Next::Known(Some(self.hash));
            }
        }
        if self.visited.contains(&self.hash) {
            self.blocked = true;
        }
    }

    fn end_execution(&mut self, outcome: &Outcome) {
        self.elsewhere = self.split.end();
        // A terminal state (every actor finished): `Mark` it. An execution
        // cut short or failing is not terminal.
        if *outcome == Outcome::Pass && !self.blocked && !self.cut_short {
            self.pending.clear();
            self.budget = MARK_BASE + self.history.events.len() / MARK_STEPS_PER_UNIT;
            self.mark();
        }
        self.bound_tables();
        // Back in the deepest `Search` frame with an open alternative, now
        // (not at the next execution's start) so that `exhausted` is known
        // as soon as the last execution ends; the frames done on the way
        // are recorded in the budget table.
        if !outcome.is_pass() && !self.elsewhere {
            let rank: Vec<u32> =
                self.nodes[..self.depth.min(self.nodes.len())].iter().map(|n| n.taken as u32).collect();
            if let Some(member) = &self.member {
                member.failed(&rank);
            }
            self.failed = Some(rank);
        }
        self.yielded = false;
        while let Some(mut node) = self.nodes.pop() {
            // The last execution went through this node: its first `depth`
            // steps are the node's state, to work alternatives out from.
            let end = node.stop.min(node.alts.as_mut().len());
            if node.taken + 1 < end {
                let cut = self.history.prefix_cut(node.depth);
                let alts = node.alts.as_mut();
                let next = (node.taken + 1..end).find(|&i| self.open(&mut alts[i], node.state, Some(&cut[..])));
                if let Some(i) = next {
                    node.taken = i;
                    self.nodes.push(node);
                    if self.member.as_ref().is_some_and(Member::hungry) {
                        self.give_away();
                    }
                    return;
                }
            }
            if let Some(b) = node.budget.filter(|_| !node.shared) {
                self.record(b);
            }
            if self.nodes.len() == self.floor {
                // The root of this worker's part.
                break;
            }
        }
        match &self.member {
            Some(member) => {
                if self.cut_by_bound {
                    member.flag();
                }
                self.idle = true;
            }
            None => self.exhausted = true,
        }
    }

    fn elsewhere(&self) -> bool {
        self.elsewhere
    }

    fn exhausted(&self) -> bool {
        self.exhausted
    }

    fn completed_bound(&self) -> Option<u32> {
        self.exhausted.then_some(self.bound)
    }

    fn bounded(&self) -> bool {
        // With workers: whether any worker's part left some out.
        self.cut_by_bound || self.member.as_ref().is_some_and(Member::flagged)
    }

    fn progress(&self) -> Option<String> {
        Some(format!("bound {}, {} states known explored", self.bound, self.visited.len() + self.budgets_any.len()))
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
#[path = "cb_por_tests.rs"]
mod tests;
