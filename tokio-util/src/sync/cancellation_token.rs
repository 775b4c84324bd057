//! [`CancellationToken`]: tokio-util's tree of cancellation signals, on
//! samaritan's primitives, so that a cancel and the checks that race with
//! it are steps the explorer orders.
//!
//! Each token is a handle on a node; clones share it. A node holds its
//! `cancelled` flag (a samaritan atomic: every read and the write are
//! visible steps), a [`Notify`] that wakes the futures waiting for it, and,
//! under a samaritan mutex, its children. Invariants:
//! - `cancelled` goes from `false` to `true` once, under the node's
//!   children lock, which also hands the children over to the canceller:
//!   a child added before the cancel is cancelled by it, one added after
//!   finds the flag set and starts cancelled.
//! - A child holds its parent node (`_parent`), the parent its children
//!   weakly: a node whose tokens are all gone stays in the tree while it
//!   has live children, so a cancel further up still reaches them (as in
//!   tokio-util, where such a node's children move up to its parent).
//! - A waiting future makes its `Notified` before it reads the flag, so a
//!   cancel between the two is not lost (the `notify_waiters` after the
//!   write completes every `Notified` made before it).
//!
//! The token's methods are `#[track_caller]`, so their steps are named by
//! the caller's line in a trace.

use std::fmt;
use std::future::Future;
use std::hash::{Hash, Hasher};
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::task::{Context, Poll};

use samaritan::sync::atomic::AtomicBool;
use samaritan::sync::futures::Notified;
use samaritan::sync::{Mutex, Notify};

struct Node {
    cancelled: AtomicBool,
    notify: Notify,
    children: Mutex<Vec<Weak<Node>>>,
    /// Keeps the parent's node (and so the path up) alive; see the module
    /// invariants.
    _parent: Option<Arc<Node>>,
}

impl Node {
    #[track_caller]
    fn new(parent: Option<Arc<Node>>, cancelled: bool) -> Arc<Node> {
        Arc::new(Node {
            cancelled: AtomicBool::new(cancelled),
            notify: Notify::new(),
            children: Mutex::new(Vec::new()),
            _parent: parent,
        })
    }

    /// Cancels this node, then its subtree; a no-op if it already was.
    #[track_caller]
    fn cancel(&self) {
        let children = {
            let mut children = self.children.lock().unwrap_or_else(|e| e.into_inner());
            if self.cancelled.load(Ordering::SeqCst) {
                return;
            }
            self.cancelled.store(true, Ordering::SeqCst);
            std::mem::take(&mut *children)
        };
        self.notify.notify_waiters();
        for child in children.iter().filter_map(Weak::upgrade) {
            child.cancel();
        }
    }
}

/// A token that signals cancellation to its clones and its children, as
/// tokio-util's: [`cancel`](CancellationToken::cancel) sets it and every
/// child token below it; [`cancelled`](CancellationToken::cancelled)
/// waits for it.
///
/// ```
/// extern crate samaritan_tokio as tokio;
/// extern crate samaritan_tokio_util as tokio_util;
/// use tokio_util::sync::CancellationToken;
///
/// #[tokio::main(flavor = "current_thread")]
/// async fn main() {
///     let token = CancellationToken::new();
///     let child = token.child_token();
///     let worker = tokio::spawn(async move {
///         child.cancelled().await;
///         "stopped"
///     });
///     token.cancel();
///     assert_eq!(worker.await.unwrap(), "stopped");
///     assert!(token.child_token().is_cancelled());
/// }
/// ```
pub struct CancellationToken {
    node: Arc<Node>,
}

impl CancellationToken {
    /// Creates a token that is not cancelled, with no parent.
    #[track_caller]
    pub fn new() -> CancellationToken {
        CancellationToken { node: Node::new(None, false) }
    }

    /// Creates a child token: cancelled with this one (at once if this one
    /// already is), while cancelling the child leaves this one alone.
    #[track_caller]
    pub fn child_token(&self) -> CancellationToken {
        let mut children = self.node.children.lock().unwrap_or_else(|e| e.into_inner());
        if self.node.cancelled.load(Ordering::SeqCst) {
            return CancellationToken { node: Node::new(None, true) };
        }
        children.retain(|c| c.strong_count() > 0);
        let child = Node::new(Some(self.node.clone()), false);
        children.push(Arc::downgrade(&child));
        CancellationToken { node: child }
    }

    /// Cancels this token and every child token below it, and wakes the
    /// futures waiting for any of them.
    #[track_caller]
    pub fn cancel(&self) {
        self.node.cancel();
    }

    /// Returns `true` once this token is cancelled.
    #[track_caller]
    pub fn is_cancelled(&self) -> bool {
        self.node.cancelled.load(Ordering::SeqCst)
    }

    /// Returns a future that completes once this token is cancelled.
    pub fn cancelled(&self) -> WaitForCancellationFuture<'_> {
        WaitForCancellationFuture { token: self, notified: None }
    }

    /// [`cancelled`](CancellationToken::cancelled), owning the token.
    pub fn cancelled_owned(self) -> WaitForCancellationFutureOwned {
        WaitForCancellationFutureOwned { future: Box::pin(async move { self.cancelled().await }) }
    }

    /// Returns a guard that cancels this token when dropped, unless
    /// disarmed.
    pub fn drop_guard(self) -> DropGuard {
        DropGuard { token: Some(self) }
    }

    /// [`drop_guard`](CancellationToken::drop_guard), borrowing the token.
    pub fn drop_guard_ref(&self) -> DropGuardRef<'_> {
        DropGuardRef { token: Some(self) }
    }

    /// Runs `fut` to completion unless this token is cancelled first:
    /// `None` at once if it already is; later, when both are ready in one
    /// poll, the future's output wins (tokio-util's bias).
    pub async fn run_until_cancelled<F: Future>(&self, fut: F) -> Option<F::Output> {
        if self.is_cancelled() {
            return None;
        }
        let mut fut = std::pin::pin!(fut);
        let mut cancelled = self.cancelled();
        std::future::poll_fn(|cx| {
            if let Poll::Ready(output) = fut.as_mut().poll(cx) {
                return Poll::Ready(Some(output));
            }
            Pin::new(&mut cancelled).poll(cx).map(|()| None)
        })
        .await
    }

    /// [`run_until_cancelled`](CancellationToken::run_until_cancelled),
    /// owning the token.
    pub async fn run_until_cancelled_owned<F: Future>(self, fut: F) -> Option<F::Output> {
        self.run_until_cancelled(fut).await
    }
}

impl Clone for CancellationToken {
    /// Another handle on the same token.
    fn clone(&self) -> Self {
        CancellationToken { node: self.node.clone() }
    }
}

impl Default for CancellationToken {
    fn default() -> Self {
        CancellationToken::new()
    }
}

impl PartialEq for CancellationToken {
    /// Handles on the same token are equal.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.node, &other.node)
    }
}

impl Eq for CancellationToken {}

impl Hash for CancellationToken {
    fn hash<H: Hasher>(&self, state: &mut H) {
        Arc::as_ptr(&self.node).hash(state);
    }
}

// tokio-util's token is unwind safe too: its state is a flag and a tree
// that a panic leaves consistent (the locks here ignore poisoning).
impl std::panic::UnwindSafe for CancellationToken {}
impl std::panic::RefUnwindSafe for CancellationToken {}

impl fmt::Debug for CancellationToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancellationToken").field("is_cancelled", &self.is_cancelled()).finish()
    }
}

/// The future of [`CancellationToken::cancelled`].
#[must_use = "futures do nothing unless polled"]
pub struct WaitForCancellationFuture<'a> {
    token: &'a CancellationToken,
    /// Made before each read of the flag (module invariants).
    notified: Option<Notified<'a>>,
}

impl Future for WaitForCancellationFuture<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        loop {
            let notified = this.notified.get_or_insert_with(|| this.token.node.notify.notified());
            if this.token.is_cancelled() {
                this.notified = None;
                return Poll::Ready(());
            }
            match Pin::new(notified).poll(cx) {
                Poll::Pending => return Poll::Pending,
                // Woken by a cancel (or a spurious `notify_waiters`): look
                // again with a fresh `Notified`.
                Poll::Ready(()) => this.notified = None,
            }
        }
    }
}

impl fmt::Debug for WaitForCancellationFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WaitForCancellationFuture").finish_non_exhaustive()
    }
}

/// The future of [`CancellationToken::cancelled_owned`].
#[must_use = "futures do nothing unless polled"]
pub struct WaitForCancellationFutureOwned {
    future: Pin<Box<dyn Future<Output = ()> + Send + Sync>>,
}

impl Future for WaitForCancellationFutureOwned {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.future.as_mut().poll(cx)
    }
}

impl fmt::Debug for WaitForCancellationFutureOwned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WaitForCancellationFutureOwned").finish_non_exhaustive()
    }
}

/// Cancels its token when dropped, unless [`disarm`](DropGuard::disarm)ed.
#[derive(Debug)]
pub struct DropGuard {
    token: Option<CancellationToken>,
}

impl DropGuard {
    /// Returns the token this guard cancels.
    pub fn token(&self) -> &CancellationToken {
        self.token.as_ref().expect("a guard holds its token until dropped")
    }

    /// Gives the token back without cancelling it.
    pub fn disarm(mut self) -> CancellationToken {
        self.token.take().expect("a guard holds its token until dropped")
    }
}

impl Drop for DropGuard {
    fn drop(&mut self) {
        if let Some(token) = &self.token {
            token.cancel();
        }
    }
}

/// [`DropGuard`], borrowing its token.
#[derive(Debug)]
pub struct DropGuardRef<'a> {
    token: Option<&'a CancellationToken>,
}

impl<'a> DropGuardRef<'a> {
    /// Returns the token this guard cancels.
    pub fn token(&self) -> &CancellationToken {
        self.token.expect("a guard holds its token until dropped")
    }

    /// Gives the token back without cancelling it.
    pub fn disarm(mut self) -> &'a CancellationToken {
        self.token.take().expect("a guard holds its token until dropped")
    }
}

impl Drop for DropGuardRef<'_> {
    fn drop(&mut self) {
        if let Some(token) = self.token {
            token.cancel();
        }
    }
}
