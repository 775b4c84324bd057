//! The multi-thread flavour: worker threads with local queues, a LIFO slot,
//! a global injector, stealing, and per-worker parking.
//!
//! A task spawned or woken by a task running on one of this runtime's
//! workers goes to that worker's LIFO slot, and the task it displaces to the
//! back of the worker's local queue; a task that woke itself while being
//! polled (`yield_now`) goes to the back of the local queue. From any other
//! thread a task goes to the injector. A worker runs its LIFO slot first,
//! but at most `MAX_LIFO_POLLS` times in a row (then the slot is bypassed
//! until it is found empty, so two tasks waking each other cannot starve the
//! queue); then its own queue (every `INJECTOR_INTERVAL`-th pick from the
//! injector first, so it is never starved), then the injector, then steals
//! half of another worker's queue. The LIFO slot is the worker's own: it is
//! never stolen, and the worker always empties it before it parks. As with
//! tokio's, a task that blocks its worker's thread (a synchronous wait) also
//! holds back the task it last spawned or woke, until it returns.
//!
//! Waking workers: a push into a queue other workers can take from wakes one
//! parked worker, unless some worker is already *searching* (woken and not
//! yet holding a task): that one will find the task, and when the last
//! searcher finds a task it wakes one more parked worker in turn, so at most
//! a few workers chase the same work. Filling an empty LIFO slot wakes
//! nobody: the worker runs that task next.
//!
//! Parking invariant (no lost wakeup): a worker registers itself in `idle`,
//! stops searching, then re-checks every queue; a pusher pushes, then reads
//! `searching` and `num_idle` and, if nobody searches and somebody is idle,
//! takes a worker out of `idle` (marking it searching) and wakes it. The
//! `SeqCst` operations and fences on both sides make it impossible for the
//! worker to miss the push and the pusher to miss the idle worker at once.

use crate::concurrency::atomic::{fence, AtomicUsize, Ordering};
use crate::concurrency::{lock, thread, thread_local, Arc, Condvar, Mutex};
use std::cell::Cell;
use std::collections::VecDeque;
use std::io;

use super::runtime::{Flavor, Handle, Runtime, Shared};
use super::task::Task;

/// Every this many picks, a worker looks at the injector before its own queue.
const INJECTOR_INTERVAL: u32 = 61;

/// Consecutive runs from the LIFO slot before it is bypassed.
const MAX_LIFO_POLLS: u32 = 3;

type Queue = Mutex<VecDeque<Task>>;

/// Where a parked worker waits to be woken.
struct Parker {
    /// Set by a waker (or shutdown), consumed by the worker.
    woken: Mutex<bool>,
    cvar: Condvar,
}

/// The queues of a multi-thread runtime.
pub(crate) struct Queues {
    injector: Queue,
    locals: Box<[Queue]>,
    /// Indices of the parked (or parking) workers nobody woke yet.
    idle: Mutex<Vec<usize>>,
    /// `idle.len()`, readable without the lock.
    num_idle: AtomicUsize,
    /// Workers woken to look for work that have not found any yet.
    searching: AtomicUsize,
    parkers: Box<[Parker]>,
}

/// A worker's own state, in thread-locals of its thread.
struct Local {
    /// The address of the `Shared` this thread is a worker of; 0 elsewhere.
    shared: Cell<usize>,
    index: Cell<usize>,
    /// The task to run next, never stolen.
    lifo: Cell<Option<Task>>,
    /// Cleared after `MAX_LIFO_POLLS` runs from the slot in a row, and
    /// while the worker is blocked in a `block_on`.
    lifo_enabled: Cell<bool>,
    /// The runtime this thread is a worker of.
    owner: Cell<Option<Arc<Shared>>>,
}

thread_local! {
    static WORKER: Local = const {
        Local {
            shared: Cell::new(0),
            index: Cell::new(0),
            lifo: Cell::new(None),
            lifo_enabled: Cell::new(true),
            owner: Cell::new(None),
        }
    };
}

impl Queues {
    fn new(workers: usize) -> Queues {
        Queues {
            injector: Mutex::new(VecDeque::new()),
            locals: (0..workers).map(|_| Mutex::new(VecDeque::new())).collect(),
            idle: Mutex::new(Vec::with_capacity(workers)),
            num_idle: AtomicUsize::new(0),
            searching: AtomicUsize::new(0),
            parkers: (0..workers).map(|_| Parker { woken: Mutex::new(false), cvar: Condvar::new() }).collect(),
        }
    }

    /// Queues a spawned or woken task: into the LIFO slot on one of our
    /// workers, else on the injector.
    pub(crate) fn push(&self, shared: &Arc<Shared>, task: Task) {
        let displaced = WORKER.with(|w| {
            if w.shared.get() != Arc::as_ptr(shared) as usize {
                return Some((task, None));
            }
            if !w.lifo_enabled.get() {
                return Some((task, Some(w.index.get())));
            }
            w.lifo.replace(Some(task)).map(|prev| (prev, Some(w.index.get())))
        });
        match displaced {
            // Into an empty LIFO slot: this worker runs it next, nobody to wake.
            None => {}
            Some((task, Some(index))) => {
                lock(&self.locals[index]).push_back(task);
                self.notify_one();
            }
            Some((task, None)) => {
                lock(&self.injector).push_back(task);
                self.notify_one();
            }
        }
    }

    /// Queues a task that woke itself while worker `index` polled it, at
    /// the back of that worker's queue.
    fn push_back(&self, index: usize, task: Task) {
        lock(&self.locals[index]).push_back(task);
        self.notify_one();
    }

    /// Wakes one idle worker, unless one is already searching. Call after
    /// a push.
    fn notify_one(&self) {
        fence(Ordering::SeqCst);
        if self.searching.load(Ordering::SeqCst) != 0 || self.num_idle.load(Ordering::SeqCst) == 0 {
            return;
        }
        let index = {
            let mut idle = lock(&self.idle);
            if self.searching.load(Ordering::SeqCst) != 0 {
                return;
            }
            let Some(index) = idle.pop() else { return };
            self.num_idle.store(idle.len(), Ordering::SeqCst);
            self.searching.fetch_add(1, Ordering::SeqCst);
            index
        };
        self.parkers[index].wake();
    }

    /// Wakes every parked worker (shutdown).
    pub(crate) fn wake_all(&self) {
        for p in self.parkers.iter() {
            p.wake();
        }
    }

    /// Empties every queue (shutdown).
    pub(crate) fn drain(&self) -> Vec<Task> {
        let mut all: Vec<Task> = lock(&self.injector).drain(..).collect();
        for q in self.locals.iter() {
            all.extend(lock(q).drain(..));
        }
        all
    }

    /// The number of workers.
    pub(crate) fn workers(&self) -> usize {
        self.locals.len()
    }

    fn has_work(&self) -> bool {
        !lock(&self.injector).is_empty() || self.locals.iter().any(|q| !lock(q).is_empty())
    }

    /// The next task for worker `index`, stealing if its queue is empty.
    fn next_task(&self, index: usize, tick: u32) -> Option<Task> {
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
    fn steal(&self, index: usize) -> Option<Task> {
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
                // More than one task: let another worker help.
                self.notify_one();
            }
            return first;
        }
        None
    }

    /// Worker `index`, which has found nothing to run, blocks until it is
    /// woken or some queue has work or the runtime shuts down. Returns with
    /// the worker searching (`*searching` set and counted).
    fn park_worker(&self, shared: &Shared, index: usize, searching: &mut bool) {
        {
            let mut idle = lock(&self.idle);
            idle.push(index);
            self.num_idle.store(idle.len(), Ordering::SeqCst);
        }
        if *searching {
            self.searching.fetch_sub(1, Ordering::SeqCst);
        }
        fence(Ordering::SeqCst);
        if !shared.is_shutdown() && !self.has_work() {
            let parker = &self.parkers[index];
            let mut woken = lock(&parker.woken);
            while !*woken && !shared.is_shutdown() {
                woken = parker.cvar.wait(woken).unwrap_or_else(|e| e.into_inner());
            }
            *woken = false;
        }
        self.leave_idle(index);
        *searching = true;
    }

    /// Takes worker `index` out of `idle` and counts it searching, unless a
    /// pusher already did both (a wake may then still be on its way: it
    /// costs one spurious turn of the worker's loop later).
    fn leave_idle(&self, index: usize) {
        let mut idle = lock(&self.idle);
        if let Some(pos) = idle.iter().position(|&i| i == index) {
            idle.swap_remove(pos);
            self.num_idle.store(idle.len(), Ordering::SeqCst);
            self.searching.fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl Parker {
    fn wake(&self) {
        *lock(&self.woken) = true;
        self.cvar.notify_one();
    }
}

/// Undoes [`enter_blocking`] when dropped.
pub(crate) struct BlockingGuard {
    /// The worker's `lifo_enabled` before; `None` off a worker.
    restore: Option<bool>,
}

impl Drop for BlockingGuard {
    fn drop(&mut self) {
        if let Some(enabled) = self.restore {
            WORKER.with(|w| w.lifo_enabled.set(enabled));
        }
    }
}

/// Called by `block_on`: on a worker thread (a task blocking its worker),
/// moves the worker's LIFO task to its queue, where other workers can steal
/// it, wakes one of them, and bypasses the slot until the guard drops, so
/// what the blocked thread spawns or wakes meanwhile is not stuck behind
/// it. Does nothing on other threads.
pub(crate) fn enter_blocking() -> BlockingGuard {
    let worker = WORKER.with(|w| {
        let owner = w.owner.take()?;
        w.owner.set(Some(owner.clone()));
        Some((owner, w.index.get(), w.lifo.take(), w.lifo_enabled.replace(false)))
    });
    let Some((owner, index, lifo, enabled)) = worker else { return BlockingGuard { restore: None } };
    if let Flavor::Multi(queues) = &owner.flavor {
        match lifo {
            Some(task) => queues.push_back(index, task),
            None => queues.notify_one(),
        }
    }
    BlockingGuard { restore: Some(enabled) }
}

/// Returns `true` on a worker thread of the runtime `shared`.
pub(crate) fn on_worker_of(shared: &Shared) -> bool {
    WORKER.with(|w| w.shared.get()) == std::ptr::from_ref(shared) as usize
}

/// Starts `workers` threads and returns the runtime that owns them.
pub(crate) fn build(workers: usize, name: &str, stack_size: Option<usize>) -> io::Result<Runtime> {
    let shared = Shared::new(Flavor::Multi(Queues::new(workers)));
    let mut threads = Vec::with_capacity(workers);
    for index in 0..workers {
        let mut builder = thread::Builder::new().name(format!("{name}-{index}"));
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
            // Forget this runtime's LIFO task (shutdown cancels it).
            WORKER.with(|w| {
                w.shared.set(0);
                drop(w.lifo.take());
                drop(w.owner.take());
            });
            self.0.worker_exited();
        }
    }
    let _exit = Exit(&shared);
    WORKER.with(|w| {
        w.shared.set(Arc::as_ptr(&shared) as usize);
        w.index.set(index);
        w.lifo_enabled.set(true);
        w.owner.set(Some(shared.clone()));
    });
    let _enter = Handle { shared: shared.clone() }.enter();
    let Flavor::Multi(queues) = &shared.flavor else { unreachable!("a worker of a multi-thread runtime") };
    let mut tick: u32 = 0;
    let mut lifo_polls: u32 = 0;
    let mut searching = false;
    while !shared.is_shutdown() {
        let lifo = WORKER.with(|w| {
            let t = w.lifo.take();
            if t.is_none() {
                w.lifo_enabled.set(true);
            }
            t
        });
        let task = match lifo {
            Some(t) => {
                lifo_polls += 1;
                if lifo_polls >= MAX_LIFO_POLLS {
                    WORKER.with(|w| w.lifo_enabled.set(false));
                }
                t
            }
            None => {
                lifo_polls = 0;
                tick = tick.wrapping_add(1);
                match queues.next_task(index, tick) {
                    Some(t) => t,
                    None => {
                        queues.park_worker(&shared, index, &mut searching);
                        continue;
                    }
                }
            }
        };
        if searching {
            searching = false;
            // The last searcher to find work wakes another, which searches in turn.
            if queues.searching.fetch_sub(1, Ordering::SeqCst) == 1 {
                queues.notify_one();
            }
        }
        if let Some(task) = task.run() {
            if shared.is_shutdown() {
                task.cancel();
            } else {
                queues.push_back(index, task);
            }
        }
    }
}
