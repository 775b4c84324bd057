//! `SAMARITAN_REPLAY` end to end: `check` replays the token instead of
//! exploring. One test in its own binary, since it sets the environment.
#![cfg(feature = "sim")]

use std::panic::{catch_unwind, AssertUnwindSafe};

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::{thread, Builder, Outcome};

fn lost_update() {
    let n = Arc::new(AtomicUsize::new(0));
    let n2 = n.clone();
    let t = thread::spawn(move || {
        let v = n2.load(Ordering::SeqCst);
        n2.store(v + 1, Ordering::SeqCst);
    });
    let v = n.load(Ordering::SeqCst);
    n.store(v + 1, Ordering::SeqCst);
    t.join().unwrap();
    assert_eq!(n.load(Ordering::SeqCst), 2, "an increment was lost");
}

/// Runs `f`, which must panic, and returns its panic message.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("a failure panics");
    payload.downcast_ref::<String>().cloned().expect("a report is a String")
}

#[test]
fn check_and_replay_reproduce_a_failure_from_its_token() {
    let found = Builder::new().explore(lost_update).unwrap();
    assert!(matches!(found.outcome, Outcome::Panic { .. }), "{found}");
    let token = found.token().unwrap().to_string();
    let trace = found.failure.as_ref().unwrap().trace.to_string();

    // `replay` in code.
    let replayed = panic_message(|| samaritan::replay(&token, lost_update));
    assert!(replayed.contains(&trace), "{replayed}");
    assert!(replayed.contains(&format!("replay token: {token}")), "{replayed}");

    // The environment variable: `check` replays one execution.
    std::env::set_var("SAMARITAN_REPLAY", &token);
    let checked = panic_message(|| samaritan::check(lost_update));
    std::env::remove_var("SAMARITAN_REPLAY");
    assert!(
        checked.contains("samaritan replayed a failing schedule (found by strategy portfolio/cb-por)"),
        "{checked}"
    );
    assert!(checked.contains(&trace), "{checked}");
    assert!(checked.contains(&format!(
        "replay with:  SAMARITAN_REPLAY={token} cargo test check_and_replay_reproduce_a_failure_from_its_token -- --exact"
    )));

    // A bad token in the environment is a clear error, not a search.
    std::env::set_var("SAMARITAN_REPLAY", "s2_garbagA");
    let bad = panic_message(|| samaritan::check(lost_update));
    std::env::remove_var("SAMARITAN_REPLAY");
    assert_eq!(bad, "samaritan: replay token checksum does not match: it was altered or cut short");
}
