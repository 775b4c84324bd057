//! Snapshots of what samaritan reports on the async examples: the verdict,
//! the trace and the summary.
#![cfg(feature = "sim")]

use samaritan::{Builder, SearchStrategy};

#[path = "../../examples/lost_wakeup.rs"]
#[allow(dead_code)]
mod lost_wakeup;

#[path = "../../examples/select_drop.rs"]
#[allow(dead_code)]
mod select_drop;

#[path = "../../examples/notify_permit.rs"]
#[allow(dead_code)]
mod notify_permit;

/// Explores `f` with DFS and snapshots the report as users see it.
#[track_caller]
fn check(name: &str, f: fn()) {
    let report = Builder::new().strategy(SearchStrategy::Dfs).explore(f).expect("valid settings");
    insta::with_settings!({
        description => "strategy Dfs",
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, report.to_string());
    });
}

#[test]
fn lost_wakeup() {
    check("lost_wakeup", lost_wakeup::lost_wakeup);
}

#[test]
fn select_drop() {
    check("select_drop", select_drop::select_drop);
}

#[test]
fn notify_permit() {
    check("notify_permit", notify_permit::notify_permit);
}
