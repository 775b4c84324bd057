//! [`JoinSet`]: a set of tasks awaited in the order they finish.

use std::fmt;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll};

use super::{JoinError, JoinHandle};
use crate::exploring;

/// A collection of tasks; same API as [`tokio::task::JoinSet`] for `new`,
/// `spawn` (which returns nothing here, not an `AbortHandle`),
/// `join_next`, `try_join_next`, `poll_join_next`, `join_all`,
/// `abort_all`, `shutdown`, `detach_all`, `len` and `is_empty`.
///
/// A set made inside an exploration holds samaritan tasks: `join_next`
/// polls them in the order they were spawned and returns the first
/// finished, so which of two finished tasks comes first follows that
/// order (which tasks have finished is what the exploration varies).
/// A set made outside one is tokio's. Dropping the set aborts its tasks.
pub struct JoinSet<T>(Set<T>);

/// The tasks, by executor.
enum Set<T> {
    Sim(Vec<JoinHandle<T>>),
    Tokio(tokio::task::JoinSet<T>),
}

impl<T> JoinSet<T> {
    /// Creates an empty set.
    pub fn new() -> Self {
        if exploring() {
            JoinSet(Set::Sim(Vec::new()))
        } else {
            JoinSet(Set::Tokio(tokio::task::JoinSet::new()))
        }
    }

    /// Returns the number of tasks in the set.
    pub fn len(&self) -> usize {
        match &self.0 {
            Set::Sim(v) => v.len(),
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
            Set::Sim(v) => v.iter().for_each(JoinHandle::abort),
            Set::Tokio(s) => s.abort_all(),
        }
    }

    /// Removes every task without aborting it.
    pub fn detach_all(&mut self) {
        match &mut self.0 {
            Set::Sim(v) => v.clear(),
            Set::Tokio(s) => s.detach_all(),
        }
    }

    /// Spawns `task` into the set (on the executor the set belongs to).
    #[track_caller]
    pub fn spawn<F>(&mut self, task: F)
    where
        F: Future<Output = T> + Send + 'static,
        T: Send,
    {
        match &mut self.0 {
            Set::Sim(v) => v.push(JoinHandle::sim(samaritan::executor::spawn(task))),
            Set::Tokio(s) => {
                s.spawn(task);
            }
        }
    }

    /// Waits for a task to finish and returns its output; `None` once the
    /// set is empty.
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        poll_fn(|cx| self.poll_join_next(cx)).await
    }

    /// Returns a finished task's output, if one has finished.
    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        match &mut self.0 {
            Set::Sim(v) => {
                let i = v.iter().position(JoinHandle::is_finished)?;
                let waker = std::task::Waker::from(std::sync::Arc::new(Noop));
                match Pin::new(&mut v[i]).poll(&mut Context::from_waker(&waker)) {
                    Poll::Ready(out) => {
                        v.remove(i);
                        Some(out)
                    }
                    Poll::Pending => None,
                }
            }
            Set::Tokio(s) => s.try_join_next().map(|r| r.map_err(JoinError::from_tokio)),
        }
    }

    /// Polls for a finished task; `Ready(None)` when the set is empty.
    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        match &mut self.0 {
            Set::Sim(v) => {
                if v.is_empty() {
                    return Poll::Ready(None);
                }
                for i in 0..v.len() {
                    if let Poll::Ready(out) = Pin::new(&mut v[i]).poll(cx) {
                        v.remove(i);
                        return Poll::Ready(Some(out));
                    }
                }
                Poll::Pending
            }
            Set::Tokio(s) => s.poll_join_next(cx).map(|o| o.map(|r| r.map_err(JoinError::from_tokio))),
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
        if let Set::Sim(v) = &self.0 {
            v.iter().for_each(JoinHandle::abort);
        }
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
    fn wake(self: std::sync::Arc<Self>) {}
}
