//! The models of the executor: each runs the production code on model
//! threads and fails (a panic, or a deadlock when a wakeup is lost) if the
//! core breaks its invariants in some interleaving.
//!
//! Bookkeeping the models only assert on (poll and drop counts, outcomes
//! seen) uses std's atomics: every model thread runs on one OS thread, so
//! they need no modelling, and leaving them out keeps the searches small.

use std::collections::BTreeSet;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize as Counter, Ordering::SeqCst};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use crate::concurrency::{thread, Arc};

use super::super::join::JoinHandle;
use super::super::runtime::{Flavor, Handle, Runtime};
use super::super::{current, multi, park};

/// Adds one to a counter when dropped.
struct DropCount(Arc<Counter>);

impl Drop for DropCount {
    fn drop(&mut self) {
        self.0.fetch_add(1, SeqCst);
    }
}

/// Starts a model thread named `name`.
fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> thread::JoinHandle<()> {
    thread::Builder::new().name(name.to_string()).spawn(f).expect("a model thread starts")
}

/// A current-thread runtime, its handle, and the handle of a task on it
/// made from `future`, queued and not yet run.
fn current_with<T: Send + 'static>(
    future: impl Future<Output = T> + Send + 'static,
) -> (Runtime, Handle, JoinHandle<T>) {
    let rt = current::build();
    let handle = rt.handle().clone();
    let join = handle.spawn(future);
    (rt, handle, join)
}

/// Runs the tasks queued on the current-thread runtime of `handle` once
/// each, on this thread; none may ask to be queued again.
fn run_queued(handle: &Handle) {
    let Flavor::Current(queue) = &handle.shared.flavor else { unreachable!("a current-thread runtime") };
    for task in queue.drain() {
        assert!(task.run().is_none(), "the task completes in its first poll");
    }
}

/// Park/unpark: one worker, and a spawn from outside it racing the worker
/// going to sleep. The push into the injector must either be seen by the
/// worker's last look at the queues or wake it; a lost wakeup leaves the
/// task unrun and `block_on` waiting forever (a deadlock). The join is the
/// blocking thread's own park protocol (`park.rs`) racing the completion.
pub(super) fn notify_racing_park() {
    let rt = multi::build(1, "worker", None).expect("a worker starts");
    let join = rt.handle().spawn(async { 7 });
    assert_eq!(park::block_on(join).ok(), Some(7));
}

/// Run queues: two workers, and a task from outside (into the injector)
/// that spawns two tasks on its worker: the first fills the LIFO slot, the
/// second displaces it to the worker's local queue, where the other worker
/// may steal it. Every task must be polled exactly once: none lost (the
/// joins would wait forever), none run twice.
pub(super) fn two_workers_run_each_task_once() {
    let rt = multi::build(2, "worker", None).expect("workers start");
    let handle = rt.handle().clone();
    let polls: Arc<[Counter; 2]> = Arc::default();
    let p = polls.clone();
    let parent = rt.handle().spawn(async move {
        let children: Vec<_> = (0..2)
            .map(|i| {
                let p = p.clone();
                handle.spawn(async move { p[i].fetch_add(1, SeqCst) })
            })
            .collect();
        children
    });
    park::block_on(async {
        for child in parent.await.expect("the parent completes") {
            child.await.expect("a child completes");
        }
    });
    assert_eq!(polls.each_ref().map(|p| p.load(SeqCst)), [1, 1]);
}

/// Task state, wake while running: the first poll hands the task's waker
/// to a new thread and returns `Pending`; the wake lands while the task is
/// `RUNNING` (then `NOTIFIED`: queued again after the poll) or once it is
/// `IDLE` (queued by the waker, which wakes the parked `block_on`). Either
/// way the task is polled exactly twice.
pub(super) fn wake_racing_poll() {
    let waker_thread = Arc::new(std::sync::Mutex::new(None));
    let w = waker_thread.clone();
    let mut polls = 0;
    let (_rt, handle, join) = current_with(poll_fn(move |cx| {
        polls += 1;
        if polls > 1 {
            return Poll::Ready(polls);
        }
        let waker = cx.waker().clone();
        *w.lock().unwrap() = Some(spawn("waker", move || waker.wake()));
        Poll::Pending
    }));
    let Flavor::Current(queue) = &handle.shared.flavor else { unreachable!("a current-thread runtime") };
    assert_eq!(queue.block_on(&handle.shared, join).ok(), Some(2));
    let waker_thread = waker_thread.lock().unwrap().take().expect("the first poll started it");
    waker_thread.join().expect("the waker thread finishes");
    assert!(queue.drain().is_empty(), "a finished task is queued nowhere");
}

/// Task state, wake after complete: the only poll hands the waker to a
/// new thread and completes; the wake lands while `RUNNING` (the
/// completion overrides `NOTIFIED`) or once `DONE` (a no-op). Either way
/// the task is polled once and never queued again.
pub(super) fn wake_racing_completion() {
    let polls = Arc::new(Counter::new(0));
    let p = polls.clone();
    let (_rt, handle, join) = current_with(poll_fn(move |cx| {
        p.fetch_add(1, SeqCst);
        let waker = cx.waker().clone();
        Poll::Ready(spawn("waker", move || waker.wake()))
    }));
    run_queued(&handle);
    let waker_thread = park::block_on(join).expect("the task completes");
    waker_thread.join().expect("the waker thread finishes");
    let Flavor::Current(queue) = &handle.shared.flavor else { unreachable!("a current-thread runtime") };
    assert!(queue.drain().is_empty(), "a wake after completion queues nothing");
    assert_eq!(polls.load(SeqCst), 1);
}

/// What [`abort_racing_completion`] saw its join resolve to, over all
/// executions of a search.
pub(super) static ABORT_OUTCOMES: std::sync::Mutex<BTreeSet<&str>> = std::sync::Mutex::new(BTreeSet::new());

/// Task state, abort racing completion: one thread runs the task (it
/// completes in its first poll) while another aborts and joins it. An
/// abort before the run cancels it (the future is dropped unpolled); one
/// during or after it changes nothing. The join resolves accordingly,
/// and the future is dropped exactly once either way.
pub(super) fn abort_racing_completion() {
    let drops = Arc::new(Counter::new(0));
    let polls = Arc::new(Counter::new(0));
    let (guard, p) = (DropCount(drops.clone()), polls.clone());
    let (_rt, handle, join) = current_with(async move {
        let _guard = guard;
        p.fetch_add(1, SeqCst);
        5
    });
    let aborter = spawn("aborter", move || {
        join.abort();
        let outcome = match park::block_on(join) {
            Ok(5) => "completed",
            Err(e) if e.is_cancelled() => "cancelled",
            other => panic!("unexpected join result {other:?}"),
        };
        ABORT_OUTCOMES.lock().unwrap().insert(outcome);
    });
    run_queued(&handle);
    aborter.join().expect("the aborter finishes");
    assert_eq!(drops.load(SeqCst), 1, "the future is dropped exactly once");
    assert!(polls.load(SeqCst) <= 1);
}

/// Task state, `JoinHandle` drop racing completion: one thread runs the
/// task while another polls its handle once (registering a waker in the
/// slot) and drops it, as a `select!` that lost would. Completion wakes
/// that waker at most once, after the handle is gone or before, and the
/// output (stored in the slot before or after the handle let go of it) is
/// dropped exactly once, by whoever holds the slot last.
pub(super) fn join_drop_racing_completion() {
    let drops = Arc::new(Counter::new(0));
    let d = drops.clone();
    let (_rt, handle, mut join) = current_with(async move { DropCount(d) });
    let wakes = Arc::new(CountWakes::default());
    let w = wakes.clone();
    let dropper = spawn("dropper", move || {
        let waker = Waker::from(w);
        let polled = Pin::new(&mut join).poll(&mut Context::from_waker(&waker));
        drop(join);
        // A ready output is dropped here, with the poll's result.
        drop(polled);
    });
    run_queued(&handle);
    dropper.join().expect("the dropper finishes");
    assert_eq!(drops.load(SeqCst), 1, "the output is dropped exactly once");
    assert!(wakes.0.load(SeqCst) <= 1, "completion wakes the joiner at most once");
}

/// Registry (`owned.rs`), a spawn racing shutdown: one thread spawns a
/// task on a current-thread runtime (nobody runs it) while the runtime is
/// dropped. The spawn lands before the shutdown closes the registry (which
/// then cancels it), or after (the spawn cancels it itself); either way
/// the handle resolves to `Cancelled` and the future is dropped exactly
/// once.
pub(super) fn spawn_racing_shutdown() {
    let drops = Arc::new(Counter::new(0));
    let guard = DropCount(drops.clone());
    let rt = current::build();
    let handle = rt.handle().clone();
    let spawner = spawn("spawner", move || {
        let join = handle.spawn(async move {
            let _guard = guard;
        });
        assert!(park::block_on(join).is_err_and(|e| e.is_cancelled()));
    });
    drop(rt);
    spawner.join().expect("the spawner finishes");
    assert_eq!(drops.load(SeqCst), 1, "the future is dropped exactly once");
}

/// The run right, shutdown racing a poll: a task on one worker wakes
/// itself twice and completes in its third poll, while the runtime shuts
/// down without waiting for the worker. Shutdown drops the future only
/// while no poll holds it (a cancel and a poll touching the future at
/// once is a data race on its cell, which both checkers report); a task
/// it finds running is marked, and its worker cancels it after the poll
/// (a runner that missed the shutdown flag and re-queued the task after
/// the queues were drained left the join waiting forever; loom found
/// it). The handle resolves to the output or `Cancelled`, and the future
/// is dropped exactly once, before either.
pub(super) fn shutdown_racing_a_poll() {
    let drops = Arc::new(Counter::new(0));
    let guard = DropCount(drops.clone());
    let mut polls = 0;
    let rt = multi::build(1, "worker", None).expect("a worker starts");
    let join = rt.handle().spawn(poll_fn(move |cx| {
        let _guard = &guard;
        polls += 1;
        if polls < 3 {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(polls)
    }));
    rt.shutdown_timeout(Duration::ZERO);
    match park::block_on(join) {
        Ok(polls) => assert_eq!(polls, 3),
        Err(e) => assert!(e.is_cancelled(), "unexpected join error {e:?}"),
    }
    assert_eq!(drops.load(SeqCst), 1, "the future is dropped exactly once");
}

/// A waker that counts its wakes.
#[derive(Default)]
struct CountWakes(Counter);

impl Wake for CountWakes {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, SeqCst);
    }
}
