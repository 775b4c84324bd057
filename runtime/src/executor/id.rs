//! Task ids: [`Id`], and [`id`] / [`try_id`] for the task being polled.
//!
//! Invariants:
//!
//! - Outside an exploration, ids come from one process-wide counter, so no
//!   two tasks of any runtime (nor `spawn_blocking` closures) share one.
//! - Inside an exploration, a runtime numbers its own tasks from 1 (as
//!   their actors `task-N` are named), so an execution and its replay give
//!   every task the same id; two runtimes of one execution may share ids.
//! - The current task is the one whose `poll` runs on this thread (this
//!   actor, inside an exploration); a `block_on` future is no task.

use crate::concurrency::thread_local;
use std::cell::Cell;
use std::fmt;
use std::num::NonZeroU64;
// The counter hands out numbers, which no model needs to see: std's.
use std::sync::atomic::{AtomicU64, Ordering};

/// Identifies a task (or a `spawn_blocking` closure) among those alive:
/// [`JoinHandle::id`](super::JoinHandle::id), [`id`].
///
/// ```
/// # extern crate samaritan_runtime as samaritan;
/// use samaritan::executor::{self, Builder};
///
/// let rt = Builder::current_thread().build().unwrap();
/// rt.block_on(async {
///     let task = executor::spawn(async { executor::id() });
///     let id = task.id();
///     assert_eq!(task.await.unwrap(), id);
///     assert_eq!(executor::try_id(), None, "a block_on future is no task");
/// });
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(NonZeroU64);

impl Id {
    /// The id numbered `n` from 0 by its counter.
    pub(crate) fn from_count(n: u64) -> Id {
        Id(NonZeroU64::new(n.wrapping_add(1)).unwrap_or(NonZeroU64::MIN))
    }

    /// A fresh id from the process-wide counter.
    pub(crate) fn next() -> Id {
        Id::from_count(next_count())
    }

    /// The id as a number (what `Display` shows).
    pub fn as_u64(self) -> u64 {
        self.0.get()
    }

    /// A fresh id from the process-wide counter, for a task another
    /// executor runs (samaritan-tokio's tokio tasks): not an API.
    #[doc(hidden)]
    pub fn __next() -> Id {
        Id::next()
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id({})", self.0)
    }
}

/// The next count of the process-wide counter (from 0).
pub(crate) fn next_count() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

thread_local! {
    /// The task being polled on this thread, outside an exploration.
    static CURRENT: Cell<Option<Id>> = const { Cell::new(None) };
}

/// Makes `id` the current task while the returned guard lives.
pub(crate) fn enter(id: Id) -> Current {
    Current { previous: set(Some(id)) }
}

/// Restores the previous current task when dropped.
pub(crate) struct Current {
    previous: Option<Id>,
}

impl Drop for Current {
    fn drop(&mut self) {
        set(self.previous);
    }
}

/// Sets the current task, returning the previous one.
fn set(id: Option<Id>) -> Option<Id> {
    CURRENT.with(|c| c.replace(id))
}

/// Returns the id of the task being polled, or `None` outside a task (a
/// `block_on` future, a `spawn_blocking` closure, a plain thread).
pub fn try_id() -> Option<Id> {
    #[cfg(feature = "sim")]
    if samaritan_sim::rt::active() && !cfg!(test) {
        return super::sim::current_id();
    }
    CURRENT.with(Cell::get)
}

/// Returns the id of the task being polled.
///
/// # Panics
///
/// Outside a task; use [`try_id`] to get `None` instead.
#[track_caller]
pub fn id() -> Id {
    try_id().expect("can't get a task id when not inside a task")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_show_their_number_and_count_from_one() {
        let id = Id::from_count(4);
        assert_eq!((id.to_string(), format!("{id:?}"), id.as_u64()), ("5".into(), "Id(5)".into(), 5));
        assert!(Id::from_count(0) < Id::from_count(1));
        assert_ne!(Id::next(), Id::next());
    }

    #[test]
    fn the_current_id_is_set_while_the_guard_lives() {
        assert_eq!(try_id(), None);
        {
            let _outer = enter(Id::from_count(1));
            {
                let _inner = enter(Id::from_count(2));
                assert_eq!(id(), Id::from_count(2));
            }
            assert_eq!(try_id(), Some(Id::from_count(1)));
        }
        assert_eq!(try_id(), None);
    }
}
