//! [`JoinSet`]: a set of tasks awaited in the order they finish.

use std::fmt;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use super::{AbortHandle, Id, JoinError, JoinHandle};
use crate::exploring;

/// A collection of tasks; same API as [`tokio::task::JoinSet`] for `new`,
/// `spawn`, `spawn_blocking`, `join_next`, `try_join_next`,
/// `poll_join_next` (each also `_with_id`), `join_all`, `abort_all`,
/// `shutdown`, `detach_all`, `len` and `is_empty`; not mapped: the
/// `_on` and `_local` spawns, which take tokio's runtime handle or
/// `LocalSet`.
///
/// A set made inside an exploration holds samaritan tasks and returns
/// them in the order they finished, as tokio's does: each task takes a
/// ticket from the set's counter when its future is done with (it
/// returned, panicked or was dropped by an abort), and `join_next` returns
/// the finished task with the lowest ticket. A set made outside an
/// exploration is tokio's. Dropping the set aborts its tasks.
pub struct JoinSet<T>(Set<T>);

/// The tasks, by executor.
enum Set<T> {
    Sim(Sim<T>),
    Tokio(tokio::task::JoinSet<T>),
}

/// A set of samaritan tasks.
struct Sim<T> {
    tasks: Vec<Task<T>>,
    /// The next ticket a finishing task takes.
    tickets: Arc<AtomicU64>,
}

/// A samaritan task of a set.
struct Task<T> {
    handle: JoinHandle<T>,
    /// Its ticket once its future is done with; `u64::MAX` before.
    ticket: Arc<AtomicU64>,
}

/// Takes a task's ticket when dropped: when the task's future returns,
/// unwinds or is dropped. Only one actor runs at a time, so the tickets
/// follow the order the tasks finish in the execution.
struct TakeTicket {
    mine: Arc<AtomicU64>,
    tickets: Arc<AtomicU64>,
}

impl Drop for TakeTicket {
    fn drop(&mut self) {
        self.mine.store(self.tickets.fetch_add(1, Ordering::SeqCst), Ordering::SeqCst);
    }
}

impl<T> Sim<T> {
    /// Polls task `i`, removing it from the set if it is done.
    fn poll_task(&mut self, i: usize, cx: &mut Context<'_>) -> Option<Result<(Id, T), JoinError>> {
        let id = self.tasks[i].handle.id();
        match Pin::new(&mut self.tasks[i].handle).poll(cx) {
            Poll::Ready(out) => {
                self.tasks.remove(i);
                Some(out.map(|v| (id, v)))
            }
            Poll::Pending => None,
        }
    }

    /// The index of the finished task that finished first, if any.
    fn first_finished(&self) -> Option<usize> {
        (0..self.tasks.len())
            .filter(|&i| self.tasks[i].handle.is_finished())
            .min_by_key(|&i| self.tasks[i].ticket.load(Ordering::SeqCst))
    }
}

impl<T> JoinSet<T> {
    /// Creates an empty set.
    pub fn new() -> Self {
        if exploring() {
            JoinSet(Set::Sim(Sim { tasks: Vec::new(), tickets: Arc::new(AtomicU64::new(0)) }))
        } else {
            JoinSet(Set::Tokio(tokio::task::JoinSet::new()))
        }
    }

    /// Returns the number of tasks in the set.
    pub fn len(&self) -> usize {
        match &self.0 {
            Set::Sim(s) => s.tasks.len(),
            Set::Tokio(s) => s.len(),
        }
    }

    /// Returns `true` if the set holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<T: 'static> JoinSet<T> {
    /// Aborts every task; each then joins as cancelled unless it had
    /// finished.
    pub fn abort_all(&mut self) {
        match &mut self.0 {
            Set::Sim(s) => s.tasks.iter().for_each(|t| t.handle.abort()),
            Set::Tokio(s) => s.abort_all(),
        }
    }

    /// Removes every task without aborting it.
    pub fn detach_all(&mut self) {
        match &mut self.0 {
            Set::Sim(s) => s.tasks.clear(),
            Set::Tokio(s) => s.detach_all(),
        }
    }

    /// Spawns `task` into the set (on the executor the set belongs to);
    /// returns a handle that aborts it.
    #[track_caller]
    pub fn spawn<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send,
    {
        match &mut self.0 {
            Set::Sim(s) => {
                let ticket = Arc::new(AtomicU64::new(u64::MAX));
                let take = TakeTicket { mine: ticket.clone(), tickets: s.tickets.clone() };
                let handle = JoinHandle::sim(samaritan::executor::spawn(async move {
                    let _take = take;
                    task.await
                }));
                let abort = handle.abort_handle();
                s.tasks.push(Task { handle, ticket });
                abort
            }
            Set::Tokio(s) => AbortHandle::tokio(s.spawn(task)),
        }
    }

    /// Spawns the blocking closure `f` into the set, on a thread of its
    /// own (a simulated one inside an exploration); returns a handle whose
    /// `abort` does nothing once `f` runs, as tokio's.
    #[track_caller]
    pub fn spawn_blocking<F>(&mut self, f: F) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send,
    {
        match &mut self.0 {
            Set::Sim(s) => {
                let ticket = Arc::new(AtomicU64::new(u64::MAX));
                let take = TakeTicket { mine: ticket.clone(), tickets: s.tickets.clone() };
                let handle = JoinHandle::sim(samaritan::executor::spawn_blocking(move || {
                    let _take = take;
                    f()
                }));
                let abort = handle.abort_handle();
                s.tasks.push(Task { handle, ticket });
                abort
            }
            Set::Tokio(s) => AbortHandle::tokio(s.spawn_blocking(f)),
        }
    }

    /// Waits for a task to finish and returns its output; `None` once the
    /// set is empty.
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        poll_fn(|cx| self.poll_join_next(cx)).await
    }

    /// Waits for a task to finish and returns its id and output; `None`
    /// once the set is empty.
    pub async fn join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        poll_fn(|cx| self.poll_join_next_with_id(cx)).await
    }

    /// Returns a finished task's output, if one has finished.
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        self.try_join_next_with_id().map(|r| r.map(|(_, v)| v))
    }

    /// Returns a finished task's id and output, if one has finished.
    pub fn try_join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        match &mut self.0 {
            Set::Sim(s) => {
                let i = s.first_finished()?;
                let waker = std::task::Waker::from(Arc::new(Noop));
                s.poll_task(i, &mut Context::from_waker(&waker))
            }
            Set::Tokio(s) => s.try_join_next_with_id().map(from_tokio),
        }
    }

    /// Polls for a finished task; `Ready(None)` when the set is empty.
    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        self.poll_join_next_with_id(cx).map(|o| o.map(|r| r.map(|(_, v)| v)))
    }

    /// Polls for a finished task, with its id; `Ready(None)` when the set
    /// is empty.
    pub fn poll_join_next_with_id(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<(Id, T), JoinError>>> {
        match &mut self.0 {
            Set::Sim(s) => {
                if s.tasks.is_empty() {
                    return Poll::Ready(None);
                }
                // The first finished, if any; then every task, which keeps
                // `cx`'s waker unless it is ready.
                let order = s.first_finished().into_iter().chain(0..s.tasks.len());
                for i in order {
                    if let Some(out) = s.poll_task(i, cx) {
                        return Poll::Ready(Some(out));
                    }
                }
                Poll::Pending
            }
            Set::Tokio(s) => s.poll_join_next_with_id(cx).map(|o| o.map(from_tokio)),
        }
    }

    /// Aborts every task and waits for all of them to finish.
    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }

    /// Waits for every task and returns their outputs in the order they
    /// finished.
    ///
    /// # Panics
    ///
    /// If a task panicked (with its payload) or was cancelled.
    pub async fn join_all(mut self) -> Vec<T> {
        let mut out = Vec::with_capacity(self.len());
        while let Some(r) = self.join_next().await {
            match r {
                Ok(v) => out.push(v),
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(e) => panic!("{e}"),
            }
        }
        out
    }
}

impl<T> Default for JoinSet<T> {
    fn default() -> Self {
        JoinSet::new()
    }
}

impl<T> Drop for JoinSet<T> {
    fn drop(&mut self) {
        if let Set::Sim(s) = &self.0 {
            s.tasks.iter().for_each(|t| t.handle.abort());
        }
    }
}

impl<T> fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinSet").field("len", &self.len()).finish()
    }
}

/// A tokio task's id and output, or its error, as this crate's.
fn from_tokio<T>(r: Result<(tokio::task::Id, T), tokio::task::JoinError>) -> Result<(Id, T), JoinError> {
    r.map(|(id, v)| (Id::tokio(id), v)).map_err(JoinError::from_tokio)
}

/// A waker that does nothing: a finished task's handle is ready at once.
struct Noop;

impl std::task::Wake for Noop {
    fn wake(self: Arc<Self>) {}
}
