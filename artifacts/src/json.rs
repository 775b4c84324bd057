//! Reports as JSON (`SAMARITAN_REPORT`), and one verdict for the reports of
//! a search's shards (`samaritan merge`).
//!
//! A report file holds one JSON object per line ([`Record`]), one per
//! exploration, so that the checks of a whole test binary can share it; a
//! file of one check is a plain JSON document. [`merge`] groups the records
//! of many files by test and adds up each test's shards: the failure of the
//! lowest-numbered failing shard, else a pass whose counts are the sums
//! and which is exhaustive only when every shard was. A test whose shards
//! do not agree on their number, or of which some are missing, merges to
//! an incomplete verdict that names them: never a pass.

use std::collections::BTreeMap;
use std::fmt;

use samaritan_sim::{Report, Shard};
use serde::{Deserialize, Serialize};

/// The version of the record format this build writes and reads.
pub const RECORD_VERSION: u32 = 1;

/// One exploration's report, as a line of a report file.
///
/// ```
/// use samaritan_artifacts::json::Record;
///
/// let line = r#"{"version":1,"test":"t","strategy":"icb","shard":"1/2","verdict":"pass","outcome":"pass","executions":5,"exhausted":true}"#;
/// let records = Record::parse_lines(line).unwrap();
/// assert_eq!((records[0].executions, records[0].shard.as_str()), (5, "1/2"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Record {
    /// [`RECORD_VERSION`].
    pub version: u32,
    /// The test the exploration belongs to.
    pub test: Option<String>,
    /// The strategy (a failure's: the part that found it).
    pub strategy: String,
    /// Which shard it explored, `i/n` (`1/1`: the whole space).
    pub shard: String,
    /// Where the shard came from, when the environment chose it: the
    /// variables and the runner, as in `CI_NODE_INDEX/CI_NODE_TOTAL (GitLab)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard_source: Option<String>,
    /// `pass`, `fail` (a bug) or `misuse` (the test cannot be checked).
    pub verdict: String,
    /// The verdict in words, as the report says it.
    pub outcome: String,
    /// Executions counted (another shard's are not).
    pub executions: u64,
    /// Of them, cut short as redundant.
    #[serde(default)]
    pub pruned: u64,
    /// Of them, run by a portfolio's randomized parts.
    #[serde(default)]
    pub randomized: u64,
    /// Whether the strategy covered its part of the space.
    #[serde(default)]
    pub exhausted: bool,
    /// Whether executions beyond the preemption bound were left out.
    #[serde(default)]
    pub bounded: bool,
    /// Every execution with at most this many preemptions was explored.
    #[serde(default)]
    pub completed_bound: Option<u32>,
    /// The budget that stopped the search, in words.
    #[serde(default)]
    pub stopped: Option<String>,
    /// Workers the search ran on.
    #[serde(default = "one")]
    pub workers: u32,
    /// Distinct abstract states named, if any.
    #[serde(default)]
    pub states: Option<u64>,
    /// The failure's replay token.
    #[serde(default)]
    pub token: Option<String>,
    /// The command that replays the failure.
    #[serde(default)]
    pub replay: Option<String>,
    /// The whole report as `Display` writes it.
    #[serde(default)]
    pub text: String,
}

fn one() -> u32 {
    1
}

/// Why report records could not be read or merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordError {
    /// Which line (from 1) of the text.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for RecordError {}

impl Record {
    /// The record of `report`.
    pub fn of(report: &Report) -> Record {
        let verdict = if report.is_failure() {
            "fail"
        } else if report.is_misuse() {
            "misuse"
        } else {
            "pass"
        };
        Record {
            version: RECORD_VERSION,
            test: report.test_name.clone(),
            strategy: report.strategy.clone(),
            shard: report.shard.unwrap_or(Shard::WHOLE).to_string(),
            shard_source: report.shard_source.map(str::to_string),
            verdict: verdict.to_string(),
            outcome: report.outcome.to_string(),
            executions: report.executions,
            pruned: report.pruned,
            randomized: report.randomized,
            exhausted: report.exhausted,
            bounded: report.bounded,
            completed_bound: report.completed_bound,
            stopped: report.stopped.map(|b| b.to_string()),
            workers: report.workers,
            states: report.states,
            token: report.token().map(str::to_string),
            replay: report.replay_command(),
            text: report.to_string(),
        }
    }

    /// The record as one line of JSON (no newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("a record is plain data")
    }

    /// Reads the records of a report file: one JSON object per line, blank
    /// lines skipped.
    pub fn parse_lines(text: &str) -> Result<Vec<Record>, RecordError> {
        let mut records = Vec::new();
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let error = |message: String| RecordError { line: i + 1, message };
            let record: Record = serde_json::from_str(line).map_err(|e| error(format!("not a report record: {e}")))?;
            if record.version != RECORD_VERSION {
                return Err(error(format!(
                    "record format version {} is not supported: this samaritan reads version {RECORD_VERSION}",
                    record.version
                )));
            }
            Shard::parse(&record.shard).map_err(|e| error(e.to_string()))?;
            records.push(record);
        }
        Ok(records)
    }
}

/// The merged verdict of one test's shards.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Merged {
    /// The test.
    pub test: Option<String>,
    /// How many shards the test was cut into.
    pub shards: u32,
    /// The shards no record was given for, from 1.
    pub missing: Vec<u32>,
    /// Shard counts other records claimed (`i/m` with `m` not `shards`).
    pub mismatched: Vec<String>,
    /// The failing (or misused) shard that decides the verdict, and its
    /// record: the lowest-numbered one.
    pub failure: Option<(u32, Record)>,
    /// Executions of all shards.
    pub executions: u64,
    /// Of them, run by randomized parts.
    pub randomized: u64,
    /// Whether every shard covered its part.
    pub exhausted: bool,
    /// Whether some shard left executions beyond its preemption bound.
    pub bounded: bool,
    /// The preemption bound every shard completed.
    pub completed_bound: Option<u32>,
    /// The strategies the shards ran, as named (usually one).
    pub strategies: Vec<String>,
}

impl Merged {
    /// Whether the merge is a pass: every shard there, agreeing, passing.
    pub fn is_pass(&self) -> bool {
        self.failure.is_none() && self.missing.is_empty() && self.mismatched.is_empty()
    }
}

/// Merges `records` (of any number of files) into one verdict per test,
/// in test-name order. When a shard has more than one record (a job run
/// twice), the last one counts.
///
/// ```
/// use samaritan_artifacts::json::{merge, Record};
///
/// let shard = |i: u32, executions: u64| {
///     let line = format!(r#"{{"version":1,"test":"t","strategy":"icb","shard":"{i}/2","verdict":"pass","outcome":"pass","executions":{executions},"exhausted":true}}"#);
///     Record::parse_lines(&line).unwrap().remove(0)
/// };
/// let merged = merge(&[shard(1, 40), shard(2, 60)]);
/// assert_eq!((merged[0].executions, merged[0].is_pass()), (100, true));
/// let missing = merge(&[shard(2, 60)]);
/// assert_eq!(missing[0].missing, vec![1]);
/// assert!(!missing[0].is_pass());
/// ```
pub fn merge(records: &[Record]) -> Vec<Merged> {
    let mut tests: BTreeMap<Option<String>, Vec<(Shard, &Record)>> = BTreeMap::new();
    for record in records {
        // `parse_lines` checked the shard.
        let shard = Shard::parse(&record.shard).unwrap_or(Shard::WHOLE);
        tests.entry(record.test.clone()).or_default().push((shard, record));
    }
    tests.into_iter().map(|(test, shards)| merge_test(test, shards)).collect()
}

/// Merges the records of one test.
fn merge_test(test: Option<String>, records: Vec<(Shard, &Record)>) -> Merged {
    // The shard count of the first record is the test's; others differ.
    let count = records[0].0.count();
    let mut by_index: BTreeMap<u32, &Record> = BTreeMap::new();
    let mut mismatched = Vec::new();
    for (shard, record) in records {
        if shard.count() == count {
            by_index.insert(shard.index(), record);
        } else {
            mismatched.push(shard.to_string());
        }
    }
    let missing = (1..=count).filter(|i| !by_index.contains_key(i)).collect();
    let failure = by_index.iter().find(|(_, r)| r.verdict != "pass").map(|(&i, &r)| (i, r.clone()));
    let mut strategies: Vec<String> = by_index.values().map(|r| r.strategy.clone()).collect();
    strategies.sort();
    strategies.dedup();
    Merged {
        test,
        shards: count,
        missing,
        mismatched,
        failure,
        executions: by_index.values().map(|r| r.executions).sum(),
        randomized: by_index.values().map(|r| r.randomized).sum(),
        exhausted: by_index.values().all(|r| r.exhausted),
        bounded: by_index.values().any(|r| r.bounded),
        completed_bound: by_index.values().map(|r| r.completed_bound).min().flatten(),
        strategies,
    }
}

impl fmt::Display for Merged {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let test = self.test.as_deref().unwrap_or("(unnamed)");
        let given = self.shards as usize - self.missing.len();
        write!(f, "{test}: ")?;
        if let Some((i, record)) = &self.failure {
            writeln!(f, "{} in shard {i}/{}: {}", record.verdict, self.shards, record.outcome)?;
            if let Some(replay) = &record.replay {
                writeln!(f, "  replay with: {replay}")?;
            }
        } else if !self.missing.is_empty() || !self.mismatched.is_empty() {
            write!(f, "incomplete: {given} of {} shards reported", self.shards)?;
            if !self.missing.is_empty() {
                let missing: Vec<String> = self.missing.iter().map(|i| format!("{i}/{}", self.shards)).collect();
                write!(f, "; missing {}", missing.join(", "))?;
            }
            if !self.mismatched.is_empty() {
                write!(f, "; from another split: {}", self.mismatched.join(", "))?;
            }
            writeln!(f)?;
        } else {
            let how = match (self.exhausted, self.bounded, self.completed_bound) {
                (true, true, Some(c)) => format!("every execution with <= {c} preemptions explored"),
                (true, _, _) => "every execution explored".to_string(),
                (false, _, Some(c)) => format!("not exhausted; every execution with <= {c} preemptions explored"),
                (false, _, None) => "not exhausted (a budget stopped a shard)".to_string(),
            };
            write!(f, "pass: {how}: {} executions", self.executions - self.randomized)?;
            if self.randomized > 0 {
                write!(f, ", plus {} randomized", self.randomized)?;
            }
            writeln!(f, ", no bug ({} shards, strategy {})", self.shards, self.strategies.join(", "))?;
        }
        Ok(())
    }
}
