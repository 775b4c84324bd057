//! The Cilk THE work-stealing queue (Frigo, Leiserson and Randall, PLDI'98),
//! the "work-stealing queue" benchmark of the iterative context bounding
//! paper (Musuvathi and Qadeer, PLDI'07) and of the fair stateless model
//! checking paper's Table 2.
//!
//! The queue is a bounded circular buffer with a head `H` and a tail `T`.
//! The victim pushes and pops at the tail without a lock; the thief steals
//! at the head under a lock. Both sides first claim an item (the victim
//! decrements `T`, the thief increments `H`) and then check whether they
//! collided (`H > T`); on a collision the victim backs out and retries
//! under the lock, and the thief backs out and fails.
//!
//! [`correct`] is that protocol: the victim pushes two items and pops twice
//! while the thief steals once, and every item is taken exactly once.
//! [`buggy`] moves the thief's check before its claim: it reads `T` before
//! incrementing `H`. The victim can then take the last item between the
//! thief's check and its claim, and both take it. The failure needs exactly
//! two preemptions (the thief must be slipped in once the victim has pushed
//! an item, and the victim slipped in again between the thief's check and
//! its claim): iterative context bounding finds it at bound 2.
//!
//! What samaritan should report: [`correct`] passes (DFS exhausts it, as it
//! has no spin loop); [`buggy`] fails with "an item was lost or taken
//! twice" (item 1 is taken by both) and a trace with two preemptions; ICB
//! passes it at bound 1.
//!
//! Run with `cargo run --example work_stealing --features sim`.

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::{Arc, Mutex};
use samaritan::thread;

/// Slots in the circular buffer (the drivers hold at most this many items).
const CAPACITY: usize = 8;

/// A THE work-stealing queue of item numbers.
struct Deque {
    /// Index of the oldest item (the thief's end).
    head: AtomicUsize,
    /// Index one past the newest item (the victim's end).
    tail: AtomicUsize,
    /// The circular buffer.
    items: [AtomicUsize; CAPACITY],
    /// Serializes thieves, and the victim when it collides with one.
    lock: Mutex<()>,
    /// Whether `steal` has the bug: check before claiming.
    bug: bool,
}

impl Deque {
    fn new(bug: bool) -> Deque {
        Deque {
            head: AtomicUsize::new(0),
            tail: AtomicUsize::new(0),
            items: std::array::from_fn(|_| AtomicUsize::new(0)),
            lock: Mutex::new(()),
            bug,
        }
    }

    /// Victim: adds `item` at the tail. The driver never holds more than
    /// `CAPACITY` items, so there is no overflow check.
    fn push(&self, item: usize) {
        let t = self.tail.load(Ordering::SeqCst);
        self.items[t % CAPACITY].store(item, Ordering::SeqCst);
        self.tail.store(t + 1, Ordering::SeqCst);
    }

    /// Victim: takes the newest item.
    fn pop(&self) -> Option<usize> {
        // Claim the item at the tail, then check for a thief.
        let t = self.tail.load(Ordering::SeqCst);
        if t == 0 {
            return None;
        }
        let t = t - 1;
        self.tail.store(t, Ordering::SeqCst);
        if self.head.load(Ordering::SeqCst) > t {
            // A collision (or an empty queue): back out and retry under the
            // lock, where no thief can move the head.
            self.tail.store(t + 1, Ordering::SeqCst);
            let _guard = self.lock.lock().unwrap();
            self.tail.store(t, Ordering::SeqCst);
            if self.head.load(Ordering::SeqCst) > t {
                self.tail.store(t + 1, Ordering::SeqCst);
                return None;
            }
        }
        Some(self.items[t % CAPACITY].load(Ordering::SeqCst))
    }

    /// Thief: takes the oldest item.
    fn steal(&self) -> Option<usize> {
        let _guard = self.lock.lock().unwrap();
        let h = self.head.load(Ordering::SeqCst);
        if self.bug {
            // The bug: check against the tail before claiming the head, so
            // the victim does not see the claim when it checks.
            if h + 1 > self.tail.load(Ordering::SeqCst) {
                return None;
            }
            self.head.store(h + 1, Ordering::SeqCst);
        } else {
            // Claim the item at the head, then check for the victim.
            self.head.store(h + 1, Ordering::SeqCst);
            if h + 1 > self.tail.load(Ordering::SeqCst) {
                self.head.store(h, Ordering::SeqCst);
                return None;
            }
        }
        Some(self.items[h % CAPACITY].load(Ordering::SeqCst))
    }
}

/// The test driver: the victim pushes items 1 and 2 and pops twice, the
/// thief steals once. Returns whether every item was taken exactly once.
pub(crate) fn run(bug: bool) -> bool {
    run_sized(bug, 2, 1)
}

/// A driver of any size (the POR paper's Table 1 varies it): the victim
/// pushes items `1..=items` and pops `items` times, while the thief steals
/// `steals` times. Returns whether every item was taken exactly once.
#[cfg_attr(not(feature = "sim"), allow(dead_code))]
pub(crate) fn run_sized(bug: bool, items: usize, steals: usize) -> bool {
    let deque = Arc::new(Deque::new(bug));
    let victim = {
        let deque = deque.clone();
        thread::spawn(move || {
            (1..=items).for_each(|item| deque.push(item));
            (0..items).map(|_| deque.pop()).collect::<Vec<_>>()
        })
    };
    let thief = thread::spawn(move || (0..steals).map(|_| deque.steal()).collect::<Vec<_>>());
    let mut taken: Vec<usize> = victim.join().unwrap().into_iter().flatten().collect();
    taken.extend(thief.join().unwrap().into_iter().flatten());
    taken.sort_unstable();
    taken == (1..=items).collect::<Vec<_>>()
}

/// The THE protocol: passes.
pub(crate) fn correct() {
    assert!(run(false), "an item was lost or taken twice");
}

/// The thief checks before it claims: an item is taken twice.
pub(crate) fn buggy() {
    assert!(run(true), "an item was lost or taken twice");
}

// Examples build only with `sim` (Cargo.toml); `tests/papers.rs` also
// includes this file without it, for the models.
#[cfg(feature = "sim")]
fn main() {
    let report = samaritan::Builder::new().explore(correct).expect("valid settings");
    println!("THE protocol:\n{report}");
    let report = samaritan::Builder::new().explore(buggy).expect("valid settings");
    println!("check before claim:\n{report}");
    if let Some(failure) = &report.failure {
        println!("preemptions in the failing trace: {}", failure.trace.preemptions());
    }
}
