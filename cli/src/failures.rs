//! Persisted failures: where `samaritan::check` keeps them, and what one
//! holds.
//!
//! Layout (written by `samaritan::check`): `<root>/<binary>/<test>/` per
//! test, and per failure `<id>.token`, `<id>.trace` (whose comment lines
//! name the test and the replay command) and `<id>.html`.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{lowercase, Failed};

/// Where failures are persisted: `samaritan/failures` in
/// `$CARGO_TARGET_DIR` when it is set (as `check` does), else in the
/// nearest `target` directory (one holding cargo's `CACHEDIR.TAG`) of the
/// current directory or an ancestor, else `target/samaritan/failures`.
pub(crate) fn default_dir() -> PathBuf {
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => std::env::current_dir()
            .ok()
            .and_then(|cwd| cwd.ancestors().map(|d| d.join("target")).find(|t| t.join("CACHEDIR.TAG").is_file()))
            .unwrap_or_else(|| PathBuf::from("target")),
    };
    target.join("samaritan").join("failures")
}

/// The trace of a persisted failure given by its token or trace file.
pub(crate) fn trace_path(path: &Path) -> PathBuf {
    match path.extension() {
        Some(ext) if ext == "token" => path.with_extension("trace"),
        _ => path.to_path_buf(),
    }
}

/// One persisted failure, read from disk.
pub(crate) struct Failure {
    /// Its replay token.
    pub(crate) token: String,
    /// Its trace file's text, if it is there.
    pub(crate) trace: Option<String>,
}

impl Failure {
    /// Reads the failure whose `.token` or `.trace` file is `path`: its
    /// token (which must be readable) and its trace (if there is one).
    pub(crate) fn read(path: &Path) -> Result<Failure, Failed> {
        let token_path = path.with_extension("token");
        let token = fs::read_to_string(&token_path).map_err(|err| {
            Failed::Input(format!("cannot read {}: {}", token_path.display(), lowercase(&err.to_string())))
        })?;
        let trace = fs::read_to_string(path.with_extension("trace")).ok();
        Ok(Failure { token: token.trim().to_string(), trace })
    }

    /// The command that replays it, when its trace names one.
    pub(crate) fn replay(&self) -> Option<&str> {
        self.trace.as_deref()?.lines().find_map(|l| l.strip_prefix("# replay with: "))
    }
}

/// Lists the failures persisted under `dir`, per test.
pub(crate) fn list(dir: &Path) -> Result<(), Failed> {
    fs::read_dir(dir)
        .map_err(|err| Failed::Input(format!("cannot read {}: {}", dir.display(), lowercase(&err.to_string()))))?;
    let mut tests = Vec::new();
    test_dirs(dir, 0, &mut tests);
    tests.sort();
    if tests.is_empty() {
        println!("no failures persisted under {}", dir.display());
        return Ok(());
    }
    for test in &tests {
        let name = test.strip_prefix(dir).unwrap_or(test);
        println!("{}", name.display());
        let tokens = files_with(test, "token");
        if tokens.is_empty() {
            println!("  (no .token files)");
        }
        for token in tokens {
            let id = token.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            println!("  {id}");
            // The trace is read once, whether or not the token is readable.
            let trace = match Failure::read(&token) {
                Ok(failure) => {
                    println!("    token: {}", failure.token);
                    if let Some(command) = failure.replay() {
                        println!("    replay with: {command}");
                    }
                    failure.trace
                }
                Err(_) => {
                    println!("    token: (unreadable)");
                    fs::read_to_string(token.with_extension("trace")).ok()
                }
            };
            if let Some(trace) = trace {
                let steps = trace.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).count();
                println!("    trace: {} ({steps} steps)", token.with_extension("trace").display());
            }
            if token.with_extension("html").is_file() {
                println!("    page:  {}", token.with_extension("html").display());
            }
        }
    }
    Ok(())
}

/// Collects the test directories under `dir` (`<binary>/<test>`, as
/// `samaritan::check` writes them): those holding `.token` files, and those
/// with no subdirectory. Looks at most three levels down.
fn test_dirs(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let subdirs: Vec<PathBuf> = fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_dir()).collect())
        .unwrap_or_default();
    if depth > 0 && (subdirs.is_empty() || !files_with(dir, "token").is_empty()) {
        out.push(dir.to_path_buf());
    }
    if depth < 3 {
        for sub in subdirs {
            test_dirs(&sub, depth + 1, out);
        }
    }
}

/// The files in `dir` with extension `ext`, sorted by name.
fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == ext)).collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}
