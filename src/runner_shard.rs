//! The shard a run explores when its test runner already splits the job:
//! Bazel's test sharding, GitLab's `parallel:`, a Kubernetes Indexed Job,
//! nextest's stress runs.
//!
//! Invariants:
//! - `SAMARITAN_SHARD` wins: when it is set (non-empty) nothing else is
//!   read, so it is also the way out of a runner's setting
//!   (`SAMARITAN_SHARD=1/1` explores the whole space).
//! - A runner's variables are read only as that runner documents them:
//!   Bazel's and Kubernetes' indices count from 0, GitLab's from 1,
//!   nextest's stress iterations from 0.
//! - A partial setting (an index without a count, or a count above 1
//!   without an index), an index out of range, a value that is not a
//!   number, or two runners that both split the run are errors that name
//!   the variables: never a guess, since a shard explored by mistake is a
//!   pass that covered a part only.

use std::path::PathBuf;

use samaritan_sim::{Shard, MAX_SHARDS};

use crate::env;

/// A runner's sharding that cannot be used: what is wrong, naming the
/// variables (`Error::ShardEnv` says how to override it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ShardEnvError(pub(crate) String);

type Error = ShardEnvError;

/// Where a run's shard came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ShardSource {
    /// `SAMARITAN_SHARD`.
    Samaritan,
    /// Bazel's `TEST_SHARD_INDEX` of `TEST_TOTAL_SHARDS`; the file Bazel
    /// asks a test that shards to touch.
    Bazel { status_file: Option<PathBuf> },
    /// GitLab's `CI_NODE_INDEX` of `CI_NODE_TOTAL`.
    GitLab,
    /// A Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` of
    /// `SAMARITAN_SHARDS`.
    Kubernetes,
    /// nextest's `NEXTEST_STRESS_CURRENT` of `NEXTEST_STRESS_TOTAL`.
    Nextest,
}

impl ShardSource {
    /// The source as a report says it: the variables, then the runner.
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            ShardSource::Samaritan => env::SHARD,
            ShardSource::Bazel { .. } => "TEST_SHARD_INDEX/TEST_TOTAL_SHARDS (Bazel)",
            ShardSource::GitLab => "CI_NODE_INDEX/CI_NODE_TOTAL (GitLab)",
            ShardSource::Kubernetes => "JOB_COMPLETION_INDEX/SAMARITAN_SHARDS (Kubernetes Indexed Job)",
            ShardSource::Nextest => "NEXTEST_STRESS_CURRENT/NEXTEST_STRESS_TOTAL (nextest stress run)",
        }
    }
}

/// The shard the runner's variables ask for, and where it came from;
/// `None` when no runner splits the run. `SAMARITAN_SHARD` itself is the
/// caller's to read: this is what a run does without it.
pub(crate) fn from_runner(get: &dyn Fn(&str) -> Option<String>) -> Result<Option<(Shard, ShardSource)>, Error> {
    let get = |var: &str| get(var).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    let found = [bazel(&get)?, gitlab(&get)?, kubernetes(&get)?, nextest(&get)?];
    let mut splitting = found.into_iter().flatten().filter(|(shard, _)| !shard.is_whole());
    let first = splitting.next();
    if let (Some((_, a)), Some((_, b))) = (&first, splitting.next()) {
        return Err(problem(format!("both {} and {} split this run", a.describe(), b.describe())));
    }
    Ok(first)
}

/// The error for a runner's setting that cannot be used.
fn problem(problem: String) -> Error {
    ShardEnvError(problem)
}

/// `var`'s value as a number.
fn number(var: &str, value: &str) -> Result<u32, Error> {
    value.parse::<u32>().map_err(|_| problem(format!("{var}={value:?} is not a number")))
}

/// A count of shards: from 1 to [`MAX_SHARDS`].
fn count(var: &str, value: &str) -> Result<u32, Error> {
    let n = number(var, value)?;
    if (1..=MAX_SHARDS).contains(&n) {
        Ok(n)
    } else {
        Err(problem(format!("{var}={n} is not a count of shards from 1 to {MAX_SHARDS}")))
    }
}

/// Shard `index` of `total`, with `index` counted from `base` (0 or 1).
fn shard(index_var: &str, index: &str, total_var: &str, total: &str, base: u32) -> Result<Shard, Error> {
    let (i, n) = (number(index_var, index)?, count(total_var, total)?);
    i.checked_sub(base).and_then(|i| Shard::new(i + 1, n)).ok_or_else(|| {
        problem(format!(
            "{index_var}={i} is out of range for {total_var}={n} (the index counts from {base}, to {})",
            n - 1 + base
        ))
    })
}

/// The error for an index set without its count or the other way round.
fn partial(set: &str, unset: &str) -> Error {
    problem(format!("{set} is set but {unset} is not"))
}

type Get<'a> = dyn Fn(&str) -> Option<String> + 'a;

/// The shard a runner's pair of variables gives: `index_var` (counted
/// from `base`) of `total_var`; `None` when neither is set, an error when
/// one is set without the other. Each runner's own exceptions come first.
fn pair(get: &Get<'_>, index_var: &str, total_var: &str, base: u32) -> Result<Option<Shard>, Error> {
    match (get(index_var), get(total_var)) {
        (None, None) => Ok(None),
        (Some(i), Some(n)) => shard(index_var, &i, total_var, &n, base).map(Some),
        (Some(_), None) => Err(partial(index_var, total_var)),
        (None, Some(_)) => Err(partial(total_var, index_var)),
    }
}

/// Bazel's test sharding: `TEST_SHARD_INDEX` (from 0) of
/// `TEST_TOTAL_SHARDS` (Bazel's test encyclopedia, "Test sharding").
fn bazel(get: &Get<'_>) -> Result<Option<(Shard, ShardSource)>, Error> {
    let source = || ShardSource::Bazel { status_file: get("TEST_SHARD_STATUS_FILE").map(PathBuf::from) };
    Ok(pair(get, "TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS", 0)?.map(|s| (s, source())))
}

/// GitLab's `parallel:`: `CI_NODE_INDEX` (from 1) of `CI_NODE_TOTAL`.
/// GitLab sets `CI_NODE_TOTAL=1` in every job that is not parallel, with
/// no index: that is the whole space.
fn gitlab(get: &Get<'_>) -> Result<Option<(Shard, ShardSource)>, Error> {
    if let (None, Some(n)) = (get("CI_NODE_INDEX"), get("CI_NODE_TOTAL")) {
        if count("CI_NODE_TOTAL", &n)? == 1 {
            return Ok(None);
        }
    }
    Ok(pair(get, "CI_NODE_INDEX", "CI_NODE_TOTAL", 1)?.map(|s| (s, ShardSource::GitLab)))
}

/// A Kubernetes Indexed Job: `JOB_COMPLETION_INDEX` (from 0), of
/// `SAMARITAN_SHARDS`, since Kubernetes does not tell a pod the job's
/// completion count.
fn kubernetes(get: &Get<'_>) -> Result<Option<(Shard, ShardSource)>, Error> {
    if let (Some(_), None) = (get("JOB_COMPLETION_INDEX"), get(env::SHARDS)) {
        return Err(problem(format!(
            "JOB_COMPLETION_INDEX is set but {} is not (Kubernetes does not say how many completions the job \
             has: set {} to the job's `completions`)",
            env::SHARDS,
            env::SHARDS
        )));
    }
    Ok(pair(get, "JOB_COMPLETION_INDEX", env::SHARDS, 0)?.map(|s| (s, ShardSource::Kubernetes)))
}

/// nextest's stress runs (`--stress-count N`): iteration
/// `NEXTEST_STRESS_CURRENT` (from 0) of `NEXTEST_STRESS_TOTAL`, so that
/// the `N` iterations together explore the space once instead of `N`
/// times over. Outside a stress run both are `none`; a stress run by
/// duration has no total (`unknown`), and each iteration explores the
/// whole space.
fn nextest(get: &Get<'_>) -> Result<Option<(Shard, ShardSource)>, Error> {
    let set = |var: &str| get(var).filter(|v| v != "none");
    if let (Some(_), Some(n)) = (set("NEXTEST_STRESS_CURRENT"), set("NEXTEST_STRESS_TOTAL")) {
        if n == "unknown" {
            return Ok(None);
        }
    }
    Ok(pair(&set, "NEXTEST_STRESS_CURRENT", "NEXTEST_STRESS_TOTAL", 0)?.map(|s| (s, ShardSource::Nextest)))
}

/// Touches the file Bazel names in `TEST_SHARD_STATUS_FILE`, as its test
/// sharding protocol asks of a test that honours `TEST_SHARD_INDEX` (a
/// test that does not touch it fails the sharded run).
pub(crate) fn acknowledge(source: &ShardSource) -> Result<(), Error> {
    let ShardSource::Bazel { status_file: Some(path) } = source else { return Ok(()) };
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map(drop)
        .map_err(|e| problem(format!("cannot touch TEST_SHARD_STATUS_FILE={} as Bazel asks: {e}", path.display())))
}

/// Where a report goes when `SAMARITAN_REPORT` is unset: under Bazel, the
/// test's undeclared outputs (`TEST_UNDECLARED_OUTPUTS_DIR`), which Bazel
/// keeps after the test.
pub(crate) fn default_report_file(get: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let dir = get("TEST_UNDECLARED_OUTPUTS_DIR").filter(|d| !d.trim().is_empty())?;
    Some(PathBuf::from(dir).join("samaritan-report.jsonl"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runner(vars: &[(&str, &str)]) -> Result<Option<(Shard, ShardSource)>, String> {
        let get = |k: &str| vars.iter().find(|(v, _)| *v == k).map(|(_, x)| x.to_string());
        from_runner(&get).map_err(|e| e.0)
    }

    fn part(i: u32, n: u32, source: ShardSource) -> Result<Option<(Shard, ShardSource)>, String> {
        Ok(Some((Shard::new(i, n).unwrap(), source)))
    }

    #[test]
    fn each_runner_counts_its_index_as_it_documents() {
        let bazel = |f: Option<&str>| ShardSource::Bazel { status_file: f.map(PathBuf::from) };
        assert_eq!(runner(&[("TEST_SHARD_INDEX", "0"), ("TEST_TOTAL_SHARDS", "3")]), part(1, 3, bazel(None)));
        assert_eq!(
            runner(&[("TEST_SHARD_INDEX", "2"), ("TEST_TOTAL_SHARDS", "3"), ("TEST_SHARD_STATUS_FILE", "/s")]),
            part(3, 3, bazel(Some("/s")))
        );
        assert_eq!(runner(&[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "4")]), part(1, 4, ShardSource::GitLab));
        assert_eq!(runner(&[("CI_NODE_INDEX", "4"), ("CI_NODE_TOTAL", "4")]), part(4, 4, ShardSource::GitLab));
        assert_eq!(
            runner(&[("JOB_COMPLETION_INDEX", "0"), ("SAMARITAN_SHARDS", "2")]),
            part(1, 2, ShardSource::Kubernetes)
        );
        assert_eq!(
            runner(&[("NEXTEST_STRESS_CURRENT", "4"), ("NEXTEST_STRESS_TOTAL", "5")]),
            part(5, 5, ShardSource::Nextest)
        );
    }

    #[test]
    fn runners_that_do_not_split_leave_the_whole_space() {
        assert_eq!(runner(&[]), Ok(None));
        // Every GitLab job that is not parallel.
        assert_eq!(runner(&[("CI_NODE_TOTAL", "1")]), Ok(None));
        // nextest outside a stress run, and a stress run by duration.
        assert_eq!(runner(&[("NEXTEST_STRESS_CURRENT", "none"), ("NEXTEST_STRESS_TOTAL", "none")]), Ok(None));
        assert_eq!(runner(&[("NEXTEST_STRESS_CURRENT", "7"), ("NEXTEST_STRESS_TOTAL", "unknown")]), Ok(None));
        // A runner's one shard may stand beside another runner's split.
        let both = runner(&[
            ("CI_NODE_INDEX", "1"),
            ("CI_NODE_TOTAL", "1"),
            ("TEST_SHARD_INDEX", "1"),
            ("TEST_TOTAL_SHARDS", "2"),
        ]);
        assert_eq!(both, part(2, 2, ShardSource::Bazel { status_file: None }));
    }

    #[test]
    fn a_partial_or_contradictory_setting_names_the_variables() {
        let cases = [
            (vec![("TEST_SHARD_INDEX", "0")], "TEST_SHARD_INDEX is set but TEST_TOTAL_SHARDS is not"),
            (vec![("TEST_TOTAL_SHARDS", "2")], "TEST_TOTAL_SHARDS is set but TEST_SHARD_INDEX is not"),
            (vec![("CI_NODE_INDEX", "2")], "CI_NODE_INDEX is set but CI_NODE_TOTAL is not"),
            (vec![("CI_NODE_TOTAL", "3")], "CI_NODE_TOTAL is set but CI_NODE_INDEX is not"),
            (vec![("SAMARITAN_SHARDS", "3")], "SAMARITAN_SHARDS is set but JOB_COMPLETION_INDEX is not"),
            (
                vec![("JOB_COMPLETION_INDEX", "1")],
                "JOB_COMPLETION_INDEX is set but SAMARITAN_SHARDS is not (Kubernetes does not say how many \
                 completions the job has: set SAMARITAN_SHARDS to the job's `completions`)",
            ),
            (vec![("NEXTEST_STRESS_CURRENT", "1")], "NEXTEST_STRESS_CURRENT is set but NEXTEST_STRESS_TOTAL is not"),
            (
                vec![("TEST_SHARD_INDEX", "3"), ("TEST_TOTAL_SHARDS", "3")],
                "TEST_SHARD_INDEX=3 is out of range for TEST_TOTAL_SHARDS=3 (the index counts from 0, to 2)",
            ),
            (
                vec![("CI_NODE_INDEX", "0"), ("CI_NODE_TOTAL", "3")],
                "CI_NODE_INDEX=0 is out of range for CI_NODE_TOTAL=3 (the index counts from 1, to 3)",
            ),
            (vec![("CI_NODE_INDEX", "one"), ("CI_NODE_TOTAL", "3")], "CI_NODE_INDEX=\"one\" is not a number"),
            (
                vec![("JOB_COMPLETION_INDEX", "0"), ("SAMARITAN_SHARDS", "0")],
                "SAMARITAN_SHARDS=0 is not a count of shards from 1 to 65536",
            ),
            (
                vec![
                    ("CI_NODE_INDEX", "1"),
                    ("CI_NODE_TOTAL", "2"),
                    ("NEXTEST_STRESS_CURRENT", "0"),
                    ("NEXTEST_STRESS_TOTAL", "3"),
                ],
                "both CI_NODE_INDEX/CI_NODE_TOTAL (GitLab) and NEXTEST_STRESS_CURRENT/NEXTEST_STRESS_TOTAL \
                 (nextest stress run) split this run",
            ),
        ];
        for (vars, message) in cases {
            assert_eq!(runner(&vars), Err(message.to_string()), "{vars:?}");
        }
    }

    #[test]
    fn bazel_keeps_the_report_in_the_test_outputs() {
        let get = |k: &str| (k == "TEST_UNDECLARED_OUTPUTS_DIR").then(|| "/out".to_string());
        assert_eq!(default_report_file(&get), Some(PathBuf::from("/out/samaritan-report.jsonl")));
        assert_eq!(default_report_file(&|_: &str| None), None);
    }

    #[test]
    fn bazel_status_file_is_touched_and_a_failure_to_is_an_error() {
        let dir = std::env::temp_dir().join(format!("samaritan-shard-status-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("status");
        acknowledge(&ShardSource::Bazel { status_file: Some(file.clone()) }).unwrap();
        assert!(file.exists());
        let missing = dir.join("no/such/dir");
        let err = acknowledge(&ShardSource::Bazel { status_file: Some(missing.clone()) }).unwrap_err().0;
        assert!(
            err.starts_with(&format!("cannot touch TEST_SHARD_STATUS_FILE={} as Bazel asks: ", missing.display())),
            "{err}"
        );
        assert_eq!(acknowledge(&ShardSource::GitLab), Ok(()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
