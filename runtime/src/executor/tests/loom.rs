//! The models under loom (`RUSTFLAGS="--cfg samaritan_loom"`); loom panics with the
//! failing interleaving when one fails or deadlocks.

use super::{model, models, PREEMPTIONS};

#[test]
fn loom_a_spawn_racing_a_parking_worker_is_never_lost() {
    model(PREEMPTIONS, models::notify_racing_park);
}

#[test]
fn loom_two_workers_poll_each_task_exactly_once() {
    model(PREEMPTIONS, models::two_workers_run_each_task_once);
}

#[test]
fn loom_a_wake_racing_the_poll_polls_the_task_again_once() {
    model(PREEMPTIONS, models::wake_racing_poll);
}

#[test]
fn loom_a_wake_racing_completion_queues_nothing() {
    model(PREEMPTIONS, models::wake_racing_completion);
}

#[test]
fn loom_an_abort_racing_completion_cancels_or_completes() {
    models::ABORT_OUTCOMES.lock().unwrap().clear();
    model(PREEMPTIONS, models::abort_racing_completion);
    let seen: Vec<_> = models::ABORT_OUTCOMES.lock().unwrap().iter().copied().collect();
    assert_eq!(seen, ["cancelled", "completed"]);
}

#[test]
fn loom_a_join_handle_dropped_racing_completion_drops_the_output_once() {
    model(PREEMPTIONS, models::join_drop_racing_completion);
}

#[test]
fn loom_a_spawn_racing_shutdown_is_cancelled_once() {
    model(PREEMPTIONS, models::spawn_racing_shutdown);
}

#[test]
fn loom_shutdown_racing_a_poll_leaves_the_task_to_its_runner() {
    model(PREEMPTIONS, models::shutdown_racing_a_poll);
}
