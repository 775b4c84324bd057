//! Parallel exploration: the shards of one search run side by side, one
//! worker each, and one report for them all.
//!
//! Each worker is a whole exploration ([`explore`]) of its own part on its
//! own exploring thread; workers share the body, a stop flag each, and,
//! for a search shared out by work stealing, the strategies' own pool.
//! Which failure is reported does not depend on timing. For parts fixed in
//! advance (shards), the failure of the lowest-numbered worker that finds
//! one: a worker that finds a failure (or a misuse) stops the workers
//! numbered above it, whose failures could not be reported; those below
//! run on to their end, since one of them may still find a failure that
//! comes first. For work stealing, the failure of lowest rank
//! ([`Strategy::rank`]: its place in the one-worker order): a worker that
//! finds one stops itself, and the others drop the work that comes after
//! it. A verdict about the test rather than a schedule (a misuse, a worker
//! blocked outside the engine's sight) stops every worker, through the
//! flag each strategy was given too ([`Strategy::set_cancel`]), so that
//! none waits for work a stalled one will never give.
//!
//! Invariant: the merged report of a search that passes counts exactly the
//! executions its workers ran (for shards of an exact partition, those of
//! one worker searching the whole space).

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

use crate::config::{Body, Config};
use crate::explore::explore;
use crate::outcome::Outcome;
use crate::report::Report;
use crate::shard::Shard;
use crate::strategy::Strategy;

/// Explores `body` with one worker per strategy in `parts` (the shards of
/// one search, in order), at once, and merges their reports.
///
/// A budget of executions ([`Config::max_executions`]) is split between
/// the workers (each runs at least one); a time budget applies to each.
/// The first worker prints the progress lines, counting every worker's
/// executions. With one part this is
/// [`explore`].
///
/// # Panics
///
/// If `parts` is empty.
///
/// ```
/// use std::sync::Arc;
/// use samaritan_sim::{explore_parallel, Config, Outcome, Replay, Schedule, Strategy};
///
/// // Two "workers" that each replay the empty schedule once.
/// let empty = Schedule { strategy: "dfs".into(), seed: None, choices: vec![], fingerprint: 0, fair: true, memory_model: samaritan_sim::MemoryModel::Weak };
/// let part = || Box::new(Replay::new(empty.clone())) as Box<dyn Strategy + Send>;
/// let report = explore_parallel(Config::default(), vec![part(), part()], Arc::new(|| {}));
/// assert_eq!((report.outcome, report.executions, report.workers), (Outcome::Pass, 2, 2));
/// ```
pub fn explore_parallel(config: Config, mut parts: Vec<Box<dyn Strategy + Send>>, body: Body) -> Report {
    assert!(!parts.is_empty(), "explore_parallel needs at least one part");
    if parts.len() == 1 {
        return explore(config, parts.remove(0), body);
    }
    let n = parts.len() as u32;
    let stops: Vec<Arc<AtomicBool>> = (0..n).map(|_| Arc::default()).collect();
    let total: Arc<AtomicU64> = Arc::default();
    let (tx, rx) = mpsc::channel();
    let mut reports: Vec<Option<Report>> = (0..n).map(|_| None).collect();
    let mut panicked = None;
    std::thread::scope(|scope| {
        for (i, strategy) in parts.into_iter().enumerate() {
            let mut config = config.clone();
            let shard = Shard::new(i as u32 + 1, n).expect("at most MAX_SHARDS workers");
            config.max_executions = config.max_executions.map(|m| shard.share(m).max(1));
            config.progress &= i == 0;
            config.cancel = Some(stops[i].clone());
            config.shared_count = Some(total.clone());
            let (tx, body) = (tx.clone(), body.clone());
            std::thread::Builder::new()
                .name(format!("samaritan-worker-{}", i + 1))
                .spawn_scoped(scope, move || {
                    // A panic of the engine reaches the caller with its
                    // message, as `explore`'s would.
                    let report = panic::catch_unwind(AssertUnwindSafe(|| explore(config, strategy, body)));
                    let _ = tx.send((i, report));
                })
                .expect("samaritan: cannot start a worker thread");
        }
        drop(tx);
        for (i, report) in rx {
            match report {
                Ok(report) => {
                    let outcome = &report.outcome;
                    if outcome.is_misuse() || matches!(outcome, Outcome::UncontrolledBlocking { .. }) {
                        // About the test, not a schedule: no worker can
                        // find anything that counts more, and a worker
                        // waiting for work from a stalled one would wait
                        // for ever.
                        stops.iter().for_each(|stop| stop.store(true, Ordering::Relaxed));
                    } else if !outcome.is_pass() && ranked(&report).is_none() {
                        // Workers above `i` cannot win any more. (A ranked
                        // failure stops no one: the workers share their
                        // work, and drop what comes after it themselves.)
                        stops[i + 1..].iter().for_each(|stop| stop.store(true, Ordering::Relaxed));
                    }
                    reports[i] = Some(report);
                }
                Err(payload) => {
                    stops.iter().for_each(|stop| stop.store(true, Ordering::Relaxed));
                    panicked.get_or_insert(payload);
                }
            }
        }
    });
    if let Some(payload) = panicked {
        panic::resume_unwind(payload);
    }
    merge(reports.into_iter().map(|r| r.expect("every worker reports")).collect())
}

/// The rank of a failure found by a worker of a search shared out by work
/// stealing (a misuse has none: it is about the test, not a schedule).
fn ranked(report: &Report) -> Option<&[u32]> {
    report.rank.as_deref().filter(|_| !report.outcome.is_misuse())
}

/// One report for the workers' `reports` (in worker order): the failure
/// of the first that failed (an unranked one first: a misuse, a stalled
/// worker, or a part of a search cut into fixed parts; else the lowest
/// ranked), else a pass; counts added up, exhaustion and bounds only as
/// far as every worker got.
fn merge(reports: Vec<Report>) -> Report {
    let workers = reports.len() as u32;
    let failing = reports.iter().enumerate().filter(|(_, r)| !r.outcome.is_pass());
    let winner = failing.min_by_key(|&(i, r)| (ranked(r).is_some(), ranked(r), i)).map_or(0, |(i, _)| i);
    let sum = |f: fn(&Report) -> u64| reports.iter().map(f).sum::<u64>();
    let (executions, pruned, randomized, elsewhere) =
        (sum(|r| r.executions), sum(|r| r.pruned), sum(|r| r.randomized), sum(|r| r.elsewhere));
    let exhausted = reports.iter().all(|r| r.exhausted);
    let bounded = reports.iter().any(|r| r.bounded);
    let completed_bound = reports.iter().map(|r| r.completed_bound).min().flatten();
    let longest = reports.iter().map(|r| r.longest).max().unwrap_or(0);
    let faults = reports.iter().any(|r| r.faults);
    let stopped = reports.iter().find_map(|r| r.stopped);
    let states = reports.iter().filter_map(|r| r.states).max();
    let hapset_pairs = reports.iter().filter_map(|r| r.hapset_pairs).max();
    let first = reports.into_iter().nth(winner).expect("a winner among the reports");
    Report {
        executions,
        pruned,
        randomized,
        elsewhere,
        exhausted,
        bounded,
        completed_bound,
        longest,
        faults,
        stopped,
        states,
        hapset_pairs,
        workers,
        ..first
    }
}
