//! One `[patch.crates-io]` line moves a whole graph onto samaritan: a
//! user's workspace (`tests/fixture/`) whose app and dependency both use
//! loom under `cfg(loom)`, built as loom suites are (`--cfg loom`), runs
//! every loom test on samaritan: the dependency's too, `loom::future::
//! block_on` inside a model, and a bug found with samaritan's report.
//!
//! The fixture is copied under the target directory and built there with
//! its own target directory (a first run compiles samaritan once more,
//! with `--cfg loom`), so the source tree is never written to. Only in
//! the simulation-mode run of the workspace (`--all-features`), once.
//!
//! A crate may build its loom tests under a cfg of its own (crossbeam's
//! `crossbeam_loom`): the patched loom must explore under those too, which
//! `cargo tree` shows without a build (in both modes).

#[cfg(feature = "sim")]
use std::path::Path;
use std::path::PathBuf;
use std::process::Command;

/// Copies the fixture folder `from` into `to`, completing the manifest.
#[cfg(feature = "sim")]
fn copy(from: &Path, to: &Path, loom_patch: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &to.join(&name), loom_patch);
        } else if name == "Cargo.toml.in" {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            let path = loom_patch.display().to_string();
            std::fs::write(to.join("Cargo.toml"), text.replace("@LOOM_PATCH@", &path)).unwrap();
        } else {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

/// Whether this crate turns samaritan-loom's `sim` on when the build's
/// `RUSTFLAGS` are `rustflags`, as `cargo tree` resolves features.
fn explores_under(rustflags: &str) -> bool {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args(["tree", "-p", "loom", "-e", "features", "-i", "samaritan-loom", "--manifest-path"])
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .env("RUSTFLAGS", rustflags)
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout.contains("samaritan-loom feature \"sim\"")
}

#[test]
fn the_patched_loom_explores_under_the_cfgs_loom_suites_are_built_with() {
    for cfg in ["--cfg loom", "--cfg crossbeam_loom", "--cfg oneshot_loom"] {
        assert!(explores_under(cfg), "{cfg}");
    }
    // Without one (this workspace's production-mode build), nothing does:
    // only this crate's own `sim` feature, off by default, which `cargo
    // tree` here does not ask for.
    assert!(!explores_under(""));
}

#[cfg(feature = "sim")]
#[test]
fn a_patch_line_moves_a_crate_and_its_loom_using_dependency_onto_samaritan() {
    let loom_patch = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("loom-patch-fixture");
    let workspace = work.join("workspace");
    let _ = std::fs::remove_dir_all(&workspace);
    copy(&loom_patch.join("tests/fixture"), &workspace, &loom_patch);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args(["test", "--workspace", "--manifest-path"])
        .arg(workspace.join("Cargo.toml"))
        .args(["--", "--test-threads=1"])
        .env("CARGO_TARGET_DIR", work.join("target"))
        .env("RUSTFLAGS", "--cfg loom")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTDOCFLAGS")
        .env_remove("SAMARITAN_REPLAY")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // One loom in the graph, this crate (from a path: no registry source),
    // standing on samaritan-loom.
    let lock = std::fs::read_to_string(workspace.join("Cargo.lock")).unwrap();
    let looms: Vec<&str> = lock.split("[[package]]").filter(|p| p.contains("name = \"loom\"")).collect();
    assert_eq!(looms.len(), 1, "{lock}");
    assert!(!looms[0].contains("source") && looms[0].contains("\"samaritan-loom\""), "{lock}");
    let mut ran: Vec<&str> =
        stdout.lines().filter_map(|l| l.strip_prefix("test ").and_then(|l| l.strip_suffix(" ... ok"))).collect();
    ran.sort_unstable();
    assert_eq!(
        ran,
        [
            "a_lost_update_is_found",
            "block_on_runs_inside_a_model",
            "the_dependency_runs_on_samaritan_too",
            "two_bumps_count_two"
        ],
        "{stdout}"
    );
}
