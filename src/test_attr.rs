//! What the code `#[samaritan::test]` generates calls: not an API, and
//! hidden from the documentation (`samaritan::__private`).
//!
//! The attribute knows nothing of the `sim` feature (a proc-macro crate
//! cannot see its user's features); it always generates a call to [`run`],
//! and this module decides: under `sim` the body runs inside `check` with
//! the arguments' settings, without it the body runs once.

use std::fmt::Debug;

/// One argument of `#[samaritan::test(...)]`, checked by the attribute.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Setting {
    /// `strategy = "..."`, as `SAMARITAN_STRATEGY` spells it.
    Strategy(&'static str),
    /// `preemptions = n`.
    Preemptions(u32),
    /// `fairness = on`.
    Fairness(bool),
    /// `pct_depth = d`.
    PctDepth(u32),
    /// `max_steps = n`.
    MaxSteps(u64),
    /// `max_executions = n`.
    MaxExecutions(u64),
    /// `max_time = seconds` (`None`: `"none"`).
    MaxTime(Option<std::time::Duration>),
    /// `seed = n`.
    Seed(u64),
    /// `stack_size = bytes`.
    StackSize(usize),
    /// `watchdog_ms = ms`.
    WatchdogMs(u64),
    /// `spurious_failures = on`.
    SpuriousFailures(bool),
    /// `minimize = on`.
    Minimize(bool),
    /// `persist = on` (off for a `#[should_panic]` test unless given).
    Persist(bool),
    /// `progress = on`.
    Progress(bool),
    /// `hapset_file = "path"`.
    HapsetFile(&'static str),
    /// `workers = n`.
    Workers(u32),
}

/// What a test function may return: `()` or `Result<(), E>`.
pub trait TestResult {
    /// The error, written as the test harness writes it, if the test
    /// failed.
    fn error(self) -> Option<String>;
    /// The value of a passing test.
    fn passed() -> Self;
}

impl TestResult for () {
    fn error(self) -> Option<String> {
        None
    }
    fn passed() {}
}

impl<E: Debug> TestResult for Result<(), E> {
    fn error(self) -> Option<String> {
        self.err().map(|e| format!("{e:?}"))
    }
    fn passed() -> Self {
        Ok(())
    }
}

/// Returns the name the test harness gives the test at `path`
/// (`module_path!()` and the function): the path without the crate.
pub fn test_name(path: &str) -> &str {
    path.split_once("::").map_or(path, |(_, rest)| rest)
}

/// Panics if `result` is a test's failure. The attribute calls it from
/// the test's own code, so that the panic's location is the test's.
#[track_caller]
pub fn fail_on_error<R: TestResult>(result: R) {
    if let Some(err) = result.error() {
        panic!("the test returned an error: {err}");
    }
}

/// Runs a `#[samaritan::test]` body: once without `sim`, returning what
/// it returns to the test harness.
#[cfg(not(feature = "sim"))]
#[track_caller]
pub fn run<R, F, E>(path: &'static str, settings: &[Setting], body: F, fail: E) -> R
where
    R: TestResult,
    F: Fn() -> R + Send + Sync + 'static,
    E: Fn(R) + Send + Sync + 'static,
{
    let _ = (path, settings, fail);
    body()
}

/// Runs a `#[samaritan::test]` body: under `check`, with the settings,
/// named after the test at `path`. A body's `Err` fails its execution
/// through `fail` (`fail_on_error`), as a panic would.
#[cfg(feature = "sim")]
#[track_caller]
pub fn run<R, F, E>(path: &'static str, settings: &[Setting], body: F, fail: E) -> R
where
    R: TestResult,
    F: Fn() -> R + Send + Sync + 'static,
    E: Fn(R) + Send + Sync + 'static,
{
    builder(path, settings).check(move || fail(body()));
    R::passed()
}

/// The builder of the test at `path`: the environment's defaults, then the
/// settings.
#[cfg(feature = "sim")]
fn builder(path: &str, settings: &[Setting]) -> crate::Builder {
    use crate::SearchStrategy;
    let mut b = crate::Builder::new().test_name(test_name(path)).body_path(&format!("{path}::__samaritan_body"));
    for setting in settings {
        b = match *setting {
            Setting::Strategy(name) => b.strategy(
                SearchStrategy::from_name(name).unwrap_or_else(|| panic!("samaritan: unknown strategy {name:?}")),
            ),
            Setting::Preemptions(n) => b.preemption_bound(n),
            Setting::Fairness(on) => b.fairness(on),
            Setting::PctDepth(d) => b.pct_depth(d),
            Setting::MaxSteps(n) => b.max_steps(n),
            Setting::MaxExecutions(n) => b.max_executions(n),
            Setting::MaxTime(Some(t)) => b.max_time(t),
            Setting::MaxTime(None) => b.unlimited_time(),
            Setting::Seed(s) => b.seed(s),
            Setting::StackSize(bytes) => b.stack_size(bytes),
            Setting::WatchdogMs(ms) => b.watchdog(std::time::Duration::from_millis(ms)),
            Setting::SpuriousFailures(on) => b.spurious_failures(on),
            Setting::Minimize(on) => b.minimize(on),
            Setting::Persist(on) => b.persist(on),
            Setting::Progress(on) => b.progress(on),
            Setting::HapsetFile(path) => b.hapset_file(path),
            Setting::Workers(n) => b.workers(n),
        };
    }
    b
}

/// An index in `0..n` (`n > 0`) for a choice a real crate leaves to
/// chance (the branch a `select!` takes among ready ones): inside an
/// exploration an explored choice, outside one a per-thread xorshift
/// generator seeded from std's `RandomState`, as the real crates pick.
/// Used by samaritan's drop-in crates.
#[cfg(feature = "sim")]
#[track_caller]
pub fn pick(n: usize) -> usize {
    use std::cell::Cell;
    use std::hash::{BuildHasher, RandomState};

    if n <= 1 {
        return 0;
    }
    if samaritan_sim::rt::active() {
        return samaritan_sim::rt::choose(n);
    }
    thread_local! {
        static STATE: Cell<u64> = Cell::new(RandomState::new().hash_one(0u8) | 1);
    }
    STATE.with(|s| {
        let mut x = s.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s.set(x);
        (x % n as u64) as usize
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_name_is_the_path_without_the_crate() {
        assert_eq!(test_name("macro_user::lost_update"), "lost_update");
        assert_eq!(test_name("samaritan::tests::nested::t"), "tests::nested::t");
    }
}
