//! `samaritan-compat`: runs published crates' loom test suites twice, on
//! loom and on samaritan-loom (the `loom` dependency renamed, or loom
//! patched), one test per process, and tabulates both sides.
//!
//! ```text
//! cargo run --release -p samaritan-compat -- [--crates FILE] [--only NAME]...
//!     [--cap SECS] [--samaritan PATH] [--work DIR] [--side loom|samaritan|both]
//!     [--patch] [--dry-run] [--mutants [--peer-runs N]] [--out FILE.md]
//! ```
//!
//! See `compat/README.md`. Not part of `.ci/run` beyond compiling and its
//! unit tests.

mod cargo;
mod manifest;
mod mutant_report;
mod mutants;
mod mutation;
mod report;
mod run;
mod source;
mod spec;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use manifest::Switch;
use mutation::Mutation;
use report::{Built, Cell, CrateResult, Row, Side};
use spec::{CrateSpec, Peer};

/// The text of `--help`.
const USAGE: &str = "\
samaritan-compat: run published crates' loom tests on loom and on samaritan-loom,
or their tokio tests on tokio and on samaritan-tokio (a list entry's `peer`)

usage: samaritan-compat [OPTIONS]

  --crates FILE        the crate list (default: compat/crates.toml; tokio
                       users: compat/tokio-users.toml)
  --only NAME          only this crate (repeatable)
  --cap SECS           wall-clock cap per test process (default 600)
  --samaritan PATH     the samaritan checkout whose loom/ or tokio/ the copies use
                       (default: this workspace)
  --work DIR           sources, copies, target dirs and logs
                       (default: target/compat of this workspace)
  --side SIDE          loom (or tokio: the crate's own side), samaritan or
                       both (default both)
  --patch              switch every crate with [patch.crates-io] loom =
                       <samaritan>/loom-patch (default: as the list says,
                       else rename the dependency)
  --dry-run            fetch, switch, build and list the tests; run none
  --mutants            run each crate's planted bugs ([[crate.mutation]]) instead
                       of its suite: the edit in both copies, the listed tests
  --peer-runs N        with --mutants: run each test N times on the peer side
                       (1-1000, default 1) and say in how many it failed: a
                       tokio test runs one schedule per run, whichever the
                       machine gives it
  --out FILE.md        also write the report there, and the raw rows to FILE.tsv
  --help               print this help
";

/// The command line, read.
#[derive(Debug)]
struct Options {
    crates: PathBuf,
    only: Vec<String>,
    cap: Duration,
    samaritan: PathBuf,
    work: PathBuf,
    sides: Vec<Side>,
    /// `--patch`: every crate patched, whatever its entry says.
    switch: Option<Switch>,
    dry_run: bool,
    mutants: bool,
    /// `--peer-runs`: how many times `--mutants` runs each peer-side test.
    peer_runs: u32,
    out: Option<PathBuf>,
}

impl Options {
    /// How `spec`'s samaritan copy is switched: `--patch`, else its
    /// entry's; a tokio crate is always renamed (there is no patch crate).
    fn switch_of(&self, spec: &CrateSpec) -> Switch {
        match spec.peer {
            Peer::Tokio | Peer::ParkingLot => Switch::Rename,
            Peer::Loom => self.switch.unwrap_or(spec.switch),
        }
    }
}

fn options() -> Result<Option<Options>, lexopt::Error> {
    use lexopt::prelude::*;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut o = Options {
        crates: root.join("crates.toml"),
        only: Vec::new(),
        cap: Duration::from_secs(600),
        samaritan: root.join(".."),
        work: root.join("../target/compat"),
        sides: vec![Side::Loom, Side::Samaritan],
        switch: None,
        dry_run: false,
        mutants: false,
        peer_runs: 1,
        out: None,
    };
    let mut parser = lexopt::Parser::from_env();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("crates") => o.crates = parser.value()?.into(),
            Long("only") => o.only.push(parser.value()?.string()?),
            Long("cap") => o.cap = Duration::from_secs(parser.value()?.parse()?),
            Long("samaritan") => o.samaritan = parser.value()?.into(),
            Long("work") => o.work = parser.value()?.into(),
            Long("side") => {
                o.sides = match parser.value()?.string()?.as_str() {
                    "loom" | "tokio" | "peer" => vec![Side::Loom],
                    "samaritan" => vec![Side::Samaritan],
                    "both" => vec![Side::Loom, Side::Samaritan],
                    other => {
                        return Err(format!(
                        "--side: expected loom (or tokio, peer: the crate's own side), samaritan or both, not {other}"
                    )
                        .into())
                    }
                }
            }
            Long("patch") => o.switch = Some(Switch::Patch),
            Long("dry-run") => o.dry_run = true,
            Long("mutants") => o.mutants = true,
            Long("peer-runs") => {
                o.peer_runs = parser.value()?.parse()?;
                if !(1..=1000).contains(&o.peer_runs) {
                    return Err(format!("--peer-runs: expected 1 to 1000 runs, not {}", o.peer_runs).into());
                }
            }
            Long("out") => o.out = Some(parser.value()?.into()),
            Long("help") | Short('h') => return Ok(None),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(Some(o))
}

fn main() -> ExitCode {
    let o = match options() {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("samaritan-compat: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match compat(o) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("samaritan-compat: {e}");
            ExitCode::from(2)
        }
    }
}

/// Runs every selected crate and writes the report. Only a bad command line,
/// crate list or output file is an error: whatever a crate does is a row.
fn compat(mut o: Options) -> Result<(), String> {
    let text = fs::read_to_string(&o.crates).map_err(|e| format!("cannot read {}: {e}", o.crates.display()))?;
    let mut specs = spec::parse(&text).map_err(|e| format!("{}: {e}", o.crates.display()))?;
    if !o.only.is_empty() {
        if let Some(missing) = o.only.iter().find(|n| !specs.iter().any(|s| &s.name == *n)) {
            return Err(format!("--only {missing}: not in {}", o.crates.display()));
        }
        specs.retain(|s| o.only.contains(&s.name));
    }
    o.samaritan = fs::canonicalize(&o.samaritan).map_err(|e| format!("--samaritan {}: {e}", o.samaritan.display()))?;
    fs::create_dir_all(&o.work).map_err(|e| format!("cannot create {}: {e}", o.work.display()))?;
    o.work = fs::canonicalize(&o.work).map_err(|e| format!("--work {}: {e}", o.work.display()))?;
    if o.mutants {
        return mutants::compat(&o, &specs);
    }
    let mut results = Vec::new();
    let mut markdown = String::from("# samaritan-compat\n\n");
    for spec in &specs {
        let result = one_crate(&o, spec);
        if !o.dry_run {
            let section = report::crate_section(&result);
            println!("{section}");
            markdown.push_str(&section);
            markdown.push('\n');
        }
        results.push(result);
    }
    let summary = if o.dry_run {
        format!("## Dry run\n\n{}", report::dry_run_table(&results))
    } else {
        format!("## Totals\n\n{}", report::totals_table(&results))
    };
    print!("{summary}");
    markdown.push_str(&summary);
    let tsv_path = match &o.out {
        Some(out) => {
            fs::write(out, &markdown).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
            out.with_extension("tsv")
        }
        None => o.work.join("rows.tsv"),
    };
    fs::write(&tsv_path, report::tsv(&results)).map_err(|e| format!("cannot write {}: {e}", tsv_path.display()))?;
    eprintln!("samaritan-compat: raw rows in {}", tsv_path.display());
    Ok(())
}

/// What one side of a crate built, and its tests (target, name, binary).
struct Prepared {
    built: Built,
    /// Target, test and the test binary that lists it.
    tests: Vec<(String, String, PathBuf)>,
}

/// Fetches, copies, builds, lists and (unless a dry run) runs one crate.
fn one_crate(o: &Options, spec: &CrateSpec) -> CrateResult {
    let mut result = empty_result(o, spec);
    match fetch(o, spec) {
        Ok(source) => {
            run_copies(o, spec, &source, &o.work.join(spec.id()), None, &mut result);
        }
        Err(e) => {
            for side in &o.sides {
                *built_mut(&mut result, *side) = Built::Failed(e.clone());
            }
        }
    }
    result
}

/// A side's name in progress lines: the crate's peer (`loom`, `tokio`) or
/// `samaritan`. (Paths keep `Side::name`.)
fn label(spec: &CrateSpec, side: Side) -> &'static str {
    match side {
        Side::Loom => spec.peer.name(),
        Side::Samaritan => "samaritan",
    }
}

/// A crate's result before anything is built.
fn empty_result(o: &Options, spec: &CrateSpec) -> CrateResult {
    CrateResult {
        name: spec.name.clone(),
        version: spec.version.clone(),
        peer: spec.peer.name(),
        loom: Built::Skipped,
        samaritan: Built::Skipped,
        switched: match o.switch_of(spec) {
            Switch::Rename => "rename".to_string(),
            Switch::Patch => "patch: [patch.crates-io] loom = <samaritan>/loom-patch".to_string(),
        },
        rows: Vec::new(),
    }
}

/// The crate's published source, in cargo's registry cache.
fn fetch(o: &Options, spec: &CrateSpec) -> Result<PathBuf, String> {
    note(&format!("{}: fetching", spec.id()));
    source::fetch(spec, &o.work).map_err(|e| format!("fetch: {e}"))
}

/// Copies `source` to `<dir>/{loom,samaritan}` (with `mutation` made in
/// both), builds and lists each selected side, and runs (unless a dry run)
/// every test either lists, or only the mutation's, into `result`.
fn run_copies(
    o: &Options,
    spec: &CrateSpec,
    source: &Path,
    dir: &Path,
    mutation: Option<&Mutation>,
    result: &mut CrateResult,
) -> Vec<(Side, Prepared)> {
    let mut prepared = Vec::new();
    for &side in &o.sides {
        let p = prepare(o, spec, source, dir, side, mutation, &mut result.switched);
        *built_mut(result, side) = p.built.clone();
        prepared.push((side, p));
    }
    let find = |side: Side| prepared.iter().find(|(s, _)| *s == side).map(|(_, p)| p);
    // Every test either side lists, in the order the first side lists them.
    let mut names: Vec<(String, String)> = Vec::new();
    for (_, p) in &prepared {
        for (target, test, _) in &p.tests {
            if !names.iter().any(|(t, n)| t == target && n == test) {
                names.push((target.clone(), test.clone()));
            }
        }
    }
    for (target, test) in names {
        let mut cells = [Cell::Skipped, Cell::Skipped];
        for (i, side) in [Side::Loom, Side::Samaritan].into_iter().enumerate() {
            let Some(p) = find(side) else { continue };
            cells[i] = match (&p.built, p.tests.iter().find(|(t, n, _)| *t == target && *n == test)) {
                (Built::Failed(_), _) => Cell::NoBuild,
                (_, None) => Cell::Absent,
                (_, Some(_)) if o.dry_run => Cell::Listed,
                (_, Some((_, _, binary))) => run_one(o, spec, dir, side, &target, &test, binary),
            };
        }
        let [loom, samaritan] = cells;
        result.rows.push(Row { target, test, loom, samaritan });
    }
    prepared
}

fn built_mut(result: &mut CrateResult, side: Side) -> &mut Built {
    match side {
        Side::Loom => &mut result.loom,
        Side::Samaritan => &mut result.samaritan,
    }
}

/// Copies, switches, (with `mutation`, edits,) builds and lists one side.
/// Every copy of a crate builds into `<work>/<crate>/target/<side>`, so that
/// a mutant rebuilds only the crate.
fn prepare(
    o: &Options,
    spec: &CrateSpec,
    source: &Path,
    dir: &Path,
    side: Side,
    mutation: Option<&Mutation>,
    switched: &mut String,
) -> Prepared {
    let failed = |e: String| Prepared { built: Built::Failed(e), tests: Vec::new() };
    let copy = dir.join(side.name());
    let logs = dir.join("logs").join(side.name());
    if let Err(e) = fs::create_dir_all(&logs) {
        return failed(format!("cannot create {}: {e}", logs.display()));
    }
    let switch = (side == Side::Samaritan).then_some((o.switch_of(spec), o.samaritan.as_path()));
    match source::copy(source, &copy, switch, spec.peer) {
        Ok(renamed) if !renamed.is_empty() => *switched = format!("rename: {}", renamed.join(", ")),
        Ok(_) => {}
        Err(e) => return failed(e),
    }
    if spec.fresh_lock {
        let lock = copy.join("Cargo.lock");
        if lock.exists() {
            if let Err(e) = fs::remove_file(&lock) {
                return failed(format!("cannot remove {}: {e}", lock.display()));
            }
        }
    }
    if let Some(m) = mutation {
        if let Err(e) = m.apply_in(&copy) {
            return failed(format!("mutation {}: {e}", m.name));
        }
    }
    // A published lock file may pin what samaritan's dependencies cannot
    // build with (libc older than corosensei needs): update just those.
    if side == Side::Samaritan && copy.join("Cargo.lock").exists() {
        match cargo::fit_lock(&copy) {
            Ok(updated) if !updated.is_empty() => {
                let _ = write!(switched, "; lock file: cargo update -p {}", updated.join(", -p "));
            }
            Ok(_) => {}
            Err(e) => return failed(e),
        }
    }
    // A patch the lock file's pinned loom would keep out: take it.
    if side == Side::Samaritan && o.switch_of(spec) == Switch::Patch && copy.join("Cargo.lock").exists() {
        match cargo::take_patch(&copy) {
            Ok(updated) if !updated.is_empty() => {
                let _ = write!(switched, "; lock file: cargo update -p {}", updated.join(", -p "));
            }
            Ok(_) => {}
            Err(e) => return failed(e),
        }
    }
    let what = mutation.map(|m| format!(" with {}", m.name)).unwrap_or_default();
    note(&format!("{}: building the {} side{what}", spec.id(), label(spec, side)));
    let target_dir = o.work.join(spec.id()).join("target").join(side.name());
    let mut build = cargo::build(spec, &copy, &target_dir, &logs.join("build.log"));
    // Cargo names the executables in the order they finish: sort them, so
    // that rows come in the same order every run.
    build.binaries.sort_by(|a, b| a.target.cmp(&b.target));
    if let Some(e) = build.error {
        note(&format!("{}: the {} side does not build: {e}", spec.id(), label(spec, side)));
        return failed(e);
    }
    let mut tests = Vec::new();
    for binary in &build.binaries {
        match cargo::list(&binary.path, &copy) {
            Ok(names) => tests.extend(
                names
                    .into_iter()
                    .filter(|n| spec.selects(n))
                    .filter(|n| mutation.is_none_or(|m| m.tests.contains(n)))
                    .map(|n| (binary.target.clone(), n, binary.path.clone())),
            ),
            Err(e) => return failed(e),
        }
    }
    note(&format!("{}: the {} side builds, {} tests", spec.id(), label(spec, side), tests.len()));
    Prepared { built: Built::Ok { tests: tests.len(), wall: build.wall }, tests }
}

/// Runs one test on one side; a harness error is a failure row.
fn run_one(o: &Options, spec: &CrateSpec, dir: &Path, side: Side, target: &str, test: &str, binary: &Path) -> Cell {
    let job = run::Job {
        binary,
        test,
        dir: &dir.join(side.name()),
        env: &spec.env,
        side,
        cap: o.cap,
        log: log_stem(dir, side, target, test),
    };
    let cell = match run::run(&job) {
        Ok(run) => Cell::Ran(run),
        Err(e) => Cell::Ran(report::Run { outcome: report::Outcome::Fail, wall: 0.0, count: None, excerpt: vec![e] }),
    };
    if let Cell::Ran(r) = &cell {
        note(&format!("{}: {} {target} {test}: {:?} in {:.2} s", spec.id(), label(spec, side), r.outcome, r.wall));
    }
    cell
}

/// Where a test's logs go: `<dir>/logs/<side>/<target>--<test>` plus `.out`,
/// `.err` and `.samaritan.jsonl`.
fn log_stem(dir: &Path, side: Side, target: &str, test: &str) -> PathBuf {
    let stem: String =
        format!("{target}--{test}").chars().map(|c| if c.is_alphanumeric() || c == '-' { c } else { '_' }).collect();
    dir.join("logs").join(side.name()).join(stem)
}

/// Progress, on standard error (standard output has only the report).
fn note(line: &str) {
    eprintln!("samaritan-compat: {line}");
}
