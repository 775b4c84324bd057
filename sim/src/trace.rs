//! The readable record of an execution: one line per step.
//!
//! Format, version 2 ([`TRACE_VERSION`]), one line per step, fields
//! separated by whitespace:
//!
//! ```text
//! index  actor  op[=value]  object  location  [<- preempt]  [(yield)]  [(from ...)]  [(note)]
//! ```
//!
//! `object` is `-` when there is none; `value` is given for data choices
//! (`choose=1`) and for the value an atomic read read (`load=42`).
//! `<- preempt` marks a switch away from an actor that could have gone
//! on, `(yield)` a yielding operation. An atomic read under the C11 memory
//! model says which store it read: `(from store at LOCATION by THREAD)`
//! (`rmw` for a read-modify-write's store) or `(from the initial value)`;
//! a pointer's value is not shown, only its store. Last, a primitive's
//! note on the step, in parentheses, to the end of the line: `(woke t2)`. An actor, object or
//! location that is empty, holds whitespace or a control character, or
//! starts with `"`, `-`, `<` or `(`, is written as a Rust string literal
//! (`"my thread"`), so that every line reads back exactly
//! ([`Trace::parse`](crate::Trace::parse)). A file may start with the line
//! `# samaritan trace v2`; other lines starting with `#` are comments.
//! Version 1 is version 2 without reads' values and marks; both are read.

use std::fmt;
use std::panic::Location;

use crate::op::{ActorId, ObjectId, Op};

/// One step of an execution, as recorded by the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TraceStep {
    pub(crate) actor: ActorId,
    pub(crate) op: Op,
    pub(crate) object: Option<ObjectId>,
    pub(crate) location: &'static Location<'static>,
    /// The value picked when `op` is [`Op::Choose`].
    pub(crate) value: u32,
    pub(crate) preempt: bool,
}

/// Which store a read read, for the trace (`Memory::origin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Origin {
    /// The value it stored.
    pub(crate) bits: u64,
    /// Its writer and where it was made; `None` for the initial value.
    pub(crate) store: Option<(ActorId, &'static Location<'static>)>,
    /// Whether it was a read-modify-write.
    pub(crate) rmw: bool,
}

/// Which store an atomic read read, as recorded while tracing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TraceRead {
    /// The index of the read's step.
    pub(crate) step: usize,
    pub(crate) object: ObjectId,
    pub(crate) origin: Origin,
}

/// Which store an atomic read read, under the C11 memory model: the
/// `load=0 (from store at a.rs:3:5 by t1)` of a trace line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadFrom {
    /// The value read, as the atomic's type shows it (`42`, `-1`, `true`,
    /// `null`); `None` where it would not be the same from run to run (a
    /// pointer's address).
    pub value: Option<String>,
    /// The store's `file:line:column` and the thread that made it; `None`
    /// for the atomic's initial value (or one written through `get_mut`
    /// or `as_ptr`, which happens before every thread's access).
    pub store: Option<(String, String)>,
    /// Whether the store was a read-modify-write's.
    pub rmw: bool,
}

impl fmt::Display for ReadFrom {
    /// Writes the mark: `(from store at LOCATION by THREAD)`, `rmw` for a
    /// read-modify-write's store, or `(from the initial value)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.store {
            Some((location, actor)) => {
                let kind = if self.rmw { "rmw" } else { "store" };
                write!(f, "(from {kind} at {} by {})", field(location), field(actor))
            }
            None => f.write_str("(from the initial value)"),
        }
    }
}

/// One line of a [`Trace`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceLine {
    /// Step index, from 0.
    pub index: usize,
    /// The actor's display name.
    pub actor: String,
    /// The operation.
    pub op: Op,
    /// The object as `Kind#id`, if any.
    pub object: Option<String>,
    /// `file:line:column` of the operation.
    pub location: String,
    /// The chosen value for data choices.
    pub value: Option<u32>,
    /// Whether the step preempted an actor that could have gone on.
    pub preempt: bool,
    /// For an atomic read under the C11 memory model, which store it read
    /// (format version 2).
    pub read: Option<ReadFrom>,
    /// What the primitive said of the step (`woke t2`, `2 messages
    /// dropped`): one line, shown last, in parentheses (format version 2).
    pub note: Option<String>,
}

/// The readable trace of one execution.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// The steps, in order.
    pub lines: Vec<TraceLine>,
}

impl Trace {
    /// Returns the number of preempting context switches.
    pub fn preemptions(&self) -> usize {
        self.lines.iter().filter(|l| l.preempt).count()
    }
}

impl Trace {
    /// Returns the first step at which `self` and `other` do different
    /// things: another thread, operation, object or chosen value (source
    /// locations are not compared: moved code does the same steps), or a
    /// step one of them does not reach. `None` when they do the same steps.
    ///
    /// ```
    /// use samaritan_sim::Trace;
    ///
    /// let then = Trace::parse("0 main lock Mutex#0 a.rs:1:1\n1 main unlock Mutex#0 a.rs:2:1\n").unwrap();
    /// let now = Trace::parse("0 main lock Mutex#0 a.rs:5:1\n1 main try_lock Mutex#0 a.rs:6:1\n").unwrap();
    /// assert_eq!(then.first_difference(&now), Some(1));
    /// assert_eq!(then.first_difference(&then), None);
    /// ```
    pub fn first_difference(&self, other: &Trace) -> Option<usize> {
        let same =
            |a: &TraceLine, b: &TraceLine| (&a.actor, a.op, &a.object, a.value) == (&b.actor, b.op, &b.object, b.value);
        let shorter = self.lines.len().min(other.lines.len());
        match self.lines.iter().zip(&other.lines).position(|(a, b)| !same(a, b)) {
            Some(step) => Some(step),
            None => (self.lines.len() != other.lines.len()).then_some(shorter),
        }
    }

    /// Says where `now` departs from `then` ([`Trace::first_difference`]),
    /// the step of each side by side in the trace format; `None` when they
    /// do the same steps.
    pub fn divergence(then: &Trace, now: &Trace) -> Option<String> {
        let step = then.first_difference(now)?;
        // Both steps formatted as one trace, so that their columns line up.
        let both = Trace { lines: [then, now].iter().filter_map(|t| t.lines.get(step).cloned()).collect() };
        let text = both.to_string();
        let mut lines = text.lines();
        let mut line = |trace: &Trace| match trace.lines.get(step) {
            Some(_) => lines.next().unwrap_or_default().to_string(),
            None => format!("{step:>4}  (the execution had ended)"),
        };
        let then = line(then);
        let now = line(now);
        Some(format!("first step that differs: {step}\n  then: {then}\n  now:  {now}"))
    }
}

/// The trace format version [`Trace`]'s `Display` writes and
/// [`Trace::parse`](crate::Trace::parse) reads.
pub const TRACE_VERSION: u32 = 2;

/// Writes `text` as one field: bare when it reads back as itself, else as
/// a Rust string literal.
pub(crate) fn field(text: &str) -> std::borrow::Cow<'_, str> {
    let plain = !text.is_empty()
        && !text.starts_with(['"', '-', '<', '('])
        && !text.chars().any(|c| c.is_whitespace() || c.is_control());
    if plain {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(format!("{text:?}"))
    }
}

impl Trace {
    /// Returns the trace as a file: a version line, then the steps.
    pub fn to_file(&self) -> String {
        format!("# samaritan trace v{TRACE_VERSION}\n{self}")
    }
}

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let actor_w = self.lines.iter().map(|l| field(&l.actor).chars().count()).max().unwrap_or(4).max(4);
        let object_w =
            self.lines.iter().map(|l| l.object.as_deref().map_or(1, |o| field(o).chars().count())).max().unwrap_or(1);
        let op_text = |line: &TraceLine| match (line.value, line.read.as_ref().and_then(|r| r.value.as_deref())) {
            (Some(v), _) => format!("{}={v}", line.op),
            (None, Some(read)) => format!("{}={read}", line.op),
            (None, None) => line.op.to_string(),
        };
        let op_w = self.lines.iter().map(|l| op_text(l).chars().count()).max().unwrap_or(16).max(16);
        for line in &self.lines {
            let op = op_text(line);
            let mut marks = String::new();
            if line.preempt {
                marks.push_str("  <- preempt");
            }
            if line.op.is_yield() {
                marks.push_str("  (yield)");
            }
            if let Some(read) = &line.read {
                marks.push_str(&format!("  {read}"));
            }
            if let Some(note) = &line.note {
                marks.push_str(&format!("  ({note})"));
            }
            writeln!(
                f,
                "{:>4}  {:<actor_w$}  {:<op_w$}  {:<object_w$}  {}{}",
                line.index,
                field(&line.actor),
                op,
                line.object.as_deref().map_or(std::borrow::Cow::Borrowed("-"), field),
                field(&line.location),
                marks,
            )?;
        }
        Ok(())
    }
}

/// Formats a location the way traces show it, with `dir/../` removed from
/// the path (files pulled in with `#[path]` otherwise show such detours).
pub(crate) fn location_string(location: &Location<'_>) -> String {
    format!("{}:{}:{}", normalize(location.file()), location.line(), location.column())
}

/// Removes `.` components and `dir/..` pairs from a relative path, lexically.
fn normalize(path: &str) -> String {
    if !path.contains("/.") {
        return path.to_string();
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "." => {}
            ".." if parts.last().is_some_and(|p| !p.is_empty() && *p != "..") => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn paths_lose_their_detours_but_not_their_meaning() {
        assert_eq!(normalize("snapshot-tests/tests/../../examples/a.rs"), "examples/a.rs");
        assert_eq!(normalize("src/./lib.rs"), "src/lib.rs");
        assert_eq!(normalize("../outside/a.rs"), "../outside/a.rs");
        assert_eq!(normalize("/abs/x/../y.rs"), "/abs/y.rs");
        assert_eq!(normalize("plain/path.rs"), "plain/path.rs");
    }
}
