//! Dozing actors: an actor whose condition only a known event can make
//! true is not asked at every scheduling point.
//!
//! A step announced with [`rt::step_with_when_dozing`](crate::rt::step_with_when_dozing)
//! promises that while its `dozes()` holds, its `ready()` stays false until
//! someone calls [`rt::rouse`](crate::rt::rouse) on that actor. The engine
//! then asks such an actor once; while it is not ready and dozes, it is put
//! aside until it is roused, and a scheduling point looks only at the
//! actors that are awake. A runtime with thousands of tasks parked on one
//! pool pays per step for the few that can run, not for all of them.
//!
//! Invariants:
//! - `Awake::list` holds, in index order, the live actors that do not
//!   doze; `dozing[i]` says actor `i` dozes. A dozing actor is live, waits
//!   in `rt::step_*`, and its view is not enabled.
//! - Rousing an actor that is awake, finished or unknown does nothing.
//! - When no awake actor is enabled, every dozing actor is asked again
//!   before the engine advances the clock, waits for a wake from outside
//!   or ends the execution: a missed rouse can delay a step but never make
//!   a false deadlock. A rouse from a thread the exploration does not
//!   control cannot name its actor; the next decision asks every dozing
//!   actor.
//! - Rouses go through a queue of the exploring OS thread (every actor is
//!   a coroutine on it, and timers fire on it), drained before every
//!   decision, so an actor can be roused while the engine is borrowed.
//! - In debug builds every decision (every 64th once more than 32 actors
//!   doze) checks that no dozing actor is ready: a primitive that forgot a
//!   rouse is an engine bug, reported as one.

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::op::ActorId;

thread_local! {
    /// Actors roused since the last decision, by index.
    static ROUSED: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
    /// Whether `ROUSED` may hold anything (a cheap check per decision).
    static ANY: Cell<bool> = const { Cell::new(false) };
}

/// Set by a rouse from a thread the exploration does not control (a
/// waker called by a `std::thread`): which actor it meant is not known
/// there, so every explorer's next decision wakes every dozing actor.
static FOREIGN: AtomicBool = AtomicBool::new(false);

/// Queues a rouse of `actor` for the next decision.
pub(crate) fn rouse(actor: ActorId) {
    ROUSED.with(|r| r.borrow_mut().push(actor.0));
    ANY.with(|a| a.set(true));
}

/// A rouse from outside any execution: every dozing actor is asked again.
pub(crate) fn rouse_from_outside() {
    FOREIGN.store(true, Ordering::Release);
}

/// Forgets the rouses of an execution that ended.
pub(crate) fn clear() {
    ROUSED.with(|r| r.borrow_mut().clear());
    ANY.with(|a| a.set(false));
}

/// The actors a scheduling point asks, and the ones put aside.
#[derive(Debug, Default)]
pub(crate) struct Awake {
    /// Live actors that do not doze, in index order.
    pub(crate) list: Vec<ActorId>,
    /// By actor index: whether it dozes.
    dozing: Vec<bool>,
    /// How many doze.
    count: usize,
    /// Decisions since the last full check (debug builds).
    since_check: u32,
}

impl Awake {
    pub(crate) fn reset(&mut self) {
        self.list.clear();
        self.dozing.clear();
        self.count = 0;
        self.since_check = 0;
    }

    /// A new actor, awake (its index is the next one).
    pub(crate) fn add(&mut self, id: ActorId) {
        self.dozing.push(false);
        self.list.push(id);
    }

    /// Actor `id` finished: it leaves whichever set it was in.
    pub(crate) fn finish(&mut self, id: ActorId) {
        if std::mem::take(&mut self.dozing[id.index()]) {
            self.count -= 1;
        } else if let Ok(at) = self.list.binary_search(&id) {
            self.list.remove(at);
        }
    }

    /// Actor `id`, just found not ready, dozes from now on; the caller
    /// takes it out of `list`.
    pub(crate) fn doze(&mut self, id: ActorId) {
        self.dozing[id.index()] = true;
        self.count += 1;
    }

    /// How many actors doze.
    pub(crate) fn dozing(&self) -> usize {
        self.count
    }

    /// Wakes the actors roused since the last call (or, with `all`, every
    /// dozing actor), back into `list` in index order.
    pub(crate) fn take_rouses(&mut self, all: bool) {
        if all || (self.count > 0 && FOREIGN.load(Ordering::Relaxed) && FOREIGN.swap(false, Ordering::Acquire)) {
            clear();
            if self.count == 0 {
                return;
            }
            for (i, d) in self.dozing.iter_mut().enumerate() {
                if std::mem::take(d) {
                    self.list.push(ActorId::from_index(i));
                }
            }
            self.count = 0;
            self.list.sort_unstable();
            return;
        }
        if !ANY.with(|a| a.replace(false)) {
            return;
        }
        let roused = ROUSED.with(|r| std::mem::take(&mut *r.borrow_mut()));
        let before = self.list.len();
        for i in roused {
            let i = i as usize;
            if self.dozing.get(i).copied().unwrap_or(false) {
                self.dozing[i] = false;
                self.count -= 1;
                self.list.push(ActorId::from_index(i));
            }
        }
        if self.list.len() > before {
            self.list.sort_unstable();
        }
    }

    /// Whether this decision checks every dozing actor (debug builds).
    pub(crate) fn check_now(&mut self) -> bool {
        if !cfg!(debug_assertions) || self.count == 0 {
            return false;
        }
        self.since_check += 1;
        if self.count <= 32 || self.since_check >= 64 {
            self.since_check = 0;
            return true;
        }
        false
    }

    /// The dozing actors, by index.
    pub(crate) fn dozers(&self) -> impl Iterator<Item = ActorId> + '_ {
        self.dozing.iter().enumerate().filter(|(_, d)| **d).map(|(i, _)| ActorId::from_index(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[ActorId]) -> Vec<usize> {
        list.iter().map(|a| a.index()).collect()
    }

    #[test]
    fn a_roused_actor_comes_back_in_index_order_and_a_finished_one_never() {
        clear();
        let mut a = Awake::default();
        for i in 0..4 {
            a.add(ActorId::from_index(i));
        }
        // Actors 1 and 2 doze (the caller takes them out of the list).
        a.doze(ActorId::from_index(1));
        a.doze(ActorId::from_index(2));
        a.list.retain(|id| id.index() != 1 && id.index() != 2);
        assert_eq!((ids(&a.list), a.dozing()), (vec![0, 3], 2));
        a.finish(ActorId::from_index(2));
        rouse(ActorId::from_index(2));
        rouse(ActorId::from_index(1));
        rouse(ActorId::from_index(3));
        a.take_rouses(false);
        assert_eq!((ids(&a.list), a.dozing()), (vec![0, 1, 3], 0));
    }

    #[test]
    fn rousing_all_wakes_every_dozing_actor() {
        clear();
        let mut a = Awake::default();
        for i in 0..3 {
            a.add(ActorId::from_index(i));
        }
        a.doze(ActorId::from_index(0));
        a.doze(ActorId::from_index(2));
        a.list.retain(|id| id.index() == 1);
        assert_eq!(a.dozers().map(|d| d.index()).collect::<Vec<_>>(), [0, 2]);
        a.take_rouses(true);
        assert_eq!((ids(&a.list), a.dozing()), (vec![0, 1, 2], 0));
    }
}
