//! Failure minimization: a failing schedule is shrunk before it is shown.
//!
//! The search may find a bug through a long schedule with needless
//! preemptions and threads that run for nothing. The minimizer runs
//! candidate schedules derived from it, one execution each, under the
//! lenient [`Guided`] strategy, and keeps a candidate when it ends with
//! the same verdict and is smaller: fewer preemptions, then fewer threads
//! that took a step, then fewer steps ([`Size::key`]). A candidate is the
//! kept execution's sequence of steps (which thread took each, and the
//! value of each data choice), changed in one way:
//!
//! 1. cut just before a preempting step, then defaults (every later
//!    preemption gone);
//! 2. one preemption undone: the preempted thread's next block of steps
//!    moved up to where it was preempted;
//! 3. cut after the shortest prefix that still fails (binary search), then
//!    defaults;
//! 4. one thread's steps left out, with defaults that pass it over while
//!    another thread can run.
//!
//! They are tried in that order until one is kept, then again from the
//! kept one, to a fixpoint or the budget ([`MAX_RUNS`] runs or
//! [`MAX_TIME`]). The result is deterministic but for that time limit.
//!
//! The default at an actor choice is the running thread when it may go on
//! (no preemption); after a yield, the next enabled thread in id order (a
//! yield switches for free, and a yield loop then lets the others run
//! even without the fair scheduler); else the lowest-id enabled thread. It
//! is value 0 at a data choice.
//!
//! The order is lexicographic, so a kept candidate never has more
//! preemptions: the "it takes p preemptions" of a preemption-bounded search
//! stays true. Only panics, deadlocks and data races are minimized (a race
//! is kept only when the same two accesses race): a diverging
//! execution is cut off by the step bound, and the other verdicts are the
//! engine's, not the program's.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::config::{Body, Config};
use crate::op::{ActorId, Op};
use crate::outcome::Outcome;
use crate::report::{Shrink, Size};
use crate::schedule::{Replay, Schedule};
use crate::search::search;
use crate::strategy::{ChoiceError, ChoicePoint, SchedulePoint, Step, Strategy};

/// Most candidate runs one minimization makes.
pub(crate) const MAX_RUNS: u32 = 300;

/// Most time one minimization takes (checked between runs).
pub(crate) const MAX_TIME: Duration = Duration::from_secs(2);

/// One step of an execution as the minimizer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Taken {
    actor: ActorId,
    /// The value chosen, at a data choice.
    value: Option<u32>,
    preempt: bool,
}

/// What a [`Guided`] execution did, read after it ends.
#[derive(Debug, Default)]
struct Log {
    steps: Vec<Taken>,
}

impl Log {
    fn size(&self) -> Size {
        let mut actors: Vec<ActorId> = self.steps.iter().map(|s| s.actor).collect();
        actors.sort_unstable();
        actors.dedup();
        Size {
            steps: self.steps.len(),
            preemptions: self.steps.iter().filter(|s| s.preempt).count(),
            actors: actors.len(),
        }
    }
}

/// A lenient replay: at step `k` it runs the actor of the guide's step
/// `k` (or picks its value at a data choice) where that fits, and takes
/// the default (see the module doc) where it does not and once the guide
/// runs out. It never fails.
///
/// Guides are indexed by step, not by decision: a candidate that leaves
/// out one thread's steps, or moves a block of steps earlier, then still
/// lines up with the rest of the execution it came from.
///
/// To measure the schedule the search found, it replays that schedule
/// exactly instead (`exact`), failing where it does not fit.
#[derive(Debug)]
pub(crate) struct Guided {
    guide: Vec<Taken>,
    exact: Option<Replay>,
    /// A thread the defaults pass over while another is enabled.
    avoid: Option<ActorId>,
    started: bool,
    log: Arc<Mutex<Log>>,
}

impl Guided {
    fn guide(&self, step: u64) -> Option<Taken> {
        usize::try_from(step).ok().and_then(|k| self.guide.get(k)).copied()
    }

    /// The choice that keeps the execution simplest at `point`.
    fn default_actor(&self, point: &SchedulePoint<'_>) -> ActorId {
        let allowed = |a: &ActorId| Some(*a) != self.avoid;
        let first = point.enabled.iter().copied().find(allowed).unwrap_or(point.enabled[0]);
        match point.current {
            Some(current) if point.yielding => {
                point.enabled.iter().copied().filter(allowed).find(|a| a.0 > current.0).unwrap_or(first)
            }
            Some(current) if Some(current) != self.avoid => current,
            _ => first,
        }
    }
}

impl Strategy for Guided {
    fn name(&self) -> &'static str {
        "guided"
    }

    fn begin_execution(&mut self) -> bool {
        !std::mem::replace(&mut self.started, true)
    }

    fn choose_actor(&mut self, point: &SchedulePoint<'_>) -> Result<ActorId, ChoiceError> {
        if let Some(exact) = &mut self.exact {
            return exact.choose_actor(point);
        }
        let wanted = self.guide(point.step).map(|g| g.actor).filter(|a| point.enabled.contains(a));
        Ok(wanted.unwrap_or_else(|| self.default_actor(point)))
    }

    fn choose_value(&mut self, point: &ChoicePoint<'_>) -> Result<usize, ChoiceError> {
        if let Some(exact) = &mut self.exact {
            return exact.choose_value(point);
        }
        let wanted = self.guide(point.step).filter(|g| g.actor == point.actor).and_then(|g| g.value);
        Ok(wanted.map(|v| v as usize).filter(|&v| v < point.alternatives).unwrap_or(0))
    }

    fn end_execution(&mut self, _outcome: &Outcome) {}

    fn observes_steps(&self) -> bool {
        true
    }

    fn on_step(&mut self, step: &Step) {
        let value = (step.pending.op == Op::Choose).then_some(step.value);
        let taken = Taken { actor: step.actor, value, preempt: step.preempt };
        self.log.lock().unwrap_or_else(|p| p.into_inner()).steps.push(taken);
    }

    fn exhausted(&self) -> bool {
        self.started
    }
}

/// A candidate that failed with the original verdict.
#[derive(Clone, Debug)]
struct Found {
    /// The choices the execution really made.
    choices: Vec<u32>,
    steps: Vec<Taken>,
    size: Size,
}

/// One minimization in progress.
struct Minimizer<'a> {
    config: Config,
    body: &'a Body,
    verdict: &'a Outcome,
    runs: u32,
    started: Instant,
}

impl Minimizer<'_> {
    fn spent(&self) -> bool {
        self.runs >= MAX_RUNS || self.started.elapsed() >= MAX_TIME
    }

    /// Runs one execution guided by `guide`; returns it if it failed with
    /// the original verdict.
    fn run(&mut self, guide: Vec<Taken>, avoid: Option<ActorId>) -> Option<Found> {
        self.run_guided(Guided { guide, exact: None, avoid, started: false, log: Arc::default() })
    }

    /// Runs `schedule` exactly; returns it if it failed with the original
    /// verdict.
    fn run_exact(&mut self, schedule: &Schedule) -> Option<Found> {
        let exact = Some(Replay::new(schedule.clone()));
        self.run_guided(Guided { guide: Vec::new(), exact, avoid: None, started: false, log: Arc::default() })
    }

    fn run_guided(&mut self, strategy: Guided) -> Option<Found> {
        self.runs += 1;
        let log = strategy.log.clone();
        let report = search(self.config.clone(), Box::new(strategy), self.body.clone(), false, false).report;
        if !report.outcome.same_verdict(self.verdict) {
            return None;
        }
        let failure = report.failure?;
        let log = std::mem::take(&mut *log.lock().unwrap_or_else(|p| p.into_inner()));
        Some(Found { choices: failure.schedule.choices, size: log.size(), steps: log.steps })
    }

    /// Runs `guide` and returns the result if it is smaller than `best`.
    fn try_smaller(&mut self, best: &Found, guide: Vec<Taken>, avoid: Option<ActorId>) -> Option<Found> {
        if self.spent() {
            return None;
        }
        self.run(guide, avoid).filter(|f| f.size.key() < best.size.key())
    }

    /// Tries the candidates of `best` in order; returns the first smaller
    /// one.
    fn improve(&mut self, best: &Found) -> Option<Found> {
        let steps = &best.steps;
        let preempting: Vec<usize> = (1..steps.len()).filter(|&k| steps[k].preempt).collect();
        // 1. Cut before a preemption: it and every later one go.
        for &k in &preempting {
            if let Some(found) = self.try_smaller(best, steps[..k].to_vec(), None) {
                return Some(found);
            }
        }
        // 2. Undo one preemption: the preempted thread's next block of
        // steps moves up to where it was preempted.
        for &k in &preempting {
            let preempted = steps[k - 1].actor;
            let Some(from) = (k..steps.len()).find(|&m| steps[m].actor == preempted) else { continue };
            let to = (from..steps.len()).find(|&m| steps[m].actor != preempted).unwrap_or(steps.len());
            let mut guide = steps[..k].to_vec();
            guide.extend_from_slice(&steps[from..to]);
            guide.extend_from_slice(&steps[k..from]);
            guide.extend_from_slice(&steps[to..]);
            if let Some(found) = self.try_smaller(best, guide, None) {
                return Some(found);
            }
        }
        // 3. The shortest failing prefix (assuming a longer prefix of a
        // failing schedule fails too), keeping the smallest result seen.
        let (mut lo, mut hi) = (0, steps.len());
        let mut smallest: Option<Found> = None;
        while lo < hi && !self.spent() {
            let mid = (lo + hi) / 2;
            match self.run(steps[..mid].to_vec(), None) {
                Some(found) => {
                    hi = mid;
                    if found.size.key() < smallest.as_ref().unwrap_or(best).size.key() {
                        smallest = Some(found);
                    }
                }
                None => lo = mid + 1,
            }
        }
        if smallest.is_some() {
            return smallest;
        }
        // 4. Leave one thread out for as long as the others can run.
        let mut actors: Vec<ActorId> = steps.iter().map(|s| s.actor).filter(|&a| a != ActorId::MAIN).collect();
        actors.sort_unstable();
        actors.dedup();
        for actor in actors {
            let guide = steps.iter().copied().filter(|s| s.actor != actor).collect();
            if let Some(found) = self.try_smaller(best, guide, Some(actor)) {
                return Some(found);
            }
        }
        None
    }
}

/// Shrinks the failing `schedule` of `body`, which ended with `verdict`,
/// in place; returns how much it shrank, or `None` when minimization does
/// not apply (a diverging or engine-made verdict) or the schedule does not
/// fail the same way again.
pub(crate) fn minimize(config: &Config, schedule: &mut Schedule, verdict: &Outcome, body: &Body) -> Option<Shrink> {
    if !matches!(verdict, Outcome::Panic { .. } | Outcome::Deadlock(_) | Outcome::DataRace { .. }) {
        return None;
    }
    let mut config = config.clone();
    config.fairness = schedule.fair;
    config.memory_model = schedule.memory_model;
    config.max_executions = None;
    config.max_time = None;
    config.watchdog = config.watchdog.min(MAX_TIME);
    // A schedule that ends blocked is the deadlock it was found to be:
    // the wait for a wake from outside found none then.
    config.outside_wakes = false;
    let mut minimizer = Minimizer { config, body, verdict, runs: 0, started: Instant::now() };
    // The found schedule, followed exactly, measures it.
    let mut best = minimizer.run_exact(schedule)?;
    let before = best.size;
    while let Some(smaller) = minimizer.improve(&best) {
        best = smaller;
    }
    if best.size != before {
        schedule.choices = best.choices;
        schedule.fingerprint = 0;
    }
    Some(Shrink { before, after: best.size, runs: minimizer.runs })
}
