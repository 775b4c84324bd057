//! Exploration entry points: [`check`], [`replay`] and the [`Builder`].

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use samaritan_sim::{Config, MemoryModel, Report, Schedule, Shard, Strategy, TokenError, Trace};
use samaritan_strategies::{CbPor, Coverage, CoverageError, Dfs, Dpor, Icb, Pct, Portfolio, Random, RoundRobin};

use crate::runner_shard::{self, ShardEnvError, ShardSource};
use crate::{env, foreign, limits, persist, split};

/// Which search to run.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchStrategy {
    /// The default: a portfolio that interleaves, execution by execution,
    /// a systematic search (partial-order reduction under a preemption
    /// bound, [`SearchStrategy::CbPor`], at bound 0, then 1, up to
    /// [`Builder::preemption_bound`]) with randomized bug hunters (PCT at
    /// [`Builder::pct_depth`] and uniform random search, from
    /// [`Builder::seed`]), which find shallow bugs in programs with many
    /// threads long before a systematic search would. A pass says what the
    /// systematic part covered, plus how many randomized executions ran; a
    /// replay token names the part that found the bug.
    Portfolio,
    /// Iterative context bounding: every schedule with 0 preemptions, then
    /// 1, up to [`Builder::preemption_bound`]. A bug is found with the
    /// fewest preemptions that expose it.
    Icb,
    /// Every schedule, depth first, with no bound on preemptions.
    Dfs,
    /// Uniformly random schedules from a seed.
    Random,
    /// Probabilistic concurrency testing: random priorities with
    /// [`Builder::pct_depth`]` - 1` priority change points, from a seed.
    Pct,
    /// Switch at every scheduling point (one execution).
    RoundRobin,
    /// Dynamic partial-order reduction with sleep sets: every schedule up
    /// to the order of independent steps, one execution per order of the
    /// dependent ones (plus executions cut short as redundant). Exhaustive
    /// like [`SearchStrategy::Dfs`], with no bound on preemptions.
    Dpor,
    /// Partial-order reduction under a preemption bound (Musuvathi and
    /// Qadeer's Algorithm 2): every execution with at most
    /// [`Builder::preemption_bound`] preemptions, up to the order of
    /// independent steps, once. Sound where sleep sets plus a bound are
    /// not.
    CbPor,
    /// Bounded partial-order reduction (Coons, Musuvathi and McKinley,
    /// OOPSLA 2013), what loom runs under `LOOM_MAX_PREEMPTIONS`: DPOR
    /// whose choices stay within [`Builder::preemption_bound`] (a fault
    /// the platform injects counting as a preemption), with a backtrack
    /// point at the latest context switch before each race besides the
    /// race's own, and without sleep sets. One execution per order of
    /// dependent steps that the bound allows, usually far fewer than
    /// [`SearchStrategy::CbPor`]'s, each cheaper to run; `cb-por` never
    /// runs more than [`SearchStrategy::Icb`] and carries the proof of its
    /// paper, `bpor` that of its own. samaritan-loom's search when a
    /// preemption bound is set.
    Bpor,
    /// DPOR with HaPSet coverage pruning (Wang, Said and Gupta, ICSE
    /// 2011): a backtrack choice is skipped when every predecessor pair it
    /// would create (a statement after a statement, by the same thread or
    /// another) — its step's, and those of the races it reverses — has
    /// been covered already. The covered pairs can be kept in a file
    /// ([`Builder::hapset_file`]) to guide later runs.
    ///
    /// Not complete: a skipped choice can be the only way to a bug, so a
    /// pass is not a proof. It is a coverage heuristic to find bugs in
    /// fewer executions than [`SearchStrategy::Dpor`].
    HapSet,
}

impl SearchStrategy {
    /// The strategy `name` stands for, as `SAMARITAN_STRATEGY` and
    /// `#[samaritan::test(strategy = "...")]` spell it.
    pub(crate) fn from_name(name: &str) -> Option<SearchStrategy> {
        Some(match name {
            "portfolio" => SearchStrategy::Portfolio,
            "icb" => SearchStrategy::Icb,
            "dfs" => SearchStrategy::Dfs,
            "random" => SearchStrategy::Random,
            "pct" => SearchStrategy::Pct,
            "round-robin" => SearchStrategy::RoundRobin,
            "dpor" => SearchStrategy::Dpor,
            "cb-por" => SearchStrategy::CbPor,
            "bpor" => SearchStrategy::Bpor,
            "hapset" => SearchStrategy::HapSet,
            _ => return None,
        })
    }

    /// The strategy's name, as [`SearchStrategy::from_name`] reads it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            SearchStrategy::Portfolio => "portfolio",
            SearchStrategy::Icb => "icb",
            SearchStrategy::Dfs => "dfs",
            SearchStrategy::Random => "random",
            SearchStrategy::Pct => "pct",
            SearchStrategy::RoundRobin => "round-robin",
            SearchStrategy::Dpor => "dpor",
            SearchStrategy::CbPor => "cb-por",
            SearchStrategy::Bpor => "bpor",
            SearchStrategy::HapSet => "hapset",
        }
    }
}

/// Why an exploration could not start.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// An environment variable has a value that cannot be used.
    InvalidEnv {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
        /// What it should be.
        expected: &'static str,
    },
    /// A [`Builder`] setting is out of range (see the setter's
    /// documentation).
    InvalidSetting {
        /// The setter, as in `Builder::pct_depth`.
        setting: &'static str,
        /// Its value.
        value: String,
        /// What it should be.
        expected: &'static str,
    },
    /// A replay token could not be read.
    Token(TokenError),
    /// The HaPSet coverage file ([`Builder::hapset_file`]) could not be
    /// read (a missing file is empty coverage, not an error) or written.
    HapsetFile(CoverageError),
    /// The search was to be split ([`Builder::shard`],
    /// [`Builder::workers`]) but its strategy's space cannot be cut yet.
    Unsplittable {
        /// The strategy, as `SAMARITAN_STRATEGY` names it.
        strategy: &'static str,
    },
    /// A test runner's sharding variables (Bazel's, GitLab's, a Kubernetes
    /// Indexed Job's, nextest's stress runs) are partial, out of range or
    /// contradictory, and `SAMARITAN_SHARD` does not override them.
    ShardEnv {
        /// What is wrong, naming the variables.
        problem: String,
    },
    /// The report file ([`Builder::report_file`]) could not be written.
    ReportFile {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidEnv { var, value, expected } => write!(f, "{var}={value:?} is invalid: expected {expected}"),
            Error::InvalidSetting { setting, value, expected } => {
                write!(f, "Builder::{setting}({value}) is invalid: expected {expected}")
            }
            Error::Token(err) => err.fmt(f),
            Error::HapsetFile(err) => err.fmt(f),
            Error::Unsplittable { strategy } => write!(
                f,
                "strategy {strategy} cannot be split into shards or workers: use {} ({})",
                split::SPLITTABLE,
                env::STRATEGY
            ),
            Error::ShardEnv { problem } => write!(
                f,
                "{problem}: set {}=i/n to choose the part, or {}=1/1 to explore the whole space",
                env::SHARD,
                env::SHARD
            ),
            Error::ReportFile { path, message } => {
                write!(f, "cannot write the report file {}: {message}", path.display())
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Token(err) => Some(err),
            Error::HapsetFile(err) => Some(err),
            Error::InvalidEnv { .. }
            | Error::InvalidSetting { .. }
            | Error::Unsplittable { .. }
            | Error::ShardEnv { .. }
            | Error::ReportFile { .. } => None,
        }
    }
}

impl From<TokenError> for Error {
    fn from(err: TokenError) -> Error {
        Error::Token(err)
    }
}

/// Configures an exploration. Every setting defaults from its `SAMARITAN_*`
/// environment variable (see [`crate::env`]).
///
/// [`Builder::check`] panics with the report of a failure, as [`check`]
/// does; [`Builder::explore`] returns the [`Report`] for code to read.
///
/// ```
/// use samaritan::sync::atomic::{AtomicUsize, Ordering};
/// use samaritan::sync::Arc;
/// use samaritan::{thread, Builder, Outcome, SearchStrategy};
///
/// // Two threads each add one: DFS explores every order of the steps.
/// let report = Builder::new()
///     .strategy(SearchStrategy::Dfs)
///     .max_executions(100)
///     .explore(|| {
///         let n = Arc::new(AtomicUsize::new(0));
///         let handles: Vec<_> = (0..2)
///             .map(|_| {
///                 let n = n.clone();
///                 thread::spawn(move || {
///                     n.fetch_add(1, Ordering::SeqCst);
///                 })
///             })
///             .collect();
///         for h in handles {
///             h.join().unwrap();
///         }
///         assert_eq!(n.load(Ordering::SeqCst), 2);
///     })
///     .unwrap();
/// assert_eq!((report.outcome, report.executions, report.exhausted), (Outcome::Pass, 5, true));
/// ```
#[non_exhaustive]
#[derive(Clone, Debug)]
pub struct Builder {
    /// The search. Defaults to `SAMARITAN_STRATEGY`, else the portfolio
    /// ([`SearchStrategy::Portfolio`]).
    pub strategy: SearchStrategy,
    /// Most preemptions per execution for the bounded searches (the
    /// portfolio's systematic part, [`SearchStrategy::Icb`],
    /// [`SearchStrategy::CbPor`], [`SearchStrategy::Bpor`]). Defaults to
    /// `SAMARITAN_PREEMPTIONS`,
    /// else 2.
    pub preemption_bound: u32,
    /// Whether [`SearchStrategy::Bpor`] counts its bound as loom does
    /// ([`Builder::loom_bound`]). Defaults to `SAMARITAN_LOOM_BOUND`, else
    /// false.
    pub loom_bound: bool,
    /// Whether the fair demonic scheduler is on: spin loops that yield
    /// terminate, and divergence is reported as a livelock or a
    /// good-samaritan violation. Defaults to `SAMARITAN_FAIRNESS`, else on.
    pub fairness: bool,
    /// Bug depth `d` for [`SearchStrategy::Pct`] and the portfolio's PCT
    /// part, from 1 to 64. Defaults to `SAMARITAN_PCT_DEPTH`, else 3.
    pub pct_depth: u32,
    /// Steps per execution, at least 1 (above 16777216 counts as that).
    /// Defaults to `SAMARITAN_MAX_STEPS`, else 100000.
    pub max_steps: u64,
    /// Executions per exploration, at least 1. Defaults to
    /// `SAMARITAN_MAX_EXECUTIONS`, else unbounded (1000 for random search
    /// and PCT).
    pub max_executions: Option<u64>,
    /// Time per exploration, more than zero, checked after each execution.
    /// Defaults to `SAMARITAN_MAX_TIME` (seconds, or `none`), else one
    /// minute. A search
    /// the budget stops passes with a verdict that says so and what was
    /// covered, and [`Builder::check`] prints that on standard error.
    pub max_time: Option<Duration>,
    /// Seed for random search and PCT (also the portfolio's). Defaults to
    /// `SAMARITAN_SEED`, else 0.
    pub seed: u64,
    /// Coroutine stack size, at most 1 GiB (below 16 KiB counts as 16 KiB).
    /// Defaults to `SAMARITAN_STACK_SIZE`, else 2 MiB (as std threads). A
    /// simulated thread that overflows it ends the execution with a `stack
    /// overflow` verdict (on Linux x86-64 and AArch64).
    pub stack_size: usize,
    /// Silence before uncontrolled blocking is reported, at least 100 ms.
    /// Defaults to `SAMARITAN_WATCHDOG_MS`, else 10 s.
    pub watchdog: Duration,
    /// Whether weak compare-exchange may fail spuriously, and
    /// `Condvar::wait` and `thread::park` wake spuriously. Defaults to
    /// `SAMARITAN_SPURIOUS_FAILURES`, else true.
    pub spurious_failures: bool,
    /// How atomics behave: the C11 memory model (loads may read older
    /// stores, `Ordering`s honoured), sequential consistency, or the C11
    /// model with loom's failing compare-exchange. Defaults to
    /// `SAMARITAN_MEMORY_MODEL` (`weak`, `sc` or `weak-cas-newest`), else
    /// [`MemoryModel::Weak`].
    pub memory_model: MemoryModel,
    /// A token to replay instead of exploring. Defaults to `SAMARITAN_REPLAY`.
    pub replay: Option<String>,
    /// Whether a failing schedule is shrunk (fewer preemptions, threads and
    /// steps) before it is reported. Defaults to `SAMARITAN_MINIMIZE`, else
    /// on.
    pub minimize: bool,
    /// Whether [`Builder::check`] keeps failing schedules under
    /// `target/samaritan/failures/<binary>/<test>/` and replays them first on the
    /// next run. Defaults to `SAMARITAN_PERSIST`, else on.
    pub persist: bool,
    /// Where [`SearchStrategy::HapSet`] keeps its covered pairs: loaded
    /// before the exploration, saved after it. Other strategies ignore it.
    /// Defaults to `SAMARITAN_HAPSET_FILE`, else none (coverage starts
    /// empty and is not kept).
    pub hapset_file: Option<PathBuf>,
    /// Whether a search that runs longer than two seconds prints a
    /// progress line on standard error every two seconds. Defaults to
    /// `SAMARITAN_PROGRESS`, else on.
    pub progress: bool,
    /// The part of the search space this run explores (see
    /// [`Builder::shard`]). Defaults to `SAMARITAN_SHARD`, else to the
    /// shard the test runner gives (Bazel's `TEST_SHARD_INDEX` of
    /// `TEST_TOTAL_SHARDS`, GitLab's `CI_NODE_INDEX` of `CI_NODE_TOTAL`,
    /// a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` of
    /// `SAMARITAN_SHARDS`, a nextest stress run's iteration), else the
    /// whole.
    pub shard: Shard,
    /// Where `shard` came from, when from the environment.
    shard_source: Option<ShardSource>,
    /// How many threads explore at once (see [`Builder::workers`]), from 1
    /// to 256. Defaults to `SAMARITAN_WORKERS`, else 1.
    pub workers: u32,
    /// Where each exploration appends its report as a line of JSON (see
    /// [`Builder::report_file`]). Defaults to `SAMARITAN_REPORT`, else
    /// none.
    pub report_file: Option<PathBuf>,
    env_error: Option<Error>,
    /// The test the exploration belongs to, when `#[samaritan::test]`
    /// names it; else the calling thread's name.
    test_name: Option<String>,
    /// The path of the test's body, when `#[samaritan::test]` gives it
    /// ([`Config::body_path`]); else from the test's name and the closure's
    /// type.
    body_path: Option<String>,
    site: Option<String>,
}

/// The time budget of an exploration unless `SAMARITAN_MAX_TIME` or
/// [`Builder::max_time`] says otherwise.
pub(crate) const DEFAULT_MAX_TIME: Duration = Duration::from_secs(60);

impl Default for Builder {
    fn default() -> Builder {
        Builder::new()
    }
}

fn parse<T: std::str::FromStr>(
    get: &dyn Fn(&str) -> Option<String>,
    var: &'static str,
    expected: &'static str,
    errors: &mut Option<Error>,
) -> Option<T> {
    let value = get(var)?;
    match value.trim().parse() {
        Ok(v) => Some(v),
        Err(_) => {
            errors.get_or_insert(Error::InvalidEnv { var, value, expected });
            None
        }
    }
}

/// Reads `var` like [`parse`], and records an error too when its value is
/// not `in_range`.
fn parse_in<T: std::str::FromStr>(
    get: &dyn Fn(&str) -> Option<String>,
    var: &'static str,
    expected: &'static str,
    errors: &mut Option<Error>,
    in_range: impl Fn(&T) -> bool,
) -> Option<T> {
    let value = parse(get, var, expected, errors)?;
    if in_range(&value) {
        return Some(value);
    }
    let value = get(var).unwrap_or_default();
    errors.get_or_insert(Error::InvalidEnv { var, value, expected });
    None
}

/// Reads an on/off variable: `1`/`true` or `0`/`false`, on when unset.
fn flag(get: &dyn Fn(&str) -> Option<String>, var: &'static str, errors: &mut Option<Error>) -> bool {
    match get(var).as_deref().map(str::trim) {
        None | Some("1") | Some("true") => true,
        Some("0") | Some("false") => false,
        Some(other) => {
            errors.get_or_insert(Error::InvalidEnv { var, value: other.to_string(), expected: "1 or 0" });
            true
        }
    }
}

impl Builder {
    /// Creates a builder with every setting at its environment default.
    pub fn new() -> Builder {
        Builder::with_env(&|var| std::env::var(var).ok())
    }

    /// Creates a builder whose defaults come from `get` instead of the
    /// process environment.
    pub(crate) fn with_env(get: &dyn Fn(&str) -> Option<String>) -> Builder {
        let mut err = None;
        let strategy = match get(env::STRATEGY).as_deref().map(str::trim) {
            None => SearchStrategy::Portfolio,
            Some(name) => SearchStrategy::from_name(name).unwrap_or_else(|| {
                err = Some(Error::InvalidEnv {
                    var: env::STRATEGY,
                    value: name.to_string(),
                    expected: "one of portfolio, icb, dfs, dpor, cb-por, bpor, hapset, random, pct, round-robin",
                });
                SearchStrategy::Portfolio
            }),
        };
        let spurious = flag(get, env::SPURIOUS_FAILURES, &mut err);
        let memory_model = match get(env::MEMORY_MODEL).as_deref().map(str::trim) {
            None => MemoryModel::Weak,
            Some(name) => MemoryModel::from_name(name).unwrap_or_else(|| {
                err = Some(Error::InvalidEnv {
                    var: env::MEMORY_MODEL,
                    value: name.to_string(),
                    expected: "weak, sc or weak-cas-newest",
                });
                MemoryModel::Weak
            }),
        };
        let fairness = flag(get, env::FAIRNESS, &mut err);
        let loom_bound = get(env::LOOM_BOUND).is_some() && flag(get, env::LOOM_BOUND, &mut err);
        let minimize = flag(get, env::MINIMIZE, &mut err);
        let persist = flag(get, env::PERSIST, &mut err);
        let progress = flag(get, env::PROGRESS, &mut err);
        let max_time = match get(env::MAX_TIME).as_deref().map(str::trim) {
            None => Some(DEFAULT_MAX_TIME),
            Some("none") => None,
            Some(_) => Some(
                parse_in(get, env::MAX_TIME, limits::SECONDS, &mut err, |s: &f64| limits::seconds(*s).is_some())
                    .and_then(limits::seconds)
                    .unwrap_or(DEFAULT_MAX_TIME),
            ),
        };
        let (shard, shard_source) = match get(env::SHARD).filter(|s| !s.trim().is_empty()) {
            None => match runner_shard::from_runner(get) {
                Ok(found) => found.map_or((Shard::WHOLE, None), |(shard, source)| (shard, Some(source))),
                Err(ShardEnvError(problem)) => {
                    err.get_or_insert(Error::ShardEnv { problem });
                    (Shard::WHOLE, None)
                }
            },
            Some(text) => match Shard::parse(&text) {
                Ok(shard) => (shard, Some(ShardSource::Samaritan)),
                Err(_) => {
                    err.get_or_insert(Error::InvalidEnv { var: env::SHARD, value: text, expected: limits::SHARD });
                    (Shard::WHOLE, None)
                }
            },
        };
        let pct_depth =
            parse_in(get, env::PCT_DEPTH, limits::PCT_DEPTH, &mut err, |d| (1..=Pct::MAX_DEPTH).contains(d));
        Builder {
            strategy,
            preemption_bound: parse(get, env::PREEMPTIONS, "a number of preemptions", &mut err).unwrap_or(2),
            loom_bound,
            fairness,
            pct_depth: pct_depth.unwrap_or(3),
            max_steps: parse_in(get, env::MAX_STEPS, limits::STEPS, &mut err, |s| *s >= 1).unwrap_or(100_000),
            max_executions: parse_in(get, env::MAX_EXECUTIONS, limits::EXECUTIONS, &mut err, |n| *n >= 1),
            max_time,
            seed: parse(get, env::SEED, "an unsigned 64-bit number", &mut err).unwrap_or(0),
            stack_size: parse_in(get, env::STACK_SIZE, limits::BYTES, &mut err, |b| *b <= limits::MAX_STACK_SIZE)
                .unwrap_or(2 << 20),
            watchdog: Duration::from_millis(
                parse_in(get, env::WATCHDOG_MS, limits::MILLISECONDS, &mut err, |ms| {
                    u128::from(*ms) >= limits::MIN_WATCHDOG.as_millis()
                })
                .unwrap_or(10_000),
            ),
            spurious_failures: spurious,
            memory_model,
            replay: get(env::REPLAY).filter(|t| !t.trim().is_empty()),
            minimize,
            persist,
            hapset_file: get(env::HAPSET_FILE).filter(|p| !p.trim().is_empty()).map(PathBuf::from),
            progress,
            shard,
            shard_source,
            workers: parse_in(get, env::WORKERS, limits::WORKERS, &mut err, |w| (1..=split::MAX_WORKERS).contains(w))
                .unwrap_or(1),
            report_file: get(env::REPORT)
                .filter(|p| !p.trim().is_empty())
                .map(PathBuf::from)
                .or_else(|| runner_shard::default_report_file(get)),
            env_error: err,
            test_name: None,
            body_path: None,
            site: None,
        }
    }

    /// Sets the search strategy.
    pub fn strategy(mut self, strategy: SearchStrategy) -> Builder {
        self.strategy = strategy;
        self
    }

    /// Sets the preemption bound of iterative context bounding (and of
    /// `cb-por`, `bpor` and the default portfolio's systematic part). A spurious
    /// wake-up or a spurious compare-exchange failure, when they are
    /// explored ([`Builder::spurious_failures`]), counts as a preemption:
    /// the platform's doing, not the program's.
    pub fn preemption_bound(mut self, preemptions: u32) -> Builder {
        self.preemption_bound = preemptions;
        self
    }

    /// Makes [`SearchStrategy::Bpor`] count its preemption bound as loom
    /// does (samaritan-loom's default, so that `LOOM_MAX_PREEMPTIONS`
    /// means what it means to loom): an execution that has spent the bound
    /// takes no other switch of thread, free ones included, but lets the
    /// default thread go at every scheduling point (the running one while
    /// it can, else the first that may); loads still read every store
    /// they may. Fewer executions, and a pass says that it covered loom's
    /// bound, not every execution with that many preemptions. Only `bpor`
    /// has it: with another strategy it is an [`Error::InvalidSetting`].
    ///
    /// ```
    /// use samaritan::{Builder, SearchStrategy};
    /// use samaritan::sync::{Arc, Mutex};
    ///
    /// let report = Builder::new()
    ///     .strategy(SearchStrategy::Bpor)
    ///     .preemption_bound(0)
    ///     .loom_bound(true)
    ///     .explore(|| {
    ///         let m = Arc::new(Mutex::new(0));
    ///         let m2 = m.clone();
    ///         let t = samaritan::thread::spawn(move || *m2.lock().unwrap() += 1);
    ///         *m.lock().unwrap() += 1;
    ///         t.join().unwrap();
    ///     })
    ///     .unwrap();
    /// assert!(report.to_string().contains("(loom's bound)"), "{report}");
    /// ```
    pub fn loom_bound(mut self, on: bool) -> Builder {
        self.loom_bound = on;
        self
    }

    /// Turns the fair demonic scheduler on or off. Off, a spin loop that
    /// waits for another thread runs into the step bound.
    pub fn fairness(mut self, on: bool) -> Builder {
        self.fairness = on;
        self
    }

    /// Turns failure persistence (see [`Builder::check`]) on or off.
    pub fn persist(mut self, on: bool) -> Builder {
        self.persist = on;
        self
    }

    /// Turns failure minimization on or off. Off, the report shows the
    /// failing schedule as the search found it.
    pub fn minimize(mut self, on: bool) -> Builder {
        self.minimize = on;
        self
    }

    /// Sets the bug depth PCT looks for, from 1 to 64; another depth makes
    /// [`Builder::explore`] and [`Builder::check`] fail with
    /// [`Error::InvalidSetting`].
    pub fn pct_depth(mut self, depth: u32) -> Builder {
        self.pct_depth = depth;
        self
    }

    /// Sets the step bound per execution: at least 1 (0 is an
    /// [`Error::InvalidSetting`]); a bound above 16777216 (2^24, the
    /// longest schedule a replay token may hold) counts as that.
    pub fn max_steps(mut self, steps: u64) -> Builder {
        self.max_steps = steps;
        self
    }

    /// Bounds the number of executions: at least 1 (0 is an
    /// [`Error::InvalidSetting`]).
    pub fn max_executions(mut self, executions: u64) -> Builder {
        self.max_executions = Some(executions);
        self
    }

    /// Bounds the exploration's time (one minute unless set), checked after
    /// each execution: a search runs at least one. Zero is an
    /// [`Error::InvalidSetting`]; [`Builder::unlimited_time`] lifts the
    /// budget.
    pub fn max_time(mut self, time: Duration) -> Builder {
        self.max_time = Some(time);
        self
    }

    /// Lifts the time budget: the search runs until it is exhausted, finds
    /// a bug or reaches another budget.
    pub fn unlimited_time(mut self) -> Builder {
        self.max_time = None;
        self
    }

    /// Turns the progress lines of long searches on or off.
    pub fn progress(mut self, on: bool) -> Builder {
        self.progress = on;
        self
    }

    /// Sets the seed of random search.
    pub fn seed(mut self, seed: u64) -> Builder {
        self.seed = seed;
        self
    }

    /// Sets the coroutine stack size of every simulated thread: at most
    /// 1 GiB (more is an [`Error::InvalidSetting`]); sizes below 16 KiB are
    /// rounded up to it, as std rounds a thread's stack up to the
    /// platform's minimum.
    pub fn stack_size(mut self, bytes: usize) -> Builder {
        self.stack_size = bytes;
        self
    }

    /// Sets how long a thread may go without a visible operation before
    /// uncontrolled blocking is reported: at least 100 ms (less is an
    /// [`Error::InvalidSetting`]: a busy machine keeps threads waiting that
    /// long).
    pub fn watchdog(mut self, silence: Duration) -> Builder {
        self.watchdog = silence;
        self
    }

    /// Sets the file [`SearchStrategy::HapSet`] loads its covered pairs
    /// from before the exploration and saves them to after it, so that
    /// later runs skip what earlier ones covered. A missing file is empty
    /// coverage; an unreadable or malformed one is an [`Error`] before the
    /// exploration, and one that cannot be written is an [`Error`] after it
    /// (in place of the report).
    pub fn hapset_file(mut self, path: impl Into<PathBuf>) -> Builder {
        self.hapset_file = Some(path.into());
        self
    }

    /// Names the test the exploration belongs to (`#[samaritan::test]`
    /// passes its path): its replay command and persisted failures go by
    /// this name instead of the calling thread's.
    /// Names where in the test this exploration is asked for, for a test
    /// that asks for several: its progress lines and its report say "the
    /// model at `location`" (samaritan-loom sets it to each `loom::model`
    /// call's location).
    pub fn site(mut self, location: &'static std::panic::Location<'static>) -> Builder {
        self.site = Some(location.to_string());
        self
    }

    pub(crate) fn test_name(mut self, name: &str) -> Builder {
        self.test_name = Some(name.to_string());
        self
    }

    /// Names the test's body, whose statics start every execution afresh
    /// ([`Config::body_path`]).
    pub(crate) fn body_path(mut self, path: &str) -> Builder {
        self.body_path = Some(path.to_string());
        self
    }

    /// Sets whether weak compare-exchange may fail spuriously, and
    /// `Condvar::wait` and `thread::park` wake spuriously (each an explored
    /// choice, never twice in a row on one atomic or for one waiting
    /// thread).
    pub fn spurious_failures(mut self, on: bool) -> Builder {
        self.spurious_failures = on;
        self
    }

    /// Sets how atomics behave: [`MemoryModel::Weak`] (the C11 model, the
    /// default), [`MemoryModel::Sc`] (sequential consistency whatever
    /// `Ordering` is passed: fewer executions, and no weak-memory bug
    /// found) or [`MemoryModel::WeakCasNewest`] (the C11 model with loom's
    /// approximation of a failing compare-exchange, named in the pass
    /// summary).
    ///
    /// ```
    /// use samaritan::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    /// use samaritan::sync::Arc;
    /// use samaritan::{thread, Builder, MemoryModel};
    ///
    /// // A value published with a Relaxed flag: under the C11 model the
    /// // reader may see the flag and still the old value.
    /// fn publish() {
    ///     let (data, flag) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
    ///     let (d, f) = (data.clone(), flag.clone());
    ///     let t = thread::spawn(move || {
    ///         d.store(42, Ordering::Relaxed);
    ///         f.store(true, Ordering::Relaxed);
    ///     });
    ///     if flag.load(Ordering::Relaxed) {
    ///         assert_eq!(data.load(Ordering::Relaxed), 42, "published but not seen");
    ///     }
    ///     t.join().unwrap();
    /// }
    ///
    /// let weak = Builder::new().explore(publish).unwrap();
    /// assert!(weak.is_failure());
    /// let sc = Builder::new().memory_model(MemoryModel::Sc).explore(publish).unwrap();
    /// assert!(sc.outcome.is_pass());
    /// ```
    pub fn memory_model(mut self, model: MemoryModel) -> Builder {
        self.memory_model = model;
        self
    }

    /// Makes this run explore only the `shard.index()`-th of
    /// `shard.count()` disjoint parts of the search space, so that that
    /// many jobs (a CI matrix, a Kubernetes Indexed Job, processes on
    /// several machines) explore together exactly what one run would; each
    /// part is deterministic. `dfs` is cut by schedule prefix, `icb` by its
    /// second preemption (both exactly: the parts' executions add up to
    /// the whole search's), `dpor`, `cb-por` and the portfolio's
    /// systematic part by prefix too (soundly, with more executions in
    /// all), `random`, `pct` and the portfolio's hunters by seed (each shard
    /// draws from its own and runs its share of the execution budget);
    /// `hapset` and `round-robin` are an [`Error::Unsplittable`]. The report says which
    /// shard it covers; `samaritan merge` combines the shards' report files
    /// ([`Builder::report_file`]) into one verdict.
    ///
    /// ```
    /// use samaritan::sync::atomic::{AtomicUsize, Ordering};
    /// use samaritan::sync::Arc;
    /// use samaritan::{thread, Builder, SearchStrategy, Shard};
    ///
    /// fn two_adders() {
    ///     let n = Arc::new(AtomicUsize::new(0));
    ///     let m = n.clone();
    ///     let t = thread::spawn(move || {
    ///         m.fetch_add(1, Ordering::SeqCst);
    ///         m.fetch_add(1, Ordering::SeqCst);
    ///     });
    ///     n.fetch_add(1, Ordering::SeqCst);
    ///     n.fetch_add(1, Ordering::SeqCst);
    ///     t.join().unwrap();
    /// }
    ///
    /// let dfs = Builder::new().strategy(SearchStrategy::Dfs);
    /// let whole = dfs.explore(two_adders).unwrap().executions;
    /// let halves: u64 = (1..=2)
    ///     .map(|i| dfs.clone().shard(Shard::new(i, 2).unwrap()).explore(two_adders).unwrap().executions)
    ///     .sum();
    /// assert_eq!(halves, whole);
    /// ```
    pub fn shard(mut self, shard: Shard) -> Builder {
        self.shard = shard;
        self.shard_source = None;
        self
    }

    /// Explores with `workers` threads at once (1 to 256; the strategies
    /// that can be split are those [`Builder::shard`] can cut). The
    /// workers of `dfs`, `dpor`, `cb-por` and the default portfolio share
    /// this run's space by work stealing: `dfs` runs each execution once
    /// and reports the failure one worker would find first; the others
    /// explore more executions than one search (a few for `dpor`; for
    /// `cb-por` and the portfolio each worker prunes with what it explored
    /// itself) and stop at the first failure, reporting the one whose
    /// schedule comes first among those found. `icb`, `random` and `pct`
    /// explore fixed parts, as shards do: a search that passes counts
    /// exactly the executions one worker would (`icb`); a failing one
    /// reports the failure of the lowest-numbered worker that found one
    /// (workers numbered above it stop, those below run on). For `dfs` and
    /// the fixed parts, which failure is reported does not depend on
    /// timing. An execution budget
    /// ([`Builder::max_executions`]) is shared out between the workers;
    /// the time budget applies to each, so they stop together. The default is 1
    /// because `cargo test` already runs one test per core; raise it for a
    /// long search run alone. The workers run the test's closure at the
    /// same time on several threads: state it keeps outside samaritan's
    /// primitives (a `static` counter) is shared between them.
    pub fn workers(mut self, workers: u32) -> Builder {
        self.workers = workers;
        self
    }

    /// Appends each exploration's report to `path` as one line of JSON
    /// (verdict, counts, shard, token, replay command, the report's text),
    /// creating the file if need be. `samaritan merge` reads such files.
    pub fn report_file(mut self, path: impl Into<PathBuf>) -> Builder {
        self.report_file = Some(path.into());
        self
    }

    /// Returns the first error in the environment the builder was made
    /// from, else the first setting out of range.
    fn valid(&self) -> Result<(), Error> {
        match &self.env_error {
            Some(err) => Err(err.clone()),
            None => limits::check(self),
        }
    }

    fn config(&self) -> Config {
        let mut config = Config::default();
        config.max_steps = self.max_steps;
        config.max_executions = self.max_executions.or(match self.strategy {
            SearchStrategy::Random | SearchStrategy::Pct => Some(1000),
            _ => None,
        });
        config.fairness = self.fairness;
        config.max_time = self.max_time;
        config.watchdog = self.watchdog;
        config.stack_size = self.stack_size.max(limits::MIN_STACK_SIZE);
        config.spurious_failures = self.spurious_failures;
        config.memory_model = self.memory_model;
        config.minimize = self.minimize;
        config.progress = self.progress;
        config.test_name = self.current_test();
        config.site = self.site.clone();
        config
    }

    /// [`Builder::config`] for the test whose closure is of type `F`: the
    /// statics of its body start every execution afresh
    /// ([`Config::body_path`]).
    fn config_for<F>(&self) -> Config {
        let mut config = self.config();
        config.body_path = self.body_of::<F>();
        config
    }

    /// The path of the body of the test whose closure is of type `F`: the
    /// one named (empty: named as none), else from the test's name and
    /// `F`'s path ([`body_path_of`]).
    fn body_of<F>(&self) -> Option<String> {
        match &self.body_path {
            Some(path) => Some(path.clone()).filter(|p| !p.is_empty()),
            None => body_path_of(std::any::type_name::<F>(), self.current_test().as_deref()),
        }
    }

    fn make_strategy(&self) -> Box<dyn Strategy + Send> {
        match self.strategy {
            SearchStrategy::Portfolio => Box::new(Portfolio::new(self.preemption_bound, self.seed, self.pct_depth)),
            SearchStrategy::Icb => Box::new(Icb::new(self.preemption_bound)),
            SearchStrategy::Dfs => Box::new(Dfs::new()),
            SearchStrategy::Random => Box::new(Random::new(self.seed)),
            SearchStrategy::Pct => Box::new(Pct::new(self.seed, self.pct_depth)),
            SearchStrategy::RoundRobin => Box::new(RoundRobin::new()),
            SearchStrategy::Dpor => Box::new(Dpor::new()),
            SearchStrategy::CbPor => Box::new(CbPor::new(self.preemption_bound)),
            SearchStrategy::Bpor => Box::new(split::bpor(Dpor::new(), self.preemption_bound, self.loom_bound)),
            SearchStrategy::HapSet => Box::new(Dpor::hapset(Arc::default())),
        }
    }

    /// Explores `f` under HaPSet pruning, with the coverage loaded from
    /// `file` and saved back to it.
    fn explore_hapset(&self, config: Config, f: Arc<dyn Fn() + Send + Sync>, file: &Path) -> Result<Report, Error> {
        let coverage = Arc::new(Mutex::new(Coverage::load(file).map_err(Error::HapsetFile)?));
        let report = samaritan_sim::explore(config, Box::new(Dpor::hapset(coverage.clone())), f);
        let coverage = coverage.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        coverage.save(file).map_err(Error::HapsetFile)?;
        Ok(report)
    }

    /// Explores `f` (or replays `self.replay` when set) and returns the
    /// report, failing or not.
    pub fn explore<F>(&self, f: F) -> Result<Report, Error>
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.valid()?;
        let started = Instant::now();
        match (&self.replay, &self.hapset_file) {
            (Some(token), _) => self.replay(token, f),
            (None, Some(file)) if self.strategy == SearchStrategy::HapSet => {
                Ok(foreign::diagnose(self.explore_hapset(self.config_for::<F>(), Arc::new(f), file)?, started))
            }
            (None, _) => {
                if let Some(source) = &self.shard_source {
                    runner_shard::acknowledge(source).map_err(|ShardEnvError(problem)| Error::ShardEnv { problem })?;
                }
                let report = match split::parts(self, self.config_for::<F>())? {
                    Some((config, parts)) => {
                        let mut report = samaritan_sim::explore_parallel(config, parts, Arc::new(f));
                        report.shard = Some(self.shard).filter(|s| !s.is_whole());
                        report.shard_source =
                            self.shard_source.as_ref().filter(|_| report.shard.is_some()).map(ShardSource::describe);
                        report
                    }
                    None => samaritan_sim::explore(self.config_for::<F>(), self.make_strategy(), Arc::new(f)),
                };
                let report = foreign::diagnose(report, started);
                if let Some(path) = &self.report_file {
                    split::write_record(path, &report)?;
                }
                Ok(report)
            }
        }
    }

    /// Replays one execution of `f` from `token` and returns its report. A
    /// token that does not fit `f` gives a schedule-mismatch outcome (a
    /// misuse) that says at which step; one that cannot be read, or holds
    /// more choices than an execution within [`Builder::max_steps`] makes,
    /// is an [`Error::Token`].
    pub fn replay<F>(&self, token: &str, f: F) -> Result<Report, Error>
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.replay_against(token, None, f)
    }

    /// [`Builder::replay`] of a schedule recorded with the trace `earlier`
    /// (a persisted failure's, kept beside its token): a mismatch names the
    /// first step that differs from it.
    fn replay_against<F>(&self, token: &str, earlier: Option<&Trace>, f: F) -> Result<Report, Error>
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.valid()?;
        // No more choices than an execution within the step bound makes.
        let schedule = Schedule::from_token_within(token, self.max_steps)?;
        let started = Instant::now();
        let report = samaritan_sim::replay_against(self.config_for::<F>(), schedule, Arc::new(f), earlier);
        Ok(foreign::diagnose(report, started))
    }

    /// Explores `f` and panics with the failure report if it finds a bug,
    /// or with a report under its own header ("samaritan cannot check this
    /// test as written", no replay token) if the test misuses samaritan
    /// ([`Report::is_misuse`]): such a test cannot be trusted to pass.
    /// A pass that is no proof says so on standard error, past the test
    /// harness's capture: a search a budget stopped, and a test that made
    /// no visible operation, so that nothing was explored
    /// ([`Report::explored_nothing`]).
    ///
    /// Unless persistence is off ([`Builder::persist`],
    /// `SAMARITAN_PERSIST=0`) or a token is being replayed, a failure is
    /// also written under `target/samaritan/failures/<binary>/<test>/` (the test is
    /// the calling thread's name, as the test harness sets it), and every
    /// failure persisted there by earlier runs is replayed before the
    /// search: one that still fails is reported at once; one that passes
    /// (fixed) or no longer fits the program (changed) is deleted.
    /// [`Builder::explore`] never touches persisted failures, and neither
    /// does a check inside an exploration (a check inside a check): it is
    /// named after the outer check's test, whose directory that is.
    #[track_caller]
    pub fn check<F>(&self, f: F)
    where
        F: Fn() + Send + Sync + 'static,
    {
        // The closure `f` is wrapped below: name the test's body now.
        let named;
        let this = match self.body_path {
            Some(_) => self,
            None => {
                named = self.clone().body_path(&self.body_of::<F>().unwrap_or_default());
                &named
            }
        };
        this.check_named(f);
    }

    /// [`Builder::check`] once the test's function is named.
    #[track_caller]
    fn check_named<F>(&self, f: F)
    where
        F: Fn() + Send + Sync + 'static,
    {
        let f = Arc::new(f);
        // Persisted failures belong to the outermost check of a test.
        let nested = samaritan_sim::rt::active();
        let dir = self
            .current_test()
            .filter(|n| n != "main")
            .filter(|_| self.persist && !nested && self.replay.is_none() && self.env_error.is_none())
            .and_then(|t| persist::dir(&t));
        // What became of persisted failures that no longer replay.
        let mut dropped = Vec::new();
        if let Some(dir) = &dir {
            for (path, token) in persist::tokens(dir) {
                let g = f.clone();
                let earlier = persist::trace(&path);
                match self.replay_against(&token, earlier.as_ref(), move || g()) {
                    Ok(report) if persist::still_fails(&report) => panic!(
                        "{report}\nnote: this failure was persisted by an earlier run at {}; it is replayed first until it passes (SAMARITAN_PERSIST=0 turns this off)",
                        path.display()
                    ),
                    // The program changed beyond replay: say so, and how,
                    // before the failure is dropped for good.
                    Ok(report) if report.outcome.is_misuse() => {
                        dropped.push(format!(
                            "note: the failure persisted at {} no longer replays, so it was deleted: {}",
                            path.display(),
                            report.outcome
                        ));
                        persist::forget(&path);
                    }
                    // Fixed, or unreadable.
                    _ => persist::forget(&path),
                }
            }
        }
        let report = self.explore(move || f());
        let dropped: String = dropped.iter().map(|note| format!("\n{note}")).collect();
        if !dropped.is_empty() && !report.as_ref().is_ok_and(Report::is_failure) {
            eprintln!("samaritan:{dropped}");
        }
        match report {
            Ok(report) if report.is_failure() => match dir.as_deref().and_then(|d| persist::save(d, &report)) {
                Some(path) => panic!(
                    "{report}{dropped}\nnote: persisted at {}: the next run of this test replays it first",
                    path.display()
                ),
                None => panic!("{report}{dropped}"),
            },
            // The test cannot be trusted: it fails, but it has no schedule
            // to keep.
            Ok(report) if report.is_misuse() => panic!("{report}"),
            Ok(report) => pass_note(&report),
            Err(err) => panic!("samaritan: {err}"),
        }
    }
}

impl Builder {
    /// Returns the test a check or an exploration belongs to: the name
    /// `#[samaritan::test]` gave, else the calling thread's name, as the
    /// test harness sets it; inside an exploration (a check inside a check,
    /// whose thread is an exploring thread), the test of that exploration.
    fn current_test(&self) -> Option<String> {
        if samaritan_sim::rt::active() {
            samaritan_sim::rt::test_name()
        } else {
            self.test_name.clone().or_else(|| std::thread::current().name().map(str::to_string))
        }
    }
}

/// Says on standard error (past the test harness's capture) what a pass
/// that is no proof covered: a search a budget stopped, or one that
/// explored nothing because the test made no visible operation. Other
/// passes say nothing.
fn pass_note(report: &Report) {
    use std::io::Write as _;
    let who = report.test_name.as_deref().filter(|n| *n != "main").unwrap_or("check");
    let line = if report.explored_nothing() {
        format!("samaritan: {who}: {report}\n")
    } else if report.stopped.is_some() {
        format!(
            "samaritan: {who}: {report}\nsamaritan: {who}: not every schedule was explored; raise {} or {} to search further\n",
            env::MAX_TIME,
            env::MAX_EXECUTIONS
        )
    } else {
        return;
    };
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// Explores every schedule of `f` and panics with a report if one fails.
///
/// With `SAMARITAN_REPLAY` set, replays that one schedule instead. The
/// settings default from the `SAMARITAN_*` variables ([`crate::env`]);
/// [`Builder::check`] sets them in code. Without `sim`, `check` runs `f`
/// once.
///
/// ```
/// use samaritan::executor;
/// use samaritan::sync::{Arc, Mutex};
///
/// // Two tasks on samaritan's executor: every order of their steps.
/// samaritan::check(|| {
///     let total = Arc::new(Mutex::new(0));
///     executor::block_on(async {
///         let tasks: Vec<_> = (1..=2)
///             .map(|i| {
///                 let total = total.clone();
///                 executor::spawn(async move { *total.lock().unwrap() += i })
///             })
///             .collect();
///         for t in tasks {
///             t.await.unwrap();
///         }
///     });
///     assert_eq!(*total.lock().unwrap(), 3);
/// });
/// ```
#[track_caller]
pub fn check<F>(f: F)
where
    F: Fn() + Send + Sync + 'static,
{
    Builder::new().check(f)
}

/// Replays the schedule in `token` on `f`; panics with the report if the
/// replayed execution fails, or the token is bad or does not fit `f`.
///
/// The token is the one a failure's report prints (`replay token: ...`);
/// `SAMARITAN_REPLAY=<token>` does the same for [`check`].
///
/// ```
/// use samaritan::sync::atomic::{AtomicUsize, Ordering};
/// use samaritan::sync::Arc;
/// use samaritan::{thread, Builder, SearchStrategy};
///
/// fn lost_update() {
///     let n = Arc::new(AtomicUsize::new(0));
///     let m = n.clone();
///     let t = thread::spawn(move || {
///         let seen = m.load(Ordering::SeqCst);
///         m.store(seen + 1, Ordering::SeqCst);
///     });
///     let seen = n.load(Ordering::SeqCst);
///     n.store(seen + 1, Ordering::SeqCst);
///     t.join().unwrap();
///     assert_eq!(n.load(Ordering::SeqCst), 2, "an increment was lost");
/// }
///
/// let found = Builder::new().strategy(SearchStrategy::Dfs).explore(lost_update).unwrap();
/// let token = found.failure.unwrap().token;
/// // The failing schedule again, every time.
/// let replayed = std::panic::catch_unwind(|| samaritan::replay(&token, lost_update));
/// let message = *replayed.unwrap_err().downcast::<String>().unwrap();
/// assert!(message.contains("an increment was lost"), "{message}");
/// ```
#[track_caller]
pub fn replay<F>(token: &str, f: F)
where
    F: Fn() + Send + Sync + 'static,
{
    match Builder::new().replay(token, f) {
        Ok(report) if !report.outcome.is_pass() => panic!("{report}"),
        Ok(_) => {}
        Err(err) => panic!("samaritan: {err}"),
    }
}

/// The path of the body of a test named `test` by the test harness's
/// thread (`tests::t`, the path without the crate) whose closure is of type
/// `type_name`: the closures of the test's function in the crate of the
/// closure's type (`krate::tests::t::{{closure}}`, wherever the closure
/// passed to `check` was written: a helper may wrap the test's). Without a
/// test name (a doctest, an example's `main`): the closure's own path up to
/// its first closure, or a function item's path. `None` for a path of one
/// component. A static declared in the test's function outside its
/// closures is not in the body: a test may gather there what its
/// executions saw, to assert on once the search is over.
fn body_path_of(type_name: &str, test: Option<&str>) -> Option<String> {
    const CLOSURE: &str = "::{{closure}}";
    let path = &type_name[..type_name.find('<').unwrap_or(type_name.len())];
    let (krate, _) = path.split_once("::")?;
    match test.filter(|t| *t != "main") {
        Some(test) => Some(format!("{krate}::{test}{CLOSURE}")),
        None => Some(path.find(CLOSURE).map_or(path, |at| &path[..at + CLOSURE.len()]).to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn a_test_s_body_is_its_function_s_closures_named_by_crate_and_test_name_else_by_type() {
        let of = |ty, test| body_path_of(ty, test);
        assert_eq!(of("krate::tests::t::{{closure}}", None).as_deref(), Some("krate::tests::t::{{closure}}"));
        assert_eq!(of("krate::t::{{closure}}::{{closure}}", None).as_deref(), Some("krate::t::{{closure}}"));
        assert_eq!(of("krate::f<krate::X>::{{closure}}", None).as_deref(), Some("krate::f"));
        assert_eq!(of("krate::body", Some("main")).as_deref(), Some("krate::body"));
        assert_eq!(
            of("krate::helpers::h::{{closure}}", Some("tests::t")).as_deref(),
            Some("krate::tests::t::{{closure}}")
        );
        assert_eq!(of("{{closure}}", Some("t")), None);
        assert_eq!(of("krate", None), None);
        let closure = || ();
        assert_eq!(
            of(std::any::type_name_of_val(&closure), None).as_deref(),
            Some("samaritan::check::tests::a_test_s_body_is_its_function_s_closures_named_by_crate_and_test_name_else_by_type::{{closure}}")
        );
    }

    /// Builds a builder from the given environment.
    fn from(vars: &[(&str, &str)]) -> Builder {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Builder::with_env(&move |var| map.get(var).cloned())
    }

    #[test]
    fn settings_default_from_the_environment() {
        let b = from(&[
            ("SAMARITAN_STRATEGY", "random"),
            ("SAMARITAN_MAX_STEPS", "500"),
            ("SAMARITAN_MAX_EXECUTIONS", "7"),
            ("SAMARITAN_MAX_TIME", "1.5"),
            ("SAMARITAN_SEED", "42"),
            ("SAMARITAN_STACK_SIZE", "65536"),
            ("SAMARITAN_WATCHDOG_MS", "250"),
            ("SAMARITAN_SPURIOUS_FAILURES", "0"),
            ("SAMARITAN_REPLAY", "s2_abc"),
            ("SAMARITAN_PREEMPTIONS", "3"),
            ("SAMARITAN_FAIRNESS", "0"),
            ("SAMARITAN_PCT_DEPTH", "4"),
            ("SAMARITAN_MINIMIZE", "0"),
            ("SAMARITAN_PERSIST", "0"),
            ("SAMARITAN_HAPSET_FILE", "cov.hapset"),
            ("SAMARITAN_PROGRESS", "0"),
            ("SAMARITAN_MEMORY_MODEL", " sc "),
            ("SAMARITAN_SHARD", "2/4"),
            ("SAMARITAN_WORKERS", "3"),
            ("SAMARITAN_REPORT", "shard-2.json"),
            ("SAMARITAN_LOOM_BOUND", "1"),
        ]);
        assert_eq!((b.shard, b.workers), (Shard::new(2, 4).unwrap(), 3));
        assert_eq!(b.report_file, Some(PathBuf::from("shard-2.json")));
        assert_eq!(b.memory_model, MemoryModel::Sc);
        assert_eq!(b.strategy, SearchStrategy::Random);
        assert_eq!((b.preemption_bound, b.fairness, b.pct_depth, b.persist), (3, false, 4, false));
        assert_eq!((b.max_steps, b.max_executions, b.seed, b.stack_size), (500, Some(7), 42, 65536));
        assert_eq!((b.max_time, b.watchdog), (Some(Duration::from_millis(1500)), Duration::from_millis(250)));
        assert!(!b.spurious_failures && !b.minimize);
        assert_eq!(b.replay.as_deref(), Some("s2_abc"));
        assert_eq!(b.hapset_file, Some(PathBuf::from("cov.hapset")));
        assert!(!b.progress && b.loom_bound);
        assert_eq!(b.env_error, None);
        assert_eq!(from(&[("SAMARITAN_STRATEGY", "hapset")]).strategy, SearchStrategy::HapSet);
        assert_eq!(from(&[("SAMARITAN_STRATEGY", "bpor")]).strategy, SearchStrategy::Bpor);
    }

    #[test]
    fn an_empty_environment_gives_the_documented_defaults() {
        let b = from(&[]);
        assert_eq!(b.strategy, SearchStrategy::Portfolio);
        assert_eq!((b.preemption_bound, b.fairness, b.pct_depth, b.persist), (2, true, 3, true));
        assert_eq!((b.max_steps, b.max_executions, b.seed, b.stack_size), (100_000, None, 0, 2 << 20));
        assert_eq!((b.max_time, b.watchdog), (Some(Duration::from_secs(60)), Duration::from_secs(10)));
        assert!(b.progress);
        assert_eq!(from(&[("SAMARITAN_MAX_TIME", "none")]).max_time, None);
        assert!(b.spurious_failures && b.minimize && !b.loom_bound);
        assert_eq!(b.memory_model, MemoryModel::Weak);
        assert_eq!(b.replay, None);
        assert_eq!(b.hapset_file, None);
        assert_eq!((b.shard, b.workers, b.report_file), (Shard::WHOLE, 1, None));
    }

    #[test]
    fn a_bad_value_is_a_clear_error_not_a_panic() {
        let b = from(&[("SAMARITAN_MAX_STEPS", "lots")]);
        let err = b.explore(|| {}).unwrap_err();
        assert_eq!(err.to_string(), "SAMARITAN_MAX_STEPS=\"lots\" is invalid: expected a number of steps, at least 1");
        let b = from(&[("SAMARITAN_STRATEGY", "bfs")]);
        assert_eq!(
            b.explore(|| {}).unwrap_err().to_string(),
            "SAMARITAN_STRATEGY=\"bfs\" is invalid: expected one of portfolio, icb, dfs, dpor, cb-por, bpor, hapset, random, pct, round-robin"
        );
        let b = from(&[("SAMARITAN_PCT_DEPTH", "0")]);
        assert_eq!(
            b.explore(|| {}).unwrap_err().to_string(),
            "SAMARITAN_PCT_DEPTH=\"0\" is invalid: expected a depth from 1 to 64"
        );
        for (var, value, expected) in [
            ("SAMARITAN_SHARD", "5/4", "i/n with 1 <= i <= n <= 65536, as in 1/4"),
            ("SAMARITAN_SHARD", "0/4", "i/n with 1 <= i <= n <= 65536, as in 1/4"),
            ("SAMARITAN_SHARD", "half", "i/n with 1 <= i <= n <= 65536, as in 1/4"),
            ("SAMARITAN_WORKERS", "0", "a number of workers from 1 to 256"),
            ("SAMARITAN_WORKERS", "1000", "a number of workers from 1 to 256"),
            ("SAMARITAN_MEMORY_MODEL", "tso", "weak, sc or weak-cas-newest"),
        ] {
            let err = from(&[(var, value)]).explore(|| {}).unwrap_err();
            assert_eq!(err.to_string(), format!("{var}={value:?} is invalid: expected {expected}"));
        }
        let b = from(&[("SAMARITAN_MEMORY_MODEL", "weak-cas-newest")]);
        assert_eq!((b.memory_model, b.env_error), (MemoryModel::WeakCasNewest, None));
        let b = from(&[("SAMARITAN_FAIRNESS", "maybe")]);
        assert_eq!(
            b.explore(|| {}).unwrap_err().to_string(),
            "SAMARITAN_FAIRNESS=\"maybe\" is invalid: expected 1 or 0"
        );
        // Loom's count of a bound is bpor's alone.
        let b = from(&[("SAMARITAN_LOOM_BOUND", "1")]);
        assert_eq!(
            b.explore(|| {}).unwrap_err().to_string(),
            "Builder::loom_bound(true) is invalid: expected false unless the strategy is bpor"
        );
        let b = from(&[("SAMARITAN_LOOM_BOUND", "1"), ("SAMARITAN_STRATEGY", "bpor")]);
        assert!(b.explore(|| {}).is_ok());
        let b = from(&[("SAMARITAN_LOOM_BOUND", "on")]);
        assert_eq!(
            b.explore(|| {}).unwrap_err().to_string(),
            "SAMARITAN_LOOM_BOUND=\"on\" is invalid: expected 1 or 0"
        );
    }

    #[test]
    fn samaritan_shard_wins_over_a_runner_s_sharding_and_a_runner_s_is_used_without_it() {
        let gitlab = [("CI_NODE_INDEX", "2"), ("CI_NODE_TOTAL", "3")];
        let b = from(&gitlab);
        assert_eq!((b.shard, b.shard_source.clone()), (Shard::new(2, 3).unwrap(), Some(ShardSource::GitLab)));
        let b = from(&[gitlab[0], gitlab[1], ("SAMARITAN_SHARD", "1/1")]);
        assert_eq!((b.shard, b.shard_source.clone(), b.env_error), (Shard::WHOLE, Some(ShardSource::Samaritan), None));
        // Even a runner's setting that is wrong is not read.
        let b = from(&[("CI_NODE_INDEX", "9"), ("SAMARITAN_SHARD", "1/2")]);
        assert_eq!((b.shard, b.env_error), (Shard::new(1, 2).unwrap(), None));
        // A shard set in code has no source in the environment.
        assert_eq!(from(&gitlab).shard(Shard::new(1, 2).unwrap()).shard_source, None);
    }

    #[test]
    fn a_runner_s_sharding_that_cannot_be_used_is_an_error_with_the_way_out() {
        let err = from(&[("CI_NODE_INDEX", "4"), ("CI_NODE_TOTAL", "3")]).explore(|| {}).unwrap_err();
        assert_eq!(
            err.to_string(),
            "CI_NODE_INDEX=4 is out of range for CI_NODE_TOTAL=3 (the index counts from 1, to 3): \
             set SAMARITAN_SHARD=i/n to choose the part, or SAMARITAN_SHARD=1/1 to explore the whole space"
        );
        let b = from(&[("TEST_UNDECLARED_OUTPUTS_DIR", "/out"), ("TEST_SHARD_INDEX", "0"), ("TEST_TOTAL_SHARDS", "2")]);
        assert_eq!(b.report_file, Some(PathBuf::from("/out/samaritan-report.jsonl")));
        let b = from(&[("TEST_UNDECLARED_OUTPUTS_DIR", "/out"), ("SAMARITAN_REPORT", "mine.jsonl")]);
        assert_eq!(b.report_file, Some(PathBuf::from("mine.jsonl")));
    }

    #[test]
    fn a_replay_token_in_the_environment_replaces_the_search() {
        let b = from(&[("SAMARITAN_REPLAY", "s9_zzz")]);
        assert_eq!(
            b.explore(|| {}).unwrap_err().to_string(),
            "replay token format version 9 is not supported: this samaritan reads version 2"
        );
    }
}
