//! HaPSet coverage: which immediate dependent predecessors each statement
//! has been seen with, and the pruning rule
//! [`Dpor::hapset`](crate::Dpor::hapset) runs on.
//!
//! Wang, Said and Gupta, "Coverage-Guided Systematic Testing" (ICSE 2011),
//! as the slides give it (static-and-dynamic-verification-slides-hapset.txt,
//! "Coverage-Guided Systematic Testing" and the PSet/HaPSet slides after
//! it): the coverage metric is the *history-aware predecessor set* of each
//! statement, and a systematic search does "not generate an interleaving to
//! test if the 'concurrency control scenario' (HaPSet) has already been
//! covered" — "instead of DPOR/PCB, use HaPSet to prune away interleavings".
//!
//! - A *key* names a statement: its source location `file:line:column` and
//!   its operation (a guard's unlock is announced at its lock's location, so
//!   the operation tells them apart). The slides' key also has a truncated
//!   calling context; events carry no call stack, and `#[track_caller]`
//!   stops at the user's call site, so the context here has depth 0: the
//!   location is its own context. (A backtrace per step would be neither
//!   cheap nor stable across builds.)
//! - A *pair* is (key of an event, key of one of its immediate dependent
//!   predecessors, local or remote): whether the predecessor is by the
//!   same thread — the slides' `thr = {local_thread, remote_thread}`, which
//!   makes threads running the same code symmetric. Synchronizations count
//!   (a lock's predecessor is the last unlock), as HaPSet adds to PSet.
//!   Predecessors are [`History`]'s: the last conflicting write, the reads
//!   since, the last global event.
//! - *Coverage* is the set of pairs seen so far: the pairs of every event of
//!   every passing execution are added when the execution ends. A failing
//!   execution's pairs are left out (the slides contrast "all good runs"
//!   with the bad one), so a run guided by a saved file finds the same bug
//!   again until it is fixed.
//!
//! The pruning rule: when DPOR backtracks to a node (the state before step
//! `i` of the last execution) and picks an alternative actor `q` from its
//! backtrack set, it first lists the pairs that taking `q` there creates:
//!
//! 1. the pairs of `q`'s pending operation with its immediate dependent
//!    predecessors among steps `0..i`;
//! 2. the reversed races: DPOR put `q` there because a later operation `r`
//!    (of `q`, or of a thread `q`'s step leads to) races with step `i`;
//!    running `q` first puts `r` before step `i`, whose operation then
//!    follows a remote `r`: the pair (step `i`, `r`, remote). The node
//!    remembers, for each actor it wants, every race it was wanted for;
//!    and when `q`'s pending operation itself is dependent with step `i`,
//!    that reversal counts too.
//!
//! If the list is not empty and every pair on it is covered, `q` is marked
//! done without being run (not put to sleep: nothing was explored) and the
//! next alternative is judged. An alternative with no pair to judge is
//! never skipped, nor is a data choice.
//!
//! Two acquisitions of one lock never form a pair (the second waits for
//! the release), so the reversed pair of two `lock`s is never covered and
//! a choice that reorders lock acquisitions is never skipped: lock orders
//! are explored as DPOR explores them, which keeps lock-order deadlocks in
//! reach (a deadlocked acquisition never runs, so no pair could show it).
//! An earlier version judged that reversal by the pair it leads to instead
//! (the waiting `lock` after `q`'s `unlock`): it pruned lock-heavy
//! programs much more, but missed both three-thread lock cycles of
//! `bench/benches/hapset.rs`.
//!
//! This is a heuristic, not a complete search: a skipped alternative can
//! lead to pairs (and bugs) later in its execution that no other execution
//! reaches. It finds bugs whose statements meet in a new order; it can miss
//! others that DPOR would find.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::panic::Location;
use std::path::{Path, PathBuf};

use samaritan_sim::{ActorId, Op, Pending};

use crate::hb::{Event, History};

/// The coverage file format this version reads and writes.
pub const COVERAGE_VERSION: u32 = 1;

/// The first word of a coverage file's header line.
const MAGIC: &str = "samaritan-hapset";

/// A source location, `file:line:column` (the calling context is the
/// location itself; see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Site {
    file: Cow<'static, str>,
    line: u32,
    column: u32,
}

/// A statement: where it is and what it does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    site: Site,
    op: Op,
}

impl Key {
    /// The statement at `location` doing `op`, as its file reads back (a
    /// weak load is a load there: `Op::shown`).
    fn at(location: &'static Location<'static>, op: Op) -> Key {
        let site = Site { file: Cow::Borrowed(location.file()), line: location.line(), column: location.column() };
        Key { site, op: op.shown() }
    }

    fn of(event: &Event) -> Key {
        Key::at(event.location, event.op)
    }
}

/// An event's key, one of its immediate dependent predecessors' key, and
/// whether that predecessor is by another thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Pair {
    event: Key,
    pred: Key,
    remote: bool,
}

/// The HaPSet pairs covered so far, across executions and (through a
/// file) across runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    pairs: HashSet<Pair>,
}

impl Coverage {
    /// Creates an empty coverage.
    pub fn new() -> Coverage {
        Coverage::default()
    }

    /// Returns the number of pairs covered.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Returns whether no pair is covered.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Adds the pairs of every event of an execution.
    pub(crate) fn add_execution(&mut self, history: &History) {
        for (i, event) in history.events.iter().enumerate() {
            for p in history.preds_of(i) {
                let pred = &history.events[p];
                self.pairs.insert(Pair {
                    event: Key::of(event),
                    pred: Key::of(pred),
                    remote: pred.actor != event.actor,
                });
            }
        }
    }

    /// Returns whether actor `actor` taking `pending` as step `at` of the
    /// last execution (`history`) would create a pair not covered yet, or
    /// no pair at all (the module docs give the rule). `races` are the
    /// races DPOR wants `actor` there for: (the operation taken at `at`,
    /// the later operation racing with it).
    pub(crate) fn offers_new_pair(
        &self,
        history: &History,
        at: usize,
        actor: ActorId,
        pending: Pending,
        races: impl IntoIterator<Item = (Pending, Pending)>,
    ) -> bool {
        let key = Key::at(pending.location, pending.op);
        let at = at.min(history.events.len());
        // The prefix `0..at`, as how many events of each actor it holds.
        let cut = history.prefix_cut(at);
        let mut created = false;
        let mut preds = Vec::new();
        history.predecessors(pending.footprint(), Some(&cut), &mut preds);
        for p in preds {
            let pred = &history.events[p as usize];
            created = true;
            if !self.pairs.contains(&Pair { event: key.clone(), pred: Key::of(pred), remote: pred.actor != actor }) {
                return true;
            }
        }
        if let Some(taken) = history.events.get(at) {
            if taken.actor != actor && taken.footprint().dependent(pending.footprint()) {
                created = true;
                if !self.pairs.contains(&Pair { event: Key::of(taken), pred: key, remote: true }) {
                    return true;
                }
            }
        }
        for (taken, racing) in races {
            created = true;
            let reversed = Pair {
                event: Key::at(taken.location, taken.op),
                pred: Key::at(racing.location, racing.op),
                remote: true,
            };
            if !self.pairs.contains(&reversed) {
                return true;
            }
        }
        !created
    }

    /// Reads coverage from its text form: the header line
    /// `samaritan-hapset 1`, then one pair per line.
    pub fn parse(text: &str) -> Result<Coverage, CoverageError> {
        let mut lines = text.lines();
        let header = lines.next().unwrap_or("");
        let version = header.strip_prefix(MAGIC).and_then(|v| v.strip_prefix(' ')).map(str::trim);
        match version {
            Some(v) if v == COVERAGE_VERSION.to_string() => {}
            Some(v) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
                return Err(CoverageError::Version { found: v.to_string() })
            }
            _ => return Err(CoverageError::Malformed { line: 1, expected: "the header `samaritan-hapset 1`" }),
        }
        let mut coverage = Coverage::new();
        for (n, line) in lines.enumerate() {
            if line.is_empty() {
                continue;
            }
            let pair = parse_pair(line).ok_or(CoverageError::Malformed {
                line: n + 2,
                expected: "`local` or `remote`, then an operation and its file:line:column twice, separated by tabs",
            })?;
            coverage.pairs.insert(pair);
        }
        Ok(coverage)
    }

    /// Returns the text form [`Coverage::parse`] reads: the header, then
    /// one pair per line, sorted.
    pub fn to_text(&self) -> String {
        let mut lines: Vec<String> = self.pairs.iter().map(format_pair).collect();
        lines.sort_unstable();
        let mut text = format!("{MAGIC} {COVERAGE_VERSION}\n");
        for line in lines {
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    /// Reads coverage from a file; a missing file is empty coverage.
    pub fn load(path: &Path) -> Result<Coverage, CoverageError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Coverage::parse(&text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Coverage::new()),
            Err(e) => Err(CoverageError::Io { path: path.to_path_buf(), action: "read", message: e.to_string() }),
        }
    }

    /// Writes the coverage to a file, replacing it.
    pub fn save(&self, path: &Path) -> Result<(), CoverageError> {
        std::fs::write(path, self.to_text()).map_err(|e| CoverageError::Io {
            path: path.to_path_buf(),
            action: "write",
            message: e.to_string(),
        })
    }
}

fn format_pair(pair: &Pair) -> String {
    let key = |k: &Key| format!("{}\t{}:{}:{}", k.op.name(), escape(&k.site.file), k.site.line, k.site.column);
    format!("{}\t{}\t{}", if pair.remote { "remote" } else { "local" }, key(&pair.event), key(&pair.pred))
}

fn parse_pair(line: &str) -> Option<Pair> {
    let fields: Vec<&str> = line.split('\t').collect();
    let [thread, op, at, pred_op, pred_at] = fields[..] else { return None };
    let remote = match thread {
        "local" => false,
        "remote" => true,
        _ => return None,
    };
    Some(Pair { event: parse_key(op, at)?, pred: parse_key(pred_op, pred_at)?, remote })
}

fn parse_key(op: &str, at: &str) -> Option<Key> {
    let op = Op::from_name(op)?;
    let mut parts = at.rsplitn(3, ':');
    let column = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let file = unescape(parts.next().filter(|f| !f.is_empty())?)?;
    Some(Key { site: Site { file: Cow::Owned(file), line, column }, op })
}

/// Escapes the characters a line of the file cannot hold as they are.
fn escape(file: &str) -> Cow<'_, str> {
    if !file.contains(['\\', '\t', '\n', '\r']) {
        return Cow::Borrowed(file);
    }
    let mut out = String::with_capacity(file.len() + 2);
    for c in file.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn unescape(file: &str) -> Option<String> {
    let mut out = String::with_capacity(file.len());
    let mut chars = file.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '\\' => '\\',
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            _ => return None,
        });
    }
    Some(out)
}

/// Why coverage could not be read or written.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CoverageError {
    /// The header names a format version this one does not read.
    Version {
        /// The version the file names.
        found: String,
    },
    /// A line is not what the format has there.
    Malformed {
        /// The line's number, from 1.
        line: usize,
        /// What the line should hold.
        expected: &'static str,
    },
    /// The file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// `read` or `write`.
        action: &'static str,
        /// The system's error message.
        message: String,
    },
}

impl fmt::Display for CoverageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CoverageError::Version { found } => write!(
                f,
                "hapset coverage format version {found} is not supported: this samaritan reads version {COVERAGE_VERSION}"
            ),
            CoverageError::Malformed { line, expected } => {
                write!(f, "line {line} of the hapset coverage is malformed: expected {expected}")
            }
            CoverageError::Io { path, action, message } => {
                write!(f, "could not {action} hapset coverage file {}: {message}", path.display())
            }
        }
    }
}

impl std::error::Error for CoverageError {}

#[cfg(test)]
mod tests {
    use super::*;
    use samaritan_sim::{ObjectId, Step};

    /// Where the caller is: a distinct statement per call site.
    #[track_caller]
    fn here() -> &'static Location<'static> {
        Location::caller()
    }

    fn step(index: u64, actor: usize, op: Op, location: &'static Location<'static>) -> Step {
        let object = (op != Op::Spawn).then_some(ObjectId::from_index(0));
        let peer = (op == Op::Spawn).then_some(ActorId::from_index(index as usize + 1));
        Step::new(index, ActorId::from_index(actor), Pending::new(op, object, location), peer)
    }

    /// Main spawns two threads that each load then store one atomic, run
    /// one after the other: returns the history and the two statements.
    fn serial_increments() -> (History, &'static Location<'static>, &'static Location<'static>) {
        let (spawn, load, store) = (here(), here(), here());
        let mut h = History::default();
        h.push(&step(0, 0, Op::Spawn, spawn));
        h.push(&step(1, 0, Op::Spawn, spawn));
        for actor in [1, 2] {
            h.push(&step(h.events.len() as u64, actor, Op::Load, load));
            h.push(&step(h.events.len() as u64, actor, Op::Store, store));
        }
        (h, load, store)
    }

    #[test]
    fn an_execution_adds_local_and_remote_pairs() {
        let (h, load, store) = serial_increments();
        let mut c = Coverage::new();
        c.add_execution(&h);
        let pair = |event: Key, pred: Key, remote| Pair { event, pred, remote };
        let (l, s) = (Key::at(load, Op::Load), Key::at(store, Op::Store));
        let expected: HashSet<Pair> = [
            // Each store follows its own thread's load.
            pair(s.clone(), l.clone(), false),
            // The second load reads the first store.
            pair(l.clone(), s.clone(), true),
            // The second store overwrites the first.
            pair(s.clone(), s.clone(), true),
        ]
        .into();
        assert_eq!(c.pairs, expected);
    }

    #[test]
    fn an_alternative_is_new_until_its_pairs_are_covered() {
        let (h, load, _) = serial_increments();
        let mut c = Coverage::new();
        c.add_execution(&h);
        let second = ActorId::from_index(2);
        let pending = Pending::new(Op::Load, Some(ObjectId::from_index(0)), load);
        // Thread 2 loading before thread 1's store (step 3): the store now
        // has a remote load before it, never seen.
        assert!(c.offers_new_pair(&h, 3, second, pending, []));
        // Before thread 1's load (step 2) the loads commute: no pair at
        // all, so nothing to judge on, and it is not skipped.
        assert!(c.offers_new_pair(&h, 2, second, pending, []));
        // Once a store has followed a remote load there, the reversed race
        // is covered.
        let mut reversed = c.clone();
        reversed.pairs.insert(Pair { event: Key::of(&h.events[3]), pred: Key::at(load, Op::Load), remote: true });
        assert!(!reversed.offers_new_pair(&h, 3, second, pending, []));
        // A third thread loading before thread 2's store (step 5): it
        // reads thread 1's store (covered) and reverses a race whose pair
        // is covered only in `reversed`.
        let third = ActorId::from_index(3);
        assert!(c.offers_new_pair(&h, 5, third, pending, []));
        assert!(!reversed.offers_new_pair(&h, 5, third, pending, []));
        // Wanted there for a race of its later operation with step 5: the
        // store after that operation is judged too.
        let e = &h.events[5];
        let store = Pending::new(e.op, e.object, e.location);
        let later = Pending::new(Op::Rmw, pending.object, here());
        assert!(reversed.offers_new_pair(&h, 5, third, pending, [(store, later)]));
        assert!(!reversed.offers_new_pair(&h, 5, third, pending, [(store, pending)]));
    }

    #[test]
    fn the_text_form_is_sorted_and_reads_back() {
        let (h, ..) = serial_increments();
        let mut c = Coverage::new();
        c.add_execution(&h);
        let text = c.to_text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert_eq!(lines[0], "samaritan-hapset 1");
        assert!(lines[1..].windows(2).all(|w| w[0] < w[1]), "{text}");
        let file = file!();
        assert!(lines[1].starts_with(&format!("local\tstore\t{file}:")), "{text}");
        assert_eq!(Coverage::parse(&text), Ok(c));
    }

    #[test]
    fn awkward_file_names_are_escaped() {
        let site = Site { file: Cow::Borrowed("a b\\c\td:e.rs"), line: 3, column: 9 };
        let key = Key { site, op: Op::Unlock };
        let mut c = Coverage::new();
        c.pairs.insert(Pair { event: key.clone(), pred: key, remote: true });
        let text = c.to_text();
        assert_eq!(text, "samaritan-hapset 1\nremote\tunlock\ta b\\\\c\\td:e.rs:3:9\tunlock\ta b\\\\c\\td:e.rs:3:9\n");
        assert_eq!(Coverage::parse(&text), Ok(c));
    }

    #[test]
    fn another_version_or_a_bad_line_is_an_error() {
        let err = |text: &str| Coverage::parse(text).unwrap_err().to_string();
        assert_eq!(
            err("samaritan-hapset 2\n"),
            "hapset coverage format version 2 is not supported: this samaritan reads version 1"
        );
        let expected =
            "expected `local` or `remote`, then an operation and its file:line:column twice, separated by tabs";
        assert_eq!(err(""), "line 1 of the hapset coverage is malformed: expected the header `samaritan-hapset 1`");
        for bad in [
            "both\tload\ta.rs:1:1\tstore\ta.rs:2:1",
            "local\tpeek\ta.rs:1:1\tstore\ta.rs:2:1",
            "local\tload\ta.rs:x:1\tstore\ta.rs:2:1",
            "local\tload\t:1:1\tstore\ta.rs:2:1",
            "local\tload\ta.rs:1:1\tstore",
            "local\tload\ta\\q.rs:1:1\tstore\ta.rs:2:1",
        ] {
            let text = format!("samaritan-hapset 1\nlocal\tload\ta.rs:1:1\tstore\ta.rs:2:1\n{bad}\n");
            assert_eq!(err(&text), format!("line 3 of the hapset coverage is malformed: {expected}"), "{bad}");
        }
        let fine = Coverage::parse("samaritan-hapset 1\nremote\tload\tC:\\\\x.rs:1:2\tstore\ta.rs:2:1\n").unwrap();
        assert_eq!(fine.len(), 1);
    }

    #[test]
    fn a_missing_file_is_empty_and_a_saved_one_loads_back() {
        let dir = std::env::temp_dir().join(format!("samaritan-hapset-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("coverage.txt");
        let _ = std::fs::remove_file(&path);
        assert_eq!(Coverage::load(&path), Ok(Coverage::new()));
        let (h, ..) = serial_increments();
        let mut c = Coverage::new();
        c.add_execution(&h);
        c.save(&path).unwrap();
        assert_eq!(Coverage::load(&path), Ok(c));
        let missing_dir = dir.join("no/such/dir/coverage.txt");
        let err = Coverage::new().save(&missing_dir).unwrap_err().to_string();
        assert!(err.starts_with("could not write hapset coverage file "), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
