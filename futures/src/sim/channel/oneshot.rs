//! `futures::channel::oneshot` under `sim`: samaritan's async oneshot
//! channel with futures' API (`Canceled`, `cancellation`, `try_recv`
//! returning `Ok(None)` while the value has not come).

use std::fmt;
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

pub use futures::channel::oneshot::Canceled;
use futures::future::FusedFuture;
use samaritan::sync::oneshot;

/// Creates a channel for one value.
///
/// ```
/// extern crate samaritan_futures as futures;
/// use futures::channel::oneshot;
///
/// let (tx, rx) = oneshot::channel();
/// tx.send(3).unwrap();
/// assert_eq!(futures::executor::block_on(rx), Ok(3));
/// ```
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = oneshot::channel();
    let complete = Arc::new(AtomicBool::new(false));
    (Sender { inner: Some(tx), complete: complete.clone() }, Receiver { inner: rx, done: false, complete })
}

/// The sending side.
pub struct Sender<T> {
    /// `None` only while `send` consumes it.
    inner: Option<oneshot::Sender<T>>,
    /// futures' flag, shown by `Debug`: a value was sent, or a side went.
    complete: Arc<AtomicBool>,
}

/// The receiving side: a future of the value, or [`Canceled`] if the
/// sender went without sending.
pub struct Receiver<T> {
    inner: oneshot::Receiver<T>,
    done: bool,
    complete: Arc<AtomicBool>,
}

impl<T> Sender<T> {
    fn inner(&self) -> &oneshot::Sender<T> {
        self.inner.as_ref().expect("a sender holds its channel until it sends")
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.complete.store(true, Ordering::SeqCst);
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.complete.store(true, Ordering::SeqCst);
    }
}

impl<T> Sender<T> {
    /// Sends the value, or gives it back if the receiver is gone.
    #[track_caller]
    pub fn send(mut self, value: T) -> Result<(), T> {
        self.complete.store(true, Ordering::SeqCst);
        self.inner.take().expect("a sender holds its channel until it sends").send(value)
    }

    /// Whether the receiver is gone (or closed).
    #[track_caller]
    pub fn is_canceled(&self) -> bool {
        self.inner().is_closed()
    }

    /// Ready once the receiver is gone.
    #[track_caller]
    pub fn poll_canceled(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let inner = self.inner.as_mut().expect("a sender holds its channel until it sends");
        pin!(inner.closed()).poll(cx)
    }

    /// A future that completes once the receiver is gone.
    pub fn cancellation(&mut self) -> Cancellation<'_, T> {
        Cancellation { sender: self }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").field("complete", &self.complete.load(Ordering::SeqCst)).finish()
    }
}

/// [`Sender::cancellation`]'s future.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Cancellation<'a, T> {
    sender: &'a mut Sender<T>,
}

impl<T> Future for Cancellation<'_, T> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.get_mut().sender.poll_canceled(cx)
    }
}

impl<T> fmt::Debug for Cancellation<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Cancellation { .. }")
    }
}

impl<T> Receiver<T> {
    /// Closes the channel: the sender's `send` fails from now on.
    #[track_caller]
    pub fn close(&mut self) {
        self.complete.store(true, Ordering::SeqCst);
        self.inner.close();
    }

    /// The value if it came (`Ok(Some)`), `Ok(None)` if not yet, or
    /// `Canceled` if the sender went without sending.
    #[track_caller]
    pub fn try_recv(&mut self) -> Result<Option<T>, Canceled> {
        match self.inner.try_recv() {
            Ok(value) => {
                self.done = true;
                Ok(Some(value))
            }
            Err(oneshot::TryRecvError::Empty) => Ok(None),
            // `Closed`, and whatever samaritan's non-exhaustive error may
            // add: no value will come.
            Err(_) => {
                self.done = true;
                Err(Canceled)
            }
        }
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, Canceled>;

    #[track_caller]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T, Canceled>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll(cx) {
            Poll::Ready(result) => {
                this.done = true;
                Poll::Ready(result.map_err(|_| Canceled))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T> FusedFuture for Receiver<T> {
    fn is_terminated(&self) -> bool {
        self.done
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver").field("complete", &self.complete.load(Ordering::SeqCst)).finish()
    }
}
