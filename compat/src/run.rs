//! Running one test in its own process under a wall-clock cap, and what
//! its output says.

use std::fs;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::report::{Count, Outcome, Run, Side};

/// What loom's `model` needs to print `Completed in N iterations` (an
/// `info` event of target `loom::model`, loom 0.7's `model.rs`) and nothing
/// else: its subscriber's filter is read from `LOOM_LOG`, whose mere
/// presence also sets `Builder::log`, which loom 0.7 does not read.
/// `Builder::check` called directly installs no subscriber: no count.
pub(crate) const LOOM_LOG: &str = "loom::model=info";

/// How to run one test.
#[derive(Debug)]
pub(crate) struct Job<'a> {
    /// The test executable.
    pub(crate) binary: &'a Path,
    /// The test's full name.
    pub(crate) test: &'a str,
    /// The copy's directory, the test's working directory.
    pub(crate) dir: &'a Path,
    /// The crate's CI environment.
    pub(crate) env: &'a [(String, String)],
    /// Which side runs.
    pub(crate) side: Side,
    /// The cap; the test's process group is killed past it.
    pub(crate) cap: Duration,
    /// The stem of the log files (`.out`, `.err`, `.samaritan.jsonl`).
    pub(crate) log: PathBuf,
}

/// Runs `<binary> <test> --exact --test-threads 1 --nocapture`.
pub(crate) fn run(job: &Job<'_>) -> Result<Run, String> {
    let with = |ext: &str| PathBuf::from(format!("{}.{ext}", job.log.display()));
    let (out_path, err_path, report_path) = (with("out"), with("err"), with("samaritan.jsonl"));
    let create = |p: &Path| fs::File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()));
    let _ = fs::remove_file(&report_path);
    let mut cmd = Command::new(job.binary);
    cmd.args([job.test, "--exact", "--test-threads", "1", "--nocapture"])
        .current_dir(job.dir)
        .stdin(Stdio::null())
        .stdout(create(&out_path)?)
        .stderr(create(&err_path)?)
        .process_group(0);
    // Nothing of the harness's own loom or samaritan settings leaks in.
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if key.starts_with("LOOM_") || key.starts_with("SAMARITAN_") {
            cmd.env_remove(&*key);
        }
    }
    cmd.env("CARGO_MANIFEST_DIR", job.dir).env("NO_COLOR", "1").env("RUST_BACKTRACE", "0");
    if !job.env.iter().any(|(k, _)| k == "LOOM_LOG") {
        cmd.env("LOOM_LOG", LOOM_LOG);
    }
    if job.side == Side::Samaritan {
        // One JSON line per exploration (its executions); no failure kept
        // from an earlier run and replayed first.
        cmd.env("SAMARITAN_REPORT", &report_path).env("SAMARITAN_PERSIST", "0");
    }
    cmd.envs(job.env.iter().map(|(k, v)| (k, v)));
    let start = Instant::now();
    let mut child = cmd.spawn().map_err(|e| format!("cannot run {}: {e}", job.binary.display()))?;
    let group = child.id();
    // A thread waits, so that the wall time is the exit's, not a poll's.
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send((child.wait(), Instant::now()));
    });
    let (status, end) = match rx.recv_timeout(job.cap) {
        Ok((status, end)) => (Some(status.map_err(|e| format!("cannot wait for {}: {e}", job.test))?), end),
        Err(_) => {
            // The whole group: a test may have started processes of its own.
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{group}")]).status();
            let end = Instant::now();
            let _ = rx.recv();
            (None, end)
        }
    };
    let wall = end.duration_since(start).as_secs_f64();
    let stdout = fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = fs::read_to_string(&err_path).unwrap_or_default();
    let outcome = match status {
        None => Outcome::Timeout,
        Some(status) => outcome(status, &stdout),
    };
    let killed = outcome == Outcome::Timeout;
    let count = match job.side {
        Side::Loom => loom_iterations(&stdout, killed),
        Side::Samaritan => samaritan_executions(&fs::read_to_string(&report_path).unwrap_or_default(), &stderr, killed),
    };
    let excerpt = match (outcome, status) {
        (Outcome::Fail, Some(status)) => excerpt(&stderr, &stdout, status),
        _ => Vec::new(),
    };
    Ok(Run { outcome, wall, count, excerpt })
}

/// A test process's outcome from its status and libtest's summary line.
fn outcome(status: ExitStatus, stdout: &str) -> Outcome {
    if !status.success() {
        return Outcome::Fail;
    }
    let summary = stdout.lines().find(|l| l.starts_with("test result:")).unwrap_or("");
    if summary.contains(" 1 passed") {
        Outcome::Pass
    } else if summary.contains(" 1 ignored") {
        Outcome::Ignored
    } else {
        Outcome::Missing
    }
}

/// loom's iteration counts, added up over the test's models. Killed at the
/// cap, the model it was in adds the last `Iteration N` banner loom printed
/// (every `LOOM_CHECKPOINT_INTERVAL` iterations), and the count is partial.
pub(crate) fn loom_iterations(output: &str, killed: bool) -> Option<Count> {
    let (mut done, mut current, mut seen) = (0, 0, false);
    for line in output.lines() {
        if let Some(n) = number_between(line, "Completed in ", " iterations") {
            (done, current, seen) = (done + n, 0, true);
        } else if let Some(n) = number_between(line, "= Iteration ", " =") {
            (current, seen) = (n, true);
        }
    }
    let partial = killed && current > 0;
    seen.then_some(Count { executions: done + if partial { current } else { 0 }, stopped: false, partial })
}

/// samaritan's executions, added up over the test's explorations (the
/// `SAMARITAN_REPORT` lines), and whether a budget stopped one. Killed at
/// the cap, the exploration it was in adds the count of samaritan's last
/// progress line (`samaritan: t: 286 s, 3,678,811 executions (...)`, every
/// two seconds), and the count is partial.
pub(crate) fn samaritan_executions(report: &str, stderr: &str, killed: bool) -> Option<Count> {
    let records: Vec<serde_json::Value> = report.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let done: u64 = records.iter().filter_map(|r| r["executions"].as_u64()).sum();
    let stopped = records.iter().any(|r| r["stopped"].is_string());
    let current = if killed { stderr.lines().rev().find_map(progress_executions) } else { None };
    match current {
        Some(n) => Some(Count { executions: done + n, stopped, partial: true }),
        None if records.is_empty() => None,
        None => Some(Count { executions: done, stopped, partial: false }),
    }
}

/// The executions of a progress line of samaritan's.
fn progress_executions(line: &str) -> Option<u64> {
    let (head, _) = line.strip_prefix("samaritan: ")?.split_once(" executions (")?;
    head.rsplit(", ").next()?.replace(',', "").parse().ok()
}

/// The number between `before` and `after` in `line`.
fn number_between(line: &str, before: &str, after: &str) -> Option<u64> {
    line.split(before).nth(1)?.split(after).next()?.trim().parse().ok()
}

/// The first lines of a failure: from the panic on, else the start of
/// standard error, else of standard output; and the signal that ended it.
pub(crate) fn excerpt(stderr: &str, stdout: &str, status: ExitStatus) -> Vec<String> {
    let text = if stderr.trim().is_empty() { stdout } else { stderr };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.iter().position(|l| l.contains("panicked at")).unwrap_or(0);
    let mut out: Vec<String> = lines[start..].iter().take(5).map(|l| shorten(l, 200)).collect();
    if let Some(signal) = status.signal() {
        out.push(format!("(killed by signal {signal})"));
    }
    out
}

/// `line` cut to `max` characters, `…` marking a cut.
pub(crate) fn shorten(line: &str, max: usize) -> String {
    match line.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_count(count: Option<Count>, expected: Option<(u64, bool, bool)>) {
        assert_eq!(count.map(|c| (c.executions, c.stopped, c.partial)), expected);
    }

    #[test]
    fn adds_up_loom_iterations() {
        let out = " INFO loom::model: \n INFO loom::model:  ================== Iteration 20000 ==================\n \
                   INFO loom::model: Completed in 23494 iterations\nok\n INFO loom::model: Completed in 8 iterations\n";
        check_count(loom_iterations(out, false), Some((23502, false, false)));
        let killed = format!("{out} INFO loom::model:  ================== Iteration 40000 ==================\n");
        check_count(loom_iterations(&killed, true), Some((63502, false, true)));
        check_count(loom_iterations("test a ... ok\n", false), None);
    }

    #[test]
    fn adds_up_samaritan_executions() {
        let report = "{\"version\":1,\"executions\":17,\"stopped\":null}\n{\"version\":1,\"executions\":3}\n";
        check_count(samaritan_executions(report, "", false), Some((20, false, false)));
        check_count(
            samaritan_executions("{\"executions\":5,\"stopped\":\"time\"}\n", "", false),
            Some((5, true, false)),
        );
        check_count(samaritan_executions("", "", false), None);
        let progress = "samaritan: spsc: 2 s, 31,592 executions (15,760/s), bound 4\n\
                        samaritan: spsc: 4 s, 60,643 executions (14,517/s), bound 4\n";
        check_count(samaritan_executions(report, progress, true), Some((60663, false, true)));
        check_count(samaritan_executions("", progress, false), None);
    }

    #[test]
    fn reads_libtest_summaries() {
        let ok = ExitStatus::from_raw(0);
        let summary = |s: &str| format!("running 1 test\ntest a ... ok\n\ntest result: {s}; finished in 0.01s\n");
        assert_eq!(
            outcome(ok, &summary("ok. 1 passed; 0 failed; 0 ignored; 0 measured; 9 filtered out")),
            Outcome::Pass
        );
        assert_eq!(
            outcome(ok, &summary("ok. 0 passed; 0 failed; 1 ignored; 0 measured; 9 filtered out")),
            Outcome::Ignored
        );
        assert_eq!(
            outcome(ok, &summary("ok. 0 passed; 0 failed; 0 ignored; 0 measured; 10 filtered out")),
            Outcome::Missing
        );
        assert_eq!(outcome(ExitStatus::from_raw(101 << 8), ""), Outcome::Fail);
    }

    #[test]
    fn excerpt_starts_at_the_panic() {
        let stderr = "noise\nthread 'a' panicked at src/a.rs:3:5:\nsamaritan found a bug: deadlock\n\n  t1 waits\n  t2 waits\n  trace\n  more\n";
        assert_eq!(
            excerpt(stderr, "", ExitStatus::from_raw(101 << 8)),
            [
                "thread 'a' panicked at src/a.rs:3:5:",
                "samaritan found a bug: deadlock",
                "  t1 waits",
                "  t2 waits",
                "  trace"
            ]
        );
        assert_eq!(excerpt("", "boom\n", ExitStatus::from_raw(6)), ["boom", "(killed by signal 6)"]);
    }
}
