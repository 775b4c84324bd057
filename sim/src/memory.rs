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
//! ([`Races`](crate::race::Races)), kept live once an atomic is accessed
//! with two actors: a release store carries its thread's clock as its
//! *message*, an acquire load joins the message of the store it reads, a
//! read-modify-write adds the message of the store it read (release
//! sequences, C++20: a plain store ends them). A relaxed load keeps the
//! message for a later acquire fence; a relaxed store carries the clock of
//! its thread's last release fence.
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

use std::panic::Location;
use std::sync::atomic::Ordering;

use crate::arena::{Arena, Span, NONE};
use crate::op::ActorId;
use crate::race::{join, Clock, Races};
use crate::trace::Origin;

/// One store in a location's modification order.
#[derive(Debug)]
struct Store {
    value: u64,
    actor: u32,
    /// The writer's epoch at the store; 0 = known to every thread.
    time: u32,
    /// Per reader (other than the writer), the epoch of its first read:
    /// the head of its list in the arena. Readers that the store's
    /// epoch or a later store of theirs covers are not listed.
    seen: u32,
    /// What an acquire that reads this store learns: a span of the arena.
    message: Span,
    /// Position in `S` of a SeqCst store (1, 2, ...); 0 when not SeqCst.
    sc: u32,
    rmw: bool,
    /// Where the store was made; `None` for the initial value.
    location: Option<&'static Location<'static>>,
}

/// One atomic's history in the running execution.
#[derive(Debug, Default)]
struct Loc {
    live: bool,
    stores: Vec<Store>,
    /// Per actor, its yield count at its last access here.
    yields: Vec<u32>,
    /// Per actor, `version + 1` while the actor knows the newest store
    /// and its message (it wrote it, or read it learning the message, and
    /// no store came since): it can read no other, and reading it again
    /// changes nothing but its yield count.
    knows_newest: Vec<u32>,
    /// Changes whenever a store joins `stores` or the history restarts.
    version: u32,
    /// Prune when the history is this long.
    prune_at: usize,
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
    /// The object SeqCst fences step on in this execution, once one did.
    pub(crate) fence_object: Option<crate::op::ObjectId>,
    dirty: bool,
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
            loc.yields.clear();
            loc.knows_newest.clear();
        }
        for t in &mut self.threads {
            (t.done, t.yields, t.fence_sc) = (false, 0, 0);
            t.release.clear();
            t.acquire.clear();
        }
        self.sc = 0;
        self.fences.clear();
    }

    fn thread(&mut self, a: usize) -> &mut Thread {
        if self.threads.len() <= a {
            self.threads.resize_with(a + 1, Thread::default);
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
        let loc = &mut self.locations[o];
        if loc.live && loc.stores.last().is_some_and(|s| s.value == value) {
            return;
        }
        loc.live = true;
        for s in loc.stores.drain(..) {
            self.arena.release(s.message, s.seen);
        }
        loc.knows_newest.clear();
        loc.version = loc.version.wrapping_add(1);
        loc.prune_at = 8;
        let initial =
            Store { value, actor: 0, time: 0, seen: NONE, message: Span::EMPTY, sc: 0, rmw: false, location: None };
        loc.stores.push(initial);
    }

    /// The index of the oldest store of `o` that `actor` may read (or must
    /// write after): the newest store it knows, and for a SeqCst access
    /// the newest earlier SeqCst store.
    fn floor(&self, o: usize, actor: usize, races: &Races, sc: bool) -> usize {
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
            if let Some(i) = stores.iter().rposition(|s| s.sc != 0 && s.sc <= bound) {
                floor = floor.max(i);
            }
        }
        floor
    }

    /// Whether `actor` yielded since its last access to `o`.
    fn yielded(&self, o: usize, actor: usize) -> bool {
        let now = self.threads.get(actor).map_or(0, |t| t.yields);
        now > self.locations[o].yields.get(actor).copied().unwrap_or(0)
    }

    #[inline]
    fn note_access(&mut self, o: usize, actor: usize) {
        let now = self.threads.get(actor).map_or(0, |t| t.yields);
        match self.locations[o].yields.get_mut(actor) {
            Some(at) => *at = now,
            None => self.note_first_access(o, actor, now),
        }
    }

    #[cold]
    fn note_first_access(&mut self, o: usize, actor: usize, now: u32) {
        let yields = &mut self.locations[o].yields;
        yields.resize(actor + 1, 0);
        yields[actor] = now;
    }

    /// Notes that `actor` knows the newest store of `o` now.
    fn note_newest(&mut self, o: usize, actor: usize) {
        let loc = &mut self.locations[o];
        if loc.knows_newest.len() <= actor {
            loc.knows_newest.resize(actor + 1, 0);
        }
        loc.knows_newest[actor] = loc.version.wrapping_add(1);
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
        let loc = self.locations.get(o)?;
        let knows = loc.knows_newest.get(a).copied() == Some(loc.version.wrapping_add(1));
        let value = loc.stores.last()?.value;
        if !(knows && loc.live && value == current) {
            return None;
        }
        self.note_access(o, a);
        Some(value)
    }

    /// The stores a load of `o` by `actor` may read, newest first: their
    /// indices are `len - 1 - k` for choice `k` in `0..count`.
    pub(crate) fn readable(&self, o: usize, actor: ActorId, races: &Races, sc: bool) -> usize {
        let a = actor.index();
        let stores = &self.locations[o].stores;
        // The fast paths: one store, or a SeqCst load whose newest store
        // is SeqCst (all a SeqCst-only program ever meets).
        if stores.len() == 1 || (sc && stores[stores.len() - 1].sc != 0) || self.yielded(o, a) {
            return 1;
        }
        stores.len() - self.floor(o, a, races, sc)
    }

    /// The stores a compare-exchange of `o` may read: the newest, and any
    /// older readable one whose value `fails` (a failed compare-exchange
    /// is a load and may read a stale value; a successful one reads the
    /// newest). Returns the indices, newest first, into `into`.
    pub(crate) fn cas_readable(
        &self,
        o: usize,
        actor: ActorId,
        races: &Races,
        sc: bool,
        fails: &dyn Fn(u64) -> bool,
        into: &mut Vec<usize>,
    ) {
        let stores = &self.locations[o].stores;
        into.clear();
        into.push(stores.len() - 1);
        if self.yielded(o, actor.index()) {
            return;
        }
        let floor = self.floor(o, actor.index(), races, sc);
        into.extend((floor..stores.len() - 1).rev().filter(|&i| fails(stores[i].value)));
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
        Origin { bits: s.value, store, rmw: s.rmw }
    }

    /// The index of the newest store of `o`.
    pub(crate) fn newest(&self, o: usize) -> usize {
        self.locations[o].stores.len() - 1
    }

    /// `actor` reads store `index` of `o` with `order` (for a
    /// read-modify-write that writes, when `rmw`); returns its value.
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
        let (value, span) = (store.value, store.message);
        // Whether the store's message is in the actor's clock now: only
        // then is reading the store again a no-op whatever its ordering (a
        // relaxed read leaves it pending, for an acquire fence).
        let learned = span.is_empty() || acquires(order);
        if !span.is_empty() {
            let message = self.arena.message(span);
            if acquires(order) {
                races.join_into(a, message);
            } else {
                join(&mut self.threads[a].acquire, message);
            }
        }
        self.note_access(o, a);
        if learned && index + 1 == self.locations[o].stores.len() {
            self.note_newest(o, a);
        }
        value
    }

    /// The places a plain store of `o` by `actor` may go in `mo`, as
    /// insertion indices, last first.
    pub(crate) fn places(&self, o: usize, actor: ActorId, races: &Races, sc: bool, into: &mut Vec<usize>) {
        let stores = &self.locations[o].stores;
        into.clear();
        into.push(stores.len());
        // A SeqCst store goes after the newest SeqCst store: when that is
        // the newest store, only at the end.
        if sc && stores[stores.len() - 1].sc != 0 {
            return;
        }
        let floor = self.floor(o, actor.index(), races, sc);
        into.extend((floor + 1..stores.len()).rev().filter(|&p| !stores[p].rmw));
    }

    /// `actor` writes `value` to `o` with `order`, at index `at` in `mo`
    /// (a read-modify-write: right after the newest store, which it read,
    /// continuing its release sequence), from `location`. Returns the
    /// newest value.
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
        self.thread(a);
        let tracking = races.tracking;
        // A read-modify-write's message adds the message of the store it
        // read (release sequences), unless its own clock carries that
        // already (it acquired it, and releases that clock).
        let carried = tracking && acquires(order) && releases(order);
        let read = self.locations[o].stores.last().map(|s| s.message).filter(|_| rmw && !carried);
        let message = match (tracking, releases(order)) {
            (false, _) => self.arena.push(&[], read),
            (true, true) => self.arena.push(races.clock_of(a), read),
            (true, false) => self.arena.push(&self.threads[a].release, read),
        };
        let time = if tracking { races.epoch(a) } else { 0 };
        let sc = if order == Ordering::SeqCst {
            self.sc += 1;
            self.sc
        } else {
            0
        };
        let store = Store { value, actor: a as u32, time, seen: NONE, message, sc, rmw, location: Some(location) };
        let loc = &mut self.locations[o];
        loc.stores.insert(at, store);
        loc.version = loc.version.wrapping_add(1);
        // The writer knows its store's message, unless it is a
        // read-modify-write that read without acquiring: its message then
        // carries the read store's, which the writer only holds pending.
        if at + 1 == loc.stores.len() && (!rmw || acquires(order)) {
            self.note_newest(o, a);
        }
        if tracking && releases(order) {
            races.next_epoch(a);
        }
        self.note_access(o, a);
        let newest = self.locations[o].stores.last().map_or(value, |s| s.value);
        if self.locations[o].stores.len() >= self.locations[o].prune_at {
            self.prune(o, races);
        }
        newest
    }

    /// A fence of `actor` with `order`.
    pub(crate) fn fence(&mut self, actor: ActorId, order: Ordering, races: &mut Races) {
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
    fn prune(&mut self, o: usize, races: &Races) {
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
