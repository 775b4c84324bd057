//! Dynamic partial-order reduction with sleep sets.
//!
//! Flanagan and Godefroid's algorithm as the inspect paper gives it
//! (inspect-runtime-model-checking-dpor.txt, section 2.3, Fig. 2), with
//! sleep sets (section 1: "additionally sleep-sets") and locksets to skip
//! pairs that are never enabled together (section 4.4). It is stateless:
//! each execution replays a prefix of the search stack and extends it.
//!
//! - One node per step of the running execution, forced steps included
//!   (the engine shows them through [`Strategy::on_step`]): the actors that
//!   could be chosen, the one chosen, the backtrack, done and sleep sets.
//! - After every step the step is checked against the earlier steps it
//!   races with (Fig. 2, `update_backtrack_info`): for a step `t_n` of
//!   actor `p`, each earlier dependent step `t_d` of another actor that
//!   does not happen before `p`'s state and may be co-enabled with `t_n`
//!   adds a thread to the backtrack set of the state `t_d` was taken from.
//!   Fig. 2 runs that check at every state for every thread's next
//!   operation; since a thread's next operation stays put until it is
//!   taken, checking each step when it is taken (and the operations still
//!   pending when an execution is cut short) covers the same pairs: every
//!   dependent step since `p`'s previous one, and the latest before it.
//! - Sleep sets: a choice fully explored at a node goes to sleep there; a
//!   sleeping actor stays asleep along a branch until a step dependent with
//!   its operation is taken, or until its operation would be taken as
//!   another one than when it went to sleep (a reference count's
//!   decrement that the others' decrements, independent of it, left the
//!   last: [`rt::step_as`](samaritan_sim::rt::step_as)). An execution whose choosable actors are all
//!   asleep is cut short ([`ChoiceError::Redundant`]).
//! - Weak loads ([`Op::WeakLoad`], the C11 model's loads that may read any
//!   readable store): a store taken before one is no race (taken after
//!   it, the load could still read every store it reads here: the
//!   store's branch covers the other order), a store taken after one is;
//!   a weak load leaves a sleeping store asleep, and a store wakes a
//!   sleeping weak load only for the stores made since it fell asleep
//!   (`sleep.rs`), whose choice of store then offers only those. So each
//!   way a load can read is explored from one order of it and the stores
//!   around it, not from each.
//!
//! Soundness holds for what the engine treats as dependent
//! ([`Footprint::dependent`](samaritan_sim::Footprint::dependent))
//! and for programs that terminate. Under the fair scheduler, programs that
//! never yield are unaffected (the fair filter is inert until a yield);
//! with yields, the search covers the fair executions the filter offers,
//! without a completeness proof.
//!
//! Workers ([`Dpor::team`]) share the search by work stealing (Yang et
//! al., "Distributed dynamic partial order reduction", SPIN 2007, as
//! `pool.rs` says): a worker asked for work gives one untried backtrack
//! choice of its shallowest node that has one. The taker gets the prefix
//! up to that node with every choice the giver knows of marked done (the
//! giver explores those), the given choice taken, and a sleep set holding
//! the choices ordered before it (explored, being explored, or given
//! before); the giver marks the choice done, and puts it to sleep at the
//! node only when it backtracks there, so that the two orders agree: the
//! branch the giver is in keeps the given choice awake, the given branch
//! has the giver's asleep. A backtrack point a worker's races add to a
//! node of its prefix that no one there knew of, it explores itself (two
//! workers may both add it: explored twice, never lost). So the workers
//! explore what one search explores in some order, a few executions more
//! in all; which ones, and so the count, depends on timing, and when one
//! finds a failure they all stop: the failure reported is the one whose
//! schedule comes first (by its choices) among those found by then.
//!
//! [`Dpor::hapset`] runs the same search with HaPSet coverage pruning
//! (`hapset.rs`): a backtrack choice is skipped when it offers no
//! predecessor pair the search has not covered yet. That mode is a
//! heuristic and not complete.

use std::sync::{Arc, Mutex, MutexGuard};

use samaritan_sim::{
    ActorId, ChoiceError, ChoicePoint, Footprint, ObjectId, Op, Outcome, Pending, SchedulePoint, Shard, Step, Strategy,
};

use crate::actors::ActorSet;
use crate::bpor::{switch_before, Bound, Charge, Price};
use crate::hapset::Coverage;
use crate::hb::{Clock, History};
use crate::pool::{team, Member};
use crate::shard::Split;
use crate::signature::Signature;
use crate::sleep::{allowed, Sleeper};

/// An operation an actor is about to take, with its object and location.
type Next = (ActorId, Pending);

#[derive(Clone, Debug)]
enum Kind {
    /// A choice of actor among `enabled`, whose operations `signature`
    /// hashes for a replay to check (`None`: a forced step, not asked).
    Actor { enabled: ActorSet, signature: Option<Signature> },
    /// A data choice among `alternatives` values; for a weak load that a
    /// partial sleeper made, only the `allowed` ones (ascending).
    Value { alternatives: u32, allowed: Option<Vec<u32>> },
}

/// The search state at one step: node `i` is the state step `i` of the
/// running execution is taken from. The operations of its actors are not
/// kept here: an actor's operation at node `i` is its next step from `i`
/// on in the last execution, or the one it still had pending at the end
/// ([`Dpor::pending_at`]).
#[derive(Clone, Debug)]
struct Node {
    kind: Kind,
    /// The actor (or value) the current branch takes.
    chosen: u32,
    /// For a data choice: the values from this one on are not this
    /// search's to explore (a worker's copy of a prefix it was given).
    stop: u32,
    /// Choices given to other workers at this node, with their
    /// operations: they go to sleep here when the search backtracks here.
    given: Vec<Next>,
    backtrack: ActorSet,
    done: ActorSet,
    /// Actors asleep here, with their operations.
    sleep: Vec<Sleeper>,
    /// In HaPSet mode, why each backtrack actor was wanted: the operation
    /// taken here and the later operation racing with it, which the actor
    /// lets come first.
    races: Vec<(ActorId, Pending, Pending)>,
    /// Under a preemption bound, what the choices here cost.
    price: Price,
}

impl Node {
    fn enabled(&self) -> Option<&ActorSet> {
        match &self.kind {
            Kind::Actor { enabled, .. } => Some(enabled),
            Kind::Value { .. } => None,
        }
    }

    fn asleep(&self, a: ActorId) -> bool {
        self.sleep.iter().any(|s| s.actor == a && s.blocks())
    }

    /// The value after `chosen` this search may explore next within
    /// `bound`, if any.
    fn next_value(&self, bound: Option<Bound>) -> Option<u32> {
        let Kind::Value { allowed, .. } = &self.kind else { return None };
        let next = match allowed {
            Some(allowed) => allowed.iter().copied().find(|&v| v > self.chosen)?,
            None => self.chosen + 1,
        };
        (next < self.stop && self.price.fits(next, bound)).then_some(next)
    }

    /// The next backtrack choice not yet explored, not asleep and within
    /// `bound`.
    fn next_choice(&self, bound: Option<Bound>) -> Option<ActorId> {
        self.backtrack
            .iter()
            .find(|&a| !self.done.contains(a) && !self.asleep(a) && self.price.fits(a.index() as u32, bound))
    }
}

/// An actor's operation, as sleep sets keep it.
fn op_of(e: &crate::hb::Event) -> Pending {
    Pending { op: e.op, object: e.object, location: e.location, second: e.second, seq_cst: e.seq_cst }
}

/// Depth-first search over one execution per equivalence class of
/// dependent-step orders (more with sleep-set-blocked executions, which are
/// cut short and counted as pruned).
#[derive(Debug, Default)]
pub struct Dpor {
    nodes: Vec<Node>,
    /// Steps taken in the running execution.
    depth: usize,
    history: History,
    /// The sleep set of the next node.
    next_sleep: Vec<Sleeper>,
    /// A partial sleeper chosen at the last scheduling point, with the
    /// step it fell asleep at: its weak load may read only stores made
    /// since.
    constrained: Option<(ActorId, u32)>,
    /// For the data choice that follows the step just taken (a partial
    /// sleeper's weak load): the step from which its stores may be read.
    value_floor: Option<u32>,
    /// A forced step ran a sleeping actor: the rest of this execution is
    /// redundant and is not analysed.
    blocked: bool,
    started: bool,
    exhausted: bool,
    /// The HaPSet coverage guiding the search, in [`Dpor::hapset`] mode.
    coverage: Option<Arc<Mutex<Coverage>>>,
    /// Scratch space for the races of one step.
    targets: Vec<usize>,
    /// Scratch space for the clock before the step that ended a thread.
    scratch: Clock,
    /// Each actor's pending operation at the latest scheduling point (the
    /// operation it still had pending at the end, if it took no step
    /// after it).
    last_pending: Vec<Option<Pending>>,
    /// The part of the space this search explores ([`Dpor::sharded`]).
    split: Split,
    /// Whether the execution that just ended is another shard's.
    elsewhere: bool,
    /// With workers: this one's handle on the shared pool of prefixes.
    member: Option<Member<Vec<Node>>>,
    /// The rank of the last failing execution: its choices.
    failed: Option<Vec<u32>>,
    /// The preemption bound, when the search is bounded partial-order
    /// reduction ([`Dpor::within`]): no sleep sets then.
    bound: Option<Bound>,
}

impl Dpor {
    /// Creates the search.
    pub fn new() -> Dpor {
        Dpor::default()
    }

    /// Creates the search with HaPSet coverage pruning (Wang, Said and
    /// Gupta, ICSE 2011; see [`Coverage`]): a backtrack choice whose step
    /// would add no uncovered predecessor pair is skipped. `coverage`
    /// starts as given (loaded from an earlier run, or empty) and gains the
    /// pairs of every passing execution at its end; read it there once the
    /// exploration is over.
    ///
    /// Not complete: a skipped choice can be the only way to a bug. It
    /// is a coverage heuristic for finding bugs in fewer executions.
    pub fn hapset(coverage: Arc<Mutex<Coverage>>) -> Dpor {
        Dpor { coverage: Some(coverage), ..Dpor::default() }
    }

    /// Creates a search over the part `shard` owns of a DPOR search
    /// (`shard.rs`): decisions are cut into shards by prefix as a
    /// depth-first search's are, and every enabled actor is explored at the
    /// decisions made before the owner is known, so that no shard depends
    /// on races found in another's part. Sound; the shards' executions add
    /// up to that search's, which can be more than [`Dpor::new`]'s.
    ///
    /// ```
    /// use samaritan_sim::{Shard, Strategy};
    /// use samaritan_strategies::Dpor;
    ///
    /// assert_eq!(Dpor::sharded(Shard::new(1, 2).unwrap()).name(), "dpor");
    /// ```
    pub fn sharded(shard: Shard) -> Dpor {
        // Every decision above the cut is explored in full: a shallower
        // cut than a depth-first search's.
        Dpor { split: Split::with_fanout(shard, 64), ..Dpor::default() }
    }

    /// Creates the `n` workers of one DPOR search (of the part `shard`
    /// owns, as [`Dpor::sharded`] says, unless it is the whole), which
    /// share it by work stealing (module docs).
    ///
    /// ```
    /// use samaritan_sim::{Shard, Strategy};
    /// use samaritan_strategies::Dpor;
    ///
    /// let workers = Dpor::team(2, Shard::WHOLE);
    /// assert_eq!((workers.len(), workers[0].name()), (2, "dpor"));
    /// ```
    pub fn team(n: usize, shard: Shard) -> Vec<Dpor> {
        team(n)
            .into_iter()
            .enumerate()
            .map(|(i, member)| {
                let base = if shard.is_whole() { Dpor::new() } else { Dpor::sharded(shard) };
                // All but the first start with nothing and ask the pool.
                Dpor { member: Some(member), started: i > 0, ..base }
            })
            .collect()
    }

    /// Makes this search bounded partial-order reduction (Coons,
    /// Musuvathi and McKinley, OOPSLA 2013; `bpor.rs`), as loom's search
    /// under `LOOM_MAX_PREEMPTIONS`: every execution with at most `bound`
    /// preemptions (a fault the platform injects counting as one, as in
    /// [`Icb`](crate::Icb)), up to the order of independent steps. No
    /// choice beyond the bound is taken, a race also adds a backtrack
    /// point at the latest context switch before it, and there are no
    /// sleep sets, which a bound makes unsound.
    ///
    /// ```
    /// use samaritan_sim::{Shard, Strategy};
    /// use samaritan_strategies::Dpor;
    ///
    /// let search = Dpor::new().within(2);
    /// assert_eq!((search.name(), search.bounded()), ("bpor", true));
    /// let workers: Vec<Dpor> = Dpor::team(2, Shard::WHOLE).into_iter().map(|w| w.within(1)).collect();
    /// assert_eq!(workers[1].name(), "bpor");
    /// ```
    pub fn within(self, bound: u32) -> Dpor {
        Dpor { bound: Some(Bound { preemptions: bound, loom: false }), ..self }
    }

    /// Makes the bound of [`Dpor::within`] count as loom's does: once an
    /// execution has spent it, it takes no other choice of actor, free
    /// ones included, but lets the default actor go (the running one
    /// while it can, else the first that may); loads still read every
    /// store they may. Fewer executions, and a weaker claim: a pass covers
    /// every execution loom's bound covers, not every one with that many
    /// preemptions. No effect without a bound.
    ///
    /// ```
    /// use samaritan_sim::Strategy;
    /// use samaritan_strategies::Dpor;
    ///
    /// assert!(Dpor::new().within(2).counting_as_loom().bound_ends_switches());
    /// assert!(!Dpor::new().within(2).bound_ends_switches());
    /// ```
    pub fn counting_as_loom(self) -> Dpor {
        let bound = self.bound.map(|b| Bound { loom: true, ..b });
        Dpor { bound, ..self }
    }

    /// Whether the search keeps sleep sets: not under a bound.
    fn sleeps(&self) -> bool {
        self.bound.is_none()
    }

    /// Gives a waiting worker one untried backtrack choice of the
    /// shallowest node that has one (module docs). Call after
    /// [`Dpor::backtrack`], while the history is the last execution's
    /// (whose prefix up to the last node the next execution replays).
    fn give_away(&mut self) {
        let Some(member) = &self.member else { return };
        let bound = self.bound;
        let found = self.nodes.iter().enumerate().find_map(|(i, node)| {
            let chosen = ActorId::from_index(node.chosen as usize);
            node.enabled()?;
            let q = node.backtrack.iter().find(|&a| {
                a != chosen && !node.done.contains(a) && !node.asleep(a) && node.price.fits(a.index() as u32, bound)
            })?;
            Some((i, q, chosen))
        });
        let Some((at, q, chosen)) = found else { return };
        let (Some(op_q), Some(op_chosen)) = (self.pending_at(at, q), self.pending_at(at, chosen)) else { return };
        let mut nodes = self.nodes[..=at].to_vec();
        for node in &mut nodes {
            // Everything the giver knows of is the giver's to explore.
            let known = node.backtrack.clone();
            node.done.union(&known);
            node.given.clear();
            node.races.clear();
            if let Kind::Value { .. } = node.kind {
                node.stop = node.chosen + 1;
            }
        }
        let node = &mut nodes[at];
        node.done.remove(q);
        node.chosen = q.index() as u32;
        // Ordered before `q`: what the giver explored, is exploring, and
        // gave away before.
        if self.bound.is_none() {
            let before = self.nodes[at].given.iter().copied().chain([(chosen, op_chosen)]);
            node.sleep.extend(before.map(|(a, op)| Sleeper::new(a, op, at)));
        }
        let rank = nodes.iter().map(|n| n.chosen).collect();
        let sleeps = self.sleeps();
        let giver = &mut self.nodes[at];
        giver.done.insert(q);
        if sleeps {
            giver.given.push((q, op_q));
        }
        member.give(rank, nodes);
    }

    /// Whether the running execution is another shard's: it ends here.
    fn cut(&self) -> bool {
        self.split.is_elsewhere()
    }

    /// Adds a new node at the current depth, whose choices are charged as
    /// `charge` says.
    fn push_node(&mut self, kind: Kind, chosen: u32, charge: Charge) {
        let spent = self.nodes.last().map_or(0, |n| n.price.after(n.chosen));
        let price = Price { spent, charge };
        let sleep = std::mem::take(&mut self.next_sleep);
        let mut backtrack = ActorSet::default();
        if let Kind::Actor { enabled, .. } = &kind {
            backtrack.insert(ActorId::from_index(chosen as usize));
            if self.split.undecided() {
                // Before the owner is known every order is explored.
                for a in enabled.iter() {
                    backtrack.insert(a);
                }
            }
        }
        let stop = match &kind {
            Kind::Value { alternatives, .. } => *alternatives,
            Kind::Actor { .. } => 0,
        };
        let (done, given, races) = (ActorSet::default(), Vec::new(), Vec::new());
        self.nodes.push(Node { kind, chosen, stop, backtrack, done, sleep, given, races, price });
    }

    /// Actor `a`'s operation at node `at` of the last execution: its next
    /// step from there, or the operation it had pending at the end.
    fn pending_at(&self, at: usize, a: ActorId) -> Option<Pending> {
        let events = self.history.of_actor(a);
        match events.get(events.partition_point(|&i| i < at)) {
            Some(&i) => Some(op_of(&self.history.events[i])),
            None => self.last_pending.get(a.index()).copied().flatten(),
        }
    }

    /// Checks an operation of actor `p` about to be taken (or still
    /// pending when the execution is cut short) against the steps before
    /// it, and adds backtrack points for the races found (Fig. 2, lines
    /// 21-31). Every dependent step since `p`'s previous one races with
    /// it, and before that only the latest does (every one, under a
    /// bound).
    fn races(&mut self, p: ActorId, racing: Pending) {
        let history = &self.history;
        let end = history.events.len();
        // `p`'s previous event (or its spawn). Under a bound, every
        // dependent step races, not only the latest before it: the latest
        // one's reversal may be beyond the bound, and then the earlier
        // ones' are what no later execution would show (`bpor.rs`).
        let previous = match self.bound {
            None => history.of_actor(p).last().copied().or(history.spawned_at(p)),
            Some(_) => None,
        };
        let mut targets = std::mem::take(&mut self.targets);
        Self::dependents(history, history.clock_now(p), history.locks(p), end, previous, racing, &mut targets);
        for &i in &targets {
            self.add_backtrack(i, p, racing, end);
        }
        self.targets = targets;
    }

    /// The earlier events (before `end`) that `racing`, an operation of a
    /// state with clock `before` and lock set `locks` whose actor's
    /// previous event is `previous`, races with, into `targets`.
    fn dependents(
        history: &History,
        before: &[u32],
        locks: Option<&[ObjectId]>,
        end: usize,
        previous: Option<usize>,
        racing: Pending,
        targets: &mut Vec<usize>,
    ) {
        let (op, object) = (racing.op, racing.object);
        history.concurrent_dependents(
            racing.footprint(),
            before,
            end,
            previous,
            |i| {
                let e = &history.events[i];
                History::may_coenable((e.op, e.object, history.locks_of(i)), (op, object, locks))
            },
            targets,
        );
    }

    /// The step just taken also ended the thread of `object`: it races
    /// with each `is_finished` of that thread it does not come after, as
    /// an operation ending the thread would, taken from the state before
    /// the step.
    fn end_races(&mut self, object: ObjectId) {
        let Some(last) = self.history.events.len().checked_sub(1) else { return };
        let (p, seq) = (self.history.events[last].actor, self.history.events[last].seq);
        let mut before = std::mem::take(&mut self.scratch);
        self.history.clock_after(p, seq - 1, &mut before);
        let previous = match seq {
            _ if self.bound.is_some() => None,
            1 => self.history.spawned_at(p),
            k => Some(self.history.of_actor(p)[k as usize - 2]),
        };
        let racing = Pending::new(Op::Exit, Some(object), self.history.events[last].location);
        let mut targets = std::mem::take(&mut self.targets);
        let locks = self.history.locks_of(last);
        Self::dependents(&self.history, before.as_slice(), locks, last, previous, racing, &mut targets);
        for &i in &targets {
            self.add_backtrack(i, p, racing, last);
        }
        self.targets = targets;
        self.scratch = before;
    }

    /// Adds to the backtrack set of the state event `i` was taken from a
    /// thread that lets `p`'s operation `racing` come first (Fig. 2, lines
    /// 26-31); `p`'s state is the history's end, `end`. Under a bound,
    /// also at the latest context switch before `i` (`bpor.rs`).
    fn add_backtrack(&mut self, i: usize, p: ActorId, racing: Pending, end: usize) {
        self.add_backtrack_at(i, p, racing, end);
        if self.bound.is_some() {
            let events = &self.history.events;
            if let Some(j) = switch_before(i, |k| events[k].actor) {
                self.add_backtrack_at(j, p, racing, end);
            }
        }
    }

    /// [`Dpor::add_backtrack`] at the state of event `i` alone: a choice
    /// beyond the bound is not added.
    fn add_backtrack_at(&mut self, i: usize, p: ActorId, racing: Pending, end: usize) {
        let Some(enabled) = self.nodes.get(i).and_then(Node::enabled) else { return };
        // E: `p` itself if it could run there, or a thread whose next step
        // after `i` happens before `p`'s operation.
        let mut candidates = Vec::new();
        for q in enabled.iter() {
            let leads = q == p || {
                let before = self.history.clock_now(p);
                let events = self.history.of_actor(q);
                let first = events.partition_point(|&m| m <= i);
                events.get(first).is_some_and(|&m| m < end && self.history.happens_before(m, before))
            };
            if leads {
                candidates.push(q);
            }
        }
        // In HaPSet mode, remembers that `q` is wanted here for this race
        // (with the operation taken here, which it reverses).
        let taken = self.coverage.as_ref().map(|_| op_of(&self.history.events[i]));
        let node = &mut self.nodes[i];
        let why = |node: &mut Node, q: ActorId| {
            if let Some(taken) = taken.filter(|_| !node.done.contains(q)) {
                if !node.races.contains(&(q, taken, racing)) {
                    node.races.push((q, taken, racing));
                }
            }
        };
        let bound = self.bound;
        let fits = |node: &Node, q: ActorId| node.price.fits(q.index() as u32, bound);
        let known = |q: ActorId| fits(node, q) && (node.backtrack.contains(q) || node.done.contains(q));
        if let Some(&q) = candidates.iter().find(|&&q| known(q)) {
            why(node, q);
            return;
        }
        // A sleeping thread's branches from here are covered elsewhere:
        // adding it would add nothing (it is skipped), so pick an awake one.
        candidates.retain(|&q| !node.asleep(q));
        let none = candidates.is_empty();
        // Beyond the bound a candidate cannot be taken here; the latest
        // context switch before is tried instead.
        candidates.retain(|&q| fits(node, q));
        let add = if none {
            node.enabled().map_or_else(Vec::new, |e| e.iter().filter(|&q| !node.asleep(q) && fits(node, q)).collect())
        } else if candidates.is_empty() {
            Vec::new()
        } else if candidates.contains(&p) {
            vec![p]
        } else {
            vec![candidates[0]]
        };
        for q in add {
            node.backtrack.insert(q);
            why(node, q);
        }
    }

    /// Checks the operations still pending when an execution is cut short.
    fn pending_races(&mut self, point: &SchedulePoint<'_>) {
        for view in point.actors {
            if let Some(pending) = view.pending {
                self.races(view.id, pending);
            }
        }
    }

    /// [`Dpor::pending_races`] at a data choice that cuts the execution
    /// short: the operations pending at the last scheduling point, but for
    /// the actor that has just taken its step.
    fn last_pending_races(&mut self) {
        let Some(me) = self.history.events.last().map(|e| e.actor) else { return };
        let pending = std::mem::take(&mut self.last_pending);
        for (i, p) in pending.iter().enumerate() {
            if let Some(p) = p.filter(|_| i != me.index()) {
                self.races(ActorId::from_index(i), p);
            }
        }
        self.last_pending = pending;
    }

    /// Moves to the deepest node with an unexplored choice; returns
    /// `false` when there is none. In HaPSet mode a backtrack choice that
    /// offers no uncovered pair (judged against the last execution, whose
    /// prefix up to the node the next one replays) is marked done unrun.
    fn backtrack(&mut self) -> bool {
        let coverage = self.coverage.as_deref().map(lock);
        let (bound, sleeps) = (self.bound, self.sleeps());
        while let Some(at) = self.nodes.len().checked_sub(1) {
            let node = &mut self.nodes[at];
            match node.kind {
                Kind::Value { .. } => {
                    if let Some(next) = node.next_value(bound) {
                        node.chosen = next;
                        return true;
                    }
                }
                Kind::Actor { .. } => {
                    let explored = ActorId::from_index(node.chosen as usize);
                    node.done.insert(explored);
                    // The explored step is the last execution's `at`-th;
                    // explored here with every store it could read, it
                    // sleeps whole (a partial entry of its own goes).
                    if sleeps {
                        node.sleep.retain(|s| s.actor != explored);
                        node.sleep.push(Sleeper::new(explored, op_of(&self.history.events[at]), at));
                        // Choices given away come after it in the order.
                        let given = std::mem::take(&mut node.given);
                        node.sleep.extend(given.into_iter().map(|(a, op)| Sleeper::new(a, op, at)));
                    }
                    while let Some(next) = self.nodes[at].next_choice(bound) {
                        let pending = self.pending_at(at, next);
                        let node = &mut self.nodes[at];
                        let covered = match (&coverage, pending) {
                            (Some(c), Some(p)) => {
                                let races = node.races.iter().filter(|r| r.0 == next).map(|r| (r.1, r.2));
                                !c.offers_new_pair(&self.history, at, next, p, races)
                            }
                            _ => false,
                        };
                        if !covered {
                            node.chosen = next.index() as u32;
                            return true;
                        }
                        // Skipped, not explored: done, but not asleep.
                        node.done.insert(next);
                    }
                }
            }
            self.nodes.pop();
        }
        false
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

impl Strategy for Dpor {
    fn name(&self) -> &'static str {
        if self.coverage.is_some() {
            "hapset"
        } else if self.bound.is_some() {
            "bpor"
        } else {
            "dpor"
        }
    }

    fn begin_execution(&mut self) -> bool {
        // A worker stops when any worker found a failure.
        if self.exhausted || self.member.as_ref().is_some_and(Member::any_failed) {
            return false;
        }
        self.depth = 0;
        self.next_sleep.clear();
        self.constrained = None;
        self.value_floor = None;
        self.blocked = false;
        self.split.begin();
        if !self.started {
            self.started = true;
            self.history.clear();
            return true;
        }
        let found = self.backtrack();
        if found && self.member.as_ref().is_some_and(Member::hungry) {
            self.give_away();
        }
        // The last execution's history was needed to judge coverage.
        self.history.clear();
        if found {
            return true;
        }
        // This worker's part is explored: take another's, unless a
        // failure was found (then every worker stops).
        let taken = self.member.as_mut().filter(|m| !m.any_failed()).and_then(Member::take);
        match taken {
            Some(nodes) if !self.member.as_ref().is_some_and(Member::any_failed) => {
                self.nodes = nodes;
                true
            }
            _ => {
                self.exhausted = true;
                false
            }
        }
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        if let Some(node) = self.nodes.get(self.depth) {
            let chosen = ActorId::from_index(node.chosen as usize);
            let result = match &node.kind {
                Kind::Actor { enabled, signature } if enabled.equals(point.enabled) => {
                    signature.map_or(Ok(()), |s| s.replayed(Signature::of(point))).map(|()| chosen)
                }
                _ => Err(self.mismatch()),
            };
            self.split.take(chosen.index() as u32, point.enabled.len());
            return result;
        }
        if self.blocked || self.cut() {
            return Err(ChoiceError::Redundant);
        }
        // A sleeper whose operation would now be taken otherwise (a
        // decrement that other decrements left the last) wakes.
        self.next_sleep.retain(|s| point.pending(s.actor).is_some_and(|p| p.op == s.pending.op));
        let entry = |a: &ActorId| self.next_sleep.iter().find(|s| s.actor == *a).copied();
        // The running actor goes on if it may: fewer preemptions first;
        // an actor awake before one a sleep set lets read new stores only.
        let order = || point.current.into_iter().chain(point.enabled.iter().copied());
        let chosen =
            order().find(|a| entry(a).is_none()).or_else(|| order().find(|a| entry(a).is_some_and(|s| !s.blocks())));
        let Some(chosen) = chosen else {
            // Sleep-set blocked: every continuation is explored elsewhere.
            self.pending_races(point);
            return Err(ChoiceError::Redundant);
        };
        self.constrained = entry(&chosen).map(|s| (chosen, s.since));
        self.last_pending.clear();
        self.last_pending.extend(point.actors.iter().map(|v| v.pending));
        // Taking anyone but the running actor preempts it, unless it just
        // yielded (as `SchedulePoint::preempts` says).
        let charge = match point.current {
            Some(c) if !point.yielding => Charge::Running(c),
            _ => Charge::Anyone,
        };
        self.push_node(
            Kind::Actor { enabled: ActorSet::of(point.enabled), signature: Some(Signature::of(point)) },
            chosen.index() as u32,
            charge,
        );
        self.split.take(chosen.index() as u32, point.enabled.len());
        Ok(chosen)
    }

    fn choose_value(&mut self, point: &ChoicePoint<'_>) -> Result<usize, ChoiceError> {
        let floor = self.value_floor.take();
        if let Some(node) = self.nodes.get(self.depth) {
            let chosen = node.chosen;
            let result = match node.kind {
                Kind::Value { alternatives, .. } if alternatives as usize == point.alternatives => Ok(chosen as usize),
                _ => Err(self.mismatch()),
            };
            self.split.take(chosen, point.alternatives);
            return result;
        }
        if self.cut() {
            return Err(ChoiceError::Redundant);
        }
        // A partial sleeper's load reads only the stores new to it.
        let allowed = floor.zip(point.sources).map(|(since, sources)| allowed(sources, since));
        let first = match &allowed {
            Some(values) => match values.first() {
                Some(&v) => v,
                None => {
                    // Every store it may read, it read from an earlier
                    // state: the rest is covered.
                    self.blocked = true;
                    self.last_pending_races();
                    return Err(ChoiceError::Redundant);
                }
            },
            None => 0,
        };
        let charge = if point.fault { Charge::Fault } else { Charge::Data };
        self.push_node(Kind::Value { alternatives: point.alternatives as u32, allowed }, first, charge);
        self.split.take(first, point.alternatives);
        Ok(first as usize)
    }

    fn observes_steps(&self) -> bool {
        true
    }

    fn on_step(&mut self, step: &Step) {
        self.value_floor = None;
        if self.nodes.len() == self.depth {
            // A forced step: the only actor that could go. Asleep only if
            // it is taken as it was when it went to sleep.
            self.next_sleep.retain(|s| s.actor != step.actor || s.pending.op == step.pending.op);
            match self.next_sleep.iter().find(|s| s.actor == step.actor) {
                Some(s) if s.blocks() => self.blocked = true,
                Some(s) => self.constrained = Some((s.actor, s.since)),
                None => {}
            }
            // A forced step has nobody else to switch to: it is free.
            self.push_node(
                Kind::Actor { enabled: ActorSet::of(&[step.actor]), signature: None },
                step.actor.index() as u32,
                Charge::Anyone,
            );
        }
        if let Some((actor, since)) = self.constrained.take() {
            if actor == step.actor && step.pending.op == Op::WeakLoad {
                self.value_floor = Some(since);
            }
        }
        if !self.blocked {
            self.races(step.actor, step.pending);
        }
        self.history.push(step);
        // The sleep set of the next node: this node's sleepers whose
        // operation is independent of the step just taken.
        let node = &self.nodes[self.depth];
        let taken = step.pending.footprint();
        self.next_sleep.clear();
        self.next_sleep.extend(node.sleep.iter().filter_map(|s| s.after(step.actor, taken)));
        self.depth += 1;
    }

    fn on_end(&mut self, object: ObjectId) {
        if !self.blocked {
            self.end_races(object);
        }
        self.history.end(object);
        // Sleepers whose operation depends on the end wake, as after a
        // step with that footprint.
        let ended = Footprint { op: Op::Exit, object: Some(object), second: None, seq_cst: false };
        self.next_sleep.retain(|s| !s.pending.footprint().dependent(ended));
    }

    fn end_execution(&mut self, outcome: &Outcome) {
        self.elsewhere = self.split.end();
        if !outcome.is_pass() && !self.elsewhere {
            let rank: Vec<u32> = self.nodes[..self.depth.min(self.nodes.len())].iter().map(|n| n.chosen).collect();
            if let Some(member) = &self.member {
                member.failed(&rank);
            }
            self.failed = Some(rank);
        }
        // A failing execution covers nothing (see `hapset.rs`).
        if let Some(coverage) = self.coverage.as_deref().filter(|_| outcome.is_pass()) {
            lock(coverage).add_execution(&self.history);
        }
    }

    fn elsewhere(&self) -> bool {
        self.elsewhere
    }

    fn exhausted(&self) -> bool {
        self.exhausted
    }

    fn completed_bound(&self) -> Option<u32> {
        self.bound.filter(|_| self.exhausted).map(|b| b.preemptions)
    }

    fn bounded(&self) -> bool {
        self.bound.is_some()
    }

    fn bound_ends_switches(&self) -> bool {
        self.bound.is_some_and(|b| b.loom)
    }

    fn progress(&self) -> Option<String> {
        self.bound.map(|b| format!("bound {}", b.preemptions))
    }

    fn rank(&self) -> Option<Vec<u32>> {
        self.failed.clone()
    }

    fn set_cancel(&mut self, cancel: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        if let Some(member) = &mut self.member {
            member.set_cancel(cancel);
        }
    }

    fn coverage_pairs(&self) -> Option<u64> {
        self.coverage.as_deref().map(|c| lock(c).len() as u64)
    }
}

/// Locks the coverage, through a poisoned lock too (a panic elsewhere
/// leaves the set of pairs consistent: pairs are only ever inserted).
fn lock(coverage: &Mutex<Coverage>) -> MutexGuard<'_, Coverage> {
    coverage.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
