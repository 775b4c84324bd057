//! What an exploration is given: its settings and the body it runs.

use std::sync::Arc;
use std::time::Duration;

/// Settings of one exploration.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Config {
    /// Steps allowed per execution before it is reported as too long.
    pub max_steps: u64,
    /// Stop after this many executions.
    pub max_executions: Option<u64>,
    /// Stop after this much time (checked between executions).
    pub max_time: Option<Duration>,
    /// Report uncontrolled blocking after this long without a step.
    pub watchdog: Duration,
    /// Coroutine stack size for actors.
    pub stack_size: usize,
    /// Whether weak compare-exchange may fail spuriously.
    pub spurious_failures: bool,
    /// Whether the fair demonic scheduler filters every decision
    /// (fair-stateless-model-checking.txt, Algorithm 1).
    pub fairness: bool,
    /// The test's name, for the replay command in reports.
    pub test_name: Option<String>,
    /// Whether a failing schedule is shrunk before it is reported (fewer
    /// preemptions, threads and steps; see [`Shrink`](crate::Shrink)).
    pub minimize: bool,
    /// Whether a search that runs longer than two seconds prints a
    /// progress line on standard error every two seconds (executions, rate,
    /// where the search is).
    pub progress: bool,
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
            fairness: true,
            test_name: None,
            minimize: true,
            progress: true,
        }
    }
}

/// The body of a test: run once per execution.
pub type Body = Arc<dyn Fn() + Send + Sync + 'static>;
