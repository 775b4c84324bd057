//! Happens-before over the steps of one execution, for partial-order
//! reduction and coverage.
//!
//! The relation is the one dynamic partial-order reduction works with
//! (Flanagan and Godefroid; inspect-runtime-model-checking-dpor.txt,
//! section 2.3): the transitive closure of program order, of dependency
//! ([`Footprint::dependent`]) between steps of different actors in
//! execution order, and of the edges no object carries (a spawn before its
//! child's steps, a thread's steps before a join on it; [`Step::peer`]).
//!
//! A weak load ([`Access::Observe`]) and a write of its object are not
//! ordered by when they ran, in either order (what a load read, not when,
//! matters: [`Access::orders`]), but a write after a weak load still races
//! with it, and a weak load races with nothing ([`Access::races_with`]).
//!
//! Every query costs what it finds, not what the execution did before, so
//! that a step costs O(actors) amortized however long the execution is:
//! each object (and the virtual clock) keeps its own lists of events, its
//! writes apart, and each actor's latest read and latest count change
//! ([`Access::Count`]) since the last write.
//!
//! Invariants:
//! - `events[i]` is the `i`-th step of the execution; its clock
//!   ([`History::clock_of`]) is its actor's vector clock just after it, so
//!   event `i` happens before a state of actor `a` with clock `c` exactly
//!   when `events[i].seq <= c[events[i].actor]`.
//! - The writes of one object are totally ordered by happens-before, and a
//!   write happens after every earlier event on its object but an end
//!   ([`Access::End`], a thread's, on its own object) and a weak load
//!   ([`Access::Observe`]): so once a write happens before a state, so
//!   does everything on its object before it but the ends and the weak
//!   loads (the rule that lets a backward walk stop early, except on an
//!   object with an end or for an end's own walk; weak loads are walked
//!   actor by actor, where program order lets the walk stop).

use std::panic::Location;

use samaritan_sim::{Access, ActorId, Footprint, ObjectId, Op, Step};

/// A vector clock: per actor, how many of its events are known.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Clock(Vec<u32>);

impl Clock {
    /// Returns actor `a`'s component.
    pub(crate) fn get(&self, a: ActorId) -> u32 {
        component(&self.0, a)
    }

    pub(crate) fn set(&mut self, a: ActorId, value: u32) {
        if self.0.len() <= a.index() {
            self.0.resize(a.index() + 1, 0);
        }
        self.0[a.index()] = value;
    }

    /// Raises every component to at least `other`'s.
    pub(crate) fn join(&mut self, other: &[u32]) {
        if self.0.len() < other.len() {
            self.0.resize(other.len(), 0);
        }
        for (mine, &theirs) in self.0.iter_mut().zip(other) {
            *mine = (*mine).max(theirs);
        }
    }

    /// The components.
    pub(crate) fn as_slice(&self) -> &[u32] {
        &self.0
    }

    /// Becomes a copy of `other`, reusing its memory.
    fn copy_from(&mut self, other: &[u32]) {
        self.0.clear();
        self.0.extend_from_slice(other);
    }
}

/// Actor `a`'s component of a clock given as a slice.
pub(crate) fn component(clock: &[u32], a: ActorId) -> u32 {
    clock.get(a.index()).copied().unwrap_or(0)
}

/// Returns `clock` without trailing zeros (a canonical form).
pub(crate) fn canonical(clock: &[u32]) -> &[u32] {
    let len = clock.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
    &clock[..len]
}

/// A run of a history's shared storage: `start..start + len`.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: u32,
    len: u32,
}

impl Span {
    fn of<T>(data: &[T], start: usize) -> Span {
        Span { start: start as u32, len: (data.len() - start) as u32 }
    }

    fn get<T>(self, data: &[T]) -> &[T] {
        &data[self.start as usize..(self.start + self.len) as usize]
    }
}

/// One step, as the happens-before tracker keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    pub(crate) actor: ActorId,
    pub(crate) op: Op,
    pub(crate) object: Option<ObjectId>,
    /// The second object it changes ([`Footprint::second`]).
    pub(crate) second: Option<ObjectId>,
    /// Whether it is a `SeqCst` access of an atomic ([`Footprint::seq_cst`]).
    pub(crate) seq_cst: bool,
    pub(crate) location: &'static Location<'static>,
    /// Its index among its actor's events, from 1.
    pub(crate) seq: u32,
    /// The value chosen, for a data choice.
    pub(crate) value: u32,
    /// The spawned child or the joined thread ([`Step::peer`]).
    pub(crate) peer: Option<ActorId>,
    /// The object of a thread that ended during it ([`History::end`]).
    pub(crate) end: Option<ObjectId>,
    clock: Span,
    preds: Span,
    /// Exclusive locks its actor held just before it; `None` when they
    /// cannot be known (see [`History::locks`]).
    locks: Option<Span>,
}

impl Event {
    pub(crate) fn footprint(&self) -> Footprint {
        Footprint { op: self.op, object: self.object, second: self.second, seq_cst: self.seq_cst }
    }
}

/// The events that touched one object (or the virtual clock).
#[derive(Clone, Debug, Default)]
struct Touches {
    /// Every one, in order.
    all: Vec<u32>,
    /// Those that wrote it, in order.
    writes: Vec<u32>,
    /// Each actor's latest read since the last write (one per actor).
    reads: Vec<(ActorId, u32)>,
    /// Each actor's latest count change since the last write (one per
    /// actor).
    counts: Vec<(ActorId, u32)>,
    /// Whether any count change or end was recorded: reads must then look
    /// at every event, not only the writes.
    counted: bool,
    /// Each actor's end on this object ([`Access::End`]: a thread's
    /// object, one end at most). Writes do not order them, so they are
    /// never cleared, and a backward walk must not stop at a write.
    ends: Vec<(ActorId, u32)>,
    /// Each actor's latest read, writes or not (what an end depends on).
    last_reads: Vec<(ActorId, u32)>,
    /// Whether any weak load ([`Access::Observe`]) was recorded: a walk
    /// for a write's races must then also look at each actor's events.
    observed: bool,
    /// Every one, by actor (for the predecessors within a prefix).
    by_actor: Vec<Vec<u32>>,
}

impl Touches {
    fn clear(&mut self) {
        self.all.clear();
        self.writes.clear();
        self.reads.clear();
        self.counts.clear();
        self.counted = false;
        self.ends.clear();
        self.last_reads.clear();
        self.observed = false;
        self.by_actor.iter_mut().for_each(Vec::clear);
    }

    fn record(&mut self, index: u32, actor: ActorId, access: Access) {
        self.all.push(index);
        if self.by_actor.len() <= actor.index() {
            self.by_actor.resize(actor.index() + 1, Vec::new());
        }
        self.by_actor[actor.index()].push(index);
        match access {
            Access::Write => {
                self.writes.push(index);
                self.reads.clear();
                self.counts.clear();
            }
            Access::Read => {
                latest(&mut self.reads, actor, index);
                latest(&mut self.last_reads, actor, index);
            }
            Access::Count => {
                self.counted = true;
                latest(&mut self.counts, actor, index);
            }
            Access::End => {
                self.counted = true;
                latest(&mut self.ends, actor, index);
            }
            // Ordered by nothing on its object (what it read is another
            // matter), so in no list that orders.
            Access::Observe => self.observed = true,
            Access::Local => {}
        }
    }

    /// The events a new access of this kind depends on directly: the last
    /// write, and since it each actor's latest read (for a write or a
    /// count change) and latest count change (for a write or a read).
    /// An end depends on the reads since the last write and on nothing
    /// else; a read also on every end.
    fn predecessors(&self, access: Access, out: &mut Vec<u32>) {
        if access == Access::Observe {
            // A weak load is ordered after no write of its object.
            return;
        }
        if access == Access::End {
            // Reads before the last write happen before it, not before
            // the end: each actor's latest read anywhere.
            out.extend(self.last_reads.iter().map(|r| r.1));
            return;
        }
        if matches!(access, Access::Write | Access::Count) {
            out.extend(self.reads.iter().map(|r| r.1));
        }
        if matches!(access, Access::Write | Access::Read) {
            out.extend(self.counts.iter().map(|r| r.1));
        }
        if access == Access::Read {
            out.extend(self.ends.iter().map(|r| r.1));
        }
        out.extend(self.writes.last().copied());
    }
}

/// What a list of events is about: an object, the virtual clock, or the
/// order of `SeqCst` fences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Object(ObjectId),
    Time,
    Fences,
}

/// Makes `index` `actor`'s entry in a list of each actor's latest event.
fn latest(list: &mut Vec<(ActorId, u32)>, actor: ActorId, index: u32) {
    match list.iter_mut().find(|(a, _)| *a == actor) {
        Some(entry) => entry.1 = index,
        None => list.push((actor, index)),
    }
}

/// The events of one execution with their vector clocks.
///
/// Its memory outlives its search: dropped, a history leaves its buffers
/// to the next one made on the same thread (explorations run on pooled
/// threads), so that the first long execution of a search does not grow
/// every buffer from nothing again.
#[derive(Debug)]
pub(crate) struct History {
    pub(crate) events: Vec<Event>,
    clock_data: Vec<u32>,
    pred_data: Vec<u32>,
    lock_data: Vec<ObjectId>,
    /// Each actor's clock now.
    clocks: Vec<Clock>,
    /// Each actor's events, by index.
    by_actor: Vec<Vec<usize>>,
    /// Exclusive locks each actor holds; `None` once unknown.
    held: Vec<Option<Vec<ObjectId>>>,
    /// Events by the object they touch, by object index.
    objects: Vec<Touches>,
    /// Events that touch the virtual clock.
    time: Touches,
    /// Events that take part in the order of `SeqCst` fences
    /// ([`Footprint::fence_order`]).
    fences: Touches,
    /// The spawn event of each actor, by index.
    spawns: Vec<Option<usize>>,
    /// A clock to build the next event's in.
    scratch: Clock,
    /// Predecessors gathered for the next event.
    gathered: Vec<u32>,
}

thread_local! {
    /// The buffers of the last history dropped on this thread.
    static SPARE: std::cell::RefCell<Option<History>> = const { std::cell::RefCell::new(None) };
}

/// Events a spare history may hold room for (beyond it, its memory goes
/// back to the allocator).
const SPARE_EVENTS: usize = 1 << 18;

impl Default for History {
    fn default() -> History {
        SPARE.try_with(|spare| spare.borrow_mut().take()).ok().flatten().unwrap_or_else(History::empty)
    }
}

impl Drop for History {
    fn drop(&mut self) {
        if self.events.capacity() == 0 || self.events.capacity() > SPARE_EVENTS {
            return;
        }
        let _ = SPARE.try_with(|spare| {
            if let Ok(mut spare) = spare.try_borrow_mut() {
                if spare.is_none() {
                    // What is left behind has no memory: its own drop
                    // stops at the first test above.
                    let mut kept = std::mem::replace(self, History::empty());
                    kept.clear();
                    *spare = Some(kept);
                }
            }
        });
    }
}

impl History {
    /// A history with no memory.
    fn empty() -> History {
        History {
            events: Vec::new(),
            clock_data: Vec::new(),
            pred_data: Vec::new(),
            lock_data: Vec::new(),
            clocks: Vec::new(),
            by_actor: Vec::new(),
            held: Vec::new(),
            objects: Vec::new(),
            time: Touches::default(),
            fences: Touches::default(),
            spawns: Vec::new(),
            scratch: Clock::default(),
            gathered: Vec::new(),
        }
    }

    /// Forgets everything: a new execution starts (the memory is kept).
    pub(crate) fn clear(&mut self) {
        self.events.clear();
        self.clock_data.clear();
        self.pred_data.clear();
        self.lock_data.clear();
        self.clocks.clear();
        self.by_actor.iter_mut().for_each(Vec::clear);
        self.held.clear();
        self.objects.iter_mut().for_each(Touches::clear);
        self.time.clear();
        self.fences.clear();
        self.spawns.clear();
    }

    fn grow(&mut self, a: ActorId) {
        let n = a.index() + 1;
        if self.clocks.len() < n {
            self.clocks.resize(n, Clock::default());
            self.held.resize(n, Some(Vec::new()));
            self.spawns.resize(n, None);
        }
        if self.by_actor.len() < n {
            self.by_actor.resize(n, Vec::new());
        }
    }

    /// Returns actor `a`'s clock now, as a slice (empty for an actor not
    /// seen yet).
    pub(crate) fn clock_now(&self, a: ActorId) -> &[u32] {
        self.clocks.get(a.index()).map_or(&[], Clock::as_slice)
    }

    /// Returns event `i`'s clock: its actor's, just after it.
    pub(crate) fn clock_of(&self, i: usize) -> &[u32] {
        self.events[i].clock.get(&self.clock_data)
    }

    /// Returns event `i`'s immediate dependent predecessors: the latest
    /// earlier events it depends on directly (the last conflicting write,
    /// each actor's latest read since), by index.
    pub(crate) fn preds_of(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.events[i].preds.get(&self.pred_data).iter().map(|&p| p as usize)
    }

    /// Returns the exclusive locks event `i`'s actor held just before it,
    /// if known.
    pub(crate) fn locks_of(&self, i: usize) -> Option<&[ObjectId]> {
        self.events[i].locks.map(|span| span.get(&self.lock_data))
    }

    /// Returns the exclusive locks actor `a` holds now, if known.
    ///
    /// Only blocking `lock` steps of actors that never poll are trusted: an
    /// async lock future announces `lock` on every poll, acquired or not
    /// (both make the set unknown or smaller, which is the safe side).
    pub(crate) fn locks(&self, a: ActorId) -> Option<&[ObjectId]> {
        self.held.get(a.index()).map_or(Some(&[]), Option::as_deref)
    }

    /// Returns the exclusive locks actor `a` held after its first `k`
    /// events (as [`History::locks`] tracks them): what its next event
    /// recorded, or what it holds now when it has no next event.
    pub(crate) fn locks_after(&self, a: ActorId, k: usize) -> Option<&[ObjectId]> {
        match self.of_actor(a).get(k) {
            Some(&next) => self.locks_of(next),
            None => self.locks(a),
        }
    }

    /// Returns the events of actor `a`, by index.
    pub(crate) fn of_actor(&self, a: ActorId) -> &[usize] {
        self.by_actor.get(a.index()).map_or(&[], Vec::as_slice)
    }

    /// Sets `into` to the clock actor `a` has after its first `k` events
    /// (for `k = 0`, what its spawner knew at the spawn; empty for the
    /// main actor).
    pub(crate) fn clock_after(&self, a: ActorId, k: u32, into: &mut Clock) {
        match k {
            0 => match self.spawned_at(a) {
                Some(i) => {
                    into.copy_from(self.clock_of(i));
                    into.set(a, 0);
                }
                None => into.copy_from(&[]),
            },
            k => into.copy_from(self.clock_of(self.of_actor(a)[k as usize - 1])),
        }
    }

    /// Returns the prefix of the first `at` events as a cut: per actor, how
    /// many of its events it holds.
    pub(crate) fn prefix_cut(&self, at: usize) -> Vec<u32> {
        let mut cut: Vec<u32> = self.by_actor.iter().map(|events| events.partition_point(|&i| i < at) as u32).collect();
        let len = canonical(&cut).len();
        cut.truncate(len);
        cut
    }

    /// Returns the latest write of `object` inside the prefix `cut` (per
    /// actor, how many of its events it holds), if any: the writes of an
    /// object are ordered by happens-before, so those inside a prefix are
    /// its first ones.
    pub(crate) fn last_write_inside(&self, object: ObjectId, cut: &[u32]) -> Option<usize> {
        let writes = &self.objects.get(object.index())?.writes;
        let inside = |w: u32| {
            let e = &self.events[w as usize];
            e.seq <= cut.get(e.actor.index()).copied().unwrap_or(0)
        };
        let k = writes.partition_point(|&w| inside(w));
        k.checked_sub(1).map(|k| writes[k] as usize)
    }

    /// Returns the index of the event that spawned actor `a`, if any.
    pub(crate) fn spawned_at(&self, a: ActorId) -> Option<usize> {
        self.spawns.get(a.index()).copied().flatten()
    }

    /// Returns whether event `i` happens before the state of an actor
    /// whose clock is `clock`.
    pub(crate) fn happens_before(&self, i: usize, clock: &[u32]) -> bool {
        let e = &self.events[i];
        e.seq <= component(clock, e.actor)
    }

    /// The lists of events a new operation with footprint `fp` may depend
    /// on, with how it accesses each.
    fn touched(&self, fp: Footprint) -> impl Iterator<Item = (&Touches, Access)> + '_ {
        self.touched_keys(fp).map(|(_, touches, access)| (touches, access))
    }

    /// [`History::touched`], each list with what it is about.
    fn touched_keys(&self, fp: Footprint) -> impl Iterator<Item = (Key, &Touches, Access)> + '_ {
        let objects =
            fp.touches().filter_map(|(o, access)| self.objects.get(o.index()).map(|t| (Key::Object(o), t, access)));
        let time = (fp.op.clock() != Access::Local).then_some((Key::Time, &self.time, fp.op.clock()));
        let fences = (fp.fence_order() != Access::Local).then_some((Key::Fences, &self.fences, fp.fence_order()));
        objects.chain(time).chain(fences)
    }

    /// How event `i` touches `key`.
    fn access_on(&self, i: usize, key: Key) -> Access {
        let e = &self.events[i];
        match key {
            Key::Object(o) if e.second == Some(o) => Access::Write,
            Key::Object(o) if e.object == Some(o) => e.op.access(),
            Key::Object(o) if e.end == Some(o) => Access::End,
            Key::Object(_) => Access::Local,
            Key::Time => e.op.clock(),
            Key::Fences => e.footprint().fence_order(),
        }
    }

    /// Collects into `out`, latest first, the earlier events (before
    /// `end`) that an operation with footprint `fp` of a state with clock
    /// `before` depends on and that do not happen before that state, and
    /// for which `accept` holds: every one after `floor`, and the latest
    /// one at or before it. Walks back only as far as the first write that
    /// happens before the state (see the module's invariants).
    pub(crate) fn concurrent_dependents(
        &self,
        fp: Footprint,
        before: &[u32],
        end: usize,
        floor: Option<usize>,
        mut accept: impl FnMut(usize) -> bool,
        out: &mut Vec<usize>,
    ) {
        out.clear();
        let mut lists = 0;
        for (key, touches, access) in self.touched_keys(fp) {
            if access == Access::Observe {
                // Nothing earlier races with a weak load (module docs).
                continue;
            }
            lists += 1;
            // A read conflicts only with writes, unless counts changed.
            let list = if access == Access::Read && !touches.counted { &touches.writes } else { &touches.all };
            for &i in list.iter().rev() {
                let i = i as usize;
                if i >= end {
                    continue;
                }
                let theirs = self.access_on(i, key);
                if theirs == Access::Observe {
                    // Not ordered by the writes around it: walked below.
                    continue;
                }
                if self.happens_before(i, before) {
                    // A write that happens before: so does all before it,
                    // but for ends, which writes do not order.
                    if theirs == Access::Write && access != Access::End && touches.ends.is_empty() {
                        break;
                    }
                    continue;
                }
                if !theirs.races_with(access) || !accept(i) {
                    continue;
                }
                out.push(i);
                if floor.is_some_and(|f| i <= f) {
                    break;
                }
            }
        }
        if lists >= 2 {
            out.sort_unstable_by(|a, b| b.cmp(a));
            out.dedup();
            // Of those at or before the floor, only the latest stays.
            if let Some(f) = floor {
                if let Some(first) = out.iter().position(|&i| i <= f) {
                    out.truncate(first + 1);
                }
            }
        }
        // Each actor's weak loads of the objects written, latest first, as
        // far as program order says the rest happens before: every one
        // races, at the floor or before it too. (Each stands for a load
        // that could read the write; the branch that lets the latest
        // read it runs none of the others after it, so the latest alone
        // does not cover them.)
        let kept = out.len();
        for (key, touches, access) in self.touched_keys(fp) {
            if !touches.observed || !Access::Observe.races_with(access) {
                continue;
            }
            for events in &touches.by_actor {
                for &i in events.iter().rev() {
                    let i = i as usize;
                    if i >= end {
                        continue;
                    }
                    if self.happens_before(i, before) {
                        break;
                    }
                    if self.access_on(i, key) == Access::Observe && accept(i) {
                        out.push(i);
                    }
                }
            }
        }
        if out.len() > kept {
            out.sort_unstable_by(|a, b| b.cmp(a));
            out.dedup();
        }
    }

    /// Appends `step`, computing its clock; returns its index.
    pub(crate) fn push(&mut self, step: &Step) -> usize {
        let actor = step.actor;
        let fp = step.pending.footprint();
        self.grow(actor);
        if let Some(peer) = step.peer {
            self.grow(peer);
        }
        let index = self.events.len();
        let mut clock = std::mem::take(&mut self.scratch);
        clock.copy_from(self.clocks[actor.index()].as_slice());
        let seq = clock.get(actor) + 1;
        clock.set(actor, seq);
        if let (Op::Join, Some(peer)) = (fp.op, step.peer) {
            clock.join(self.clocks[peer.index()].as_slice());
        }
        let mut preds = std::mem::take(&mut self.gathered);
        self.gather_predecessors(fp, &mut preds);
        let pred_start = self.pred_data.len();
        for &p in &preds {
            clock.join(self.events[p as usize].clock.get(&self.clock_data));
            self.pred_data.push(p);
        }
        self.gathered = preds;
        let locks = self.held[actor.index()].as_ref().map(|held| {
            let start = self.lock_data.len();
            self.lock_data.extend_from_slice(held);
            Span::of(&self.lock_data, start)
        });
        self.update_locks(actor, fp);
        if fp.op == Op::Spawn {
            if let Some(child) = step.peer {
                // The child starts knowing what its parent knew.
                self.clocks[child.index()].copy_from(clock.as_slice());
                self.clocks[child.index()].set(child, 0);
                self.spawns[child.index()] = Some(index);
            }
        }
        self.clocks[actor.index()].copy_from(clock.as_slice());
        self.by_actor[actor.index()].push(index);
        for (o, access) in fp.touches() {
            if self.objects.len() <= o.index() {
                self.objects.resize(o.index() + 1, Touches::default());
            }
            self.objects[o.index()].record(index as u32, actor, access);
        }
        if fp.op.clock() != Access::Local {
            self.time.record(index as u32, actor, fp.op.clock());
        }
        if fp.fence_order() != Access::Local {
            self.fences.record(index as u32, actor, fp.fence_order());
        }
        let clock_start = self.clock_data.len();
        self.clock_data.extend_from_slice(clock.as_slice());
        self.scratch = clock;
        self.events.push(Event {
            actor,
            op: fp.op,
            object: fp.object,
            second: fp.second,
            seq_cst: fp.seq_cst,
            location: step.pending.location,
            seq,
            value: step.value,
            peer: step.peer,
            end: None,
            clock: Span::of(&self.clock_data, clock_start),
            preds: Span::of(&self.pred_data, pred_start),
            locks,
        });
        index
    }

    /// Makes the last event also the end of the thread whose object is
    /// `object` (it ended during that step: [`Strategy::on_end`]): an
    /// [`Access::End`] of `object`, ordered after every read of it (each
    /// `is_finished` asked before). Returns the event's index and whether
    /// its clock grew by that.
    ///
    /// [`Strategy::on_end`]: samaritan_sim::Strategy::on_end
    pub(crate) fn end(&mut self, object: ObjectId) -> Option<(usize, bool)> {
        let index = self.events.len().checked_sub(1)?;
        if self.objects.len() <= object.index() {
            self.objects.resize(object.index() + 1, Touches::default());
        }
        let actor = self.events[index].actor;
        let mut preds = std::mem::take(&mut self.gathered);
        preds.clear();
        self.objects[object.index()].predecessors(Access::End, &mut preds);
        let mut clock = std::mem::take(&mut self.scratch);
        let span = self.events[index].clock;
        clock.copy_from(span.get(&self.clock_data));
        let mut grew = false;
        for &p in &preds {
            let theirs = self.events[p as usize].clock.get(&self.clock_data);
            if !self.happens_before(p as usize, clock.as_slice()) {
                clock.join(theirs);
                // The last event's predecessors are the last ones listed.
                self.pred_data.push(p);
                grew = true;
            }
        }
        if grew {
            // The last event's clock is the last one kept: rewrite it.
            self.clock_data.truncate(span.start as usize);
            self.clock_data.extend_from_slice(clock.as_slice());
            let e = &mut self.events[index];
            e.clock = Span::of(&self.clock_data, span.start as usize);
            e.preds.len = (self.pred_data.len() - e.preds.start as usize) as u32;
            self.clocks[actor.index()].copy_from(clock.as_slice());
        }
        self.scratch = clock;
        self.gathered = preds;
        self.events[index].end = Some(object);
        self.objects[object.index()].record(index as u32, actor, Access::End);
        Some((index, grew))
    }

    /// The immediate dependent predecessors a new event with footprint
    /// `fp` would have now, into `out` (cleared first), without
    /// repetitions.
    fn gather_predecessors(&self, fp: Footprint, out: &mut Vec<u32>) {
        out.clear();
        for (touches, access) in self.touched(fp) {
            touches.predecessors(access, out);
        }
        if out.len() > 1 {
            out.sort_unstable();
            out.dedup();
        }
    }

    /// The immediate dependent predecessors an event with footprint `fp`
    /// would have after the prefix `cut` (per actor, how many of its
    /// events it holds; `None` for every event), into `out` (cleared
    /// first), without repetitions. Within a prefix: the last write inside
    /// it (the writes inside a prefix are the first ones, as they are
    /// ordered by happens-before and a prefix is closed under it), and each
    /// actor's latest conflicting event inside it after that (a read for
    /// a count change and a count change for a read, either for a write),
    /// found by binary search in the actor's own events on the object.
    pub(crate) fn predecessors(&self, fp: Footprint, cut: Option<&[u32]>, out: &mut Vec<u32>) {
        let Some(cut) = cut else { return self.gather_predecessors(fp, out) };
        out.clear();
        let held = |a: usize| cut.get(a).copied().unwrap_or(0);
        let inside = |i: u32| {
            let e = &self.events[i as usize];
            e.seq <= held(e.actor.index())
        };
        for (key, touches, access) in self.touched_keys(fp) {
            if access == Access::Observe {
                // A weak load is ordered after no write of its object.
                continue;
            }
            let inner = touches.writes.partition_point(|&w| inside(w));
            let last_write = inner.checked_sub(1).map(|k| touches.writes[k]);
            // An end and a read are not ordered by the writes between them.
            let unordered = match access {
                Access::End => Some(Access::Read),
                Access::Read if !touches.ends.is_empty() => Some(Access::End),
                _ => None,
            };
            if access == Access::Count || access == Access::Write || touches.counted || unordered.is_some() {
                for (a, events) in touches.by_actor.iter().enumerate() {
                    let seq = |i: u32| self.events[i as usize].seq;
                    let k = events.partition_point(|&i| seq(i) <= held(a));
                    // Its latest event inside the prefix after the last
                    // write inside it that conflicts (every one is a read
                    // or a count change).
                    let since = events[..k].iter().rev().take_while(|&&i| last_write.is_none_or(|w| i > w));
                    if let Some(&latest) = since.into_iter().find(|&&i| self.access_on(i as usize, key).orders(access))
                    {
                        out.push(latest);
                    }
                    if let Some(other) = unordered {
                        if let Some(&latest) =
                            events[..k].iter().rev().find(|&&i| self.access_on(i as usize, key) == other)
                        {
                            out.push(latest);
                        }
                    }
                }
            }
            if access != Access::End {
                out.extend(last_write);
            }
        }
        if out.len() > 1 {
            out.sort_unstable();
            out.dedup();
        }
    }

    fn update_locks(&mut self, actor: ActorId, fp: Footprint) {
        let held = &mut self.held[actor.index()];
        match (fp.op, fp.object) {
            (Op::Poll, _) => *held = None,
            // A condition-variable wait gives up the mutex it names.
            (Op::Wait, _) => {
                if let (Some(h), Some(m)) = (held, fp.second) {
                    h.retain(|&x| x != m);
                }
            }
            (Op::Lock, Some(o)) => {
                if let Some(h) = held {
                    h.push(o);
                }
            }
            (Op::Unlock, Some(o)) => {
                if let Some(h) = held {
                    h.retain(|&x| x != o);
                }
            }
            _ => {}
        }
    }

    /// Returns whether two operations of different actors, each with the
    /// exclusive locks its actor held before it, may be enabled at once
    /// (inspect paper, section 4.4): not when the actors hold a lock in
    /// common, nor when one is the blocking acquisition of a lock the
    /// other holds: exclusively (a mutex, or a reader-writer lock held for
    /// writing), which blocks a reader as much as a writer. Unknown lock
    /// sets (`None`) say nothing.
    pub(crate) fn may_coenable(
        a: (Op, Option<ObjectId>, Option<&[ObjectId]>),
        b: (Op, Option<ObjectId>, Option<&[ObjectId]>),
    ) -> bool {
        let takes_held = |x: (Op, Option<ObjectId>, Option<&[ObjectId]>), held: Option<&[ObjectId]>| {
            matches!(x.0, Op::Lock | Op::ReadLock) && x.1.is_some_and(|o| held.is_some_and(|h| h.contains(&o)))
        };
        if takes_held(a, b.2) || takes_held(b, a.2) {
            return false;
        }
        match (a.2, b.2) {
            (Some(x), Some(y)) => !x.iter().any(|l| y.contains(l)),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(index: u64, actor: usize, op: Op, object: Option<usize>, peer: Option<usize>) -> Step {
        Step::new(
            index,
            ActorId::from_index(actor),
            samaritan_sim::Pending::new(op, object.map(ObjectId::from_index), Location::caller()),
            peer.map(ActorId::from_index),
        )
    }

    #[test]
    fn a_threads_end_comes_after_the_is_finished_before_it_and_before_those_after() {
        let mut h = History::default();
        // Main spawns t1 (thread object 0); t1 stores to atomic 1.
        h.push(&step(0, 0, Op::Spawn, None, Some(1)));
        let asked = h.push(&step(1, 0, Op::IsFinished, Some(0), None));
        let last = h.push(&step(2, 1, Op::Store, Some(1), None));
        assert!(!h.happens_before(asked, h.clock_of(last)), "a store does not depend on the question");
        // The store was t1's last step: its end orders it after the question.
        assert_eq!(h.end(ObjectId::from_index(0)), Some((last, true)));
        assert!(h.happens_before(asked, h.clock_of(last)));
        assert!(h.happens_before(asked, h.clock_now(ActorId::from_index(1))));
        assert_eq!(h.preds_of(last).collect::<Vec<_>>(), vec![asked]);
        // A question after the end depends on it, though a join-free
        // write on the object (an unpark) came in between.
        h.push(&step(3, 0, Op::Unpark, Some(0), None));
        let fp = Footprint { op: Op::IsFinished, object: Some(ObjectId::from_index(0)), second: None, seq_cst: false };
        let mut preds = Vec::new();
        h.predecessors(fp, None, &mut preds);
        assert!(preds.contains(&(last as u32)), "{preds:?}");
        let cut = h.prefix_cut(h.events.len());
        h.predecessors(fp, Some(&cut), &mut preds);
        assert!(preds.contains(&(last as u32)), "{preds:?}");
        // An end that follows no question orders nothing new.
        let mut other = History::default();
        other.push(&step(0, 0, Op::Spawn, None, Some(1)));
        let store = other.push(&step(1, 1, Op::Store, Some(1), None));
        assert_eq!(other.end(ObjectId::from_index(0)), Some((store, false)));
    }

    #[test]
    fn loads_commute_and_a_store_orders_them() {
        let mut h = History::default();
        h.push(&step(0, 0, Op::Spawn, None, Some(1)));
        h.push(&step(1, 0, Op::Spawn, None, Some(2)));
        let a = h.push(&step(2, 1, Op::Load, Some(0), None));
        let b = h.push(&step(3, 2, Op::Load, Some(0), None));
        assert!(!h.happens_before(a, h.clock_of(b)));
        let c = h.push(&step(4, 2, Op::Store, Some(0), None));
        assert!(h.happens_before(a, h.clock_of(c)));
        assert_eq!(h.preds_of(c).collect::<Vec<_>>(), vec![a, b]);
        // The spawn happens before the child's first step.
        assert!(h.happens_before(0, h.clock_of(a)));
        assert!(!h.happens_before(1, h.clock_of(a)));
    }

    #[test]
    fn a_write_depends_on_each_actors_latest_read_only() {
        let mut h = History::default();
        h.push(&step(0, 0, Op::Spawn, None, Some(1)));
        let first = h.push(&step(1, 1, Op::Load, Some(0), None));
        let second = h.push(&step(2, 1, Op::Load, Some(0), None));
        let mine = h.push(&step(3, 0, Op::Load, Some(0), None));
        let w = h.push(&step(4, 0, Op::Store, Some(0), None));
        assert_eq!(h.preds_of(w).collect::<Vec<_>>(), vec![second, mine]);
        assert!(h.happens_before(first, h.clock_of(w)));
    }

    #[test]
    fn a_join_orders_the_joined_thread_before_the_joiner() {
        let mut h = History::default();
        h.push(&step(0, 0, Op::Spawn, None, Some(1)));
        let w = h.push(&step(1, 1, Op::Store, Some(0), None));
        let j = h.push(&step(2, 0, Op::Join, Some(1), Some(1)));
        assert!(h.happens_before(w, h.clock_of(j)));
    }

    #[test]
    fn sleeps_conflict_through_the_clock_only() {
        let mut h = History::default();
        h.push(&step(0, 0, Op::Spawn, None, Some(1)));
        let sleep = h.push(&step(1, 1, Op::Sleep, None, None));
        let lock = h.push(&step(2, 0, Op::Lock, Some(0), None));
        assert!(!h.happens_before(sleep, h.clock_of(lock)));
        let timeout = h.push(&step(3, 0, Op::ParkTimeout, Some(1), None));
        assert!(h.happens_before(sleep, h.clock_of(timeout)));
    }

    #[test]
    fn concurrent_dependents_stop_at_a_write_that_happens_before() {
        let mut h = History::default();
        h.push(&step(0, 0, Op::Spawn, None, Some(1)));
        let old = h.push(&step(1, 1, Op::Store, Some(0), None));
        let mine = h.push(&step(2, 0, Op::Store, Some(0), None));
        let racing = h.push(&step(3, 1, Op::Load, Some(0), None));
        let before = h.clock_now(ActorId::MAIN).to_vec();
        let fp = Footprint { op: Op::Store, object: Some(ObjectId::from_index(0)), second: None, seq_cst: false };
        let mut out = Vec::new();
        h.concurrent_dependents(fp, &before, h.events.len(), None, |_| true, &mut out);
        // `old` happens before `mine`, which is main's own: neither races.
        assert_eq!(out, vec![racing]);
        assert!(h.happens_before(old, h.clock_of(mine)));
    }

    #[test]
    fn weak_loads_are_ordered_by_no_store_and_race_with_the_stores_after_them() {
        let mut h = History::default();
        h.push(&step(0, 0, Op::Spawn, None, Some(1)));
        h.push(&step(1, 0, Op::Spawn, None, Some(2)));
        let early = h.push(&step(2, 1, Op::WeakLoad, Some(0), None));
        let store = h.push(&step(3, 2, Op::Store, Some(0), None));
        let late = h.push(&step(4, 1, Op::WeakLoad, Some(0), None));
        // No store orders a weak load, nor a weak load a store.
        assert!(!h.happens_before(store, h.clock_of(late)));
        assert!(!h.happens_before(early, h.clock_of(store)));
        // A store races with every weak load before it that it does not
        // come after, of each actor, at its floor or not...
        let fp = |op| Footprint { op, object: Some(ObjectId::from_index(0)), second: None, seq_cst: false };
        let before = h.clock_now(ActorId::from_index(2)).to_vec();
        let mut out = Vec::new();
        h.concurrent_dependents(fp(Op::Store), &before, h.events.len(), Some(store), |_| true, &mut out);
        assert_eq!(out, vec![late, early]);
        // ...and a weak load with nothing before it.
        let before = h.clock_now(ActorId::from_index(1)).to_vec();
        h.concurrent_dependents(fp(Op::WeakLoad), &before, h.events.len(), None, |_| true, &mut out);
        assert_eq!(out, Vec::<usize>::new());
        // A strong load still comes after the store.
        let strong = h.push(&step(5, 1, Op::Load, Some(0), None));
        assert!(h.happens_before(store, h.clock_of(strong)));
    }

    #[test]
    fn locks_are_tracked_until_a_wait_gives_its_mutex_up() {
        let mut h = History::default();
        let (m, other) = (ObjectId::from_index(3), ObjectId::from_index(6));
        h.push(&step(0, 0, Op::Lock, Some(3), None));
        h.push(&step(1, 0, Op::Lock, Some(6), None));
        assert_eq!(h.locks(ActorId::MAIN), Some(&[m, other][..]));
        let mut wait = step(2, 0, Op::Wait, Some(4), None);
        wait.pending.second = Some(m);
        h.push(&wait);
        assert_eq!(h.locks(ActorId::MAIN), Some(&[other][..]));
        h.push(&step(3, 0, Op::Poll, Some(5), None));
        assert_eq!(h.locks(ActorId::MAIN), None);
    }
}
