//! `samaritan merge`: one verdict per test from the report files of a
//! search's shards (`SAMARITAN_REPORT`).

use std::path::PathBuf;
use std::process::ExitCode;

use samaritan_artifacts::json::{merge as merge_records, Record};

use crate::Failed;

/// Reads every report file in `files`, merges their records per test and
/// prints each verdict: exit status 0 when every test passed with all its
/// shards, 1 when one failed or is missing shards.
pub(crate) fn merge(files: &[PathBuf]) -> Result<ExitCode, Failed> {
    let mut records = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|err| {
            Failed::Input(format!("cannot read {}: {}", file.display(), crate::lowercase(&err.to_string())))
        })?;
        let read = Record::parse_lines(&text).map_err(|err| Failed::Input(format!("{}: {err}", file.display())))?;
        records.extend(read);
    }
    if records.is_empty() {
        return Err(Failed::Input("the report files hold no report".to_string()));
    }
    let merged = merge_records(&records);
    for test in &merged {
        print!("{test}");
    }
    let passed = merged.iter().filter(|m| m.is_pass()).count();
    println!("{passed} of {} tests passed ({} reports read)", merged.len(), records.len());
    Ok(if passed == merged.len() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
