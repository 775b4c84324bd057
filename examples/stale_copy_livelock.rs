//! A spin loop on a stale local copy: the fair stateless model checking
//! paper (Musuvathi and Qadeer, PLDI'08), Figure 8 and section 4.3.2 (the
//! livelock CHESS found in an implementation of promises).
//!
//! The waiter reads the shared `x` once into a local. In the common case
//! `x` is already 1 and it goes on; in the uncommon order, where the setter
//! has not run yet, it sleeps until the local copy becomes 1, which never
//! happens: the loop forgets to read `x` again. The waiter yields (sleeps)
//! on every round, so this is not a good samaritan violation but a
//! livelock: a fair execution that never ends.
//!
//! What samaritan should report: for [`stale_copy`], a livelock whose cycle
//! is the waiter's sleep, with no preemption needed; [`fresh_copy`], which
//! reads `x` on every round, passes in 14 executions. Both need the fair
//! scheduler (the default): without it DFS reaches the step bound on both
//! (the fixed loop also spins forever when the setter is starved, which
//! is unfair).
//!
//! Run with `cargo run --example stale_copy_livelock --features sim`.

use std::time::Duration;

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::thread;

/// A setter stores 1 into `x` while a waiter waits for it, re-reading `x`
/// on every round when `reread`, else only once (the bug).
fn wait_for_flag(reread: bool) {
    let x = Arc::new(AtomicUsize::new(0));
    let setter = {
        let x = x.clone();
        thread::spawn(move || x.store(1, Ordering::SeqCst))
    };
    let waiter = thread::spawn(move || {
        let mut x_temp = x.load(Ordering::SeqCst);
        if x_temp == 1 {
            // The common case: the flag is already set.
            return;
        }
        // The uncommon case: spin until it is set.
        while x_temp != 1 {
            thread::sleep(Duration::from_millis(1));
            if reread {
                x_temp = x.load(Ordering::SeqCst);
            }
        }
    });
    setter.join().unwrap();
    waiter.join().unwrap();
}

/// Figure 8: the loop waits on a copy it never refreshes. Has a livelock
/// (and never ends on a real machine either when the waiter runs first).
pub(crate) fn stale_copy() {
    wait_for_flag(false);
}

/// The fix: read `x` again on every round.
pub(crate) fn fresh_copy() {
    wait_for_flag(true);
}

// Examples build only with `sim` (Cargo.toml); `tests/papers.rs` also
// includes this file without it, for the models.
#[cfg(feature = "sim")]
fn main() {
    let bounded = samaritan::Builder::new().max_steps(2000);
    let report = bounded.explore(stale_copy).expect("valid settings");
    println!("stale copy (Figure 8):\n{report}");
    let report = bounded.explore(fresh_copy).expect("valid settings");
    println!("fresh copy:\n{report}");
}
