//! What HaPSet coverage pruning buys: executions and time to the first bug
//! under `hapset`, `dpor` and `icb` (bound 2) on small bug programs, with
//! ratios, and how often each finds the rarest outcome of generated
//! programs (the generator of `tests/reduction_agreement.rs`). Run with
//! `cargo bench -p samaritan-bench --features sim --bench hapset`; see
//! `BENCHMARKS.md`.
//!
//! Without `--bench` (as `cargo test --all-targets --features sim` starts
//! it) the binary makes a quick pass: one repetition, 20 generated
//! programs.
//!
//! Environment: `BENCH_REPS` (repetitions per time, the median is printed;
//! default 5), `BENCH_HAPSET_PROGRAMS` (generated programs, default 200).

use std::collections::BTreeSet;
use std::sync::Mutex as StdMutex;
use std::time::Duration;

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::{Arc, Mutex};
use samaritan::{thread, Builder, Report, SearchStrategy};
use samaritan_bench::{median, time};

#[path = "../../examples/lock_order_deadlock.rs"]
#[allow(dead_code)] // Its `main`.
mod lock_order_deadlock;
#[path = "../../examples/lost_update.rs"]
#[allow(dead_code)] // Its `main`.
mod lost_update;
#[path = "../../examples/work_stealing.rs"]
#[allow(dead_code)] // Its `main`.
mod work_stealing;

/// The searches compared, in column order.
const SEARCHES: [(&str, SearchStrategy); 3] =
    [("hapset", SearchStrategy::HapSet), ("dpor", SearchStrategy::Dpor), ("icb", SearchStrategy::Icb)];

/// `n` threads increment a counter with a load and a store.
fn lost_update(n: usize) {
    let counter = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let counter = counter.clone();
            thread::spawn(move || {
                let seen = counter.load(Ordering::SeqCst);
                counter.store(seen + 1, Ordering::SeqCst);
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(counter.load(Ordering::SeqCst), n, "an increment was lost");
}

/// Three threads, each taking lock `i` then lock `i + 1 mod 3`, after
/// `work` increments of a counter under one more lock: a
/// three-way lock cycle behind steps that only add interleavings.
fn lock_cycle(work: usize) {
    let locks: Arc<Vec<Mutex<()>>> = Arc::new((0..3).map(|_| Mutex::new(())).collect());
    let counter = Arc::new(Mutex::new(0));
    let handles: Vec<_> = (0..3)
        .map(|i| {
            let (locks, counter) = (locks.clone(), counter.clone());
            thread::spawn(move || {
                for _ in 0..work {
                    *counter.lock().unwrap() += 1;
                }
                let _first = locks[i].lock().unwrap();
                let _second = locks[(i + 1) % 3].lock().unwrap();
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
}

/// The slides' example (HaPSet, "Intuition: why are HaPSets useful?"):
/// T2 sets `p` (e1) and later clears it (e4); T1 checks `p` (e2) and then
/// uses it (e3). The bad run has e4 between e2 and e3.
fn null_check() {
    let p = Arc::new(AtomicUsize::new(0));
    let other = p.clone();
    let t2 = thread::spawn(move || {
        other.store(1, Ordering::SeqCst);
        other.store(0, Ordering::SeqCst);
    });
    if p.load(Ordering::SeqCst) != 0 {
        assert_ne!(p.load(Ordering::SeqCst), 0, "p was cleared between its check and its use");
    }
    t2.join().unwrap();
}

/// An order violation among busy threads: one thread initializes a
/// flag, one expects it set, and two more add to a counter `work` times
/// each. The bug is the check before the initialization; the counter's
/// orders are many and all alike.
fn check_before_init(work: usize) {
    let (flag, counter) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let init = {
        let flag = flag.clone();
        thread::spawn(move || flag.store(1, Ordering::SeqCst))
    };
    let user = thread::spawn(move || {
        assert_eq!(flag.load(Ordering::SeqCst), 1, "used before it was initialized");
    });
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let counter = counter.clone();
            thread::spawn(move || {
                for _ in 0..work {
                    counter.fetch_add(1, Ordering::SeqCst);
                }
            })
        })
        .collect();
    for handle in [init, user].into_iter().chain(workers) {
        handle.join().unwrap();
    }
}

/// The same order violation, but the two threads also share the counter:
/// thread 1 initializes and then adds `work` times, thread 2 adds `work`
/// times and then checks. In the first execution the counter orders the
/// initialization before the check, so no race shows until the additions
/// are reordered, and those reorders are all alike.
fn check_after_shared_work(work: usize) {
    let (flag, counter) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (flag2, counter2) = (flag.clone(), counter.clone());
    let init = thread::spawn(move || {
        flag2.store(1, Ordering::SeqCst);
        for _ in 0..work {
            counter2.fetch_add(1, Ordering::SeqCst);
        }
    });
    let user = thread::spawn(move || {
        for _ in 0..work {
            counter.fetch_add(1, Ordering::SeqCst);
        }
        assert_eq!(flag.load(Ordering::SeqCst), 1, "used before it was initialized");
    });
    init.join().unwrap();
    user.join().unwrap();
}

/// Runs and time to the first bug of one search on one program.
#[derive(Clone, Copy, Debug)]
struct Found {
    /// Executions run (to the bug, or to the end when none was found).
    runs: u64,
    /// Median time of the search.
    time: Duration,
    /// Whether the search found the bug.
    found: bool,
}

impl Found {
    fn show(&self) -> String {
        let ms = self.time.as_secs_f64() * 1e3;
        if self.found {
            format!("{} runs, {ms:.2} ms", self.runs)
        } else {
            format!("missed ({} runs, {ms:.2} ms)", self.runs)
        }
    }
}

fn search(strategy: SearchStrategy, f: fn()) -> Report {
    let builder = Builder::new().strategy(strategy).preemption_bound(2).persist(false).minimize(false);
    builder.explore(f).expect("samaritan: bad configuration")
}

fn measure(strategy: SearchStrategy, f: fn(), reps: usize) -> Found {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..reps {
        let (elapsed, report) = time(|| search(strategy, f));
        times.push(elapsed.as_secs_f64());
        last = Some(report);
    }
    let report = last.expect("at least one repetition");
    Found { runs: report.executions, time: Duration::from_secs_f64(median(&times)), found: report.is_failure() }
}

/// `b / a`, for runs or times, when both searches found the bug.
fn ratio(a: &Found, b: &Found, of: impl Fn(&Found) -> f64) -> String {
    if a.found && b.found && of(a) > 0.0 {
        format!("{:.2}", of(b) / of(a))
    } else {
        "-".to_string()
    }
}

/// Prints rows as a Markdown table, columns padded.
fn print_table(header: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.len());
        }
    }
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        println!("| {} |", padded.join(" | "));
    };
    line(header.iter().map(|h| h.to_string()).collect());
    line(widths.iter().map(|w| "-".repeat(*w)).collect());
    for row in rows {
        line(row.clone());
    }
}

fn bug_programs(reps: usize) {
    let programs: [(&str, fn()); 10] = [
        ("lost update, 2 threads", lost_update::two_increments),
        ("lost update, 3 threads", || lost_update(3)),
        ("lock-order deadlock (examples/)", lock_order_deadlock::transfer_and_audit),
        ("lock cycle, 3 threads", || lock_cycle(0)),
        ("lock cycle, 3 threads, 2 increments each first", || lock_cycle(2)),
        ("slides' null check (e2, e4, e3)", null_check),
        ("Cilk THE queue, check before claim", work_stealing::buggy),
        ("check before init, 2 threads adding 3 times", || check_before_init(3)),
        ("check before init, 2 threads adding 5 times", || check_before_init(5)),
        ("check after 3 shared additions each", || check_after_shared_work(3)),
    ];
    let mut rows = Vec::new();
    for (name, f) in programs {
        let [h, d, i] = SEARCHES.map(|(_, s)| measure(s, f, reps));
        let runs = |x: &Found| x.runs as f64;
        let secs = |x: &Found| x.time.as_secs_f64();
        rows.push(vec![
            name.to_string(),
            h.show(),
            d.show(),
            i.show(),
            ratio(&h, &d, runs),
            ratio(&h, &i, runs),
            ratio(&h, &d, secs),
            ratio(&h, &i, secs),
        ]);
    }
    println!("executions and time (median of {reps}) to the first bug; icb with bound 2; no minimization:");
    println!();
    print_table(
        &[
            "program",
            "hapset",
            "dpor",
            "icb",
            "runs dpor/hapset",
            "runs icb/hapset",
            "time dpor/hapset",
            "time icb/hapset",
        ],
        &rows,
    );
}

/// Outcomes the running exploration saw.
static SEEN: StdMutex<BTreeSet<Vec<u32>>> = StdMutex::new(BTreeSet::new());

fn generated_programs(count: usize) {
    // The agreement test's seed, `0x5eed_0f_d90f`.
    let mut g = generated::Gen(0x005e_ed0f_d90f);
    let mut found = [0usize; 3];
    let mut runs = [0u64; 3];
    for _ in 0..count {
        let program = generated::Program::generate(&mut g);
        SEEN.lock().unwrap().clear();
        let p = program.clone();
        let dfs = Builder::new().strategy(SearchStrategy::Dfs).persist(false).explore(move || {
            let outcome = p.run();
            SEEN.lock().unwrap().insert(outcome);
        });
        assert!(dfs.is_ok_and(|r| r.exhausted && !r.is_failure()), "{program:?}");
        // The rarest kind of bug, as in the agreement test: the last
        // outcome in order.
        let bad = SEEN.lock().unwrap().iter().next_back().cloned().expect("an outcome");
        for (k, (_, strategy)) in SEARCHES.iter().enumerate() {
            let (p, bad) = (program.clone(), bad.clone());
            let report = Builder::new()
                .strategy(*strategy)
                .preemption_bound(2)
                .persist(false)
                .minimize(false)
                .explore(move || assert_ne!(p.run(), bad, "the bad outcome"))
                .expect("samaritan: bad configuration");
            found[k] += usize::from(report.is_failure());
            runs[k] += report.executions;
        }
    }
    println!("generated programs (2-3 threads, locks and atomics): the rarest outcome found, and executions in all:");
    println!();
    let rows: Vec<Vec<String>> = SEARCHES
        .iter()
        .enumerate()
        .map(|(k, (name, _))| vec![name.to_string(), format!("{}/{count}", found[k]), runs[k].to_string()])
        .collect();
    print_table(&["search", "found", "executions"], &rows);
}

fn env_number(var: &str, default: usize) -> usize {
    std::env::var(var).ok().and_then(|v| v.trim().parse().ok()).unwrap_or(default)
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let (reps, count) = if full {
        (env_number("BENCH_REPS", 5).max(1), env_number("BENCH_HAPSET_PROGRAMS", 200))
    } else {
        println!("quick pass (no --bench): one repetition, 20 generated programs");
        (1, 20)
    };
    println!();
    bug_programs(reps);
    println!();
    generated_programs(count);
}

/// The program generator of `tests/reduction_agreement.rs`.
#[path = "../../tests/common/programs.rs"]
#[allow(dead_code)] // The cell programs are the agreement test's.
mod generated;
