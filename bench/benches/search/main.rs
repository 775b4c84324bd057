//! Search at scale, side by side: executions and time to the first bug on
//! SCTBench's many-thread shapes (reorder, twostage, wronglock) from 3 to
//! 100 threads, under samaritan's default (the portfolio), ICB, DPOR, PCT
//! and random search, shuttle's PCT and random search and loom (which runs
//! at most 4 threads besides main); then the bounded queue's proof at
//! bound 2 and the correct many-lock program under the default. Run with
//! `cargo bench -p samaritan-bench --features sim --bench search`; see
//! `BENCHMARKS.md`, section "Search at scale".
//!
//! Each cell stops at its first bug, or at `BENCH_SEARCH_CAP` executions
//! (default 100000) or `BENCH_SEARCH_SECONDS` (default 10) seconds, and
//! prints `executions (seconds)`, or `none in N (seconds)`. Every search
//! runs with the fair scheduler on (samaritan's default). Without
//! `--bench` (as `cargo test --all-targets` starts it) it makes one quick
//! pass over 3 threads.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[allow(dead_code)] // Each tool runs the models it can.
mod sam {
    use samaritan::{sync, thread};
    include!("models.rs");

    /// The compare bench's models (the bounded queue).
    pub(crate) mod compare {
        use samaritan::{sync, thread};
        include!("../compare/models.rs");
    }
}

#[allow(dead_code)] // As above.
mod shut {
    use shuttle::{sync, thread};
    include!("models.rs");
}

#[allow(dead_code)] // As above.
mod lm {
    use loom::{sync, thread};
    include!("models.rs");
}

/// What one search did: executions, whether it found the bug, seconds.
struct Found {
    executions: u64,
    found: bool,
    seconds: f64,
}

impl Found {
    fn cell(&self) -> String {
        match self.found {
            true => format!("{} ({:.2} s)", self.executions, self.seconds),
            false => format!("none in {} ({:.1} s)", self.executions, self.seconds),
        }
    }
}

/// Caps of one search.
#[derive(Clone, Copy)]
struct Caps {
    executions: u64,
    time: Duration,
}

fn caps() -> Caps {
    let number = |var: &str, default: u64| std::env::var(var).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    Caps {
        executions: number("BENCH_SEARCH_CAP", 100_000),
        time: Duration::from_secs(number("BENCH_SEARCH_SECONDS", 10)),
    }
}

fn samaritan(strategy: samaritan::SearchStrategy, caps: Caps, f: impl Fn() + Send + Sync + 'static) -> Found {
    let start = Instant::now();
    let report = samaritan::Builder::new()
        .strategy(strategy)
        .persist(false)
        .minimize(false)
        .progress(false)
        .max_executions(caps.executions)
        .max_time(caps.time)
        .explore(f)
        .expect("valid settings");
    Found { executions: report.executions, found: report.is_failure(), seconds: start.elapsed().as_secs_f64() }
}

/// Executions started by the shuttle or loom search running now.
static STARTED: AtomicU64 = AtomicU64::new(0);

fn shuttle(pct: bool, caps: Caps, f: impl Fn() + Send + Sync + 'static) -> Found {
    use shuttle::scheduler::{PctScheduler, RandomScheduler};
    use shuttle::{Config, FailurePersistence, MaxSteps, Runner};
    let mut config = Config::new();
    config.max_steps = MaxSteps::None;
    config.silence_warnings = true;
    config.failure_persistence = FailurePersistence::None;
    config.max_time = Some(caps.time);
    STARTED.store(0, Ordering::Relaxed);
    let body = move || {
        STARTED.fetch_add(1, Ordering::Relaxed);
        f();
    };
    let start = Instant::now();
    let n = caps.executions as usize;
    let outcome = catch_unwind(AssertUnwindSafe(|| match pct {
        true => Runner::new(PctScheduler::new_from_seed(0, 3, n), config).run(body),
        false => Runner::new(RandomScheduler::new_from_seed(0, n), config).run(body),
    }));
    Found {
        executions: STARTED.load(Ordering::Relaxed),
        found: outcome.is_err(),
        seconds: start.elapsed().as_secs_f64(),
    }
}

fn loom(caps: Caps, f: impl Fn() + Send + Sync + 'static) -> Found {
    STARTED.store(0, Ordering::Relaxed);
    let mut builder = loom::model::Builder::new();
    builder.max_permutations = Some(caps.executions as usize);
    builder.max_duration = Some(caps.time);
    let start = Instant::now();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        builder.check(move || {
            STARTED.fetch_add(1, Ordering::Relaxed);
            f();
        })
    }));
    Found {
        executions: STARTED.load(Ordering::Relaxed),
        found: outcome.is_err(),
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// A model written once, as samaritan's, shuttle's and loom's.
type Model = (fn(usize), fn(usize), fn(usize));

/// One row: a shape at `n` threads under every tool and strategy.
fn row(name: &str, n: usize, caps: Caps, model: Model) {
    use samaritan::SearchStrategy as S;
    let (sam, shut, lm) = model;
    let mut cells = Vec::new();
    for strategy in [S::Portfolio, S::Icb, S::Dpor, S::Pct, S::Random] {
        cells.push(samaritan(strategy, caps, move || sam(n)).cell());
    }
    cells.push(shuttle(true, caps, move || shut(n)).cell());
    cells.push(shuttle(false, caps, move || shut(n)).cell());
    // loom runs at most 5 threads, main included.
    cells.push(if n <= 4 { loom(caps, move || lm(n)).cell() } else { "n/a".to_string() });
    println!("| {name} | {n} | {} |", cells.join(" | "));
}

/// A proof: executions and seconds for a search to exhaust at bound 2.
fn proof(strategy: samaritan::SearchStrategy, f: impl Fn() + Send + Sync + 'static) -> String {
    let start = Instant::now();
    let report = samaritan::Builder::new()
        .strategy(strategy)
        .preemption_bound(2)
        .persist(false)
        .progress(false)
        .max_time(Duration::from_secs(120))
        .explore(f)
        .expect("valid settings");
    assert!(report.outcome.is_pass(), "{report}");
    let how = if report.exhausted { "" } else { "not exhausted: " };
    let randomized = if report.randomized > 0 { format!(" + {} randomized", report.randomized) } else { String::new() };
    format!(
        "{how}{}{randomized} ({} cut short; {:.2} s)",
        report.executions - report.randomized,
        report.pruned,
        start.elapsed().as_secs_f64()
    )
}

fn main() {
    use samaritan::SearchStrategy as S;
    // shuttle and loom report the bugs they find by panicking: keep their
    // messages out of the table.
    std::panic::set_hook(Box::new(|_| {}));
    let full = std::env::args().any(|a| a == "--bench");
    let caps = if full { caps() } else { Caps { executions: 200, time: Duration::from_secs(2) } };
    let sizes: Vec<usize> = match std::env::var("BENCH_SEARCH_SIZES") {
        Ok(list) => list.split(',').filter_map(|n| n.trim().parse().ok()).collect(),
        Err(_) if full => vec![3, 4, 5, 10, 20, 50, 100],
        Err(_) => vec![3],
    };
    let only = std::env::var("BENCH_SEARCH_SHAPES").ok();

    println!("Executions to the first bug (seconds); `none in N`: not found within the caps\n");
    println!("| shape | threads | samaritan default | samaritan icb | samaritan dpor | samaritan pct | samaritan random | shuttle pct | shuttle random | loom |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let shapes: [(&str, Model); 3] = [
        ("reorder", (sam::reorder, shut::reorder, lm::reorder)),
        ("twostage", (sam::twostage, shut::twostage, lm::twostage)),
        ("wronglock", (sam::wronglock, shut::wronglock, lm::wronglock)),
    ];
    for (name, model) in shapes {
        if only.as_deref().is_some_and(|o| !o.split(',').any(|x| x == name)) {
            continue;
        }
        for &n in &sizes {
            row(name, n, caps, model);
        }
    }

    if std::env::var_os("BENCH_SEARCH_SHAPES").is_some() {
        return;
    }
    println!("\nThe bounded queue (capacity 1, mutex and two condition variables) proved at bound 2: executions to exhaust\n");
    println!("| producers x items, consumers | icb | dpor (no bound) | cb-por | default (portfolio) |");
    println!("|---|---:|---:|---:|---:|");
    let queues: &[(usize, usize, usize)] = if full { &[(1, 2, 1), (2, 1, 2), (2, 2, 2)] } else { &[(1, 2, 1)] };
    for &(p, i, c) in queues {
        let cells: Vec<String> = [S::Icb, S::Dpor, S::CbPor, S::Portfolio]
            .into_iter()
            .map(|s| proof(s, move || sam::compare::bounded_queue(p, i, c)))
            .collect();
        println!("| {p} x {i}, {c} | {} |", cells.join(" | "));
    }

    println!("\nThe correct many-lock program (n threads take one lock once) under the default, stopped at 10 s\n");
    println!("| threads | executions | verdict |");
    println!("|---:|---:|---|");
    for n in if full { vec![8, 200] } else { vec![3] } {
        let report = samaritan::Builder::new()
            .persist(false)
            .progress(false)
            .max_time(Duration::from_secs(if full { 10 } else { 1 }))
            .explore(move || sam::lock_once(n))
            .expect("valid settings");
        println!("| {n} | {} | {report} |", report.executions);
    }
}
