//! Running executions under a strategy on an exploring thread, watched
//! for silence (the watchdog).
//!
//! Exploration runs on a dedicated OS thread. The calling thread watches a
//! progress counter; if no step is taken for `Config::watchdog`, it reports
//! uncontrolled blocking instead of hanging (the stuck thread is left
//! behind, since nothing can unblock it).
//!
//! Invariant: an execution never starts on a thread that is unwinding
//! (`std::thread::panicking()`). An actor abandoned half-way through its
//! unwinding (one that can never go on) leaves its OS thread's panic
//! count raised for good, and every operation on that thread would then
//! take no step; so the search hands its state back and goes on on a
//! fresh thread, and the tainted one is never reused.

use std::cell::RefCell;
use std::collections::HashSet;
use std::panic::{self, AssertUnwindSafe};
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
use crate::statics::Restores;
use crate::strategy::Strategy;
use crate::test_statics::TestStatics;
use crate::{throttle, worker};

/// Executions a search counts before it adds them to a parallel search's
/// shared count ([`Config::shared_count`]).
const SHARED_BATCH: u64 = 64;

/// What a search found.
pub(crate) struct Searched {
    /// Its report.
    pub(crate) report: Report,
    /// The schedule of its first execution, when that passed and was not
    /// the last: an execution that passed must pass again when replayed
    /// after a later one failed, or the program keeps state between
    /// executions.
    pub(crate) first: Option<Schedule>,
}

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
) -> Searched {
    let progress = Arc::new(Progress::default());
    // No execution has begun yet.
    progress.between.store(true, Ordering::Relaxed);
    let strategy_name = strategy.name().to_string();
    let (tx, rx) = mpsc::channel();
    let start = |search: Search| {
        let (tx, progress, config, body) = (tx.clone(), progress.clone(), config.clone(), body.clone());
        let spawned = worker::run(Box::new(move || {
            *progress.explorer.lock().unwrap_or_else(|p| p.into_inner()) = Some(throttle::this_thread());
            let explored = panic::catch_unwind(AssertUnwindSafe(|| {
                explore_here(&config, search, &*body, progress.clone(), keep_last, tracing)
            }));
            // Before the thread goes on to anything else (throttle module
            // invariant).
            *progress.explorer.lock().unwrap_or_else(|p| p.into_inner()) = None;
            // Nothing of the exploration may outlive the report the caller
            // gets: the body (the test's closure) goes first.
            drop(body);
            match explored {
                Ok(back) => {
                    let clean = match &back {
                        Handback::Done(searched) => {
                            searched.report.failure.as_ref().is_none_or(|f| f.leaked_actors == 0)
                        }
                        Handback::Moved(_) => false,
                    };
                    let _ = tx.send(Ok(back));
                    clean
                }
                // A panic of the engine itself (actors' are caught where
                // they run): its message goes to the caller, and the thread
                // is not reused.
                Err(payload) => {
                    let _ = tx.send(Err(crate::panics::message_of(&*payload)));
                    false
                }
            }
        }));
        if let Err(err) = spawned {
            panic!("samaritan: cannot start the exploring thread: {err}");
        }
    };
    start(Search::new(strategy, &config));
    // Small explorations end within the spin; larger ones are watched.
    let until = Instant::now() + worker::SPIN;
    while Instant::now() < until {
        match rx.try_recv() {
            Ok(Ok(Handback::Done(searched))) => return searched,
            Ok(Ok(Handback::Moved(search))) => start(search),
            Ok(Err(message)) => engine_panic(&message),
            Err(_) => std::hint::spin_loop(),
        }
    }
    let poll = (config.watchdog / 4).clamp(Duration::from_millis(1), Duration::from_millis(250));
    let mut seen = (u64::MAX, u64::MAX);
    // Since when the strategy has been running without an execution
    // between (see below).
    let mut strategy_since: Option<Instant> = None;
    let mut since = Instant::now();
    let label = config.test_name.clone().filter(|n| n != "main").unwrap_or_else(|| strategy_name.clone());
    let label = match &config.site {
        Some(site) => format!("{label} (the model at {site})"),
        None => label,
    };
    let mut lines = config.progress.then(|| Lines::new(label, config.shared_count.clone()));
    loop {
        if let Some(lines) = &mut lines {
            lines.tick(&progress, poll);
        }
        match rx.recv_timeout(poll) {
            Ok(Ok(Handback::Done(searched))) => return searched,
            Ok(Ok(Handback::Moved(search))) => start(search),
            Ok(Err(message)) => engine_panic(&message),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("samaritan: the exploring thread died (a panic inside samaritan itself)")
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let now = (
                    progress.steps.load(Ordering::Relaxed),
                    progress.executions.load(Ordering::Relaxed) + progress.elsewhere.load(Ordering::Relaxed),
                );
                // Time spent between executions (the engine's and the
                // strategy's bookkeeping after a long execution, a worker
                // waiting for work) is not the program's silence; but
                // only up to ten watchdogs (a minute at least), so that
                // samaritan stuck in itself still ends.
                let strategy_ran = progress.between.load(Ordering::Relaxed);
                let patient = config.watchdog.saturating_mul(10).max(Duration::from_secs(60));
                if now != seen {
                    (seen, since, strategy_since) = (now, Instant::now(), None);
                } else if strategy_ran && strategy_since.get_or_insert_with(Instant::now).elapsed() < patient {
                    since = Instant::now();
                } else if since.elapsed() >= config.watchdog {
                    let report = watchdog_report(&config, &strategy_name, &progress, since.elapsed());
                    return Searched { report, first: None };
                }
            }
        }
    }
}

/// Panics on the caller's thread with the message of a panic of the
/// exploring thread.
fn engine_panic(message: &str) -> ! {
    panic!("samaritan: the exploring thread panicked: {message}")
}

fn watchdog_report(config: &Config, strategy: &str, progress: &Arc<Progress>, silent: Duration) -> Report {
    progress.cancelled.store(true, Ordering::Relaxed);
    // The exploring thread is left behind; if it spins, it spins slowly.
    throttle::throttle(progress.clone());
    let actor = progress.actor.load(Ordering::Relaxed);
    let names = progress.names.lock().unwrap_or_else(|p| p.into_inner());
    let given = names.iter().rev().find(|(i, _)| *i == actor).map(|(_, n)| n.as_str());
    let name = crate::actor::display_name(actor as usize, given);
    drop(names);
    let executions = progress.executions.load(Ordering::Relaxed);
    let steps = progress.steps.load(Ordering::Relaxed);
    let mut report = Report::new(strategy, config.test_name.clone());
    report.site = config.site.clone();
    report.outcome = Outcome::UncontrolledBlocking {
        actor: name,
        last: format!("step {steps} of execution {}", executions + 1),
        silent_ms: silent.as_millis() as u64,
    };
    report.executions = executions + 1;
    report
}

/// Drops the values an execution that ended early kept
/// (`rt::execution_value`), then puts back the statics it claimed
/// ([`restore`]). Runs outside the execution: a value dropped here is
/// dropped as in production. On a thread left unwinding (an actor was
/// abandoned half-way through its panic's unwinding), where a panic in a
/// `Drop` would abort the process, the values are leaked and the statics
/// are put back on a thread of their own.
fn after_execution(cell: &RefCell<Execution>) {
    let (generation, values, restores) = {
        let mut e = cell.borrow_mut();
        (e.generation, std::mem::take(&mut e.values), std::mem::take(&mut e.restores))
    };
    if std::thread::panicking() {
        std::mem::forget(values);
        if !restores.is_empty() {
            std::thread::scope(|s| {
                let _ = s.spawn(|| restore(generation, restores)).join();
            });
        }
        return;
    }
    for (_, value) in values.into_iter().rev() {
        let _ = panic::catch_unwind(AssertUnwindSafe(move || drop(value)));
    }
    restore(generation, restores);
}

/// Puts back the statics the execution of `generation` claimed, the last
/// saved first (so a static saved twice ends as it was first saved), and
/// ends the claims. A panic in a `Drop` is contained (the static then
/// keeps what it has).
fn restore(generation: u64, restores: Restores) {
    for (address, restore) in restores.into_iter().rev() {
        let _ = panic::catch_unwind(AssertUnwindSafe(restore));
        crate::statics::release(address, generation);
    }
}

/// A search under way: what an exploring thread needs to go on with it.
pub(crate) struct Search {
    strategy: Box<dyn Strategy + Send>,
    report: Report,
    started: Instant,
    /// The abstract states the test named so far.
    states: HashSet<u64>,
    /// The first execution's schedule, if it passed (`Searched::first`).
    first: Option<Schedule>,
    /// The test's own statics, put back after each execution.
    statics: TestStatics,
}

impl Search {
    fn new(strategy: Box<dyn Strategy + Send>, config: &Config) -> Search {
        let mut report = Report::new(strategy.name(), config.test_name.clone());
        report.site = config.site.clone();
        let statics = TestStatics::of(config.body_path.as_deref());
        Search { strategy, report, started: Instant::now(), states: HashSet::new(), first: None, statics }
    }
}

/// What an exploring thread hands back: what the search found, or the
/// search to go on with on a fresh thread (this one is unwinding for good).
pub(crate) enum Handback {
    Done(Searched),
    Moved(Search),
}

fn explore_here(
    config: &Config,
    search: Search,
    body: &(dyn Fn() + Send + Sync),
    progress: Arc<Progress>,
    keep_last: bool,
    tracing: bool,
) -> Handback {
    let Search { mut strategy, mut report, started, states, mut first, statics } = search;
    if let Some(cancel) = &config.cancel {
        strategy.set_cancel(cancel.clone());
    }
    // A simulated thread that overflows its stack becomes a verdict.
    crate::overflow::prepare();
    static GENERATION: AtomicU64 = AtomicU64::new(1);
    // Stacks stay with the exploring thread across explorations.
    thread_local! {
        static POOL: RefCell<Option<StackPool>> = const { RefCell::new(None) };
    }
    crate::config::set_running_test(&config.test_name);
    let mut pool = POOL
        .with(|p| p.borrow_mut().take())
        .filter(|p| p.size() == config.stack_size)
        .unwrap_or_else(|| StackPool::new(config.stack_size));
    let exec_config = ExecConfig {
        max_steps: config.max_steps.min(crate::config::MAX_STEPS),
        spurious_failures: config.spurious_failures,
        memory_model: config.memory_model,
        tracing,
        observed: strategy.observes_steps(),
        fair: config.fairness,
        outside_wait: if config.outside_wakes { config.watchdog / 4 } else { std::time::Duration::ZERO },
    };
    let cell =
        RefCell::new(Execution::new(0, exec_config, std::ptr::null_mut::<Replay>(), &mut pool, progress.clone()));
    cell.borrow_mut().states = states;
    loop {
        if std::thread::panicking() {
            // An abandoned unwinding left this thread's panic count raised
            // (module invariant): go on on a fresh thread.
            let states = std::mem::take(&mut cell.borrow_mut().states);
            drop(cell);
            POOL.with(|p| *p.borrow_mut() = Some(pool));
            return Handback::Moved(Search { strategy, report, started, states, first, statics });
        }
        // A budget never stops a search before its first execution: a
        // search that ran none would pass having checked nothing.
        let ran = report.executions > 0;
        if let Some(m) = config.max_executions.filter(|&m| ran && report.executions >= m) {
            report.stopped = Some(Budget::Executions(m));
            break;
        }
        if let Some(t) = config.max_time.filter(|&t| ran && started.elapsed() >= t) {
            report.stopped = Some(Budget::Time(t));
            break;
        }
        if progress.cancelled.load(Ordering::Relaxed)
            || config.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed))
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
        progress.between.store(false, Ordering::Relaxed);
        run_execution(&cell, body);
        // The test's statics go back after the primitives' (`test_statics`).
        let kept: Vec<usize> =
            if statics.resets() { cell.borrow().restores.iter().map(|&(a, _)| a).collect() } else { Vec::new() };
        after_execution(&cell);
        statics.reset(&kept);
        progress.between.store(true, Ordering::Relaxed);
        let mut exec = cell.borrow_mut();
        let outcome = exec.outcome.take().unwrap_or(Outcome::Pass);
        strategy.end_execution(&outcome);
        if strategy.elsewhere() {
            // Another shard's: it counts there, and so does its outcome.
            report.elsewhere += 1;
            progress.elsewhere.store(report.elsewhere, Ordering::Relaxed);
            continue;
        }
        report.executions += 1;
        if report.unrestored.is_none() {
            report.unrestored = exec.unrestored_note();
        }
        report.pruned += u64::from(exec.pruned);
        report.longest = report.longest.max(exec.steps);
        report.faults |= exec.faults;
        progress.executions.store(report.executions, Ordering::Relaxed);
        // In batches: the workers of a parallel search share the counter,
        // and an add of theirs per execution would fight over it.
        if let Some(count) = config.shared_count.as_ref().filter(|_| report.executions % SHARED_BATCH == 0) {
            count.fetch_add(SHARED_BATCH, Ordering::Relaxed);
        }
        if report.executions == 1 && outcome.is_pass() && !keep_last {
            first = Some(Schedule {
                strategy: strategy.name().to_string(),
                seed: strategy.seed(),
                choices: exec.schedule.clone(),
                fingerprint: 0,
                fair: config.fairness,
                memory_model: config.memory_model,
            });
        }
        let states = exec.states.len() as u64;
        if states > report.coverage.last().map_or(0, |&(_, s)| s) {
            report.coverage.push((report.executions, states));
        }
        progress.describe(&*strategy);
        if !outcome.is_pass() || keep_last {
            // A portfolio's token names the part that ran the execution.
            let name = match strategy.part() {
                Some(part) => format!("{}/{part}", strategy.name()),
                None => strategy.name().to_string(),
            };
            if !outcome.is_pass() {
                report.strategy = name.clone();
            }
            let schedule = Schedule {
                strategy: name,
                seed: strategy.seed(),
                choices: std::mem::take(&mut exec.schedule),
                fingerprint: if tracing { exec.fingerprint() } else { 0 },
                fair: config.fairness,
                memory_model: config.memory_model,
            };
            report.failure = Some(Failure {
                trace: exec.readable_trace(),
                token: schedule.to_token(),
                schedule,
                leaked_actors: exec.leaked,
            });
            if !outcome.is_pass() {
                report.outcome = outcome;
                report.rank = strategy.rank();
                break;
            }
        }
    }
    if let Some(count) = &config.shared_count {
        // The executions since the last batch.
        count.fetch_add(report.executions % SHARED_BATCH, Ordering::Relaxed);
    }
    if let Some(note) = statics.changed_note() {
        if let (Outcome::Nondeterminism { detail, .. }, None) = (&mut report.outcome, &report.unrestored) {
            detail.push_str(&note);
        }
        report.unrestored.get_or_insert(note);
    }
    report.completed_bound = strategy.completed_bound();
    report.bounded = strategy.bounded();
    report.bound_ends_switches = strategy.bound_ends_switches();
    report.cas_newest = config.memory_model == crate::config::MemoryModel::WeakCasNewest;
    report.hapset_pairs = strategy.coverage_pairs();
    report.randomized = strategy.randomized();
    let states = cell.borrow().states.len() as u64;
    report.states = (states > 0).then_some(states);
    if states > 0 && report.coverage.last().is_some_and(|&(e, _)| e < report.executions) {
        report.coverage.push((report.executions, states));
    }
    drop(cell);
    POOL.with(|p| *p.borrow_mut() = Some(pool));
    // The first execution was the last: there is nothing to compare it to.
    Handback::Done(Searched { first: first.filter(|_| report.executions > 1), report })
}

#[cfg(test)]
mod tests {
    use std::panic::Location;
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    use std::sync::Arc;

    use crate::config::Config;
    use crate::op::{ActorId, Op};
    use crate::outcome::Outcome;
    use crate::rt::{self, ObjectSlot};
    use crate::strategy::{ChoiceError, ChoicePoint, SchedulePoint, Strategy};

    /// Finds every execution redundant at its first decision: the engine
    /// runs each on to its end, or cuts it off.
    #[derive(Debug)]
    struct AllRedundant {
        left: u32,
    }

    impl Strategy for AllRedundant {
        fn name(&self) -> &'static str {
            "all-redundant"
        }

        fn begin_execution(&mut self) -> bool {
            self.left = self.left.saturating_sub(1);
            self.left > 0
        }

        fn choose_actor(&mut self, _: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
            Err(ChoiceError::Redundant)
        }

        fn choose_value(&mut self, _: &ChoicePoint<'_>) -> Result<usize, ChoiceError> {
            Ok(0)
        }

        fn end_execution(&mut self, _: &Outcome) {}
    }

    static LOCK_A: (ObjectSlot, AtomicBool) = (ObjectSlot::new(), AtomicBool::new(false));
    static LOCK_B: (ObjectSlot, AtomicBool) = (ObjectSlot::new(), AtomicBool::new(false));
    /// Executions that started on a thread that was unwinding.
    static TAINTED_STARTS: AtomicU32 = AtomicU32::new(0);

    /// Takes `lock` (a modelled lock: an object and a held flag).
    fn take(lock: &'static (ObjectSlot, AtomicBool)) {
        let (id, _) = lock.0.id("Lock");
        rt::step_when(Op::Lock, Some(id), Location::caller(), &|| !lock.1.load(Ordering::Relaxed));
        lock.1.store(true, Ordering::Relaxed);
    }

    /// Takes `lock` when dropped.
    struct TakesOnDrop(&'static (ObjectSlot, AtomicBool));

    impl Drop for TakesOnDrop {
        fn drop(&mut self) {
            take(self.0);
        }
    }

    /// Spins on visible steps for ever.
    fn spin() -> ! {
        loop {
            rt::step(Op::Load, None, Location::caller());
        }
    }

    /// Main holds `a` and, dropping its guard, needs `b`; t1 holds `b` and,
    /// dropping its guard, needs `a`: whoever unwinds first at teardown
    /// waits for the other, which waits back. Both are abandoned half-way
    /// through their unwinding.
    fn destructors_in_a_cycle() {
        if std::thread::panicking() {
            TAINTED_STARTS.fetch_add(1, Ordering::Relaxed);
        }
        LOCK_A.1.store(false, Ordering::Relaxed);
        LOCK_B.1.store(false, Ordering::Relaxed);
        take(&LOCK_A);
        let _guard = TakesOnDrop(&LOCK_B);
        rt::spawn(
            None,
            None,
            Location::caller(),
            Box::new(|| {
                take(&LOCK_B);
                let _guard = TakesOnDrop(&LOCK_A);
                spin();
            }),
        )
        .expect("a stack for t1");
        // Wait until t1 holds `b`, then spin: the engine runs the rest on
        // default choices until it cuts the execution off.
        let (id, _) = LOCK_B.0.id("Lock");
        rt::step_when(Op::Load, Some(id), Location::caller(), &|| LOCK_B.1.load(Ordering::Relaxed));
        spin();
    }

    /// An actor abandoned half-way through its unwinding leaves its OS
    /// thread's panic count raised; the next execution runs on a fresh
    /// thread, not on that one, where every operation would take no step.
    #[test]
    fn a_search_moves_to_a_fresh_thread_after_an_abandoned_unwinding() {
        let config = Config { fairness: false, minimize: false, progress: false, ..Config::default() };
        let report =
            super::search(config, Box::new(AllRedundant { left: 4 }), Arc::new(destructors_in_a_cycle), false, false)
                .report;
        assert_eq!((&report.outcome, report.executions, report.pruned), (&Outcome::Pass, 3, 3));
        assert_eq!(TAINTED_STARTS.load(Ordering::Relaxed), 0);
    }
}
