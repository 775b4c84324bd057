//! A spin loop that yields: the fair stateless model checking paper
//! (Musuvathi and Qadeer, PLDI'08), Figure 3.
//!
//! Thread `t` sets `x` to 1; thread `u` spins until it sees it, yielding on
//! every round. The program is correct and fair-terminating: its only
//! infinite execution runs `u` forever and starves `t`, which is unfair.
//! A scheduler without fairness unrolls that cycle until its step bound; the
//! fair scheduler (the paper's Algorithm 1) lowers `u` below `t` once `u`
//! yields, so every execution ends.
//!
//! What samaritan should report: a pass, every schedule explored in 14
//! executions (DFS or ICB, with the fair scheduler on, as by default).
//! Without fairness DFS reaches the step bound on the unfair execution.
//!
//! Run with `cargo run --example spin_loop --features sim`.

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::thread;

pub(crate) fn spin_loop() {
    let x = Arc::new(AtomicUsize::new(0));
    let t = {
        let x = x.clone();
        thread::spawn(move || x.store(1, Ordering::SeqCst))
    };
    let u = thread::spawn(move || {
        while x.load(Ordering::SeqCst) != 1 {
            thread::yield_now();
        }
    });
    t.join().unwrap();
    u.join().unwrap();
}

// Examples build only with `sim` (Cargo.toml); `tests/papers.rs` also
// includes this file without it, for the models.
#[cfg(feature = "sim")]
fn main() {
    let report = samaritan::Builder::new().max_steps(2000).explore(spin_loop).expect("valid settings");
    println!("with the fair scheduler:\n{report}\n");
    let unfair = samaritan::Builder::new().fairness(false).max_steps(2000).explore(spin_loop).expect("valid settings");
    println!("without it: {}", unfair.outcome);
}
