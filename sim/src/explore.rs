//! The explorer: searches, shrinks the failure it finds, and replays it
//! with the trace on to build the report; and replays a given schedule.

use crate::config::{Body, Config};
use crate::outcome::Outcome;
use crate::report::Report;
use crate::schedule::{Replay, Schedule};
use crate::search::search;
use crate::strategy::Strategy;

/// Explores `body` under `strategy` on a fresh OS thread, with a watchdog.
///
/// The search runs without recording traces. When it finds a failure, the
/// failing schedule is minimized ([`Config::minimize`]), then replayed once
/// more, on a fresh thread and with the trace on, to build the report; a
/// replay that ends differently is reported as nondeterminism.
pub fn explore(config: Config, strategy: Box<dyn Strategy + Send>, body: Body) -> Report {
    let mut report = search(config.clone(), strategy, body.clone(), false, false);
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
    let mut report = search(config, Box::new(Replay::new(schedule)), body, true, true);
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
