//! Editing a published crate's `Cargo.toml` (normalized by `cargo publish`)
//! for the two copies: standalone for both, and switched to samaritan-loom
//! for the samaritan copy.

use std::fmt;
use std::path::Path;

use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, Value};

use crate::spec::Peer;

/// How the samaritan copy is switched to samaritan-loom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Switch {
    /// Every `loom` dependency of the crate becomes `samaritan-loom` under
    /// the same key (`loom = { package = "samaritan-loom", ... }`).
    Rename,
    /// The dependencies stay; `[patch.crates-io]` replaces loom, for the
    /// whole graph, with `<samaritan>/loom-patch` (a crate named `loom`
    /// that re-exports samaritan-loom).
    Patch,
}

/// Why a manifest could not be edited.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ManifestError(String);

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ManifestError {}

/// The dependency tables of a manifest: top level and under each
/// `[target.'...']`.
const KINDS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];

/// The manifest with an empty `[workspace]` table (unless it has one), so
/// that the copy builds on its own although it lies inside samaritan's
/// workspace directory.
pub(crate) fn standalone(manifest: &str) -> Result<String, ManifestError> {
    let mut doc = parse(manifest)?;
    add_workspace(&mut doc);
    Ok(doc.to_string())
}

/// The samaritan copy's manifest: [`standalone`], switched as `switch`
/// says to the samaritan checkout at `samaritan`. Also returns where each
/// renamed dependency was (`dev-dependencies.loom`,
/// `target.cfg(loom).dependencies.loom`); a rename that finds none fails.
pub(crate) fn for_samaritan(
    manifest: &str,
    samaritan: &Path,
    switch: Switch,
    peer: Peer,
) -> Result<(String, Vec<String>), ManifestError> {
    let mut doc = parse(manifest)?;
    let mut renamed = Vec::new();
    match switch {
        Switch::Rename => {
            let path = samaritan.join(peer.dir()).display().to_string();
            let to = Stand { name: peer.name(), package: peer.package(), path: &path, series: None };
            rename_everywhere(&mut doc, to, &mut renamed);
            if renamed.is_empty() {
                return Err(ManifestError(format!("no {} dependency to rename", peer.name())));
            }
            // Companions switch when present: their types must be the
            // stand-in's, or the crate does not compile.
            for c in peer.companions() {
                let path = samaritan.join(c.dir).display().to_string();
                let to = Stand { name: c.name, package: c.package, path: &path, series: Some(c.series) };
                rename_everywhere(&mut doc, to, &mut renamed);
            }
        }
        Switch::Patch => {
            let patch = doc.entry("patch").or_insert_with(implicit_table);
            let Some(patch) = patch.as_table_like_mut() else {
                return Err(ManifestError("`patch` is not a table".to_string()));
            };
            let crates_io = patch.entry("crates-io").or_insert(Item::Table(Table::new()));
            let Some(crates_io) = crates_io.as_table_like_mut() else {
                return Err(ManifestError("`patch.crates-io` is not a table".to_string()));
            };
            let mut dep = InlineTable::new();
            dep.insert("path", samaritan.join("loom-patch").display().to_string().into());
            crates_io.insert("loom", Item::Value(Value::InlineTable(dep)));
        }
    }
    add_workspace(&mut doc);
    Ok((doc.to_string(), renamed))
}

fn parse(manifest: &str) -> Result<DocumentMut, ManifestError> {
    manifest.parse().map_err(|e| ManifestError(format!("Cargo.toml is not TOML: {e}")))
}

fn implicit_table() -> Item {
    let mut t = Table::new();
    t.set_implicit(true);
    Item::Table(t)
}

fn add_workspace(doc: &mut DocumentMut) {
    if !doc.contains_key("workspace") {
        doc.insert("workspace", Item::Table(Table::new()));
    }
}

/// A crate and samaritan's stand-in for it.
#[derive(Clone, Copy)]
struct Stand<'a> {
    /// The crate's package on crates.io (`loom`, `tokio-util`).
    name: &'a str,
    /// samaritan's package and its path.
    package: &'a str,
    path: &'a str,
    /// The version series the stand-in is for, if it is for one only.
    series: Option<&'a str>,
}

/// [`rename`] in every dependency table, top level and per target.
fn rename_everywhere(doc: &mut DocumentMut, to: Stand<'_>, renamed: &mut Vec<String>) {
    for kind in KINDS {
        if let Some(deps) = doc.get_mut(kind).and_then(Item::as_table_like_mut) {
            rename(deps, to, kind, renamed);
        }
    }
    if let Some(targets) = doc.get_mut("target").and_then(Item::as_table_like_mut) {
        for (cfg, target) in targets.iter_mut() {
            let Some(target) = target.as_table_like_mut() else { continue };
            for kind in KINDS {
                if let Some(deps) = target.get_mut(kind).and_then(Item::as_table_like_mut) {
                    rename(deps, to, &format!("target.{}.{kind}", cfg.get()), renamed);
                }
            }
        }
    }
}

/// Renames every dependency on `to.name` (loom, tokio, tokio-util) of one
/// table to samaritan's stand-in at `to.path`, with `sim` added to its
/// features: the key `loom` without a `package`, or any key with `package
/// = "loom"` (crossbeam's `loom-crate`); with `to.series`, only a
/// requirement in that series. The key stays, so `dep:loom` features and
/// `use loom::` keep working, and so do the dependency's own features
/// (samaritan-tokio takes tokio's names) and `default-features`.
fn rename(deps: &mut dyn toml_edit::TableLike, to: Stand<'_>, at: &str, renamed: &mut Vec<String>) {
    let Stand { name, package, path, series } = to;
    let keys: Vec<String> = deps
        .iter()
        .filter(|(k, v)| is_peer(k, v, name) && series.is_none_or(|s| in_series(v, s)))
        .map(|(k, _)| k.to_string())
        .collect();
    for key in keys {
        let item = deps.get_mut(&key).expect("listed above");
        let mut features: Array = ["sim"].into_iter().collect();
        if let Some(own) = item.get("features").and_then(Item::as_array) {
            features.extend(own.iter().filter_map(Value::as_str));
        }
        let optional = item.get("optional").and_then(Item::as_bool).unwrap_or(false);
        let no_default = item.get("default-features").and_then(Item::as_bool) == Some(false);
        let mut fields: Vec<(&str, Value)> =
            vec![("package", package.into()), ("path", path.into()), ("features", Value::Array(features))];
        if optional {
            fields.push(("optional", true.into()));
        }
        if no_default {
            fields.push(("default-features", false.into()));
        }
        match item {
            // `[dev-dependencies.loom]`, as `cargo publish` writes it.
            Item::Table(t) => {
                t.clear();
                for (k, v) in fields {
                    t.insert(k, Item::Value(v));
                }
            }
            _ => {
                let mut t = InlineTable::new();
                for (k, v) in fields {
                    t.insert(k, v);
                }
                *item = Item::Value(Value::InlineTable(t));
            }
        }
        renamed.push(format!("{at}.{key}"));
    }
}

/// Whether the dependency's version requirement is in `series` (`0.7`:
/// `0.7`, `^0.7.3`, `~0.7`, `=0.7.1`, `>=0.7, <0.8`; not `0.6` nor `0.70`).
fn in_series(item: &Item, series: &str) -> bool {
    let req = match item {
        Item::Value(Value::String(v)) => v.value().as_str(),
        _ => item.get("version").and_then(Item::as_str).unwrap_or(""),
    };
    let first = req.split(',').next().unwrap_or("").trim();
    let version = first.trim_start_matches(['^', '~', '=', '>', ' ']);
    version == series || version.strip_prefix(series).is_some_and(|rest| rest.starts_with('.'))
}

fn is_peer(key: &str, item: &Item, peer: &str) -> bool {
    match item.get("package").and_then(Item::as_str) {
        Some(package) => package == peer,
        None => key == peer,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A normalized manifest as `cargo publish` writes it, with loom as a
    /// `cfg(loom)` dev-dependency, as an optional dependency, and under a
    /// renamed key (crossbeam's).
    const PUBLISHED: &str = r#"[package]
name = "queue"
version = "1.0.0"

[features]
loom = ["dep:loom"]

[dependencies.loom-crate]
version = "0.7.1"
optional = true
package = "loom"

[dev-dependencies]
loom = "0.7"
tokio = "1"

[target."cfg(loom)".dependencies.loom]
version = "0.7"
optional = true

[target."cfg(loom)".dev-dependencies.loom]
version = "0.7"
features = ["futures", "checkpoint"]
"#;

    #[track_caller]
    fn check(manifest: &str, switch: Switch, expected: &str, expected_renamed: &[&str]) {
        let (text, renamed) = for_samaritan(manifest, Path::new("/s"), switch, Peer::Loom).unwrap();
        assert_eq!(text, expected);
        assert_eq!(renamed, expected_renamed);
    }

    #[test]
    fn renames_every_loom_dependency() {
        check(
            PUBLISHED,
            Switch::Rename,
            r#"[package]
name = "queue"
version = "1.0.0"

[features]
loom = ["dep:loom"]

[dependencies.loom-crate]
package = "samaritan-loom"
path = "/s/loom"
features = ["sim"]
optional = true

[dev-dependencies]
loom = { package = "samaritan-loom", path = "/s/loom", features = ["sim"] }
tokio = "1"

[target."cfg(loom)".dependencies.loom]
package = "samaritan-loom"
path = "/s/loom"
features = ["sim"]
optional = true

[target."cfg(loom)".dev-dependencies.loom]
package = "samaritan-loom"
path = "/s/loom"
features = ["sim", "futures", "checkpoint"]

[workspace]
"#,
            &[
                "dependencies.loom-crate",
                "dev-dependencies.loom",
                "target.cfg(loom).dependencies.loom",
                "target.cfg(loom).dev-dependencies.loom",
            ],
        );
    }

    #[test]
    fn renames_an_inline_table_keeping_optional() {
        check(
            "[package]\nname = \"q\"\n\n[target.'cfg(q_loom)'.dependencies]\nloom = { version = \"0.7.2\", features = [\"futures\"], optional = true }\n",
            Switch::Rename,
            "[package]\nname = \"q\"\n\n[target.'cfg(q_loom)'.dependencies]\nloom = { package = \"samaritan-loom\", path = \"/s/loom\", features = [\"sim\", \"futures\"], optional = true }\n\n[workspace]\n",
            &["target.cfg(q_loom).dependencies.loom"],
        );
    }

    #[test]
    fn patch_mode_adds_one_patch_line() {
        check(
            "[package]\nname = \"q\"\n\n[dev-dependencies]\nloom = \"0.7\"\n",
            Switch::Patch,
            "[package]\nname = \"q\"\n\n[dev-dependencies]\nloom = \"0.7\"\n\n[patch.crates-io]\nloom = { path = \"/s/loom-patch\" }\n\n[workspace]\n",
            &[],
        );
    }

    #[test]
    fn a_crate_without_loom_cannot_be_renamed() {
        let err = for_samaritan("[package]\nname = \"q\"\n", Path::new("/s"), Switch::Rename, Peer::Loom).unwrap_err();
        assert_eq!(err.to_string(), "no loom dependency to rename");
    }

    #[test]
    fn a_tokio_crate_gets_samaritan_tokio_in_every_table() {
        let published = "[package]\nname = \"q\"\n\n[dependencies.tokio]\nversion = \"1.28\"\nfeatures = [\"time\"]\ndefault-features = false\n\n[dev-dependencies]\ntokio = { version = \"1\", features = [\"macros\", \"rt\"] }\nloom = \"0.7\"\n";
        let (text, renamed) = for_samaritan(published, Path::new("/s"), Switch::Rename, Peer::Tokio).unwrap();
        assert_eq!(
            text,
            "[package]\nname = \"q\"\n\n[dependencies.tokio]\npackage = \"samaritan-tokio\"\npath = \"/s/tokio\"\nfeatures = [\"sim\", \"time\"]\ndefault-features = false\n\n[dev-dependencies]\ntokio = { package = \"samaritan-tokio\", path = \"/s/tokio\", features = [\"sim\", \"macros\", \"rt\"] }\nloom = \"0.7\"\n\n[workspace]\n"
        );
        assert_eq!(renamed, ["dependencies.tokio", "dev-dependencies.tokio"]);
        let err = for_samaritan("[package]\nname = \"q\"\n", Path::new("/s"), Switch::Rename, Peer::Tokio).unwrap_err();
        assert_eq!(err.to_string(), "no tokio dependency to rename");
    }

    #[test]
    fn a_parking_lot_crate_gets_samaritan_parking_lot() {
        let published =
            "[package]\nname = \"q\"\n\n[dependencies.parking_lot]\nversion = \"0.12\"\nfeatures = [\"arc_lock\"]\n";
        let (text, renamed) = for_samaritan(published, Path::new("/s"), Switch::Rename, Peer::ParkingLot).unwrap();
        assert_eq!(
            text,
            "[package]\nname = \"q\"\n\n[dependencies.parking_lot]\npackage = \"samaritan-parking_lot\"\npath = \"/s/parking_lot\"\nfeatures = [\"sim\", \"arc_lock\"]\n\n[workspace]\n"
        );
        assert_eq!(renamed, ["dependencies.parking_lot"]);
    }

    #[test]
    fn tokio_util_and_tokio_stream_switch_with_tokio_in_their_own_series_only() {
        let published = "[package]\nname = \"q\"\n\n[dependencies]\ntokio = \"1\"\ntokio-util = { version = \"0.7.1\", features = [\"codec\"] }\n\n[dev-dependencies]\nold = { package = \"tokio-util\", version = \"0.6\" }\ntokio-stream = \"0.1.14\"\n";
        let (text, renamed) = for_samaritan(published, Path::new("/s"), Switch::Rename, Peer::Tokio).unwrap();
        assert_eq!(
            text,
            "[package]\nname = \"q\"\n\n[dependencies]\ntokio = { package = \"samaritan-tokio\", path = \"/s/tokio\", features = [\"sim\"] }\ntokio-util = { package = \"samaritan-tokio-util\", path = \"/s/tokio-util\", features = [\"sim\", \"codec\"] }\n\n[dev-dependencies]\nold = { package = \"tokio-util\", version = \"0.6\" }\ntokio-stream = { package = \"samaritan-tokio-stream\", path = \"/s/tokio-stream\", features = [\"sim\"] }\n\n[workspace]\n"
        );
        assert_eq!(renamed, ["dependencies.tokio", "dependencies.tokio-util", "dev-dependencies.tokio-stream"]);
        // A companion alone is no tokio crate.
        let err = for_samaritan("[dependencies]\ntokio-util = \"0.7\"\n", Path::new("/s"), Switch::Rename, Peer::Tokio)
            .unwrap_err();
        assert_eq!(err.to_string(), "no tokio dependency to rename");
    }

    #[test]
    fn a_series_is_read_off_the_first_bound() {
        let series = |req: &str| in_series(&Item::Value(req.into()), "0.7");
        let yes = ["0.7", "^0.7.3", "~0.7", "=0.7.1", ">=0.7, <0.8", "0.7.16"];
        let no = ["0.6", "0.70", "1", "*", ""];
        assert_eq!(yes.map(series), [true; 6]);
        assert_eq!(no.map(series), [false; 5]);
    }

    #[test]
    fn standalone_keeps_an_existing_workspace() {
        assert_eq!(standalone("[package]\nname = \"q\"\n").unwrap(), "[package]\nname = \"q\"\n\n[workspace]\n");
        assert_eq!(standalone("[workspace]\nmembers = []\n").unwrap(), "[workspace]\nmembers = []\n");
    }
}
