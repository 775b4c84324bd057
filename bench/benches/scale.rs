//! How each strategy's cost grows with the length of an execution: the
//! time of one execution of 1,000, 10,000 and 100,000 steps, per step, and
//! its ratio to DFS (which does the least per step). Run with
//! `cargo bench -p samaritan-bench --features sim --bench scale`; see
//! `BENCHMARKS.md`, section "Scale".
//!
//! Models (two threads each; every step a scheduling point where both may
//! run, so every strategy is consulted at every step):
//! - `mixed`: a `fetch_add` on a shared counter, a load of a shared flag,
//!   a store to the thread's own atomic and a lock/unlock of a shared
//!   mutex, round and round;
//! - `loads`: loads of one shared atomic only (loads commute: the case
//!   where a reduction must not look back over every earlier load).
//!
//! `BENCH_SCALE_STEPS` (default `1000,10000,100000`) and
//! `BENCH_SCALE_STRATEGIES` (default every one) narrow the table.
//! Without `--bench` (as `cargo test --all-targets` starts it) it runs
//! 1,000 steps only, as a check that every cell runs.

use std::hint::black_box;
use std::time::Instant;

use samaritan::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use samaritan::sync::{Arc, Mutex};
use samaritan::{thread, Builder, SearchStrategy};

/// Two threads of `steps / 2` steps each, of the four kinds in turn.
fn mixed(steps: usize) {
    let counter = Arc::new(AtomicUsize::new(0));
    let flag = Arc::new(AtomicUsize::new(0));
    let lock = Arc::new(Mutex::new(0usize));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let (counter, flag, lock) = (counter.clone(), flag.clone(), lock.clone());
            thread::spawn(move || {
                let own = AtomicUsize::new(0);
                let mut k = 0;
                while k < steps / 2 {
                    match k % 5 {
                        0 => {
                            counter.fetch_add(1, SeqCst);
                        }
                        1 => {
                            black_box(flag.load(SeqCst));
                        }
                        2 => own.store(k, SeqCst),
                        // Lock and unlock: two steps.
                        _ => {
                            *lock.lock().unwrap() += 1;
                            k += 1;
                        }
                    }
                    k += 1;
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

/// Two threads of `steps / 2` loads of one atomic each.
fn loads(steps: usize) {
    let a = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let a = a.clone();
            thread::spawn(move || {
                for _ in 0..steps / 2 {
                    black_box(a.load(SeqCst));
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

const STRATEGIES: [(&str, SearchStrategy); 8] = [
    ("dfs", SearchStrategy::Dfs),
    ("icb", SearchStrategy::Icb),
    ("dpor", SearchStrategy::Dpor),
    ("cb-por", SearchStrategy::CbPor),
    ("hapset", SearchStrategy::HapSet),
    ("pct", SearchStrategy::Pct),
    ("random", SearchStrategy::Random),
    ("portfolio", SearchStrategy::Portfolio),
];

/// Seconds of one execution of `model(steps)` under `strategy`, the
/// fastest of `runs`.
fn one_execution(strategy: SearchStrategy, model: fn(usize), steps: usize, runs: usize) -> f64 {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            let report = Builder::new()
                .strategy(strategy)
                .persist(false)
                .max_steps(steps as u64 * 2 + 1_000)
                .max_executions(1)
                .explore(move || model(steps))
                .expect("valid settings");
            let seconds = start.elapsed().as_secs_f64();
            assert!(!report.is_failure(), "{report}");
            seconds
        })
        .fold(f64::INFINITY, f64::min)
}

fn list<T: std::str::FromStr>(var: &str) -> Option<Vec<T>> {
    let value = std::env::var(var).ok()?;
    Some(value.split(',').filter_map(|s| s.trim().parse().ok()).collect())
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let sizes =
        list::<usize>("BENCH_SCALE_STEPS").unwrap_or(if full { vec![1_000, 10_000, 100_000] } else { vec![1_000] });
    let wanted = std::env::var("BENCH_SCALE_STRATEGIES").ok();
    let strategies: Vec<_> = STRATEGIES
        .iter()
        .filter(|(name, _)| wanted.as_deref().is_none_or(|w| w.split(',').any(|x| x.trim() == *name)))
        .collect();
    println!("ns per step of one execution (fastest of 3 runs; ratio to dfs in parentheses)\n");
    let mut header = "| model | steps |".to_string();
    for (name, _) in &strategies {
        header.push_str(&format!(" {name} |"));
    }
    println!("{header}");
    println!("|---|---:|{}", "---:|".repeat(strategies.len()));
    for (model_name, model) in [("mixed", mixed as fn(usize)), ("loads", loads as fn(usize))] {
        for &steps in &sizes {
            let mut line = format!("| {model_name} | {steps} |");
            let mut dfs = None;
            for (name, strategy) in &strategies {
                let runs = if steps >= 100_000 { 1 } else { 3 };
                let seconds = one_execution(*strategy, model, steps, runs);
                let ns = seconds * 1e9 / steps as f64;
                if *name == "dfs" {
                    dfs = Some(ns);
                }
                match dfs {
                    Some(d) if *name != "dfs" => line.push_str(&format!(" {ns:.0} ({:.2}) |", ns / d)),
                    _ => line.push_str(&format!(" {ns:.0} |")),
                }
            }
            println!("{line}");
        }
    }
}
