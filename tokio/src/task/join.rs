//! [`JoinHandle`], [`AbortHandle`] and [`JoinError`]: samaritan's or
//! tokio's, whichever spawned the task.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::Id;

/// An owned permission to await a task's output; same API as
/// [`tokio::task::JoinHandle`].
/// Dropping it detaches the task.
pub struct JoinHandle<T>(Handle<T>);

/// Which executor runs the task.
enum Handle<T> {
    Sim(samaritan::executor::JoinHandle<T>),
    /// A tokio task, with the id this crate gave it (`id.rs`).
    Tokio(tokio::task::JoinHandle<T>, Id),
}

impl<T> JoinHandle<T> {
    pub(crate) fn sim(h: samaritan::executor::JoinHandle<T>) -> Self {
        JoinHandle(Handle::Sim(h))
    }

    pub(crate) fn tokio(h: tokio::task::JoinHandle<T>, id: Id) -> Self {
        JoinHandle(Handle::Tokio(h, id))
    }

    /// Cancels the task: awaiting the handle then gives a cancelled
    /// [`JoinError`], unless the task had finished.
    pub fn abort(&self) {
        match &self.0 {
            Handle::Sim(h) => h.abort(),
            Handle::Tokio(h, _) => h.abort(),
        }
    }

    /// Returns `true` once the task has finished (or was cancelled).
    pub fn is_finished(&self) -> bool {
        match &self.0 {
            Handle::Sim(h) => h.is_finished(),
            Handle::Tokio(h, _) => h.is_finished(),
        }
    }

    /// Returns a handle that aborts the task without owning its output.
    pub fn abort_handle(&self) -> AbortHandle {
        match &self.0 {
            Handle::Sim(h) => AbortHandle(Abort::Sim(h.abort_handle())),
            Handle::Tokio(h, id) => AbortHandle(Abort::Tokio(Arc::new(h.abort_handle()), *id)),
        }
    }

    /// Returns the task's id, the one [`id`](super::id) returns inside it.
    pub fn id(&self) -> Id {
        match &self.0 {
            Handle::Sim(h) => h.id(),
            Handle::Tokio(_, id) => *id,
        }
    }
}

/// Aborts a task without owning its output; same API as
/// [`tokio::task::AbortHandle`] for `abort`, `is_finished` and `id`.
#[derive(Clone)]
pub struct AbortHandle(Abort);

/// Which executor runs the task.
#[derive(Clone)]
enum Abort {
    Sim(samaritan::executor::AbortHandle),
    /// Behind an `Arc`: tokio's is `Clone` only in later versions.
    Tokio(Arc<tokio::task::AbortHandle>, Id),
}

impl AbortHandle {
    /// Aborts the task, as [`JoinHandle::abort`] does.
    pub fn abort(&self) {
        match &self.0 {
            Abort::Sim(h) => h.abort(),
            Abort::Tokio(h, _) => h.abort(),
        }
    }

    /// Returns `true` once the task has finished (or was cancelled).
    pub fn is_finished(&self) -> bool {
        match &self.0 {
            Abort::Sim(h) => h.is_finished(),
            Abort::Tokio(h, _) => h.is_finished(),
        }
    }

    /// Returns the task's id.
    pub fn id(&self) -> Id {
        match &self.0 {
            Abort::Sim(h) => h.id(),
            Abort::Tokio(_, id) => *id,
        }
    }
}

impl fmt::Debug for AbortHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortHandle")
            .field("id", &self.id())
            .field("finished", &self.is_finished())
            .finish_non_exhaustive()
    }
}

impl<T> Unpin for JoinHandle<T> {}

// As tokio's: a handle (and an abort handle) holds no state that a panic
// could leave half-changed for its owner to see; only the task's output,
// which it hands over whole or not at all.
impl<T> UnwindSafe for JoinHandle<T> {}
impl<T> RefUnwindSafe for JoinHandle<T> {}
impl UnwindSafe for AbortHandle {}
impl RefUnwindSafe for AbortHandle {}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.0 {
            Handle::Sim(h) => {
                let id = h.id();
                Pin::new(h).poll(cx).map_err(|e| JoinError(Error::Sim(e, id)))
            }
            Handle::Tokio(h, id) => {
                let id = *id;
                Pin::new(h).poll(cx).map_err(|e| JoinError(Error::Tokio(e, id)))
            }
        }
    }
}

impl<T> fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let executor = match &self.0 {
            Handle::Sim(_) => "samaritan",
            Handle::Tokio(..) => "tokio",
        };
        f.debug_struct("JoinHandle").field("id", &self.id()).field("executor", &executor).finish_non_exhaustive()
    }
}

/// Why a task gave no output: it panicked or was cancelled; same API as
/// [`tokio::task::JoinError`].
pub struct JoinError(Error);

/// The error of the executor that ran the task (and, for samaritan's, the
/// task's id, which its error does not carry).
enum Error {
    Sim(samaritan::executor::JoinError, samaritan::executor::Id),
    Tokio(tokio::task::JoinError, Id),
}

impl JoinError {
    /// Returns `true` if the task was cancelled.
    pub fn is_cancelled(&self) -> bool {
        match &self.0 {
            Error::Sim(e, _) => e.is_cancelled(),
            Error::Tokio(e, _) => e.is_cancelled(),
        }
    }

    /// Returns `true` if the task panicked.
    pub fn is_panic(&self) -> bool {
        match &self.0 {
            Error::Sim(e, _) => e.is_panic(),
            Error::Tokio(e, _) => e.is_panic(),
        }
    }

    /// Returns the panic's payload.
    ///
    /// # Panics
    ///
    /// If the task was cancelled.
    #[track_caller]
    pub fn into_panic(self) -> Box<dyn Any + Send + 'static> {
        match self.0 {
            Error::Sim(e, _) => e.into_panic(),
            Error::Tokio(e, _) => e.into_panic(),
        }
    }

    /// Returns the id of the task that gave this error.
    pub fn id(&self) -> Id {
        match &self.0 {
            Error::Sim(_, id) => *id,
            Error::Tokio(_, id) => *id,
        }
    }

    /// Returns the panic's payload, or the error itself if the task was
    /// cancelled.
    pub fn try_into_panic(self) -> Result<Box<dyn Any + Send + 'static>, JoinError> {
        match self.0 {
            Error::Sim(e, id) => e.try_into_panic().map_err(|e| JoinError(Error::Sim(e, id))),
            Error::Tokio(e, id) => e.try_into_panic().map_err(|e| JoinError(Error::Tokio(e, id))),
        }
    }
}

/// A panic payload's message, when it is a string.
fn message(payload: &(dyn Any + Send)) -> Option<&str> {
    payload.downcast_ref::<&str>().copied().or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}

/// Whether a samaritan task's error is a panic, and its message if any.
fn panic_message(e: &samaritan::executor::JoinError) -> Option<Option<&str>> {
    match e {
        samaritan::executor::JoinError::Panic(payload) => Some(message(payload.as_ref())),
        _ => None,
    }
}

/// tokio's words: "task 3 was cancelled", "task 3 panicked with message
/// \"boom\"".
impl fmt::Display for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Error::Sim(e, id) => match panic_message(e) {
                None => write!(f, "task {id} was cancelled"),
                Some(Some(message)) => write!(f, "task {id} panicked with message {message:?}"),
                Some(None) => write!(f, "task {id} panicked"),
            },
            Error::Tokio(e, id) => f.write_str(&with_our_id(e.to_string(), *id)),
        }
    }
}

/// tokio's form: `JoinError::Cancelled(Id(3))`, `JoinError::Panic(Id(3), "boom", ...)`.
impl fmt::Debug for JoinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Error::Sim(e, id) => match panic_message(e) {
                None => write!(f, "JoinError::Cancelled({id:?})"),
                Some(Some(message)) => write!(f, "JoinError::Panic({id:?}, {message:?}, ...)"),
                Some(None) => write!(f, "JoinError::Panic({id:?}, ...)"),
            },
            Error::Tokio(e, id) => f.write_str(&with_our_id(format!("{e:?}"), *id)),
        }
    }
}

/// tokio's words for a tokio task's error with the id this crate gave the
/// task in place of tokio's own: "task 7 was cancelled" and
/// "JoinError::Cancelled(Id(7))" name tokio's id, which `JoinError::id`
/// does not return.
fn with_our_id(text: String, id: Id) -> String {
    if let Some((_, tail)) = text.strip_prefix("task ").and_then(|rest| rest.split_once(' ')) {
        return format!("task {id} {tail}");
    }
    match text.find("Id(").and_then(|start| Some((start, start + text[start..].find(')')?))) {
        Some((start, end)) => format!("{}{id:?}{}", &text[..start], &text[end + 1..]),
        None => text,
    }
}

impl std::error::Error for JoinError {}

// SAFETY: `JoinError` is `Sync` as tokio's is (so `handle.await?` goes
// into `Box<dyn Error + Send + Sync>` and `anyhow::Error`). The only
// part that is not `Sync` is a panic's payload (`Box<dyn Any + Send>`),
// which no method reaches through `&self` but to downcast it to `&str`
// or `String` for `Display` and `Debug` (both `Sync`: what tokio's own
// `SyncWrapper::downcast_ref_sync` allows); the payload itself leaves
// only by value (`into_panic`, `try_into_panic`).
unsafe impl Sync for JoinError {}

impl From<JoinError> for std::io::Error {
    fn from(e: JoinError) -> Self {
        std::io::Error::other(e.to_string())
    }
}
