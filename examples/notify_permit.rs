//! A Notify-style permit lost by a non-atomic read-modify-write. A hand-made
//! one-waiter notify keeps two bits in one state word: `NOTIFIED` (a
//! permit left by `notify`) and `WAITING` (a waker is registered). The
//! waiter marks itself waiting with a load and a separate store: a notify
//! that sets `NOTIFIED` in between is overwritten, and, having seen no
//! `WAITING`, wakes nobody. The waiter sleeps forever: samaritan reports the
//! deadlock, names the pending task, and the token replays it. The fixed
//! notify updates the word with `fetch_or` only.
//!
//! Run with `cargo run --example notify_permit --features sim`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use samaritan::executor::{self, block_on};
use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::{Arc, Mutex};

/// A permit was left by `notify`.
const NOTIFIED: usize = 1;
/// A waiter registered its waker.
const WAITING: usize = 2;

/// A notify for one waiter.
#[derive(Default)]
struct OneNotify {
    state: AtomicUsize,
    waker: Mutex<Option<Waker>>,
    /// Use the atomic read-modify-writes.
    fixed: bool,
}

impl OneNotify {
    /// Leaves a permit, and wakes the waiter if one is registered.
    fn notify(&self) {
        let prev = self.state.fetch_or(NOTIFIED, Ordering::SeqCst);
        if prev & WAITING != 0 {
            if let Some(waker) = self.waker.lock().unwrap().take() {
                waker.wake();
            }
        }
    }

    /// Waits for a permit and consumes it.
    fn notified(&self) -> Notified<'_> {
        Notified { notify: self }
    }
}

/// Future of [`OneNotify::notified`].
struct Notified<'a> {
    notify: &'a OneNotify,
}

impl Future for Notified<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let n = self.notify;
        *n.waker.lock().unwrap() = Some(cx.waker().clone());
        let prev = if n.fixed {
            n.state.fetch_or(WAITING, Ordering::SeqCst)
        } else {
            // The bug: a notify between this load and the store below sets
            // NOTIFIED, which the store then overwrites.
            let prev = n.state.load(Ordering::SeqCst);
            n.state.store(prev | WAITING, Ordering::SeqCst);
            prev
        };
        if prev & NOTIFIED != 0 {
            n.state.store(0, Ordering::SeqCst);
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

/// A waiter task and a notifier task.
fn waiter_and_notifier(fixed: bool) {
    block_on(async move {
        let notify = Arc::new(OneNotify { fixed, ..OneNotify::default() });
        let n = notify.clone();
        let waiter = executor::spawn(async move { n.notified().await });
        let notifier = executor::spawn(async move { notify.notify() });
        notifier.await.unwrap();
        waiter.await.unwrap();
    });
}

/// The buggy notify: the waiter waits forever in one interleaving.
pub(crate) fn notify_permit() {
    waiter_and_notifier(false);
}

/// The notify whose state changes are atomic: the permit is never lost.
pub(crate) fn fixed() {
    waiter_and_notifier(true);
}

#[cfg(feature = "sim")]
fn main() {
    let report = samaritan::Builder::new().explore(notify_permit).expect("valid settings");
    println!("{report}");
    let Some(token) = report.token() else {
        println!("no bug found");
        std::process::exit(1);
    };
    let again = samaritan::Builder::new().replay(token, notify_permit).expect("a token we just made");
    println!("replaying {token}: {}", again.outcome);
    let report = samaritan::Builder::new().explore(fixed).expect("valid settings");
    println!("{report}");
}
