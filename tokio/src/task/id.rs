//! [`Id`], [`id`] and [`try_id`]: samaritan's task ids inside an
//! exploration, tokio's outside.

use std::fmt;

use crate::exploring;

/// Identifies a task among those alive; same API as [`tokio::task::Id`]
/// (`Clone`, `Copy`, `Eq`, `Ord`, `Hash`, `Debug`, `Display`).
///
/// Inside an exploration a runtime numbers its tasks from 1, so a task
/// has the same id in every execution that spawns it in the same order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(Repr);

/// Whose id it is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Repr {
    Sim(samaritan::executor::Id),
    Tokio(tokio::task::Id),
}

impl Id {
    pub(crate) fn sim(id: samaritan::executor::Id) -> Id {
        Id(Repr::Sim(id))
    }

    pub(crate) fn tokio(id: tokio::task::Id) -> Id {
        Id(Repr::Tokio(id))
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Sim(id) => id.fmt(f),
            Repr::Tokio(id) => id.fmt(f),
        }
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Sim(id) => id.fmt(f),
            Repr::Tokio(id) => id.fmt(f),
        }
    }
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
/// [`tokio::task::try_id`].
pub fn try_id() -> Option<Id> {
    if exploring() {
        samaritan::executor::try_id().map(Id::sim)
    } else {
        tokio::task::try_id().map(Id::tokio)
    }
}
