//! The POR-for-context-bounded-search paper's Table 1 (section 4): terminal
//! executions of the work-stealing queue per preemption bound, explored by
//! plain preemption-bounded search (`cb-dfs`, samaritan's ICB, which runs
//! every execution with at most `c` preemptions once) and by partial-order
//! reduction under the bound (`cb-por`, Algorithm 2), next to the paper's
//! numbers. Run with
//! `cargo bench -p samaritan-bench --features sim --bench table1`; see
//! `BENCHMARKS.md`, section "POR paper, Table 1".
//!
//! Without `--bench` (as `cargo test --all-targets --features sim` starts
//! it) the binary makes a quick pass over the smallest driver at bounds 0-2.
//!
//! Our driver is the queue of `examples/work_stealing.rs`: the victim pushes
//! `size` items and pops `size` times while the thief steals twice. The
//! paper's driver and step granularity differ, so the shape (equal counts at
//! small bounds, a growing share of redundant `cb-dfs` executions above) is
//! what compares, not the numbers.

#[path = "../../examples/work_stealing.rs"]
#[allow(dead_code)] // Its `main` and the other drivers.
mod work_stealing;

use std::time::Instant;

use samaritan::{Builder, Outcome, SearchStrategy};

/// The paper's Table 1: per size (3, 4, 5), `(cb-dfs, cb-por)` by bound 0-4.
const PAPER: [[(u64, u64); 5]; 3] = [
    [(2, 2), (46, 46), (756, 713), (8918, 7838), (66374, 48828)],
    [(2, 2), (54, 54), (898, 853), (12711, 8458), (95935, 52572)],
    [(2, 2), (67, 67), (1197, 1136), (19460, 14563), (161637, 95068)],
];

/// Explores one driver with one strategy; returns terminal executions
/// (those not cut short as redundant), the executions cut short, and
/// seconds.
fn terminal(strategy: SearchStrategy, bound: u32, size: usize) -> (u64, u64, f64) {
    let start = Instant::now();
    let report = Builder::new()
        .strategy(strategy)
        .preemption_bound(bound)
        .fairness(false)
        .persist(false)
        .explore(move || assert!(work_stealing::run_sized(false, size, 2), "an item was lost or taken twice"))
        .expect("valid settings");
    assert_eq!((&report.outcome, report.exhausted), (&Outcome::Pass, true), "{report}");
    (report.executions - report.pruned, report.pruned, start.elapsed().as_secs_f64())
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (sizes, bounds): (&[usize], u32) = if full { (&[2, 3, 4], 4) } else { (&[2], 2) };
    println!("POR paper, Table 1: terminal executions of the work-stealing queue by preemption bound");
    println!();
    println!("| driver | bound | cb-dfs | cb-por | cb-por / cb-dfs | time cb-dfs | time cb-por | paper (size {{3,4,5}}) cb-dfs / cb-por |");
    println!("|---|---|---|---|---|---|---|---|");
    for &size in sizes {
        for bound in 0..=bounds {
            let (dfs, _, dfs_s) = terminal(SearchStrategy::Icb, bound, size);
            let (por, cut_short, por_s) = terminal(SearchStrategy::CbPor, bound, size);
            let paper = PAPER
                .iter()
                .map(|row| format!("{} / {}", row[bound as usize].0, row[bound as usize].1))
                .collect::<Vec<_>>()
                .join(", ");
            println!(
                "| {size} items, 2 steals | {bound} | {dfs} | {por} (+{cut_short} cut short) | {:.2} | {dfs_s:.2} s | {por_s:.2} s | {paper} |",
                por as f64 / dfs as f64
            );
        }
    }
}
