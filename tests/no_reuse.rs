//! Under `samaritan::alloc::NoReuse`, no address freed during an execution
//! comes back in it: a pointer compare-exchange never meets a reused
//! address, so its outcome depends on the schedule alone (haphazard's
//! `folly_cleanup` was reported as nondeterministic when it depended on the
//! system allocator's state, which the explorer's own allocations change
//! between a schedule's first run and its replay).
#![cfg(feature = "sim")]

mod common;

use std::sync::atomic::AtomicUsize as StdAtomicUsize;
use std::sync::atomic::Ordering::Relaxed;

use samaritan::sync::atomic::{AtomicPtr, Ordering::SeqCst};
use samaritan::sync::Arc;
use samaritan::thread;

#[global_allocator]
static ALLOC: samaritan::alloc::NoReuse = samaritan::alloc::NoReuse;

struct Node {
    next: *mut Node,
}

fn node(next: *mut Node) -> *mut Node {
    Box::into_raw(Box::new(Node { next }))
}

/// Executions in which a node allocated after a free got the freed
/// node's address (counted across a whole search).
static REUSED: StdAtomicUsize = StdAtomicUsize::new(0);

/// Pops the top of `head`'s stack with a load and a compare-exchange.
fn pop(head: &AtomicPtr<Node>) -> Option<*mut Node> {
    let top = head.load(SeqCst);
    if top.is_null() {
        return None;
    }
    // SAFETY: a node is freed only by the thread that popped it, after its
    // pop, and no step comes between the load and this read, so `top` is
    // still on the stack (or, with an ABA, the node reusing its address).
    let next = unsafe { (*top).next };
    head.compare_exchange(top, next, SeqCst, SeqCst).is_ok().then_some(top)
}

/// A Treiber stack `a -> b`: a thread pops both, frees them and pushes a
/// new node; main pops once. Had the new node `a`'s address, main's
/// compare-exchange would succeed on it and leave the freed `b` on top
/// (the ABA).
fn pop_free_push() {
    let b = node(std::ptr::null_mut());
    let a = node(b);
    let head = Arc::new(AtomicPtr::new(a));
    let h = head.clone();
    let t = thread::spawn(move || {
        let mut freed = Vec::new();
        while freed.len() < 2 {
            let Some(top) = pop(&h) else { break };
            freed.push(top as usize);
            // SAFETY: popped by this thread: its own now.
            drop(unsafe { Box::from_raw(top) });
        }
        let expected = h.load(SeqCst);
        let pushed = node(expected);
        if freed.contains(&(pushed as usize)) {
            REUSED.fetch_add(1, Relaxed);
        }
        let on_stack = h.compare_exchange(expected, pushed, SeqCst, SeqCst).is_ok();
        (freed, pushed as usize, on_stack)
    });
    let popped = pop(&head);
    let (freed, pushed, on_stack) = t.join().unwrap();
    if let Some(top) = popped {
        assert!(!freed.contains(&(top as usize)), "main popped a node the thread had freed (an ABA)");
        // SAFETY: main popped `top`, which the thread never freed.
        drop(unsafe { Box::from_raw(top) });
    }
    let mut at = head.load(SeqCst);
    while !at.is_null() {
        // SAFETY: every node on the stack is owned by it, each once.
        let boxed = unsafe { Box::from_raw(at) };
        at = boxed.next;
    }
    if !on_stack {
        // SAFETY: the thread's push failed, so nothing else owns it.
        drop(unsafe { Box::from_raw(pushed as *mut Node) });
    }
}

#[test]
fn a_freed_address_never_comes_back_within_an_execution() {
    REUSED.store(0, Relaxed);
    common::check_exhausts(pop_free_push, 25);
    assert_eq!(REUSED.load(Relaxed), 0);
}
