//! Runs one samaritan measurement of the comparison in a loop, for a
//! profiler: `cargo build --release -p samaritan-bench --features sim
//! --example hot`, then for example
//! `perf record -g target/release/examples/hot loads` or
//! `valgrind --tool=callgrind target/release/examples/hot setup 200`.
//!
//! Modes: `loads [REPS]` (one thread, 100000 loads, no switch), `switch
//! [REPS]` (two threads, 100000 loads each, round robin), `setup [REPS]`
//! (exhaustive DFS of the 2-thread fetch_add model: 5 executions, so mostly
//! the set-up of an exploration), `random [EXECUTIONS]` (random search of
//! the same model, set-up amortized), `spawn [REPS]` (one execution of
//! models spawning 0 to 3 empty threads: the cost of a search's set-up and
//! of each fresh coroutine stack; prints its own timings), `coro [ROUNDS]`
//! (a bare corosensei resume and suspend: the floor under a switch),
//! `execution [REPS] [STEPS] [STRATEGY] [EXECUTIONS]` (EXECUTIONS
//! executions, 1 unless given, of the scale bench's `mixed` model under a
//! strategy, in one exploration: its cost per step, with the buffers an
//! exploration reuses warm from the second execution on).

use std::hint::black_box;

use samaritan::{thread, Builder, SearchStrategy};

/// The bench's own models, so that the profile is of what it measures.
#[allow(dead_code)]
mod models {
    use samaritan::{sync, thread};
    include!("../benches/compare/models.rs");
}

use models::fetch_add;

const LOADS: usize = 100_000;

fn loads() {
    models::loads(LOADS);
}

fn two_thread_loads() {
    models::two_thread_loads(LOADS);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "loads".to_string());
    let count: Option<u64> = args.next().and_then(|a| a.parse().ok());
    let builder = Builder::new().max_steps(u64::MAX);
    match mode.as_str() {
        "loads" => {
            for _ in 0..count.unwrap_or(50) {
                builder.clone().strategy(SearchStrategy::Dfs).max_executions(1).explore(loads).unwrap();
            }
        }
        "switch" => {
            for _ in 0..count.unwrap_or(20) {
                builder.clone().strategy(SearchStrategy::RoundRobin).explore(two_thread_loads).unwrap();
            }
        }
        "setup" => {
            for _ in 0..count.unwrap_or(5000) {
                builder.clone().strategy(SearchStrategy::Dfs).explore(|| fetch_add(2)).unwrap();
            }
        }
        "random" => {
            let n = count.unwrap_or(1_000_000);
            builder.strategy(SearchStrategy::Random).max_executions(n).explore(|| fetch_add(2)).unwrap();
        }
        "spawn" => {
            // Searches of models that spawn 0..=3 empty threads: the set-up
            // cost of a search and of each actor's first coroutine stack.
            for k in 0..=3usize {
                let reps = count.unwrap_or(2000);
                let start = std::time::Instant::now();
                for _ in 0..reps {
                    builder
                        .clone()
                        .strategy(SearchStrategy::Dfs)
                        .max_executions(1)
                        .explore(move || {
                            let handles: Vec<_> = (0..k).map(|_| thread::spawn(|| {})).collect();
                            for h in handles {
                                h.join().unwrap();
                            }
                        })
                        .unwrap();
                }
                println!("{k} spawned threads: {:.1} us/search", start.elapsed().as_secs_f64() * 1e6 / reps as f64);
            }
        }
        "coro" => {
            // The floor under a switching point: one resume of a corosensei
            // coroutine and its suspend back (samaritan goes actor -> loop
            // -> actor, one such round trip per switch).
            use corosensei::{Coroutine, CoroutineResult};
            let rounds = count.unwrap_or(10_000_000);
            let mut co = Coroutine::new(|yielder, mut n: u64| loop {
                n = yielder.suspend(black_box(n));
            });
            let start = std::time::Instant::now();
            for i in 0..rounds {
                match co.resume(i) {
                    CoroutineResult::Yield(v) => {
                        black_box(v);
                    }
                    CoroutineResult::Return(()) => unreachable!(),
                }
            }
            println!("{:.1} ns per resume + suspend", start.elapsed().as_secs_f64() * 1e9 / rounds as f64);
        }
        "execution" => {
            // Executions of the `mixed` model (100,000 steps, or the third
            // argument) under the strategy named by the fourth
            // (`SAMARITAN_STRATEGY`'s names), as many as the fifth says
            // (1 unless given) in one exploration, `count` times.
            let steps: usize = std::env::args().nth(3).and_then(|a| a.parse().ok()).unwrap_or(100_000);
            let strategy = match std::env::args().nth(4).as_deref() {
                Some("dfs") => SearchStrategy::Dfs,
                Some("icb") => SearchStrategy::Icb,
                Some("dpor") => SearchStrategy::Dpor,
                Some("cb-por") => SearchStrategy::CbPor,
                Some("hapset") => SearchStrategy::HapSet,
                Some("pct") => SearchStrategy::Pct,
                Some("random") => SearchStrategy::Random,
                _ => SearchStrategy::Portfolio,
            };
            let executions = std::env::args().nth(5).and_then(|a| a.parse().ok()).unwrap_or(1);
            let builder = builder.strategy(strategy).persist(false).progress(false).max_executions(executions);
            for _ in 0..count.unwrap_or(5) {
                builder.clone().explore(move || models::mixed(steps / 2)).unwrap();
            }
        }
        other => panic!("unknown mode {other:?}: expected loads, switch, setup, random, spawn, coro or execution"),
    }
}
