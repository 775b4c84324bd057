//! What the thread that watches an exploration sees of it, and the
//! progress lines it prints while a long search runs.
//!
//! The exploring thread publishes counters after every step or execution
//! (cheap relaxed stores). Every two seconds the watcher asks for a
//! description of where the search is ([`Strategy::progress`]), which the
//! exploring thread writes at the end of its next execution, never more
//! often: describing costs nothing on the hot path.

use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::strategy::Strategy;

/// Shared with the watchdog: how far the exploration has got.
#[derive(Debug, Default)]
pub(crate) struct Progress {
    pub(crate) steps: AtomicU64,
    pub(crate) executions: AtomicU64,
    /// Executions that turned out to be another shard's (not counted in
    /// `executions`).
    pub(crate) elsewhere: AtomicU64,
    /// The actor running (or starting) most recently.
    pub(crate) actor: AtomicU32,
    /// Names given to actors of the running execution, by index.
    pub(crate) names: Mutex<Vec<(u32, String)>>,
    /// Set by the watchdog when it gave up on the exploration: it stops at
    /// the next execution instead of running on unseen.
    pub(crate) cancelled: AtomicBool,
    /// The OS thread exploring right now (`throttle::this_thread`), while
    /// its job runs (`throttle` module invariant).
    pub(crate) explorer: Mutex<Option<u64>>,
    /// Set by the watcher when it wants [`Progress::phase`] renewed.
    want: AtomicBool,
    /// Where the search is, as the strategy says it.
    phase: Mutex<Option<String>>,
    /// Set between executions (the engine and the strategy learning how
    /// one ended and preparing the next, a worker waiting for work another
    /// will give): no user code runs, so the watchdog does not count it as
    /// silence (up to a limit: `search.rs`). The search sets it before its
    /// first execution.
    pub(crate) between: AtomicBool,
}

impl Progress {
    /// Called by the exploring thread after each execution: writes where
    /// the search is if the watcher asked.
    pub(crate) fn describe(&self, strategy: &dyn Strategy) {
        if self.want.load(Ordering::Relaxed) {
            self.want.store(false, Ordering::Relaxed);
            *self.phase.lock().unwrap_or_else(|p| p.into_inner()) = strategy.progress();
        }
    }
}

/// How often a long search prints a line, and after how long the first.
pub(crate) const EVERY: Duration = Duration::from_secs(2);

/// The watcher's side: prints a progress line on standard error every
/// [`EVERY`] once the search has run that long.
#[derive(Debug)]
pub(crate) struct Lines {
    /// What the lines are about: the test's name, or the strategy's.
    label: String,
    started: Instant,
    next: Instant,
    /// Executions and time at the last line, for the rate.
    last: (u64, Instant),
    /// The count of every worker of a parallel search, which the lines
    /// show instead of this search's own.
    total: Option<Arc<AtomicU64>>,
}

impl Lines {
    pub(crate) fn new(label: String, total: Option<Arc<AtomicU64>>) -> Lines {
        let now = Instant::now();
        Lines { label, started: now, next: now + EVERY, last: (0, now), total }
    }

    /// The executions a line reports: every worker's, when shared.
    fn executions(&self, progress: &Progress) -> u64 {
        match &self.total {
            Some(total) => total.load(Ordering::Relaxed),
            None => progress.executions.load(Ordering::Relaxed),
        }
    }

    /// Prints a line if one is due; asks for a fresh description shortly
    /// before.
    pub(crate) fn tick(&mut self, progress: &Progress, poll: Duration) {
        let now = Instant::now();
        if now + poll >= self.next {
            progress.want.store(true, Ordering::Relaxed);
        }
        if now < self.next {
            return;
        }
        let executions = self.executions(progress);
        let rate = (executions - self.last.0) as f64 / now.duration_since(self.last.1).as_secs_f64().max(1e-9);
        let phase = progress.phase.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let line = line(&self.label, now.duration_since(self.started), executions, rate, phase.as_deref());
        // Straight to the stream, not through the test harness's capture:
        // a long search is worth seeing while it runs.
        let _ = std::io::stderr().write_all(line.as_bytes());
        self.last = (executions, now);
        while self.next <= now {
            self.next += EVERY;
        }
    }
}

/// One progress line: what, how long, how many executions and how fast,
/// and where the search is.
fn line(label: &str, elapsed: Duration, executions: u64, rate: f64, phase: Option<&str>) -> String {
    let mut line = format!(
        "samaritan: {label}: {:.0} s, {} executions ({}/s)",
        elapsed.as_secs_f64(),
        grouped(executions),
        grouped(rate as u64)
    );
    if let Some(phase) = phase {
        line.push_str(", ");
        line.push_str(phase);
    }
    line.push('\n');
    line
}

/// `n` with a comma between groups of three digits.
pub(crate) fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_of_a_parallel_search_count_every_workers_executions() {
        let progress = Progress::default();
        progress.executions.store(3, Ordering::Relaxed);
        assert_eq!(Lines::new("t".into(), None).executions(&progress), 3);
        let total = Arc::new(AtomicU64::new(10));
        assert_eq!(Lines::new("t".into(), Some(total)).executions(&progress), 10);
    }

    #[test]
    fn a_search_adds_each_counted_execution_to_the_shared_count() {
        use crate::{explore, Config, Replay, Schedule};
        let count = Arc::new(AtomicU64::new(5));
        let config = Config { shared_count: Some(count.clone()), progress: false, ..Config::default() };
        let empty = Schedule {
            strategy: "dfs".into(),
            seed: None,
            choices: vec![],
            fingerprint: 0,
            fair: true,
            memory_model: crate::config::MemoryModel::Weak,
        };
        let report = explore(config, Box::new(Replay::new(empty)), Arc::new(|| {}));
        assert_eq!((report.executions, count.load(Ordering::Relaxed)), (1, 6));
    }

    #[test]
    fn a_line_says_what_how_long_how_many_how_fast_and_where() {
        let phase = Some("cb-por at bound 2, bound 1 complete, 120 randomized");
        assert_eq!(
            line("queue_is_correct", Duration::from_millis(4_020), 1_234_567, 310_050.7, phase),
            "samaritan: queue_is_correct: 4 s, 1,234,567 executions (310,050/s), cb-por at bound 2, bound 1 complete, 120 randomized\n"
        );
        assert_eq!(line("icb", Duration::from_secs(2), 9, 4.5, None), "samaritan: icb: 2 s, 9 executions (4/s)\n");
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!([grouped(0), grouped(999), grouped(1_000), grouped(1_234_567)], ["0", "999", "1,000", "1,234,567"]);
    }
}
