//! Blocking the calling thread on one future with `std::thread::park`.
//!
//! The waker sets `woken` and unparks the thread; the loop re-polls only
//! after consuming `woken`, so a spurious unpark costs one check, and a
//! wake between a `Pending` poll and `park` leaves the unpark token set.
//! On a worker thread, the worker's LIFO task is handed to the other
//! workers first (see `multi::enter_blocking`).

use crate::concurrency::atomic::{AtomicBool, Ordering};
use crate::concurrency::thread::{self, Thread};
use crate::concurrency::Arc;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Wake, Waker};

struct ThreadWaker {
    thread: Thread,
    woken: AtomicBool,
}

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.thread.unpark();
    }
}

/// Polls `future` on this thread until it completes, parking in between.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let _blocking = super::multi::enter_blocking();
    let mut future = pin!(future);
    let state = Arc::new(ThreadWaker { thread: thread::current(), woken: AtomicBool::new(false) });
    let waker = Waker::from(state.clone());
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        while !state.woken.swap(false, Ordering::AcqRel) {
            thread::park();
        }
    }
}
