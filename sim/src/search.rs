//! Running executions under a strategy on an exploring thread, watched
//! for silence (the watchdog).
//!
//! Exploration runs on a dedicated OS thread. The calling thread watches a
//! progress counter; if no step is taken for `Config::watchdog`, it reports
//! uncontrolled blocking instead of hanging (the stuck thread is left
//! behind, since nothing can unblock it).

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use crate::actor::StackPool;
use crate::config::{Body, Config};
use crate::execution::{ExecConfig, Execution};
use crate::outcome::Outcome;
use crate::progress::{Lines, Progress};
use crate::report::{Budget, Failure, Report};
use crate::run::run_execution;
use crate::schedule::{Replay, Schedule};
use crate::strategy::Strategy;
use crate::worker;

/// Runs executions of `body` under `strategy` on an exploring thread until
/// the strategy is done, a failure is found or a budget runs out; keeps the
/// last execution's trace when `keep_last` (a replay), and records traces
/// when `tracing`.
pub(crate) fn search(
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
    let label = config.test_name.clone().filter(|n| n != "main").unwrap_or_else(|| strategy_name.clone());
    let mut lines = config.progress.then(|| Lines::new(label));
    loop {
        if let Some(lines) = &mut lines {
            lines.tick(&progress, poll);
        }
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
    let mut report = Report::new(strategy, config.test_name.clone());
    report.outcome = Outcome::UncontrolledBlocking {
        actor: name,
        last: format!("step {steps} of execution {}", executions + 1),
        silent_ms: silent.as_millis() as u64,
    };
    report.executions = executions + 1;
    report
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
    let mut report = Report::new(strategy.name(), config.test_name.clone());
    let cell =
        RefCell::new(Execution::new(0, exec_config, std::ptr::null_mut::<Replay>(), &mut pool, progress.clone()));
    loop {
        if let Some(m) = config.max_executions.filter(|&m| report.executions >= m) {
            report.stopped = Some(Budget::Executions(m));
            break;
        }
        if let Some(t) = config.max_time.filter(|&t| started.elapsed() >= t) {
            report.stopped = Some(Budget::Time(t));
            break;
        }
        if progress.cancelled.load(Ordering::Relaxed) {
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
        progress.describe(&*strategy);
        if outcome.is_failure() || keep_last {
            // A portfolio's token names the part that ran the execution.
            let name = match strategy.part() {
                Some(part) => format!("{}/{part}", strategy.name()),
                None => strategy.name().to_string(),
            };
            if outcome.is_failure() {
                report.strategy = name.clone();
            }
            let schedule = Schedule {
                strategy: name,
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
    report.randomized = strategy.randomized();
    let states = cell.borrow().states.len() as u64;
    report.states = (states > 0).then_some(states);
    if states > 0 && report.coverage.last().is_some_and(|&(e, _)| e < report.executions) {
        report.coverage.push((report.executions, states));
    }
    drop(cell);
    POOL.with(|p| *p.borrow_mut() = Some(pool));
    report
}
