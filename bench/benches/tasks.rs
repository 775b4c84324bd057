//! How one execution's cost grows with the number of tasks parked on a
//! runtime: the shape of bb8's `test_lots_of_waiters` (a pool of 3
//! permits; `n` tasks each take one and send on their own channel while
//! they hold it; the main task awaits every channel), on a
//! current-thread runtime in tokio's order, as `#[tokio::test]` builds it.
//! The tasks do not yield (bb8's do not): a yield starts the fair
//! scheduler's bookkeeping, whose cost per step grows with the tasks that
//! yielded times the tasks alive.
//! Prints the seconds of one DFS execution at each size, per task, and the
//! process's peak resident memory after it (sizes run smallest first, so
//! each peak is that size's or an earlier, smaller one's). Run with
//! `cargo bench -p samaritan-bench --features sim --bench tasks`; see
//! `BENCHMARKS.md`, "Tasks parked on one runtime".
//!
//! `BENCH_TASKS` (default `250,2500,25000`) picks the sizes. Without
//! `--bench` (as `cargo test --all-targets` starts it) it runs 50 tasks
//! only, as a check that it runs.

use std::time::Instant;

use samaritan::executor::{self, Builder as Runtime};
use samaritan::sync::{async_mpsc, Arc, Semaphore};
use samaritan::{Builder, Outcome, SearchStrategy};

/// The program: `n` tasks behind a pool of three permits.
fn waiters(n: usize) {
    let mut rt = Runtime::current_thread();
    rt.polls_at_once(1);
    rt.tokio_order();
    rt.build().expect("a runtime").block_on(async move {
        let pool = Arc::new(Semaphore::new(3));
        let mut done = Vec::with_capacity(n);
        for _ in 0..n {
            let pool = pool.clone();
            let (tx, rx) = async_mpsc::unbounded_channel::<()>();
            done.push(rx);
            executor::spawn(async move {
                let _permit = pool.acquire().await.expect("the pool stays open");
                tx.send(()).expect("the main task waits");
            });
        }
        for mut rx in done {
            rx.recv().await.expect("every task sends");
        }
    });
}

/// Seconds of one execution of `waiters(n)`.
fn one(n: usize) -> f64 {
    let start = Instant::now();
    let report = Builder::new()
        .strategy(SearchStrategy::Dfs)
        .max_executions(1)
        // About eight steps a task: past the default bound of 100,000 at
        // 25,000 tasks.
        .max_steps(16_777_216)
        .persist(false)
        .progress(false)
        .explore(move || waiters(n))
        .expect("valid settings");
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(report.outcome, Outcome::Pass, "{report}");
    assert_eq!(report.executions, 1, "{report}");
    secs
}

/// The process's peak resident memory, in MiB (Linux; 0 elsewhere).
fn peak_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().strip_suffix(" kB"));
    kib.and_then(|k| k.trim().parse::<u64>().ok()).map_or(0, |k| k / 1024)
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let sizes: Vec<usize> = match std::env::var("BENCH_TASKS") {
        Ok(list) => list.split(',').map(|s| s.trim().parse().expect("BENCH_TASKS: a list of task counts")).collect(),
        Err(_) if bench => vec![250, 2_500, 25_000],
        Err(_) => vec![50],
    };
    println!("| tasks | one execution, s | per task, µs | peak RSS, MiB |");
    println!("|---:|---:|---:|---:|");
    for n in sizes {
        let secs = one(n);
        println!("| {n} | {secs:.3} | {:.1} | {} |", secs * 1e6 / n as f64, peak_mib());
    }
}
