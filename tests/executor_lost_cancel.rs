//! The cancel that samaritan's own executor lost at shutdown, found again.
//!
//! Before commit 38aaa2d the executor (`runtime/src/executor/`) kept a
//! task's run state in one atomic and shutdown's cancel request beside it,
//! in the runtime's `shutdown` flag (`Release` store, `Acquire` loads).
//! Shutdown set the flag, drained the run queues, then dropped each live
//! task's future, skipping a task whose future lock a worker held (the
//! worker "cancels it after the poll"). The worker, its poll done and the
//! task woken during it, checked the flag and re-queued the task if it read
//! `false`. Nothing ordered shutdown's flag store before that load: its
//! failed `try_lock` acquires nothing and publishes nothing, so the load
//! may read the old `false` (store buffering through the lock), the task
//! lands in a queue shutdown had already drained, and its `JoinHandle`
//! waits forever. loom found it; samaritan's search of the same model
//! passed, because every atomic was sequentially consistent then.
//!
//! The model below is that protocol, cut down to the steps that matter;
//! `Protocol::Fixed` carries the cancel request in the state word, as the
//! executor has since done (a read-modify-write cannot miss it). Under the
//! C11 model the old protocol's lost cancel is found; under `sc` it is
//! not; the fix passes.
#![cfg(feature = "sim")]

use std::collections::VecDeque;

use samaritan::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use samaritan::sync::{Arc, Mutex};
use samaritan::{thread, Builder, MemoryModel, Outcome, Report, SearchStrategy};

use Ordering::{AcqRel, Acquire, Relaxed, Release};

const IDLE: u8 = 0;
const SCHEDULED: u8 = 1;
const RUNNING: u8 = 2;
const NOTIFIED: u8 = 3;
const DONE: u8 = 4;
/// Fixed protocol only: shutdown found the task running; its runner
/// cancels it after the poll.
const CANCEL: u8 = 8;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Protocol {
    /// The cancel request in the runtime's shutdown flag (before 38aaa2d).
    Old,
    /// The cancel request in the task's state word (since).
    Fixed,
}

/// A future that wakes itself once and completes in its second poll; it
/// counts its drop.
struct Future {
    polls: usize,
    drops: Arc<AtomicUsize>,
}

impl Drop for Future {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Relaxed);
    }
}

struct Task {
    state: AtomicU8,
    future: Mutex<Option<Future>>,
    /// Set when the future completed: the join handle resolves.
    completed: AtomicBool,
}

struct Runtime {
    shutdown: AtomicBool,
    queue: Mutex<VecDeque<Arc<Task>>>,
    protocol: Protocol,
}

impl Task {
    /// Drops the future: the join handle resolves to `Cancelled`.
    fn cancel(&self) {
        let future = self.future.lock().unwrap().take();
        self.state.store(DONE, Release);
        drop(future);
    }

    /// Polls once; returns whether the task must run again (it was woken
    /// during the poll and was not cancelled).
    fn run(&self, protocol: Protocol) -> bool {
        if self.state.compare_exchange(SCHEDULED, RUNNING, AcqRel, Acquire).is_err() {
            return false;
        }
        let mut slot = self.future.lock().unwrap();
        let Some(future) = slot.as_mut() else { return false };
        future.polls += 1;
        if future.polls == 2 {
            let future = slot.take();
            self.state.store(DONE, Release);
            self.completed.store(true, Release);
            drop(slot);
            drop(future);
            return false;
        }
        // The poll wakes the task: RUNNING -> NOTIFIED.
        let _ = self.state.compare_exchange(RUNNING, NOTIFIED, AcqRel, Acquire);
        drop(slot);
        match protocol {
            // As the old `Task::run`: not back to IDLE means woken, so
            // SCHEDULED, and run again.
            Protocol::Old => {
                if self.state.compare_exchange(RUNNING, IDLE, AcqRel, Acquire).is_ok() {
                    return false;
                }
                self.state.store(SCHEDULED, Release);
                true
            }
            // Shutdown sets CANCEL only while RUNNING or NOTIFIED, and
            // stores nothing else then: a failure here is a cancel.
            Protocol::Fixed => match self.state.compare_exchange(NOTIFIED, SCHEDULED, AcqRel, Acquire) {
                Ok(_) => true,
                Err(state) => {
                    assert_eq!(state & CANCEL, CANCEL, "only a cancel moves a running task's state");
                    self.cancel();
                    false
                }
            },
        }
    }

    /// Shutdown's cancel of a live task.
    fn cancel_at_shutdown(&self, protocol: Protocol) {
        match protocol {
            // Skip a task whose runner holds the future: the runner is
            // trusted to see the shutdown flag after its poll.
            Protocol::Old => {
                if let Ok(mut slot) = self.future.try_lock() {
                    self.state.store(DONE, Release);
                    drop(slot.take());
                }
            }
            Protocol::Fixed => loop {
                let state = self.state.load(Acquire);
                match state {
                    RUNNING | NOTIFIED => {
                        if self.state.compare_exchange(state, state | CANCEL, AcqRel, Acquire).is_ok() {
                            return;
                        }
                    }
                    // Claimed by a read-modify-write, so that a stale
                    // read of the state cannot cancel a running task.
                    IDLE | SCHEDULED => {
                        if self.state.compare_exchange(state, DONE, AcqRel, Acquire).is_ok() {
                            drop(self.future.lock().unwrap().take());
                            return;
                        }
                    }
                    _ => return,
                }
            },
        }
    }
}

impl Runtime {
    /// One worker's loop, bounded: run queued tasks until shutdown.
    fn work(&self) {
        for _ in 0..2 {
            if self.shutdown.load(Acquire) {
                return;
            }
            let Some(task) = self.queue.lock().unwrap().pop_front() else { return };
            if task.run(self.protocol) {
                if self.protocol == Protocol::Old && self.shutdown.load(Acquire) {
                    task.cancel();
                } else {
                    self.queue.lock().unwrap().push_back(task);
                }
            }
        }
    }

    /// `shutdown_timeout(0)`: set the flag, drain the queues, cancel the
    /// live tasks; the worker is not waited for.
    fn shutdown(&self, live: &Task) {
        self.shutdown.store(true, Release);
        let drained: Vec<_> = self.queue.lock().unwrap().drain(..).collect();
        for task in drained {
            task.cancel_at_shutdown(self.protocol);
        }
        live.cancel_at_shutdown(self.protocol);
    }
}

/// A task spawned on a one-worker runtime that shuts down while the worker
/// polls it; at the end, its join handle must resolve (the future
/// completed, or was dropped by a cancel).
fn shutdown_racing_a_poll(protocol: Protocol) -> impl Fn() + Send + Sync + 'static {
    move || {
        let drops = Arc::new(AtomicUsize::new(0));
        let task = Arc::new(Task {
            state: AtomicU8::new(SCHEDULED),
            future: Mutex::new(Some(Future { polls: 0, drops: drops.clone() })),
            completed: AtomicBool::new(false),
        });
        let runtime =
            Arc::new(Runtime { shutdown: AtomicBool::new(false), queue: Mutex::new(VecDeque::new()), protocol });
        runtime.queue.lock().unwrap().push_back(task.clone());
        let worker = {
            let runtime = runtime.clone();
            thread::spawn(move || runtime.work())
        };
        runtime.shutdown(&task);
        worker.join().unwrap();
        // The join handle: resolved once the future is gone, one way or
        // the other. A task left in a drained queue resolves never.
        let resolved = task.completed.load(Acquire) || drops.load(Relaxed) == 1;
        assert!(resolved, "the join handle waits forever: the task was queued after shutdown drained the queues");
        assert!(drops.load(Relaxed) <= 1, "the future is dropped at most once");
    }
}

fn explore(protocol: Protocol, model: MemoryModel) -> Report {
    Builder::new()
        .strategy(SearchStrategy::Dpor)
        .memory_model(model)
        .explore(shutdown_racing_a_poll(protocol))
        .expect("valid settings")
}

#[test]
fn the_old_protocol_loses_the_cancel_under_the_c11_model() {
    let report = explore(Protocol::Old, MemoryModel::Weak);
    let failure = report.failure.as_ref().expect("the lost cancel is found");
    assert!(
        matches!(&report.outcome, Outcome::Panic { message, .. } if message.starts_with("the join handle waits forever")),
        "{report}"
    );
    // The worker's check of the flag read the value from before shutdown's
    // store, which the trace shows ran earlier.
    let store_line = failure.trace.lines.iter().position(|l| l.actor == "main" && l.op == samaritan::Op::Store);
    let stale = failure.trace.lines.iter().rposition(|l| {
        l.actor == "t1"
            && l.read.as_ref().is_some_and(|r| r.value.as_deref() == Some("false") && r.store.is_none())
            && l.object == failure.trace.lines[store_line.unwrap_or(0)].object
    });
    assert!(matches!((store_line, stale), (Some(s), Some(l)) if s < l), "{report}");
}

#[test]
fn the_old_protocol_passes_when_every_atomic_is_sequentially_consistent() {
    // Why samaritan missed it before the C11 model: under `sc` the flag's
    // load after the failed `try_lock` always reads `true`.
    let report = explore(Protocol::Old, MemoryModel::Sc);
    assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, 18, true), "{report}");
}

#[test]
fn the_fixed_protocol_never_loses_the_cancel() {
    // 382 executions while a weak load conflicted with the stores before
    // it (DPOR ran both orders of each and, in both, every choice of
    // store): 59 now that the store-first order covers the other.
    let report = explore(Protocol::Fixed, MemoryModel::Weak);
    assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, 59, true), "{report}");
}
