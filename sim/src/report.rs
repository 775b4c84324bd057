//! The result of an exploration and how it reads: the verdict, what was
//! covered, and for a failure its trace, token and replay command.

use std::fmt;
use std::time::Duration;

use crate::outcome::Outcome;
use crate::schedule::Schedule;
use crate::shard::Shard;
use crate::trace::Trace;

/// A failing execution: what it did and how to get it back.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The readable trace, one line per step.
    pub trace: Trace,
    /// The schedule that produced it.
    pub schedule: Schedule,
    /// The schedule as a replay token.
    pub token: String,
    /// Actors whose stacks could not be reused at teardown: one abandoned
    /// half-way through unwinding from its own panic, or every actor of an
    /// execution in which one overflowed its stack.
    pub leaked_actors: usize,
}

/// The result of an exploration.
#[derive(Clone, Debug)]
pub struct Report {
    /// How the exploration ended: the first failure, or `Pass`.
    pub outcome: Outcome,
    /// Executions run, pruned ones included.
    pub executions: u64,
    /// Executions the strategy cut short as redundant (the strategy
    /// returned `ChoiceError::Redundant`, as DPOR does): counted
    /// in `executions`, neither passes nor failures.
    pub pruned: u64,
    /// Whether the strategy covered its whole search space.
    pub exhausted: bool,
    /// The strategy's name.
    pub strategy: String,
    /// The failing execution, when the outcome is a failure the engine saw
    /// (or, for a replay, the replayed execution, passing or not). Never
    /// set for a misuse ([`Outcome::is_misuse`]): no schedule reproduces
    /// one.
    pub failure: Option<Failure>,
    /// The test's name, for the replay command.
    pub test_name: Option<String>,
    /// For a preemption-bounded search: every execution with at most this
    /// many preemptions was explored (and, with a failure, passed).
    pub completed_bound: Option<u32>,
    /// Whether the search stopped at its preemption bound with executions
    /// beyond it left unexplored.
    pub bounded: bool,
    /// Whether the bound was counted as loom counts it: an execution that
    /// has spent it takes no other choice of actor, free switches
    /// included ([`Strategy::bound_ends_switches`](crate::Strategy::bound_ends_switches)).
    /// A bounded pass then says it covered loom's bound, not every
    /// execution with that many preemptions.
    pub bound_ends_switches: bool,
    /// Whether a failing compare-exchange read only the newest store
    /// ([`MemoryModel::WeakCasNewest`](crate::MemoryModel::WeakCasNewest)):
    /// a pass then says so, since it covered less than the C11 model.
    pub cas_newest: bool,
    /// Distinct abstract states the test named with
    /// `samaritan::coverage::state`, if it named any.
    pub states: Option<u64>,
    /// How the count of distinct states grew: `(executions, states)` at
    /// every execution that reached a new state, then at the end.
    pub coverage: Vec<(u64, u64)>,
    /// How much the failing schedule was shrunk before it was reported,
    /// when it was minimized (`samaritan::Builder::minimize`,
    /// `SAMARITAN_MINIMIZE`; on by default).
    pub shrink: Option<Shrink>,
    /// For a coverage-guided search (HaPSet): the predecessor pairs
    /// covered at the end, loaded ones included
    /// (the strategy's `coverage_pairs`).
    pub hapset_pairs: Option<u64>,
    /// For a portfolio: the executions its randomized parts ran, counted
    /// in `executions` (the rest are the systematic part's).
    pub randomized: u64,
    /// The budget that stopped the search before its end, if one did.
    pub stopped: Option<Budget>,
    /// Whether some execution could take a fault the platform injects (a
    /// spurious wake-up or failure: `rt::choose_fault`), which a
    /// preemption bound counts as a preemption; a bounded pass says so.
    pub faults: bool,
    /// The most steps one execution took. 0 means that the test made no
    /// visible operation at all (the main thread took no step, and a spawn
    /// is one), so that nothing was explored: see
    /// [`Report::explored_nothing`].
    pub longest: u64,
    /// Whether this is the report of a replay of a given schedule (a
    /// token, a persisted failure) rather than of a search: its one
    /// execution is the replayed one.
    pub replayed: bool,
    /// The part of the space this search explored, when it was one shard
    /// of it (`SAMARITAN_SHARD`).
    pub shard: Option<Shard>,
    /// Where `shard` came from, when the environment chose it: the
    /// variables and the runner that set them, as in
    /// `CI_NODE_INDEX/CI_NODE_TOTAL (GitLab)`.
    pub shard_source: Option<&'static str>,
    /// Executions run only to find that they belong to another shard:
    /// not counted in `executions`, and their outcomes are ignored.
    pub elsewhere: u64,
    /// How many workers the search ran on (1 unless it was parallel).
    pub workers: u32,
    /// Where the failure stands in the one-worker order of a search shared
    /// out by work stealing ([`Strategy::rank`](crate::Strategy::rank)),
    /// for choosing among the workers' failures.
    pub(crate) rank: Option<Vec<u32>>,
    /// Where in the test the exploration was asked for, when it says
    /// ([`Config::site`](crate::Config::site)): a `loom::model` call.
    pub site: Option<String>,
    /// The first execution's note on statics it used and could not put
    /// back (`rt::keep_static`), for a nondeterminism report.
    pub(crate) unrestored: Option<String>,
}

/// A budget that can stop a search.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// A number of executions (`samaritan::Builder::max_executions`,
    /// `SAMARITAN_MAX_EXECUTIONS`).
    Executions(u64),
    /// A length of time (`samaritan::Builder::max_time`,
    /// `SAMARITAN_MAX_TIME`).
    Time(Duration),
}

impl fmt::Display for Budget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Budget::Executions(n) => write!(f, "the budget of {n} {}", plural(*n as usize, "execution")),
            Budget::Time(t) => write!(f, "the time budget of {}", seconds(*t)),
        }
    }
}

/// A duration in seconds, as short as it reads well.
pub(crate) fn seconds(t: Duration) -> String {
    let s = t.as_secs_f64();
    if s >= 10.0 || s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

impl Report {
    /// An empty report: a pass with nothing explored yet.
    pub(crate) fn new(strategy: &str, test_name: Option<String>) -> Report {
        Report {
            outcome: Outcome::Pass,
            executions: 0,
            pruned: 0,
            exhausted: false,
            strategy: strategy.to_string(),
            failure: None,
            test_name,
            completed_bound: None,
            bounded: false,
            bound_ends_switches: false,
            cas_newest: false,
            states: None,
            coverage: Vec::new(),
            shrink: None,
            hapset_pairs: None,
            randomized: 0,
            stopped: None,
            longest: 0,
            faults: false,
            replayed: false,
            shard: None,
            shard_source: None,
            elsewhere: 0,
            workers: 1,
            rank: None,
            unrestored: None,
            site: None,
        }
    }

    /// Returns whether the exploration passed without exploring anything:
    /// its executions made no visible operation (say, the test uses std's
    /// locks or threads where samaritan's belong), so every schedule was
    /// the same empty one.
    pub fn explored_nothing(&self) -> bool {
        self.outcome.is_pass() && self.executions > 0 && self.longest == 0
    }

    /// Returns whether the exploration found a bug.
    pub fn is_failure(&self) -> bool {
        self.outcome.is_failure()
    }

    /// Returns whether the exploration stopped because the test cannot be
    /// checked as written ([`Outcome::is_misuse`]): not a bug, and not a
    /// pass either.
    pub fn is_misuse(&self) -> bool {
        self.outcome.is_misuse()
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

impl Report {
    /// How the search was split, as the summary says it: `, shard 1/4`
    /// (and where from, when the environment chose it), `, 2 workers`, or
    /// nothing.
    fn split(&self) -> String {
        let from = self.shard_source.map(|s| format!(" from {s}")).unwrap_or_default();
        let shard = self.shard.map(|s| format!(", shard {s}{from}")).unwrap_or_default();
        match self.workers {
            0 | 1 => shard,
            n => format!("{shard}, {n} workers"),
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_misuse() {
            writeln!(
                f,
                "samaritan cannot check this test as written (execution {}, strategy {})",
                self.executions, self.strategy
            )?;
            writeln!(f)?;
            writeln!(f, "{}", self.outcome)?;
            writeln!(f)?;
            return match self.outcome {
                Outcome::Unfinished { .. } => {
                    writeln!(f, "this is no verdict on the program under test, so there is no replay token")
                }
                _ => writeln!(f, "this is not a bug in the program under test, so there is no replay token"),
            };
        }
        if self.explored_nothing() {
            return write!(
                f,
                "pass: nothing explored: the test made no visible operation in {} {} (strategy {}); it uses no samaritan thread or primitive, or std's in their place (a leftover std::sync or std::thread import?)",
                self.executions,
                plural(self.executions as usize, "execution"),
                self.strategy
            );
        }
        if !self.is_failure() && self.replayed {
            return write!(
                f,
                "pass: the replayed schedule ran to its end without a bug (found by strategy {})",
                self.strategy
            );
        }
        if !self.is_failure() {
            let stop = match self.stopped {
                Some(budget) => format!("{budget} stopped the search"),
                None => "search stopped".to_string(),
            };
            // A spurious wake-up or failure counts as a preemption.
            let faults = if self.faults { " (a spurious wake-up or failure counting as one)" } else { "" };
            let loom =
                if self.bound_ends_switches { " and no other switch once they are spent (loom's bound)" } else { "" };
            let faults = format!("{faults}{loom}");
            let how = match (self.exhausted, self.bounded, self.completed_bound) {
                (true, true, Some(c)) => {
                    format!("every execution with <= {c} {}{faults} explored", plural(c as usize, "preemption"))
                }
                (true, _, _) => "every execution explored".to_string(),
                (false, _, Some(c)) => format!(
                    "{stop} before the space was exhausted; every execution with <= {c} {}{faults} explored",
                    plural(c as usize, "preemption")
                ),
                (false, _, None) => format!("{stop} before the space was exhausted"),
            };
            // A coverage-guided search skips what it judges covered: its
            // end is not exhaustion.
            let how = match (self.hapset_pairs, self.exhausted) {
                (Some(_), true) => "every choice with an uncovered predecessor pair explored".to_string(),
                _ => how,
            };
            let how = match self.cas_newest {
                true => {
                    format!("{how}, a failing compare-exchange reading only the newest store (loom's approximation)")
                }
                false => how,
            };
            write!(f, "pass: {how}: {} executions", self.executions - self.randomized)?;
            if self.pruned > 0 {
                write!(f, " ({} cut short as redundant)", self.pruned)?;
            }
            if self.randomized > 0 {
                write!(f, ", plus {} randomized", self.randomized)?;
            }
            write!(f, ", no bug (strategy {}{})", self.strategy, self.split())?;
            if let Some(site) = &self.site {
                write!(f, "; the model at {site}")?;
            }
            if let Some(states) = self.states {
                write!(f, "; {states} distinct states")?;
            }
            if let Some(pairs) = self.hapset_pairs {
                write!(f, "; {pairs} HaPSet {} covered (not exhaustive)", plural(pairs as usize, "pair"))?;
            }
            return Ok(());
        }
        let seed = match self.failure.as_ref().and_then(|f| f.schedule.seed) {
            Some(seed) => format!(", seed {seed}"),
            None => String::new(),
        };
        let site = self.site.as_ref().map(|site| format!(" of the model at {site}")).unwrap_or_default();
        match self.replayed {
            true => {
                writeln!(f, "samaritan replayed a failing schedule{site} (found by strategy {}{seed})", self.strategy)?
            }
            false if self.workers > 1 => writeln!(
                f,
                "samaritan found a bug after {} executions{site} (strategy {}{seed}{})",
                self.executions,
                self.strategy,
                self.split()
            )?,
            false => writeln!(
                f,
                "samaritan found a bug in execution {}{site} (strategy {}{seed}{})",
                self.executions,
                self.strategy,
                self.split()
            )?,
        }
        writeln!(f)?;
        writeln!(f, "{}", self.outcome)?;
        if let Some(failure) = &self.failure {
            for line in crate::explain::wakeups(&self.outcome, &failure.trace) {
                writeln!(f, "  {line}")?;
            }
        }
        if let Some(shrink) = self.shrink.filter(Shrink::shrank) {
            writeln!(f, "\n{shrink}")?;
        }
        // Only when the trace needs more preemptions than the bound
        // passed: a trace with fewer was found past the bound by a search
        // whose count of them differs (fair yields, a randomized part).
        if let (Some(c), Some(failure)) = (self.completed_bound, &self.failure) {
            let p = failure.trace.preemptions();
            if p > c as usize {
                writeln!(
                    f,
                    "\nit takes {p} {}: every execution with <= {c} {} passed",
                    plural(p, "preemption"),
                    plural(c as usize, "preemption")
                )?;
            }
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
                writeln!(f, "note: the stacks of {} thread(s) could not be reused at teardown", failure.leaked_actors)?;
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
pub(crate) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        word.to_string()
    } else {
        format!("{word}s")
    }
}

/// How big a failing execution is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Size {
    /// Steps taken, as many as the trace has lines.
    pub steps: usize,
    /// Preempting context switches.
    pub preemptions: usize,
    /// Threads that took at least one step, the main thread included.
    pub actors: usize,
}

impl Size {
    /// The order minimization goes by: fewer preemptions first, then fewer
    /// threads, then fewer steps.
    pub(crate) fn key(self) -> (usize, usize, usize) {
        (self.preemptions, self.actors, self.steps)
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}, {} {}, {} {}",
            self.steps,
            plural(self.steps, "step"),
            self.preemptions,
            plural(self.preemptions, "preemption"),
            self.actors,
            plural(self.actors, "thread")
        )
    }
}

/// How much minimization shrank a failing schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Shrink {
    /// The size of the schedule the search found.
    pub before: Size,
    /// The size of the schedule reported.
    pub after: Size,
    /// Executions the minimizer ran, the one measuring the found schedule
    /// included.
    pub runs: u32,
}

impl Shrink {
    /// Returns whether the reported schedule is smaller than the found one.
    pub fn shrank(&self) -> bool {
        self.after != self.before
    }
}

impl fmt::Display for Shrink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "minimized from {} to {} ({} {})",
            self.before,
            self.after,
            self.runs,
            plural(self.runs as usize, "run")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::Op;
    use crate::trace::TraceLine;

    /// A failing report whose trace has `preemptions` preempting steps,
    /// after a search that passed every execution up to bound 2.
    fn failed_past_bound_two(preemptions: usize) -> Report {
        let line = |index: usize| TraceLine {
            index,
            actor: "main".to_string(),
            op: Op::Lock,
            object: Some("Mutex#0".to_string()),
            location: "a.rs:1:1".to_string(),
            value: None,
            preempt: index < preemptions,
            read: None,
            note: None,
        };
        let schedule = Schedule {
            strategy: "cb-por".to_string(),
            seed: None,
            choices: Vec::new(),
            fingerprint: 0,
            fair: true,
            memory_model: crate::config::MemoryModel::Weak,
        };
        let mut report = Report::new("cb-por", None);
        report.outcome = Outcome::Panic { actor: "main".into(), message: "boom".into(), location: "a.rs:2:1".into() };
        report.executions = 9;
        report.completed_bound = Some(2);
        report.failure = Some(Failure {
            trace: Trace { lines: (0..3).map(line).collect() },
            token: schedule.to_token(),
            schedule,
            leaked_actors: 0,
        });
        report
    }

    #[test]
    fn a_failure_is_said_to_take_its_preemptions_only_when_the_bound_passed_had_fewer() {
        let needs_three = failed_past_bound_two(3).to_string();
        assert!(needs_three.contains("\nit takes 3 preemptions: every execution with <= 2 preemptions passed\n"));
        // Found past the bound with fewer: the line would contradict itself.
        for preemptions in [0, 2] {
            let text = failed_past_bound_two(preemptions).to_string();
            assert!(!text.contains("it takes"), "{text}");
        }
    }

    #[test]
    fn a_report_names_the_model_its_exploration_was_asked_for_at() {
        let mut report = failed_past_bound_two(3);
        report.site = Some("tests/a.rs:10:5".to_string());
        let text = report.to_string();
        assert!(
            text.starts_with(
                "samaritan found a bug in execution 9 of the model at tests/a.rs:10:5 (strategy cb-por)\n"
            ),
            "{text}"
        );
        let mut pass = Report::new("dpor", None);
        (pass.executions, pass.longest, pass.exhausted) = (4, 5, true);
        pass.site = Some("tests/a.rs:20:5".to_string());
        assert_eq!(
            pass.to_string(),
            "pass: every execution explored: 4 executions, no bug (strategy dpor); the model at tests/a.rs:20:5"
        );
    }
}
