//! The current-thread flavour: one FIFO run queue, drained by whichever
//! thread is inside `block_on`.
//!
//! The `block_on` loop polls its own future when woken, then runs up to
//! `BATCH` queued tasks, and parks on `signal` when it has nothing to do.
//! `signal.pending` is a sticky permit: every push and every wake of a
//! `block_on` future sets it, and a parker consumes it, so a push between
//! "queue is empty" and "wait" is never lost (at worst one extra turn of the
//! loop). Only a signal that finds a parker (`signal.parked`) takes the lock
//! and notifies: a parker counts itself under the lock before it reads
//! `pending`, and a signaller sets `pending` before it reads `parked`, both
//! `SeqCst`, so one of the two always sees the other.

use crate::concurrency::atomic::{AtomicBool, AtomicUsize, Ordering};
use crate::concurrency::{lock, Arc, Condvar, Mutex, MutexGuard};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Wake, Waker};

use super::runtime::{Flavor, Handle, Runtime, Shared};
use super::task::Task;

/// Tasks run per turn before the `block_on` future is looked at again.
const BATCH: usize = 61;

/// The run queue of a current-thread runtime.
pub(crate) struct Queue {
    run: Mutex<VecDeque<Task>>,
    signal: Arc<Signal>,
}

/// Wakes the threads parked in `block_on`.
struct Signal {
    /// Set by every push and wake, consumed by a parker.
    pending: AtomicBool,
    /// Threads inside (or about to enter) the wait; changed under `lock`.
    parked: AtomicUsize,
    lock: Mutex<()>,
    cvar: Condvar,
}

impl Signal {
    fn notify(&self) {
        self.pending.store(true, Ordering::SeqCst);
        if self.parked.load(Ordering::SeqCst) > 0 {
            let _g = lock(&self.lock);
            self.cvar.notify_all();
        }
    }

    /// Blocks until a push or wake since the last call, or `main` is woken.
    fn wait(&self, main: &MainWaker) {
        let mut g = lock(&self.lock);
        self.parked.fetch_add(1, Ordering::SeqCst);
        while !self.pending.swap(false, Ordering::SeqCst) && !main.woken.load(Ordering::Acquire) {
            g = self.cvar.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        self.parked.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The waker of a `block_on` future.
struct MainWaker {
    woken: AtomicBool,
    signal: Arc<Signal>,
}

impl Wake for MainWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.signal.notify();
    }
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, VecDeque<Task>> {
        lock(&self.run)
    }

    /// Queues a task at the back and wakes a parked `block_on`.
    pub(crate) fn push(&self, task: Task) {
        self.lock().push_back(task);
        self.signal.notify();
    }

    /// Empties the queue (shutdown).
    pub(crate) fn drain(&self) -> Vec<Task> {
        self.lock().drain(..).collect()
    }

    /// Drives `future` and the queued tasks on this thread until the future
    /// completes.
    pub(crate) fn block_on<F: Future>(&self, shared: &Arc<Shared>, future: F) -> F::Output {
        // On a multi-thread worker: hand its LIFO task to the other workers.
        let _blocking = super::multi::enter_blocking();
        let mut future = pin!(future);
        let main = Arc::new(MainWaker { woken: AtomicBool::new(true), signal: self.signal.clone() });
        let waker = Waker::from(main.clone());
        let mut cx = Context::from_waker(&waker);
        loop {
            if main.woken.swap(false, Ordering::AcqRel) {
                if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
                    return v;
                }
            }
            let mut ran = 0;
            while ran < BATCH {
                // Pop in its own statement: the queue lock is released before running.
                let next = self.lock().pop_front();
                let Some(task) = next else { break };
                if let Some(task) = task.run() {
                    shared.schedule(task);
                }
                ran += 1;
            }
            if ran > 0 {
                continue;
            }
            self.signal.wait(&main);
        }
    }
}

/// Builds a current-thread runtime; this cannot fail.
pub(crate) fn build() -> Runtime {
    let queue = Queue {
        run: Mutex::new(VecDeque::new()),
        signal: Arc::new(Signal {
            pending: AtomicBool::new(false),
            parked: AtomicUsize::new(0),
            lock: Mutex::new(()),
            cvar: Condvar::new(),
        }),
    };
    Runtime::from_parts(Handle { shared: Shared::new(Flavor::Current(queue)) }, Vec::new())
}
