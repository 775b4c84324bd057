//! The shards a test runner already gives (GitHub Actions' matrix through
//! `SAMARITAN_SHARD`, GitLab's `parallel:`, Bazel's `shard_count`, a
//! Kubernetes Indexed Job, nextest's stress runs): each case runs this
//! binary again, once per shard, with only that runner's variables set,
//! the way the runner starts a job. Together the shards explore exactly
//! what one search does, and their report files merge (as `samaritan
//! merge` merges them, through the same function) into the unsharded
//! verdict.
#![cfg(feature = "sim")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::models::{lost_update, mutex_counter};

use samaritan::{Builder, SearchStrategy};
use samaritan_artifacts::json::{merge, Merged, Record};

/// Set in the child process: the model it explores (`counter` or
/// `lost-update`).
const CHILD: &str = "SAMARITAN_RUNNER_SHARDS_CHILD";

/// Every variable a runner's sharding is read from: the child starts with
/// none of them but the case's.
const RUNNER_VARS: [&str; 12] = [
    "SAMARITAN_SHARD",
    "SAMARITAN_SHARDS",
    "SAMARITAN_REPORT",
    "TEST_SHARD_INDEX",
    "TEST_TOTAL_SHARDS",
    "TEST_SHARD_STATUS_FILE",
    "TEST_UNDECLARED_OUTPUTS_DIR",
    "CI_NODE_INDEX",
    "CI_NODE_TOTAL",
    "JOB_COMPLETION_INDEX",
    "NEXTEST_STRESS_CURRENT",
    "NEXTEST_STRESS_TOTAL",
];

/// The executions of DFS's whole search of `mutex_counter` (as
/// tests/split.rs counts it).
const WHOLE: u64 = 5791;

/// In the child: explores the model `CHILD` names with the environment's
/// settings and prints the report (or the error) on one line; returns
/// whether this is the child.
fn explored_as_child() -> bool {
    let Ok(model) = std::env::var(CHILD) else { return false };
    let f: fn() = if model == "lost-update" { lost_update } else { mutex_counter };
    match Builder::new().strategy(SearchStrategy::Dfs).persist(false).progress(false).explore(f) {
        Ok(report) => println!("\nreport: {}", report.to_string().lines().next().unwrap_or_default()),
        Err(e) => println!("\nerror: {e}"),
    }
    true
}

/// Runs `test` of this binary as a runner would start it, with `vars` its
/// only sharding variables, exploring `model`; returns the line the child
/// printed.
#[track_caller]
fn run_as_runner(test: &str, model: &str, vars: &[(&str, String)]) -> String {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.args([test, "--exact", "--nocapture", "--test-threads=1"]).env(CHILD, model);
    for var in RUNNER_VARS {
        command.env_remove(var);
    }
    command.envs(vars.iter().map(|(k, v)| (k, v)));
    let out = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let line = stdout.lines().find(|l| l.starts_with("report: ") || l.starts_with("error: "));
    line.unwrap_or_else(|| panic!("the child printed no report: {stdout}")).to_string()
}

/// A fresh scratch directory for `test`.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("samaritan-runner-shards-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The records of the report file `file`.
fn records(file: &Path) -> Vec<Record> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    Record::parse_lines(&text).unwrap()
}

/// Runs `test`'s three shards of `model` with the variables `vars(i)`
/// gives shard `i` (from 1), each writing the report file
/// `report(dir, i)`; asserts each says it explored shard `i/3` from
/// `source`, and returns the merged verdict.
#[track_caller]
fn three_shards(
    test: &str,
    model: &str,
    source: &str,
    vars: impl Fn(&Path, u32) -> Vec<(&'static str, String)>,
    report: impl Fn(&Path, u32) -> PathBuf,
) -> Merged {
    let dir = scratch(&format!("{test}-{model}"));
    let mut all = Vec::new();
    for i in 1..=3 {
        let line = run_as_runner(test, model, &vars(&dir, i));
        assert!(line.contains(&format!(", shard {i}/3 from {source})")), "{line}");
        let records = records(&report(&dir, i));
        assert_eq!(records.len(), 1, "{records:?}");
        let record = &records[0];
        assert_eq!((record.shard.as_str(), record.shard_source.as_deref()), (format!("{i}/3").as_str(), Some(source)));
        assert_eq!(record.test.as_deref(), Some(test));
        all.extend(records);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let merged = merge(&all);
    assert_eq!(merged.len(), 1, "{merged:?}");
    merged.into_iter().next().unwrap()
}

/// Asserts that a runner's three shards of `mutex_counter` merge into the
/// whole search's pass, and those of `lost_update` into a failure whose
/// token replays it.
#[track_caller]
fn shards_merge_into_the_whole_verdict(
    test: &str,
    source: &str,
    vars: impl Fn(&Path, u32) -> Vec<(&'static str, String)>,
    report: impl Fn(&Path, u32) -> PathBuf,
) {
    let pass = three_shards(test, "counter", source, &vars, &report);
    assert_eq!((pass.shards, pass.executions, pass.exhausted, pass.is_pass()), (3, WHOLE, true, true), "{pass}");
    assert!(pass.to_string().contains(&format!("pass: every execution explored: {WHOLE} executions")), "{pass}");
    let fail = three_shards(test, "lost-update", source, &vars, &report);
    let (shard, record) = fail.failure.clone().unwrap_or_else(|| panic!("no shard found the lost update: {fail}"));
    assert_eq!(record.verdict, "fail");
    assert!(fail.to_string().contains(&format!("fail in shard {shard}/3: ")), "{fail}");
    let token = record.token.expect("a failing shard's token");
    let b = Builder::new().strategy(SearchStrategy::Dfs).persist(false).progress(false);
    assert!(b.replay(&token, lost_update).unwrap().is_failure());
}

/// A report file of its own for each shard, in `SAMARITAN_REPORT`.
fn own_report(dir: &Path, i: u32) -> PathBuf {
    dir.join(format!("shard-{i}.jsonl"))
}

/// `vars` and `SAMARITAN_REPORT` for shard `i`.
fn with_report(dir: &Path, i: u32, mut vars: Vec<(&'static str, String)>) -> Vec<(&'static str, String)> {
    vars.push(("SAMARITAN_REPORT", own_report(dir, i).display().to_string()));
    vars
}

#[test]
fn github_actions_matrix_shards_through_samaritan_shard() {
    const TEST: &str = "github_actions_matrix_shards_through_samaritan_shard";
    if explored_as_child() {
        return;
    }
    // GitHub Actions has no sharding of its own: the README's matrix sets
    // `SAMARITAN_SHARD: ${{ matrix.shard }}/3`.
    let vars = |dir: &Path, i: u32| with_report(dir, i, vec![("SAMARITAN_SHARD", format!("{i}/3"))]);
    shards_merge_into_the_whole_verdict(TEST, "SAMARITAN_SHARD", vars, own_report);
}

#[test]
fn gitlab_parallel_jobs_shard_by_ci_node_index_from_1() {
    const TEST: &str = "gitlab_parallel_jobs_shard_by_ci_node_index_from_1";
    if explored_as_child() {
        return;
    }
    let vars = |dir: &Path, i: u32| {
        with_report(dir, i, vec![("CI_NODE_INDEX", i.to_string()), ("CI_NODE_TOTAL", "3".to_string())])
    };
    shards_merge_into_the_whole_verdict(TEST, "CI_NODE_INDEX/CI_NODE_TOTAL (GitLab)", vars, own_report);
    // A job that is not parallel has `CI_NODE_TOTAL=1` and no index: the
    // whole space.
    let line = run_as_runner(TEST, "counter", &[("CI_NODE_TOTAL", "1".to_string())]);
    assert!(line.starts_with(&format!("report: pass: every execution explored: {WHOLE} executions")), "{line}");
    assert!(line.ends_with("no bug (strategy dfs)"), "{line}");
}

#[test]
fn bazel_shards_by_test_shard_index_from_0_touch_the_status_file_and_keep_the_report() {
    const TEST: &str = "bazel_shards_by_test_shard_index_from_0_touch_the_status_file_and_keep_the_report";
    if explored_as_child() {
        return;
    }
    // Bazel gives each shard its own outputs directory and status file;
    // `SAMARITAN_REPORT` is unset, so the report goes to the outputs.
    let outputs = |dir: &Path, i: u32| dir.join(format!("outputs-{i}"));
    let status = |dir: &Path, i: u32| dir.join(format!("status-{i}"));
    let vars = |dir: &Path, i: u32| {
        std::fs::create_dir_all(outputs(dir, i)).unwrap();
        assert!(!status(dir, i).exists());
        vec![
            ("TEST_SHARD_INDEX", (i - 1).to_string()),
            ("TEST_TOTAL_SHARDS", "3".to_string()),
            ("TEST_SHARD_STATUS_FILE", status(dir, i).display().to_string()),
            ("TEST_UNDECLARED_OUTPUTS_DIR", outputs(dir, i).display().to_string()),
        ]
    };
    let report = |dir: &Path, i: u32| {
        assert!(status(dir, i).is_file(), "shard {i} did not touch its status file");
        outputs(dir, i).join("samaritan-report.jsonl")
    };
    shards_merge_into_the_whole_verdict(TEST, "TEST_SHARD_INDEX/TEST_TOTAL_SHARDS (Bazel)", vars, report);
}

#[test]
fn a_kubernetes_indexed_job_shards_by_job_completion_index_of_samaritan_shards() {
    const TEST: &str = "a_kubernetes_indexed_job_shards_by_job_completion_index_of_samaritan_shards";
    if explored_as_child() {
        return;
    }
    let vars = |dir: &Path, i: u32| {
        with_report(dir, i, vec![("JOB_COMPLETION_INDEX", (i - 1).to_string()), ("SAMARITAN_SHARDS", "3".to_string())])
    };
    let source = "JOB_COMPLETION_INDEX/SAMARITAN_SHARDS (Kubernetes Indexed Job)";
    shards_merge_into_the_whole_verdict(TEST, source, vars, own_report);
}

#[test]
fn a_nextest_stress_run_shares_the_space_among_its_iterations() {
    const TEST: &str = "a_nextest_stress_run_shares_the_space_among_its_iterations";
    if explored_as_child() {
        return;
    }
    let vars = |dir: &Path, i: u32| {
        with_report(
            dir,
            i,
            vec![("NEXTEST_STRESS_CURRENT", (i - 1).to_string()), ("NEXTEST_STRESS_TOTAL", "3".to_string())],
        )
    };
    let source = "NEXTEST_STRESS_CURRENT/NEXTEST_STRESS_TOTAL (nextest stress run)";
    shards_merge_into_the_whole_verdict(TEST, source, vars, own_report);
    // Outside a stress run nextest sets both to `none`: the whole space.
    let none = [("NEXTEST_STRESS_CURRENT", "none".to_string()), ("NEXTEST_STRESS_TOTAL", "none".to_string())];
    let line = run_as_runner(TEST, "counter", &none);
    assert!(line.starts_with(&format!("report: pass: every execution explored: {WHOLE} executions")), "{line}");
}

#[test]
fn a_runner_s_setting_that_cannot_be_used_is_an_error_and_samaritan_shard_overrides_it() {
    const TEST: &str = "a_runner_s_setting_that_cannot_be_used_is_an_error_and_samaritan_shard_overrides_it";
    if explored_as_child() {
        return;
    }
    let var = |k: &'static str, v: &str| (k, v.to_string());
    let way_out = "set SAMARITAN_SHARD=i/n to choose the part, or SAMARITAN_SHARD=1/1 to explore the whole space";
    let cases = [
        (vec![var("TEST_SHARD_INDEX", "1")], "TEST_SHARD_INDEX is set but TEST_TOTAL_SHARDS is not"),
        (
            vec![var("CI_NODE_INDEX", "3"), var("CI_NODE_TOTAL", "2")],
            "CI_NODE_INDEX=3 is out of range for CI_NODE_TOTAL=2 (the index counts from 1, to 2)",
        ),
        (
            vec![var("JOB_COMPLETION_INDEX", "2")],
            "JOB_COMPLETION_INDEX is set but SAMARITAN_SHARDS is not (Kubernetes does not say how many \
             completions the job has: set SAMARITAN_SHARDS to the job's `completions`)",
        ),
        (
            vec![
                var("CI_NODE_INDEX", "1"),
                var("CI_NODE_TOTAL", "2"),
                var("TEST_SHARD_INDEX", "0"),
                var("TEST_TOTAL_SHARDS", "2"),
            ],
            "both TEST_SHARD_INDEX/TEST_TOTAL_SHARDS (Bazel) and CI_NODE_INDEX/CI_NODE_TOTAL (GitLab) split this run",
        ),
    ];
    for (vars, problem) in cases {
        assert_eq!(run_as_runner(TEST, "counter", &vars), format!("error: {problem}: {way_out}"), "{vars:?}");
        // The way out: `SAMARITAN_SHARD=1/1` explores the whole space
        // whatever the runner's variables say.
        let mut vars = vars;
        vars.push(var("SAMARITAN_SHARD", "1/1"));
        let line = run_as_runner(TEST, "counter", &vars);
        assert!(line.starts_with(&format!("report: pass: every execution explored: {WHOLE} executions")), "{line}");
        assert!(line.ends_with("no bug (strategy dfs)"), "{line}");
    }
}
