//! Stacks the OS cannot map: a spawned actor's is the spawner's error (see
//! the runtime's `thread::Builder::spawn`), the main actor's a panic of the
//! exploration that names it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use samaritan_sim::{explore, Config, Replay, Schedule};

#[test]
fn a_main_stack_that_cannot_be_had_is_named_in_the_panic() {
    let mut config = Config::default();
    config.stack_size = 1 << 62;
    let schedule = Schedule {
        strategy: "replay".into(),
        seed: None,
        choices: Vec::new(),
        fingerprint: 0,
        fair: true,
        memory_model: samaritan_sim::MemoryModel::Sc,
    };
    let run = || explore(config.clone(), Box::new(Replay::new(schedule.clone())), Arc::new(|| {}));
    let payload = catch_unwind(AssertUnwindSafe(run)).expect_err("no exploration without a main stack");
    let message = payload.downcast_ref::<String>().expect("a message");
    let expected = "samaritan: the exploring thread panicked: cannot allocate the main thread's coroutine stack of 4611686018427387904 bytes: ";
    assert!(message.starts_with(expected), "{message}");
}
