//! Happens-before over the steps of one execution, for partial-order
//! reduction and coverage.
//!
//! The relation is the one dynamic partial-order reduction works with
//! (Flanagan and Godefroid; inspect-runtime-model-checking-dpor.txt,
//! section 2.3): the transitive closure of program order, of dependency
//! ([`Op::dependent`]) between steps of different actors in execution
//! order, and of the edges no object carries (a spawn before its child's
//! steps, a thread's steps before a join on it; [`Step::peer`]).
//!
//! Invariants:
//! - `events[i]` is the `i`-th step of the execution; its clock is its
//!   actor's vector clock just after it, so event `i` happens before a
//!   state of actor `a` with clock `c` exactly when
//!   `events[i].seq <= c[events[i].actor]`.
//! - `objects[o]` lists, in order, the events on object `o`; `globals` the
//!   events whose access is [`Access::Global`].

use std::collections::HashMap;
use std::panic::Location;

use samaritan_sim::{Access, ActorId, ObjectId, Op, Step};

/// A vector clock: per actor, how many of its events are known.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Clock(Vec<u32>);

impl Clock {
    /// Returns the components, without trailing zeros (a canonical form).
    pub(crate) fn components(&self) -> &[u32] {
        let len = self.0.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
        &self.0[..len]
    }

    /// Returns actor `a`'s component.
    pub(crate) fn get(&self, a: ActorId) -> u32 {
        self.0.get(a.index()).copied().unwrap_or(0)
    }

    pub(crate) fn set(&mut self, a: ActorId, value: u32) {
        if self.0.len() <= a.index() {
            self.0.resize(a.index() + 1, 0);
        }
        self.0[a.index()] = value;
    }

    pub(crate) fn join(&mut self, other: &Clock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (mine, theirs) in self.0.iter_mut().zip(&other.0) {
            *mine = (*mine).max(*theirs);
        }
    }
}

/// One step, as the happens-before tracker keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    pub(crate) actor: ActorId,
    pub(crate) op: Op,
    pub(crate) object: Option<ObjectId>,
    pub(crate) location: &'static Location<'static>,
    /// Its index among its actor's events, from 1.
    pub(crate) seq: u32,
    /// Its actor's clock just after it.
    pub(crate) clock: Clock,
    /// Exclusive locks its actor held just before it, or `None` when they
    /// cannot be known (see [`History::locks`]).
    pub(crate) locks: Option<Vec<ObjectId>>,
    /// Its immediate dependent predecessors: the latest earlier events it
    /// depends on directly (the last conflicting write, the reads since,
    /// the last global event), by index.
    pub(crate) preds: Vec<usize>,
    /// The value chosen, for a data choice.
    pub(crate) value: u32,
    /// The spawned child or the joined thread ([`Step::peer`]).
    pub(crate) peer: Option<ActorId>,
}

/// The events of one execution with their vector clocks.
#[derive(Debug, Default)]
pub(crate) struct History {
    pub(crate) events: Vec<Event>,
    /// Each actor's clock now.
    clocks: Vec<Clock>,
    /// Each actor's events, by index.
    by_actor: Vec<Vec<usize>>,
    /// Exclusive locks each actor holds; `None` once unknown.
    held: Vec<Option<Vec<ObjectId>>>,
    /// Events on each object, in order.
    objects: HashMap<ObjectId, Vec<usize>>,
    /// Events that conflict with everything.
    globals: Vec<usize>,
    /// The spawn event of each actor, by index.
    spawns: Vec<Option<usize>>,
}

impl History {
    /// Forgets everything: a new execution starts.
    pub(crate) fn clear(&mut self) {
        self.events.clear();
        self.clocks.clear();
        self.by_actor.clear();
        self.held.clear();
        self.objects.clear();
        self.globals.clear();
        self.spawns.clear();
    }

    fn grow(&mut self, a: ActorId) {
        let n = a.index() + 1;
        if self.clocks.len() < n {
            self.clocks.resize(n, Clock::default());
            self.by_actor.resize(n, Vec::new());
            self.held.resize(n, Some(Vec::new()));
            self.spawns.resize(n, None);
        }
    }

    /// Returns actor `a`'s clock now (before its next event).
    pub(crate) fn clock(&mut self, a: ActorId) -> &Clock {
        self.grow(a);
        &self.clocks[a.index()]
    }

    /// Returns the exclusive locks actor `a` holds now, if known.
    ///
    /// Only blocking `lock` steps of actors that never poll are trusted: an
    /// async lock future announces `lock` on every poll, acquired or not,
    /// and a condition-variable wait gives its mutex up without a step on
    /// it (both make the set unknown or empty, which is the safe side).
    pub(crate) fn locks(&self, a: ActorId) -> Option<&[ObjectId]> {
        self.held.get(a.index()).map_or(Some(&[]), Option::as_deref)
    }

    /// Returns the exclusive locks actor `a` held after its first `k`
    /// events (as [`History::locks`] tracks them): what its next event
    /// recorded, or what it holds now when it has no next event.
    pub(crate) fn locks_after(&self, a: ActorId, k: usize) -> Option<&[ObjectId]> {
        match self.of_actor(a).get(k) {
            Some(&next) => self.events[next].locks.as_deref(),
            None => self.locks(a),
        }
    }

    /// Returns the events of actor `a`, by index.
    pub(crate) fn of_actor(&self, a: ActorId) -> &[usize] {
        self.by_actor.get(a.index()).map_or(&[], Vec::as_slice)
    }

    /// Returns the clock actor `a` starts with: what its spawner knew at
    /// the spawn (empty for the main actor).
    pub(crate) fn start_clock(&self, a: ActorId) -> Clock {
        match self.spawned_at(a) {
            Some(i) => {
                let mut start = self.events[i].clock.clone();
                start.set(a, 0);
                start
            }
            None => Clock::default(),
        }
    }

    /// Returns the index of the event that spawned actor `a`, if any.
    pub(crate) fn spawned_at(&self, a: ActorId) -> Option<usize> {
        self.spawns.get(a.index()).copied().flatten()
    }

    /// Returns whether event `i` happens before the state of an actor
    /// whose clock is `clock`.
    pub(crate) fn happens_before(&self, i: usize, clock: &Clock) -> bool {
        let e = &self.events[i];
        e.seq <= clock.get(e.actor)
    }

    /// Calls `f` with every earlier event that `(op, object)` depends on,
    /// latest first, until `f` returns `false`.
    pub(crate) fn each_dependent(&self, op: Op, object: Option<ObjectId>, mut f: impl FnMut(usize) -> bool) {
        let access = op.access();
        if access == Access::Local {
            return;
        }
        if access == Access::Global {
            for i in (0..self.events.len()).rev() {
                if Op::dependent((op, object), (self.events[i].op, self.events[i].object)) && !f(i) {
                    return;
                }
            }
            return;
        }
        let on_object: &[usize] = object.and_then(|o| self.objects.get(&o)).map_or(&[], Vec::as_slice);
        // Merge the object's events and the global ones, latest first.
        let (mut a, mut b) = (on_object.len(), self.globals.len());
        while a > 0 || b > 0 {
            let take_object = b == 0 || (a > 0 && on_object[a - 1] > self.globals[b - 1]);
            let i = if take_object {
                a -= 1;
                on_object[a]
            } else {
                b -= 1;
                self.globals[b]
            };
            let e = &self.events[i];
            if Op::dependent((op, object), (e.op, e.object)) && !f(i) {
                return;
            }
        }
    }

    /// Appends `step`, computing its clock; returns its index.
    pub(crate) fn push(&mut self, step: &Step) -> usize {
        let actor = step.actor;
        let (op, object) = (step.pending.op, step.pending.object);
        self.grow(actor);
        if let Some(peer) = step.peer {
            self.grow(peer);
        }
        let index = self.events.len();
        let mut clock = self.clocks[actor.index()].clone();
        let seq = clock.get(actor) + 1;
        clock.set(actor, seq);
        if op == Op::Join {
            if let Some(peer) = step.peer {
                let theirs = self.clocks[peer.index()].clone();
                clock.join(&theirs);
            }
        }
        let preds = self.immediate_predecessors(op, object);
        for &p in &preds {
            clock.join(&self.events[p].clock);
        }
        let locks = self.held[actor.index()].clone();
        self.update_locks(actor, op, object);
        if op == Op::Spawn {
            if let Some(child) = step.peer {
                // The child starts knowing what its parent knew.
                let mut start = clock.clone();
                start.set(child, 0);
                self.clocks[child.index()] = start;
                self.spawns[child.index()] = Some(index);
            }
        }
        self.clocks[actor.index()] = clock.clone();
        self.by_actor[actor.index()].push(index);
        match op.access() {
            Access::Global => self.globals.push(index),
            Access::Local => {}
            _ => {
                if let Some(o) = object {
                    self.objects.entry(o).or_default().push(index);
                }
            }
        }
        self.events.push(Event {
            actor,
            op,
            object,
            location: step.pending.location,
            seq,
            clock,
            locks,
            preds,
            value: step.value,
            peer: step.peer,
        });
        index
    }

    /// The latest events a new `(op, object)` event depends on directly:
    /// every other dependent earlier event happens before one of them.
    pub(crate) fn immediate_predecessors(&self, op: Op, object: Option<ObjectId>) -> Vec<usize> {
        self.predecessors_within(op, object, None)
    }

    /// Like [`History::immediate_predecessors`], among the events of the
    /// prefix `cut` only (per actor, how many of its events it holds;
    /// `None` for every event).
    pub(crate) fn predecessors_within(&self, op: Op, object: Option<ObjectId>, cut: Option<&[u32]>) -> Vec<usize> {
        let inside = |i: usize| {
            let e = &self.events[i];
            cut.is_none_or(|c| e.seq <= c.get(e.actor.index()).copied().unwrap_or(0))
        };
        let mut preds = Vec::new();
        match op.access() {
            Access::Local => {}
            Access::Global => {
                // The latest event of each actor covers its earlier ones.
                for events in &self.by_actor {
                    if let Some(&last) = events.iter().rev().find(|&&i| inside(i)) {
                        preds.push(last);
                    }
                }
            }
            _ => {
                // Latest first: a read depends directly on the last write;
                // a write on the reads since the last write and on it.
                self.each_dependent(op, object, |i| {
                    if !inside(i) {
                        return true;
                    }
                    preds.push(i);
                    self.events[i].op.access() == Access::Read
                });
                if let Some(&g) = self.globals.iter().rev().find(|&&i| inside(i)) {
                    if !preds.contains(&g) {
                        preds.push(g);
                    }
                }
            }
        }
        preds
    }

    fn update_locks(&mut self, actor: ActorId, op: Op, object: Option<ObjectId>) {
        let held = &mut self.held[actor.index()];
        match (op, object) {
            (Op::Poll, _) => *held = None,
            (Op::Wait, _) => {
                if let Some(h) = held {
                    h.clear();
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
    /// other holds. Unknown lock sets (`None`) say nothing.
    pub(crate) fn may_coenable(
        a: (Op, Option<ObjectId>, Option<&[ObjectId]>),
        b: (Op, Option<ObjectId>, Option<&[ObjectId]>),
    ) -> bool {
        let takes_held = |x: (Op, Option<ObjectId>, Option<&[ObjectId]>), held: Option<&[ObjectId]>| {
            x.0 == Op::Lock && x.1.is_some_and(|o| held.is_some_and(|h| h.contains(&o)))
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
            samaritan_sim::Pending { op, object: object.map(ObjectId::from_index), location: Location::caller() },
            peer.map(ActorId::from_index),
        )
    }

    #[test]
    fn loads_commute_and_a_store_orders_them() {
        let mut h = History::default();
        h.push(&step(0, 0, Op::Spawn, None, Some(1)));
        h.push(&step(1, 0, Op::Spawn, None, Some(2)));
        let a = h.push(&step(2, 1, Op::Load, Some(0), None));
        let b = h.push(&step(3, 2, Op::Load, Some(0), None));
        assert!(!h.happens_before(a, &h.events[b].clock.clone()));
        let c = h.push(&step(4, 2, Op::Store, Some(0), None));
        assert!(h.happens_before(a, &h.events[c].clock.clone()));
        assert_eq!(h.events[c].preds, vec![b, a]);
        // The spawn happens before the child's first step.
        assert!(h.happens_before(0, &h.events[a].clock.clone()));
        assert!(!h.happens_before(1, &h.events[a].clock.clone()));
    }

    #[test]
    fn a_join_orders_the_joined_thread_before_the_joiner() {
        let mut h = History::default();
        h.push(&step(0, 0, Op::Spawn, None, Some(1)));
        let w = h.push(&step(1, 1, Op::Store, Some(0), None));
        let j = h.push(&step(2, 0, Op::Join, Some(1), Some(1)));
        assert!(h.happens_before(w, &h.events[j].clock.clone()));
    }

    #[test]
    fn locks_are_tracked_until_a_wait() {
        let mut h = History::default();
        let m = ObjectId::from_index(3);
        h.push(&step(0, 0, Op::Lock, Some(3), None));
        assert_eq!(h.locks(ActorId::MAIN), Some(&[m][..]));
        h.push(&step(1, 0, Op::Wait, Some(4), None));
        assert_eq!(h.locks(ActorId::MAIN), Some(&[][..]));
        h.push(&step(2, 0, Op::Poll, Some(5), None));
        assert_eq!(h.locks(ActorId::MAIN), None);
    }
}
