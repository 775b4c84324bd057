//! What abandoning the threads of an execution cut short costs in memory:
//! explorations of a program that deadlocks, each thread owning a
//! kilobyte, run again and again; the resident set size is read from
//! `/proc/self/statm` as the count of executions that ended early grows.
//! Run with `cargo bench -p samaritan-bench --features sim --bench
//! teardown` (`BENCH_TEARDOWN_EXECUTIONS`, default 1,000,000); see
//! `BENCHMARKS.md`, section "Teardown". Without `--bench` (as `cargo test
//! --all-targets` starts it) it runs 1,000.

use std::time::Instant;

use samaritan::sync::{Arc, Mutex};
use samaritan::{thread, Builder, Outcome, SearchStrategy};

/// Two threads take two locks in opposite orders, each owning a
/// kilobyte on the heap while it waits: the second execution deadlocks.
fn deadlock() {
    let a = Arc::new(Mutex::new(vec![0u8; 1024]));
    let b = Arc::new(Mutex::new(vec![0u8; 1024]));
    let (a2, b2) = (a.clone(), b.clone());
    let t = thread::spawn(move || {
        let _owned = vec![1u8; 1024];
        let _b = b2.lock().unwrap();
        let _a = a2.lock().unwrap();
    });
    let _owned = vec![2u8; 1024];
    let _a = a.lock().unwrap();
    let _b = b.lock().unwrap();
    drop((_a, _b));
    t.join().unwrap();
}

/// The resident set size of this process, in bytes (0 where `/proc` is
/// not there).
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
    pages * 4096
}

fn main() {
    let benching = std::env::args().any(|a| a == "--bench");
    let target: u64 = match std::env::var("BENCH_TEARDOWN_EXECUTIONS") {
        Ok(v) => v.parse().expect("BENCH_TEARDOWN_EXECUTIONS is a count"),
        Err(_) if benching => 1_000_000,
        Err(_) => 1_000,
    };
    let builder = Builder::new().strategy(SearchStrategy::Dfs).minimize(false).persist(false).progress(false);
    // Executions that ended early: the search's deadlock and the replay of
    // it that records the trace, per exploration.
    let mut cut = 0u64;
    let mut explorations = 0u64;
    let start = Instant::now();
    let first = rss();
    let mut next = 1u64;
    println!("{:>14} {:>14} {:>12} {:>18}", "cut short", "explorations", "rss MB", "bytes per cut");
    while cut < target {
        let report = builder.explore(deadlock).expect("valid settings");
        assert!(matches!(report.outcome, Outcome::Deadlock(_)), "{report}");
        cut += 2;
        explorations += 1;
        if cut >= next || cut >= target {
            let now = rss();
            let per = now.saturating_sub(first) as f64 / cut as f64;
            println!("{cut:>14} {explorations:>14} {:>12.1} {per:>18.1}", now as f64 / 1e6);
            next *= 10;
        }
    }
    println!("{cut} executions cut short in {:.1} s", start.elapsed().as_secs_f64());
}
