//! How an execution ends: the verdicts samaritan reports.

use std::fmt;

/// One blocked actor in a deadlock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockedActor {
    /// The actor's display name.
    pub actor: String,
    /// The operation it is blocked in.
    pub op: String,
    /// The object it waits on, as `Kind#id`, if any.
    pub object: Option<String>,
    /// For an async task pending in `poll`: the object of its last step
    /// before it returned `Pending` (what it was awaiting).
    pub awaiting: Option<String>,
    /// Display names of the actors holding that object (the awaited one
    /// for a pending task).
    pub holders: Vec<String>,
    /// Where it blocked.
    pub location: String,
}

/// Every actor is blocked or finished, and at least one is blocked.
///
/// Two deadlocks are equal when the same actors block the same way: the
/// wait for a wake from outside ([`Deadlock::outside_wait_ms`]) depends on
/// threads the model does not control, not on the schedule.
#[derive(Clone, Debug)]
pub struct Deadlock {
    /// Each blocked actor, in id order.
    pub blocked: Vec<BlockedActor>,
    /// A wait-for cycle (actor names, first repeated at the end) when one
    /// exists: each actor waits on an object the next one holds.
    pub cycle: Vec<String>,
    /// How long, in milliseconds, the engine waited for a task to be woken
    /// from outside the model (threads it does not control were running)
    /// before it called this a deadlock; `None` when it did not wait.
    pub outside_wait_ms: Option<u64>,
}

impl PartialEq for Deadlock {
    fn eq(&self, other: &Deadlock) -> bool {
        (&self.blocked, &self.cycle) == (&other.blocked, &other.cycle)
    }
}

impl Eq for Deadlock {}

/// One step of a livelock cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleStep {
    /// The actor's display name.
    pub actor: String,
    /// The operation.
    pub op: crate::Op,
    /// The object as `Kind#id`, if any.
    pub object: Option<String>,
    /// Where, as `file:line:column`.
    pub location: String,
}

/// One of the two accesses of a data race.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceAccess {
    /// Whether it writes (`with_mut`) rather than reads (`with`).
    pub write: bool,
    /// The accessing actor's display name.
    pub actor: String,
    /// Where, as `file:line:column`.
    pub location: String,
    /// Whether it runs in a destructor that std's `Arc` started when its
    /// last owner dropped it (seen only while a report's trace is
    /// recorded): std's `Arc` is invisible to samaritan, so that drop is
    /// not ordered after the other owners' accesses.
    pub in_std_arc_drop: bool,
}

impl fmt::Display for RaceAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.write { "write" } else { "read" };
        write!(f, "{kind} by thread '{}' at {}", self.actor, self.location)
    }
}

/// How one execution ended.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every actor finished without a failure.
    Pass,
    /// An actor panicked (an assertion failed, say).
    Panic {
        /// The actor's display name.
        actor: String,
        /// The panic message.
        message: String,
        /// Where it panicked, as `file:line:column`.
        location: String,
    },
    /// No actor could make progress.
    Deadlock(Deadlock),
    /// The execution took more steps than the step bound allows, with the
    /// fair scheduler off (an unfair schedule that spins forever reaches
    /// it: the fair paper's depth-bounded search, section 5). With it on,
    /// the verdict says what the execution was doing: a livelock, a
    /// good-samaritan violation, or [`Outcome::Unfinished`]; a search
    /// that records no trace says this, and its replay the rest.
    StepBound {
        /// The bound.
        steps: u64,
    },
    /// Under the fair scheduler, an actor kept being scheduled without
    /// yielding until the step bound: it spins without telling the
    /// scheduler it cannot make progress, starving the others.
    GoodSamaritanViolation {
        /// The actor's display name.
        actor: String,
        /// How many steps it took since it last yielded.
        steps: u64,
        /// The steps it repeats, in order.
        cycle: Vec<CycleStep>,
    },
    /// Under the fair scheduler, the actors went round a cycle in which
    /// each of them yields, until the step bound: a fair livelock.
    Livelock {
        /// One round of the cycle.
        cycle: Vec<CycleStep>,
        /// How many times it repeated before the bound.
        repeats: u64,
        /// The step bound.
        steps: u64,
    },
    /// Under the fair scheduler, the execution had not ended at the step
    /// bound and its last steps repeat no cycle: neither a livelock nor a
    /// good-samaritan violation shows, and a test that is merely longer
    /// than the bound looks the same. No verdict on the program
    /// ([`Outcome::is_misuse`]): the fair paper's large bound turns only
    /// the divergences it can name into reports.
    Unfinished {
        /// The step bound.
        steps: u64,
    },
    /// Two accesses to one cell, at least one a write, that no
    /// synchronization orders: a data race, whichever ran first.
    DataRace {
        /// The cell, as `Kind#id` (cells are numbered apart from objects).
        cell: String,
        /// The earlier access.
        first: RaceAccess,
        /// The later access, which does not happen after the earlier one.
        second: RaceAccess,
    },
    /// Replaying a schedule prefix gave different choices than before.
    Nondeterminism {
        /// The step at which it diverged.
        step: u64,
        /// What differed.
        detail: String,
    },
    /// A replayed schedule does not fit the program.
    ScheduleMismatch {
        /// The step at which it stopped fitting.
        step: u64,
        /// What does not fit.
        detail: String,
    },
    /// An actor ran out of stack (deep or unbounded recursion, or a stack
    /// too small for what it does).
    StackOverflow {
        /// The actor's display name.
        actor: String,
        /// Its stack size in bytes.
        stack_size: usize,
    },
    /// The test used samaritan in a way it cannot check (an async task
    /// spawned outside a runtime, a runtime samaritan does not schedule):
    /// not a bug in the program, but nothing the exploration says can be
    /// trusted until the test is fixed. See [`Outcome::is_misuse`].
    Misuse {
        /// The actor's display name.
        actor: String,
        /// What was misused, where, and what to do instead.
        detail: String,
    },
    /// Every actor finished, but a value that only the program could free
    /// is still alive (an `Arc` in a reference cycle, or forgotten with
    /// `mem::forget`): nothing is left to drop it.
    Leak {
        /// What leaked (the label its primitive gave, such as `Arc`).
        kind: String,
        /// Where it was created, as `file:line:column`.
        location: String,
        /// How many other values leaked too.
        others: usize,
    },
    /// An actor stopped making visible progress: it blocked on something the
    /// engine cannot see, or loops without visible operations.
    UncontrolledBlocking {
        /// The actor that was running.
        actor: String,
        /// Its last visible operation and location.
        last: String,
        /// How long it was silent, in milliseconds.
        silent_ms: u64,
    },
}

impl Outcome {
    /// Returns whether every actor finished without a failure.
    pub fn is_pass(&self) -> bool {
        matches!(self, Outcome::Pass)
    }

    /// Returns whether this outcome is a bug in the program: anything but a
    /// pass or a misuse. A failure has a trace and a replay token.
    pub fn is_failure(&self) -> bool {
        !self.is_pass() && !self.is_misuse()
    }

    /// Returns whether this outcome says that the test cannot be checked as
    /// written rather than that the program has a bug: samaritan misused
    /// ([`Outcome::Misuse`]), a replayed schedule that does not fit the
    /// program ([`Outcome::ScheduleMismatch`]: a token of another program,
    /// or of another version of this one), a program whose executions
    /// depend on more than the schedule ([`Outcome::Nondeterminism`]), or
    /// an execution too long to tell from one that never ends
    /// ([`Outcome::Unfinished`]). A misuse ends the exploration like a
    /// failure, but is reported under its own header and without a replay
    /// token: no schedule reproduces it.
    pub fn is_misuse(&self) -> bool {
        matches!(
            self,
            Outcome::Misuse { .. }
                | Outcome::ScheduleMismatch { .. }
                | Outcome::Nondeterminism { .. }
                | Outcome::Unfinished { .. }
        )
    }

    /// Returns whether `other` is the same verdict at the same place. Panics
    /// compare by thread and location only: their messages may hold
    /// addresses or other values that differ between runs of one schedule.
    /// Data races compare whole (cell, threads, kinds and locations depend
    /// only on the schedule).
    ///
    /// The four diverging verdicts ([`Outcome::StepBound`],
    /// [`Outcome::Livelock`], [`Outcome::GoodSamaritanViolation`],
    /// [`Outcome::Unfinished`]) are one verdict: which of them is reported
    /// depends on whether the trace was recorded (a search does not record
    /// it; the replay that builds the report does).
    pub fn same_verdict(&self, other: &Outcome) -> bool {
        match (self, other) {
            (a, b) if a.diverged() && b.diverged() => true,
            (Outcome::Panic { actor: a, location: l, .. }, Outcome::Panic { actor: b, location: m, .. }) => {
                a == b && l == m
            }
            // What a traced replay adds (`in_std_arc_drop`) is no
            // difference.
            (
                Outcome::DataRace { cell: a, first: f, second: s },
                Outcome::DataRace { cell: b, first: g, second: t },
            ) => {
                let same = |x: &RaceAccess, y: &RaceAccess| {
                    (x.write, &x.actor, &x.location) == (y.write, &y.actor, &y.location)
                };
                a == b && same(f, g) && same(s, t)
            }
            _ => self == other,
        }
    }

    /// Returns whether the execution was cut off at the step bound.
    pub fn diverged(&self) -> bool {
        matches!(
            self,
            Outcome::StepBound { .. }
                | Outcome::Livelock { .. }
                | Outcome::GoodSamaritanViolation { .. }
                | Outcome::Unfinished { .. }
        )
    }

    /// Returns a short lowercase name of the verdict.
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Panic { .. } => "panic",
            Outcome::Deadlock(_) => "deadlock",
            Outcome::StepBound { .. } => "step bound exceeded",
            Outcome::GoodSamaritanViolation { .. } => "good-samaritan violation",
            Outcome::Livelock { .. } => "livelock",
            Outcome::Unfinished { .. } => "unfinished",
            Outcome::DataRace { .. } => "data race",
            Outcome::Nondeterminism { .. } => "nondeterminism",
            Outcome::ScheduleMismatch { .. } => "schedule mismatch",
            Outcome::StackOverflow { .. } => "stack overflow",
            Outcome::Misuse { .. } => "misuse",
            Outcome::Leak { .. } => "leak",
            Outcome::UncontrolledBlocking { .. } => "uncontrolled blocking",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Pass => f.write_str("pass"),
            Outcome::Panic { actor, message, location } => {
                write!(f, "panic in thread '{actor}' at {location}: {message}")
            }
            Outcome::Deadlock(d) => {
                f.write_str("deadlock: no thread can go on")?;
                for b in &d.blocked {
                    write!(f, "\n  thread '{}' blocked in {}", b.actor, b.op)?;
                    if let Some(object) = &b.object {
                        write!(f, " on {object}")?;
                    }
                    if let Some(awaiting) = &b.awaiting {
                        write!(f, " awaiting {awaiting}")?;
                    }
                    if !b.holders.is_empty() {
                        write!(f, " held by '{}'", b.holders.join("', '"))?;
                    }
                    write!(f, " at {}", b.location)?;
                }
                if !d.cycle.is_empty() {
                    write!(f, "\n  wait-for cycle: {}", d.cycle.join(" -> "))?;
                }
                if let Some(ms) = d.outside_wait_ms {
                    write!(
                        f,
                        "\n  no thread of the model can wake the tasks above, and none was woken from outside it either: \
                         threads samaritan does not control were running, and it waited {ms} ms for one of them to wake a task \
                         (a quarter of the watchdog, SAMARITAN_WATCHDOG_MS); a task that awaits such a thread waits on \
                         something outside the model, which samaritan can neither explore nor tell from a lost wakeup"
                    )?;
                }
                Ok(())
            }
            Outcome::StepBound { steps } => write!(
                f,
                "step bound exceeded: the execution took more than {steps} steps (raise it with SAMARITAN_MAX_STEPS)"
            ),
            Outcome::Unfinished { steps } => write!(
                f,
                "unfinished: the execution had not ended after {steps} steps, and its last steps repeat no cycle, \
                 so samaritan cannot tell this test from one that never ends; if it is merely long, raise the step \
                 bound (SAMARITAN_MAX_STEPS or Builder::max_steps, at most 16777216) or give it less work"
            ),
            Outcome::GoodSamaritanViolation { actor, steps, cycle } => {
                write!(
                    f,
                    "good-samaritan violation: thread '{actor}' took {steps} steps without yielding, starving the other threads; it loops here:"
                )?;
                write_cycle(f, cycle)?;
                write!(
                    f,
                    "\n  a thread that waits for another must block or yield (yield_now, sleep, spin_loop, a timed wait) so that the other can run"
                )
            }
            Outcome::Livelock { cycle, repeats, steps } => {
                write!(
                    f,
                    "livelock: the threads repeated this cycle {repeats} times without making progress, up to the step bound of {steps} (every thread in it yields, so a fair scheduler runs it forever):"
                )?;
                write_cycle(f, cycle)
            }
            Outcome::DataRace { cell, first, second } => {
                write!(
                    f,
                    "data race on {cell}: nothing orders these two accesses, and at least one writes\n  {first}\n  {second}\n  make one happen after the other (a lock, a join, a channel, an atomic store the other thread loads)"
                )?;
                if second.in_std_arc_drop {
                    write!(
                        f,
                        "\n  the second access runs in a destructor that the last owner of a std `Arc` started by dropping it: std's `Arc` is invisible to samaritan, so its freeing drop is not ordered after the other owners' accesses; share the value with `samaritan::sync::counted::Arc` (samaritan-loom's `sync::Arc` is it), whose last drop is ordered after every other owner's accesses"
                    )?;
                }
                Ok(())
            }
            Outcome::Nondeterminism { step, detail } => write!(
                f,
                "nondeterminism at step {step}: {detail}; the test must depend only on the schedule (no wall clock, OS randomness or state kept between executions: samaritan puts back after every execution its own primitives in `static`s and every `static` declared inside the test's body, but not other statics, nor `thread_local!`s of the exploring thread)"
            ),
            Outcome::ScheduleMismatch { step, detail } => {
                write!(f, "schedule does not fit the program at step {step}: {detail}")
            }
            Outcome::StackOverflow { actor, stack_size } => write!(
                f,
                "stack overflow: thread '{actor}' overflowed its stack of {stack_size} bytes\n  give simulated threads more with SAMARITAN_STACK_SIZE=<bytes> or Builder::stack_size, or one thread with thread::Builder::stack_size"
            ),
            Outcome::Misuse { actor, detail } => write!(f, "misuse in thread '{actor}': {detail}"),
            Outcome::Leak { kind, location, others } => {
                write!(f, "leak: the {kind} created at {location} is still alive when every thread has finished")?;
                if *others > 0 {
                    write!(f, " (and {others} more)")?;
                }
                write!(
                    f,
                    "\n  nothing is left to drop it: a reference cycle (break it with a Weak), mem::forget, or into_raw without from_raw"
                )
            }
            Outcome::UncontrolledBlocking { actor, last, silent_ms } => write!(
                f,
                "uncontrolled blocking: thread '{actor}' made no visible operation for {silent_ms} ms after {last}; it is blocked on something samaritan does not model (a std lock, I/O) or loops without visible operations"
            ),
        }
    }
}

/// Writes the steps of a cycle, one per line, aligned.
fn write_cycle(f: &mut fmt::Formatter<'_>, cycle: &[CycleStep]) -> fmt::Result {
    let actor_w = cycle.iter().map(|s| s.actor.len()).max().unwrap_or(0);
    let object_w = cycle.iter().map(|s| s.object.as_deref().map_or(1, str::len)).max().unwrap_or(1);
    for s in cycle {
        let object = s.object.as_deref().unwrap_or("-");
        write!(f, "\n    {:<actor_w$}  {:<16}  {:<object_w$}  {}", s.actor, s.op.name(), object, s.location)?;
    }
    Ok(())
}
