//! Executions to exhaust small models: samaritan's DPOR and DFS, loom
//! (its own DPOR) and shuttle (DFS), side by side in one run, with the
//! number of Mazurkiewicz traces where it is known; then the same models
//! under a preemption bound of 1 to 3: loom's bounded DPOR against
//! samaritan's `bpor` (with the bound counted as loom counts it, and as
//! `icb` does), `cb-por` and `icb`. Run with
//! `cargo bench -p samaritan-bench --features sim --bench reduction`; see
//! `BENCHMARKS.md`, sections "Reduction" and "Bounded partial-order
//! reduction".
//!
//! Searches are capped (executions, and loom and shuttle also by the cap
//! standing in for time): a capped cell prints `> N` and counts as not
//! exhausted. Without `--bench` (as `cargo test --all-targets --features
//! sim` starts it) the caps are tiny: a quick check that every model runs
//! under every tool.
//!
//! Environment: `BENCH_SHUTTLE_CAP` (default 30000000), `BENCH_LOOM_CAP`
//! (default 1000000). loom 0.7 runs at most 5 threads, main included, so
//! it has no 5-thread `fetch_add` cell.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

#[allow(dead_code)] // The per-point models are the compare bench's.
mod sam {
    use samaritan::{sync, thread};
    include!("../compare/models.rs");
}

#[allow(dead_code)] // As above.
mod shut {
    use shuttle::{sync, thread};
    include!("../compare/models.rs");
}

#[allow(dead_code)] // As above.
mod lm {
    use loom::{sync, thread};
    include!("../compare/models.rs");
}

/// One tool's result on one model: executions, whether the search was
/// exhausted, and seconds.
struct Count {
    executions: u64,
    exhausted: bool,
    seconds: f64,
}

impl Count {
    fn cell(&self) -> String {
        let n = self.executions;
        if self.exhausted {
            format!("{n} ({:.2} s)", self.seconds)
        } else {
            format!("> {n} (stopped, {:.1} s)", self.seconds)
        }
    }
}

fn samaritan_run(strategy: samaritan::SearchStrategy, cap: u64, f: impl Fn() + Send + Sync + 'static) -> Count {
    samaritan_bounded(samaritan::Builder::new().strategy(strategy), cap, f)
}

/// Explores `f` under `builder` (its strategy and bound) without fairness
/// or persistence, stopping at `cap` executions.
fn samaritan_bounded(builder: samaritan::Builder, cap: u64, f: impl Fn() + Send + Sync + 'static) -> Count {
    let start = Instant::now();
    let report = builder.fairness(false).persist(false).max_executions(cap).explore(f).expect("valid settings");
    assert!(report.outcome.is_pass(), "samaritan failed a model:\n{report}");
    Count { executions: report.executions, exhausted: report.exhausted, seconds: start.elapsed().as_secs_f64() }
}

fn shuttle_run(cap: u64, f: impl Fn() + Send + Sync + 'static) -> Count {
    use shuttle::scheduler::DfsScheduler;
    use shuttle::{Config, MaxSteps, Runner};
    let mut config = Config::new();
    config.max_steps = MaxSteps::None;
    config.silence_warnings = true;
    let start = Instant::now();
    // Asked for `cap + 1`, a search that stops at `cap + 1` was cut.
    let executions = Runner::new(DfsScheduler::new(Some(cap as usize + 1), false), config).run(f) as u64;
    let exhausted = executions <= cap;
    Count { executions: executions.min(cap), exhausted, seconds: start.elapsed().as_secs_f64() }
}

fn loom_run(cap: u64, bound: Option<usize>, f: impl Fn() + Send + Sync + 'static) -> Count {
    static EXECUTIONS: AtomicU64 = AtomicU64::new(0);
    EXECUTIONS.store(0, Ordering::Relaxed);
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = bound;
    // loom checks `max_permutations` against the next execution's number,
    // every `checkpoint_interval` executions.
    builder.max_permutations = Some(cap as usize + 1);
    builder.checkpoint_interval = 1000.min(cap as usize + 1);
    builder.max_branches = 100_000;
    let start = Instant::now();
    builder.check(move || {
        EXECUTIONS.fetch_add(1, Ordering::Relaxed);
        f();
    });
    let executions = EXECUTIONS.load(Ordering::Relaxed);
    Count { executions: executions.min(cap), exhausted: executions <= cap, seconds: start.elapsed().as_secs_f64() }
}

fn env_number(var: &str, default: u64) -> u64 {
    std::env::var(var).ok().and_then(|v| v.trim().parse().ok()).unwrap_or(default)
}

fn main() {
    use samaritan::SearchStrategy::{Dfs, Dpor};
    let full = std::env::args().any(|a| a == "--bench");
    let (sam_cap, shuttle_cap, loom_cap) = if full {
        (10_000_000, env_number("BENCH_SHUTTLE_CAP", 30_000_000), env_number("BENCH_LOOM_CAP", 1_000_000))
    } else {
        (2_000, 2_000, 2_000)
    };
    type Model = (String, Option<u64>, fn(), fn(), fn());
    let bounded: Vec<BoundedModel> = vec![
        ("fetch_add, 3 threads".into(), || sam::fetch_add(3), || lm::fetch_add(3)),
        ("fetch_add, 4 threads".into(), || sam::fetch_add(4), || lm::fetch_add(4)),
        ("mutex counter, 3 threads x 2 locks".into(), sam::mutex_3x2, lm::mutex_3x2),
        ("producer/consumer (condvar)".into(), sam::condvar, lm::condvar),
    ];
    let mut models: Vec<Model> = vec![
        ("fetch_add, 2 threads".into(), Some(2), || sam::fetch_add(2), || shut::fetch_add(2), || lm::fetch_add(2)),
        ("fetch_add, 3 threads".into(), Some(6), || sam::fetch_add(3), || shut::fetch_add(3), || lm::fetch_add(3)),
        ("fetch_add, 4 threads".into(), Some(24), || sam::fetch_add(4), || shut::fetch_add(4), || lm::fetch_add(4)),
        ("fetch_add, 5 threads".into(), Some(120), || sam::fetch_add(5), || shut::fetch_add(5), || lm::fetch_add(5)),
        ("mutex counter, 3 threads x 2 locks".into(), Some(90), sam::mutex_3x2, shut::mutex_3x2, lm::mutex_3x2),
        ("producer/consumer (condvar)".into(), None, sam::condvar, shut::condvar, lm::condvar),
    ];
    if !full {
        models.truncate(2);
    }
    println!("Executions to exhaust each model (seconds in parentheses); traces = Mazurkiewicz traces");
    println!();
    println!("| model | traces | samaritan dpor | dpor / traces | samaritan dfs | loom | shuttle dfs |");
    println!("|---|---|---|---|---|---|---|");
    for (name, traces, sam_f, shut_f, loom_f) in models {
        // shuttle first: run right after loom on the same model, its DFS
        // failed with "Tried to get ExecutionState ... NotSet" (shuttle
        // 0.9, loom 0.7 in one process; not investigated further).
        let shuttle = shuttle_run(shuttle_cap, shut_f);
        let dpor = samaritan_run(Dpor, sam_cap, sam_f);
        let dfs = samaritan_run(Dfs, sam_cap, sam_f);
        // loom's thread table holds 5 threads (`loom::MAX_THREADS`).
        let loom = if name.starts_with("fetch_add, 5") { None } else { Some(loom_run(loom_cap, None, loom_f)) };
        let ratio = traces.map_or("-".to_string(), |t| format!("{:.2}", dpor.executions as f64 / t as f64));
        let traces = traces.map_or("-".to_string(), |t| t.to_string());
        println!(
            "| {name} | {traces} | {} | {ratio} | {} | {} | {} |",
            dpor.cell(),
            dfs.cell(),
            loom.map_or("n/a (more than 5 threads)".to_string(), |l| l.cell()),
            shuttle.cell()
        );
    }
    bounded_table(&bounded, if full { 3 } else { 1 }, sam_cap, loom_cap);
}

/// A model for the bounded table: its name, samaritan's and loom's runs.
type BoundedModel = (String, fn(), fn());

/// Executions to exhaust each model at preemption bounds 1 to `max`:
/// loom's bounded DPOR, `bpor` counting the bound as loom does, `bpor`
/// counting it as `icb` does, `cb-por` and `icb`.
fn bounded_table(models: &[BoundedModel], max: u32, sam_cap: u64, loom_cap: u64) {
    use samaritan::{Builder, SearchStrategy};
    println!();
    println!("Executions to exhaust each model under a preemption bound (seconds in parentheses)");
    println!();
    println!("| model | bound | loom | samaritan bpor, loom's count | bpor | cb-por | icb |");
    println!("|---|---|---|---|---|---|---|");
    for (name, sam_f, loom_f) in models {
        for bound in 1..=max {
            let loom = loom_run(loom_cap, Some(bound as usize), *loom_f);
            let at = |strategy| Builder::new().strategy(strategy).preemption_bound(bound);
            let loom_count = samaritan_bounded(at(SearchStrategy::Bpor).loom_bound(true), sam_cap, *sam_f);
            let bpor = samaritan_bounded(at(SearchStrategy::Bpor), sam_cap, *sam_f);
            let cb_por = samaritan_bounded(at(SearchStrategy::CbPor), sam_cap, *sam_f);
            let icb = samaritan_bounded(at(SearchStrategy::Icb), sam_cap, *sam_f);
            println!(
                "| {name} | {bound} | {} | {} | {} | {} | {} |",
                loom.cell(),
                loom_count.cell(),
                bpor.cell(),
                cb_por.cell(),
                icb.cell()
            );
        }
    }
}
