//! A worker that spins without yielding during shutdown: the fair stateless
//! model checking paper (Musuvathi and Qadeer, PLDI'08), Figure 7 and
//! section 4.3.1.
//!
//! Both the worker group and each worker have a `stop` flag. Shutdown sets
//! the group's flag, then the worker's. In the window between the two
//! stores, a worker with an empty task queue calls `idle`, which returns at
//! once because the group is stopping, and its outer loop goes round again
//! without ever yielding: it burns its time slice and can starve the very
//! thread that would set its `stop` flag.
//!
//! What samaritan should report: a good-samaritan violation by the worker
//! (a thread scheduled again and again without yielding), with the fair
//! scheduler on (the default); it takes one preemption, in the shutdown
//! thread between its two stores. The idle loop itself yields and is fine.
//! Without fairness DFS only reaches the step bound.
//!
//! Run with `cargo run --example good_samaritan --features sim`.

use samaritan::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use samaritan::sync::Arc;
use samaritan::thread;

/// A worker group with one worker.
struct Group {
    /// The group's stop flag (`WorkerGroup::stop`).
    stop: AtomicBool,
    /// The worker's own stop flag (`Worker::stop`).
    worker_stop: AtomicBool,
    /// Tasks left in the queue.
    tasks: AtomicUsize,
}

impl Group {
    /// Takes a task off the queue, if there is one (`PopNextTask`).
    fn pop_next_task(&self) -> bool {
        self.tasks.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok()
    }

    /// Waits for work, yielding, while the group runs (`WorkerGroup::Idle`);
    /// no task ever arrives here, so it returns no task.
    fn idle(&self) -> bool {
        while !self.stop.load(Ordering::SeqCst) {
            thread::yield_now();
        }
        false
    }

    /// The worker's main loop (`Worker::Run`).
    fn run(&self) {
        let mut task = true;
        while !self.worker_stop.load(Ordering::SeqCst) {
            while !self.worker_stop.load(Ordering::SeqCst) && task {
                // Perform the task.
                task = self.pop_next_task();
            }
            if !self.worker_stop.load(Ordering::SeqCst) {
                // The bug: once the group stops, `idle` returns at once and
                // this loop spins without yielding until `worker_stop` is set.
                task = self.idle();
            }
        }
    }
}

pub(crate) fn worker_shutdown() {
    let group = Arc::new(Group {
        stop: AtomicBool::new(false),
        worker_stop: AtomicBool::new(false),
        tasks: AtomicUsize::new(1),
    });
    let worker = {
        let group = group.clone();
        thread::spawn(move || group.run())
    };
    let shutdown = thread::spawn(move || {
        group.stop.store(true, Ordering::SeqCst);
        group.worker_stop.store(true, Ordering::SeqCst);
    });
    worker.join().unwrap();
    shutdown.join().unwrap();
}

// Examples build only with `sim` (Cargo.toml); `tests/papers.rs` also
// includes this file without it, for the models.
#[cfg(feature = "sim")]
fn main() {
    let report = samaritan::Builder::new().max_steps(2000).explore(worker_shutdown).expect("valid settings");
    println!("{report}");
}
