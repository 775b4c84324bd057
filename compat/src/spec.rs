//! The crate list, `crates.toml`: which published crates to run and with
//! which of their own CI settings.

use std::fmt;

use toml_edit::{DocumentMut, Item, Table};

use crate::manifest::Switch;
use crate::mutation::{self, Mutation};

/// One crate of the list: what to fetch and how its CI runs its loom tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CrateSpec {
    /// The crate's name on crates.io.
    pub(crate) name: String,
    /// The exact published version.
    pub(crate) version: String,
    /// `RUSTFLAGS` of the crate's loom job (`--cfg loom`, ...).
    pub(crate) rustflags: String,
    /// Whether the job builds with `--release`.
    pub(crate) release: bool,
    /// The job's target selection, as cargo arguments (`--lib`, `--test
    /// loom`); empty: every target `cargo test` builds.
    pub(crate) targets: Vec<String>,
    /// The job's `--features`.
    pub(crate) features: Vec<String>,
    /// Whether the job passes `--no-default-features`.
    pub(crate) no_default_features: bool,
    /// Whether both copies resolve their dependencies afresh, without the
    /// published `Cargo.lock` (`fresh-lock = true`): for a crate whose CI
    /// builds without that lock and whose lock does not build (tower's
    /// pins a `tracing` older than its code).
    pub(crate) fresh_lock: bool,
    /// The job's environment (`LOOM_MAX_PREEMPTIONS`, ...), in file order;
    /// set on both sides.
    pub(crate) env: Vec<(String, String)>,
    /// Only the listed tests whose name contains one of these run (tokio:
    /// its CI's scopes); empty: every listed test. A string or an array of
    /// strings in the file.
    pub(crate) filter: Vec<String>,
    /// How the samaritan copy switches to samaritan-loom unless `--patch`
    /// says otherwise: `patch` for a crate whose dependencies from
    /// crates.io use loom too under its CI's cfg (renamed, they would stay
    /// on loom inside samaritan's model). Default: rename.
    pub(crate) switch: Switch,
    /// Planted bugs its loom tests should catch (`--mutants`).
    pub(crate) mutations: Vec<Mutation>,
    /// What the crate's tests run on, which the samaritan copy replaces:
    /// loom (the default) or tokio (`peer = "tokio"`).
    pub(crate) peer: Peer,
}

/// The dependency a crate's tests run on and samaritan's stand-in for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Peer {
    /// loom, replaced by samaritan-loom.
    Loom,
    /// tokio, replaced by samaritan-tokio (its `sim` feature on).
    Tokio,
    /// parking_lot, replaced by samaritan-parking_lot (its `sim` feature
    /// on).
    ParkingLot,
}

impl Peer {
    /// The peer's name: its package on crates.io, and its side in tables.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Peer::Loom => "loom",
            Peer::Tokio => "tokio",
            Peer::ParkingLot => "parking_lot",
        }
    }

    /// samaritan's package in its place.
    pub(crate) fn package(self) -> &'static str {
        match self {
            Peer::Loom => "samaritan-loom",
            Peer::Tokio => "samaritan-tokio",
            Peer::ParkingLot => "samaritan-parking_lot",
        }
    }

    /// Where that package is in a samaritan checkout.
    pub(crate) fn dir(self) -> &'static str {
        match self {
            Peer::Loom => "loom",
            Peer::Tokio => "tokio",
            Peer::ParkingLot => "parking_lot",
        }
    }

    /// The crates that take the peer's own types and so switch with it,
    /// when a crate depends on them: `(name, samaritan's package, its
    /// directory, the one version series it stands in for)`.
    pub(crate) fn companions(self) -> &'static [Companion] {
        match self {
            Peer::Loom | Peer::ParkingLot => &[],
            Peer::Tokio => &[
                Companion { name: "tokio-util", package: "samaritan-tokio-util", dir: "tokio-util", series: "0.7" },
                Companion {
                    name: "tokio-stream",
                    package: "samaritan-tokio-stream",
                    dir: "tokio-stream",
                    series: "0.1",
                },
            ],
        }
    }
}

/// A crate switched beside a peer (see [`Peer::companions`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Companion {
    /// Its package on crates.io.
    pub(crate) name: &'static str,
    /// samaritan's package in its place.
    pub(crate) package: &'static str,
    /// Where that package is in a samaritan checkout.
    pub(crate) dir: &'static str,
    /// The version series samaritan's package stands in for (`0.7`): a
    /// dependency on another series is left alone.
    pub(crate) series: &'static str,
}

impl CrateSpec {
    /// The crate's `name-version`, its directory under the work directory.
    pub(crate) fn id(&self) -> String {
        format!("{}-{}", self.name, self.version)
    }

    /// Whether the test `name` is one the crate's CI runs.
    pub(crate) fn selects(&self, name: &str) -> bool {
        self.filter.is_empty() || self.filter.iter().any(|f| name.contains(f.as_str()))
    }
}

/// Why the crate list could not be read.
#[derive(Debug)]
pub(crate) struct SpecError(String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

/// Reads the `[[crate]]` entries of a crate list.
pub(crate) fn parse(text: &str) -> Result<Vec<CrateSpec>, SpecError> {
    let doc: DocumentMut = text.parse().map_err(|e| SpecError(format!("not TOML: {e}")))?;
    let Some(list) = doc.get("crate").and_then(Item::as_array_of_tables) else {
        return Err(SpecError("no [[crate]] entry".to_string()));
    };
    list.iter()
        .enumerate()
        .map(|(i, t)| entry(t).map_err(|e| SpecError(format!("[[crate]] #{}: {e}", i + 1))))
        .collect()
}

/// Reads one `[[crate]]` table.
fn entry(t: &Table) -> Result<CrateSpec, String> {
    let string =
        |key: &str| t.get(key).map(|v| v.as_str().map(str::to_string).ok_or(format!("`{key}` is not a string")));
    let strings = |key: &str| -> Result<Vec<String>, String> {
        match t.get(key) {
            None => Ok(Vec::new()),
            Some(v) => v
                .as_array()
                .and_then(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect())
                .ok_or(format!("`{key}` is not an array of strings")),
        }
    };
    let flag = |key: &str| match t.get(key) {
        None => Ok(false),
        Some(v) => v.as_bool().ok_or(format!("`{key}` is not a boolean")),
    };
    let name = string("name").ok_or("no `name`")??;
    let version = string("version").ok_or("no `version`")??;
    let filter = match t.get("filter") {
        Some(v) if v.is_str() => vec![v.as_str().unwrap_or_default().to_string()],
        Some(_) => strings("filter").map_err(|_| "`filter` is not a string or an array of strings".to_string())?,
        None => Vec::new(),
    };
    let switch = match string("switch").transpose()?.as_deref() {
        None | Some("rename") => Switch::Rename,
        Some("patch") => Switch::Patch,
        Some(other) => return Err(format!("`switch` is `rename` or `patch`, not `{other}`")),
    };
    let peer = match string("peer").transpose()?.as_deref() {
        None | Some("loom") => Peer::Loom,
        Some("tokio") => Peer::Tokio,
        Some("parking_lot") => Peer::ParkingLot,
        Some(other) => return Err(format!("`peer` is `loom`, `tokio` or `parking_lot`, not `{other}`")),
    };
    if peer != Peer::Loom && switch == Switch::Patch {
        return Err(format!("`switch = \"patch\"` is for loom crates; a {} crate is renamed", peer.name()));
    }
    let mut env = Vec::new();
    if let Some(item) = t.get("env") {
        let table = item.as_table_like().ok_or("`env` is not a table")?;
        for (k, v) in table.iter() {
            let v = v.as_str().ok_or(format!("env `{k}` is not a string"))?;
            env.push((k.to_string(), v.to_string()));
        }
    }
    Ok(CrateSpec {
        name,
        version,
        rustflags: string("rustflags").transpose()?.unwrap_or_default(),
        release: flag("release")?,
        targets: strings("targets")?,
        features: strings("features")?,
        no_default_features: flag("no-default-features")?,
        fresh_lock: flag("fresh-lock")?,
        env,
        filter,
        switch,
        mutations: mutation::parse(t)?,
        peer,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_field() {
        let text = r#"
[[crate]]
name = "tokio"
version = "1.54.1"
rustflags = "--cfg loom"
release = true
targets = ["--lib"]
features = ["full", "test-util"]
env = { LOOM_MAX_PREEMPTIONS = "2", LOOM_MAX_BRANCHES = "10000" }
filter = ["loom_blocking", "sync::tests"]

[[crate]]
name = "oneshot"
version = "0.1.13"
filter = "loom"
switch = "patch"

[[crate]]
name = "leaky-bucket"
version = "1.1.2"
peer = "tokio"
"#;
        let specs = parse(text).unwrap();
        assert_eq!(
            specs[0],
            CrateSpec {
                name: "tokio".into(),
                version: "1.54.1".into(),
                rustflags: "--cfg loom".into(),
                release: true,
                targets: vec!["--lib".into()],
                features: vec!["full".into(), "test-util".into()],
                no_default_features: false,
                fresh_lock: false,
                env: vec![("LOOM_MAX_PREEMPTIONS".into(), "2".into()), ("LOOM_MAX_BRANCHES".into(), "10000".into())],
                filter: vec!["loom_blocking".into(), "sync::tests".into()],
                switch: Switch::Rename,
                mutations: Vec::new(),
                peer: Peer::Loom,
            }
        );
        assert_eq!((specs[1].id(), specs[1].release, specs[1].targets.len()), ("oneshot-0.1.13".to_string(), false, 0));
        assert_eq!((&specs[1].filter[..], specs[1].switch), (&["loom".to_string()][..], Switch::Patch));
        let selected: Vec<bool> =
            ["sync::tests::loom_mpsc::basic", "runtime::tests::loom_blocking::x", "util::rand::tests::seed"]
                .iter()
                .map(|n| specs[0].selects(n))
                .collect();
        assert_eq!(selected, [true, true, false]);
        assert_eq!((specs[1].peer, specs[2].peer, specs[2].switch), (Peer::Loom, Peer::Tokio, Switch::Rename));
    }

    #[test]
    fn names_the_bad_entry() {
        let err =
            parse("[[crate]]\nname = \"a\"\nversion = \"1\"\n[[crate]]\nname = \"b\"\nversion = 2\n").unwrap_err();
        assert_eq!(err.to_string(), "[[crate]] #2: `version` is not a string");
        let err = parse("[[crate]]\nname = \"a\"\nversion = \"1\"\nswitch = \"copy\"\n").unwrap_err();
        assert_eq!(err.to_string(), "[[crate]] #1: `switch` is `rename` or `patch`, not `copy`");
        let err = parse("[[crate]]\nname = \"a\"\nversion = \"1\"\npeer = \"std\"\n").unwrap_err();
        assert_eq!(err.to_string(), "[[crate]] #1: `peer` is `loom`, `tokio` or `parking_lot`, not `std`");
        let err =
            parse("[[crate]]\nname = \"a\"\nversion = \"1\"\npeer = \"tokio\"\nswitch = \"patch\"\n").unwrap_err();
        assert_eq!(err.to_string(), "[[crate]] #1: `switch = \"patch\"` is for loom crates; a tokio crate is renamed");
        let err = parse("[[crate]]\nname = \"a\"\nversion = \"1\"\nfilter = [1]\n").unwrap_err();
        assert_eq!(err.to_string(), "[[crate]] #1: `filter` is not a string or an array of strings");
        let err = parse("[[crate]]\nname = \"a\"\nversion = \"1\"\n[[crate.mutation]]\nname = \"m\"\n").unwrap_err();
        assert_eq!(err.to_string(), "[[crate]] #1: [[crate.mutation]] #1: no `file`");
    }
}
