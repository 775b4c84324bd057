//! [`Id`], [`id`] and [`try_id`]: task ids for the tasks this crate
//! spawns, on either executor.
//!
//! Inside an exploration a task's id is samaritan's (a runtime numbers its
//! tasks from 1, the same in every execution). Outside one, [`spawn`] and
//! [`spawn_blocking`] number the tokio tasks they start from samaritan's
//! executor's process-wide counter and run each future inside a
//! task-local holding its id.
//! tokio's own ids are not used: the older tokio a lock file may pin has
//! none (1.40), or none that order (1.45), and this crate builds on it.
//!
//! [`spawn`]: super::spawn
//! [`spawn_blocking`]: super::spawn_blocking

use std::future::Future;

use crate::exploring;

/// Identifies a task among those alive; same API as [`tokio::task::Id`]
/// (`Clone`, `Copy`, `Eq`, `Ord`, `Hash`, `Debug` as `Id(5)`, `Display`
/// as `5`): samaritan's executor's id, which outside an exploration this
/// crate also gives the tokio tasks it spawns.
pub type Id = samaritan::executor::Id;

/// A fresh id for a task spawned on tokio.
pub(crate) fn next_tokio() -> Id {
    Id::__next()
}

tokio::task_local! {
    /// The id of the tokio task being polled, when this crate spawned it.
    static CURRENT: Id;
}

/// `future`, run with `id` as its task's id (a task spawned on tokio).
pub(crate) fn scoped<F: Future>(id: Id, future: F) -> impl Future<Output = F::Output> {
    CURRENT.scope(id, future)
}

/// Returns the id of the running task; same API as [`tokio::task::id`].
///
/// # Panics
///
/// Outside a task (a `block_on` future, a plain thread), as tokio's.
#[track_caller]
pub fn id() -> Id {
    try_id().expect("can't get a task id when not inside a task")
}

/// Returns the id of the running task, or `None` outside one; same API as
/// [`tokio::task::try_id`]. Outside an exploration, `None` also in a task
/// spawned on tokio by code that calls tokio directly (not this crate's
/// [`spawn`](super::spawn)).
pub fn try_id() -> Option<Id> {
    if exploring() {
        samaritan::executor::try_id()
    } else {
        CURRENT.try_with(|id| *id).ok()
    }
}
