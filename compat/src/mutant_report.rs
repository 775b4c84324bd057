//! The mutants' results: per mutation, whether each side caught it; one
//! table row per mutation and test with both sides' verdicts, times and
//! first failure lines; and the same rows as TSV.

use std::fmt::Write as _;

use crate::report::{Cell, Outcome, Side};

/// What one side made of a mutant's test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The test failed: the mutation is caught.
    Caught,
    /// The test passed: the mutation went unnoticed.
    Missed,
    /// Killed at the cap.
    Timeout,
    /// The side did not build (or fetch, or list).
    NoBuild,
    /// The mutation could not be made: `find` is not exactly once in the file.
    Error,
    /// The side built without this test.
    Absent,
    /// The test is `#[ignore]`d.
    Ignored,
    /// `--exact` matched no test.
    Missing,
    /// Listed, not run (`--dry-run`).
    Listed,
    /// The side was not selected (`--side`).
    Skipped,
    /// On samaritan's side, the test ran with no exploration (it wrote no
    /// `SAMARITAN_REPORT` line: a plain `#[test]` that builds a runtime
    /// itself runs once, on real threads); `true` when it failed. Not a
    /// catch of samaritan's, whichever way it ended.
    Unexplored(bool),
}

impl Verdict {
    /// The verdict of a test's cell in the crate's table.
    pub(crate) fn of(cell: &Cell) -> Verdict {
        match cell {
            Cell::Skipped => Verdict::Skipped,
            Cell::NoBuild => Verdict::NoBuild,
            Cell::Absent => Verdict::Absent,
            Cell::Listed => Verdict::Listed,
            Cell::Ran(run) => match run.outcome {
                Outcome::Fail => Verdict::Caught,
                Outcome::Pass => Verdict::Missed,
                Outcome::Timeout => Verdict::Timeout,
                Outcome::Ignored => Verdict::Ignored,
                Outcome::Missing => Verdict::Missing,
            },
        }
    }

    fn text(self) -> &'static str {
        match self {
            Verdict::Caught => "caught",
            Verdict::Missed => "missed",
            Verdict::Timeout => "timeout",
            Verdict::NoBuild => "no build",
            Verdict::Error => "error",
            Verdict::Absent => "absent",
            Verdict::Ignored => "ignored",
            Verdict::Missing => "missing",
            Verdict::Listed => "listed",
            Verdict::Skipped => "—",
            Verdict::Unexplored(true) => "caught, not explored",
            Verdict::Unexplored(false) => "missed, not explored",
        }
    }
}

/// One side of a mutant's test.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SideResult {
    /// Caught, missed, ...
    pub(crate) verdict: Verdict,
    /// Wall-clock seconds, when the test ran.
    pub(crate) wall: Option<f64>,
    /// The first lines of the failure (samaritan: its report's header and
    /// verdict; loom: the panic), or the build's or the edit's error.
    pub(crate) says: Vec<String>,
    /// With `--peer-runs`, on the peer side: how its repeated runs ended.
    pub(crate) runs: Option<Runs>,
}

/// How a test's repeated runs on the peer side ended (`--peer-runs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Runs {
    /// Runs in all, the first one included.
    pub(crate) runs: u32,
    /// Runs that failed.
    pub(crate) failed: u32,
    /// Runs killed at the cap.
    pub(crate) hung: u32,
}

impl Runs {
    /// `failed in 3 of 100 runs`, plus the hung ones when there are any.
    fn text(self) -> String {
        match self.hung {
            0 => format!("failed in {} of {} runs", self.failed, self.runs),
            h => format!("failed in {} and hung in {h} of {} runs", self.failed, self.runs),
        }
    }
}

impl SideResult {
    /// A side with nothing to say.
    pub(crate) fn bare(verdict: Verdict) -> SideResult {
        SideResult { verdict, wall: None, says: Vec::new(), runs: None }
    }
}

/// One test of a mutant, on both sides.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MutantRow {
    /// The test target that lists it; `—` when none does.
    pub(crate) target: String,
    /// The test's name as the mutation lists it; `—` when none ran.
    pub(crate) test: String,
    /// On loom.
    pub(crate) loom: SideResult,
    /// On samaritan.
    pub(crate) samaritan: SideResult,
}

/// One mutation of one crate.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MutantResult {
    /// The peer side's name (`loom`, `tokio`).
    pub(crate) peer: &'static str,
    /// The crate's name.
    pub(crate) name: String,
    /// Its version.
    pub(crate) version: String,
    /// The mutation's name.
    pub(crate) mutation: String,
    /// Where the edit goes (`src/lib.rs:12`), or the file when it cannot.
    pub(crate) at: String,
    /// Its tests.
    pub(crate) rows: Vec<MutantRow>,
}

impl MutantResult {
    /// What one side made of the whole mutation: caught when one of its
    /// tests failed, else the first of error, no build, timeout, missed,
    /// ... that one of its tests got.
    fn verdict(&self, side: Side) -> (Verdict, usize) {
        let verdicts: Vec<Verdict> = self.rows.iter().map(|r| pick(r, side).verdict).collect();
        let caught = verdicts.iter().filter(|v| **v == Verdict::Caught).count();
        let order = [
            Verdict::Caught,
            Verdict::Error,
            Verdict::NoBuild,
            Verdict::Timeout,
            Verdict::Missed,
            Verdict::Unexplored(true),
            Verdict::Unexplored(false),
            Verdict::Absent,
            Verdict::Missing,
            Verdict::Ignored,
            Verdict::Listed,
        ];
        (order.into_iter().find(|v| verdicts.contains(v)).unwrap_or(Verdict::Skipped), caught)
    }

    fn verdict_text(&self, side: Side) -> String {
        match self.verdict(side) {
            (Verdict::Caught, n) => {
                let tests = if self.rows.len() == 1 { "test" } else { "tests" };
                format!("caught ({n} of {} {tests})", self.rows.len())
            }
            (v, _) => v.text().to_string(),
        }
    }
}

fn pick(row: &MutantRow, side: Side) -> &SideResult {
    match side {
        Side::Loom => &row.loom,
        Side::Samaritan => &row.samaritan,
    }
}

/// Escapes a markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn wall(s: &SideResult) -> String {
    s.wall.map_or("—".to_string(), |w| format!("{w:.2}"))
}

fn says(s: &SideResult) -> String {
    if s.says.is_empty() {
        "—".to_string()
    } else {
        cell(&s.says.join(" / "))
    }
}

/// Per mutation, where it is and whether each side caught it; then how
/// many loom catches and how many of those samaritan does (a side that did
/// not run, `--side`, is left out of the sentence).
pub(crate) fn summary(results: &[MutantResult]) -> String {
    let peer = peer_of(results);
    let mut s = format!("| crate | mutation | at | {peer} | samaritan |\n|---|---|---|---|---|\n");
    for r in results {
        let _ = writeln!(
            s,
            "| {} {} | {} | {} | {} | {} |",
            r.name,
            r.version,
            cell(&r.mutation),
            cell(&r.at),
            r.verdict_text(Side::Loom),
            r.verdict_text(Side::Samaritan)
        );
    }
    let caught = |r: &&MutantResult, side| r.verdict(side).0 == Verdict::Caught;
    let ran = |side| results.iter().any(|r| r.verdict(side).0 != Verdict::Skipped);
    let count = |side| results.iter().filter(|r| caught(r, side)).count();
    match (ran(Side::Loom), ran(Side::Samaritan)) {
        (true, true) => {}
        (false, false) => return s,
        (loom, _) => {
            let side = if loom { peer } else { "samaritan" };
            let counted = if loom { Side::Loom } else { Side::Samaritan };
            let _ = writeln!(s, "\n{side} catches {} of {} mutations.", count(counted), results.len());
            return s;
        }
    }
    let by_peer: Vec<&MutantResult> = results.iter().filter(|r| caught(r, Side::Loom)).collect();
    let both = by_peer.iter().filter(|r| caught(r, Side::Samaritan)).count();
    let only_samaritan = results.iter().filter(|r| caught(r, Side::Samaritan) && !caught(r, Side::Loom)).count();
    let _ = writeln!(
        s,
        "\n{peer} catches {} of {} mutations; samaritan catches {both} of those {}, and {only_samaritan} that {peer} does not.",
        by_peer.len(),
        results.len(),
        by_peer.len()
    );
    let missed: Vec<String> = by_peer
        .iter()
        .filter(|r| !caught(r, Side::Samaritan))
        .map(|r| format!("{} {} `{}`", r.name, r.version, r.mutation))
        .collect();
    if !missed.is_empty() {
        let _ = writeln!(s, "\nCaught by {peer}, not by samaritan: {}.", missed.join(", "));
    }
    s
}

/// The peer's name when every result has the same one, else `peer`.
fn peer_of(results: &[MutantResult]) -> &'static str {
    match results.first().map(|r| r.peer) {
        Some(first) if results.iter().all(|r| r.peer == first) => first,
        _ => "peer",
    }
}

/// One row per mutation and test: both sides' verdicts, seconds and first
/// failure lines.
pub(crate) fn table(results: &[MutantResult]) -> String {
    let peer = peer_of(results);
    let mut s = format!(
        "| crate | mutation | target | test | {peer} | samaritan | {peer} s | samaritan s | {peer} says | samaritan says |\n\
         |---|---|---|---|---|---|---:|---:|---|---|\n"
    );
    for r in results {
        for row in &r.rows {
            let _ = writeln!(
                s,
                "| {} {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.name,
                r.version,
                cell(&r.mutation),
                cell(&row.target),
                cell(&row.test),
                match row.loom.runs {
                    Some(runs) => format!("{}; {}", row.loom.verdict.text(), runs.text()),
                    None => row.loom.verdict.text().to_string(),
                },
                row.samaritan.verdict.text(),
                wall(&row.loom),
                wall(&row.samaritan),
                says(&row.loom),
                says(&row.samaritan)
            );
        }
    }
    s
}

/// The rows as TSV, one per mutation, test and side.
pub(crate) fn tsv(results: &[MutantResult]) -> String {
    let clean = |t: &str| t.replace(['\t', '\n'], " ");
    let mut s = String::from("crate\tversion\tmutation\tat\tside\ttarget\ttest\tverdict\twall_s\tsays\truns\n");
    for r in results {
        for row in &r.rows {
            for side in [Side::Loom, Side::Samaritan] {
                let x = pick(row, side);
                let _ = writeln!(
                    s,
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    r.name,
                    r.version,
                    clean(&r.mutation),
                    clean(&r.at),
                    if side == Side::Loom { r.peer } else { side.name() },
                    clean(&row.target),
                    clean(&row.test),
                    x.verdict.text(),
                    x.wall.map_or(String::new(), |w| format!("{w:.3}")),
                    clean(&x.says.join(" / ")),
                    x.runs.map_or(String::new(), |r| format!("{}/{}/{}", r.failed, r.hung, r.runs))
                );
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(verdict: Verdict, wall: f64, says: &[&str]) -> SideResult {
        SideResult { verdict, wall: Some(wall), says: says.iter().map(|l| l.to_string()).collect(), runs: None }
    }

    fn row(test: &str, loom: SideResult, samaritan: SideResult) -> MutantRow {
        MutantRow { target: "loom".into(), test: test.into(), loom, samaritan }
    }

    fn example() -> Vec<MutantResult> {
        let result = |mutation: &str, at: &str, rows| MutantResult {
            peer: "loom",
            name: "queue".into(),
            version: "1.0.0".into(),
            mutation: mutation.into(),
            at: at.into(),
            rows,
        };
        let loom_panic = ["thread 'main' panicked at src/lib.rs:40:9:", "assertion `left == right` failed"];
        let report = [
            "samaritan found a bug in execution 12 of the model at tests/loom.rs:8:5 (strategy dpor)",
            "panic in thread 'main' at src/lib.rs:40:9: assertion `left == right` failed",
        ];
        let error = ["src/lib.rs: `find` occurs 2 times, not exactly once"];
        vec![
            result(
                "store-relaxed",
                "src/lib.rs:31",
                vec![
                    row("spsc", side(Verdict::Caught, 1.5, &loom_panic), side(Verdict::Caught, 0.25, &report)),
                    row("a|b", side(Verdict::Missed, 3.0, &[]), side(Verdict::Timeout, 300.0, &[])),
                ],
            ),
            result(
                "no-lock",
                "src/lock.rs:7",
                vec![row("mpmc", side(Verdict::Caught, 2.0, &loom_panic), side(Verdict::Missed, 1.0, &[]))],
            ),
            result(
                "cas",
                "src/lib.rs",
                vec![MutantRow {
                    target: "—".into(),
                    test: "—".into(),
                    loom: SideResult { verdict: Verdict::Error, wall: None, says: vec![error[0].into()], runs: None },
                    samaritan: SideResult::bare(Verdict::Skipped),
                }],
            ),
        ]
    }

    #[test]
    fn renders_the_rows() {
        assert_eq!(
            table(&example()),
            "| crate | mutation | target | test | loom | samaritan | loom s | samaritan s | loom says | samaritan says |
|---|---|---|---|---|---|---:|---:|---|---|
| queue 1.0.0 | store-relaxed | loom | spsc | caught | caught | 1.50 | 0.25 | thread 'main' panicked at src/lib.rs:40:9: / assertion `left == right` failed | samaritan found a bug in execution 12 of the model at tests/loom.rs:8:5 (strategy dpor) / panic in thread 'main' at src/lib.rs:40:9: assertion `left == right` failed |
| queue 1.0.0 | store-relaxed | loom | a\\|b | missed | timeout | 3.00 | 300.00 | — | — |
| queue 1.0.0 | no-lock | loom | mpmc | caught | missed | 2.00 | 1.00 | thread 'main' panicked at src/lib.rs:40:9: / assertion `left == right` failed | — |
| queue 1.0.0 | cas | — | — | error | — | — | — | src/lib.rs: `find` occurs 2 times, not exactly once | — |
"
        );
    }

    #[test]
    fn renders_the_summary() {
        assert_eq!(
            summary(&example()),
            "| crate | mutation | at | loom | samaritan |
|---|---|---|---|---|
| queue 1.0.0 | store-relaxed | src/lib.rs:31 | caught (1 of 2 tests) | caught (1 of 2 tests) |
| queue 1.0.0 | no-lock | src/lock.rs:7 | caught (1 of 1 test) | missed |
| queue 1.0.0 | cas | src/lib.rs | error | — |

loom catches 2 of 3 mutations; samaritan catches 1 of those 2, and 0 that loom does not.

Caught by loom, not by samaritan: queue 1.0.0 `no-lock`.
"
        );
    }

    #[test]
    fn a_failure_outside_an_exploration_is_no_catch_of_samaritans() {
        let panic = ["thread 'test_is_brand_new' panicked at tests/mobc.rs:1128:9:", "assertion failed"];
        let results = vec![MutantResult {
            peer: "tokio",
            name: "pool".into(),
            version: "0.9.0".into(),
            mutation: "permit-early".into(),
            at: "src/lib.rs:628".into(),
            rows: vec![
                row("brand_new", side(Verdict::Caught, 0.5, &panic), side(Verdict::Unexplored(true), 0.5, &panic)),
                row("fifo", side(Verdict::Missed, 0.5, &[]), side(Verdict::Unexplored(false), 0.5, &[])),
            ],
        }];
        assert_eq!(
            summary(&results),
            "| crate | mutation | at | tokio | samaritan |
|---|---|---|---|---|
| pool 0.9.0 | permit-early | src/lib.rs:628 | caught (1 of 2 tests) | caught, not explored |

tokio catches 1 of 1 mutations; samaritan catches 0 of those 1, and 0 that tokio does not.

Caught by tokio, not by samaritan: pool 0.9.0 `permit-early`.
"
        );
        assert!(table(&results).contains("| fifo | missed | missed, not explored |"), "{}", table(&results));
    }

    #[test]
    fn leaves_a_side_that_did_not_run_out_of_the_sentence() {
        let mut results = example();
        results.truncate(2);
        for r in &mut results {
            for row in &mut r.rows {
                row.samaritan = SideResult::bare(Verdict::Skipped);
            }
        }
        assert!(summary(&results).ends_with("| caught (1 of 1 test) | — |\n\nloom catches 2 of 2 mutations.\n"));
    }

    #[test]
    fn writes_raw_rows() {
        let mut results = example();
        results.truncate(1);
        results[0].rows.truncate(1);
        assert_eq!(
            tsv(&results),
            "crate\tversion\tmutation\tat\tside\ttarget\ttest\tverdict\twall_s\tsays\truns
queue\t1.0.0\tstore-relaxed\tsrc/lib.rs:31\tloom\tloom\tspsc\tcaught\t1.500\tthread 'main' panicked at src/lib.rs:40:9: / assertion `left == right` failed\t
queue\t1.0.0\tstore-relaxed\tsrc/lib.rs:31\tsamaritan\tloom\tspsc\tcaught\t0.250\tsamaritan found a bug in execution 12 of the model at tests/loom.rs:8:5 (strategy dpor) / panic in thread 'main' at src/lib.rs:40:9: assertion `left == right` failed\t
"
        );
    }

    #[test]
    fn names_the_peer_and_counts_its_runs() {
        let mut peer = side(Verdict::Caught, 0.1, &["thread 'main' panicked at src/lib.rs:3:4:"]);
        peer.runs = Some(Runs { runs: 100, failed: 7, hung: 0 });
        let mut hung = side(Verdict::Timeout, 30.0, &[]);
        hung.runs = Some(Runs { runs: 10, failed: 0, hung: 10 });
        let samaritan = side(Verdict::Caught, 0.5, &["samaritan found a bug in execution 3 (strategy portfolio)"]);
        let results = vec![MutantResult {
            peer: "tokio",
            name: "pool".into(),
            version: "0.1.0".into(),
            mutation: "early".into(),
            at: "src/lib.rs:9".into(),
            rows: vec![row("get", peer, samaritan.clone()), row("put", hung, samaritan)],
        }];
        assert_eq!(
            table(&results).lines().take(4).collect::<Vec<_>>(),
            [
                "| crate | mutation | target | test | tokio | samaritan | tokio s | samaritan s | tokio says | samaritan says |",
                "|---|---|---|---|---|---|---:|---:|---|---|",
                "| pool 0.1.0 | early | loom | get | caught; failed in 7 of 100 runs | caught | 0.10 | 0.50 | thread 'main' panicked at src/lib.rs:3:4: | samaritan found a bug in execution 3 (strategy portfolio) |",
                "| pool 0.1.0 | early | loom | put | timeout; failed in 0 and hung in 10 of 10 runs | caught | 30.00 | 0.50 | — | samaritan found a bug in execution 3 (strategy portfolio) |",
            ]
        );
        assert!(summary(&results)
            .contains("tokio catches 1 of 1 mutations; samaritan catches 1 of those 1, and 0 that tokio does not."));
        let tsv = tsv(&results);
        assert_eq!(tsv.lines().nth(1).unwrap().split('\t').nth(4), Some("tokio"));
        assert!(tsv.lines().nth(1).unwrap().ends_with("\t7/0/100"), "{tsv}");
    }
}
