//! Building a copy's tests with the crate's CI flags, and listing them.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::spec::CrateSpec;

/// A test executable `cargo test --no-run` built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Binary {
    /// The target's name (`loom`, or the crate's for `--lib`).
    pub(crate) target: String,
    /// The executable.
    pub(crate) path: PathBuf,
}

/// What building one copy gave.
#[derive(Debug)]
pub(crate) struct Build {
    /// The test executables; empty when the build failed.
    pub(crate) binaries: Vec<Binary>,
    /// The first error line when the build failed.
    pub(crate) error: Option<String>,
    /// Seconds the build took.
    pub(crate) wall: f64,
}

/// Builds the tests of the copy at `dir` into `target_dir` as the crate's
/// CI does (its `RUSTFLAGS`, `--release`, targets and features), cargo's
/// diagnostics going to `log`.
pub(crate) fn build(spec: &CrateSpec, dir: &Path, target_dir: &Path, log: &Path) -> Build {
    let start = Instant::now();
    let mut cmd = Command::new("cargo");
    cmd.args(["test", "--no-run", "--message-format=json-render-diagnostics"]).args(cargo_args(spec));
    cmd.current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir)
        .env("RUSTFLAGS", &spec.rustflags)
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .stdin(Stdio::null());
    let failed =
        |error: String| Build { binaries: Vec::new(), error: Some(error), wall: start.elapsed().as_secs_f64() };
    let stderr = match fs::File::create(log) {
        Ok(f) => f,
        Err(e) => return failed(format!("cannot create {}: {e}", log.display())),
    };
    let out = match cmd.stderr(stderr).output() {
        Ok(out) => out,
        Err(e) => return failed(format!("cannot run cargo: {e}")),
    };
    let text = fs::read_to_string(log).unwrap_or_default();
    if !out.status.success() {
        return failed(first_error(&text).unwrap_or_else(|| format!("cargo exited with {}", out.status)));
    }
    // A patch cargo left out builds the crate on what it was to replace:
    // that copy would test loom, not samaritan.
    if let Some(unused) = unused_patch(&text) {
        return failed(unused);
    }
    Build {
        binaries: executables(&String::from_utf8_lossy(&out.stdout)),
        error: None,
        wall: start.elapsed().as_secs_f64(),
    }
}

/// Makes the copy at `dir`'s lock file fit samaritan's dependencies: while
/// cargo cannot resolve it because a locked package conflicts with what
/// one of them needs ("failed to select a version for `libc`" ... "previously
/// selected package `libc v0.2.153`"), updates that one package as a user
/// would (`cargo update -p libc@0.2.153`, which leaves every other locked
/// version alone). Returns the packages updated, as `name@version`; an
/// error that is no such conflict (or repeats) is returned as it is.
pub(crate) fn fit_lock(dir: &Path) -> Result<Vec<String>, String> {
    let mut updated = Vec::new();
    for _ in 0..16 {
        let probe = cargo_in(dir, &["metadata", "--format-version", "1"])?;
        if probe.status.success() {
            return Ok(updated);
        }
        let stderr = String::from_utf8_lossy(&probe.stderr);
        let Some(package) = locked_conflict(&stderr).filter(|p| !updated.contains(p)) else {
            return Err(first_error(&stderr).unwrap_or_else(|| format!("cargo metadata exited with {}", probe.status)));
        };
        // Updating one package may need another one the lock pins (libc's
        // update re-resolves syn 2, which needs a newer quote than the
        // lock's): those go into the same `cargo update`.
        let mut together = vec![package];
        loop {
            let mut args = vec!["update".to_string()];
            for p in &together {
                args.extend(["-p".to_string(), p.clone()]);
            }
            let update = cargo_in(dir, &args)?;
            if update.status.success() {
                break;
            }
            let text = String::from_utf8_lossy(&update.stderr);
            match locked_conflict(&text).filter(|p| !together.contains(p) && together.len() < 16) {
                Some(next) => together.push(next),
                None => {
                    let packages = together.join(" -p ");
                    return Err(first_error(&text).unwrap_or_else(|| format!("cargo update -p {packages} failed")));
                }
            }
        }
        updated.extend(together);
    }
    Err(format!("the lock file still conflicts after updating {}", updated.join(", ")))
}

/// Makes the copy at `dir` take its `[patch.crates-io] loom`: a lock file
/// that pins loom from crates.io at another version than the patch's keeps
/// it ("patch ... was not used in the crate graph"), so each locked
/// registry loom is updated as a user would (`cargo update -p
/// loom@0.7.2`), which then selects the patch. Returns the packages
/// updated, as `name@version`.
pub(crate) fn take_patch(dir: &Path) -> Result<Vec<String>, String> {
    let lock = fs::read_to_string(dir.join("Cargo.lock")).map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    let pinned = locked_registry(&lock, "loom");
    for package in &pinned {
        let update = cargo_in(dir, &["update", "-p", package])?;
        if !update.status.success() {
            let text = String::from_utf8_lossy(&update.stderr);
            return Err(first_error(&text).unwrap_or_else(|| format!("cargo update -p {package} failed")));
        }
    }
    Ok(pinned)
}

/// Runs cargo with `args` in `dir` (no input) and returns what it did.
fn cargo_in<S: AsRef<std::ffi::OsStr>>(dir: &Path, args: &[S]) -> Result<std::process::Output, String> {
    Command::new("cargo")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))
}

/// The versions of package `name` a lock file takes from a registry, as
/// `name@version`.
pub(crate) fn locked_registry(lock: &str, name: &str) -> Vec<String> {
    let Ok(doc) = lock.parse::<toml_edit::DocumentMut>() else { return Vec::new() };
    let Some(packages) = doc.get("package").and_then(|p| p.as_array_of_tables()) else { return Vec::new() };
    packages
        .iter()
        .filter(|p| p.get("name").and_then(|n| n.as_str()) == Some(name))
        .filter(|p| p.get("source").and_then(|s| s.as_str()).is_some_and(|s| s.starts_with("registry+")))
        .filter_map(|p| Some(format!("{name}@{}", p.get("version")?.as_str()?)))
        .collect()
}

/// Cargo's warning that a `[patch]` was not used, as a build error.
pub(crate) fn unused_patch(stderr: &str) -> Option<String> {
    let line = stderr.lines().map(str::trim).find(|l| l.starts_with("warning: patch") && l.contains("was not used"))?;
    Some(format!("the switch did not take: {}", line.trim_start_matches("warning: ")))
}

/// The locked package a resolution error says conflicts, as
/// `name@version`: cargo's "previously selected package `name vX.Y.Z`".
pub(crate) fn locked_conflict(stderr: &str) -> Option<String> {
    let rest = stderr.split("previously selected package `").nth(1)?;
    let (name, version) = rest.split('`').next()?.split_once(" v")?;
    Some(format!("{name}@{version}"))
}

/// The cargo arguments after `cargo test` for the crate's CI flags.
pub(crate) fn cargo_args(spec: &CrateSpec) -> Vec<String> {
    let mut args = Vec::new();
    if spec.release {
        args.push("--release".to_string());
    }
    args.extend(spec.targets.iter().cloned());
    if !spec.features.is_empty() {
        args.push("--features".to_string());
        args.push(spec.features.join(","));
    }
    if spec.no_default_features {
        args.push("--no-default-features".to_string());
    }
    args
}

/// The test executables in cargo's `--message-format=json` output.
pub(crate) fn executables(json_lines: &str) -> Vec<Binary> {
    json_lines
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["profile"]["test"] == true)
        .filter_map(|m| {
            Some(Binary { target: m["target"]["name"].as_str()?.to_string(), path: m["executable"].as_str()?.into() })
        })
        .collect()
}

/// The first line of cargo's or rustc's output that says `error`, other
/// than the closing "could not compile".
pub(crate) fn first_error(stderr: &str) -> Option<String> {
    stderr
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("error") && !l.starts_with("error: could not compile"))
        .map(str::to_string)
}

/// The tests `binary --list` names, run in `dir`.
pub(crate) fn list(binary: &Path, dir: &Path) -> Result<Vec<String>, String> {
    let out = Command::new(binary)
        .args(["--list"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    if !out.status.success() {
        return Err(format!("{} --list exited with {}", binary.display(), out.status));
    }
    Ok(parse_list(&String::from_utf8_lossy(&out.stdout)))
}

/// The test names in libtest's `--list` output (`name: test` lines;
/// benchmarks and the closing count are not tests).
pub(crate) fn parse_list(out: &str) -> Vec<String> {
    out.lines().filter_map(|l| l.strip_suffix(": test")).map(str::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_locked_package_a_resolution_conflicts_with() {
        let stderr = "error: failed to select a version for `libc`.\n    ... required by package `corosensei v0.3.4`\n\nall possible versions conflict with previously selected packages.\n\n  previously selected package `libc v0.2.153`\n    ... which satisfies dependency `libc = \"^0.2.95\"` (locked to 0.2.153)\n";
        assert_eq!(locked_conflict(stderr), Some("libc@0.2.153".to_string()));
        assert_eq!(locked_conflict("error: no matching package named `x` found"), None);
    }

    #[test]
    fn finds_the_registry_looms_a_lock_pins_and_an_unused_patch() {
        let lock = "version = 3\n\n[[package]]\nname = \"loom\"\nversion = \"0.7.2\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n[[package]]\nname = \"loom\"\nversion = \"0.5.6\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n[[package]]\nname = \"loommm\"\nversion = \"1.0.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n[[patch.unused]]\nname = \"loom\"\nversion = \"0.7.3\"\n";
        assert_eq!(locked_registry(lock, "loom"), ["loom@0.7.2", "loom@0.5.6"]);
        assert!(locked_registry("not a lock", "loom").is_empty());
        let log = "   Compiling x v1.0.0\nwarning: patch `loom v0.7.3 (/s/loom-patch)` was not used in the crate graph\nhelp: Check that the patched package version and available packages are compatible\n";
        assert_eq!(
            unused_patch(log).as_deref(),
            Some("the switch did not take: patch `loom v0.7.3 (/s/loom-patch)` was not used in the crate graph")
        );
        assert_eq!(unused_patch("   Compiling x v1.0.0\n"), None);
    }

    #[test]
    fn lists_tests_only() {
        let out = "loom::smoke: test\nsync::tests::loom_mpsc::basic: test\nbench_push: bench\n\n2 tests, 1 benchmark\n";
        assert_eq!(parse_list(out), ["loom::smoke", "sync::tests::loom_mpsc::basic"]);
        assert_eq!(parse_list("\n0 tests, 0 benchmarks\n"), Vec::<String>::new());
    }

    #[test]
    fn reads_test_executables() {
        let lines = [
            r#"{"reason":"compiler-artifact","target":{"name":"queue","kind":["lib"]},"profile":{"test":false},"executable":null}"#,
            r#"{"reason":"compiler-artifact","target":{"name":"queue","kind":["lib"]},"profile":{"test":true},"executable":"/t/queue-1a"}"#,
            r#"{"reason":"compiler-artifact","target":{"name":"loom","kind":["test"]},"profile":{"test":true},"executable":"/t/loom-2b"}"#,
            r#"{"reason":"build-finished","success":true}"#,
        ];
        assert_eq!(
            executables(&lines.join("\n")),
            [
                Binary { target: "queue".into(), path: "/t/queue-1a".into() },
                Binary { target: "loom".into(), path: "/t/loom-2b".into() }
            ]
        );
    }

    #[test]
    fn finds_the_first_error() {
        let stderr =
            "   Compiling queue v1.0.0\nerror[E0432]: unresolved import `loom::lazy_static`\n --> src/a.rs:1:5\n\
                      error: could not compile `queue`\n";
        assert_eq!(first_error(stderr).as_deref(), Some("error[E0432]: unresolved import `loom::lazy_static`"));
        assert_eq!(first_error("warning: unused\n"), None);
    }

    #[test]
    fn passes_the_ci_flags() {
        let spec = crate::spec::parse(
            "[[crate]]\nname = \"t\"\nversion = \"1\"\nrelease = true\ntargets = [\"--test\", \"loom\"]\n\
             features = [\"full\", \"test-util\"]\nno-default-features = true\n",
        )
        .unwrap();
        assert_eq!(
            cargo_args(&spec[0]),
            ["--release", "--test", "loom", "--features", "full,test-util", "--no-default-features"]
        );
    }
}
