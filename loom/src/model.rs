//! Model concurrent programs; loom's [`loom::model`] on samaritan's
//! explorer.
//!
//! [`loom::model`]: https://docs.rs/loom/0.7/loom/model/index.html

use std::path::PathBuf;
use std::time::Duration;

/// The default of [`Builder::max_threads`], as loom's.
const DEFAULT_MAX_THREADS: usize = 5;

/// The default of [`Builder::max_branches`], as loom's.
const DEFAULT_MAX_BRANCHES: usize = 1_000;

/// Configures a model; loom's fields, mapped to samaritan's
/// samaritan's `Builder` where they map.
///
/// What samaritan runs:
///
/// - `preemption_bound: None` (loom's default) explores every schedule up
///   to the order of independent steps, as loom does: samaritan's `dpor`
///   strategy. `Some(n)` runs what loom runs then, bounded partial-order
///   reduction (Coons, Musuvathi and McKinley, OOPSLA 2013): samaritan's
///   `bpor` at bound `n`, which counts the bound as loom does unless
///   `loom_bound` is off: an execution that has spent its `n`
///   preemptions takes no other switch of thread, free ones included
///   (loom's `Schedule::backtrack` adds nothing to such a point). The
///   pass summary says "(loom's bound)". With `loom_bound` off, every
///   execution with at most `n` preemptions is covered, usually at many
///   times the executions.
/// - `max_branches` set to anything but loom's default of 1000 is
///   samaritan's step bound (`max_steps`): an execution that takes more
///   steps fails, as loom's panics past that many branches. At 1000,
///   samaritan's own bound applies (`SAMARITAN_MAX_STEPS`, 100000 by
///   default): samaritan counts every operation as a step where loom
///   counts only its branches, so a loom test well within 1000 branches
///   can take more than 1000 steps.
/// - `max_permutations` is samaritan's execution budget, `max_duration`
///   its time budget (`None`, loom's default, is no time limit; samaritan's
///   own default of one minute does not apply). A search a budget stops
///   passes, and says so on standard error.
/// - Spurious failures are off unless `spurious_failures` is set (from
///   `SAMARITAN_SPURIOUS_FAILURES`), as loom: loom's `Condvar::wait` and
///   `thread::park` never wake spuriously and its `compare_exchange_weak`
///   never fails spuriously, and a suite written against loom has never
///   met one. samaritan's own default explores them (std allows all
///   three), which multiplies the executions of every condvar-heavy
///   test: concurrent-queue's `spsc` at bound 4 (BENCHMARKS.md, "The
///   published suites").
/// - A failing compare-exchange reads the newest store, as loom's
///   (`cas_reads_newest`, on unless `SAMARITAN_MEMORY_MODEL` is set): C11
///   lets it read an older store, as a load could, and exploring those
///   reads multiplies the executions of every compare-exchange retry loop
///   (a Treiber stack under crossbeam-epoch: no verdict in 600 s, and 72 s
///   without them where loom takes 19 s; BENCHMARKS.md). Every pass summary says so;
///   `SAMARITAN_MEMORY_MODEL=weak` explores the whole C11 model.
/// - `max_threads`, `checkpoint_file`, `checkpoint_interval`,
///   `expect_explicit_explore`, `location` and `log` are accepted and
///   ignored: samaritan has no thread limit, replays a failure from the
///   token its report prints (`SAMARITAN_REPLAY`), always prints source
///   locations and a trace, and does not implement [`crate::explore`].
///
/// samaritan's other settings still default from their `SAMARITAN_*`
/// variables (fairness, seed, stack size, watchdog, replay).
#[derive(Debug)]
#[non_exhaustive]
pub struct Builder {
    /// Ignored: samaritan does not limit the number of threads. Defaults
    /// to 5, as loom's.
    pub max_threads: usize,

    /// Maximum number of steps of one execution (samaritan's step bound),
    /// unless it is 1000, loom's default (then samaritan's own bound).
    ///
    /// Defaults to the `LOOM_MAX_BRANCHES` environment variable, else 1000.
    pub max_branches: usize,

    /// Maximum number of executions (samaritan's execution budget).
    ///
    /// Defaults to the `LOOM_MAX_PERMUTATIONS` environment variable.
    pub max_permutations: Option<usize>,

    /// Maximum time to explore (samaritan's time budget).
    ///
    /// Defaults to the `LOOM_MAX_DURATION` environment variable (seconds).
    pub max_duration: Option<Duration>,

    /// Maximum number of preemptions per execution.
    ///
    /// Defaults to the `LOOM_MAX_PREEMPTIONS` environment variable.
    pub preemption_bound: Option<usize>,

    /// Ignored: samaritan's report prints a replay token instead.
    ///
    /// Defaults to the `LOOM_CHECKPOINT_FILE` environment variable.
    pub checkpoint_file: Option<PathBuf>,

    /// Ignored. Defaults to the `LOOM_CHECKPOINT_INTERVAL` environment
    /// variable, else 20000.
    pub checkpoint_interval: usize,

    /// Ignored: [`crate::explore`] and [`crate::stop_exploring`] do nothing.
    pub expect_explicit_explore: bool,

    /// Ignored: samaritan's trace always has source locations.
    ///
    /// Defaults to the existence of the `LOOM_LOCATION` environment variable.
    pub location: bool,

    /// Ignored: samaritan's report always has the trace.
    ///
    /// Defaults to the existence of the `LOOM_LOG` environment variable.
    pub log: bool,

    /// Whether `Condvar::wait` and `thread::park` may wake spuriously and
    /// `compare_exchange_weak` may fail spuriously, each an explored
    /// choice (samaritan's, not loom's: loom explores none of them).
    ///
    /// Defaults to the `SAMARITAN_SPURIOUS_FAILURES` environment variable
    /// (`1` or `0`), else `false`, as loom.
    pub spurious_failures: bool,

    /// Whether a preemption bound counts as loom's does: once an execution
    /// has spent it, no other switch of thread, free ones included, is
    /// explored (samaritan's, not loom's: loom has no other way).
    ///
    /// Defaults to the `SAMARITAN_LOOM_BOUND` environment variable (`1`
    /// or `0`), else `true`, as loom.
    pub loom_bound: bool,

    /// Whether a failing compare-exchange reads only the newest store, as
    /// loom's does (samaritan's `MemoryModel::WeakCasNewest`), where the
    /// C11 model lets it read any store a load could: an approximation,
    /// named in every pass summary. `false` leaves the model to
    /// samaritan's own setting (`SAMARITAN_MEMORY_MODEL`, C11 by default).
    ///
    /// Defaults to `true` when `SAMARITAN_MEMORY_MODEL` is unset, as loom;
    /// setting that variable (`weak` for the whole C11 model) turns it off.
    pub cas_reads_newest: bool,
}

/// Reads `name` as a `T`, panicking as loom does on a bad value.
fn var<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().map(|v| v.parse().unwrap_or_else(|_| panic!("invalid value for `{name}`")))
}

/// Reads a samaritan flag (`1`, `0`, `true`, `false`), panicking as [`var`]
/// does on another value.
fn flag(name: &str) -> Option<bool> {
    std::env::var(name).ok().map(|v| match v.trim() {
        "1" | "true" => true,
        "0" | "false" => false,
        _ => panic!("invalid value for `{name}`: expected 1 or 0"),
    })
}

impl Builder {
    /// Creates a builder from the `LOOM_*` environment variables, as
    /// loom's.
    pub fn new() -> Builder {
        Builder {
            max_threads: DEFAULT_MAX_THREADS,
            max_branches: var("LOOM_MAX_BRANCHES").unwrap_or(DEFAULT_MAX_BRANCHES),
            max_permutations: var("LOOM_MAX_PERMUTATIONS"),
            max_duration: var("LOOM_MAX_DURATION").map(Duration::from_secs),
            preemption_bound: var("LOOM_MAX_PREEMPTIONS"),
            checkpoint_file: var("LOOM_CHECKPOINT_FILE"),
            checkpoint_interval: var("LOOM_CHECKPOINT_INTERVAL").unwrap_or(20_000),
            expect_explicit_explore: false,
            location: std::env::var("LOOM_LOCATION").is_ok(),
            log: std::env::var("LOOM_LOG").is_ok(),
            spurious_failures: flag("SAMARITAN_SPURIOUS_FAILURES").unwrap_or(false),
            loom_bound: flag("SAMARITAN_LOOM_BOUND").unwrap_or(true),
            cas_reads_newest: std::env::var_os("SAMARITAN_MEMORY_MODEL").is_none(),
        }
    }

    /// Sets the checkpoint file (ignored, as the field).
    pub fn checkpoint_file(&mut self, file: &str) -> &mut Self {
        self.checkpoint_file = Some(file.into());
        self
    }

    /// The samaritan builder these settings map to.
    #[cfg(feature = "sim")]
    #[cfg_attr(docsrs, doc(cfg(feature = "sim")))]
    pub fn to_samaritan(&self) -> samaritan::Builder {
        use samaritan::SearchStrategy;

        let mut b = samaritan::Builder::new().spurious_failures(self.spurious_failures);
        if self.cas_reads_newest {
            b = b.memory_model(samaritan::MemoryModel::WeakCasNewest);
        }
        if self.max_branches != DEFAULT_MAX_BRANCHES {
            b = b.max_steps(self.max_branches as u64);
        }
        b = match self.preemption_bound {
            // Loom's count of a bound has nothing to count here.
            None => b.strategy(SearchStrategy::Dpor).loom_bound(false),
            Some(n) => b
                .strategy(SearchStrategy::Bpor)
                .preemption_bound(u32::try_from(n).unwrap_or(u32::MAX))
                .loom_bound(self.loom_bound),
        };
        b = match self.max_duration {
            None => b.unlimited_time(),
            Some(d) => b.max_time(d),
        };
        if let Some(n) = self.max_permutations {
            b = b.max_executions(n as u64);
        }
        b
    }

    /// Explores `f`: runs it once per schedule, panicking with samaritan's
    /// report (verdict, trace, replay token) at the first failure.
    ///
    /// # Panics
    ///
    /// On a failure, and without the `sim` feature.
    #[track_caller]
    pub fn check<F>(&self, f: F)
    where
        F: Fn() + Sync + Send + 'static,
    {
        #[cfg(feature = "sim")]
        self.to_samaritan().site(std::panic::Location::caller()).check(f);
        #[cfg(not(feature = "sim"))]
        {
            let _ = f;
            panic!(
                "samaritan-loom explores only with its `sim` feature: depend on it with `features = [\"sim\"]` \
                 (under `[patch.crates-io] loom`, it is on for `--cfg loom`, `crossbeam_loom` and `oneshot_loom`; \
                 for another cfg, add `samaritan-loom = {{ path = \"...\", features = [\"sim\"] }}` to your \
                 dev-dependencies)"
            );
        }
    }
}

impl Default for Builder {
    /// [`Builder::new`], as loom's.
    fn default() -> Builder {
        Builder::new()
    }
}

/// Runs all concurrent permutations of `f`, with a [`Builder`] read from
/// the `LOOM_*` environment variables.
#[track_caller]
pub fn model<F>(f: F)
where
    F: Fn() + Sync + Send + 'static,
{
    Builder::new().check(f);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The only test of this binary: it sets environment variables, which
    /// no other thread may read meanwhile.
    #[test]
    fn builder_reads_loom_variables() {
        std::env::set_var("LOOM_MAX_PREEMPTIONS", "3");
        std::env::set_var("LOOM_MAX_BRANCHES", "500");
        std::env::set_var("LOOM_MAX_DURATION", "7");
        std::env::set_var("LOOM_MAX_PERMUTATIONS", "100");
        std::env::set_var("SAMARITAN_SPURIOUS_FAILURES", "1");
        std::env::set_var("SAMARITAN_LOOM_BOUND", "0");
        std::env::set_var("SAMARITAN_MEMORY_MODEL", "weak");
        let b = Builder::new();
        assert_eq!(
            (b.preemption_bound, b.max_branches, b.max_duration, b.max_permutations, b.spurious_failures, b.loom_bound),
            (Some(3), 500, Some(Duration::from_secs(7)), Some(100), true, false)
        );
        assert!(!b.cas_reads_newest);
        std::env::set_var("SAMARITAN_SPURIOUS_FAILURES", "yes");
        let err = std::panic::catch_unwind(Builder::new).unwrap_err();
        assert_eq!(
            err.downcast_ref::<String>().unwrap(),
            "invalid value for `SAMARITAN_SPURIOUS_FAILURES`: expected 1 or 0"
        );
        std::env::set_var("LOOM_MAX_PREEMPTIONS", "three");
        let err = std::panic::catch_unwind(Builder::new).unwrap_err();
        assert_eq!(err.downcast_ref::<String>().unwrap(), "invalid value for `LOOM_MAX_PREEMPTIONS`");
        for name in [
            "LOOM_MAX_PREEMPTIONS",
            "LOOM_MAX_BRANCHES",
            "LOOM_MAX_DURATION",
            "LOOM_MAX_PERMUTATIONS",
            "SAMARITAN_SPURIOUS_FAILURES",
            "SAMARITAN_LOOM_BOUND",
            "SAMARITAN_MEMORY_MODEL",
        ] {
            std::env::remove_var(name);
        }
        let b = Builder::new();
        assert_eq!(
            (b.preemption_bound, b.max_branches, b.max_duration, b.spurious_failures, b.loom_bound),
            (None, 1_000, None, false, true)
        );
        assert!(b.cas_reads_newest);
    }
}
