//! A lost wakeup: a hand-written future checks a flag and only then stores
//! its waker. If the setter task sets the flag and looks for a waker in
//! between, it finds none, and the future, having seen the flag clear,
//! returns `Pending` with nobody left to wake it. samaritan reports the
//! deadlock, naming the pending task, blocked in `poll` at the line where
//! it last did something visible (storing its waker); the fixed future
//! stores its waker before it checks.
//!
//! Run with `cargo run --example lost_wakeup --features sim`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use samaritan::executor;
use samaritan::sync::atomic::{AtomicBool, Ordering};
use samaritan::sync::{Arc, Mutex};

/// A one-shot event: a flag and the waker of the task waiting for it.
#[derive(Default)]
struct Event {
    set: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl Event {
    /// Sets the flag, then wakes the waiter if one registered.
    fn set(&self) {
        self.set.store(true, Ordering::SeqCst);
        let waker = self.waker.lock().unwrap().take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// Waits for the event; `fixed` picks the order of check and registration.
struct Wait {
    event: Arc<Event>,
    fixed: bool,
}

impl Future for Wait {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.fixed {
            // Register first, then check: a setter that runs after the
            // check finds the waker.
            *self.event.waker.lock().unwrap() = Some(cx.waker().clone());
            if self.event.set.load(Ordering::SeqCst) {
                return Poll::Ready(());
            }
            return Poll::Pending;
        }
        if self.event.set.load(Ordering::SeqCst) {
            return Poll::Ready(());
        }
        // The bug: a setter running right here finds no waker to wake.
        *self.event.waker.lock().unwrap() = Some(cx.waker().clone());
        Poll::Pending
    }
}

/// Spawns a waiter task and a setter task and joins both.
fn waiter_and_setter(fixed: bool) {
    executor::block_on(async move {
        let event = Arc::new(Event::default());
        let waiter = executor::spawn(Wait { event: event.clone(), fixed });
        let setter = executor::spawn(async move { event.set() });
        setter.await.unwrap();
        waiter.await.unwrap();
    });
}

/// The buggy future: a deadlock in one interleaving.
pub(crate) fn lost_wakeup() {
    waiter_and_setter(false);
}

/// The future that registers before it checks: no interleaving loses the
/// wakeup.
pub(crate) fn fixed() {
    waiter_and_setter(true);
}

// Gated so that tests/async_sim.rs can run `fixed` on the real executor
// in a production build (this example itself requires `sim`).
#[cfg(feature = "sim")]
fn main() {
    let report = samaritan::Builder::new().explore(lost_wakeup).expect("valid settings");
    println!("{report}");
    let report = samaritan::Builder::new().explore(fixed).expect("valid settings");
    println!("{report}");
}
