//! Failure persistence: a failing schedule found by `check` is written
//! under `target/samaritan/failures/<binary>/<test>/`, and the next `check` of that
//! test replays the persisted schedules before it explores, so a failure
//! seen once stays a regression test until it is fixed.
//!
//! Each failure is three files named after its token: `N.token` (the
//! replay token), `N.trace` (the trace in its text format) and `N.html`
//! (the timeline page of `samaritan_artifacts::html::report`). A
//! persisted schedule that passes when replayed (the bug is fixed), or no
//! longer fits the program (it changed), is deleted.
//!
//! Invariants: nothing here can make a check fail by itself: a target
//! directory that cannot be found or written is skipped silently, and
//! `explore` (which returns reports for code to inspect) never reads or
//! writes persisted failures, so its results do not depend on earlier runs.

use std::fs;
use std::path::{Path, PathBuf};

use samaritan_sim::{Report, Trace};

/// Where the failures of test `test` are kept, if a target directory can
/// be found: `$CARGO_TARGET_DIR`, else the `target` directory the running
/// test binary was built into (the nearest ancestor holding `CACHEDIR.TAG`).
pub(crate) fn dir(test: &str) -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => exe.ancestors().find(|d| d.join("CACHEDIR.TAG").is_file())?.to_path_buf(),
    };
    // Tests of one name in two test binaries must not share failures: the
    // binary's name (without cargo's hash) comes first.
    let stem = exe.file_stem()?.to_string_lossy().into_owned();
    let binary =
        stem.rsplit_once('-').filter(|(_, h)| h.chars().all(|c| c.is_ascii_hexdigit())).map_or(&*stem, |(b, _)| b);
    Some(target.join("samaritan").join("failures").join(file_name(binary)).join(file_name(test)))
}

/// Turns a test name (`module::test`) into one path component.
fn file_name(test: &str) -> String {
    let name: String =
        test.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
    if name.chars().all(|c| c == '.') {
        name.replace('.', "_")
    } else {
        name
    }
}

/// The persisted tokens in `dir`, in file-name order.
pub(crate) fn tokens(dir: &Path) -> Vec<(PathBuf, String)> {
    let Ok(entries) = fs::read_dir(dir) else { return Vec::new() };
    let mut found: Vec<(PathBuf, String)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "token"))
        .filter_map(|p| Some((p.clone(), fs::read_to_string(&p).ok()?.trim().to_string())))
        .collect();
    found.sort();
    found
}

/// Writes `report`'s failure to `dir`; returns the token file's path.
pub(crate) fn save(dir: &Path, report: &Report) -> Option<PathBuf> {
    let failure = report.failure.as_ref()?;
    fs::create_dir_all(dir).ok()?;
    let name = format!("{:016x}", fnv(failure.token.as_bytes()));
    let token = dir.join(format!("{name}.token"));
    // The trace names its test and the replay command in comment lines,
    // for `samaritan replay` and `samaritan failures`.
    let mut trace = failure.trace.to_file();
    let header = trace.find('\n').map_or(trace.len(), |n| n + 1);
    let mut notes = String::new();
    if let Some(test) = &report.test_name {
        notes.push_str(&format!("# test: {test}\n"));
    }
    if let Some(command) = report.replay_command() {
        notes.push_str(&format!("# replay with: {command}\n"));
    }
    trace.insert_str(header, &notes);
    fs::write(dir.join(format!("{name}.trace")), trace).ok()?;
    fs::write(dir.join(format!("{name}.html")), samaritan_artifacts::html::report(report)).ok()?;
    fs::write(&token, format!("{}\n", failure.token)).ok()?;
    Some(token)
}

/// Reads the trace kept beside a persisted token, if it is there and
/// readable.
pub(crate) fn trace(token: &Path) -> Option<Trace> {
    Trace::parse(&fs::read_to_string(token.with_extension("trace")).ok()?).ok()
}

/// Deletes a persisted failure (its token, trace and page).
pub(crate) fn forget(token: &Path) {
    let _ = fs::remove_file(token.with_extension("trace"));
    let _ = fs::remove_file(token.with_extension("html"));
    let _ = fs::remove_file(token);
}

/// Returns whether a replayed persisted schedule still shows a bug worth
/// reporting: not a pass, and not a misuse (a schedule that no longer fits
/// the program, or a program that does not replay the same way).
pub(crate) fn still_fails(report: &Report) -> bool {
    report.is_failure()
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::file_name;

    #[test]
    fn test_names_become_one_safe_path_component() {
        assert_eq!(file_name("sim::a_test"), "sim__a_test");
        assert_eq!(file_name("../x y"), ".._x_y");
        assert_eq!(file_name(".."), "__");
    }
}
