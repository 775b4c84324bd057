//! How each strategy's cost grows with the length of an execution: the
//! time of one execution of 1,000, 10,000 and 100,000 steps, per step, and
//! its ratio to DFS (which does the least per step); first the first
//! execution of a search (which also grows the strategy's tables), then
//! the next two (which reuse them: a search's usual execution). Run with
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

use std::time::Instant;

use samaritan::{Builder, SearchStrategy};

#[allow(dead_code)] // The other models are the compare bench's.
mod models {
    use samaritan::{sync, thread};
    include!("compare/models.rs");
}

/// Two threads of `steps / 2` steps each, of four kinds in turn.
fn mixed(steps: usize) {
    models::mixed(steps / 2);
}

/// Two threads of `steps / 2` loads of one atomic each.
fn loads(steps: usize) {
    models::two_thread_loads(steps / 2);
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

/// Seconds of the first `executions` executions of a search of
/// `model(steps)` under `strategy`, the fastest of `runs`.
fn executions(strategy: SearchStrategy, model: fn(usize), steps: usize, executions: u64, runs: usize) -> f64 {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            let report = Builder::new()
                .strategy(strategy)
                .persist(false)
                .progress(false)
                .max_steps(steps as u64 * 2 + 1_000)
                .max_executions(executions)
                .explore(move || model(steps))
                .expect("valid settings");
            let seconds = start.elapsed().as_secs_f64();
            assert!(report.outcome.is_pass(), "{report}");
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
    for (title, later) in [("the first execution of a search", false), ("the second and third executions", true)] {
        println!("\nns per step of {title} (fastest of 3 runs; ratio to dfs in parentheses)\n");
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
                    let seconds = match later {
                        false => executions(*strategy, model, steps, 1, runs),
                        true => {
                            (executions(*strategy, model, steps, 3, runs)
                                - executions(*strategy, model, steps, 1, runs))
                                / 2.0
                        }
                    };
                    let ns = seconds.max(0.0) * 1e9 / steps as f64;
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
}
