//! `crossbeam::queue` under `sim`: `ArrayQueue` and `SegQueue` as
//! sequentially consistent models, one samaritan mutex each.
//!
//! Invariant: every operation takes the queue's lock once, so it is one
//! atomic step of the exploration (a linearizable queue: crossbeam's
//! queues are, and their `SeqCst` internals are not modelled).

use std::collections::VecDeque;
use std::fmt;

use samaritan::sync::{Mutex, MutexGuard};

use super::unpoisoned;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    unpoisoned(m.lock())
}

/// A bounded queue, as crossbeam's: `push` fails when it is full.
///
/// ```
/// extern crate samaritan_crossbeam as crossbeam;
/// use crossbeam::queue::ArrayQueue;
///
/// let q = ArrayQueue::new(1);
/// assert_eq!((q.push(1), q.push(2)), (Ok(()), Err(2)));
/// assert_eq!((q.force_push(3), q.pop(), q.pop()), (Some(1), Some(3), None));
/// ```
pub struct ArrayQueue<T> {
    items: Mutex<VecDeque<T>>,
    cap: usize,
}

impl<T> ArrayQueue<T> {
    /// A queue of at most `cap` values. Panics if `cap` is 0, as
    /// crossbeam's does.
    pub fn new(cap: usize) -> ArrayQueue<T> {
        assert!(cap > 0, "capacity must be non-zero");
        ArrayQueue { items: Mutex::new(VecDeque::with_capacity(cap)), cap }
    }

    /// Adds `value` at the back, or gives it back if the queue is full.
    #[track_caller]
    pub fn push(&self, value: T) -> Result<(), T> {
        let mut items = lock(&self.items);
        if items.len() == self.cap {
            return Err(value);
        }
        items.push_back(value);
        Ok(())
    }

    /// Adds `value` at the back, dropping the front one out if full (and
    /// returning it).
    #[track_caller]
    pub fn force_push(&self, value: T) -> Option<T> {
        let mut items = lock(&self.items);
        let out = if items.len() == self.cap { items.pop_front() } else { None };
        items.push_back(value);
        out
    }

    /// Takes the front value.
    #[track_caller]
    pub fn pop(&self) -> Option<T> {
        lock(&self.items).pop_front()
    }

    /// Its capacity.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// How many values it holds.
    #[track_caller]
    pub fn len(&self) -> usize {
        lock(&self.items).len()
    }

    /// Whether it holds none.
    #[track_caller]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether it is full.
    #[track_caller]
    pub fn is_full(&self) -> bool {
        self.len() == self.cap
    }
}

impl<T> fmt::Debug for ArrayQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("ArrayQueue { .. }")
    }
}

/// An unbounded queue, as crossbeam's.
///
/// ```
/// extern crate samaritan_crossbeam as crossbeam;
/// use crossbeam::queue::SegQueue;
///
/// let q = SegQueue::new();
/// q.push('a');
/// q.push('b');
/// assert_eq!((q.len(), q.pop(), q.pop(), q.pop()), (2, Some('a'), Some('b'), None));
/// ```
pub struct SegQueue<T> {
    items: Mutex<VecDeque<T>>,
}

impl<T> SegQueue<T> {
    /// An empty queue.
    pub const fn new() -> SegQueue<T> {
        SegQueue { items: Mutex::new(VecDeque::new()) }
    }

    /// Adds `value` at the back.
    #[track_caller]
    pub fn push(&self, value: T) {
        lock(&self.items).push_back(value);
    }

    /// Takes the front value.
    #[track_caller]
    pub fn pop(&self) -> Option<T> {
        lock(&self.items).pop_front()
    }

    /// How many values it holds.
    #[track_caller]
    pub fn len(&self) -> usize {
        lock(&self.items).len()
    }

    /// Whether it holds none.
    #[track_caller]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T> Default for SegQueue<T> {
    fn default() -> SegQueue<T> {
        SegQueue::new()
    }
}

impl<T> fmt::Debug for SegQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("SegQueue { .. }")
    }
}
