//! tokio's test clock (`pause`, `resume`, `advance`, with the `test-util`
//! feature): inside an exploration, where time is virtual and behaves as
//! a paused clock already, `pause` and `resume` do nothing and `advance`
//! sleeps; outside one they are tokio's.

use std::time::Duration;

use crate::exploring;

/// Pauses time; same API as [`tokio::time::pause`]. Does nothing inside
/// an exploration, whose clock already stands still while a task can run.
#[track_caller]
pub fn pause() {
    if !exploring() {
        tokio::time::pause();
    }
}

/// Resumes time; same API as [`tokio::time::resume`]. Does nothing inside
/// an exploration.
#[track_caller]
pub fn resume() {
    if !exploring() {
        tokio::time::resume();
    }
}

/// Moves time forward by `duration`, firing the timers due meanwhile; same
/// API as [`tokio::time::advance`]. Inside an exploration the calling task
/// sleeps `duration` of virtual time, during which the other tasks' timers
/// fire in order.
#[track_caller]
pub fn advance(duration: Duration) -> impl std::future::Future<Output = ()> {
    let sim = if exploring() { Some(super::sleep(duration)) } else { None };
    async move {
        match sim {
            Some(sleep) => sleep.await,
            None => tokio::time::advance(duration).await,
        }
    }
}
