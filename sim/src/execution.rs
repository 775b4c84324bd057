//! One execution: the actors, the objects, and the scheduling decision.
//!
//! Invariants:
//! - At most one actor is `Running` at any time; `current` names it.
//! - `schedule` holds one entry per decision that had two or more
//!   alternatives (actor choices and data choices alike), in order; replaying
//!   those entries reproduces the execution.
//! - `trace` holds one entry per step taken.
//! - The `RefCell` around an `Execution` is never borrowed across a
//!   coroutine switch.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::actor::{display_name, Actor, StackPool, Status};
use crate::fair::Fairness;
use crate::leak::Allocations;
use crate::liveness::{self, Divergence};
use crate::memory::Memory;
pub(crate) use crate::object::ObjectInfo;
use crate::op::{ActorId, ObjectId, Op};
use crate::outcome::{BlockedActor, CycleStep, Deadlock, Outcome};
use crate::outside::{self, Outside};
use crate::progress::Progress;
use crate::race::Races;
use crate::strategy::{ActorView, ChoiceError, ChoicePoint, Pending, SchedulePoint, Step, Strategy};
use crate::timers::Timers;
use crate::trace::{location_string, ReadFrom, Trace, TraceLine, TraceRead, TraceStep};
use crate::wall_clock;

/// Settings that hold for every execution of an exploration.
#[derive(Clone, Debug)]
pub(crate) struct ExecConfig {
    pub(crate) max_steps: u64,
    pub(crate) spurious_failures: bool,
    /// How atomics behave: the C11 memory model ([`crate::memory`]),
    /// with or without loom's failing compare-exchange, or sequential
    /// consistency.
    pub(crate) memory_model: crate::config::MemoryModel,
    /// Whether to record the trace. Off while searching (the hot path); a
    /// failing schedule is replayed with it on to build the report.
    pub(crate) tracing: bool,
    /// Whether the strategy wants to see every step
    /// ([`Strategy::observes_steps`]).
    pub(crate) observed: bool,
    /// Whether the fair demonic scheduler filters the enabled actors.
    pub(crate) fair: bool,
    /// The longest wait for a wake from outside ([`crate::outside`]);
    /// zero not to wait.
    pub(crate) outside_wait: std::time::Duration,
}

/// Hashes an address (a `usize` key) with one multiplication: addresses
/// are distinct and aligned, so their high bits after a multiply by an odd
/// constant spread well.
#[derive(Default)]
pub(crate) struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }
}

pub(crate) type BuildAddressHasher = BuildHasherDefault<AddressHasher>;

/// An operation the running actor announces at its scheduling point.
#[derive(Clone, Copy)]
pub(crate) struct Announce {
    pub(crate) actor: ActorId,
    pub(crate) pending: Pending,
    /// Whether it can proceed; `None` means always. Points at a closure on
    /// the actor's own stack (see the actor module's invariants).
    pub(crate) ready: Option<*const (dyn Fn() -> bool + 'static)>,
    /// Which operation the step is taken as, asked when it is taken;
    /// `None` means `pending.op`. Points at a closure on the actor's own
    /// stack, as `ready`.
    pub(crate) taken: Option<*const (dyn Fn() -> Op + 'static)>,
}

/// What the next scheduling decision came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    Run(ActorId),
    End,
}

/// The state of one execution.
pub(crate) struct Execution {
    pub(crate) generation: u64,
    pub(crate) config: ExecConfig,
    pub(crate) actors: Vec<Actor>,
    pub(crate) current: Option<ActorId>,
    /// Set by an actor that decided someone else runs next.
    pub(crate) next: Option<ActorId>,
    pub(crate) objects: Vec<ObjectInfo>,
    pub(crate) schedule: Vec<u32>,
    pub(crate) trace: Vec<TraceStep>,
    /// While tracing, which store each atomic read read, by step.
    pub(crate) reads: Vec<TraceRead>,
    /// While tracing, what primitives said of their steps, by step.
    pub(crate) notes: Vec<(usize, String)>,
    pub(crate) steps: u64,
    pub(crate) outcome: Option<Outcome>,
    pub(crate) teardown: bool,
    /// Virtual time in nanoseconds; `sleep` advances it, and so does firing
    /// a timer when no actor can run.
    pub(crate) clock_ns: u64,
    /// Timers ([`crate::rt::wake_at`]): virtual deadlines and what to do
    /// then; those due fire together, in the order they were armed. A timer
    /// is due once the clock (moved by sleeps) reaches it, and then fires
    /// at the next scheduling point, whoever else can run.
    pub(crate) timers: Timers,
    pub(crate) strategy: *mut (dyn Strategy + 'static),
    pub(crate) pool: *mut StackPool,
    pub(crate) progress: Arc<Progress>,
    /// Actors whose stacks were abandoned at teardown.
    pub(crate) leaked: usize,
    /// Whether the strategy found the rest of this execution redundant
    /// ([`ChoiceError::Redundant`]).
    pub(crate) pruned: bool,
    /// Whether a fault choice was offered ([`rt::choose_fault`](crate::rt::choose_fault)).
    pub(crate) faults: bool,
    /// While the rest of a redundant execution runs: the step at which it
    /// is cut off instead ([`Execution::coast`]).
    coast_until: Option<u64>,
    /// Abstract states the test named, across the whole exploration (not
    /// cleared between executions).
    pub(crate) states: HashSet<u64>,
    /// The location of the latest step taken, which is the running actor's
    /// own latest step while it runs (see `rt::last_location`).
    pub(crate) last_location: Option<&'static std::panic::Location<'static>>,
    /// Happens-before clocks and cell accesses, for data races.
    pub(crate) race: Races,
    /// The C11 model's store histories and thread views.
    pub(crate) memory: Memory,
    /// Values created in this execution that must be freed by its end.
    pub(crate) allocations: Allocations,
    /// The objects of primitives that keep no slot of their own, by
    /// address (`rt::object_at`).
    pub(crate) addresses: HashMap<usize, ObjectId, BuildAddressHasher>,
    /// The statics this execution claimed, each with what puts back the
    /// state it had when the execution first used it (`rt::keep_static`),
    /// run once the execution has ended.
    pub(crate) restores: crate::statics::Restores,
    /// Static objects this execution used but whose state it will not put
    /// back, and why (`rt::keep_static`).
    pub(crate) unrestored: Vec<(ObjectId, &'static str)>,
    /// Values kept for this execution only, by key (`rt::execution_value`).
    pub(crate) values: Vec<(usize, Box<dyn std::any::Any>)>,
    views: Vec<ActorView>,
    /// The actors that have not finished, in index order: what a
    /// scheduling point looks at (a test that spawns tasks in a loop has
    /// thousands of actors, a few alive at a time).
    live: Vec<ActorId>,
    enabled: Vec<ActorId>,
    fairness: Fairness,
    /// Wakes from outside the model, across executions (not cleared).
    outside: Outside,
    /// How long this execution waited for a wake from outside that did
    /// not come, for the deadlock it then is.
    outside_waited: Option<std::time::Duration>,
}

impl Execution {
    pub(crate) fn new(
        generation: u64,
        config: ExecConfig,
        strategy: *mut (dyn Strategy + 'static),
        pool: *mut StackPool,
        progress: Arc<Progress>,
    ) -> Execution {
        Execution {
            generation,
            config,
            actors: Vec::with_capacity(4),
            current: None,
            next: None,
            objects: Vec::new(),
            schedule: Vec::new(),
            trace: Vec::new(),
            reads: Vec::new(),
            notes: Vec::new(),
            steps: 0,
            outcome: None,
            teardown: false,
            clock_ns: 0,
            timers: Timers::default(),
            strategy,
            pool,
            progress,
            leaked: 0,
            pruned: false,
            faults: false,
            coast_until: None,
            states: HashSet::new(),
            last_location: None,
            race: Races::default(),
            memory: Memory::default(),
            allocations: Allocations::default(),
            addresses: HashMap::default(),
            restores: Vec::new(),
            unrestored: Vec::new(),
            values: Vec::new(),
            views: Vec::with_capacity(4),
            live: Vec::with_capacity(4),
            enabled: Vec::with_capacity(4),
            fairness: Fairness::default(),
            outside: Outside::new(),
            outside_waited: None,
        }
    }

    /// Prepares this execution's state for the next execution, keeping
    /// the buffers' capacity so that executions do not allocate them anew.
    pub(crate) fn reset(&mut self, generation: u64) {
        self.generation = generation;
        self.progress.names.lock().unwrap_or_else(|p| p.into_inner()).clear();
        self.actors.clear();
        self.current = None;
        self.next = None;
        self.objects.clear();
        self.schedule.clear();
        self.trace.clear();
        self.reads.clear();
        self.notes.clear();
        self.steps = 0;
        self.outcome = None;
        self.teardown = false;
        self.clock_ns = 0;
        self.timers.clear();
        self.leaked = 0;
        self.pruned = false;
        self.faults = false;
        self.coast_until = None;
        self.outside_waited = None;
        self.race.reset();
        self.memory.reset();
        self.allocations.reset();
        self.addresses.clear();
        debug_assert!(self.restores.is_empty(), "statics are restored before the next execution");
        self.unrestored.clear();
        debug_assert!(self.values.is_empty(), "execution values are dropped before the next execution");
        self.views.clear();
        self.live.clear();
        self.enabled.clear();
        self.fairness.reset();
    }

    pub(crate) fn actor_name(&self, id: ActorId) -> String {
        display_name(id.index(), self.actors[id.index()].name.as_deref())
    }

    pub(crate) fn object_name(&self, id: ObjectId) -> String {
        format!("{}#{}", self.objects[id.index()].kind, id.0)
    }

    /// Records a failure unless one is already recorded.
    pub(crate) fn fail(&mut self, outcome: Outcome) {
        if self.outcome.is_none() {
            self.outcome = Some(outcome);
        }
    }

    /// Takes the running actor `me`'s announced step at once when it is
    /// forced: `me` can proceed and no other actor is enabled. Returns
    /// whether it did; if not, the caller files the operation and goes
    /// through [`Execution::decide`]. This is the hot path of
    /// single-threaded stretches: nothing is filed, listed or asked.
    #[inline]
    pub(crate) fn try_forced_step(
        &mut self,
        me: ActorId,
        mut pending: Pending,
        ready: Option<&dyn Fn() -> bool>,
        taken: Option<&dyn Fn() -> Op>,
    ) -> bool {
        if self.outcome.is_some()
            || self.steps >= self.config.max_steps
            || self.timers.next() <= self.clock_ns
            || !ready.is_none_or(|r| r())
        {
            return false;
        }
        let others = self.live.iter().any(|&a| a != me && self.actors[a.index()].is_enabled());
        if others {
            return false;
        }
        if let Some(taken) = taken {
            pending.op = taken();
        }
        let yielded = pending.op.is_yield();
        if self.config.fair && (yielded || self.fairness.tracking()) {
            if self.fairness.tracking() {
                self.fairness.clear_enabled();
                self.fairness.mark_enabled(me.index());
                self.fairness.settle();
            }
            self.fairness.scheduled(me.index(), yielded);
        }
        self.record(me, pending, 0, false, true);
        self.actors[me.index()].yielded = yielded;
        true
    }

    /// Tells an observing strategy that the thread whose object is
    /// `object` ended during the step just taken ([`rt::ended`](crate::rt::ended)).
    pub(crate) fn ended(&mut self, object: ObjectId) {
        if self.outcome.is_none() && self.config.observed && self.coast_until.is_none() {
            // SAFETY: as in `ask_strategy`.
            unsafe { (*self.strategy).on_end(object) };
        }
    }

    /// Tells an observing strategy which store the weak load just taken
    /// read: the step that made it ([`Strategy::on_read`]).
    pub(crate) fn show_read(&mut self, source: u32) {
        if self.outcome.is_none() && self.config.observed && self.coast_until.is_none() {
            // SAFETY: as in `ask_strategy`.
            unsafe { (*self.strategy).on_read(source) };
        }
    }

    /// Makes the next scheduling decision: who takes the next step.
    ///
    /// Called by the running actor at its scheduling point, with what it
    /// announces, or by the scheduler loop (with `None`) after an actor
    /// finished (forced steps of the running actor are taken by
    /// [`Execution::try_forced_step`] first). One pass finds the enabled
    /// actors, and the strategy is asked when there is a choice.
    pub(crate) fn decide(&mut self, announcing: Option<Announce>) -> Next {
        if self.outcome.is_some() {
            if let Some(a) = announcing {
                self.wait(a);
            }
            return Next::End;
        }
        // Timers the clock has reached (sleeps move it) fire now.
        if self.timers.next() <= self.clock_ns {
            self.fire_due();
        }
        let fair = self.config.fair;
        let track = fair && self.fairness.tracking();
        // Filed first, the announcing actor is judged by its condition like
        // every other waiting actor.
        if let Some(a) = announcing {
            self.wait(a);
        }
        let mut unfinished = self.collect_enabled(track);
        // Virtual time: when no actor can run, the clock jumps to the next
        // timer's deadline and the timers due then fire.
        while self.enabled.is_empty() && !self.timers.is_empty() {
            self.fire_timers();
            unfinished = self.collect_enabled(track);
        }
        if self.enabled.is_empty() && unfinished {
            self.wait_outside(track);
        }
        if self.enabled.is_empty() {
            return self.end_without_step(unfinished);
        }
        if self.steps >= self.config.max_steps {
            return self.end_at_bound();
        }
        // Whether one actor could run at all, before fairness filters.
        let alone = self.enabled.len() == 1;
        if track {
            self.fairness.settle();
            if self.fairness.has_edges() {
                // Line 7 of Algorithm 1: keep the actors no enabled actor has
                // priority over (never empty: P is acyclic).
                let fairness = &self.fairness;
                self.enabled.retain(|a| fairness.allows(a.index()));
            }
        }
        // The actor that ran last, if it may go on: switching away from it
        // is a preemption unless its last step was a yield. A switch the
        // fair scheduler forces (it lost priority) is not one (fair paper,
        // section 4: such preemptions are not charged to a context bound).
        let current = self.current.filter(|c| self.enabled.contains(c));
        let yielding = current.is_some_and(|c| self.actors[c.index()].yielded);
        let chosen = if self.enabled.len() == 1 {
            self.enabled[0]
        } else {
            match self.ask_strategy(current, yielding) {
                Some(chosen) => chosen,
                None => return Next::End,
            }
        };
        if self.enabled.len() > 1 {
            self.schedule.push(chosen.0);
        }
        let mut pending = self.actors[chosen.index()].pending.expect("an enabled actor has a pending operation");
        if let Some(taken) = self.actors[chosen.index()].taken.take() {
            // SAFETY: set only while the actor waits inside `rt::step_as`,
            // whose frame owns the closure (actor module invariant).
            pending.op = unsafe { (*taken)() };
        }
        let yielded = pending.op.is_yield();
        if fair && (yielded || track) {
            self.fairness.scheduled(chosen.index(), yielded);
        }
        self.record_outlined(chosen, pending, 0, !yielding && current.is_some_and(|c| c != chosen), alone);
        self.set_pending(chosen, None);
        let actor = &mut self.actors[chosen.index()];
        actor.status = Status::Running;
        actor.ready = None;
        actor.yielded = yielded;
        self.current = Some(chosen);
        Next::Run(chosen)
    }

    /// When a task waits in its poll with nothing in the model to wake it,
    /// waits for a wake from outside, if one may come ([`crate::outside`]).
    #[cold]
    fn wait_outside(&mut self, track: bool) {
        if self.coast_until.is_some() {
            return;
        }
        let polling =
            self.actors.iter().any(|a| a.status != Status::Finished && a.pending.is_some_and(|p| p.op == Op::Poll));
        let Some(limit) = polling.then(|| self.outside.wait_for(self.config.outside_wait)).flatten() else { return };
        self.outside_waited = outside::wait(limit, || {
            self.collect_enabled(track);
            !self.enabled.is_empty()
        });
        self.outside.record(self.outside_waited.is_none());
    }

    /// Advances the clock to the earliest timer's deadline and fires every
    /// timer due by then.
    #[cold]
    fn fire_timers(&mut self) {
        if self.timers.is_empty() {
            return;
        }
        self.clock_to(self.timers.next());
        self.fire_due();
    }

    /// Moves the virtual clock forward to `to` (never back), and std's
    /// clocks on this thread with it (`wall_clock`).
    pub(crate) fn clock_to(&mut self, to: u64) {
        if to > self.clock_ns {
            wall_clock::jumped(to - self.clock_ns);
            self.clock_ns = to;
        }
    }

    /// Fires every timer whose deadline the clock has reached.
    #[cold]
    fn fire_due(&mut self) {
        for fire in self.timers.take_due(self.clock_ns) {
            fire();
        }
    }

    /// Finds the enabled actors (every actor has filed its operation);
    /// returns whether any is unfinished.
    fn collect_enabled(&mut self, track: bool) -> bool {
        self.enabled.clear();
        if track {
            self.fairness.clear_enabled();
        }
        for &id in &self.live {
            let (actor, view) = (&self.actors[id.index()], &mut self.views[id.index()]);
            view.enabled = actor.is_enabled();
            if let (Some(taken), Some(pending)) = (actor.taken, view.pending.as_mut()) {
                // SAFETY: set only while the actor waits inside
                // `rt::step_as`, whose frame owns the closure (actor module
                // invariant).
                pending.op = unsafe { (*taken)() };
            }
            if view.enabled {
                self.enabled.push(id);
                if track {
                    self.fairness.mark_enabled(id.index());
                }
            }
        }
        !self.live.is_empty()
    }

    /// Sets actor `id`'s pending operation, in its record and in the view
    /// strategies see (kept in step so that views are never rebuilt).
    pub(crate) fn set_pending(&mut self, id: ActorId, pending: Option<Pending>) {
        self.actors[id.index()].pending = pending;
        self.views[id.index()].pending = pending;
    }

    /// Adds an actor record and its view.
    pub(crate) fn add_actor(&mut self, actor: crate::actor::Actor) -> ActorId {
        let id = ActorId::from_index(self.actors.len());
        if self.config.fair {
            self.fairness.add_actor(id.index());
        }
        self.actors.push(actor);
        self.views.push(ActorView { id, pending: None, enabled: false });
        self.live.push(id);
        id
    }

    /// Marks actor `id` finished: it leaves the live actors, and the fair
    /// scheduler frees its slot.
    pub(crate) fn finish(&mut self, id: ActorId) {
        self.actors[id.index()].status = Status::Finished;
        self.views[id.index()].enabled = false;
        if let Ok(at) = self.live.binary_search(&id) {
            self.live.remove(at);
        }
        if self.config.fair {
            self.fairness.finish_actor(id.index());
        }
    }

    /// Files the announcing actor's operation: it now waits to be chosen.
    pub(crate) fn wait(&mut self, a: Announce) {
        self.set_pending(a.actor, Some(a.pending));
        let actor = &mut self.actors[a.actor.index()];
        actor.ready = a.ready;
        actor.taken = a.taken;
        actor.status = Status::Waiting;
    }

    /// Ends the execution when no actor is enabled: a pass or a deadlock.
    #[cold]
    #[inline(never)]
    fn end_without_step(&mut self, unfinished: bool) -> Next {
        // Every actor finished: a value still registered can never be
        // freed (`leak`).
        let outcome = if unfinished {
            Outcome::Deadlock(self.deadlock())
        } else {
            self.allocations.verdict().unwrap_or(Outcome::Pass)
        };
        self.outcome = Some(outcome);
        Next::End
    }

    /// Ends the execution at the step bound.
    #[cold]
    #[inline(never)]
    fn end_at_bound(&mut self) -> Next {
        if self.coast_until.is_some() {
            // A redundant execution is never a verdict of its own.
            return Next::End;
        }
        let steps = self.config.max_steps;
        let outcome = if self.config.fair && self.config.tracing {
            self.divergence(steps)
        } else {
            // A search does not record the trace: the replay that builds
            // the report says what the execution was doing.
            Outcome::StepBound { steps }
        };
        self.outcome = Some(outcome);
        Next::End
    }

    /// Says what an execution cut off at the step bound under the fair
    /// scheduler was doing, from its trace.
    fn divergence(&self, bound: u64) -> Outcome {
        let cycle = |start: usize, period: usize| -> Vec<CycleStep> {
            self.trace[start..start + period]
                .iter()
                .map(|s| CycleStep {
                    actor: self.actor_name(s.actor),
                    op: s.op,
                    object: s.object.map(|o| self.object_name(o)),
                    location: location_string(s.location),
                })
                .collect()
        };
        match liveness::classify(&self.trace) {
            Divergence::Livelock { start, period, repeats } => {
                Outcome::Livelock { cycle: cycle(start, period), repeats: repeats as u64, steps: bound }
            }
            Divergence::NoYield { actor, steps, start, period } => {
                // Its own steps only, each place once: where it loops.
                let mut own: Vec<CycleStep> = Vec::new();
                let name = self.actor_name(ActorId::from_index(actor));
                for step in cycle(start, period).into_iter().filter(|s| s.actor == name) {
                    if own.len() < 20 && !own.contains(&step) {
                        own.push(step);
                    }
                }
                Outcome::GoodSamaritanViolation { actor: name, steps: steps as u64, cycle: own }
            }
            Divergence::Unknown => Outcome::Unfinished { steps: bound },
        }
    }

    /// Asks the strategy to pick among two or more enabled actors; records
    /// a failure and returns `None` when it cannot.
    #[inline(never)]
    fn ask_strategy(&mut self, current: Option<ActorId>, yielding: bool) -> Option<ActorId> {
        if let Some(until) = self.coast_until {
            return (self.steps < until).then(|| self.coast_choice(current));
        }
        let point = SchedulePoint {
            step: self.steps,
            current,
            enabled: &self.enabled,
            actors: &self.views,
            yielding,
            fair: self.config.fair.then_some(&self.fairness),
        };
        // SAFETY: the strategy outlives the execution (`explore` owns both)
        // and nothing else touches it while the execution runs.
        let choice = unsafe { (*self.strategy).choose_actor(&point) };
        match choice {
            Ok(chosen) if self.enabled.contains(&chosen) => Some(chosen),
            Ok(chosen) => {
                let detail = format!(
                    "thread '{}' is not enabled (enabled: {})",
                    self.actors
                        .get(chosen.index())
                        .map_or_else(|| format!("#{}", chosen.0), |_| self.actor_name(chosen)),
                    self.enabled_names()
                );
                self.outcome = Some(Outcome::ScheduleMismatch { step: self.steps, detail });
                None
            }
            Err(ChoiceError::Redundant) => {
                self.coast();
                Some(self.coast_choice(current))
            }
            Err(err) => {
                self.outcome = Some(self.choice_failure(err));
                None
            }
        }
    }

    /// The rest of this execution is redundant: it runs on without the
    /// strategy, every decision the default one ([`Execution::coast_choice`],
    /// every data choice 0), and counts as pruned. Running on costs less
    /// than tearing the actors down, which unwinds their stacks; an
    /// execution that runs on for as many steps again as it had taken (and
    /// at least 1024) is cut off after all. Every decision it takes is one
    /// the strategy could have taken, within any preemption bound it keeps:
    /// a failure it reaches is a failure of the program.
    fn coast(&mut self) {
        self.pruned = true;
        self.coast_until = Some(self.steps + self.steps.max(1024));
    }

    /// The default decision: the running actor goes on if it may (no
    /// preemption), else the first enabled actor.
    fn coast_choice(&self, current: Option<ActorId>) -> ActorId {
        current.unwrap_or(self.enabled[0])
    }

    /// Makes a data choice for the running actor.
    pub(crate) fn choose_value(
        &mut self,
        object: Option<ObjectId>,
        alternatives: usize,
        location: &'static std::panic::Location<'static>,
        sources: Option<&[u32]>,
        fault: bool,
    ) -> Option<usize> {
        if self.outcome.is_some() || alternatives < 2 {
            return Some(0);
        }
        self.faults |= fault;
        let actor = self.current.expect("a data choice is made by a running actor");
        let value = if self.coast_until.is_some() {
            0
        } else {
            let point = ChoicePoint { step: self.steps, actor, alternatives, location, sources, fault };
            // SAFETY: as in `decide`.
            match unsafe { (*self.strategy).choose_value(&point) } {
                Ok(value) if value < alternatives => value,
                Ok(value) => {
                    let detail = format!("choice {value} is out of range (0..{alternatives})");
                    self.outcome = Some(Outcome::ScheduleMismatch { step: self.steps, detail });
                    return None;
                }
                Err(ChoiceError::Redundant) => {
                    self.coast();
                    0
                }
                Err(err) => {
                    self.outcome = Some(self.choice_failure(err));
                    return None;
                }
            }
        };
        self.schedule.push(value as u32);
        let pending = Pending::new(Op::Choose, object, location);
        self.record_outlined(actor, pending, value as u32, false, false);
        Some(value)
    }

    /// [`Execution::record`], not inlined: for `decide` and data choices,
    /// which are not the forced-step hot path and do not gain from it.
    #[inline(never)]
    fn record_outlined(&mut self, actor: ActorId, pending: Pending, value: u32, preempt: bool, alone: bool) {
        self.record(actor, pending, value, preempt, alone);
    }

    /// Records a step: shows it to an observing strategy, traces it,
    /// counts it, and keeps what deadlock reports and the race detector
    /// need. Inlined into the forced-step path.
    #[inline]
    fn record(&mut self, actor: ActorId, pending: Pending, value: u32, preempt: bool, alone: bool) {
        if self.config.observed && self.coast_until.is_none() {
            let peer = match pending.op {
                // The child gets the next id (`start_actor` follows).
                Op::Spawn => Some(ActorId::from_index(self.actors.len())),
                Op::Join => pending.object.and_then(|o| self.objects[o.index()].actor),
                _ => None,
            };
            let step = Step { index: self.steps, actor, pending, value, preempt, peer, alone };
            // SAFETY: as in `ask_strategy`.
            unsafe { (*self.strategy).on_step(&step) };
        }
        if self.config.tracing {
            self.trace.push(TraceStep {
                actor,
                op: pending.op.shown(),
                object: pending.object,
                location: pending.location,
                value,
                preempt,
            });
        }
        self.steps += 1;
        self.last_location = Some(pending.location);
        // What a task may be waiting for: the last object it observed or
        // tried to take since its poll began (not one it released).
        match pending.op {
            // Its child gets the next id (`start_actor` follows) and
            // inherits its happens-before clock.
            Op::Spawn => self.race.spawn(actor, self.actors.len()),
            Op::Poll => self.actors[actor.index()].awaiting = None,
            // Releases, and yields: a runtime's worker given back at the
            // end of a poll is a yield on the worker, which the task does
            // not await.
            Op::Wake
            | Op::Unlock
            | Op::ReadUnlock
            | Op::NotifyOne
            | Op::NotifyAll
            | Op::Unpark
            | Op::Close
            | Op::Yield => {}
            _ if pending.object.is_some() => self.actors[actor.index()].awaiting = pending.object,
            _ => {}
        }
        if let (true, Some(object)) = (self.race.tracking, pending.object) {
            if !self.objects[object.index()].memory {
                self.race.on_step(actor, pending.op, object, &self.objects);
            }
        }
        if pending.op.is_yield() {
            self.memory.on_yield(actor);
        }
        // The watchdog only needs to see progress now and then, and who ran.
        if self.steps & 255 == 0 || preempt || self.current != Some(actor) {
            self.progress.steps.store(self.steps, Ordering::Relaxed);
            self.progress.actor.store(actor.0, Ordering::Relaxed);
        }
    }

    /// What a nondeterminism report adds about the statics this execution
    /// used and will not put back (`rt::keep_static`), the likely cause.
    pub(crate) fn unrestored_note(&self) -> Option<String> {
        let (first, rest) = self.unrestored.split_first()?;
        let mut note = format!(
            "; {} is in a `static` whose state samaritan cannot put back between executions: {}",
            self.object_name(first.0),
            first.1
        );
        for (object, why) in rest {
            note.push_str(&format!("; so is {}: {why}", self.object_name(*object)));
        }
        Some(note)
    }

    fn choice_failure(&self, err: ChoiceError) -> Outcome {
        match err {
            ChoiceError::Nondeterminism { .. } | ChoiceError::OtherObjects => {
                let mut detail = match err {
                    ChoiceError::Nondeterminism { detail } => detail,
                    _ => format!(
                        "replaying the same prefix, the threads announced the same operations at the same places as before, on other objects (now {}); the objects came in another order, as when the test loops over a std `HashMap` or `HashSet` (whose order its `RandomState` draws afresh in every execution) or over values ordered by address: iterate a `samaritan::collections::HashMap` or `HashSet`, whose order is the same in every execution",
                        self.enabled_operations()
                    ),
                };
                detail.push_str(&self.unrestored_note().unwrap_or_default());
                Outcome::Nondeterminism { step: self.steps, detail }
            }
            ChoiceError::ScheduleMismatch { detail } => Outcome::ScheduleMismatch { step: self.steps, detail },
            // Handled where it is asked (`ask_strategy`, `choose_value`).
            ChoiceError::Redundant => Outcome::Pass,
        }
    }

    /// The enabled actors' pending operations, as `'main' lock on Mutex#3
    /// at src/lib.rs:9:5`.
    fn enabled_operations(&self) -> String {
        let pending = |&a: &ActorId| {
            let p = self.actors[a.index()].pending.expect("an enabled actor has a pending operation");
            let object = p.object.map(|o| format!(" on {}", self.object_name(o))).unwrap_or_default();
            format!("'{}' {}{object} at {}", self.actor_name(a), p.op, location_string(p.location))
        };
        self.enabled.iter().map(pending).collect::<Vec<_>>().join(", ")
    }

    fn enabled_names(&self) -> String {
        self.enabled.iter().map(|&a| self.actor_name(a)).collect::<Vec<_>>().join(", ")
    }

    /// Describes a deadlock: who waits on what, who holds it, and a cycle.
    #[cold]
    fn deadlock(&self) -> Deadlock {
        let mut blocked = Vec::new();
        for (i, actor) in self.actors.iter().enumerate() {
            if actor.status == Status::Finished {
                continue;
            }
            let pending = actor.pending.expect("a blocked actor has a pending operation");
            let awaiting = self.awaited(i);
            let held = awaiting.or(pending.object);
            let holders = held.map_or_else(Vec::new, |o| self.objects[o.index()].holders.clone());
            blocked.push(BlockedActor {
                actor: self.actor_name(ActorId::from_index(i)),
                op: pending.op.to_string(),
                object: pending.object.map(|o| self.object_name(o)),
                awaiting: awaiting.map(|o| self.object_name(o)),
                holders: holders.iter().map(|&h| self.actor_name(h)).collect(),
                location: location_string(pending.location),
            });
        }
        let outside_wait_ms = self.outside_waited.map(|d| d.as_millis() as u64);
        Deadlock { blocked, cycle: self.wait_for_cycle(), outside_wait_ms }
    }

    /// For an actor pending in a task's `poll`: the object it last touched,
    /// which is what its future was awaiting when it returned `Pending`.
    fn awaited(&self, actor: usize) -> Option<ObjectId> {
        let a = &self.actors[actor];
        a.pending.filter(|p| p.op == Op::Poll).and(a.awaiting)
    }

    /// Finds a cycle in the wait-for graph: actor → holders of the object it
    /// waits on (for a task pending in `poll`, the object it awaits).
    fn wait_for_cycle(&self) -> Vec<String> {
        let waits_for = |a: usize| -> Vec<usize> {
            let actor = &self.actors[a];
            if actor.status == Status::Finished {
                return Vec::new();
            }
            match self.awaited(a).or(actor.pending.and_then(|p| p.object)) {
                Some(o) => self.objects[o.index()].holders.iter().map(|h| h.index()).collect(),
                None => Vec::new(),
            }
        };
        for start in 0..self.actors.len() {
            // Follow the first holder from `start`; a revisit closes a cycle.
            let mut path = vec![start];
            let mut at = start;
            while let Some(&next) = waits_for(at).first() {
                if let Some(pos) = path.iter().position(|&p| p == next) {
                    let mut cycle: Vec<String> =
                        path[pos..].iter().map(|&p| self.actor_name(ActorId::from_index(p))).collect();
                    cycle.push(self.actor_name(ActorId::from_index(next)));
                    return cycle;
                }
                path.push(next);
                at = next;
            }
        }
        Vec::new()
    }

    /// Builds the readable trace of what has run so far.
    pub(crate) fn readable_trace(&self) -> Trace {
        // `reads` is in step order: each step takes its note, if any.
        let mut reads = self.reads.iter().peekable();
        let mut notes = self.notes.iter().peekable();
        let lines = self
            .trace
            .iter()
            .enumerate()
            .map(|(index, s)| TraceLine {
                index,
                actor: self.actor_name(s.actor),
                op: s.op,
                object: s.object.map(|o| self.object_name(o)),
                location: location_string(s.location),
                value: (s.op == Op::Choose).then_some(s.value),
                preempt: s.preempt,
                read: reads.next_if(|r| r.step == index).map(|r| self.read_from(r)),
                note: notes.next_if(|(step, _)| *step == index).map(|(_, text)| text.clone()),
            })
            .collect();
        Trace { lines }
    }

    /// What the trace says of a read: the value, when the object's
    /// primitive shows its values, and which store it was.
    fn read_from(&self, read: &TraceRead) -> ReadFrom {
        let show = self.objects.get(read.object.index()).and_then(|o| o.show);
        ReadFrom {
            value: show.and_then(|show| show(read.origin.bits)),
            store: read.origin.store.map(|(actor, at)| (location_string(at), self.actor_name(actor))),
            rmw: read.origin.rmw,
        }
    }

    /// A fingerprint of what the trace did, step by step: each step's
    /// actor, operation and object (numbered in creation order). Source
    /// locations stay out, so that moving code without changing what it
    /// does keeps replay tokens valid.
    pub(crate) fn fingerprint(&self) -> u32 {
        let mut h: u32 = 0x811c_9dc5;
        let mut mix = |bytes: &[u8]| {
            for &b in bytes {
                h ^= u32::from(b);
                h = h.wrapping_mul(0x0100_0193);
            }
        };
        for s in &self.trace {
            mix(&s.actor.0.to_le_bytes());
            mix(s.op.name().as_bytes());
            mix(&s.object.map_or(u32::MAX, |o| o.index() as u32).to_le_bytes());
        }
        h
    }
}
