//! Runs the same models under samaritan, shuttle and loom and prints a table
//! of their speeds with ratios. Run with
//! `cargo bench -p samaritan-bench --features sim`; see `BENCHMARKS.md`.
//!
//! Environment: `BENCH_REPS` (repetitions per measurement, default 5),
//! `BENCH_FULL=1` (run the capped searches to exhaustion),
//! `BENCH_MEMORY_EXECUTIONS` (executions of the memory run, default
//! 1000000), `BENCH_MEMORY_SECONDS` (its time cap, default 30),
//! `BENCH_FAIRNESS=0` (samaritan without its fair scheduler; on by default).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use samaritan_bench::{median, render, rss_bytes, time, Cell, Row, Unit};

#[allow(dead_code)] // The bounded queue is the search bench's.
mod sam {
    use samaritan::{sync, thread};
    include!("models.rs");
}

#[allow(dead_code)] // As above.
mod shut {
    use shuttle::{sync, thread};
    include!("models.rs");
}

// `two_thread_loads` has no loom measurement (see the note printed with the table).
#[allow(dead_code)]
mod lm {
    use loom::{sync, thread};
    include!("models.rs");
}

/// The sizes of a run: a full measurement under `cargo bench`, or a quick
/// pass that only checks every model runs under every tool when the binary
/// is started without `--bench` (as `cargo test --all-targets` does).
#[derive(Debug)]
struct Plan {
    /// Whether this is the full measurement.
    full_run: bool,
    /// Repetitions per measurement (the median is printed).
    reps: usize,
    /// Scheduling points per thread in the per-point measurements.
    points: usize,
    /// The same for loom, whose points cost much more.
    loom_points: usize,
    /// How long one exec/s sample runs for at least: tiny models are
    /// searched to exhaustion again and again until it has passed.
    sample: Duration,
    /// Executions after which shuttle's DFS of the mutex model is stopped
    /// (`None` with `BENCH_FULL=1`).
    shuttle_cap: Option<u64>,
    /// The same for loom.
    loom_cap: Option<u64>,
    /// Executions of the random-search rows.
    random_executions: u64,
    /// Executions of the memory run.
    memory_executions: u64,
    /// Time cap of the memory run, in seconds.
    memory_seconds: u64,
    /// Whether samaritan runs with its fair scheduler (`BENCH_FAIRNESS`).
    fairness: bool,
}

fn plan() -> &'static Plan {
    static PLAN: OnceLock<Plan> = OnceLock::new();
    PLAN.get_or_init(|| {
        let exhaust = std::env::var("BENCH_FULL").is_ok_and(|v| v == "1");
        let fairness = env_number("BENCH_FAIRNESS", 1) != 0;
        if std::env::args().any(|a| a == "--bench") {
            Plan {
                full_run: true,
                reps: env_number("BENCH_REPS", 5) as usize,
                points: 1_000_000,
                loom_points: 100_000,
                sample: Duration::from_millis(200),
                shuttle_cap: (!exhaust).then_some(100_000),
                loom_cap: (!exhaust).then_some(10_000),
                random_executions: 100_000,
                memory_executions: env_number("BENCH_MEMORY_EXECUTIONS", 1_000_000),
                memory_seconds: env_number("BENCH_MEMORY_SECONDS", 30),
                fairness,
            }
        } else {
            Plan {
                full_run: false,
                reps: 1,
                points: 1_000,
                loom_points: 1_000,
                sample: Duration::ZERO,
                shuttle_cap: Some(1_000),
                loom_cap: Some(1_000),
                random_executions: 1_000,
                memory_executions: 10_000,
                memory_seconds: 30,
                fairness,
            }
        }
    })
}

fn env_number(var: &str, default: u64) -> u64 {
    std::env::var(var).ok().and_then(|v| v.trim().parse().ok()).unwrap_or(default)
}

/// How a tool runs a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Search {
    /// One execution (a one-thread model has no choices).
    Once,
    /// One execution that switches threads at every scheduling point.
    RoundRobin,
    /// The tool's exhaustive depth-first search, stopped after `cap`
    /// executions if given.
    Dfs { cap: Option<u64> },
    /// Seeded random search for this many executions.
    Random(u64),
}

const EXHAUSTIVE: Search = Search::Dfs { cap: None };

/// Runs `f` under samaritan; returns the number of executions. Every
/// search pins its strategy (the default is ICB) and the fairness setting.
fn run_samaritan(search: Search, f: impl Fn() + Send + Sync + 'static) -> u64 {
    use samaritan::{Builder, SearchStrategy};
    let builder = Builder::new().max_steps(u64::MAX).fairness(plan().fairness);
    let builder = match search {
        Search::Once => builder.strategy(SearchStrategy::Dfs).max_executions(1),
        Search::RoundRobin => builder.strategy(SearchStrategy::RoundRobin),
        Search::Dfs { cap: None } => builder.strategy(SearchStrategy::Dfs),
        Search::Dfs { cap: Some(cap) } => builder.strategy(SearchStrategy::Dfs).max_executions(cap),
        Search::Random(n) => builder.strategy(SearchStrategy::Random).max_executions(n),
    };
    let report = builder.explore(f).expect("samaritan: bad configuration");
    assert!(report.outcome.is_pass(), "samaritan failed a model:\n{report}");
    if search == EXHAUSTIVE {
        assert!(report.exhausted, "samaritan did not exhaust a model: {report}");
    }
    report.executions
}

/// Runs `f` under shuttle; returns the number of executions.
fn run_shuttle(search: Search, f: impl Fn() + Send + Sync + 'static) -> u64 {
    use shuttle::scheduler::{DfsScheduler, RandomScheduler, RoundRobinScheduler};
    use shuttle::{Config, MaxSteps, Runner};
    let mut config = Config::new();
    config.max_steps = MaxSteps::None;
    config.silence_warnings = true;
    let executions = match search {
        Search::Once => Runner::new(RandomScheduler::new(1), config).run(f),
        Search::RoundRobin => Runner::new(RoundRobinScheduler::new(1), config).run(f),
        Search::Dfs { cap } => Runner::new(DfsScheduler::new(cap.map(|c| c as usize), false), config).run(f),
        Search::Random(n) => Runner::new(RandomScheduler::new_from_seed(0, n as usize), config).run(f),
    };
    executions as u64
}

/// Runs `f` under loom's exhaustive search (the only one it has), with at
/// least `max_branches` branches allowed per execution and stopped after
/// `cap` executions if given; returns the number of executions.
fn run_loom(max_branches: usize, cap: Option<u64>, f: impl Fn() + Send + Sync + 'static) -> u64 {
    static EXECUTIONS: AtomicU64 = AtomicU64::new(0);
    EXECUTIONS.store(0, Ordering::Relaxed);
    let mut builder = loom::model::Builder::new();
    builder.max_branches = builder.max_branches.max(max_branches);
    if let Some(cap) = cap {
        // loom checks `max_permutations` against the number of the next
        // execution, and only every `checkpoint_interval` executions.
        builder.max_permutations = Some(cap as usize + 1);
        builder.checkpoint_interval = cap as usize + 1;
    }
    builder.check(move || {
        EXECUTIONS.fetch_add(1, Ordering::Relaxed);
        f();
    });
    EXECUTIONS.load(Ordering::Relaxed)
}

/// Median over repetitions of the marginal cost of one scheduling point:
/// `(t(n) - t(0)) / points`, so that setting up an exploration (an OS
/// thread, stacks) is not counted. `run(n)` runs a model with `n` loads per
/// thread and `points` is the number of scheduling points those loads add.
fn ns_per_point(n: usize, points: usize, run: impl Fn(usize)) -> f64 {
    run(n); // Warm up stacks and allocator.
    let samples: Vec<f64> = (0..plan().reps)
        .map(|_| {
            let (base, ()) = time(|| run(0));
            let (full, ()) = time(|| run(n));
            (full.saturating_sub(base)).as_nanos() as f64 / points as f64
        })
        .collect();
    median(&samples)
}

/// The speed of a search.
#[derive(Clone, Copy, Debug)]
struct Measured {
    /// Median executions per second.
    rate: f64,
    /// Executions of one search.
    executions: u64,
    /// Whether the search was stopped at its cap before exhausting.
    capped: bool,
}

/// Measures a search stopped after `cap` executions if given. Each sample
/// repeats the whole search, set-up included, until `Plan::sample` has passed;
/// the result is the median over the samples.
fn measure(cap: Option<u64>, run: impl Fn() -> u64) -> Measured {
    let executions = run();
    let samples: Vec<f64> = (0..plan().reps)
        .map(|_| {
            let start = Instant::now();
            let mut total = 0;
            loop {
                let again = run();
                assert_eq!(again, executions, "a search gave two different counts");
                total += again;
                if start.elapsed() >= plan().sample {
                    break;
                }
            }
            total as f64 / start.elapsed().as_secs_f64()
        })
        .collect();
    Measured { rate: median(&samples), executions, capped: cap.is_some_and(|c| executions >= c) }
}

fn main() {
    // `cargo bench` passes `--bench`; a filter or other flags are ignored.
    let mut rows = Vec::new();
    let started = std::time::Instant::now();

    // (1) One thread, N loads: every point is a scheduling point where only
    // the running thread is enabled, so no switch happens.
    let cells = [
        Cell::Value(ns_per_point(plan().points, plan().points, |n| {
            run_samaritan(Search::Once, move || sam::loads(n));
        })),
        Cell::Value(ns_per_point(plan().points, plan().points, |n| {
            run_shuttle(Search::Once, move || shut::loads(n));
        })),
        Cell::Value(ns_per_point(plan().loom_points, plan().loom_points, |n| {
            // Each loom load is two branches (a thread choice and a choice of
            // store to read); leave room for both.
            assert_eq!(run_loom(4 * n + 1_000, None, move || lm::loads(n)), 1);
        })),
    ];
    rows.push(Row { model: "1 thread x N loads (no switch)".into(), unit: Unit::NsPerPoint, cells });

    // (2) Two threads, N loads each, round robin: every load is a switch.
    let cells = [
        Cell::Value(ns_per_point(plan().points, 2 * plan().points, |n| {
            run_samaritan(Search::RoundRobin, move || sam::two_thread_loads(n));
        })),
        Cell::Value(ns_per_point(plan().points, 2 * plan().points, |n| {
            run_shuttle(Search::RoundRobin, move || shut::two_thread_loads(n));
        })),
        Cell::Text("n/a".into()),
    ];
    rows.push(Row { model: "2 threads x N loads (round robin, switch)".into(), unit: Unit::NsPerPoint, cells });

    // The fixed cost of one search: a model that does nothing.
    let cells = [
        Cell::Value(1e6 / measure(None, || run_samaritan(EXHAUSTIVE, || {})).rate),
        Cell::Value(1e6 / measure(None, || run_shuttle(EXHAUSTIVE, || {})).rate),
        Cell::Value(1e6 / measure(None, || run_loom(0, None, || {})).rate),
    ];
    rows.push(Row { model: "empty model (set-up of one search)".into(), unit: Unit::UsPerSearch, cells });

    // (3) Executions per second of exhaustive search. Searches that take
    // far too long for this run are capped (unless BENCH_FULL=1) and
    // their full counts are given in BENCHMARKS.md.
    let mut exec_rows = |model: &str, cells: [Measured; 3]| {
        let rate = cells.map(|m| Cell::Value(m.rate));
        let count = cells.map(|m| {
            if m.capped {
                Cell::Text(format!(">= {} (capped)", m.executions))
            } else {
                Cell::Value(m.executions as f64)
            }
        });
        rows.push(Row { model: format!("{model}: DFS"), unit: Unit::ExecPerSec, cells: rate });
        rows.push(Row { model: format!("{model}: executions to exhaustion"), unit: Unit::Executions, cells: count });
    };
    exec_rows(
        "2 threads x fetch_add",
        [
            measure(None, || run_samaritan(EXHAUSTIVE, || sam::fetch_add(2))),
            measure(None, || run_shuttle(EXHAUSTIVE, || shut::fetch_add(2))),
            measure(None, || run_loom(0, None, || lm::fetch_add(2))),
        ],
    );
    exec_rows(
        "3 threads x 2 locks of 1 mutex",
        [
            measure(None, || run_samaritan(EXHAUSTIVE, sam::mutex_3x2)),
            measure(plan().shuttle_cap, || run_shuttle(Search::Dfs { cap: plan().shuttle_cap }, shut::mutex_3x2)),
            measure(plan().loom_cap, || run_loom(0, plan().loom_cap, lm::mutex_3x2)),
        ],
    );
    exec_rows(
        "condvar producer/consumer (2 items)",
        [
            measure(None, || run_samaritan(EXHAUSTIVE, sam::condvar)),
            measure(None, || run_shuttle(EXHAUSTIVE, shut::condvar)),
            measure(None, || run_loom(0, None, lm::condvar)),
        ],
    );

    // Per-execution cost without the set-up of a search: one long random
    // search (loom has no random scheduler).
    let random = Search::Random(plan().random_executions);
    let cells = [
        Cell::Value(measure(None, || run_samaritan(random, || sam::fetch_add(2))).rate),
        Cell::Value(measure(None, || run_shuttle(random, || shut::fetch_add(2))).rate),
        Cell::Text("n/a".into()),
    ];
    rows.push(Row {
        model: format!("2 threads x fetch_add: random, {} executions", plan().random_executions),
        unit: Unit::ExecPerSec,
        cells,
    });

    println!();
    if !plan().full_run {
        println!("quick pass (no --bench): sizes are tiny, the numbers mean nothing");
    }
    println!(
        "samaritan (fair scheduler {}) vs shuttle 0.9 vs loom 0.7 (median of {} repetitions, release)",
        if plan().fairness { "on" } else { "off, BENCH_FAIRNESS=0" },
        plan().reps
    );
    println!();
    print!("{}", render(&rows));
    println!();
    println!("ratios are tool/samaritan: above 1 for ns/point and us/search, or below 1 for exec/s, means samaritan is faster.");
    println!(
        "ns/point is (t(N) - t(0)) / points with N = {} loads per thread (loom: {}).",
        plan().points,
        plan().loom_points
    );
    println!("loom has no round-robin (or any fixed-schedule) scheduler: its DPOR search always starts");
    println!("with the non-preemptive schedule, and forcing a switch per load would need extra yield_now points.");
    println!("comparison time: {:.1} s", started.elapsed().as_secs_f64());

    memory_run();
}

/// Runs samaritan's random search on the fetch_add model for many
/// executions and prints the RSS after 10^4 executions and at the end.
fn memory_run() {
    use samaritan::{Builder, SearchStrategy};
    static DONE: AtomicU64 = AtomicU64::new(0);
    static RSS_AT_10K: AtomicU64 = AtomicU64::new(0);
    let executions = plan().memory_executions;
    let seconds = plan().memory_seconds;
    println!();
    println!("memory: samaritan random search, 2 threads x fetch_add, up to {executions} executions or {seconds} s");
    let before = rss_bytes();
    let (elapsed, report) = time(|| {
        Builder::new()
            .strategy(SearchStrategy::Random)
            .fairness(plan().fairness)
            .max_executions(executions)
            .max_time(Duration::from_secs(seconds))
            .explore(|| {
                sam::fetch_add(2);
                if DONE.fetch_add(1, Ordering::Relaxed) + 1 == 10_000 {
                    RSS_AT_10K.store(rss_bytes().unwrap_or(0), Ordering::Relaxed);
                }
            })
            .expect("samaritan: bad configuration")
    });
    assert!(report.outcome.is_pass(), "samaritan failed the memory run:\n{report}");
    let end = rss_bytes();
    let mib = |b: Option<u64>| b.map_or_else(|| "unknown".to_string(), |b| format!("{:.1} MiB", b as f64 / 1048576.0));
    let at_10k = RSS_AT_10K.load(Ordering::Relaxed);
    println!("  RSS before:                   {}", mib(before));
    println!("  RSS after 10^4 executions:    {}", mib((at_10k > 0).then_some(at_10k)));
    println!(
        "  RSS after {} executions: {} ({:.1} s, {:.0} exec/s)",
        report.executions,
        mib(end),
        elapsed.as_secs_f64(),
        report.executions as f64 / elapsed.as_secs_f64()
    );
}
