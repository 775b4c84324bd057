//! Weak memory: executions to exhaust litmus tests and small models, and
//! the outcomes each search reaches, for samaritan under `sc` and under
//! its C11 model (`weak`) and for loom, side by side in one run. Run with
//! `cargo bench -p samaritan-bench --features sim --bench weak`; see
//! `BENCHMARKS.md`, section "Weak memory".
//!
//! A cell is `executions / outcomes`: the executions the search took to
//! exhaust the model, and how many distinct outcomes (values the loads
//! read) it reached. `allowed` is the number RC11 allows, load buffering
//! left out (as samaritan and loom both do). Without `--bench` (as `cargo
//! test --all-targets --features sim` starts it) only the first two models
//! run: a quick check that every tool runs them.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering as StdOrdering};
use std::sync::{Arc as StdArc, Mutex as StdMutex};

use samaritan::{MemoryModel, SearchStrategy};

#[allow(dead_code)] // Each table row uses some of the models.
mod sam {
    use samaritan::{sync, thread};
    include!("models.rs");
}

#[allow(dead_code)] // As above.
mod lm {
    use loom::{sync, thread};
    include!("models.rs");
}

type Outcomes = StdArc<StdMutex<BTreeSet<Vec<usize>>>>;

/// Executions and distinct outcomes of one search.
struct Cell {
    executions: u64,
    outcomes: usize,
}

impl Cell {
    fn text(&self) -> String {
        format!("{} / {}", self.executions, self.outcomes)
    }
}

fn samaritan_run(strategy: SearchStrategy, model: MemoryModel, f: fn() -> Vec<usize>) -> Cell {
    let seen: Outcomes = StdArc::default();
    let sink = seen.clone();
    let report = samaritan::Builder::new()
        .strategy(strategy)
        .memory_model(model)
        .persist(false)
        .max_executions(10_000_000)
        .explore(move || {
            let out = f();
            sink.lock().unwrap().insert(out);
        })
        .expect("valid settings");
    assert!(report.outcome.is_pass() && report.exhausted, "samaritan did not exhaust a model:\n{report}");
    let outcomes = seen.lock().unwrap().len();
    Cell { executions: report.executions, outcomes }
}

fn loom_run(f: fn() -> Vec<usize>) -> Cell {
    static EXECUTIONS: AtomicU64 = AtomicU64::new(0);
    EXECUTIONS.store(0, StdOrdering::Relaxed);
    let seen: Outcomes = StdArc::default();
    let sink = seen.clone();
    let mut builder = loom::model::Builder::new();
    builder.max_branches = 100_000;
    builder.check(move || {
        EXECUTIONS.fetch_add(1, StdOrdering::Relaxed);
        let out = f();
        sink.lock().unwrap().insert(out);
    });
    let outcomes = seen.lock().unwrap().len();
    Cell { executions: EXECUTIONS.load(StdOrdering::Relaxed), outcomes }
}

fn main() {
    use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
    let full = std::env::args().any(|a| a == "--bench");
    type Row = (&'static str, usize, fn() -> Vec<usize>, fn() -> Vec<usize>);
    let mut rows: Vec<Row> = vec![
        ("SB, Relaxed", 4, || sam::sb(Relaxed, Relaxed, false), || lm::sb(Relaxed, Relaxed, false)),
        ("SB, SeqCst", 3, || sam::sb(SeqCst, SeqCst, false), || lm::sb(SeqCst, SeqCst, false)),
        ("SB, Relaxed + SeqCst fences", 3, || sam::sb(Relaxed, Relaxed, true), || lm::sb(Relaxed, Relaxed, true)),
        ("MP, Relaxed", 4, || sam::mp(Relaxed, Relaxed), || lm::mp(Relaxed, Relaxed)),
        ("MP, Release/Acquire", 3, || sam::mp(Release, Acquire), || lm::mp(Release, Acquire)),
        ("IRIW, Release/Acquire", 16, || sam::iriw(Release, Acquire), || lm::iriw(Release, Acquire)),
        ("IRIW, SeqCst", 15, || sam::iriw(SeqCst, SeqCst), || lm::iriw(SeqCst, SeqCst)),
        ("2+2W, Relaxed", 4, || sam::two_plus_two_w(Relaxed), || lm::two_plus_two_w(Relaxed)),
        ("CoRR, Relaxed", 6, sam::corr, lm::corr),
        ("Dekker entry, SeqCst", 2, || sam::dekker(SeqCst, SeqCst), || lm::dekker(SeqCst, SeqCst)),
        ("Dekker entry, Release/Acquire", 3, || sam::dekker(Release, Acquire), || lm::dekker(Release, Acquire)),
        ("MP, Release/Acquire, spinning reader", 1, sam::mp_spin, lm::mp_spin),
        ("fetch_add, 3 threads (SeqCst)", 1, || sam::fetch_add(3), || lm::fetch_add(3)),
        ("mutex counter, 2 threads x 2", 1, sam::mutex_counter, lm::mutex_counter),
    ];
    if !full {
        rows.truncate(2);
    }
    println!("Executions to exhaust / distinct outcomes reached; allowed = outcomes RC11 allows (no load buffering)");
    println!();
    println!("| model | allowed | samaritan sc, dfs | samaritan weak, dfs | samaritan weak, dpor | loom 0.7 |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, allowed, sam_f, loom_f) in rows {
        let sc = samaritan_run(SearchStrategy::Dfs, MemoryModel::Sc, sam_f);
        let dfs = samaritan_run(SearchStrategy::Dfs, MemoryModel::Weak, sam_f);
        let dpor = samaritan_run(SearchStrategy::Dpor, MemoryModel::Weak, sam_f);
        let loom = loom_run(loom_f);
        println!("| {name} | {allowed} | {} | {} | {} | {} |", sc.text(), dfs.text(), dpor.text(), loom.text());
    }
}
