//! Partial-order reduction that stays sound under a preemption bound.
//!
//! Musuvathi and Qadeer, "Partial-Order Reduction for Context-Bounded State
//! Exploration" (por-for-context-bounded-search.txt). Sleep sets plus a
//! bound are unsound (section 1, Fig. 1): a sleeping thread's branch may be
//! covered only by an execution the bound pruned. Instead, states are
//! happens-before graphs, remembered in a table `H`, and each step carries
//! the least preemption count of any execution ending with it, `CB(s, t)`.
//!
//! - Algorithm 2 (section 3.1), run statelessly: every scheduling point of
//!   the running execution is a `Search(s)` frame; an alternative `t` is
//!   taken only if `next(s, t)` is not in `H` and `CB(s, t) <= bound`. Only
//!   `Mark` adds states: at the end of an execution (a terminal state) it
//!   adds the state, then each prefix all of whose bounded successors are
//!   in `H`, recursively (lines 15-22).
//! - States are hashed incrementally (section 3.3): an action is its actor,
//!   its index in the actor, its operation, object and chosen value, and its
//!   vector clock (which is what the paper's `<o, t, n, v, m>` tuple
//!   encodes, extended to operations that are not reads or writes); a state
//!   is the XOR of its actions' hashes.
//! - `CB(s, t)` by dynamic programming over prefixes with memoization
//!   (section 3.2): `CB(s, t) = min over frontier threads t' of
//!   CB(s - t', t') + (t' = t or t' not enabled in s ? 0 : 1)`, keyed by the
//!   state's hash across executions. Switching away from an actor whose
//!   last step was a yield is free, as in iterative context bounding.
//!
//! Prefixes that no execution visited need "is this thread enabled here?"
//! answered without running the program. A thread that does not exist yet
//! or has finished is not; a blocking lock is enabled when nobody holds the
//! lock in the prefix; a join when the joined thread has finished; every
//! operation that cannot block is. Other blocking operations are unknown,
//! and each use takes the safe side: an unknown thread costs no preemption
//! in `CB` (so `CB` is never overestimated and nothing within the bound is
//! pruned), and must have its successor in `H` before `Mark` adds a prefix.
//! Object and actor ids are numbered in creation order, so two equivalent
//! executions that create objects in another order hash differently: the
//! search then explores both (more executions, never fewer).

use std::collections::{HashMap, HashSet};

use samaritan_sim::{
    ActorId, ActorView, ChoiceError, ChoicePoint, ObjectId, Op, Outcome, SchedulePoint, Step, Strategy,
};

use crate::hb::{Clock, History};

/// Work allowed for one `CB` computation or one `Mark` walk, in prefixes
/// visited; past it `CB` falls back to 0 (explore) and `Mark` stops (keep
/// less in `H`): both the safe side, at the cost of reduction.
const PREFIX_BUDGET: usize = 200_000;

/// One alternative at a node: an actor or a value, the hash of the state it
/// leads to (when it can be predicted) and its preemption count.
#[derive(Clone, Copy, Debug)]
struct Alt {
    id: u32,
    next: Option<u64>,
    cb: u32,
}

/// A `Search(s)` frame.
#[derive(Debug)]
struct Node {
    /// Whether the alternatives are values of a data choice.
    value: bool,
    alts: Vec<Alt>,
    /// Index into `alts` of the alternative the current branch takes.
    taken: usize,
    tried: Vec<usize>,
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
    /// Alternatives of the data choices of the running execution, by step.
    choices: HashMap<usize, u32>,
    /// `H`: states every bounded terminal continuation of which was explored.
    visited: HashSet<u64>,
    /// `CB(s, t)` by `(hash of s, t)`.
    memo: HashMap<(u64, u32), u32>,
    /// The running execution reached a state in `H` by a forced step.
    blocked: bool,
    /// The running execution was cut short as redundant.
    cut_short: bool,
    /// Each actor's pending operation at the latest scheduling point: its
    /// next step in every prefix that holds all its events.
    pending: Vec<Option<(Op, Option<ObjectId>)>>,
    started: bool,
    exhausted: bool,
    /// Whether some alternative was left out for exceeding the bound.
    cut_by_bound: bool,
    /// Prefixes visited by the `CB` or `Mark` computation running now.
    work: usize,
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
            choices: HashMap::new(),
            visited: HashSet::new(),
            memo: HashMap::new(),
            blocked: false,
            cut_short: false,
            pending: Vec::new(),
            started: false,
            exhausted: false,
            cut_by_bound: false,
            work: 0,
        }
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
    /// not show. `views` gives the truth for the full cut at a scheduling
    /// point.
    fn enabled_at(&self, cut: &[u32], a: usize, views: Option<&[ActorView]>) -> Option<bool> {
        if let Some(views) = views {
            return Some(views.get(a).is_some_and(|v| v.enabled));
        }
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
                Some((op, object)) => (op, object, None),
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

    /// `CB(cut, t)` (section 3.2), memoized by the prefix's hash.
    fn cb(&mut self, cut: &mut Vec<u32>, t: usize, views: Option<&[ActorView]>) -> u32 {
        if cut.iter().all(|&k| k == 0) {
            return 0;
        }
        let key = (self.cut_hash(cut), t as u32);
        if let Some(&known) = self.memo.get(&key) {
            return known;
        }
        self.work += 1;
        if self.work > PREFIX_BUDGET {
            return 0;
        }
        let mut best = u32::MAX;
        for f in self.frontier(cut) {
            let last = &self.history.events[self.event_of(f, cut[f] - 1)];
            let free = f == t || last.op.is_yield() || self.enabled_at(cut, f, views) != Some(true);
            cut[f] -= 1;
            let before = self.cb(cut, f, None);
            cut[f] += 1;
            best = best.min(before + u32::from(!free));
        }
        let best = if best == u32::MAX { 0 } else { best };
        if self.work <= PREFIX_BUDGET {
            self.memo.insert(key, best);
        }
        best
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
                            let last = &self.history.events[self.event_of(a, cut[a] - 1)];
                            last.clock.get(ActorId::from_index(f)) < seq
                        }
                    })
                }
            })
            .collect()
    }

    /// The hash of the action actor `a` takes next from `cut`: `op` on
    /// `object` with `value`, `peer` for a join.
    fn action_at(
        &self,
        cut: &[u32],
        a: usize,
        op: Op,
        object: Option<ObjectId>,
        value: u32,
        peer: Option<ActorId>,
    ) -> u64 {
        let actor = ActorId::from_index(a);
        let taken = cut.get(a).copied().unwrap_or(0);
        let mut clock = match taken {
            0 => self.history.start_clock(actor),
            k => self.history.events[self.event_of(a, k - 1)].clock.clone(),
        };
        clock.set(actor, taken + 1);
        for p in self.history.predecessors_within(op, object, Some(cut)) {
            clock.join(&self.history.events[p].clock);
        }
        if let (Op::Join, Some(p)) = (op, peer) {
            let done = cut.get(p.index()).copied().unwrap_or(0);
            if done > 0 {
                clock.join(&self.history.events[self.event_of(p.index(), done - 1)].clock.clone());
            }
        }
        action_hash(actor, taken + 1, op, object, value, &clock)
    }

    /// The hashes of the states actor `a`'s next step from `cut` can lead
    /// to (one per value of a data choice), in a terminal execution.
    fn successors(&self, cut: &[u32], a: usize) -> Vec<u64> {
        let base = self.cut_hash(cut);
        let taken = cut[a];
        let i = self.event_of(a, taken);
        let e = &self.history.events[i];
        let values = self.choices.get(&i).copied().unwrap_or(1).max(1);
        (0..values)
            .map(|v| {
                let value = if e.op == Op::Choose { v } else { e.value };
                base ^ self.action_at(cut, a, e.op, e.object, value, e.peer)
            })
            .collect()
    }

    /// `Mark(s)` (Algorithm 2, lines 15-22) on the prefix `cut` of the
    /// terminal state of the running execution.
    fn mark(&mut self, cut: &mut Vec<u32>) {
        self.visited.insert(self.cut_hash(cut));
        for f in self.frontier(cut) {
            self.work += 1;
            if self.work > PREFIX_BUDGET {
                return;
            }
            cut[f] -= 1;
            let hash = self.cut_hash(cut);
            if !self.visited.contains(&hash) && self.cb(cut, f, None) <= self.bound && self.all_successors_done(cut) {
                self.mark(cut);
            }
            cut[f] += 1;
        }
    }

    /// Line 18: every enabled thread's successor of `cut` is in `H` or
    /// beyond the bound (a thread whose enabledness is unknown counts as
    /// enabled).
    fn all_successors_done(&mut self, cut: &mut Vec<u32>) -> bool {
        for a in 0..cut.len() {
            if self.enabled_at(cut, a, None) == Some(false) {
                continue;
            }
            let successors = self.successors(cut, a);
            if successors.iter().any(|h| !self.visited.contains(h)) && self.cb(cut, a, None) <= self.bound {
                return false;
            }
        }
        true
    }

    /// Adds a node for a scheduling point with these alternatives and
    /// takes the first that passes the guard of line 9.
    fn push_node(&mut self, value: bool, alts: Vec<Alt>) -> Option<u32> {
        let taken = alts.iter().position(|alt| self.open(alt))?;
        let id = alts[taken].id;
        self.nodes.push(Node { value, alts, taken, tried: vec![taken] });
        Some(id)
    }

    /// The guard of Algorithm 2, line 9: not in `H` and within the bound.
    fn open(&mut self, alt: &Alt) -> bool {
        if alt.cb > self.bound {
            self.cut_by_bound = true;
            return false;
        }
        alt.next.is_none_or(|h| !self.visited.contains(&h))
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
fn action_hash(actor: ActorId, n: u32, op: Op, object: Option<ObjectId>, value: u32, clock: &Clock) -> u64 {
    let mut h = mix(0x9e37_79b9_7f4a_7c15 ^ actor.index() as u64);
    h = mix(h ^ u64::from(n));
    h = mix(h ^ Op::ALL.iter().position(|&o| o == op).unwrap_or(0) as u64);
    h = mix(h ^ object.map_or(u64::MAX, |o| o.index() as u64));
    h = mix(h ^ u64::from(value));
    for (i, &c) in clock.components().iter().enumerate() {
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
        if self.exhausted {
            return false;
        }
        self.depth = 0;
        self.history.clear();
        self.prefix.clear();
        self.hash = 0;
        self.choices.clear();
        self.blocked = false;
        self.cut_short = false;
        self.pending.clear();
        if !self.started {
            self.started = true;
            return true;
        }
        // Back in the deepest `Search` frame with an open alternative.
        while let Some(mut node) = self.nodes.pop() {
            let next = (0..node.alts.len()).find(|&i| !node.tried.contains(&i) && self.open(&node.alts[i]));
            if let Some(i) = next {
                node.taken = i;
                node.tried.push(i);
                self.nodes.push(node);
                return true;
            }
        }
        self.exhausted = true;
        false
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        if let Some(node) = self.nodes.get(self.depth) {
            let alt = node.alts[node.taken];
            let fits = !node.value && point.enabled.iter().any(|a| a.index() as u32 == alt.id);
            return if fits { Ok(ActorId::from_index(alt.id as usize)) } else { Err(self.mismatch()) };
        }
        if self.blocked {
            self.cut_short = true;
            return Err(ChoiceError::Redundant);
        }
        self.pending = point.actors.iter().map(|v| v.pending.map(|p| (p.op, p.object))).collect();
        // The running actor first: fewer preemptions first.
        let mut order: Vec<ActorId> = point.current.into_iter().collect();
        order.extend(point.enabled.iter().copied().filter(|&a| Some(a) != point.current));
        let mut cut = self.full_cut();
        let mut alts = Vec::with_capacity(order.len());
        for a in order {
            self.grow(a.index());
            if cut.len() <= a.index() {
                cut.resize(a.index() + 1, 0);
            }
            let pending = point.pending(a).expect("an enabled actor has a pending operation");
            // A join's peer is not known before it is taken: no prediction.
            let next = (pending.op != Op::Join)
                .then(|| self.hash ^ self.action_at(&cut, a.index(), pending.op, pending.object, 0, None));
            self.work = 0;
            let cb = self.cb(&mut cut, a.index(), Some(point.actors));
            alts.push(Alt { id: a.index() as u32, next, cb });
        }
        match self.push_node(false, alts) {
            Some(id) => Ok(ActorId::from_index(id as usize)),
            // Every continuation is in `H`: explored already.
            None => {
                self.cut_short = true;
                Err(ChoiceError::Redundant)
            }
        }
    }

    fn choose_value(&mut self, point: &ChoicePoint) -> Result<usize, ChoiceError> {
        self.choices.insert(self.depth, point.alternatives as u32);
        if let Some(node) = self.nodes.get(self.depth) {
            let alt = node.alts[node.taken];
            return if node.value && (alt.id as usize) < point.alternatives {
                Ok(alt.id as usize)
            } else {
                Err(self.mismatch())
            };
        }
        let actor = point.actor.index();
        self.grow(actor);
        let mut cut = self.full_cut();
        if cut.len() <= actor {
            cut.resize(actor + 1, 0);
        }
        let alts = (0..point.alternatives as u32)
            .map(|v| {
                let next = self.hash ^ self.action_at(&cut, actor, Op::Choose, None, v, None);
                Alt { id: v, next: Some(next), cb: 0 }
            })
            .collect();
        match self.push_node(true, alts) {
            Some(v) => Ok(v as usize),
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
        let i = self.history.push(step);
        let e = &self.history.events[i];
        let h = action_hash(e.actor, e.seq, e.op, e.object, e.value, &e.clock);
        let last = *self.prefix[a].last().expect("a prefix starts with 0");
        self.prefix[a].push(last ^ h);
        self.hash ^= h;
        if forced {
            // The only enabled actor: a frame with one alternative. If its
            // successor is in `H`, the rest of this execution is redundant.
            if self.visited.contains(&self.hash) {
                self.blocked = true;
            }
            self.nodes.push(Node {
                value: false,
                alts: vec![Alt { id: a as u32, next: Some(self.hash), cb: 0 }],
                taken: 0,
                tried: vec![0],
            });
        }
        self.depth += 1;
    }

    fn end_execution(&mut self, outcome: &Outcome) {
        // A terminal state (every actor finished): `Mark` it. An execution
        // cut short or failing is not terminal.
        if *outcome == Outcome::Pass && !self.blocked && !self.cut_short {
            self.pending.clear();
            self.work = 0;
            let mut cut = self.full_cut();
            self.mark(&mut cut);
        }
    }

    fn exhausted(&self) -> bool {
        self.exhausted
    }

    fn completed_bound(&self) -> Option<u32> {
        self.exhausted.then_some(self.bound)
    }

    fn bounded(&self) -> bool {
        self.cut_by_bound
    }
}
