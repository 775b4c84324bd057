//! The `SAMARITAN_*` environment variables that set the builder's defaults.
//!
//! A value that cannot be read, or is out of the range given here, makes
//! `explore`, `replay` and `check` fail with an error naming the variable
//! and what it should be (`Error::InvalidEnv`), never a silent default.
//!
//! A setting made in code ([`Builder`](crate::Builder)'s setters, or an
//! argument of `#[samaritan::test]`) wins over its variable.
//!
//! ```
//! use samaritan::{env, Builder, SearchStrategy};
//!
//! // As `SAMARITAN_STRATEGY=dfs SAMARITAN_MAX_EXECUTIONS=10 cargo test` would.
//! std::env::set_var(env::STRATEGY, "dfs");
//! std::env::set_var(env::MAX_EXECUTIONS, "10");
//! let builder = Builder::new();
//! assert_eq!((builder.strategy, builder.max_executions), (SearchStrategy::Dfs, Some(10)));
//!
//! // A value that cannot be used is an error that names the variable.
//! std::env::set_var(env::MAX_STEPS, "lots");
//! let err = Builder::new().explore(|| {}).unwrap_err();
//! assert_eq!(err.to_string(), "SAMARITAN_MAX_STEPS=\"lots\" is invalid: expected a number of steps, at least 1");
//! ```

/// Strategy: `portfolio` (default: cb-por at rising preemption bounds
/// interleaved with PCT and random search), `icb` (iterative context
/// bounding), `dfs`, `dpor`, `cb-por`, `bpor` (bounded partial-order
/// reduction, loom's bounded search), `hapset` (DPOR with HaPSet coverage
/// pruning; not complete), `random`, `pct` or `round-robin`.
pub const STRATEGY: &str = "SAMARITAN_STRATEGY";
/// Steps allowed per execution (default 100000): at least 1; above
/// 16777216 (2^24, the longest schedule a replay token holds) counts as
/// that. A replay token with more choices than this is refused.
pub const MAX_STEPS: &str = "SAMARITAN_MAX_STEPS";
/// Executions allowed per exploration, at least 1 (default: unbounded, 1000
/// for `random` and `pct`).
pub const MAX_EXECUTIONS: &str = "SAMARITAN_MAX_EXECUTIONS";
/// Seconds allowed per exploration (default 60): a number greater than 0
/// (fractions allowed; `-1`, `NaN`, `inf` and values no `Duration` holds
/// are errors), or `none` for no time budget. Checked after each
/// execution, so a search runs at least one.
pub const MAX_TIME: &str = "SAMARITAN_MAX_TIME";
/// Seed of the `random` and `pct` strategies (default 0).
pub const SEED: &str = "SAMARITAN_SEED";
/// Coroutine stack size in bytes (default 2097152, as std threads): at
/// most 1073741824 (1 GiB); below 16384 counts as 16384.
pub const STACK_SIZE: &str = "SAMARITAN_STACK_SIZE";
/// Milliseconds without a step before uncontrolled blocking is reported
/// (default 10000): at least 100, since a busy machine keeps a thread
/// waiting that long.
pub const WATCHDOG_MS: &str = "SAMARITAN_WATCHDOG_MS";
/// Whether `compare_exchange_weak` may fail spuriously, and `Condvar::wait`
/// and `thread::park` wake spuriously: `1` (default) or `0`.
pub const SPURIOUS_FAILURES: &str = "SAMARITAN_SPURIOUS_FAILURES";
/// How atomics behave: `weak` (default: the C11 memory model, each load's
/// choice of store explored, `Ordering`s honoured) or `sc` (every access
/// sequentially consistent).
pub const MEMORY_MODEL: &str = "SAMARITAN_MEMORY_MODEL";
/// A replay token: `check` replays it instead of exploring.
pub const REPLAY: &str = "SAMARITAN_REPLAY";
/// Most preemptions per execution for the bounded searches: the
/// portfolio's systematic part, `icb`, `cb-por` and `bpor` (default 2).
pub const PREEMPTIONS: &str = "SAMARITAN_PREEMPTIONS";
/// Whether the fair demonic scheduler is on: `1` (default) or `0`.
pub const FAIRNESS: &str = "SAMARITAN_FAIRNESS";
/// Whether `bpor` counts its preemption bound as loom does (an execution
/// that has spent it takes no other switch, free ones included): `1` or
/// `0` (default; samaritan-loom's default is `1`).
pub const LOOM_BOUND: &str = "SAMARITAN_LOOM_BOUND";
/// Bug depth for `pct` and the portfolio's PCT part (default 3): from 1 to
/// 64.
pub const PCT_DEPTH: &str = "SAMARITAN_PCT_DEPTH";
/// Whether a failing schedule is minimized before it is reported: `1`
/// (default) or `0`.
pub const MINIMIZE: &str = "SAMARITAN_MINIMIZE";
/// Whether `check` persists failing schedules under
/// `target/samaritan/failures/<binary>/<test>/` and replays them first on the next
/// run: `1` (default) or `0`.
pub const PERSIST: &str = "SAMARITAN_PERSIST";
/// A file where the `hapset` strategy keeps its covered predecessor pairs:
/// loaded before an exploration (a missing file is empty coverage), saved
/// after it (default: none, coverage is not kept).
pub const HAPSET_FILE: &str = "SAMARITAN_HAPSET_FILE";
/// Whether a search that runs longer than two seconds prints a progress
/// line on standard error every two seconds: `1` (default) or `0`.
pub const PROGRESS: &str = "SAMARITAN_PROGRESS";
/// The part of the search space this run explores: `i/n` (from `1/n` to
/// `n/n`), so that `n` jobs together explore exactly what one run would
/// (exactly for `dfs` and `icb`; every strategy but `hapset` and
/// `round-robin` can be split). It wins over a test runner's sharding,
/// which a run without it reads: Bazel's `TEST_SHARD_INDEX` (from 0) of
/// `TEST_TOTAL_SHARDS` (touching `TEST_SHARD_STATUS_FILE`), GitLab's
/// `CI_NODE_INDEX` (from 1) of `CI_NODE_TOTAL`, a Kubernetes Indexed Job's
/// `JOB_COMPLETION_INDEX` (from 0) of [`SHARDS`], and a nextest stress
/// run's `NEXTEST_STRESS_CURRENT` (from 0) of `NEXTEST_STRESS_TOTAL`.
/// `SAMARITAN_SHARD=1/1` explores the whole space whatever the runner
/// says.
pub const SHARD: &str = "SAMARITAN_SHARD";
/// How many completions a Kubernetes Indexed Job has, which Kubernetes
/// does not tell its pods: with `JOB_COMPLETION_INDEX`, the run explores
/// shard `JOB_COMPLETION_INDEX + 1` of `SAMARITAN_SHARDS`.
pub const SHARDS: &str = "SAMARITAN_SHARDS";
/// Threads exploring at once (default 1, since `cargo test` already runs
/// one test per core): from 1 to 256.
pub const WORKERS: &str = "SAMARITAN_WORKERS";
/// A file each exploration appends its report to, as one line of JSON
/// (default: none, or under Bazel `$TEST_UNDECLARED_OUTPUTS_DIR/samaritan-report.jsonl`);
/// `samaritan merge` combines shards' files.
pub const REPORT: &str = "SAMARITAN_REPORT";
