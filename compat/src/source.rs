//! Getting a published crate's source through cargo, and the two copies.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::manifest::{self, Switch};
use crate::spec::{CrateSpec, Peer};

/// Downloads the crate through cargo and returns its unpacked source in
/// cargo's registry cache (`~/.cargo/registry/src/...`). A throwaway crate
/// under `work/fetch/` depends on `name = "=version"`; `cargo metadata`
/// downloads it and says where it is. Only the crates.io registry is
/// reached.
pub(crate) fn fetch(spec: &CrateSpec, work: &Path) -> Result<PathBuf, String> {
    let dir = work.join("fetch").join(spec.id());
    fs::create_dir_all(dir.join("src")).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let manifest = format!(
        "[package]\nname = \"compat-fetch\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\n{} = \"={}\"\n\n[workspace]\n",
        spec.name, spec.version
    );
    let write =
        |path: PathBuf, text: &str| fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()));
    write(dir.join("Cargo.toml"), &manifest)?;
    write(dir.join("src/lib.rs"), "")?;
    let out = Command::new("cargo")
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(crate::cargo::first_error(&stderr).unwrap_or_else(|| "cargo metadata failed".to_string()));
    }
    let metadata: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata printed no JSON: {e}"))?;
    source_dir(&metadata, &spec.name, &spec.version).ok_or(format!("cargo metadata does not list {}", spec.id()))
}

/// Where `cargo metadata` says the registry package `name` `version` is.
fn source_dir(metadata: &serde_json::Value, name: &str, version: &str) -> Option<PathBuf> {
    let package = metadata["packages"].as_array()?.iter().find(|p| {
        p["name"] == name && p["version"] == version && p["source"].as_str().is_some_and(|s| s.starts_with("registry+"))
    })?;
    Some(Path::new(package["manifest_path"].as_str()?).parent()?.to_path_buf())
}

/// Makes `dest` a fresh copy of `source` whose `Cargo.toml` is the
/// published one made standalone (the peer's copy, `switch` none) or also
/// switched to samaritan's stand-in for `peer`. Returns where the switch
/// renamed the peer.
pub(crate) fn copy(
    source: &Path,
    dest: &Path,
    switch: Option<(Switch, &Path)>,
    peer: Peer,
) -> Result<Vec<String>, String> {
    if dest.exists() {
        fs::remove_dir_all(dest).map_err(|e| format!("cannot remove {}: {e}", dest.display()))?;
    }
    copy_dir(source, dest).map_err(|e| format!("cannot copy {} to {}: {e}", source.display(), dest.display()))?;
    let path = dest.join("Cargo.toml");
    let published = fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let (text, renamed) = match switch {
        None => (manifest::standalone(&published).map_err(|e| e.to_string())?, Vec::new()),
        Some((switch, samaritan)) => {
            manifest::for_samaritan(&published, samaritan, switch, peer).map_err(|e| e.to_string())?
        }
    };
    fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(renamed)
}

fn copy_dir(from: &Path, to: &Path) -> io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_registry_package() {
        let metadata = serde_json::json!({"packages": [
            {"name": "oneshot", "version": "0.1.13", "source": null, "manifest_path": "/w/fetch/Cargo.toml"},
            {"name": "oneshot", "version": "0.1.13",
             "source": "registry+https://github.com/rust-lang/crates.io-index",
             "manifest_path": "/r/src/index/oneshot-0.1.13/Cargo.toml"},
        ]});
        assert_eq!(source_dir(&metadata, "oneshot", "0.1.13"), Some(PathBuf::from("/r/src/index/oneshot-0.1.13")));
        assert_eq!(source_dir(&metadata, "oneshot", "0.1.12"), None);
    }
}
