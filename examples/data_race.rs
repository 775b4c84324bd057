//! A data race in a hand-rolled single-producer, single-consumer ring
//! buffer. The producer reserves a slot by bumping `tail` and only then
//! fills it, but the consumer reads `tail` as the count of filled slots: it
//! may read a slot the producer is still writing.
//!
//! The values the consumer sees are right in most schedules, and even in
//! the schedule samaritan runs first. It reports the race there anyway:
//! happens-before is checked at every access to an `UnsafeCell`, so the
//! bug shows without the unlucky interleaving that would corrupt a value.
//!
//! Run with `cargo run --example data_race --features sim`.

use samaritan::cell::UnsafeCell;
use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::thread;

const CAPACITY: usize = 2;

/// A bounded queue for one producer thread and one consumer thread.
pub(crate) struct Ring {
    slots: [UnsafeCell<u32>; CAPACITY],
    /// Slots the producer took so far.
    tail: AtomicUsize,
    /// Slots the consumer emptied so far.
    head: AtomicUsize,
}

// SAFETY: the protocol is meant to hand each slot back and forth: written
// by the producer only while the consumer cannot see it, read by the
// consumer only after the producer published it. That claim is what the
// bug breaks and what samaritan checks.
unsafe impl Sync for Ring {}

impl Ring {
    fn new() -> Ring {
        Ring { slots: [UnsafeCell::new(0), UnsafeCell::new(0)], tail: AtomicUsize::new(0), head: AtomicUsize::new(0) }
    }

    /// Adds `value` unless the ring is full; called by the producer only.
    fn push(&self, value: u32) -> bool {
        let tail = self.tail.load(Ordering::Relaxed);
        if tail - self.head.load(Ordering::Acquire) == CAPACITY {
            return false;
        }
        // The bug: the slot is published before it is written. Filling it
        // first and storing `tail` after would be correct.
        self.tail.store(tail + 1, Ordering::Release);
        // SAFETY: the consumer does not read this slot before `tail`
        // covers it (which it now already does: the bug).
        self.slots[tail % CAPACITY].with_mut(|slot| unsafe { slot.write(value) });
        true
    }

    /// Takes the oldest value, if any; called by the consumer only.
    fn pop(&self) -> Option<u32> {
        let head = self.head.load(Ordering::Relaxed);
        if head == self.tail.load(Ordering::Acquire) {
            return None;
        }
        // SAFETY: `tail` covers this slot, so the producer filled it (or so
        // the consumer believes).
        let value = self.slots[head % CAPACITY].with(|slot| unsafe { slot.read() });
        self.head.store(head + 1, Ordering::Release);
        Some(value)
    }
}

/// A producer sends 1, 2, 3 through the ring; main receives them.
pub(crate) fn producer_and_consumer() {
    let ring = Arc::new(Ring::new());
    let producer = {
        let ring = ring.clone();
        thread::spawn(move || {
            for value in 1..=3 {
                while !ring.push(value) {
                    thread::yield_now();
                }
            }
        })
    };
    let mut received = Vec::new();
    while received.len() < 3 {
        match ring.pop() {
            Some(value) => received.push(value),
            None => thread::yield_now(),
        }
    }
    producer.join().unwrap();
    assert_eq!(received, [1, 2, 3]);
}

fn main() {
    let report = samaritan::Builder::new().explore(producer_and_consumer).expect("valid settings");
    println!("{report}");
    let Some(token) = report.token() else {
        println!("no bug found");
        std::process::exit(1);
    };
    let again = samaritan::Builder::new().replay(token, producer_and_consumer).expect("a token we just made");
    println!("replaying {token}: {}", again.outcome);
}
