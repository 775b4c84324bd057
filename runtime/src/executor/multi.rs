//! The multi-thread flavour: worker threads with local queues, a global
//! injector, stealing, and condvar parking.
//!
//! A task woken or spawned on one of this runtime's workers goes to the back
//! of that worker's local queue; from any other thread it goes to the
//! injector. A worker takes from its own queue first (every
//! `INJECTOR_INTERVAL`-th pick from the injector first, so it is never
//! starved), then the injector, then steals half of another worker's queue.
//!
//! Parking invariant (no lost wakeup): a worker announces itself in
//! `sleepers` and then re-checks every queue, all while holding `park`; a
//! pusher pushes, then reads `sleepers` and, if non-zero, notifies under
//! `park`. The `SeqCst` fences on both sides make it impossible for the
//! worker to miss the push and the pusher to miss the sleeper at once.

use std::cell::Cell;
use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{fence, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::runtime::{Flavor, Handle, Runtime, Shared};
use super::task::Task;

/// Every this many picks, a worker looks at the injector before its own queue.
const INJECTOR_INTERVAL: u32 = 61;

type Queue = Mutex<VecDeque<Arc<Task>>>;

/// The queues of a multi-thread runtime.
pub(crate) struct Queues {
    injector: Queue,
    locals: Box<[Queue]>,
    /// Workers inside (or about to enter) `park`'s wait.
    sleepers: AtomicUsize,
    park: Mutex<()>,
    unpark: Condvar,
}

thread_local! {
    /// `(address of the Shared, worker index)` on a worker thread; `(0, 0)` elsewhere.
    static WORKER: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

fn lock(q: &Queue) -> MutexGuard<'_, VecDeque<Arc<Task>>> {
    q.lock().unwrap_or_else(|e| e.into_inner())
}

impl Queues {
    fn new(workers: usize) -> Queues {
        Queues {
            injector: Mutex::new(VecDeque::new()),
            locals: (0..workers).map(|_| Mutex::new(VecDeque::new())).collect(),
            sleepers: AtomicUsize::new(0),
            park: Mutex::new(()),
            unpark: Condvar::new(),
        }
    }

    /// Queues a task: locally on one of our workers, else on the injector.
    pub(crate) fn push(&self, shared: &Arc<Shared>, task: Arc<Task>) {
        let (addr, index) = WORKER.with(Cell::get);
        if addr == Arc::as_ptr(shared) as usize {
            lock(&self.locals[index]).push_back(task);
        } else {
            lock(&self.injector).push_back(task);
        }
        fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::Relaxed) > 0 {
            let _g = self.park.lock().unwrap_or_else(|e| e.into_inner());
            self.unpark.notify_one();
        }
    }

    /// Wakes every parked worker (shutdown).
    pub(crate) fn wake_all(&self) {
        let _g = self.park.lock().unwrap_or_else(|e| e.into_inner());
        self.unpark.notify_all();
    }

    /// Empties every queue (shutdown).
    pub(crate) fn drain(&self) -> Vec<Arc<Task>> {
        let mut all: Vec<Arc<Task>> = lock(&self.injector).drain(..).collect();
        for q in self.locals.iter() {
            all.extend(lock(q).drain(..));
        }
        all
    }

    fn has_work(&self) -> bool {
        !lock(&self.injector).is_empty() || self.locals.iter().any(|q| !lock(q).is_empty())
    }

    /// The next task for worker `index`, stealing if its queue is empty.
    fn next_task(&self, index: usize, tick: u32) -> Option<Arc<Task>> {
        if tick % INJECTOR_INTERVAL == 0 {
            if let Some(t) = lock(&self.injector).pop_front() {
                return Some(t);
            }
        }
        if let Some(t) = lock(&self.locals[index]).pop_front() {
            return Some(t);
        }
        if let Some(t) = lock(&self.injector).pop_front() {
            return Some(t);
        }
        self.steal(index)
    }

    /// Takes the back half of the first non-empty other queue; returns one
    /// task and keeps the rest locally.
    fn steal(&self, index: usize) -> Option<Arc<Task>> {
        let n = self.locals.len();
        for k in 1..n {
            let victim = (index + k) % n;
            let mut stolen = {
                let mut q = lock(&self.locals[victim]);
                let len = q.len();
                if len == 0 {
                    continue;
                }
                q.split_off(len - len.div_ceil(2))
            };
            let first = stolen.pop_front();
            if !stolen.is_empty() {
                lock(&self.locals[index]).extend(stolen);
            }
            return first;
        }
        None
    }

    /// Blocks worker until some queue has work or the runtime shuts down.
    fn park_worker(&self, shared: &Shared) {
        let mut g = self.park.lock().unwrap_or_else(|e| e.into_inner());
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        while !shared.is_shutdown() && !self.has_work() {
            g = self.unpark.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Returns `true` on a worker thread of the runtime `shared`.
pub(crate) fn on_worker_of(shared: &Shared) -> bool {
    WORKER.with(Cell::get).0 == std::ptr::from_ref(shared) as usize
}

/// Starts `workers` threads and returns the runtime that owns them.
pub(crate) fn build(workers: usize, name: &str, stack_size: Option<usize>) -> io::Result<Runtime> {
    let shared = Shared::new(Flavor::Multi(Queues::new(workers)));
    let mut threads = Vec::with_capacity(workers);
    for index in 0..workers {
        let mut builder = std::thread::Builder::new().name(format!("{name}-{index}"));
        if let Some(size) = stack_size {
            builder = builder.stack_size(size);
        }
        let s = shared.clone();
        shared.worker_started();
        match builder.spawn(move || run_worker(s, index)) {
            Ok(t) => threads.push(t),
            Err(e) => {
                shared.worker_exited();
                // Dropping the runtime stops and joins the workers started so far.
                drop(Runtime::from_parts(Handle { shared }, threads));
                return Err(e);
            }
        }
    }
    Ok(Runtime::from_parts(Handle { shared }, threads))
}

/// A worker's loop: run tasks until shutdown, parking when there are none.
fn run_worker(shared: Arc<Shared>, index: usize) {
    struct Exit<'a>(&'a Shared);
    impl Drop for Exit<'_> {
        fn drop(&mut self) {
            self.0.worker_exited();
        }
    }
    let _exit = Exit(&shared);
    WORKER.with(|w| w.set((Arc::as_ptr(&shared) as usize, index)));
    let _enter = Handle { shared: shared.clone() }.enter();
    let Flavor::Multi(queues) = &shared.flavor else { unreachable!("a worker of a multi-thread runtime") };
    let mut tick: u32 = 0;
    while !shared.is_shutdown() {
        tick = tick.wrapping_add(1);
        match queues.next_task(index, tick) {
            Some(task) => {
                if task.run() {
                    shared.schedule(task);
                }
            }
            None => queues.park_worker(&shared),
        }
    }
}
