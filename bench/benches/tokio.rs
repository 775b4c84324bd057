//! samaritan's async executor against tokio's multi-thread runtime, on
//! tokio's own runtime benchmark shapes and on channel throughput, printed
//! side by side with the ratio samaritan / tokio. Run with
//! `cargo bench -p samaritan-bench --bench tokio` (production mode: the
//! crate's `sim` feature is not needed and does not change the executor,
//! which runs on real threads in both modes); see `BENCHMARKS.md`, section
//! "Async executor vs tokio".
//!
//! Each workload runs inside a task spawned on a multi-thread runtime with
//! the same worker count on both sides (2 and 4), one untimed warm-up, then
//! the median of `RUNS` timed runs. Without `--bench` (as `cargo test
//! --all-targets` starts it) the binary makes one quick pass with tiny sizes.
//!
//! Environment: `BENCH_TOKIO_WORKERS` (comma-separated worker counts,
//! default `2,4`; 0 runs both runtimes' current-thread flavour instead), `BENCH_TOKIO_ONLY` (run only workloads whose name
//! contains it), `BENCH_TOKIO_RUNS` (timed runs per cell, default 5).

use std::future::Future;
use std::time::{Duration, Instant};

/// Timed runs per cell; the median is reported.
const RUNS: usize = 5;

/// The sizes of one pass.
#[derive(Clone, Copy)]
struct Sizes {
    /// Tasks spawned by `spawn_many`.
    spawn: usize,
    /// Tasks of `yield_many`, and yields of each.
    yield_tasks: usize,
    yields: usize,
    /// Round trips of `ping_pong`.
    pings: usize,
    /// Depth of `chained_spawn`.
    chain: usize,
    /// Producers of `channel`, messages of each, and the channel's capacity.
    producers: usize,
    messages: usize,
    capacity: usize,
}

const FULL: Sizes = Sizes {
    spawn: 10_000,
    yield_tasks: 100,
    yields: 1_000,
    pings: 10_000,
    chain: 1_000,
    producers: 4,
    messages: 100_000,
    capacity: 1_024,
};

const QUICK: Sizes = Sizes {
    spawn: 100,
    yield_tasks: 10,
    yields: 10,
    pings: 100,
    chain: 10,
    producers: 4,
    messages: 1_000,
    capacity: 16,
};

/// The same workloads, written once against each runtime's API (the two
/// have the same shape: `spawn` returns an awaitable handle, bounded mpsc
/// with `send(..).await`, `try_send` and `recv().await`).
macro_rules! workloads {
    ($name:ident, $spawn:path, $yield_now:path, $channel:path) => {
        mod $name {
            use crate::Sizes;

            /// Spawns `spawn` trivial tasks from a task and awaits them all.
            pub(crate) async fn spawn_many(s: Sizes) -> u64 {
                let handles: Vec<_> = (0..s.spawn as u64).map(|i| $spawn(async move { i })).collect();
                let mut sum = 0;
                for h in handles {
                    sum += h.await.unwrap();
                }
                sum
            }

            /// `yield_tasks` tasks, each yielding `yields` times.
            pub(crate) async fn yield_many(s: Sizes) -> u64 {
                let handles: Vec<_> = (0..s.yield_tasks)
                    .map(|_| {
                        $spawn(async move {
                            for _ in 0..s.yields {
                                $yield_now().await;
                            }
                        })
                    })
                    .collect();
                for h in handles {
                    h.await.unwrap();
                }
                s.yield_tasks as u64
            }

            /// Two tasks bouncing a message `pings` times over two
            /// capacity-1 channels.
            pub(crate) async fn ping_pong(s: Sizes) -> u64 {
                let (ping_tx, mut ping_rx) = $channel(1);
                let (pong_tx, mut pong_rx) = $channel(1);
                let ponger = $spawn(async move {
                    while let Some(v) = ping_rx.recv().await {
                        pong_tx.send(v + 1).await.unwrap();
                    }
                });
                let mut v = 0;
                for _ in 0..s.pings {
                    ping_tx.send(v).await.unwrap();
                    v = pong_rx.recv().await.unwrap();
                }
                drop(ping_tx);
                ponger.await.unwrap();
                v
            }

            fn chain(n: usize, done: super::Chan<u64>) {
                if n == 0 {
                    done.try_send(1).unwrap();
                } else {
                    drop($spawn(async move { chain(n - 1, done) }));
                }
            }

            /// Each task spawns the next, `chain` deep; the last one signals.
            pub(crate) async fn chained_spawn(s: Sizes) -> u64 {
                let (tx, mut rx) = $channel(1);
                chain(s.chain, tx);
                rx.recv().await.unwrap()
            }

            /// `producers` tasks each sending `messages` values through one
            /// bounded channel to this task.
            pub(crate) async fn channel(s: Sizes) -> u64 {
                let (tx, mut rx) = $channel(s.capacity);
                for _ in 0..s.producers {
                    let tx = tx.clone();
                    drop($spawn(async move {
                        for i in 0..s.messages as u64 {
                            tx.send(i).await.unwrap();
                        }
                    }));
                }
                drop(tx);
                let mut sum = 0;
                while let Some(v) = rx.recv().await {
                    sum += v;
                }
                sum
            }
        }
    };
}

/// The sender type `chain` passes along, per runtime.
mod sam_types {
    pub(crate) type Chan<T> = samaritan::sync::async_mpsc::Sender<T>;
}
mod tokio_types {
    pub(crate) type Chan<T> = tokio::sync::mpsc::Sender<T>;
}

mod sam {
    use crate::sam_types::Chan;
    workloads!(w, samaritan::executor::spawn, samaritan::executor::yield_now, samaritan::sync::async_mpsc::channel);
    pub(crate) use w::*;
}

mod tok {
    use crate::tokio_types::Chan;
    workloads!(w, tokio::spawn, tokio::task::yield_now, tokio::sync::mpsc::channel);
    pub(crate) use w::*;
}

/// A multi-thread runtime of either kind, driving one workload inside a
/// spawned task.
trait Runner {
    fn run<F>(&self, f: F) -> u64
    where
        F: Future<Output = u64> + Send + 'static;
}

impl Runner for samaritan::executor::Runtime {
    fn run<F>(&self, f: F) -> u64
    where
        F: Future<Output = u64> + Send + 'static,
    {
        self.block_on(async { samaritan::executor::spawn(f).await.unwrap() })
    }
}

impl Runner for tokio::runtime::Runtime {
    fn run<F>(&self, f: F) -> u64
    where
        F: Future<Output = u64> + Send + 'static,
    {
        self.block_on(async { tokio::spawn(f).await.unwrap() })
    }
}

/// One warm-up, then the median of `runs` timed runs; checks the result.
fn measure<R: Runner, F: Future<Output = u64> + Send + 'static>(
    rt: &R,
    runs: usize,
    expected: u64,
    make: impl Fn() -> F,
) -> Duration {
    assert_eq!(rt.run(make()), expected, "wrong result");
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let got = rt.run(make());
            let elapsed = start.elapsed();
            assert_eq!(got, expected, "wrong result");
            elapsed
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn fmt(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us >= 10_000.0 {
        format!("{:.1} ms", us / 1e3)
    } else {
        format!("{us:.0} µs")
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let runs = std::env::var("BENCH_TOKIO_RUNS").map_or(RUNS, |v| v.parse().expect("BENCH_TOKIO_RUNS: a count"));
    let (s, runs) = if full { (FULL, runs) } else { (QUICK, 1) };
    if !full {
        println!("quick pass (no --bench): tiny sizes, one run each");
    }
    let workers: Vec<usize> = std::env::var("BENCH_TOKIO_WORKERS")
        .ok()
        .map(|v| v.split(',').map(|w| w.trim().parse().expect("BENCH_TOKIO_WORKERS: comma-separated counts")).collect())
        .unwrap_or_else(|| if full { vec![2, 4] } else { vec![2] });
    let only = std::env::var("BENCH_TOKIO_ONLY").unwrap_or_default();

    let n = |k: usize| k as u64;
    let spawn_sum = n(s.spawn) * n(s.spawn).saturating_sub(1) / 2;
    let channel_sum = n(s.producers) * (n(s.messages) * n(s.messages).saturating_sub(1) / 2);

    println!("{:<8} {:<34} {:>12} {:>12} {:>8}", "workers", "workload", "samaritan", "tokio", "ratio");
    for &w in &workers {
        // 0 workers: both runtimes' current-thread flavour.
        let (sam_rt, tok_rt, w) = if w == 0 {
            let sam = samaritan::executor::Builder::current_thread().build();
            (
                sam.expect("samaritan runtime"),
                tokio::runtime::Builder::new_current_thread().build(),
                "current".to_string(),
            )
        } else {
            let sam = samaritan::executor::Builder::multi_thread().worker_threads(w).build();
            (
                sam.expect("samaritan runtime"),
                tokio::runtime::Builder::new_multi_thread().worker_threads(w).build(),
                w.to_string(),
            )
        };
        let tok_rt = tok_rt.expect("tokio runtime");
        macro_rules! row {
            ($label:expr, $f:ident, $expected:expr) => {
                let label = $label;
                if label.contains(only.as_str()) {
                    let a = measure(&sam_rt, runs, $expected, || sam::$f(s));
                    let b = measure(&tok_rt, runs, $expected, || tok::$f(s));
                    let ratio = a.as_secs_f64() / b.as_secs_f64();
                    println!("{:<8} {:<34} {:>12} {:>12} {:>7.2}x", w, label, fmt(a), fmt(b), ratio);
                }
            };
        }
        row!(format!("spawn_many ({})", s.spawn), spawn_many, spawn_sum);
        row!(format!("yield_many ({} x {})", s.yield_tasks, s.yields), yield_many, n(s.yield_tasks));
        row!(format!("ping_pong ({})", s.pings), ping_pong, n(s.pings));
        row!(format!("chained_spawn ({})", s.chain), chained_spawn, 1);
        row!(format!("channel ({} x {}, cap {})", s.producers, s.messages, s.capacity), channel, channel_sum);
    }
}
