//! The explorer: runs executions under a strategy until it finds a bug or
//! the search ends, and guards against hangs with a watchdog.
//!
//! Exploration runs on a dedicated OS thread. The calling thread watches a
//! progress counter; if no step is taken for `Config::watchdog`, it reports
//! uncontrolled blocking instead of hanging (the stuck thread is left
//! behind, since nothing can unblock it).

use std::cell::RefCell;
use std::fmt;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use crate::actor::StackPool;
use crate::execution::{ExecConfig, Execution};
use crate::minimize::Shrink;
use crate::outcome::Outcome;
use crate::run::run_execution;
use crate::schedule::{Replay, Schedule};
use crate::strategy::Strategy;
use crate::trace::Trace;
use crate::worker;

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
    /// preemptions, threads and steps; see [`Shrink`]).
    pub minimize: bool,
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
        }
    }
}

/// Shared with the watchdog: how far the exploration has got.
#[derive(Debug, Default)]
pub(crate) struct Progress {
    pub(crate) steps: AtomicU64,
    pub(crate) executions: AtomicU64,
    /// The actor running (or starting) most recently.
    pub(crate) actor: AtomicU32,
    /// Names given to actors of the running execution, by index.
    pub(crate) names: std::sync::Mutex<Vec<(u32, String)>>,
    /// Set by the watchdog when it gave up on the exploration: it stops at
    /// the next execution instead of running on unseen.
    pub(crate) cancelled: std::sync::atomic::AtomicBool,
}

/// A failing execution: what it did and how to get it back.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The readable trace, one line per step.
    pub trace: Trace,
    /// The schedule that produced it.
    pub schedule: Schedule,
    /// The schedule as a replay token.
    pub token: String,
    /// Actors whose stacks could not be unwound at teardown.
    pub leaked_actors: usize,
}

/// The result of an exploration.
#[derive(Clone, Debug)]
pub struct Report {
    /// How the exploration ended: the first failure, or `Pass`.
    pub outcome: Outcome,
    /// Executions run, pruned ones included.
    pub executions: u64,
    /// Executions the strategy cut short as redundant
    /// ([`ChoiceError::Redundant`](crate::ChoiceError::Redundant)): counted
    /// in `executions`, neither passes nor failures.
    pub pruned: u64,
    /// Whether the strategy covered its whole search space.
    pub exhausted: bool,
    /// The strategy's name.
    pub strategy: String,
    /// The failing execution, when the outcome is a failure the engine saw.
    pub failure: Option<Failure>,
    /// The test's name, for the replay command.
    pub test_name: Option<String>,
    /// For a preemption-bounded search: every execution with at most this
    /// many preemptions was explored (and, with a failure, passed).
    pub completed_bound: Option<u32>,
    /// Whether the search stopped at its preemption bound with executions
    /// beyond it left unexplored.
    pub bounded: bool,
    /// Distinct abstract states the test named with
    /// `samaritan::coverage::state`, if it named any.
    pub states: Option<u64>,
    /// How the count of distinct states grew: `(executions, states)` at
    /// every execution that reached a new state, then at the end.
    pub coverage: Vec<(u64, u64)>,
    /// How much the failing schedule was shrunk before it was reported,
    /// when it was minimized ([`Config::minimize`]).
    pub shrink: Option<Shrink>,
    /// For a coverage-guided search (HaPSet): the predecessor pairs
    /// covered at the end, loaded ones included
    /// ([`Strategy::coverage_pairs`]).
    pub hapset_pairs: Option<u64>,
}

impl Report {
    fn with_strategy(mut self, strategy: &str) -> Report {
        self.strategy = strategy.to_string();
        self
    }

    /// Returns whether the exploration found a bug.
    pub fn is_failure(&self) -> bool {
        self.outcome.is_failure()
    }

    /// Returns the replay token of the failure, if there is one.
    pub fn token(&self) -> Option<&str> {
        self.failure.as_ref().map(|f| f.token.as_str())
    }

    /// Returns the command that replays the failure.
    ///
    /// Inside a test (a thread named after it) that is the test command with
    /// `SAMARITAN_REPLAY` set; elsewhere (a program's main thread), the call
    /// that replays it in code.
    pub fn replay_command(&self) -> Option<String> {
        let token = self.token()?;
        Some(match self.test_name.as_deref().filter(|n| *n != "main") {
            Some(name) => format!("SAMARITAN_REPLAY={token} cargo test {name} -- --exact"),
            None => format!("samaritan::replay(\"{token}\", <the same closure>)"),
        })
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.is_failure() {
            let how = match (self.exhausted, self.bounded, self.completed_bound) {
                (true, true, Some(c)) => {
                    format!("every execution with <= {c} {} explored", plural(c as usize, "preemption"))
                }
                (true, _, _) => "every execution explored".to_string(),
                (false, _, Some(c)) => format!(
                    "search stopped before the space was exhausted; every execution with <= {c} {} explored",
                    plural(c as usize, "preemption")
                ),
                (false, _, None) => "search stopped before the space was exhausted".to_string(),
            };
            // A coverage-guided search skips what it judges covered: its
            // end is not exhaustion.
            let how = match (self.hapset_pairs, self.exhausted) {
                (Some(_), true) => "every choice with an uncovered predecessor pair explored".to_string(),
                _ => how,
            };
            write!(f, "pass: {how}: {} executions", self.executions)?;
            if self.pruned > 0 {
                write!(f, " ({} cut short as redundant)", self.pruned)?;
            }
            write!(f, ", no bug (strategy {})", self.strategy)?;
            if let Some(states) = self.states {
                write!(f, "; {states} distinct states")?;
            }
            if let Some(pairs) = self.hapset_pairs {
                write!(f, "; {pairs} HaPSet {} covered (not exhaustive)", plural(pairs as usize, "pair"))?;
            }
            return Ok(());
        }
        writeln!(f, "samaritan found a bug in execution {} (strategy {})", self.executions, self.strategy)?;
        writeln!(f)?;
        writeln!(f, "{}", self.outcome)?;
        if let Some(shrink) = self.shrink.filter(Shrink::shrank) {
            writeln!(f, "\n{shrink}")?;
        }
        if let (Some(c), Some(failure)) = (self.completed_bound, &self.failure) {
            let p = failure.trace.preemptions();
            writeln!(
                f,
                "\nit takes {p} {}: every execution with <= {c} {} passed",
                plural(p, "preemption"),
                plural(c as usize, "preemption")
            )?;
        }
        if let Some(failure) = &self.failure {
            writeln!(f)?;
            let (steps, preemptions) = (failure.trace.lines.len(), failure.trace.preemptions());
            writeln!(
                f,
                "trace ({} {}, {} {}):",
                steps,
                plural(steps, "step"),
                preemptions,
                plural(preemptions, "preemption")
            )?;
            // A diverging execution's end is its cycle, shown above.
            let tail = if self.outcome.diverged() { 20 } else { 120 };
            write_trace(f, &failure.trace, tail)?;
            if failure.leaked_actors > 0 {
                writeln!(f, "note: {} thread(s) could not be unwound at teardown", failure.leaked_actors)?;
            }
            writeln!(f)?;
            writeln!(f, "replay token: {}", failure.token)?;
            if let Some(command) = self.replay_command() {
                writeln!(f, "replay with:  {command}")?;
            }
        }
        Ok(())
    }
}

/// Longest trace a report prints whole; longer ones show their start and
/// end (the full trace stays in [`Failure::trace`]).
const TRACE_PRINT_LIMIT: usize = 200;

/// Writes `trace`, eliding the middle of a long one but for its first 40
/// and last `tail` steps.
fn write_trace(f: &mut fmt::Formatter<'_>, trace: &Trace, tail: usize) -> fmt::Result {
    if trace.lines.len() <= TRACE_PRINT_LIMIT {
        return write!(f, "{trace}");
    }
    let head = 40;
    let part = |lines: &[crate::trace::TraceLine]| Trace { lines: lines.to_vec() };
    write!(f, "{}", part(&trace.lines[..head]))?;
    writeln!(f, "   ... {} steps not shown ...", trace.lines.len() - head - tail)?;
    write!(f, "{}", part(&trace.lines[trace.lines.len() - tail..]))
}

/// Returns `word` with an `s` unless `n` is 1.
fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        word.to_string()
    } else {
        format!("{word}s")
    }
}

/// The body of a test: run once per execution.
pub type Body = Arc<dyn Fn() + Send + Sync + 'static>;

/// Explores `body` under `strategy` on a fresh OS thread, with a watchdog.
///
/// The search runs without recording traces. When it finds a failure, the
/// failing schedule is minimized ([`Config::minimize`]), then replayed once
/// more, on a fresh thread and with the trace on, to build the report; a
/// replay that ends differently is reported as nondeterminism.
pub fn explore(config: Config, strategy: Box<dyn Strategy + Send>, body: Body) -> Report {
    let mut report = explore_with(config.clone(), strategy, body.clone(), false, false);
    let Some(mut found) = report.failure.take() else { return report };
    if config.minimize {
        report.shrink = crate::minimize::minimize(&config, &mut found.schedule, &report.outcome, &body);
    }
    let traced = replay(config, found.schedule.clone(), body);
    match traced.failure {
        // A nondeterministic program cannot be trusted to replay: keep the
        // verdict and show the replay's trace for what it is worth.
        other if matches!(report.outcome, Outcome::Nondeterminism { .. }) => report.failure = other,
        Some(mut failure) if traced.outcome.same_verdict(&report.outcome) => {
            failure.leaked_actors = failure.leaked_actors.max(found.leaked_actors);
            // The replay's own words go with its trace.
            report.outcome = traced.outcome;
            report.failure = Some(failure);
        }
        other => {
            report.outcome = Outcome::Nondeterminism {
                step: other.as_ref().map_or(0, |f| f.trace.lines.len() as u64),
                detail: format!(
                    "the failing schedule ended with \"{}\" when searched but with \"{}\" when replayed",
                    report.outcome, traced.outcome
                ),
            };
            report.failure = other;
        }
    }
    report
}

/// Replays `schedule` once, with the trace on, and checks that it fits the
/// program: every choice used, and the same operations as when it was
/// recorded (a fingerprint of 0 matches any program).
pub fn replay(mut config: Config, schedule: Schedule, body: Body) -> Report {
    // The fair scheduler decides which actors may be chosen: replay with
    // the setting the schedule was made with.
    config.fairness = schedule.fair;
    let expected = schedule.clone();
    let mut report = explore_with(config, Box::new(Replay::new(schedule)), body, true, true);
    report.strategy = expected.strategy.clone();
    if let Some(failure) = &mut report.failure {
        // The replay's own token names the search that found the schedule.
        failure.schedule.strategy = expected.strategy.clone();
        failure.schedule.seed = expected.seed;
        failure.token = failure.schedule.to_token();
        let used = failure.schedule.choices.len();
        let mismatch = if matches!(report.outcome, Outcome::ScheduleMismatch { .. }) {
            None
        } else if used < expected.choices.len() && !report.outcome.is_failure() {
            // (A replay that fails early shows that failure, which is
            // worth more than the note that the schedule was not used up.)
            Some(format!("the execution ended after {used} of the schedule's {} choices", expected.choices.len()))
        } else if expected.fingerprint != 0 && failure.schedule.fingerprint != expected.fingerprint {
            Some("the schedule replays, but the operations differ from those it was recorded with: the program changed since the token was made".to_string())
        } else {
            None
        };
        if let Some(detail) = mismatch {
            report.outcome = Outcome::ScheduleMismatch { step: failure.trace.lines.len() as u64, detail };
        }
    }
    report
}

pub(crate) fn explore_with(
    config: Config,
    strategy: Box<dyn Strategy + Send>,
    body: Body,
    keep_last: bool,
    tracing: bool,
) -> Report {
    let progress = Arc::new(Progress::default());
    let strategy_name = strategy.name().to_string();
    let (tx, rx) = mpsc::channel();
    let worker_progress = progress.clone();
    let worker_config = config.clone();
    let spawned = worker::run(Box::new(move || {
        let report = explore_here(&worker_config, strategy, &*body, worker_progress, keep_last, tracing);
        let clean = report.failure.as_ref().is_none_or(|f| f.leaked_actors == 0);
        let _ = tx.send(report);
        clean
    }));
    if let Err(err) = spawned {
        panic!("samaritan: cannot start the exploring thread: {err}");
    }
    // Small explorations end within the spin; larger ones are watched.
    let until = Instant::now() + worker::SPIN;
    while Instant::now() < until {
        match rx.try_recv() {
            Ok(report) => return report,
            Err(_) => std::hint::spin_loop(),
        }
    }
    let poll = (config.watchdog / 4).clamp(Duration::from_millis(1), Duration::from_millis(250));
    let mut seen = (u64::MAX, u64::MAX);
    let mut since = Instant::now();
    loop {
        match rx.recv_timeout(poll) {
            Ok(report) => return report,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("samaritan: the exploring thread died (a panic inside samaritan itself)")
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let now = (progress.steps.load(Ordering::Relaxed), progress.executions.load(Ordering::Relaxed));
                if now != seen {
                    seen = now;
                    since = Instant::now();
                } else if since.elapsed() >= config.watchdog {
                    return watchdog_report(&config, &strategy_name, &progress, since.elapsed());
                }
            }
        }
    }
}

fn watchdog_report(config: &Config, strategy: &str, progress: &Progress, silent: Duration) -> Report {
    progress.cancelled.store(true, Ordering::Relaxed);
    let actor = progress.actor.load(Ordering::Relaxed);
    let names = progress.names.lock().unwrap_or_else(|p| p.into_inner());
    let given = names.iter().rev().find(|(i, _)| *i == actor).map(|(_, n)| n.as_str());
    let name = crate::actor::display_name(actor as usize, given);
    drop(names);
    let executions = progress.executions.load(Ordering::Relaxed);
    let steps = progress.steps.load(Ordering::Relaxed);
    Report {
        outcome: Outcome::UncontrolledBlocking {
            actor: name,
            last: format!("step {steps} of execution {}", executions + 1),
            silent_ms: silent.as_millis() as u64,
        },
        executions: executions + 1,
        pruned: 0,
        exhausted: false,
        strategy: String::new(),
        failure: None,
        test_name: config.test_name.clone(),
        completed_bound: None,
        bounded: false,
        states: None,
        coverage: Vec::new(),
        shrink: None,
        hapset_pairs: None,
    }
    .with_strategy(strategy)
}

fn explore_here(
    config: &Config,
    mut strategy: Box<dyn Strategy + Send>,
    body: &(dyn Fn() + Send + Sync),
    progress: Arc<Progress>,
    keep_last: bool,
    tracing: bool,
) -> Report {
    static GENERATION: AtomicU64 = AtomicU64::new(1);
    // Stacks stay with the exploring thread across explorations.
    thread_local! {
        static POOL: RefCell<Option<StackPool>> = const { RefCell::new(None) };
    }
    let mut pool = POOL
        .with(|p| p.borrow_mut().take())
        .filter(|p| p.size() == config.stack_size)
        .unwrap_or_else(|| StackPool::new(config.stack_size));
    let exec_config = ExecConfig {
        max_steps: config.max_steps,
        spurious_failures: config.spurious_failures,
        tracing,
        observed: strategy.observes_steps(),
        fair: config.fairness,
    };
    let started = Instant::now();
    let mut report = Report {
        outcome: Outcome::Pass,
        executions: 0,
        pruned: 0,
        exhausted: false,
        strategy: strategy.name().to_string(),
        failure: None,
        test_name: config.test_name.clone(),
        completed_bound: None,
        bounded: false,
        states: None,
        coverage: Vec::new(),
        shrink: None,
        hapset_pairs: None,
    };
    let cell =
        RefCell::new(Execution::new(0, exec_config, std::ptr::null_mut::<Replay>(), &mut pool, progress.clone()));
    loop {
        if config.max_executions.is_some_and(|m| report.executions >= m)
            || config.max_time.is_some_and(|t| started.elapsed() >= t)
            || progress.cancelled.load(Ordering::Relaxed)
        {
            break;
        }
        if !strategy.begin_execution() {
            report.exhausted = true;
            break;
        }
        let mut exec = cell.borrow_mut();
        exec.reset(GENERATION.fetch_add(1, Ordering::Relaxed));
        let strategy_ptr: *mut (dyn Strategy + Send) = &mut *strategy;
        // SAFETY: only the lifetime bound is erased; the execution ends
        // before `strategy` is touched again or dropped.
        exec.strategy =
            unsafe { std::mem::transmute::<*mut (dyn Strategy + Send), *mut (dyn Strategy + 'static)>(strategy_ptr) };
        drop(exec);
        run_execution(&cell, body);
        let mut exec = cell.borrow_mut();
        report.executions += 1;
        report.pruned += u64::from(exec.pruned);
        progress.executions.store(report.executions, Ordering::Relaxed);
        let outcome = exec.outcome.take().unwrap_or(Outcome::Pass);
        strategy.end_execution(&outcome);
        let states = exec.states.len() as u64;
        if states > report.coverage.last().map_or(0, |&(_, s)| s) {
            report.coverage.push((report.executions, states));
        }
        if outcome.is_failure() || keep_last {
            let schedule = Schedule {
                strategy: strategy.name().to_string(),
                seed: strategy.seed(),
                choices: std::mem::take(&mut exec.schedule),
                fingerprint: if tracing { exec.fingerprint() } else { 0 },
                fair: config.fairness,
            };
            report.failure = Some(Failure {
                trace: exec.readable_trace(),
                token: schedule.to_token(),
                schedule,
                leaked_actors: exec.leaked,
            });
            if outcome.is_failure() {
                report.outcome = outcome;
                break;
            }
        }
    }
    report.completed_bound = strategy.completed_bound();
    report.bounded = strategy.bounded();
    report.hapset_pairs = strategy.coverage_pairs();
    let states = cell.borrow().states.len() as u64;
    report.states = (states > 0).then_some(states);
    if states > 0 && report.coverage.last().is_some_and(|&(e, _)| e < report.executions) {
        report.coverage.push((report.executions, states));
    }
    drop(cell);
    POOL.with(|p| *p.borrow_mut() = Some(pool));
    report
}
