//! What an exploration is given: its settings and the body it runs.

use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::time::Duration;

/// The most steps one execution may take, whatever
/// [`Config::max_steps`] says: a schedule has at most one choice per step,
/// and a replay token is refused when it holds more choices than this
/// ([`TokenError::TooLong`](crate::TokenError::TooLong)), so that every
/// token an exploration writes can be read back, and reading a token
/// allocates at most 64 MiB. An execution this long takes seconds.
pub const MAX_STEPS: u64 = 1 << 24;

/// Settings of one exploration.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Config {
    /// Steps allowed per execution before it is reported as too long; at
    /// most [`MAX_STEPS`] (a larger bound counts as that).
    pub max_steps: u64,
    /// Stop after this many executions (a search runs at least one).
    pub max_executions: Option<u64>,
    /// Stop after this much time (checked after each execution, so a search
    /// runs at least one).
    pub max_time: Option<Duration>,
    /// Report uncontrolled blocking after this long without a step. A
    /// watchdog shorter than a busy machine can keep a thread waiting
    /// reports blocking where there is none (the facade refuses less than
    /// 100 ms).
    pub watchdog: Duration,
    /// Coroutine stack size for actors. The main thread's stack is
    /// allocated at the start of each execution: a size the OS cannot map
    /// makes the exploration panic, naming it (the facade refuses more than
    /// 1 GiB).
    pub stack_size: usize,
    /// Whether weak compare-exchange may fail spuriously, and a
    /// condition variable's `wait` and a thread's `park` wake spuriously
    /// (explored choices, never twice in a row on one atomic or for one
    /// waiting thread).
    pub spurious_failures: bool,
    /// How atomics behave: the C11 model with explored reads-from choices
    /// (the default), sequential consistency whatever the `Ordering`, or
    /// the C11 model with loom's failing compare-exchange.
    pub memory_model: MemoryModel,
    /// Whether the fair demonic scheduler filters every decision
    /// (fair-stateless-model-checking.txt, Algorithm 1).
    pub fairness: bool,
    /// The test's name, for the replay command in reports.
    pub test_name: Option<String>,
    /// Where in the test this exploration was asked for (a `loom::model`
    /// call's location, when a test makes several): named in progress
    /// lines and in the report.
    pub site: Option<String>,
    /// The path of the test's body: its closures
    /// (`krate::module::test::{{closure}}`), or the function that is the
    /// body (`#[samaritan::test]`'s `krate::module::test::__samaritan_body`).
    /// The statics declared inside it, of any type, start every execution
    /// from their initial bytes, and the crate's others are named when
    /// they change and the search meets nondeterminism. samaritan's
    /// `Builder` takes it from the test's name and the closure's type.
    pub body_path: Option<String>,
    /// Whether a failing schedule is shrunk before it is reported (fewer
    /// preemptions, threads and steps; see [`Shrink`](crate::Shrink)).
    pub minimize: bool,
    /// Whether a search that runs longer than two seconds prints a
    /// progress line on standard error every two seconds (executions, rate,
    /// where the search is).
    pub progress: bool,
    /// Once set, the search stops after the running execution and passes
    /// on what it covered: how one worker of a parallel search stops the
    /// others ([`explore_parallel`](crate::explore_parallel)).
    pub cancel: Option<Arc<AtomicBool>>,
    /// Whether a task that nothing in the model can wake is given time to
    /// be woken from outside it (a quarter of the watchdog, when threads
    /// the model does not control run) before the execution is called a
    /// deadlock. Off while a failure is shrunk.
    pub outside_wakes: bool,
    /// A counter the counted executions of this search are added to (in
    /// batches of 64, the rest when the search ends), shared by the
    /// workers of a parallel search so that its progress lines count them
    /// all ([`explore_parallel`](crate::explore_parallel)).
    pub shared_count: Option<Arc<AtomicU64>>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            max_steps: 100_000,
            max_executions: None,
            max_time: None,
            watchdog: Duration::from_secs(10),
            stack_size: 2 << 20,
            spurious_failures: true,
            memory_model: MemoryModel::Weak,
            fairness: true,
            test_name: None,
            site: None,
            body_path: None,
            minimize: true,
            progress: true,
            cancel: None,
            outside_wakes: true,
            shared_count: None,
        }
    }
}

/// How atomics behave in an exploration.
///
/// ```
/// use samaritan_sim::{Config, MemoryModel};
///
/// let mut config = Config::default();
/// assert_eq!(config.memory_model, MemoryModel::Weak);
/// config.memory_model = MemoryModel::Sc;
/// assert_eq!(config.memory_model.name(), "sc");
/// assert_eq!(MemoryModel::from_name("weak"), Some(MemoryModel::Weak));
/// assert!(MemoryModel::WeakCasNewest.is_weak());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MemoryModel {
    /// The C11 model (RC11): a load may read any store coherence and
    /// happens-before allow, and which one is an explored choice;
    /// `Ordering`s are honoured, SeqCst as RC11 says.
    #[default]
    Weak,
    /// Every access is sequentially consistent whatever `Ordering` is
    /// passed (no choice of store; fewer executions, fewer bugs found).
    Sc,
    /// [`MemoryModel::Weak`] with loom's approximation of a failing
    /// compare-exchange: it reads the newest store, as a successful one
    /// does, where C11 lets it read any store a load with its failure
    /// ordering could. An approximation, asked for by name and said in
    /// every pass summary: a bug that needs a failing compare-exchange to
    /// see a stale value is not found. It is what loom explores, and on a
    /// compare-exchange retry loop it saves the stale failures' product
    /// (a Treiber stack under crossbeam-epoch: BENCHMARKS.md).
    WeakCasNewest,
}

impl MemoryModel {
    /// The model's name in settings: `weak`, `sc` or `weak-cas-newest`.
    pub fn name(self) -> &'static str {
        match self {
            MemoryModel::Weak => "weak",
            MemoryModel::Sc => "sc",
            MemoryModel::WeakCasNewest => "weak-cas-newest",
        }
    }

    /// Reads a name as [`MemoryModel::name`] writes it.
    pub fn from_name(name: &str) -> Option<MemoryModel> {
        match name {
            "weak" => Some(MemoryModel::Weak),
            "sc" => Some(MemoryModel::Sc),
            "weak-cas-newest" => Some(MemoryModel::WeakCasNewest),
            _ => None,
        }
    }

    /// Whether atomics follow the C11 model (loads choose among stores):
    /// every model but [`MemoryModel::Sc`].
    pub fn is_weak(self) -> bool {
        self != MemoryModel::Sc
    }
}

/// The body of a test: run once per execution.
pub type Body = Arc<dyn Fn() + Send + Sync + 'static>;

thread_local! {
    /// The test whose exploration runs on this OS thread
    /// ([`Config::test_name`]): a check started inside it belongs to it.
    static RUNNING_TEST: std::cell::RefCell<Option<String>> =
        const { std::cell::RefCell::new(None) };
}

/// Records the test whose exploration starts on this OS thread.
pub(crate) fn set_running_test(name: &Option<String>) {
    RUNNING_TEST.with(|test| test.borrow_mut().clone_from(name));
}

/// Returns the test whose exploration runs on this OS thread, if it has one.
pub(crate) fn running_test() -> Option<String> {
    RUNNING_TEST.with(|test| test.borrow().clone())
}
