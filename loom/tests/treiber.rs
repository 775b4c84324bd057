//! A lock-free Treiber stack, as a loom user writes it.
//!
//! Nodes are retired to a list and freed with the stack, never reused
//! while it lives: no ABA, no use after free (the test stays memory-safe
//! under every schedule, bug variants included).

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicPtr, Ordering};
use loom::sync::{Arc, Mutex};
use loom::thread;
use std::ptr;

use crate::{assert_panic, assert_pass, assert_race, check, check_with};

/// Which push and pop the stack runs.
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    /// Compare-and-swap on the head, value taken after winning it.
    Correct,
    /// Push reads the head and stores the new one: a push can be lost.
    LostPush,
    /// Pop takes the value before its compare-and-swap wins: two pops of
    /// the same node race on its value.
    TakeBeforeCas,
}

struct Node {
    value: UnsafeCell<Option<u32>>,
    next: *mut Node,
}

struct Stack {
    head: AtomicPtr<Node>,
    /// Every node ever pushed, freed on drop.
    nodes: Mutex<Vec<*mut Node>>,
    variant: Variant,
}

// SAFETY: node values are reached only by the thread that won the node
// (what the model checks); nodes live as long as the stack.
unsafe impl Send for Stack {}
// SAFETY: as above.
unsafe impl Sync for Stack {}

impl Stack {
    fn new(variant: Variant) -> Stack {
        Stack { head: AtomicPtr::new(ptr::null_mut()), nodes: Mutex::new(Vec::new()), variant }
    }

    fn push(&self, value: u32) {
        let node = Box::into_raw(Box::new(Node { value: UnsafeCell::new(Some(value)), next: ptr::null_mut() }));
        self.nodes.lock().unwrap().push(node);
        loop {
            let head = self.head.load(Ordering::Acquire);
            // SAFETY: `node` is not shared yet.
            unsafe { (*node).next = head };
            if self.variant == Variant::LostPush {
                self.head.store(node, Ordering::Release);
                return;
            }
            if self.head.compare_exchange(head, node, Ordering::Release, Ordering::Relaxed).is_ok() {
                return;
            }
        }
    }

    fn pop(&self) -> Option<u32> {
        loop {
            let head = self.head.load(Ordering::Acquire);
            if head.is_null() {
                return None;
            }
            // SAFETY: nodes live as long as the stack; `next` is written
            // only before the node is published.
            let next = unsafe { (*head).next };
            let early = match self.variant {
                // SAFETY: the bug under test; the model reports the race.
                Variant::TakeBeforeCas => unsafe { (*head).value.with_mut(|v| (*v).take()) },
                _ => None,
            };
            if self.head.compare_exchange(head, next, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                if self.variant == Variant::TakeBeforeCas {
                    return early;
                }
                // SAFETY: winning the head gives this thread the node.
                return unsafe { (*head).value.with_mut(|v| (*v).take()) };
            }
        }
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        for node in self.nodes.get_mut().unwrap().drain(..) {
            // SAFETY: every node came from `Box::into_raw`, once.
            drop(unsafe { Box::from_raw(node) });
        }
    }
}

/// Two threads each push one value and pop one; every pop finds a value
/// and the stack ends empty.
fn push_pop(variant: Variant) {
    let stack = Arc::new(Stack::new(variant));
    let threads: Vec<_> = (0..2)
        .map(|i| {
            let stack = stack.clone();
            thread::spawn(move || {
                stack.push(i);
                stack.pop().expect("a pushed value is there to pop")
            })
        })
        .collect();
    let mut popped: Vec<u32> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    popped.sort();
    assert_eq!(popped, [0, 1]);
    assert_eq!(stack.pop(), None);
}

/// Two threads push concurrently; both values are then on the stack.
fn two_pushes(variant: Variant) {
    let stack = Arc::new(Stack::new(variant));
    let threads: Vec<_> = (0..2)
        .map(|i| {
            let stack = stack.clone();
            thread::spawn(move || stack.push(i))
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let mut popped = vec![stack.pop(), stack.pop()];
    popped.sort();
    assert_eq!(popped, [Some(0), Some(1)], "a push was lost");
}

/// Two threads pop the one value the main thread pushed.
fn two_pops(variant: Variant) {
    let stack = Arc::new(Stack::new(variant));
    stack.push(7);
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let stack = stack.clone();
            thread::spawn(move || stack.pop())
        })
        .collect();
    let mut popped: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    popped.sort();
    assert_eq!(popped, [None, Some(7)]);
}

#[test]
fn correct_stack_passes() {
    // 313 under sequential consistency, where every load conflicts with
    // the stores before it; under the C11 model the loads choose among
    // stores (and failing compare-exchanges read older heads) but a weak
    // load no longer needs reordering with the stores before it: 234 (620
    // while it did). 1245, 26 and 14 when the `Arc`'s count was an atomic
    // (every clone and drop a read-modify-write, all dependent): the
    // threads' clones and the drops that free nothing commute now. 206
    // with loom's failing compare-exchange (samaritan-loom's default),
    // which reads only the newest head.
    assert_pass(&check(|| push_pop(Variant::Correct)), 206);
    let c11 = check_with(|b| b.cas_reads_newest = false, || push_pop(Variant::Correct));
    assert_pass(&c11, 234);
    // 12 while each push's weak load of the head was reordered with the
    // other's store.
    assert_pass(&check(|| two_pushes(Variant::Correct)), 8);
    // 6 while each pop's weak load of the head was reordered with the
    // other's compare-exchange.
    assert_pass(&check(|| two_pops(Variant::Correct)), 4);
}

#[test]
fn lost_push_is_found() {
    assert_panic(&check(|| two_pushes(Variant::LostPush)), "a push was lost");
}

#[test]
fn take_before_cas_is_a_data_race() {
    assert_race(&check(|| two_pops(Variant::TakeBeforeCas)));
}
