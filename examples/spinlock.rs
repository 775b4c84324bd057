//! A correct spinlock: a compare-exchange on an `AtomicBool`, retried with
//! a yield between attempts, guarding a counter that three threads
//! increment with a separate load and store (so a mutual exclusion bug
//! would lose an increment).
//!
//! Its spin loop makes the state space cyclic, as in the fair stateless
//! model checking paper (Musuvathi and Qadeer, PLDI'08): a thread that
//! keeps failing to take the lock while the holder is starved is an unfair
//! execution. The loop yields on every failed attempt, so the fair
//! scheduler prunes those executions.
//!
//! What samaritan should report: a pass with the fair scheduler on (the
//! default): 19843 executions under ICB with 2 preemptions; fair DFS
//! without a bound has far more schedules. Without fairness DFS reaches the
//! step bound.
//!
//! Run with `cargo run --example spinlock --features sim`.

use samaritan::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::thread;

/// A test-and-set spinlock.
struct SpinLock {
    locked: AtomicBool,
}

impl SpinLock {
    fn lock(&self) {
        while self.locked.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
            thread::yield_now();
        }
    }

    fn unlock(&self) {
        self.locked.store(false, Ordering::Release);
    }
}

pub(crate) fn three_threads() {
    let lock = Arc::new(SpinLock { locked: AtomicBool::new(false) });
    let counter = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let (lock, counter) = (lock.clone(), counter.clone());
            thread::spawn(move || {
                lock.lock();
                let seen = counter.load(Ordering::Relaxed);
                counter.store(seen + 1, Ordering::Relaxed);
                lock.unlock();
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(counter.load(Ordering::SeqCst), 3, "an increment was lost");
}

// Examples build only with `sim` (Cargo.toml); `tests/papers.rs` also
// includes this file without it, for the models.
#[cfg(feature = "sim")]
fn main() {
    let report = samaritan::Builder::new().max_steps(2000).explore(three_threads).expect("valid settings");
    println!("{report}");
}
