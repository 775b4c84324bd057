//! The results: per crate, a markdown table of its tests on both sides and
//! its totals; and the raw rows as TSV, to compare runs.

use std::fmt::{self, Write as _};

/// Which copy of a crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// The published crate on loom.
    Loom,
    /// The crate switched to samaritan-loom.
    Samaritan,
}

impl Side {
    /// The side's name in tables and paths.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Side::Loom => "loom",
            Side::Samaritan => "samaritan",
        }
    }
}

/// How one test process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Exit status 0, the test passed.
    Pass,
    /// A non-zero exit status or a signal.
    Fail,
    /// Killed at the cap.
    Timeout,
    /// The test is `#[ignore]`d: it did not run.
    Ignored,
    /// `--exact` matched no test.
    Missing,
}

impl Outcome {
    fn name(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Timeout => "timeout",
            Outcome::Ignored => "ignored",
            Outcome::Missing => "missing",
        }
    }
}

/// One test run on one side.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Run {
    /// How it ended.
    pub(crate) outcome: Outcome,
    /// Wall-clock seconds.
    pub(crate) wall: f64,
    /// Executions the side reported; `None` when it reported none.
    pub(crate) count: Option<Count>,
    /// A failure's first lines.
    pub(crate) excerpt: Vec<String>,
}

impl Run {
    /// Whether the test explored: on samaritan's side, it wrote a
    /// `SAMARITAN_REPORT` line (a plain `#[test]` that builds its runtime
    /// itself runs once, on real threads, and writes none).
    pub(crate) fn explored(&self) -> bool {
        self.count.is_some()
    }
}

/// The executions a test reported: loom's iterations, samaritan's
/// executions, added up over the test's models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Count {
    /// Executions.
    pub(crate) executions: u64,
    /// Whether a budget stopped one of samaritan's searches.
    pub(crate) stopped: bool,
    /// Whether the count is a lower bound read from progress output: the
    /// test was killed at the cap in the middle of a model.
    pub(crate) partial: bool,
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at_least = if self.partial { "≥" } else { "" };
        let stopped = if self.stopped { " (stopped)" } else { "" };
        write!(f, "{at_least}{}{stopped}", self.executions)
    }
}

/// One test on one side.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Cell {
    /// The side was not selected (`--side`).
    Skipped,
    /// The side did not build.
    NoBuild,
    /// The side built without this test.
    Absent,
    /// Listed, not run (`--dry-run`).
    Listed,
    /// Run.
    Ran(Run),
}

impl Cell {
    fn run(&self) -> Option<&Run> {
        match self {
            Cell::Ran(run) => Some(run),
            _ => None,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.run().map(|r| r.outcome)
    }

    fn text(&self) -> &'static str {
        match self {
            Cell::Skipped => "—",
            Cell::NoBuild => "no build",
            Cell::Absent => "absent",
            Cell::Listed => "listed",
            Cell::Ran(run) => run.outcome.name(),
        }
    }
}

/// A test of a crate on both sides.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Row {
    /// The test target (`loom`, the crate's name for `--lib`).
    pub(crate) target: String,
    /// The test's full name.
    pub(crate) test: String,
    /// On loom.
    pub(crate) loom: Cell,
    /// On samaritan.
    pub(crate) samaritan: Cell,
}

/// How building one side went.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Built {
    /// The side was not selected.
    Skipped,
    /// Built; the number of tests listed (after the crate's filter).
    Ok {
        /// Tests listed and kept.
        tests: usize,
        /// Seconds the build took.
        wall: f64,
    },
    /// Did not build (or fetch, or list): the first error line.
    Failed(String),
}

impl Built {
    fn text(&self) -> String {
        match self {
            Built::Skipped => "—".to_string(),
            Built::Ok { tests, .. } => format!("builds, {tests} tests"),
            Built::Failed(_) => "does not build".to_string(),
        }
    }
}

/// Everything about one crate.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CrateResult {
    /// `name version`.
    pub(crate) name: String,
    /// The version.
    pub(crate) version: String,
    /// What the crate's tests run on (`loom`, `tokio`): the other side's name.
    pub(crate) peer: &'static str,
    /// The peer side's build (`loom`: loom or tokio).
    pub(crate) loom: Built,
    /// The samaritan side's build.
    pub(crate) samaritan: Built,
    /// How the samaritan copy was switched (`rename: dev-dependencies.loom`).
    pub(crate) switched: String,
    /// Its tests.
    pub(crate) rows: Vec<Row>,
}

/// Per-crate totals.
#[derive(Debug, Default, PartialEq)]
struct Totals {
    tests: usize,
    pass_both: usize,
    samaritan_only: usize,
    loom_only: usize,
    timeouts: (usize, usize),
    wall: (f64, f64),
    /// Tests samaritan's side ran that explored (wrote a `SAMARITAN_REPORT`
    /// line); the rest ran once, on real threads.
    explored: usize,
}

fn totals(rows: &[Row]) -> Totals {
    let mut t = Totals { tests: rows.len(), ..Totals::default() };
    for row in rows {
        let (l, s) = (row.loom.outcome(), row.samaritan.outcome());
        let failed = |o: Option<Outcome>| matches!(o, Some(Outcome::Fail | Outcome::Timeout));
        t.pass_both += usize::from(l == Some(Outcome::Pass) && s == Some(Outcome::Pass));
        t.samaritan_only += usize::from(l == Some(Outcome::Pass) && failed(s));
        t.loom_only += usize::from(failed(l) && s == Some(Outcome::Pass));
        t.timeouts.0 += usize::from(l == Some(Outcome::Timeout));
        t.timeouts.1 += usize::from(s == Some(Outcome::Timeout));
        t.wall.0 += row.loom.run().map_or(0.0, |r| r.wall);
        t.wall.1 += row.samaritan.run().map_or(0.0, |r| r.wall);
        t.explored += usize::from(row.samaritan.run().is_some_and(Run::explored));
    }
    t
}

/// Escapes a markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn executions(c: &Cell) -> String {
    c.run().and_then(|r| r.count).map_or("—".to_string(), |n| n.to_string())
}

fn wall(c: &Cell) -> String {
    c.run().map_or("—".to_string(), |r| format!("{:.2}", r.wall))
}

/// One crate's section: its builds, its tests on both sides, and the
/// first lines of each failure that happens only on samaritan.
pub(crate) fn crate_section(c: &CrateResult) -> String {
    let mut s = format!("## {} {}\n\n", c.name, c.version);
    let peer = c.peer;
    for (side, built) in [(peer, &c.loom), ("samaritan", &c.samaritan)] {
        let _ = write!(s, "- {side}: {}", built.text());
        if let Built::Failed(error) = built {
            let _ = write!(s, ": {error}");
        }
        s.push('\n');
    }
    let _ = writeln!(s, "- switched: {}\n", c.switched);
    if c.rows.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "| target | test | {peer} | samaritan | {peer} s | samaritan s | {peer} executions | samaritan executions |"
    );
    s.push_str("|---|---|---|---|---:|---:|---:|---:|\n");
    for r in &c.rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&r.target),
            cell(&r.test),
            r.loom.text(),
            r.samaritan.text(),
            wall(&r.loom),
            wall(&r.samaritan),
            executions(&r.loom),
            executions(&r.samaritan)
        );
    }
    let only: Vec<&Row> = c
        .rows
        .iter()
        .filter(|r| r.samaritan.outcome() == Some(Outcome::Fail) && r.loom.outcome() != Some(Outcome::Fail))
        .collect();
    if !only.is_empty() {
        s.push_str("\nFailures only on samaritan:\n");
        for r in only {
            let _ = writeln!(s, "\n{} `{}`:\n\n```text", r.target, r.test);
            for line in &r.samaritan.run().expect("failed, so ran").excerpt {
                let _ = writeln!(s, "{line}");
            }
            s.push_str("```\n");
        }
    }
    s
}

/// The totals table, one line per crate.
pub(crate) fn totals_table(crates: &[CrateResult]) -> String {
    // The peer's name when every crate has the same one.
    let peer = match crates.first().map(|c| c.peer) {
        Some(first) if crates.iter().all(|c| c.peer == first) => first,
        _ => "peer",
    };
    let mut s = format!(
        "| crate | tests | pass both | explored on samaritan | samaritan-only failures | {peer}-only failures | {peer} timeouts | samaritan timeouts | {peer} s | samaritan s | samaritan/{peer} |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for c in crates {
        let t = totals(&c.rows);
        let ratio =
            if t.wall.0 > 0.0 && t.wall.1 > 0.0 { format!("{:.2}", t.wall.1 / t.wall.0) } else { "—".to_string() };
        let _ = writeln!(
            s,
            "| {} {} | {} | {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {ratio} |",
            c.name,
            c.version,
            t.tests,
            t.pass_both,
            t.explored,
            t.samaritan_only,
            t.loom_only,
            t.timeouts.0,
            t.timeouts.1,
            t.wall.0,
            t.wall.1
        );
    }
    s
}

/// The dry run's table: per crate, whether each side builds and how many
/// tests it lists, and the first error.
pub(crate) fn dry_run_table(crates: &[CrateResult]) -> String {
    let mut s = String::from("| crate | peer | samaritan | switched | first error |\n|---|---|---|---|---|\n");
    for c in crates {
        let errors: Vec<String> = [(c.peer, &c.loom), ("samaritan", &c.samaritan)]
            .into_iter()
            .filter_map(|(side, b)| match b {
                Built::Failed(e) => Some(format!("{side}: {e}")),
                _ => None,
            })
            .collect();
        let _ = writeln!(
            s,
            "| {} {} | {}: {} | {} | {} | {} |",
            c.name,
            c.version,
            c.peer,
            c.loom.text(),
            c.samaritan.text(),
            cell(&c.switched),
            cell(&errors.join("; "))
        );
    }
    s
}

/// The raw rows as TSV: a header, then per crate and side a `(build)` row
/// and one row per test. `count` says what `executions` is: `exact`,
/// `stopped` (a budget stopped a search), `partial` (a lower bound).
pub(crate) fn tsv(crates: &[CrateResult]) -> String {
    let clean = |t: &str| t.replace(['\t', '\n'], " ");
    let mut s = String::from("crate\tversion\tside\ttarget\ttest\toutcome\twall_s\texecutions\tcount\tnote\n");
    for c in crates {
        for (side, built) in [(Side::Loom, &c.loom), (Side::Samaritan, &c.samaritan)] {
            let (outcome, wall, note) = match built {
                Built::Skipped => ("skipped", String::new(), String::new()),
                Built::Ok { tests, wall } => ("built", format!("{wall:.2}"), format!("{tests} tests")),
                Built::Failed(e) => ("no build", String::new(), clean(e)),
            };
            let _ = writeln!(s, "{}\t{}\t{}\t\t(build)\t{outcome}\t{wall}\t\t\t{note}", c.name, c.version, side.name());
        }
        for r in &c.rows {
            for (side, cell) in [(Side::Loom, &r.loom), (Side::Samaritan, &r.samaritan)] {
                let (wall, execs, kind, note) = match cell.run() {
                    Some(run) => (
                        format!("{:.3}", run.wall),
                        run.count.map_or(String::new(), |n| n.executions.to_string()),
                        match run.count {
                            None => "",
                            Some(Count { partial: true, .. }) => "partial",
                            Some(Count { stopped: true, .. }) => "stopped",
                            Some(_) => "exact",
                        },
                        clean(&run.excerpt.join(" / ")),
                    ),
                    None => Default::default(),
                };
                let _ = writeln!(
                    s,
                    "{}\t{}\t{}\t{}\t{}\t{}\t{wall}\t{execs}\t{kind}\t{note}",
                    c.name,
                    c.version,
                    side.name(),
                    clean(&r.target),
                    clean(&r.test),
                    cell.text()
                );
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran(outcome: Outcome, wall: f64, executions: Option<u64>, excerpt: &[&str]) -> Cell {
        let count = executions.map(|executions| Count { executions, stopped: false, partial: false });
        Cell::Ran(Run { outcome, wall, count, excerpt: excerpt.iter().map(|l| l.to_string()).collect() })
    }

    fn example() -> CrateResult {
        CrateResult {
            name: "queue".into(),
            version: "1.0.0".into(),
            peer: "loom",
            loom: Built::Ok { tests: 3, wall: 12.5 },
            samaritan: Built::Ok { tests: 3, wall: 20.0 },
            switched: "rename: dev-dependencies.loom".into(),
            rows: vec![
                Row {
                    target: "loom".into(),
                    test: "smoke".into(),
                    loom: ran(Outcome::Pass, 0.5, Some(42), &[]),
                    samaritan: Cell::Ran(Run {
                        outcome: Outcome::Pass,
                        wall: 1.25,
                        count: Some(Count { executions: 17, stopped: true, partial: false }),
                        excerpt: Vec::new(),
                    }),
                },
                Row {
                    target: "loom".into(),
                    test: "drop|twice".into(),
                    loom: ran(Outcome::Pass, 1.0, None, &[]),
                    samaritan: ran(
                        Outcome::Fail,
                        0.25,
                        Some(3),
                        &["thread 'drop' panicked at tests/loom.rs:9:5:", "samaritan found a bug: deadlock"],
                    ),
                },
                Row {
                    target: "loom".into(),
                    test: "slow".into(),
                    loom: Cell::Ran(Run {
                        outcome: Outcome::Timeout,
                        wall: 600.0,
                        count: Some(Count { executions: 63502, stopped: false, partial: true }),
                        excerpt: Vec::new(),
                    }),
                    samaritan: Cell::Absent,
                },
            ],
        }
    }

    #[test]
    fn renders_a_crate_section() {
        assert_eq!(
            crate_section(&example()),
            "## queue 1.0.0

- loom: builds, 3 tests
- samaritan: builds, 3 tests
- switched: rename: dev-dependencies.loom

| target | test | loom | samaritan | loom s | samaritan s | loom executions | samaritan executions |
|---|---|---|---|---:|---:|---:|---:|
| loom | smoke | pass | pass | 0.50 | 1.25 | 42 | 17 (stopped) |
| loom | drop\\|twice | pass | fail | 1.00 | 0.25 | — | 3 |
| loom | slow | timeout | absent | 600.00 | — | ≥63502 | — |

Failures only on samaritan:

loom `drop|twice`:

```text
thread 'drop' panicked at tests/loom.rs:9:5:
samaritan found a bug: deadlock
```
"
        );
    }

    #[test]
    fn renders_totals() {
        let mut broken = example();
        broken.name = "broken".into();
        broken.samaritan = Built::Failed("error: feature `futures` not found".into());
        broken.rows = vec![Row {
            target: "broken".into(),
            test: "t".into(),
            loom: ran(Outcome::Pass, 2.0, Some(1), &[]),
            samaritan: Cell::NoBuild,
        }];
        assert_eq!(
            totals_table(&[example(), broken.clone()]),
            "| crate | tests | pass both | explored on samaritan | samaritan-only failures | loom-only failures | loom timeouts | samaritan timeouts | loom s | samaritan s | samaritan/loom |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
| queue 1.0.0 | 3 | 1 | 2 | 1 | 0 | 1 | 0 | 601.50 | 1.50 | 0.00 |
| broken 1.0.0 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 2.00 | 0.00 | — |
"
        );
        assert_eq!(
            dry_run_table(&[broken]),
            "| crate | peer | samaritan | switched | first error |
|---|---|---|---|---|
| broken 1.0.0 | loom: builds, 3 tests | does not build | rename: dev-dependencies.loom | samaritan: error: feature `futures` not found |
"
        );
    }

    #[test]
    fn writes_raw_rows() {
        let mut c = example();
        c.rows.truncate(2);
        assert_eq!(
            tsv(&[c]),
            "crate\tversion\tside\ttarget\ttest\toutcome\twall_s\texecutions\tcount\tnote
queue\t1.0.0\tloom\t\t(build)\tbuilt\t12.50\t\t\t3 tests
queue\t1.0.0\tsamaritan\t\t(build)\tbuilt\t20.00\t\t\t3 tests
queue\t1.0.0\tloom\tloom\tsmoke\tpass\t0.500\t42\texact\t
queue\t1.0.0\tsamaritan\tloom\tsmoke\tpass\t1.250\t17\tstopped\t
queue\t1.0.0\tloom\tloom\tdrop|twice\tpass\t1.000\t\t\t
queue\t1.0.0\tsamaritan\tloom\tdrop|twice\tfail\t0.250\t3\texact\tthread 'drop' panicked at tests/loom.rs:9:5: / samaritan found a bug: deadlock
"
        );
    }
}
