//! The timers of one execution ([`crate::rt::wake_at`]): virtual deadlines
//! and what to do at them.
//!
//! Invariants: timers that fall due together fire in the order they were
//! armed, whatever their deadlines (what the engine did when it kept them
//! in a list, and what a schedule recorded then replays to); arming and
//! taking the due ones cost a logarithm of the timers pending, not their
//! number (a test whose tasks loop on timeouts keeps many armed).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What a timer does when it fires.
pub(crate) type Fire = Box<dyn Fn()>;

/// The pending timers, earliest deadline on top.
#[derive(Default)]
pub(crate) struct Timers {
    heap: BinaryHeap<Timer>,
    /// How many timers this execution armed: the next one's place.
    armed: u64,
}

/// One armed timer.
struct Timer {
    deadline: u64,
    /// Its place in arming order.
    seq: u64,
    fire: Fire,
}

impl Timers {
    /// Arms `fire` for virtual time `deadline` (nanoseconds).
    pub(crate) fn arm(&mut self, deadline: u64, fire: Fire) {
        self.heap.push(Timer { deadline, seq: self.armed, fire });
        self.armed += 1;
    }

    /// Returns whether no timer is pending.
    pub(crate) fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Returns the earliest deadline, `u64::MAX` without timers (a peek:
    /// the scheduling points ask it at every step).
    #[inline]
    pub(crate) fn next(&self) -> u64 {
        self.heap.peek().map_or(u64::MAX, |t| t.deadline)
    }

    /// Takes out the timers due by `now`, in arming order.
    pub(crate) fn take_due(&mut self, now: u64) -> Vec<Fire> {
        let mut due = Vec::new();
        while self.heap.peek().is_some_and(|t| t.deadline <= now) {
            due.push(self.heap.pop().expect("peeked"));
        }
        due.sort_unstable_by_key(|t| t.seq);
        due.into_iter().map(|t| t.fire).collect()
    }

    /// Drops every timer (an execution that ends leaves them unfired).
    pub(crate) fn clear(&mut self) {
        self.heap.clear();
        self.armed = 0;
    }
}

impl PartialEq for Timer {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Timer {}

impl PartialOrd for Timer {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timer {
    /// The earliest deadline is the greatest (`BinaryHeap` is a max-heap),
    /// then the earliest armed.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.deadline, other.seq).cmp(&(self.deadline, self.seq))
    }
}

#[cfg(test)]
mod tests {
    use super::Timers;
    use std::cell::RefCell;
    use std::rc::Rc;

    #[test]
    fn due_timers_fire_in_arming_order_and_later_ones_wait() {
        let fired = Rc::new(RefCell::new(Vec::new()));
        let mut timers = Timers::default();
        for (name, deadline) in [("a", 30), ("b", 10), ("c", 50), ("d", 20), ("e", 10)] {
            let fired = fired.clone();
            timers.arm(deadline, Box::new(move || fired.borrow_mut().push(name)));
        }
        assert_eq!(timers.next(), 10);
        timers.take_due(30).iter().for_each(|fire| fire());
        assert_eq!(*fired.borrow(), ["a", "b", "d", "e"], "arming order, not deadline order");
        assert_eq!(timers.next(), 50);
        assert!(timers.take_due(49).is_empty());
        timers.take_due(50).iter().for_each(|fire| fire());
        assert_eq!(fired.borrow().last(), Some(&"c"));
        assert!(timers.is_empty());
        assert_eq!(timers.next(), u64::MAX);
    }
}
