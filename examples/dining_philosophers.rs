//! Dining philosophers that back off: the fair stateless model checking
//! paper (Musuvathi and Qadeer, PLDI'08), Figure 1 and the text of its
//! section 1.
//!
//! Philosopher `i` takes its first fork with a blocking `lock`, then tries
//! its second fork with `try_lock`; when that fails it puts the first fork
//! down, yields and starts over. With two philosophers taking the forks in
//! opposite orders the program has a fair livelock: the cycle
//! `Phil1: lock(fork1), Phil2: lock(fork2), Phil1: try_lock(fork2) fails,
//! Phil2: try_lock(fork1) fails, Phil1: unlock(fork1), Phil2: unlock(fork2)`
//! can repeat forever while both philosophers get their turns (and both
//! yield on every round, so neither breaks the good samaritan property).
//! Taking the forks in one global order removes the livelock.
//!
//! What samaritan should report: for [`livelock`], a livelock (a fair
//! execution that never ends) under DFS with the fair scheduler; without
//! fairness DFS only hits the step bound. Every round of the livelock needs
//! a preemption, so a search with a preemption bound (ICB) cannot build it
//! and passes. [`ordered`] passes. [`philosophers`] with `n = 3`
//! is the paper's Table 2 configuration "Dining Philosophers, 3
//! philosophers".
//!
//! Run with `cargo run --example dining_philosophers --features sim`.

use samaritan::sync::{Arc, Mutex};
use samaritan::thread;

/// `n` philosophers around `n` forks, each eating once. Philosopher `i`
/// needs forks `i` and `(i + 1) % n`; with `ordered` it takes the
/// lower-numbered fork first, otherwise fork `i` first (so with `n = 2` the
/// two philosophers take the forks in opposite orders).
pub(crate) fn philosophers(n: usize, ordered: bool) {
    let forks: Arc<Vec<Mutex<()>>> = Arc::new((0..n).map(|_| Mutex::new(())).collect());
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let forks = forks.clone();
            thread::spawn(move || {
                let (left, right) = (i, (i + 1) % n);
                let (first, second) = if ordered { (left.min(right), left.max(right)) } else { (left, right) };
                loop {
                    let held = forks[first].lock().unwrap();
                    if let Ok(_second) = forks[second].try_lock() {
                        // Eat, then put both forks down (the guards drop).
                        break;
                    }
                    // The second fork is taken: put the first one down too,
                    // let the neighbour go on, and start over.
                    drop(held);
                    thread::yield_now();
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
}

/// Figure 1: two philosophers taking the forks in opposite orders. Has a
/// fair livelock.
pub(crate) fn livelock() {
    philosophers(2, false);
}

/// Two philosophers taking the forks in the same order: no livelock.
pub(crate) fn ordered() {
    philosophers(2, true);
}

// Examples build only with `sim` (Cargo.toml); `tests/papers.rs` also
// includes this file without it, for the models.
#[cfg(feature = "sim")]
fn main() {
    // Every round of the livelock needs a preemption: search without a
    // preemption bound.
    let dfs = samaritan::Builder::new().strategy(samaritan::SearchStrategy::Dfs).max_steps(2000);
    let report = dfs.explore(livelock).expect("valid settings");
    println!("opposite orders (Figure 1):\n{report}");
    let report = samaritan::Builder::new().explore(ordered).expect("valid settings");
    println!("same order:\n{report}");
}
