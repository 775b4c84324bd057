//! Reading a trace back from its text (the format in the `trace` module).
//!
//! Invariant: `Trace::parse(&trace.to_string())` gives `trace` back for any
//! trace, and no input makes the parser panic: it returns a
//! [`TraceError`] naming the line.

use std::fmt;

use crate::op::Op;
use crate::trace::{ReadFrom, Trace, TraceLine, TRACE_VERSION};

/// Why a trace could not be read.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceError {
    /// The version line names a format this samaritan cannot read.
    UnsupportedVersion(String),
    /// A step line does not fit the format.
    Line {
        /// The line number, from 1.
        line: usize,
        /// What is wrong with it.
        problem: String,
    },
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::UnsupportedVersion(v) => {
                write!(f, "trace format {v:?} is not supported: this samaritan reads versions 1 to {TRACE_VERSION}")
            }
            TraceError::Line { line, problem } => write!(f, "trace line {line}: {problem}"),
        }
    }
}

impl std::error::Error for TraceError {}

impl Trace {
    /// Reads a trace written by `Display` (or [`Trace::to_file`]).
    ///
    /// Blank lines and lines starting with `#` are skipped, except a
    /// version line `# samaritan trace vN`, which must name version 1 or 2
    /// (version 1 has no reads' marks, and reads back the same). A
    /// report's trace with elided steps (`... N steps not shown ...`)
    /// cannot be read back.
    pub fn parse(text: &str) -> Result<Trace, TraceError> {
        let mut lines = Vec::new();
        for (number, raw) in text.lines().enumerate() {
            let number = number + 1;
            let line = raw.trim();
            if let Some(version) = line.strip_prefix("# samaritan trace ") {
                if !(1..=TRACE_VERSION).any(|v| version == format!("v{v}")) {
                    return Err(TraceError::UnsupportedVersion(version.to_string()));
                }
                continue;
            }
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let step = parse_line(line, lines.len()).map_err(|problem| TraceError::Line { line: number, problem })?;
            lines.push(step);
        }
        Ok(Trace { lines })
    }
}

/// Reads one step line; `expected` is the index it must carry.
fn parse_line(line: &str, expected: usize) -> Result<TraceLine, String> {
    if line.starts_with("...") {
        return Err("steps are elided here: only a whole trace can be read back".to_string());
    }
    let mut fields = Fields { rest: line, quoted: false };
    let index = fields.next()?.ok_or("the line is empty")?;
    let index: usize = index.parse().map_err(|_| format!("{index:?} is not a step index"))?;
    if index != expected {
        return Err(format!("step {index} where step {expected} was expected"));
    }
    let actor = fields.next()?.ok_or("the thread is missing")?;
    let op = fields.next()?.ok_or("the operation is missing")?;
    let (name, shown) = match op.split_once('=') {
        Some((name, shown)) => (name.to_string(), Some(shown.to_string())),
        None => (op, None),
    };
    let op = Op::from_name(&name).ok_or_else(|| format!("{name:?} is not an operation"))?;
    let value = match (&shown, op) {
        (Some(v), Op::Choose) => Some(v.parse::<u32>().map_err(|_| format!("{v:?} is not a choice value"))?),
        _ => None,
    };
    let object = fields.next()?.ok_or("the object is missing")?;
    let object = (object != "-" || fields.quoted).then_some(object);
    let location = fields.next()?.ok_or("the location is missing")?;
    let (mut preempt, mut yielded, mut read, mut note) = (false, false, None, None);
    while let Some(mark) = fields.next()? {
        match mark.as_str() {
            _ if note.is_some() => unreachable!("a note takes the rest of the line"),
            "<-" | "(yield)" if read.is_some() => {
                return Err(format!("{mark:?} follows the `(from ...)` mark, which comes after the other marks"))
            }
            "<-" if !preempt && fields.next()?.as_deref() == Some("preempt") => preempt = true,
            "(yield)" if !yielded => yielded = true,
            "(from" if op != Op::Choose && read.is_none() && note.is_none() => {
                read = Some(read_mark(&mut fields, shown.clone())?)
            }
            // A note: the rest of the line, in parentheses.
            _ if mark.starts_with('(') && mark != "(yield)" && note.is_none() => {
                let whole = format!("{mark}{}", fields.rest).trim_end().to_string();
                let text = whole.strip_prefix('(').and_then(|t| t.strip_suffix(')'));
                note = Some(text.ok_or("a note must end the line with `)`")?.to_string());
                fields.rest = "";
            }
            other => return Err(format!("{other:?} is not a mark (expected `<- preempt`, `(yield)` or `(from ...)`)")),
        }
    }
    if yielded != op.is_yield() {
        return Err(format!(
            "`(yield)` must mark exactly the yielding operations, and {op} is {}one",
            ["not ", ""][usize::from(op.is_yield())]
        ));
    }
    if op != Op::Choose && shown.is_some() && read.is_none() {
        return Err(format!("{op} shows a value read but no `(from ...)` mark says which store it read"));
    }
    Ok(TraceLine { index, actor, op, object, location, value, preempt, read, note })
}

/// Reads the rest of a read's mark after `(from`: `store at LOCATION by
/// THREAD)`, `rmw at ...`, or `the initial value)`; `value` is the value
/// the operation field showed.
fn read_mark(fields: &mut Fields<'_>, value: Option<String>) -> Result<ReadFrom, String> {
    let bad = || "a read's mark is `(from store at LOCATION by THREAD)` or `(from the initial value)`".to_string();
    let kind = fields.next()?.ok_or_else(bad)?;
    let rmw = match kind.as_str() {
        "the" => {
            let rest = (fields.next()?, fields.next()?);
            if rest != (Some("initial".to_string()), Some("value)".to_string())) {
                return Err(bad());
            }
            return Ok(ReadFrom { value, store: None, rmw: false });
        }
        "store" => false,
        "rmw" => true,
        _ => return Err(bad()),
    };
    if fields.next()?.as_deref() != Some("at") {
        return Err(bad());
    }
    let location = fields.next()?.ok_or_else(bad)?;
    if fields.next()?.as_deref() != Some("by") {
        return Err(bad());
    }
    let actor = fields.next_closing()?.ok_or_else(bad)?;
    Ok(ReadFrom { value, store: Some((location, actor)), rmw })
}

/// The whitespace-separated fields of a line, quoted ones unescaped.
struct Fields<'a> {
    rest: &'a str,
    /// Whether the field read last was quoted.
    quoted: bool,
}

impl Fields<'_> {
    fn next(&mut self) -> Result<Option<String>, String> {
        self.rest = self.rest.trim_start();
        if self.rest.is_empty() {
            return Ok(None);
        }
        self.quoted = self.rest.starts_with('"');
        if let Some(quoted) = self.rest.strip_prefix('"') {
            let (text, used) = unquote(quoted)?;
            self.rest = &quoted[used..];
            if self.rest.chars().next().is_some_and(|c| !c.is_whitespace()) {
                return Err("a quoted field must be followed by a space".to_string());
            }
            return Ok(Some(text));
        }
        let end = self.rest.find(char::is_whitespace).unwrap_or(self.rest.len());
        let (field, rest) = self.rest.split_at(end);
        self.rest = rest;
        Ok(Some(field.to_string()))
    }
}

impl Fields<'_> {
    /// The next field, which ends with the `)` closing a mark: `t1)` or
    /// `"my thread")` give `t1` and `my thread`.
    fn next_closing(&mut self) -> Result<Option<String>, String> {
        self.rest = self.rest.trim_start();
        let Some(quoted) = self.rest.strip_prefix('"') else {
            let field = self.next()?;
            return match field.as_deref().and_then(|f| f.strip_suffix(')')) {
                Some(text) => Ok(Some(text.to_string())),
                None => Err("a mark must end with `)`".to_string()),
            };
        };
        let (text, used) = unquote(quoted)?;
        let rest = quoted[used..].strip_prefix(')').ok_or("a mark must end with `)`")?;
        if rest.chars().next().is_some_and(|c| !c.is_whitespace()) {
            return Err("a mark must be followed by a space".to_string());
        }
        self.rest = rest;
        self.quoted = true;
        Ok(Some(text))
    }
}

/// Reads a Rust string literal's body (after its opening quote) up to its
/// closing quote; returns the text and the bytes used, quote included.
fn unquote(text: &str) -> Result<(String, usize), String> {
    let mut out = String::new();
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Ok((out, at + 1)),
            '\\' => {
                let (_, e) = chars.next().ok_or("a quoted field ends inside an escape")?;
                out.push(match e {
                    'n' => '\n',
                    'r' => '\r',
                    't' => '\t',
                    '0' => '\0',
                    '\\' | '"' | '\'' => e,
                    'u' => {
                        let rest = &text[at + 2..];
                        let close = rest.find('}').filter(|_| rest.starts_with('{')).ok_or("a bad \\u escape")?;
                        let code = u32::from_str_radix(&rest[1..close], 16).map_err(|_| "a bad \\u escape")?;
                        for _ in 0..close + 1 {
                            chars.next();
                        }
                        char::from_u32(code).ok_or("a \\u escape that is not a character")?
                    }
                    other => return Err(format!("an unknown escape \\{other}")),
                });
            }
            c => out.push(c),
        }
    }
    Err("a quoted field is not closed".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(actor: &str, op: Op, object: Option<&str>, location: &str, preempt: bool) -> TraceLine {
        TraceLine {
            index: 0,
            actor: actor.to_string(),
            op,
            object: object.map(str::to_string),
            location: location.to_string(),
            value: (op == Op::Choose).then_some(3),
            preempt,
            read: None,
            note: None,
        }
    }

    fn read(value: Option<&str>, store: Option<(&str, &str)>, rmw: bool) -> Option<ReadFrom> {
        let store = store.map(|(at, by)| (at.to_string(), by.to_string()));
        Some(ReadFrom { value: value.map(str::to_string), store, rmw })
    }

    #[test]
    fn awkward_names_are_quoted_and_read_back() {
        let mut lines = vec![
            line("main", Op::Spawn, None, "src/a.rs:1:2", false),
            line("my worker", Op::Lock, Some("Mutex#3"), "dir with space/a.rs:3:4", true),
            line("\"q\" \\ \u{7}", Op::Yield, None, "-", false),
            line("", Op::Choose, None, "(x)", false),
            line("<- preempt", Op::Recv, Some("-"), "é.rs:1:1", false),
        ];
        for (i, l) in lines.iter_mut().enumerate() {
            l.index = i;
        }
        let trace = Trace { lines };
        assert_eq!(Trace::parse(&trace.to_file()), Ok(trace.clone()));
        assert_eq!(Trace::parse(&trace.to_string()), Ok(trace));
    }

    #[test]
    fn reads_say_which_store_they_read_and_read_back() {
        let mut lines = vec![
            line("main", Op::Load, Some("Atomic#1"), "a.rs:1:1", false),
            line("t1", Op::Load, Some("Atomic#2"), "a.rs:2:1", true),
            line("t1", Op::Rmw, Some("Atomic#2"), "a.rs:3:1", false),
            line("t2", Op::CompareExchange, Some("Atomic#3"), "a.rs:4:1", false),
            line("t2", Op::Load, Some("Atomic#3"), "a.rs:5:1", false),
        ];
        lines[0].read = read(Some("0"), None, false);
        lines[1].read = read(Some("-7"), Some(("a.rs:9:5", "main")), false);
        lines[2].read = read(Some("true"), Some(("dir x/a.rs:1:1", "my thread")), true);
        lines[3].read = read(None, Some(("a.rs:8:8", "worker(1)")), false);
        lines[4].read = read(Some("null"), Some(("-", "\"q\")")), true);
        lines[4].note = Some("woke t2 (the oldest); t3 still waiting".to_string());
        lines[0].note = Some(String::new());
        for (i, l) in lines.iter_mut().enumerate() {
            l.index = i;
        }
        let trace = Trace { lines };
        let text = trace.to_string();
        assert_eq!(
            text.lines().next(),
            Some("   0  main  load=0            Atomic#1  a.rs:1:1  (from the initial value)  ()")
        );
        assert!(text.ends_with("\")  (woke t2 (the oldest); t3 still waiting)\n"), "{text}");
        assert_eq!(
            text.lines().nth(2),
            Some("   2  t1    rmw=true          Atomic#2  a.rs:3:1  (from rmw at \"dir x/a.rs:1:1\" by \"my thread\")")
        );
        assert!(text.contains("compare_exchange  Atomic#3  a.rs:4:1  (from store at a.rs:8:8 by worker(1))"), "{text}");
        assert_eq!(Trace::parse(&trace.to_file()), Ok(trace.clone()));
        assert_eq!(Trace::parse(&text), Ok(trace));
    }

    #[test]
    fn a_version_1_trace_still_reads() {
        let trace = Trace::parse("# samaritan trace v1\n0  main  load  Atomic#0  a.rs:1:1\n").unwrap();
        assert_eq!(trace.lines[0].read, None);
        assert_eq!(trace.lines[0].op, Op::Load);
    }

    #[test]
    fn bad_lines_are_named() {
        let cases = [
            ("0  main  fly  -  a.rs:1:1", "trace line 1: \"fly\" is not an operation"),
            ("1  main  load  -  a.rs:1:1", "trace line 1: step 1 where step 0 was expected"),
            (
                "0  main  yield  -  a.rs:1:1",
                "trace line 1: `(yield)` must mark exactly the yielding operations, and yield is one",
            ),
            ("0  \"main  load  -  a.rs:1:1", "trace line 1: a quoted field is not closed"),
            (
                "   ... 12 steps not shown ...",
                "trace line 1: steps are elided here: only a whole trace can be read back",
            ),
            (
                "0  main  load  -  a.rs:1:1  <- later",
                "trace line 1: \"<-\" is not a mark (expected `<- preempt`, `(yield)` or `(from ...)`)",
            ),
            ("# samaritan trace v9", "trace format \"v9\" is not supported: this samaritan reads versions 1 to 2"),
            (
                "0  main  load=1  Atomic#0  a.rs:1:1",
                "trace line 1: load shows a value read but no `(from ...)` mark says which store it read",
            ),
            (
                "0  main  load=1  Atomic#0  a.rs:1:1  (from store at a.rs:1:1 by t1",
                "trace line 1: a mark must end with `)`",
            ),
            (
                "0  main  load=1  Atomic#0  a.rs:1:1  (from store in a.rs:1:1 by t1)",
                "trace line 1: a read's mark is `(from store at LOCATION by THREAD)` or `(from the initial value)`",
            ),
            (
                "0  main  load=1  Atomic#0  a.rs:1:1  (from the initial value)  <- preempt",
                "trace line 1: \"<-\" follows the `(from ...)` mark, which comes after the other marks",
            ),
            ("0  main  notify_one  Condvar#0  a.rs:1:1  (woke t1", "trace line 1: a note must end the line with `)`"),
        ];
        for (text, message) in cases {
            assert_eq!(Trace::parse(text).unwrap_err().to_string(), message, "{text}");
        }
    }
}
