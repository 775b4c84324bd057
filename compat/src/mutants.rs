//! `--mutants`: each selected crate's planted bugs. Per mutation, fresh
//! copies of both sides under `<work>/<crate>/mutants/<mutation>/`, the
//! edit made in both, built with the crate's CI flags into the crate's own
//! target directories, and only the mutation's tests run on each side.

use std::fs;
use std::path::{Path, PathBuf};

use crate::mutant_report::{self, MutantResult, MutantRow, Runs, SideResult, Verdict};
use crate::mutation::Mutation;
use crate::report::{Built, Cell, CrateResult, Outcome, Row, Side};
use crate::run;
use crate::spec::CrateSpec;
use crate::{note, Options};

/// Runs the mutations of every selected crate that has some and writes the
/// tables: on standard output, and to `--out` (rows to its `.tsv`, else
/// to `<work>/mutants.tsv`).
pub(crate) fn compat(o: &Options, specs: &[CrateSpec]) -> Result<(), String> {
    let mut results = Vec::new();
    for spec in specs {
        if spec.mutations.is_empty() {
            note(&format!("{}: no [[crate.mutation]], skipped", spec.id()));
            continue;
        }
        results.extend(one_crate(o, spec));
    }
    let markdown = format!(
        "# samaritan-compat --mutants\n\n## Per mutation\n\n{}\n## Per test\n\n{}",
        mutant_report::summary(&results),
        mutant_report::table(&results)
    );
    print!("{markdown}");
    let tsv_path = match &o.out {
        Some(out) => {
            fs::write(out, &markdown).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
            out.with_extension("tsv")
        }
        None => o.work.join("mutants.tsv"),
    };
    fs::write(&tsv_path, mutant_report::tsv(&results))
        .map_err(|e| format!("cannot write {}: {e}", tsv_path.display()))?;
    eprintln!("samaritan-compat: raw rows in {}", tsv_path.display());
    Ok(())
}

/// Fetches one crate and runs each of its mutations.
fn one_crate(o: &Options, spec: &CrateSpec) -> Vec<MutantResult> {
    let result = |m: &Mutation, at: String, rows| MutantResult {
        peer: spec.peer.name(),
        name: spec.name.clone(),
        version: spec.version.clone(),
        mutation: m.name.clone(),
        at,
        rows,
    };
    let source = match crate::fetch(o, spec) {
        Ok(source) => source,
        Err(e) => return spec.mutations.iter().map(|m| result(m, m.file.clone(), error_row(o, &e))).collect(),
    };
    let mut results = Vec::new();
    for m in &spec.mutations {
        // The copies' file is the source's: check it once, before copying.
        let at = match m.locate(&source) {
            Ok(at) => at,
            Err(e) => {
                note(&format!("{}: mutation {}: {e}", spec.id(), m.name));
                results.push(result(m, m.file.clone(), error_row(o, &e)));
                continue;
            }
        };
        note(&format!("{}: mutation {} at {at}", spec.id(), m.name));
        let dir = o.work.join(spec.id()).join("mutants").join(&m.name);
        let mut crate_result = crate::empty_result(o, spec);
        let prepared = crate::run_copies(o, spec, &source, &dir, Some(m), &mut crate_result);
        let mut rows = rows(m, &dir, &crate_result);
        if o.peer_runs > 1 && !o.dry_run {
            if let Some((_, p)) = prepared.iter().find(|(side, _)| *side == Side::Loom) {
                repeat_peer(o, spec, &dir, p, &mut rows);
            }
        }
        results.push(result(m, at, rows));
    }
    results
}

/// Runs each row's test `--peer-runs` times in all on the peer side (its
/// first run is the row's own) and records in how many it failed or hit the
/// cap: one run of a tokio test is one schedule, the one the machine gave.
fn repeat_peer(o: &Options, spec: &CrateSpec, dir: &Path, p: &crate::Prepared, rows: &mut [MutantRow]) {
    for row in rows.iter_mut() {
        let Some(first) = row.loom.wall.map(|_| row.loom.verdict) else { continue };
        let Some((_, _, binary)) = p.tests.iter().find(|(t, n, _)| *t == row.target && *n == row.test) else {
            continue;
        };
        let mut runs = Runs { runs: 1, failed: 0, hung: 0 };
        match first {
            Verdict::Caught => runs.failed += 1,
            Verdict::Timeout => runs.hung += 1,
            _ => {}
        }
        let stem = crate::log_stem(dir, Side::Loom, &row.target, &row.test);
        for k in 2..=o.peer_runs {
            let job = run::Job {
                binary,
                test: &row.test,
                dir: &dir.join(Side::Loom.name()),
                env: &spec.env,
                side: Side::Loom,
                cap: o.cap,
                log: PathBuf::from(format!("{}.run{k}", stem.display())),
            };
            runs.runs += 1;
            match run::run(&job).map(|r| r.outcome) {
                Ok(Outcome::Timeout) => runs.hung += 1,
                Ok(Outcome::Fail) | Err(_) => runs.failed += 1,
                Ok(_) => {}
            }
        }
        note(&format!(
            "{}: {} {}: failed {} and hung {} of {} runs",
            spec.id(),
            spec.peer.name(),
            row.test,
            runs.failed,
            runs.hung,
            runs.runs
        ));
        row.loom.runs = Some(runs);
    }
}

/// The one row of a mutation that could not be made or fetched.
fn error_row(o: &Options, error: &str) -> Vec<MutantRow> {
    let side = |side| match o.sides.contains(&side) {
        true => SideResult { verdict: Verdict::Error, wall: None, says: vec![error.to_string()], runs: None },
        false => SideResult::bare(Verdict::Skipped),
    };
    vec![MutantRow {
        target: "—".into(), test: "—".into(), loom: side(Side::Loom), samaritan: side(Side::Samaritan)
    }]
}

/// One row per listed test and target that lists it, in the mutation's
/// order; a test no target lists is one row too.
fn rows(m: &Mutation, dir: &Path, result: &CrateResult) -> Vec<MutantRow> {
    let mut rows = Vec::new();
    for test in &m.tests {
        let ran: Vec<&Row> = result.rows.iter().filter(|r| r.test == *test).collect();
        if ran.is_empty() {
            let (loom, samaritan) = (unlisted(&result.loom), unlisted(&result.samaritan));
            rows.push(MutantRow { target: "—".into(), test: test.clone(), loom, samaritan });
        }
        for r in ran {
            rows.push(MutantRow {
                target: r.target.clone(),
                test: test.clone(),
                loom: side_result(dir, Side::Loom, r, &result.loom),
                samaritan: side_result(dir, Side::Samaritan, r, &result.samaritan),
            });
        }
    }
    rows
}

/// A side on which no target lists the test.
fn unlisted(built: &Built) -> SideResult {
    match built {
        Built::Skipped => SideResult::bare(Verdict::Skipped),
        Built::Failed(e) => SideResult { verdict: Verdict::NoBuild, wall: None, says: vec![e.clone()], runs: None },
        Built::Ok { .. } => SideResult::bare(Verdict::Absent),
    }
}

/// One side of a test that some target lists: its verdict, and for a
/// failure its first lines, read from the test's logs.
fn side_result(dir: &Path, side: Side, row: &Row, built: &Built) -> SideResult {
    let cell = match side {
        Side::Loom => &row.loom,
        Side::Samaritan => &row.samaritan,
    };
    let verdict = match (side, cell) {
        (Side::Samaritan, Cell::Ran(run))
            if !run.explored() && matches!(run.outcome, Outcome::Fail | Outcome::Pass) =>
        {
            Verdict::Unexplored(run.outcome == Outcome::Fail)
        }
        _ => Verdict::of(cell),
    };
    match (cell, built) {
        (Cell::Ran(run), _) if run.outcome == Outcome::Fail => {
            let stem = crate::log_stem(dir, side, &row.target, &row.test);
            let read = |ext: &str| fs::read_to_string(format!("{}.{ext}", stem.display())).unwrap_or_default();
            let mut says = failure_lines(side, &read("err"), &read("out"));
            // A signal (an abort, a double panic) is in the excerpt's last line.
            says.extend(run.excerpt.last().filter(|l| l.starts_with("(killed by signal")).cloned());
            SideResult { verdict, wall: Some(run.wall), says, runs: None }
        }
        (Cell::Ran(run), _) => SideResult { verdict, wall: Some(run.wall), says: Vec::new(), runs: None },
        (Cell::NoBuild, Built::Failed(e)) => SideResult { verdict, wall: None, says: vec![e.clone()], runs: None },
        _ => SideResult::bare(verdict),
    }
}

/// The first lines of a failed test's output: on samaritan, its report's
/// header (`samaritan found a bug ...`) and the verdict line after it; else
/// (loom, or a failure outside samaritan's models) the first panic's line
/// and, when that ends in `:`, its message on the next line; else the
/// first two lines. Each is [`tidy`].
pub(crate) fn failure_lines(side: Side, stderr: &str, stdout: &str) -> Vec<String> {
    let lines: Vec<&str> = stderr.lines().chain(stdout.lines()).filter(|l| !l.trim().is_empty()).collect();
    let from = |i: usize, n: usize| lines[i..].iter().take(n).map(|l| crate::run::shorten(&tidy(l), 200)).collect();
    let header = |l: &&str| l.starts_with("samaritan found a bug") || l.starts_with("samaritan replayed");
    if side == Side::Samaritan {
        if let Some(i) = lines.iter().position(header) {
            return from(i, 2);
        }
    }
    match lines.iter().position(|l| l.contains("panicked at")) {
        Some(i) => from(i, if lines[i].trim_end().ends_with(':') { 2 } else { 1 }),
        None => from(0, 2),
    }
}

/// A failure line without what changes from run to run or machine to
/// machine: the thread's id after its name (`thread 'a' (5661) panicked`)
/// and the cargo registry's directory before a dependency's path
/// (`/root/.cargo/registry/src/index.crates.io-.../loom-0.7.2/src/...`).
fn tidy(line: &str) -> String {
    let mut line = line.trim_end().to_string();
    if let Some(i) = line.find("' (") {
        let digits =
            line[i + 3..].find(") panicked at").filter(|&j| line[i + 3..i + 3 + j].bytes().all(|b| b.is_ascii_digit()));
        if let Some(j) = digits {
            line.replace_range(i + 1..i + 4 + j, "");
        }
    }
    if let Some(r) = line.find("/registry/src/") {
        let after = r + "/registry/src/".len();
        if let Some(slash) = line[after..].find('/') {
            let start = line[..r].rfind(' ').map_or(0, |s| s + 1);
            line.replace_range(start..after + slash + 1, "");
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_samaritans_header_and_verdict() {
        let stderr = "\
thread 'main' panicked at /work/main/loom/src/model.rs:120:13:
samaritan found a bug in execution 4 of the model at tests/loom.rs:10:5 (strategy dpor)

data race on UnsafeCell at src/lib.rs:20:9: nothing orders these two accesses, and at least one writes
  thread 'main' writes at src/lib.rs:20:9
";
        assert_eq!(
            failure_lines(Side::Samaritan, stderr, "running 1 test\n"),
            [
                "samaritan found a bug in execution 4 of the model at tests/loom.rs:10:5 (strategy dpor)",
                "data race on UnsafeCell at src/lib.rs:20:9: nothing orders these two accesses, and at least one writes"
            ]
        );
    }

    #[test]
    fn reads_looms_panic() {
        let stdout = " INFO loom::model: Completed in 3 iterations\n";
        let stderr = "\nthread '<unnamed>' panicked at src/lib.rs:40:9:\nassertion failed: slot.is_some()\nnote: run with `RUST_BACKTRACE=1`\nthread 'main' panicked at loom-0.7.2/src/rt/mod.rs:1:1:\n";
        assert_eq!(
            failure_lines(Side::Loom, stderr, stdout),
            ["thread '<unnamed>' panicked at src/lib.rs:40:9:", "assertion failed: slot.is_some()"]
        );
        // The older one-line form, and a panic on samaritan's side outside a model.
        let old = "thread 'main' panicked at 'boom', src/a.rs:3:5\nnext\n";
        assert_eq!(failure_lines(Side::Samaritan, old, ""), ["thread 'main' panicked at 'boom', src/a.rs:3:5"]);
        assert_eq!(failure_lines(Side::Loom, "", "a\n\nb\nc\n"), ["a", "b"]);
    }

    #[test]
    fn drops_thread_ids_and_the_registry_directory() {
        let stderr = "thread 'try_recv' (5661) panicked at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/loom-0.7.2/src/rt/location.rs:115:9:\n\nCausality violation: Concurrent read and write accesses.\n";
        assert_eq!(
            failure_lines(Side::Loom, stderr, ""),
            [
                "thread 'try_recv' panicked at loom-0.7.2/src/rt/location.rs:115:9:",
                "Causality violation: Concurrent read and write accesses."
            ]
        );
        assert_eq!(tidy("thread 'a' (main) panicked at src/a.rs:1:1:"), "thread 'a' (main) panicked at src/a.rs:1:1:");
    }
}
