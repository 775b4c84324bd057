//! A lost update: two threads increment a counter with a separate load and
//! store. samaritan finds the schedule where one increment is lost, prints
//! its trace and replay token, then replays the token to show it is exact.
//!
//! Run with `cargo run --example lost_update --features sim`.

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::thread;

pub(crate) fn two_increments() {
    let counter = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let counter = counter.clone();
            thread::spawn(move || {
                // The bug: load then store is not one atomic step.
                let seen = counter.load(Ordering::SeqCst);
                counter.store(seen + 1, Ordering::SeqCst);
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(counter.load(Ordering::SeqCst), 2, "an increment was lost");
}

fn main() {
    let report = samaritan::Builder::new().explore(two_increments).expect("valid settings");
    println!("{report}");
    let Some(token) = report.token() else {
        println!("no bug found");
        std::process::exit(1);
    };
    let again = samaritan::Builder::new().replay(token, two_increments).expect("a token we just made");
    println!("replaying {token}: {}", again.outcome);
}
