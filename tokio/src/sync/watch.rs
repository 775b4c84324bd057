//! tokio's `watch` channel on samaritan's.
//!
//! Same API as [`tokio::sync::watch`] for `channel`,
//! `Sender::{send, send_replace, send_modify, send_if_modified, borrow,
//! subscribe, receiver_count, is_closed}` and `Receiver::{borrow,
//! borrow_and_update, has_changed, changed}` (and `Clone`).
//! `Sender::closed`, `wait_for` and `Ref::has_changed` are not mapped.

use std::fmt;
use std::future::Future;

use samaritan::sync::watch as chan;

pub use chan::Ref;

/// The errors of the channel: tokio's `SendError`, and a `RecvError` of
/// this crate's with tokio's message (tokio's cannot be made outside
/// tokio).
pub mod error {
    use std::fmt;

    pub use tokio::sync::watch::error::SendError;

    /// The sender is gone.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct RecvError(pub(super) ());

    impl fmt::Display for RecvError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("channel closed")
        }
    }

    impl std::error::Error for RecvError {}
}

use error::{RecvError, SendError};

/// Creates a channel holding `init`.
#[track_caller]
pub fn channel<T>(init: T) -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = chan::channel(init);
    (Sender(tx), Receiver(rx))
}

/// Publishes values.
pub struct Sender<T>(chan::Sender<T>);

/// Sees the latest value.
pub struct Receiver<T>(chan::Receiver<T>);

impl<T> Sender<T> {
    /// Publishes `value`; gives it back if there is no receiver.
    #[track_caller]
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        self.0.send(value).map_err(|e| SendError(e.0))
    }

    /// Publishes `value`, receivers or not, and returns the previous one.
    #[track_caller]
    pub fn send_replace(&self, value: T) -> T {
        self.0.send_replace(value)
    }

    /// Changes the value in place and publishes it, receivers or not.
    #[track_caller]
    pub fn send_modify(&self, modify: impl FnOnce(&mut T)) {
        self.0.send_modify(modify)
    }

    /// Changes the value in place and publishes it if `modify` returns
    /// true, receivers or not; returns what `modify` returned.
    #[track_caller]
    pub fn send_if_modified(&self, modify: impl FnOnce(&mut T) -> bool) -> bool {
        self.0.send_if_modified(modify)
    }

    /// Borrows the current value.
    #[track_caller]
    pub fn borrow(&self) -> Ref<'_, T> {
        self.0.borrow()
    }

    /// Creates a receiver that has seen the current value.
    #[track_caller]
    pub fn subscribe(&self) -> Receiver<T> {
        Receiver(self.0.subscribe())
    }

    /// Returns the number of receivers.
    #[track_caller]
    pub fn receiver_count(&self) -> usize {
        self.0.receiver_count()
    }

    /// Returns `true` if there is no receiver.
    #[track_caller]
    pub fn is_closed(&self) -> bool {
        self.0.is_closed()
    }
}

impl<T> Receiver<T> {
    /// Borrows the current value without marking it seen.
    #[track_caller]
    pub fn borrow(&self) -> Ref<'_, T> {
        self.0.borrow()
    }

    /// Borrows the current value and marks it seen.
    #[track_caller]
    pub fn borrow_and_update(&mut self) -> Ref<'_, T> {
        self.0.borrow_and_update()
    }

    /// Returns `true` if a value not seen yet was sent; fails once the
    /// sender is gone.
    #[track_caller]
    pub fn has_changed(&self) -> Result<bool, RecvError> {
        self.0.has_changed().map_err(|_| RecvError(()))
    }

    /// Waits for a value not seen yet and marks it seen; fails once the
    /// sender is gone and every value was seen.
    #[track_caller]
    pub fn changed(&mut self) -> impl Future<Output = Result<(), RecvError>> + '_ {
        let changed = self.0.changed();
        async move { changed.await.map_err(|_| RecvError(())) }
    }
}

impl<T> Clone for Receiver<T> {
    #[track_caller]
    fn clone(&self) -> Self {
        Receiver(self.0.clone())
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}
