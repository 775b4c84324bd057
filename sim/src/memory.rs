//! The C11 memory model for atomics: which store each load may read.
//!
//! RC11 (Lahav et al., "Repairing sequential consistency in C/C++11",
//! PLDI 2017) is the reference; this module runs it operationally, the way
//! CDSChecker and loom do. Each atomic keeps its stores in modification
//! order (`mo`). A load may read any store that coherence and
//! happens-before leave it, and which one it reads is an explored data
//! choice (alternative 0 is always the newest store, so the first
//! execution of a search is the sequentially consistent one). A store may
//! be placed anywhere in `mo` after the stores its thread already knows
//! (also an explored choice, 0 = at the end), which gives the 2+2W
//! outcomes a model that only appends cannot. Read-modify-writes read the
//! newest store and are placed right after it, so nothing is ever placed
//! between an RMW and the store it read.
//!
//! Happens-before is the race detector's vector clocks
//! ([`Races`](crate::race::Races)): a release store carries its thread's
//! clock as its *message*, an acquire load joins the message of the store
//! it reads, a read-modify-write adds the message of the store it read
//! (release sequences, C++20: a plain store ends them). A relaxed load
//! keeps the message for a later acquire fence; a relaxed store carries
//! the clock of its thread's last release fence.
//!
//! Deferred clocks: an access that makes no choice (a SeqCst load of a
//! SeqCst store, a SeqCst store after one, any read-modify-write) needs no
//! clock to decide, only to record. While the race detector only logs
//! (until an access needs clocks: a choice of store or place, a fence, a
//! cell, a history due for pruning at [`LAZY_HISTORY`] stores), such an
//! access records its store without epoch or message and logs a [`Mark`];
//! when the clocks go live, the detector replays its log and hands each
//! mark back ([`Memory::apply`]), which then does what the access would
//! have done to clocks at that point. A program whose atomics are all
//! SeqCst thus never brings the clocks live (as one that touches no cell
//! never did), and pays a push per access instead of a clock copy.
//! Replaying the same events in the same order gives the same clocks, so a
//! search and the traced replay of its report agree
//! (`tests/reduction_agreement.rs` checks it against clocks live from the
//! start).
//!
//! A store is *known* to a thread when the store, or some read of it,
//! happens before the thread's present (each store keeps, per reader, the
//! epoch of its first read). A thread may read a store exactly when no
//! store after it in `mo` is known to it: the newest known store is its
//! floor (coherence: CoRR, CoWR, CoRW, CoWW all follow).
//!
//! SeqCst, following RC11's SC rules in the forms that matter: the order
//! in which steps run is the total order `S` on SeqCst events. A SeqCst
//! store goes after every earlier SeqCst store in `mo`, and a SeqCst load
//! reads no store older than the newest earlier SeqCst store (so a program
//! whose atomics are all SeqCst has no choices at all, and Dekker's and
//! Peterson's algorithms pass). A SeqCst fence makes its thread know what
//! every earlier SeqCst fence's thread knew (the fence clock `fences`),
//! and every SeqCst store before it; a SeqCst load also knows what the
//! fence clock holds. Two simplifications, each of which can only hide a
//! behaviour, never admit one RC11 forbids except the second: a SeqCst
//! fence synchronizes with earlier SeqCst fences for the race detector too
//! (a race ordered only by two SeqCst fences is not reported), and what a
//! SeqCst fence learned of SeqCst stores does not travel on to other
//! threads through later synchronization.
//!
//! Out of scope: load buffering (a load reading a store that comes later
//! in its own thread's program order or in the run order); out-of-thin-air
//! values therefore never appear either.
//!
//! Progress: a load by a thread that yielded (a spin hint, `yield_now`, a
//! sleep or timed wait) since its last access to the atomic reads the
//! newest store, so that a spin loop waiting for a store terminates (the
//! fair scheduler's yield rule then bounds the loop; C++'s "stores become
//! visible in a finite time"). Histories are cut: stores older than every
//! live thread's floor can never be read again and are dropped.
//!
//! Invariants:
//! - A location's `stores` is never empty once it is live; the last one is
//!   the newest in `mo`, and its value is the one the primitive's real
//!   atomic holds.
//! - A store with `time == 0` was made before the execution's first spawn
//!   (or is the initial value) and is known to every thread.
//! - No store is ever placed between an RMW and the store it read: for
//!   every RMW at index `i > 0`, `stores[i - 1]` is the store it read.
//! - While the clocks are not live ([`Races::settled`] is false), histories
//!   only grow at their end and lose nothing (no pruning, no restart), so
//!   a store's index names it in a [`Mark`]; a store whose clock part is
//!   deferred has `time == PENDING` and an empty message until it runs.

use std::panic::Location;
use std::sync::atomic::Ordering;

use crate::arena::{Arena, Span, NONE};
use crate::op::ActorId;
use crate::race::{join, Clock, Mark, Races};
use crate::trace::Origin;

/// The `time` of a store whose epoch is deferred (see [`mark`]).
const PENDING: u32 = u32::MAX;

/// The longest history kept without pruning while the clocks are not live
/// ([`Memory::prune_due`]).
const LAZY_HISTORY: usize = 1 << 16;

/// One store in a location's modification order.
#[derive(Debug)]
struct Store {
    value: u64,
    actor: u32,
    /// The writer's epoch at the store; 0 = known to every thread;
    /// [`PENDING`] while deferred.
    time: u32,
    /// Per reader (other than the writer), the epoch of its first read:
    /// the head of its list in the arena. Readers that the store's
    /// epoch or a later store of theirs covers are not listed.
    seen: u32,
    /// What an acquire that reads this store learns: a span of the arena.
    message: Span,
    /// Position in `S` of a SeqCst store (1, 2, ...; 0 when not SeqCst)
    /// in the low bits, and [`RMW_BIT`] for a read-modify-write's store
    /// (one word: a store is 48 bytes).
    sc: u32,
    /// Where the store was made; `None` for the initial value.
    location: Option<&'static Location<'static>>,
    /// The step of the execution that made it ([`NO_STEP`] for the
    /// initial value): what names it to a strategy
    /// ([`ChoicePoint::sources`](crate::ChoicePoint::sources)).
    step: u32,
}

/// [`Store::step`] of the initial value (and of a value found in place
/// when a location restarts), made by no step of the execution.
pub(crate) const NO_STEP: u32 = u32::MAX;

/// [`Store::sc`]'s bit for a read-modify-write's store (positions in `S`
/// stay below it: an execution has at most `MAX_STEPS` steps).
const RMW_BIT: u32 = 1 << 31;

impl Store {
    /// Its position in `S` if it is SeqCst, else 0.
    fn sc(&self) -> u32 {
        self.sc & !RMW_BIT
    }

    /// Whether a read-modify-write made it.
    fn is_rmw(&self) -> bool {
        self.sc & RMW_BIT != 0
    }
}

/// A deferred access ([`Mark::what`]) is a store; without this bit, a
/// load of store [`Mark::store`].
const WRITE: u8 = 8;
/// With [`WRITE`]: a read-modify-write, which read the store before it
/// ([`Memory::rmw`]: its read is part of the access).
const RMW: u8 = 16;

/// The part of an access that reads or moves clocks, deferred while the
/// race detector only logs: the [`Mark`] it logs, which comes back to
/// [`Memory::apply`] when the clocks go live, at its place among the
/// logged synchronization events. Until then a history only grows at its
/// end and nothing is dropped from it, so a store's index names it.
fn mark(o: usize, store: usize, actor: usize, order: Ordering, what: u8) -> Mark {
    let order = match order {
        Ordering::Relaxed => 0,
        Ordering::Release => 1,
        Ordering::Acquire => 2,
        Ordering::AcqRel => 3,
        _ => 4,
    };
    Mark { location: o as u32, store: store as u32, actor: actor as u32, what: what | order }
}

/// The ordering a [`Mark`] carries.
fn order_of(mark: Mark) -> Ordering {
    [Ordering::Relaxed, Ordering::Release, Ordering::Acquire, Ordering::AcqRel, Ordering::SeqCst]
        [(mark.what & 7) as usize]
}

/// One atomic's history in the running execution.
#[derive(Debug, Default)]
struct Loc {
    live: bool,
    stores: Vec<Store>,
    /// What each actor's accesses here left, by actor index.
    actors: Vec<Accessor>,
    /// Changes whenever a store joins `stores` or the history restarts.
    version: u32,
    /// Prune when the history is this long.
    prune_at: usize,
}

impl Loc {
    /// Notes an access by actor `a`, whose yield count is `yields` (for
    /// the progress rule), and whether it knows the newest store now.
    #[inline]
    fn note(&mut self, a: usize, yields: u32, knows_newest: bool) {
        if self.actors.len() <= a {
            grow(&mut self.actors, a);
        }
        let x = &mut self.actors[a];
        x.yields = yields;
        if knows_newest {
            x.knows = self.version.wrapping_add(1);
        }
    }
}

/// What one actor's accesses to a location left.
#[derive(Clone, Copy, Debug, Default)]
struct Accessor {
    /// Its yield count at its last access here.
    yields: u32,
    /// `version + 1` while the actor knows the newest store and its
    /// message (it wrote it, or read it learning the message, and no store
    /// came since): it can read no other, and reading it again changes
    /// nothing but its yield count.
    knows: u32,
}

/// What the model keeps of one thread.
#[derive(Debug, Default)]
struct Thread {
    /// Its body returned or unwound: it reads nothing more.
    done: bool,
    yields: u32,
    /// The count of SeqCst stores at its last SeqCst fence.
    fence_sc: u32,
    /// Its clock at its last release fence (empty: none).
    release: Clock,
    /// Messages its relaxed reads saw, for its next acquire fence.
    acquire: Clock,
}

/// The memory model's state for one execution. Buffers keep their
/// capacity across executions.
#[derive(Debug, Default)]
pub(crate) struct Memory {
    locations: Vec<Loc>,
    threads: Vec<Thread>,
    /// SeqCst stores so far: the `S` position of the latest.
    sc: u32,
    /// The join of every SeqCst fence's clock so far.
    fences: Clock,
    /// The stores' messages and reader lists.
    arena: Arena,
    /// A buffer for the choices of one access (`rt` lends it out), so
    /// that an access allocates nothing.
    pub(crate) scratch: Vec<usize>,
    /// A buffer for a load's sources (`rt` lends it out).
    pub(crate) sources_scratch: Vec<u32>,
    /// The object SeqCst fences step on in this execution, once one did.
    pub(crate) fence_object: Option<crate::op::ObjectId>,
    /// The step of the access running now (set by `rt` as an access
    /// begins, before any choice it makes): a store made now is named by
    /// it.
    pub(crate) step: u32,
    dirty: bool,
}

/// Makes `v` long enough to hold index `i` (off the hot paths).
#[cold]
fn grow<T: Default>(v: &mut Vec<T>, i: usize) {
    v.resize_with(i + 1, T::default);
}

/// Whether `order` has acquire semantics for a read.
pub(crate) fn acquires(order: Ordering) -> bool {
    matches!(order, Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst)
}

/// Whether `order` has release semantics for a write.
pub(crate) fn releases(order: Ordering) -> bool {
    matches!(order, Ordering::Release | Ordering::AcqRel | Ordering::SeqCst)
}

impl Memory {
    /// Forgets the last execution.
    pub(crate) fn reset(&mut self) {
        self.fence_object = None;
        if !self.dirty {
            return;
        }
        self.dirty = false;
        self.arena.clear();
        for loc in &mut self.locations {
            loc.live = false;
            loc.stores.clear();
            loc.actors.clear();
        }
        for t in &mut self.threads {
            (t.done, t.yields, t.fence_sc) = (false, 0, 0);
            t.release.clear();
            t.acquire.clear();
        }
        self.sc = 0;
        self.fences.clear();
    }

    #[inline]
    fn thread(&mut self, a: usize) -> &mut Thread {
        if self.threads.len() <= a {
            grow(&mut self.threads, a);
        }
        &mut self.threads[a]
    }

    /// `actor` finished: its floor no longer keeps stores alive.
    pub(crate) fn on_finish(&mut self, actor: ActorId) {
        if self.dirty {
            self.thread(actor.index()).done = true;
        }
    }

    /// Counts a yield of `actor` (see the module's progress rule).
    pub(crate) fn on_yield(&mut self, actor: ActorId) {
        if self.dirty {
            self.thread(actor.index()).yields += 1;
        }
    }

    /// Makes location `o` live with `value` as its initial store if it is
    /// not, or if the primitive's value is not the model's newest (a
    /// `get_mut` or `as_ptr` write, which happens before everything after
    /// it): then that value is the whole history.
    pub(crate) fn touch(&mut self, o: usize, value: u64) {
        self.dirty = true;
        if self.locations.len() <= o {
            self.locations.resize_with(o + 1, Loc::default);
        }
        if self.locations[o].live && !self.restarts(o, value) {
            return;
        }
        let loc = &mut self.locations[o];
        loc.live = true;
        for s in loc.stores.drain(..) {
            self.arena.release(s.message, s.seen);
        }
        loc.actors.iter_mut().for_each(|x| x.knows = 0);
        loc.version = loc.version.wrapping_add(1);
        loc.prune_at = 8;
        let initial =
            Store { value, actor: 0, time: 0, seen: NONE, message: Span::EMPTY, sc: 0, location: None, step: NO_STEP };
        loc.stores.push(initial);
    }

    /// Whether [`Memory::touch`] would restart live location `o`'s
    /// history: the primitive's `value` is not its newest store's. A
    /// restart drops stores a deferred event may name, so the clocks go
    /// live first.
    pub(crate) fn restarts(&self, o: usize, value: u64) -> bool {
        self.locations.get(o).is_some_and(|loc| loc.live && loc.stores.last().is_some_and(|s| s.value != value))
    }

    /// The index of the oldest store of `o` that `actor` may read (or must
    /// write after): the newest store it knows, and for a SeqCst access
    /// the newest earlier SeqCst store.
    fn floor(&self, o: usize, actor: usize, races: &Races, sc: bool) -> usize {
        debug_assert!(races.settled(), "a floor needs live clocks");
        let stores = &self.locations[o].stores;
        let clock = races.clock_of(actor);
        let fences: &[u32] = if sc { &self.fences } else { &[] };
        let knows = |u: u32, e: u32| {
            e == 0 || clock.get(u as usize).is_some_and(|&t| t >= e) || fences.get(u as usize).is_some_and(|&t| t >= e)
        };
        let known = |s: &Store| knows(s.actor, s.time) || self.arena.readers(s.seen).any(|(u, e)| knows(u, e));
        let mut floor = stores.iter().rposition(known).unwrap_or(0);
        let bound = if sc { self.sc } else { self.threads.get(actor).map_or(0, |t| t.fence_sc) };
        if bound > 0 {
            if let Some(i) = stores.iter().rposition(|s| s.sc() != 0 && s.sc() <= bound) {
                floor = floor.max(i);
            }
        }
        floor
    }

    /// Whether a load of `o` by `actor` now falls under the progress rule
    /// (it reads the newest store): the actor yielded since it last
    /// accessed `o`. For a location not live yet, whether it ever yielded.
    pub(crate) fn progress_rule(&self, o: usize, actor: usize) -> bool {
        let now = self.threads.get(actor).map_or(0, |t| t.yields);
        let then = self.locations.get(o).and_then(|l| l.actors.get(actor)).map_or(0, |x| x.yields);
        now > then
    }

    /// Notes an access of `actor` to `o` (for the progress rule), and
    /// whether it knows the newest store now.
    #[inline]
    fn note_access(&mut self, o: usize, actor: usize, knows_newest: bool) {
        let yields = self.threads.get(actor).map_or(0, |t| t.yields);
        self.locations[o].note(actor, yields, knows_newest);
    }

    /// A load of `o` by `actor` that can only read the newest store and
    /// changes nothing by reading it (the actor already knows it: it wrote
    /// it, or read it with an acquire or when it carried no message, and
    /// no store came since; so its message is in the actor's clock and an
    /// acquire would add nothing): the value,
    /// with the access noted; `None` when the load must take the full path
    /// (also when `current`, the primitive's value, is not the newest
    /// store's: [`Memory::touch`] restarts the history then). The hot path
    /// of spin loops and repeated reads: it needs no clock.
    #[inline]
    pub(crate) fn reread(&mut self, o: usize, actor: ActorId, current: u64) -> Option<u64> {
        let a = actor.index();
        let loc = self.locations.get_mut(o)?;
        let version = loc.version.wrapping_add(1);
        let value = loc.stores.last()?.value;
        let x = loc.actors.get_mut(a).filter(|x| x.knows == version && value == current && loc.live)?;
        x.yields = self.threads.get(a).map_or(0, |t| t.yields);
        Some(value)
    }

    /// The stores a load of `o` by `actor` may read, newest first: their
    /// indices are `len - 1 - k` for choice `k` in `0..count`. `None` when
    /// that takes clocks and they are not live ([`Races::settled`]).
    pub(crate) fn readable(&self, o: usize, actor: ActorId, races: &Races, sc: bool) -> Option<usize> {
        let a = actor.index();
        let stores = &self.locations[o].stores;
        // The fast paths: one store, or a SeqCst load whose newest store
        // is SeqCst (all a SeqCst-only program ever meets).
        if stores.len() == 1 || (sc && stores[stores.len() - 1].sc() != 0) || self.progress_rule(o, a) {
            return Some(1);
        }
        races.settled().then(|| stores.len() - self.floor(o, a, races, sc))
    }

    /// The stores a compare-exchange of `o` may read: the newest, and any
    /// older readable one whose value `fails` (a failed compare-exchange
    /// is a load and may read a stale value; a successful one reads the
    /// newest). Returns the indices, newest first, into `into`; `false`
    /// when that takes clocks and they are not live.
    pub(crate) fn cas_readable(
        &self,
        o: usize,
        actor: ActorId,
        races: &Races,
        sc: bool,
        fails: &dyn Fn(u64) -> bool,
        into: &mut Vec<usize>,
    ) -> bool {
        let stores = &self.locations[o].stores;
        into.clear();
        into.push(stores.len() - 1);
        if stores.len() == 1 || self.progress_rule(o, actor.index()) {
            return true;
        }
        if !races.settled() {
            return false;
        }
        let floor = self.floor(o, actor.index(), races, sc);
        into.extend((floor..stores.len() - 1).rev().filter(|&i| fails(stores[i].value)));
        true
    }

    /// The value of store `index` of `o`.
    pub(crate) fn value(&self, o: usize, index: usize) -> u64 {
        self.locations[o].stores[index].value
    }

    /// Whether `actor`'s clock already holds the newest store's message
    /// of `o` (what [`Memory::reread`] relies on; for its debug check).
    pub(crate) fn holds_newest_message(&self, o: usize, actor: ActorId, races: &Races) -> bool {
        let clock = races.clock_of(actor.index());
        let message = self.locations[o].stores.last().map_or(&[][..], |s| self.arena.message(s.message));
        message.iter().enumerate().all(|(u, &t)| t == 0 || clock.get(u).is_some_and(|&c| c >= t))
    }

    /// Which store `index` of `o` is, for the trace.
    pub(crate) fn origin(&self, o: usize, index: usize) -> Origin {
        let s = &self.locations[o].stores[index];
        let store = s.location.map(|at| (ActorId::from_index(s.actor as usize), at));
        Origin { bits: s.value, store, rmw: s.is_rmw() }
    }

    /// The steps that made the `count` newest stores of `o`, newest first
    /// (a load's alternatives), into `into`.
    pub(crate) fn sources(&self, o: usize, count: usize, into: &mut Vec<u32>) {
        into.clear();
        into.extend(self.locations[o].stores.iter().rev().take(count).map(|s| s.step));
    }

    /// The step that made store `index` of `o` ([`NO_STEP`] for none).
    pub(crate) fn step_of(&self, o: usize, index: usize) -> u32 {
        self.locations[o].stores[index].step
    }

    /// The index of the newest store of `o`.
    pub(crate) fn newest(&self, o: usize) -> usize {
        self.locations[o].stores.len() - 1
    }

    /// `actor` reads store `index` of `o` with `order` (for a
    /// read-modify-write that writes, when `rmw`); returns its value. What
    /// the read does to clocks is deferred while they are not live.
    pub(crate) fn read(
        &mut self,
        o: usize,
        actor: ActorId,
        index: usize,
        order: Ordering,
        rmw: bool,
        races: &mut Races,
    ) -> u64 {
        let a = actor.index();
        self.thread(a);
        let store = &self.locations[o].stores[index];
        let value = store.value;
        // Whether the store's message is in the actor's clock after this
        // read: only then is reading the store again a no-op whatever its
        // ordering (a relaxed read leaves it pending, for an acquire
        // fence). A message still deferred counts as not empty.
        let learned = acquires(order) || (store.time != PENDING && store.message.is_empty());
        if races.settled() {
            self.read_clocks(o, index, a, order, rmw, races);
        } else {
            races.defer(mark(o, index, a, order, if rmw { RMW } else { 0 }));
        }
        let newest = index + 1 == self.locations[o].stores.len();
        self.note_access(o, a, learned && newest);
        value
    }

    /// What actor `a`'s read of store `index` of `o` does to clocks: it
    /// becomes a reader of the store (unless something else says it
    /// knows it), and learns its message (or holds it for a fence).
    fn read_clocks(&mut self, o: usize, index: usize, a: usize, order: Ordering, rmw: bool, races: &mut Races) {
        let store = &mut self.locations[o].stores[index];
        // The reader is listed unless something else says it knows the
        // store: its own store, one known to all (time 0), or the store a
        // read-modify-write is about to place right after this one, in
        // the same epoch of the same reader (known exactly when the read
        // would be, and newer).
        let listed = rmw
            || store.time == 0
            || store.actor as usize == a
            || self.arena.readers(store.seen).any(|(u, _)| u as usize == a);
        if !listed {
            let epoch = races.epoch(a);
            self.arena.add_reader(&mut store.seen, a as u32, epoch);
        }
        let span = store.message;
        if !span.is_empty() {
            let message = self.arena.message(span);
            if acquires(order) {
                races.join_into(a, message);
            } else {
                join(&mut self.threads[a].acquire, message);
            }
        }
    }

    /// Runs a deferred access (the race detector met its mark while
    /// bringing the clocks live).
    pub(crate) fn apply(&mut self, mark: Mark, races: &mut Races) {
        let (o, at, a, order) = (mark.location as usize, mark.store as usize, mark.actor as usize, order_of(mark));
        self.thread(a);
        if mark.what & WRITE == 0 {
            self.read_clocks(o, at, a, order, mark.what & RMW != 0, races);
            return;
        }
        // A read-modify-write's read comes first.
        let read = (mark.what & RMW != 0).then(|| {
            self.read_clocks(o, at - 1, a, order, true, races);
            self.locations[o].stores[at - 1].message
        });
        self.write_clocks(o, at, a, order, read, races);
    }

    /// The places a plain store of `o` by `actor` may go in `mo`, as
    /// insertion indices, last first; `false` when that takes clocks and
    /// they are not live.
    pub(crate) fn places(&self, o: usize, actor: ActorId, races: &Races, sc: bool, into: &mut Vec<usize>) -> bool {
        let stores = &self.locations[o].stores;
        into.clear();
        into.push(stores.len());
        // A SeqCst store goes after the newest SeqCst store: when that is
        // the newest store, only at the end (and after a lone store too).
        if self.one_place(o, sc) {
            return true;
        }
        if !races.settled() {
            return false;
        }
        let floor = self.floor(o, actor.index(), races, sc);
        into.extend((floor + 1..stores.len()).rev().filter(|&p| !stores[p].is_rmw()));
        true
    }

    /// A successful read-modify-write of `o` by `actor` with `order`: it
    /// reads the newest store and writes `value` right after it, from
    /// `location`. Returns the newest value. One deferred event while the
    /// clocks are not live.
    pub(crate) fn rmw(
        &mut self,
        o: usize,
        actor: ActorId,
        value: u64,
        order: Ordering,
        location: &'static Location<'static>,
        races: &mut Races,
    ) -> u64 {
        let a = actor.index();
        self.thread(a);
        let at = self.locations[o].stores.len();
        if races.settled() {
            self.read_clocks(o, at - 1, a, order, true, races);
        }
        self.write(o, actor, at, value, order, true, location, races)
    }

    /// Whether a plain store to `o` (SeqCst when `sc`) has one place in
    /// `mo`, at the end: after a lone store, or after a SeqCst one.
    #[inline]
    pub(crate) fn one_place(&self, o: usize, sc: bool) -> bool {
        let stores = &self.locations[o].stores;
        stores.len() == 1 || (sc && stores.last().is_some_and(|s| s.sc() != 0))
    }

    /// Whether location `o` is live and its newest store holds `value`
    /// (the primitive's): [`Memory::touch`] has nothing to do.
    #[inline]
    pub(crate) fn is_current(&self, o: usize, value: u64) -> bool {
        self.locations.get(o).is_some_and(|loc| loc.live && loc.stores.last().is_some_and(|s| s.value == value))
    }

    /// `actor` writes `value` to `o` with `order`, at index `at` in `mo`
    /// (a read-modify-write, from [`Memory::rmw`]: right after the newest
    /// store, which it read, continuing its release sequence), from
    /// `location`. Returns the newest value. What the store takes from
    /// clocks (its epoch and message) is deferred while they are not live.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write(
        &mut self,
        o: usize,
        actor: ActorId,
        at: usize,
        value: u64,
        order: Ordering,
        rmw: bool,
        location: &'static Location<'static>,
        races: &mut Races,
    ) -> u64 {
        let a = actor.index();
        let yields = self.thread(a).yields;
        let sc = if order == Ordering::SeqCst {
            self.sc += 1;
            self.sc
        } else {
            0
        };
        let loc = &mut self.locations[o];
        let read = loc.stores.last().filter(|_| rmw).map(|s| s.message);
        let (time, message, location) = (PENDING, Span::EMPTY, Some(location));
        let sc = if rmw { sc | RMW_BIT } else { sc };
        let store = Store { value, actor: a as u32, time, seen: NONE, message, sc, location, step: self.step };
        let end = at == loc.stores.len();
        if end {
            loc.stores.push(store);
        } else {
            loc.stores.insert(at, store);
        }
        loc.version = loc.version.wrapping_add(1);
        let newest = loc.stores.last().map_or(value, |s| s.value);
        // The writer knows its store's message, unless it is a
        // read-modify-write that read without acquiring: its message then
        // carries the read store's, which the writer only holds pending.
        loc.note(a, yields, end && (!rmw || acquires(order)));
        if races.settled() {
            self.write_clocks(o, at, a, order, read, races);
        } else {
            races.defer(mark(o, at, a, order, if rmw { WRITE | RMW } else { WRITE }));
        }
        newest
    }

    /// What actor `a`'s store `at` of `o` takes from clocks: its epoch,
    /// and its message (the writer's clock for a release, else its last
    /// release fence's; a read-modify-write adds `read`, the message of
    /// the store it read).
    fn write_clocks(&mut self, o: usize, at: usize, a: usize, order: Ordering, read: Option<Span>, races: &mut Races) {
        let tracking = races.tracking;
        // A read-modify-write's message adds the message of the store it
        // read (release sequences), unless its own clock carries that
        // already (it acquired it, and releases that clock).
        let carried = tracking && acquires(order) && releases(order);
        let read = read.filter(|_| !carried);
        let message = match (tracking, releases(order)) {
            (false, _) => self.arena.push(&[], read),
            (true, true) => self.arena.push(races.clock_of(a), read),
            (true, false) => self.arena.push(&self.threads[a].release, read),
        };
        let store = &mut self.locations[o].stores[at];
        store.message = message;
        store.time = if tracking { races.epoch(a) } else { 0 };
        if tracking && releases(order) {
            races.next_epoch(a);
        }
    }

    /// After a store to `o`: whether its history is due for pruning
    /// ([`Memory::prune`], with the clocks live). While they are not, the
    /// pruning is put off until the history reaches [`LAZY_HISTORY`]
    /// stores (each time it doubles), so that a program whose accesses
    /// never need clocks does not bring them live.
    pub(crate) fn prune_due(&mut self, o: usize, races: &Races) -> bool {
        let loc = &mut self.locations[o];
        let len = loc.stores.len();
        if len < loc.prune_at {
            return false;
        }
        if !races.settled() && len < LAZY_HISTORY {
            loc.prune_at = len * 2;
            return false;
        }
        true
    }

    /// A fence of `actor` with `order`.
    pub(crate) fn fence(&mut self, actor: ActorId, order: Ordering, races: &mut Races) {
        debug_assert!(races.settled(), "a fence needs live clocks");
        self.dirty = true;
        let a = actor.index();
        self.thread(a);
        if !races.tracking {
            return;
        }
        if acquires(order) {
            races.join_into(a, &self.threads[a].acquire);
            self.threads[a].acquire.clear();
        }
        if order == Ordering::SeqCst {
            races.join_into(a, &self.fences);
            join(&mut self.fences, races.clock_of(a));
            self.threads[a].fence_sc = self.sc;
        }
        if releases(order) {
            let clock = races.clock_of(a);
            let t = &mut self.threads[a];
            t.release.clear();
            t.release.extend_from_slice(clock);
            races.next_epoch(a);
        }
    }

    /// Drops the stores of `o` that no live thread can read again: those
    /// older than every actor's floor (a thread spawned later starts from
    /// its parent's clock, so its floor is no lower).
    pub(crate) fn prune(&mut self, o: usize, races: &Races) {
        let actors = races.actor_count();
        let live = (0..actors).filter(|&a| !self.threads.get(a).is_some_and(|t| t.done));
        let floor = live.map(|a| self.floor(o, a, races, false)).min().unwrap_or(0);
        let loc = &mut self.locations[o];
        if floor > 0 {
            for s in loc.stores.drain(..floor) {
                self.arena.release(s.message, s.seen);
            }
        }
        loc.prune_at = (loc.stores.len() * 2).max(8);
        if self.arena.wants_compacting() {
            let live =
                self.locations.iter_mut().flat_map(|l| l.stores.iter_mut()).map(|s| (&mut s.message, &mut s.seen));
            self.arena.compact(live);
        }
    }
}
