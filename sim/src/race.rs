//! Data-race detection: happens-before by vector clocks, checked at every
//! access to a cell.
//!
//! Cell accesses are not scheduling points: actors switch only at
//! synchronization operations, and every execution is checked for data
//! races instead. Iterative context bounding shows that this loses nothing
//! within a preemption bound (iterative-context-bounding.txt, section 3.1):
//! a race reachable with `c` preemptions is also reachable in an execution
//! whose preemptions all fall before synchronization operations, with at
//! most `c` of them (Theorem 3), and a race-free execution is equivalent to
//! such an observable one (Theorem 2), so a search that finds no race also
//! misses no assertion failure or deadlock by never switching at a cell.
//!
//! Happens-before is tracked with one vector clock per actor and one per
//! object. Every operation on an object acts like a `SeqCst` atomic access
//! (atomics too under the `sc` memory model; under the C11 model an
//! atomic's steps leave this rule to [`crate::memory`], which moves the
//! clocks by each store's release message instead):
//! *acquire* joins the object's clock into the actor's,
//! *release* joins the actor's clock into the object's and then starts a
//! new epoch of the actor ([`semantics`]). A race that needs weak memory
//! (two `Relaxed` accesses that a real machine may reorder) is therefore not
//! reported. Where the paper orders any two steps on one synchronization
//! variable (two loads included), this relation orders only a release
//! before a later acquire, so a race in the paper's sense is one here too.
//!
//! Cost: a program that uses no cell should not pay for clocks. So until
//! an execution's first cell access the synchronization events are only
//! logged (one push each; an acquire from an object nothing released into
//! is not even that), and that first access replays the log into the
//! clocks, which are then kept *live* for the rest of the execution. Once
//! an exploration has seen a cell, its later executions keep them live
//! from the start. Both ways apply the same events in the same order, so
//! a search and the replay that builds its report agree.
//!
//! Invariants:
//! - `tracking` is false until the execution's first spawn. With one actor
//!   everything happens before everything later, so nothing is recorded:
//!   objects keep empty clocks, and the main actor stays in epoch 1, which
//!   its children inherit. A program that never spawns pays one test per
//!   step.
//! - While `tracking` and not `live`, `log` holds every synchronization
//!   event since the first spawn, in order (the memory model's deferred
//!   accesses among them, as [`Mark`]s it interprets), and the clocks are
//!   as they were at that spawn (empty); once `live`, `log` is empty.
//! - An actor's own component is at least 1 once it has a clock, so an
//!   access at epoch `t` by actor `a` happens before a later access by `b`
//!   exactly when `b`'s clock has `a`'s component at `t` or more.
//! - A cell's `reads` hold, per actor, its latest read since the cell's
//!   last write (a later read of one actor covers its earlier ones).

use std::panic::Location;

use crate::object::ObjectInfo;
use crate::op::{ActorId, ObjectId, Op};
use crate::outcome::{Outcome, RaceAccess};
use crate::trace::location_string;

/// A vector clock: component `i` is the latest epoch of actor `i` known to
/// happen before; missing components are 0.
pub(crate) type Clock = Vec<u32>;

/// One access to a cell: who, in which of their epochs, and where.
#[derive(Clone, Copy, Debug)]
struct Epoch {
    actor: ActorId,
    time: u32,
    location: &'static Location<'static>,
}

/// What the detector remembers of one cell.
#[derive(Debug, Default)]
struct CellState {
    kind: &'static str,
    write: Option<Epoch>,
    reads: Vec<Epoch>,
}

/// Two conflicting accesses to one cell that no synchronization orders.
#[derive(Debug)]
pub(crate) struct Race {
    cell: usize,
    first: (Epoch, bool),
    second: (Epoch, bool),
}

/// A synchronization event, logged until the clocks go live.
#[derive(Clone, Copy, Debug)]
enum Event {
    /// A step that synchronizes as `bits` says.
    Step {
        actor: ActorId,
        bits: u8,
        object: ObjectId,
    },
    Spawn {
        parent: ActorId,
        child: u32,
    },
    /// [`Races::release`].
    Released {
        actor: ActorId,
        object: ObjectId,
    },
    /// [`Races::acquired`] taking a try-lock's acquire.
    Acquired {
        actor: ActorId,
        object: ObjectId,
    },
    /// An access of the memory model's ([`Races::defer`]).
    Memory(Mark),
}

/// An access of the memory model's whose effect on clocks waits in the
/// log until they go live: opaque to the detector, handed back to the
/// memory model ([`Deferred`]) at its place among the other events.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mark {
    pub(crate) location: u32,
    pub(crate) store: u32,
    pub(crate) actor: u32,
    pub(crate) what: u8,
}

/// Runs one of the memory model's deferred accesses against the clocks as
/// they are at its place in the log.
pub(crate) type Deferred<'a> = &'a mut dyn FnMut(&mut Races, Mark);

/// The happens-before state of one execution. Buffers keep their capacity
/// across executions.
#[derive(Debug, Default)]
pub(crate) struct Races {
    /// Whether steps on objects are recorded ([`Races::on_step`]).
    pub(crate) tracking: bool,
    /// Whether the clocks are kept up to date at every event, rather than
    /// the events logged.
    live: bool,
    /// Whether an execution of this exploration accessed a cell (kept
    /// across executions): later ones go live at their first spawn.
    cells_seen: bool,
    log: Vec<Event>,
    /// Whether anything released into each object (by index) in this
    /// execution: an acquire from one that nothing did is not recorded.
    released: Vec<bool>,
    /// Whether anything was recorded since the last reset.
    dirty: bool,
    actors: Vec<Clock>,
    objects: Vec<Clock>,
    cells: Vec<CellState>,
    /// Cells registered in the running execution (later entries are spare).
    cell_count: usize,
    /// The latest try-lock step: its acquire happens only if it takes the
    /// lock ([`Races::acquired`]).
    try_lock: Option<(ActorId, ObjectId)>,
}

/// The step joins its object's clock into the actor's.
const ACQUIRE: u8 = 1;
/// The step joins the actor's clock into its object's.
const RELEASE: u8 = 2;
/// The step acquires only if it succeeds: the primitive says so
/// ([`Races::acquired`]: a try-lock took the lock, an upgrade got a
/// reference).
const TRY: u8 = 4;
/// The step also acquires the clock of the actor its object stands for.
const JOIN: u8 = 8;

/// How each operation synchronizes ([`semantics`]), by discriminant: one
/// load on the hot path.
const SEMANTICS: [u8; Op::ALL.len()] = {
    let mut table = [ACQUIRE | RELEASE; Op::ALL.len()];
    let mut i = 0;
    while i < Op::ALL.len() {
        table[Op::ALL[i] as usize] = semantics(Op::ALL[i]);
        i += 1;
    }
    table
};

/// Returns how a step of `op` on an object synchronizes, as bits.
///
/// A compare-exchange counts as a read-modify-write even when it fails. An
/// operation not listed here synchronizes both ways, which can hide a race
/// but never reports a false one.
const fn semantics(op: Op) -> u8 {
    match op {
        // An arrival at a blocking operation publishes and learns nothing
        // (the operation's own step does).
        // A reference count's increment is `Relaxed`, as std's.
        Op::Spawn | Op::Yield | Op::Sleep | Op::SpinLoop | Op::Fence | Op::Choose | Op::Arrive | Op::RefInc => 0,
        // std's `is_finished` is a `Relaxed` read of the result packet's
        // count: it orders nothing (only `join` does).
        Op::IsFinished | Op::Exit => 0,
        Op::TryLock | Op::TryReadLock | Op::RefRead | Op::RefUpgrade => TRY,
        Op::RefDec => RELEASE,
        // The decrement that frees acquires every other owner's release
        // (std's `Acquire` fence after the last `fetch_sub`).
        Op::RefFree => ACQUIRE | RELEASE,
        Op::Join => ACQUIRE | JOIN,
        Op::Load
        | Op::WeakLoad
        | Op::Lock
        | Op::ReadLock
        | Op::Recv
        | Op::TryRecv
        | Op::RecvTimeout
        | Op::Park
        | Op::ParkTimeout
        | Op::Wait
        | Op::WaitTimeout
        | Op::Poll => ACQUIRE,
        Op::Store
        | Op::Unlock
        | Op::ReadUnlock
        | Op::Send
        | Op::TrySend
        | Op::Close
        | Op::Unpark
        | Op::NotifyOne
        | Op::NotifyAll
        | Op::Wake => RELEASE,
        _ => ACQUIRE | RELEASE,
    }
}

/// Joins `from` into `into`, component by component.
pub(crate) fn join(into: &mut Clock, from: &[u32]) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (a, &b) in into.iter_mut().zip(from) {
        *a = (*a).max(b);
    }
}

/// Returns the clocks `into` and `from` (`into != from`) of one table.
fn pair(clocks: &mut [Clock], into: usize, from: usize) -> (&mut Clock, &Clock) {
    if into < from {
        let (low, high) = clocks.split_at_mut(from);
        (&mut low[into], &high[0])
    } else {
        let (low, high) = clocks.split_at_mut(into);
        (&mut high[0], &low[from])
    }
}

impl Races {
    /// Forgets the last execution.
    pub(crate) fn reset(&mut self) {
        if !self.dirty {
            return;
        }
        self.tracking = false;
        self.live = false;
        self.dirty = false;
        self.log.clear();
        // Kept at its length, so that the next execution does not grow it.
        self.released.fill(false);
        self.actors.iter_mut().for_each(Vec::clear);
        self.objects.iter_mut().for_each(Vec::clear);
        for cell in &mut self.cells[..self.cell_count] {
            cell.write = None;
            cell.reads.clear();
        }
        self.cell_count = 0;
        self.try_lock = None;
    }

    /// Records a step of `actor` on `object`, once `tracking` (the caller
    /// tests it, so that executions with one actor pay nothing more).
    #[inline]
    pub(crate) fn on_step(&mut self, actor: ActorId, op: Op, object: ObjectId, objects: &[ObjectInfo]) {
        let bits = SEMANTICS.get(op as usize).copied().unwrap_or(ACQUIRE | RELEASE);
        // The hot path: an acquire from an object nothing released into (a
        // load of an atomic only loaded so far) changes nothing.
        if bits & (RELEASE | TRY | JOIN) == 0 && !self.released.get(object.index()).copied().unwrap_or(false) {
            return;
        }
        if self.live {
            self.sync(actor, bits, object, objects);
        } else {
            if bits & RELEASE != 0 {
                self.mark_released(object);
            }
            if bits & TRY != 0 {
                // As `sync` does, so that `acquired` logs only what counts.
                self.try_lock = Some((actor, object));
            }
            self.log.push(Event::Step { actor, bits, object });
        }
    }

    /// Records the spawn of actor `child` by `parent`.
    #[cold]
    pub(crate) fn spawn(&mut self, parent: ActorId, child: usize) {
        if !self.tracking {
            self.tracking = true;
            self.dirty = true;
            self.live = self.cells_seen;
        }
        if self.live {
            self.start(parent, child);
        } else {
            self.log.push(Event::Spawn { parent, child: child as u32 });
        }
    }

    /// Starts the clock of the child `child` from its parent's; the parent
    /// then starts a new epoch.
    fn start(&mut self, parent: ActorId, child: usize) {
        let p = parent.index();
        self.clock(p);
        self.clock(child);
        let (into, from) = pair(&mut self.actors, child, p);
        join(into, from);
        self.actors[p][p] += 1;
    }

    #[inline(never)]
    fn sync(&mut self, actor: ActorId, bits: u8, object: ObjectId, objects: &[ObjectInfo]) {
        let (a, o) = (actor.index(), object.index());
        if bits & ACQUIRE != 0 {
            self.acquire(a, o);
        }
        // A join also happens after every step of the actor its object
        // stands for, whose clock stops changing when it finishes.
        if let Some(peer) = objects[o].actor.filter(|_| bits & JOIN != 0).map(ActorId::index) {
            self.clock(peer);
            self.clock(a);
            if peer != a {
                let (into, from) = pair(&mut self.actors, a, peer);
                join(into, from);
            }
        }
        if bits & TRY != 0 {
            self.try_lock = Some((actor, object));
        }
        if bits & RELEASE != 0 {
            self.release(actor, object);
        }
    }

    /// `actor` took `object` (a lock); a try-lock's acquire happens now.
    pub(crate) fn acquired(&mut self, actor: ActorId, object: ObjectId) {
        if self.try_lock != Some((actor, object)) {
            return;
        }
        self.try_lock = None;
        if self.live {
            self.acquire(actor.index(), object.index());
        } else {
            self.log.push(Event::Acquired { actor, object });
        }
    }

    fn acquire(&mut self, a: usize, o: usize) {
        // An object nobody released into has an empty clock: nothing to do
        // (the hot path of loads).
        if let Some(from) = self.objects.get(o).filter(|c| !c.is_empty()) {
            if self.actors.len() <= a {
                self.actors.resize_with(a + 1, Vec::new);
            }
            join(&mut self.actors[a], from);
            self.clock(a);
        }
    }

    /// `actor` publishes everything it did so far on `object` (a step that
    /// releases, or a lock given up without one: a condition variable's
    /// wait, a thread's exit).
    pub(crate) fn release(&mut self, actor: ActorId, object: ObjectId) {
        if !self.live {
            if self.tracking {
                self.mark_released(object);
                self.log.push(Event::Released { actor, object });
            }
            return;
        }
        self.mark_released(object);
        let (a, o) = (actor.index(), object.index());
        self.clock(a);
        if self.objects.len() <= o {
            self.objects.resize_with(o + 1, Vec::new);
        }
        join(&mut self.objects[o], &self.actors[a]);
        self.actors[a][a] += 1;
    }

    #[inline]
    fn mark_released(&mut self, object: ObjectId) {
        match self.released.get_mut(object.index()) {
            Some(released) => *released = true,
            None => self.grow_released(object.index()),
        }
    }

    #[cold]
    fn grow_released(&mut self, o: usize) {
        self.released.resize(o + 1, false);
        self.released[o] = true;
    }

    /// Returns actor `a`'s clock, making it if needed.
    fn clock(&mut self, a: usize) -> &mut Clock {
        if self.actors.len() <= a {
            self.actors.resize_with(a + 1, Vec::new);
        }
        let clock = &mut self.actors[a];
        if clock.len() <= a {
            clock.resize(a + 1, 0);
        }
        if clock[a] == 0 {
            clock[a] = 1;
        }
        clock
    }

    /// Brings the clocks live now, running the memory model's deferred
    /// events at their places in the log (`memory`).
    pub(crate) fn ensure_live(&mut self, objects: &[ObjectInfo], memory: Deferred<'_>) {
        if self.tracking && !self.live {
            self.go_live(objects, memory);
        }
    }

    /// Whether the clocks say what happened: they are live, or nothing is
    /// tracked yet (one actor: every clock empty, everything known).
    #[inline]
    pub(crate) fn settled(&self) -> bool {
        !self.tracking || self.live
    }

    /// Logs a deferred access of the memory model's (only while tracking
    /// and not live): what it does to clocks happens when they go live,
    /// between the events logged before and after it.
    #[inline]
    pub(crate) fn defer(&mut self, mark: Mark) {
        debug_assert!(!self.settled());
        self.log.push(Event::Memory(mark));
    }

    /// Actor `a`'s clock as it stands (empty when it has none).
    pub(crate) fn clock_of(&self, a: usize) -> &[u32] {
        self.actors.get(a).map_or(&[], Vec::as_slice)
    }

    /// Actor `a`'s present epoch, making its clock if needed.
    pub(crate) fn epoch(&mut self, a: usize) -> u32 {
        self.dirty = true;
        self.clock(a)[a]
    }

    /// Joins `from` into actor `a`'s clock (an acquire of a message).
    pub(crate) fn join_into(&mut self, a: usize, from: &[u32]) {
        if !from.is_empty() {
            self.clock(a);
            join(&mut self.actors[a], from);
        }
    }

    /// Starts a new epoch of actor `a` (after it released its clock).
    pub(crate) fn next_epoch(&mut self, a: usize) {
        self.clock(a)[a] += 1;
    }

    /// How many actors have a clock slot.
    pub(crate) fn actor_count(&self) -> usize {
        self.actors.len()
    }

    /// Registers a cell labelled `kind` and returns its id.
    pub(crate) fn register_cell(&mut self, kind: &'static str) -> usize {
        self.dirty = true;
        let id = self.cell_count;
        if id == self.cells.len() {
            self.cells.push(CellState::default());
        }
        self.cells[id].kind = kind;
        self.cell_count += 1;
        id
    }

    /// Brings the clocks up to date from the log and keeps them so.
    #[cold]
    fn go_live(&mut self, objects: &[ObjectInfo], memory: Deferred<'_>) {
        self.live = true;
        // Replaying sets and clears it again as it did while logging.
        self.try_lock = None;
        let log = std::mem::take(&mut self.log);
        for &event in &log {
            match event {
                Event::Step { actor, bits, object } => self.sync(actor, bits, object, objects),
                Event::Spawn { parent, child } => self.start(parent, child as usize),
                Event::Released { actor, object } => self.release(actor, object),
                Event::Acquired { actor, object } => self.acquired(actor, object),
                Event::Memory(mark) => memory(self, mark),
            }
        }
        self.log = log;
        self.log.clear();
    }

    /// Checks an access of `actor` to cell `cell` (a write when `write`)
    /// against the earlier conflicting ones, then records it. `objects` are
    /// the execution's objects, for the log's joins.
    pub(crate) fn access(
        &mut self,
        cell: usize,
        actor: ActorId,
        write: bool,
        location: &'static Location<'static>,
        objects: &[ObjectInfo],
        memory: Deferred<'_>,
    ) -> Option<Race> {
        self.dirty = true;
        self.cells_seen = true;
        if self.tracking && !self.live {
            self.go_live(objects, memory);
        }
        let a = actor.index();
        self.clock(a);
        let clock = &self.actors[a];
        let now = Epoch { actor, time: clock[a], location };
        let ordered = |e: &Epoch| clock.get(e.actor.index()).is_some_and(|&t| t >= e.time);
        let state = &mut self.cells[cell];
        let race =
            |first: Epoch, first_write: bool| Some(Race { cell, first: (first, first_write), second: (now, write) });
        if let Some(w) = state.write.filter(|w| !ordered(w)) {
            return race(w, true);
        }
        if write {
            if let Some(&r) = state.reads.iter().find(|r| !ordered(r)) {
                return race(r, false);
            }
            state.reads.clear();
            state.write = Some(now);
        } else {
            match state.reads.iter_mut().find(|r| r.actor == actor) {
                Some(r) => *r = now,
                None => state.reads.push(now),
            }
        }
        None
    }
}

impl Races {
    /// Builds the verdict for `race`, naming actors with `name`.
    /// The verdict on `race`; `in_std_arc_drop` says whether its second
    /// access, the running actor's, runs in a destructor a std `Arc`'s
    /// last drop started.
    pub(crate) fn report(&self, race: &Race, in_std_arc_drop: bool, name: impl Fn(ActorId) -> String) -> Outcome {
        let access = |(epoch, write): (Epoch, bool)| RaceAccess {
            write,
            actor: name(epoch.actor),
            location: location_string(epoch.location),
            in_std_arc_drop: false,
        };
        Outcome::DataRace {
            cell: format!("{}#{}", self.cells[race.cell].kind, race.cell),
            first: access(race.first),
            second: RaceAccess { in_std_arc_drop, ..access(race.second) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAIN: ActorId = ActorId(0);
    const T1: ActorId = ActorId(1);

    fn here() -> &'static Location<'static> {
        Location::caller()
    }

    /// Main spawns t1; `t1` then writes a fresh cell, and main writes it
    /// after the step `op` on object 0 by t1 and a load of it by main.
    fn write_after(op: Op) -> bool {
        let objects = [ObjectInfo::new("Atomic")];
        let mut races = Races::default();
        races.spawn(MAIN, 1);
        let cell = races.register_cell("UnsafeCell");
        assert!(races.access(cell, T1, true, here(), &objects, &mut |_, _| {}).is_none());
        races.on_step(T1, op, ObjectId(0), &objects);
        races.on_step(MAIN, Op::Load, ObjectId(0), &objects);
        races.access(cell, MAIN, true, here(), &objects, &mut |_, _| {}).is_some()
    }

    #[test]
    fn a_store_orders_a_later_load_and_a_load_orders_nothing() {
        assert_eq!([write_after(Op::Store), write_after(Op::Rmw)], [false, false]);
        assert_eq!([write_after(Op::Load), write_after(Op::Yield)], [true, true]);
    }

    #[test]
    fn a_logged_prefix_gives_the_clocks_live_tracking_gives() {
        let objects = [ObjectInfo { actor: Some(T1), ..ObjectInfo::new("Thread") }, ObjectInfo::new("Mutex")];
        let (thread, mutex) = (ObjectId(0), ObjectId(1));
        let events = |races: &mut Races| {
            races.spawn(MAIN, 1);
            races.on_step(MAIN, Op::Unlock, mutex, &objects);
            // A failed try-lock, then one that takes the lock.
            races.on_step(T1, Op::TryLock, mutex, &objects);
            races.on_step(T1, Op::TryLock, mutex, &objects);
            races.acquired(T1, mutex);
            races.on_step(T1, Op::Store, thread, &objects);
            races.release(T1, thread);
            races.on_step(MAIN, Op::Join, thread, &objects);
        };
        let mut logged = Races::default();
        events(&mut logged);
        assert_eq!((logged.live, logged.log.len(), logged.actors.len()), (false, 8, 0));
        let cell = logged.register_cell("UnsafeCell");
        assert!(logged.access(cell, MAIN, true, here(), &objects, &mut |_, _| {}).is_none());
        let mut live = Races { cells_seen: true, ..Races::default() };
        events(&mut live);
        assert_eq!((&logged.actors, &logged.objects, logged.log.len()), (&live.actors, &live.objects, 0));
        assert_eq!(live.actors, [vec![3, 3], vec![2, 3]]);
    }

    #[test]
    fn the_table_says_what_the_match_says() {
        for op in Op::ALL {
            assert_eq!(SEMANTICS[op as usize], semantics(op), "{op}");
        }
    }

    #[test]
    fn reads_do_not_race_with_reads_and_reset_forgets_everything() {
        let mut races = Races::default();
        races.spawn(MAIN, 1);
        let cell = races.register_cell("UnsafeCell");
        assert!(races.access(cell, MAIN, false, here(), &[], &mut |_, _| {}).is_none());
        assert!(races.access(cell, T1, false, here(), &[], &mut |_, _| {}).is_none());
        let race =
            races.access(cell, T1, true, here(), &[], &mut |_, _| {}).expect("main's read is not ordered before");
        assert_eq!((race.first.0.actor, race.first.1, race.second.0.actor, race.second.1), (MAIN, false, T1, true));
        races.reset();
        assert_eq!((races.tracking, races.live, races.cell_count, races.actors[1].len()), (false, false, 0, 0));
        // The exploration has seen a cell: the next execution is live at
        // its first spawn.
        races.spawn(MAIN, 1);
        assert_eq!((races.live, races.log.len()), (true, 0));
    }
}
