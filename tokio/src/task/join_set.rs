//! [`JoinSet`]: a set of tasks awaited in the order they finish.

use std::fmt;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use super::{AbortHandle, Id, JoinError, JoinHandle};

/// A collection of tasks; same API as [`tokio::task::JoinSet`] for `new`,
/// `spawn`, `spawn_blocking`, `join_next`, `try_join_next`,
/// `poll_join_next` (each also `_with_id`), `join_all`, `abort_all`,
/// `shutdown`, `detach_all`, `len` and `is_empty`; not mapped: the
/// `_on` and `_local` spawns, which take tokio's runtime handle or
/// `LocalSet`.
///
/// One implementation for both executors: the set holds [`JoinHandle`]s
/// of this crate's [`spawn`](super::spawn), so each task runs where a
/// spawn at that moment would (on samaritan inside an exploration, on
/// tokio outside). It returns tasks in the order they finished, as
/// tokio's does: each task takes a ticket from the set's counter when its
/// future is done with (it returned, panicked or was dropped by an
/// abort), and `join_next` returns the finished task with the lowest
/// ticket. Dropping the set aborts its tasks.
pub struct JoinSet<T> {
    tasks: Vec<Task<T>>,
    /// The next ticket a finishing task takes.
    tickets: Arc<AtomicU64>,
}

/// A task of a set.
struct Task<T> {
    handle: JoinHandle<T>,
    /// Its ticket once its future is done with; `u64::MAX` before.
    ticket: Arc<AtomicU64>,
}

/// Takes a task's ticket when dropped: when the task's future returns,
/// unwinds or is dropped. Inside an exploration one actor runs at a time,
/// so the tickets follow the order the tasks finish in the execution; on
/// tokio the `SeqCst` counter orders the finishes across workers.
struct TakeTicket {
    mine: Arc<AtomicU64>,
    tickets: Arc<AtomicU64>,
}

impl Drop for TakeTicket {
    fn drop(&mut self) {
        self.mine.store(self.tickets.fetch_add(1, Ordering::SeqCst), Ordering::SeqCst);
    }
}

impl<T> JoinSet<T> {
    /// Creates an empty set.
    pub fn new() -> Self {
        JoinSet { tasks: Vec::new(), tickets: Arc::new(AtomicU64::new(0)) }
    }

    /// Returns the number of tasks in the set.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Returns `true` if the set holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A ticket for a task about to join the set, and its own slot.
    fn ticket(&self) -> (TakeTicket, Arc<AtomicU64>) {
        let mine = Arc::new(AtomicU64::new(u64::MAX));
        (TakeTicket { mine: mine.clone(), tickets: self.tickets.clone() }, mine)
    }

    /// Adds a spawned task; returns a handle that aborts it.
    fn push(&mut self, handle: JoinHandle<T>, ticket: Arc<AtomicU64>) -> AbortHandle {
        let abort = handle.abort_handle();
        self.tasks.push(Task { handle, ticket });
        abort
    }

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

impl<T: 'static> JoinSet<T> {
    /// Aborts every task; each then joins as cancelled unless it had
    /// finished.
    pub fn abort_all(&mut self) {
        self.tasks.iter().for_each(|t| t.handle.abort());
    }

    /// Removes every task without aborting it.
    pub fn detach_all(&mut self) {
        self.tasks.clear();
    }

    /// Spawns `task` into the set; returns a handle that aborts it.
    #[track_caller]
    pub fn spawn<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send,
    {
        let (take, ticket) = self.ticket();
        let handle = super::spawn(async move {
            let _take = take;
            task.await
        });
        self.push(handle, ticket)
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
        let (take, ticket) = self.ticket();
        let handle = super::spawn_blocking(move || {
            let _take = take;
            f()
        });
        self.push(handle, ticket)
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
        let i = self.first_finished()?;
        let waker = std::task::Waker::from(Arc::new(Noop));
        self.poll_task(i, &mut Context::from_waker(&waker))
    }

    /// Polls for a finished task; `Ready(None)` when the set is empty.
    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        self.poll_join_next_with_id(cx).map(|o| o.map(|r| r.map(|(_, v)| v)))
    }

    /// Polls for a finished task, with its id; `Ready(None)` when the set
    /// is empty.
    pub fn poll_join_next_with_id(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<(Id, T), JoinError>>> {
        if self.tasks.is_empty() {
            return Poll::Ready(None);
        }
        // The first finished, if any; then every task, which keeps `cx`'s
        // waker unless it is ready.
        let order = self.first_finished().into_iter().chain(0..self.tasks.len());
        for i in order {
            if let Some(out) = self.poll_task(i, cx) {
                return Poll::Ready(Some(out));
            }
        }
        Poll::Pending
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
        self.tasks.iter().for_each(|t| t.handle.abort());
    }
}

impl<T> fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JoinSet").field("len", &self.len()).finish()
    }
}

/// A waker that does nothing: a finished task's handle is ready at once.
struct Noop;

impl std::task::Wake for Noop {
    fn wake(self: Arc<Self>) {}
}
