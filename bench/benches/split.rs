//! Parallel and sharded exploration: one exhaustive search run by 1 and 2
//! workers (speed-up), and cut into 1, 2 and 4 shards (how evenly the
//! shards share the executions, and what each pays to find its prefixes).
//! Run with `cargo bench -p samaritan-bench --features sim --bench split`
//! on a quiet machine; see `BENCHMARKS.md`, section "Parallel and sharded
//! exploration".
//!
//! Without `--bench` (as `cargo test --all-targets` starts it) it makes one
//! quick pass over a small model.

use std::time::Instant;

use samaritan::{Builder, SearchStrategy, Shard};

#[allow(dead_code)] // The bench uses some of the models.
mod sam {
    use samaritan::{sync, thread};
    include!("compare/models.rs");
}

/// `threads` threads each take one lock `times` times.
fn locks(threads: usize, times: usize) {
    use samaritan::sync::{Arc, Mutex};
    let m = Arc::new(Mutex::new(0));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let m = m.clone();
            samaritan::thread::spawn(move || {
                for _ in 0..times {
                    *m.lock().unwrap() += 1;
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

fn builder(strategy: SearchStrategy) -> Builder {
    Builder::new().strategy(strategy).persist(false).progress(false).unlimited_time()
}

/// Seconds and executions of `b`'s search of `f` (which must pass).
fn run(b: &Builder, f: fn()) -> (f64, u64, u64) {
    let start = Instant::now();
    let report = b.explore(f).expect("valid settings");
    assert!(report.outcome.is_pass() && report.exhausted, "{report}");
    (start.elapsed().as_secs_f64(), report.executions, report.elsewhere)
}

/// A model: its name, the strategy and preemption bound that explore it.
type Model = (&'static str, SearchStrategy, u32, fn());

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let only = std::env::var("BENCH_SPLIT_ONLY").ok();
    let mut models: Vec<Model> = if full {
        vec![
            ("locks 3x3, dfs", SearchStrategy::Dfs, 0, || locks(3, 3)),
            ("locks 4x2, dfs", SearchStrategy::Dfs, 0, || locks(4, 2)),
            ("queue 2x1x2, icb bound 3", SearchStrategy::Icb, 3, || sam::bounded_queue(2, 1, 2)),
            ("queue 2x1x2, dpor", SearchStrategy::Dpor, 0, || sam::bounded_queue(2, 1, 2)),
            ("locks 5x2, dpor", SearchStrategy::Dpor, 0, || locks(5, 2)),
            ("locks 3x4, dpor", SearchStrategy::Dpor, 0, || locks(3, 4)),
            ("locks 5x2, cb-por bound 2", SearchStrategy::CbPor, 2, || locks(5, 2)),
            ("locks 6x2, cb-por bound 2", SearchStrategy::CbPor, 2, || locks(6, 2)),
            ("locks 6x2, portfolio bound 2", SearchStrategy::Portfolio, 2, || locks(6, 2)),
        ]
    } else {
        vec![("locks 2x2, dfs", SearchStrategy::Dfs, 0, || locks(2, 2))]
    };
    // `BENCH_SPLIT_ONLY=dpor` runs the rows whose name contains it.
    if let Some(only) = &only {
        models.retain(|m| m.0.contains(only.as_str()));
    }
    let pairs = if full { 3 } else { 1 };
    println!(
        "| model | executions (1 worker, 2 workers) | 1 worker (s) | 2 workers (s) | speed-up (median of {pairs}) |"
    );
    println!("|---|---:|---:|---:|---:|");
    for &(name, strategy, bound, f) in &models {
        let b = builder(strategy).preemption_bound(bound);
        let mut ratios = Vec::new();
        let (mut one, mut two, mut executions, mut two_executions) = (Vec::new(), Vec::new(), 0, 0);
        for _ in 0..pairs {
            let (t1, e1, _) = run(&b, f);
            let (t2, e2, _) = run(&b.clone().workers(2), f);
            // dfs and icb split exactly; dpor's parts explore more.
            if !matches!(strategy, SearchStrategy::Dpor | SearchStrategy::CbPor | SearchStrategy::Portfolio) {
                assert_eq!(e1, e2, "workers must count what one worker counts");
            }
            executions = e1;
            two_executions = e2;
            ratios.push(t1 / t2);
            one.push(t1);
            two.push(t2);
        }
        let (t1, t2, r) =
            (samaritan_bench::median(&one), samaritan_bench::median(&two), samaritan_bench::median(&ratios));
        println!("| {name} | {executions}, {two_executions} | {t1:.2} | {t2:.2} | {r:.2}x |");
    }
    println!();
    println!("| model | shards | executions per shard | largest / mean | prefixes run per shard (other shards') | slowest shard (s) |");
    println!("|---|---:|---|---:|---|---:|");
    for &(name, strategy, bound, f) in &models {
        let b = builder(strategy).preemption_bound(bound);
        for n in [1u32, 2, 4] {
            let runs: Vec<(f64, u64, u64)> =
                (1..=n).map(|i| run(&b.clone().shard(Shard::new(i, n).expect("a shard")), f)).collect();
            let counts: Vec<u64> = runs.iter().map(|r| r.1).collect();
            let mean = counts.iter().sum::<u64>() as f64 / f64::from(n);
            let largest = *counts.iter().max().expect("a shard") as f64;
            let elsewhere: Vec<String> = runs.iter().map(|r| r.2.to_string()).collect();
            let slowest = runs.iter().map(|r| r.0).fold(0.0, f64::max);
            let counts: Vec<String> = counts.iter().map(u64::to_string).collect();
            println!(
                "| {name} | {n} | {} | {:.2} | {} | {slowest:.2} |",
                counts.join(" + "),
                largest / mean,
                elsewhere.join(", ")
            );
        }
    }
}
