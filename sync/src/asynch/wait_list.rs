//! A FIFO queue of waiters with O(1) removal from the middle.
//!
//! A slab of slots threaded by a doubly linked list of indices: safe code,
//! no allocation per waiter once the slab has grown. Each waiting future
//! owns one [`Key`]. The owner alone frees its slot ([`WaitList::remove`]);
//! a waker only *dequeues* it ([`WaitList::pop_front`]), which unlinks the
//! slot but keeps its value, so the owner can still read the outcome the
//! waker left there. A key therefore never names a slot reused by another
//! waiter.
//!
//! Invariants: `head`/`tail` and the `prev`/`next` links cover exactly the
//! occupied slots whose `queued` is true, in arrival order; `free` lists the vacant slots.

/// Names one slot of a [`WaitList`]; valid until its owner removes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key(usize);

#[derive(Debug)]
struct Slot<T> {
    value: T,
    prev: Option<usize>,
    next: Option<usize>,
    queued: bool,
}

/// The queue; see the module docs.
#[derive(Debug)]
pub(crate) struct WaitList<T> {
    slots: Vec<Option<Slot<T>>>,
    free: Vec<usize>,
    head: Option<usize>,
    tail: Option<usize>,
}

impl<T> WaitList<T> {
    pub(crate) const fn new() -> Self {
        WaitList { slots: Vec::new(), free: Vec::new(), head: None, tail: None }
    }

    /// Queues `value` at the back and returns its key.
    pub(crate) fn push_back(&mut self, value: T) -> Key {
        let slot = Slot { value, prev: self.tail, next: None, queued: true };
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i] = Some(slot);
                i
            }
            None => {
                self.slots.push(Some(slot));
                self.slots.len() - 1
            }
        };
        match self.tail {
            Some(t) => self.slot_mut(t).next = Some(i),
            None => self.head = Some(i),
        }
        self.tail = Some(i);
        Key(i)
    }

    /// The key of the first queued waiter.
    pub(crate) fn front(&self) -> Option<Key> {
        self.head.map(Key)
    }

    /// Unlinks the first queued waiter; its slot stays until its owner removes it.
    pub(crate) fn pop_front(&mut self) -> Option<Key> {
        let key = self.front()?;
        self.unlink(key.0);
        Some(key)
    }

    /// Returns true if `key` is still queued.
    pub(crate) fn is_queued(&self, key: Key) -> bool {
        self.slot(key.0).queued
    }

    pub(crate) fn get_mut(&mut self, key: Key) -> &mut T {
        &mut self.slot_mut(key.0).value
    }

    /// Frees `key`'s slot (unlinking it if still queued) and returns its value.
    pub(crate) fn remove(&mut self, key: Key) -> T {
        if self.slot(key.0).queued {
            self.unlink(key.0);
        }
        self.free.push(key.0);
        self.slots[key.0].take().expect("wait list key names a vacant slot").value
    }

    fn unlink(&mut self, i: usize) {
        let (prev, next) = {
            let s = self.slot_mut(i);
            debug_assert!(s.queued, "unlinking a waiter that is not queued");
            s.queued = false;
            (s.prev.take(), s.next.take())
        };
        match prev {
            Some(p) => self.slot_mut(p).next = next,
            None => self.head = next,
        }
        match next {
            Some(n) => self.slot_mut(n).prev = prev,
            None => self.tail = prev,
        }
    }

    fn slot(&self, i: usize) -> &Slot<T> {
        self.slots[i].as_ref().expect("wait list key names a vacant slot")
    }

    fn slot_mut(&mut self, i: usize) -> &mut Slot<T> {
        self.slots[i].as_mut().expect("wait list key names a vacant slot")
    }
}

impl WaitList<Option<std::task::Waker>> {
    /// Queues (or keeps queued) the waiter whose key `key` holds, with
    /// `waker`: a waiter still queued keeps its slot and gets `waker` unless
    /// the stored one would wake the same task; one a waker already
    /// dequeued, or a new one, goes to the back.
    pub(crate) fn register(&mut self, key: &mut Option<Key>, waker: &std::task::Waker) {
        match *key {
            Some(k) if self.is_queued(k) => {
                let slot = self.get_mut(k);
                if !slot.as_ref().is_some_and(|w| w.will_wake(waker)) {
                    *slot = Some(waker.clone());
                }
            }
            Some(k) => {
                self.remove(k);
                *key = Some(self.push_back(Some(waker.clone())));
            }
            None => *key = Some(self.push_back(Some(waker.clone()))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WaitList;

    #[test]
    fn fifo_with_removal_from_the_middle() {
        let mut l = WaitList::new();
        let a = l.push_back('a');
        let b = l.push_back('b');
        let c = l.push_back('c');
        assert_eq!(l.remove(b), 'b');
        assert_eq!(l.pop_front(), Some(a));
        assert!(!l.is_queued(a));
        assert_eq!(*l.get_mut(a), 'a');
        let d = l.push_back('d'); // Reuses b's slot.
        assert_eq!(l.pop_front(), Some(c));
        assert_eq!(l.pop_front(), Some(d));
        assert_eq!(l.front(), None);
        assert_eq!(l.remove(a), 'a');
        assert_eq!(l.pop_front(), None);
    }
}
