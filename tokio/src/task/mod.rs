//! tokio's `task` module; under `sim`, [`spawn`], [`spawn_blocking`],
//! [`yield_now`], [`JoinHandle`], [`AbortHandle`], [`JoinError`], [`JoinSet`],
//! [`Id`], [`id`] and [`try_id`] are
//! samaritan's inside an exploration and tokio's outside one.
//!
//! The choice is made when the task is spawned (or the set created): a
//! task spawned inside an exploration is an actor of samaritan's executor,
//! one spawned outside it runs on the tokio runtime of the calling thread.
//! Everything else (`LocalSet`, `spawn_local`, `block_in_place`,
//! task-locals, ...) is tokio's and not simulated.

mod id;
mod join;
mod join_set;

use std::future::Future;

pub use tokio::task::*;

pub use id::{id, try_id, Id};
pub use join::{AbortHandle, JoinError, JoinHandle};
pub use join_set::JoinSet;

use crate::exploring;

/// Spawns a task; same API as [`tokio::task::spawn`]. Inside an exploration
/// it is an actor of samaritan's executor.
#[track_caller]
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    if exploring() {
        JoinHandle::sim(samaritan::executor::spawn(future))
    } else {
        let id = id::next_tokio();
        JoinHandle::tokio(tokio::task::spawn(id::scoped(id, future)), id)
    }
}

/// Runs a blocking closure on a thread of its own; same API as
/// [`tokio::task::spawn_blocking`]. Inside an exploration the thread is a
/// simulated one.
#[track_caller]
pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    if exploring() {
        JoinHandle::sim(samaritan::executor::spawn_blocking(f))
    } else {
        JoinHandle::tokio(tokio::task::spawn_blocking(f), id::next_tokio())
    }
}

/// Yields to the scheduler once; same API as [`tokio::task::yield_now`].
/// Inside an exploration, a yield for samaritan's fair scheduler.
#[track_caller]
pub fn yield_now() -> impl Future<Output = ()> + Send + Sync {
    let sim = if exploring() { Some(samaritan::executor::yield_now()) } else { None };
    async move {
        match sim {
            Some(y) => y.await,
            None => tokio::task::yield_now().await,
        }
    }
}
