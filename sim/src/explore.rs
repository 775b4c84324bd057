//! The explorer: searches, shrinks the failure it finds, and replays it
//! with the trace on to build the report; and replays a given schedule.

use crate::config::{Body, Config};
use crate::outcome::Outcome;
use crate::report::Report;
use crate::schedule::{Replay, Schedule};
use crate::search::{search, Searched};
use crate::strategy::Strategy;
use crate::trace::Trace;

/// Explores `body` under `strategy` on a fresh OS thread, with a watchdog.
///
/// The search runs without recording traces. When it finds a failure, the
/// failing schedule is minimized ([`Config::minimize`]), then replayed once
/// more, on a fresh thread and with the trace on, to build the report; a
/// replay that ends differently is reported as nondeterminism. Before
/// that, a failure found after the first execution passed is checked
/// against state left over between executions (a `static` outside the
/// model): the first execution's schedule is replayed, and one that no
/// longer passes is reported as nondeterminism too, with no token. A
/// misuse ([`Outcome::is_misuse`]) is reported as the search met it,
/// without a failing execution: no schedule reproduces it. So is an
/// execution that the traced replay shows to be [`Outcome::Unfinished`].
pub fn explore(config: Config, strategy: Box<dyn Strategy + Send>, body: Body) -> Report {
    let Searched { mut report, first } = search(config.clone(), strategy, body.clone(), false, false);
    let Some(mut found) = report.failure.take() else { return report };
    if report.outcome.is_misuse() {
        return report;
    }
    // What follows checks and shrinks a failure already found: a parallel
    // search calling this worker off must not cut it short (a replay
    // stopped before it ran would read as nondeterminism).
    let mut config = config;
    (config.cancel, config.shared_count) = (None, None);
    if let Some(first) = first {
        let again = replay_traced(config.clone(), first, body.clone());
        if !again.outcome.is_pass() {
            report.outcome = Outcome::Nondeterminism {
                step: again.failure.as_ref().map_or(0, |f| f.trace.lines.len() as u64),
                detail: format!(
                    "execution 1 passed when searched, but its schedule ended with \"{}\" when replayed after execution {} failed{}",
                    again.outcome,
                    report.executions,
                    report.unrestored.as_deref().or(again.unrestored.as_deref()).unwrap_or_default()
                ),
            };
            return report;
        }
    }
    // An execution cut off at the step bound under the fair scheduler: the
    // traced replay says what it was doing. One that shows no livelock is
    // no verdict (`Outcome::Unfinished`), reported as it is: no schedule of
    // the whole step bound is shrunk, many times over, to say nothing.
    if matches!(report.outcome, Outcome::StepBound { .. }) && found.schedule.fair {
        let traced = replay_traced(config.clone(), found.schedule.clone(), body.clone());
        if matches!(traced.outcome, Outcome::Unfinished { .. }) {
            report.outcome = traced.outcome;
            return report;
        }
    }
    if config.minimize {
        report.shrink = crate::minimize::minimize(&config, &mut found.schedule, &report.outcome, &body);
    }
    let traced = replay_traced(config, found.schedule.clone(), body);
    match traced.failure {
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
                    "the failing schedule ended with \"{}\" when searched but with \"{}\" when replayed{}",
                    report.outcome,
                    traced.outcome,
                    report.unrestored.as_deref().or(traced.unrestored.as_deref()).unwrap_or_default()
                ),
            };
        }
    }
    report
}

/// Replays `schedule` once, with the trace on, and checks that it fits the
/// program: every choice used, and the same operations as when it was
/// recorded (a fingerprint of 0 matches any program). A replay that does
/// not fit is a misuse ([`Outcome::ScheduleMismatch`]) with no failing
/// execution, hence no token.
pub fn replay(config: Config, schedule: Schedule, body: Body) -> Report {
    replay_against(config, schedule, body, None)
}

/// [`replay`], for a schedule recorded with the trace `earlier` (a
/// persisted failure's): a mismatch also says at which step the replay
/// departs from it, the step then and now side by side
/// ([`Trace::divergence`]).
pub fn replay_against(config: Config, schedule: Schedule, body: Body, earlier: Option<&Trace>) -> Report {
    let mut report = replay_traced(config, schedule, body);
    if report.outcome.is_misuse() {
        if let (Some(earlier), Some(failure), Outcome::ScheduleMismatch { detail, .. }) =
            (earlier, &report.failure, &mut report.outcome)
        {
            if let Some(divergence) = Trace::divergence(earlier, &failure.trace) {
                for line in divergence.lines() {
                    detail.push_str("\n  ");
                    detail.push_str(line);
                }
            }
        }
        report.failure = None;
    }
    report
}

/// [`replay`], keeping the replayed execution whatever its verdict.
fn replay_traced(mut config: Config, schedule: Schedule, body: Body) -> Report {
    // The fair scheduler decides which actors may be chosen: replay with
    // the setting the schedule was made with.
    config.fairness = schedule.fair;
    // So does the memory model: its choices of store are in the schedule.
    config.memory_model = schedule.memory_model;
    let expected = schedule.clone();
    let mut report = search(config, Box::new(Replay::new(schedule)), body, true, true).report;
    report.strategy = expected.strategy.clone();
    report.replayed = true;
    if let Some(failure) = &mut report.failure {
        // The replay's own token names the search that found the schedule.
        failure.schedule.strategy = expected.strategy.clone();
        failure.schedule.seed = expected.seed;
        failure.token = failure.schedule.to_token();
        let used = failure.schedule.choices.len();
        let mismatch = if matches!(report.outcome, Outcome::ScheduleMismatch { .. }) {
            None
        } else if used < expected.choices.len() && report.outcome.is_pass() {
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
