//! The executor inside an exploration: every task is an engine actor.
//!
//! Used only while [`rt::active`] holds (a `sim` build running a test
//! closure); outside an exploration the production executor runs, so a
//! `sim` build of ordinary code is unchanged.
//!
//! - A spawned task is an actor named `task-N` (`N` counts a runtime's
//!   tasks from 1) that polls its future in a loop. `block_on` runs the
//!   same loop on the calling actor. A runtime built inside an
//!   exploration starts no OS threads.
//! - Polls and wakes are visible operations: before each poll the task
//!   announces [`Op::Poll`] on its `Task` object, enabled only once the task
//!   was woken (the first poll at once); a waker announces [`Op::Wake`] and
//!   then marks the task woken. A future that returns `Pending` without
//!   arranging a wake (a lost wakeup) leaves its task disabled forever, which
//!   the engine reports as a deadlock of the task blocked in `poll`, at the
//!   location of the task's last visible operation before it returned
//!   `Pending`.
//! - A runtime built with `Builder::polls_at_once(n)` has `n` [`Workers`]:
//!   a poll's step also takes one, and an [`Op::Yield`] on them gives it
//!   back when `poll` returns (or once an aborted task's future is
//!   dropped), so at most `n` polls overlap; with one, a poll runs to its
//!   end before another task's begins. With `Builder::tokio_order` as
//!   well, the one worker polls the woken tasks in the order tokio's
//!   current-thread scheduler does (the `run_queue` module): a wake then
//!   also changes the workers' object, whose queue every poll reads.
//! - The output travels through the production [`JoinSlot`]: the finishing
//!   task stores it and wakes the joiner's waker (a visible wake when the
//!   joiner is simulated). A panic in `poll` is caught into
//!   [`JoinError::Panic`] by the production wrapper
//!   and so does not fail the execution.
//! - Abort: the [`JoinHandle`]'s first `abort` reaches [`abort_by_id`]
//!   (later ones do nothing); the simulated task, if it has not finished,
//!   is marked aborted and woken, and its loop drops the future, which
//!   publishes `Cancelled`.
//! - Shutdown (the runtime dropped) aborts every task still running, in
//!   spawn order (the same in every execution), so their futures are
//!   dropped by their own actors, after the drop returned (production
//!   drops them during it).
//!
//! - A waker called by a thread outside the model (a `std::thread`)
//!   announces nothing and only marks the task woken (Release, read with
//!   Acquire by the poll's condition); the engine waits a while for such
//!   a wake before it calls a task that nothing in the model can wake a
//!   deadlock (`samaritan_sim`'s `outside` module).
//!
//! Invariant: one actor runs at a time, so the other flags are Relaxed
//! atomics and the std locks inside the join slot are contended only by
//! threads outside the model.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe, Location};
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Wake, Waker};

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::{ObjectId, Op};

use super::id::Id;
use super::join::{Abort, Blocking, Join, JoinError, JoinHandle, JoinSlot, Wrapped};
use super::run_queue::{Next, RunQueue};
use super::runtime::{Handle, Shared};

/// The engine-side state of one simulated task (or `block_on` call).
struct SimTask {
    /// The `Task` object its polls and wakes name.
    slot: ObjectSlot,
    /// Set by a wake, consumed by the poll it enables.
    woken: AtomicBool,
    /// Wakers handed to timers that have fired, to be called before the
    /// next poll (a timer fires while the engine decides, where it may not
    /// call a waker, which takes a step).
    timer_wakers: Mutex<Vec<Waker>>,
    /// Set by abort and shutdown: the next poll drops the future instead.
    aborted: AtomicBool,
    /// The task's id; `None` for a `block_on` future, which is no task.
    id: Option<Id>,
    /// Whether it has finished for good (a later wake queues nothing).
    done: AtomicBool,
    /// Its key in the workers' run queue, unique in the process.
    key: u64,
    /// The workers of a runtime that polls in tokio's order, whose run
    /// queue its wakes join (the queue holds keys, not tasks, and the
    /// workers only a `Weak` to their `block_on` task: no cycle).
    ordered: Option<Arc<Workers>>,
}

impl SimTask {
    /// A task (`id`) or `block_on` future (`None`) polled on `workers`.
    fn new(id: Option<Id>, workers: Option<&Arc<Workers>>) -> Arc<SimTask> {
        static KEYS: AtomicU64 = AtomicU64::new(0);
        let ordered = workers.filter(|w| w.order.is_some()).cloned();
        // The first poll is enabled at once.
        let task = Arc::new(SimTask {
            slot: ObjectSlot::new(),
            woken: AtomicBool::new(true),
            timer_wakers: Mutex::new(Vec::new()),
            aborted: AtomicBool::new(false),
            id,
            done: AtomicBool::new(false),
            key: KEYS.fetch_add(1, Ordering::Relaxed),
            ordered,
        });
        if let Some(w) = workers {
            match task.id {
                // A spawned task is queued as woken; `block_on`'s future
                // takes its turns at the batches' ends.
                Some(_) => w.queue(&task, false),
                None => *crate::lock(&w.main) = Arc::downgrade(&task),
            }
        }
        task
    }

    /// Marks the task woken (`Release`: a wake from a thread outside the
    /// model hands over what that thread did before it to the poll it
    /// enables) and, on a runtime in tokio's order, queues it; `deferred`:
    /// it yielded (`yield_now` inside its own poll).
    fn mark_woken(self: &Arc<Self>, deferred: bool) {
        let was = self.woken.swap(true, Ordering::Release);
        if was || self.done.load(Ordering::Relaxed) {
            return;
        }
        if let Some(w) = &self.ordered {
            w.queue(self, deferred);
        }
    }

    fn object(&self) -> ObjectId {
        self.slot.id("Task").0
    }

    /// Marks the task finished for good: later wakes queue nothing, and a
    /// wake it queued during its last poll is taken back.
    fn finish(&self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(order) = self.ordered.as_ref().and_then(|w| w.order.as_ref()) {
            crate::lock(order).finished(self.key);
        }
    }

    /// Marks the task aborted and wakes it, after the visible wake.
    fn abort(self: &Arc<Self>) {
        self.announce_wake();
        self.aborted.store(true, Ordering::Relaxed);
        self.mark_woken(false);
    }

    /// Announces a wake of this task inside an exploration. Wakers are
    /// called through a vtable, so the caller's location is lost: the step
    /// shows the waking actor's previous visible operation instead. On a
    /// runtime in tokio's order the wake also changes the run queue, which
    /// every poll of the runtime reads: the step names the workers too.
    fn announce_wake(&self) {
        if rt::active() {
            let location = rt::last_location().unwrap_or(Location::caller());
            match &self.ordered {
                Some(w) => rt::step_with(Op::Wake, Some(self.object()), w.object(), location),
                None => rt::step(Op::Wake, Some(self.object()), location),
            }
        }
    }
}

thread_local! {
    /// Set while `yield_now` wakes its own task ([`defer`]).
    static DEFERRING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Wakes `waker` as tokio's `yield_now` does: a task that yields inside
/// its own poll is deferred to the end of the batch (on a runtime in
/// tokio's order; elsewhere this is `wake_by_ref`).
pub(crate) fn defer(waker: &Waker) {
    /// Lowers the flag however the wake ends (a waker may panic).
    struct Lower;
    impl Drop for Lower {
        fn drop(&mut self) {
            let _ = DEFERRING.try_with(|d| d.set(false));
        }
    }
    DEFERRING.with(|d| d.set(true));
    let _lower = Lower;
    waker.wake_by_ref();
}

impl Wake for SimTask {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        if rt::active() {
            // Inside a poll, a wake of another task is put off until the
            // poller's next visible operation or the poll's end
            // (`rt::defer_to_next_step`): wakers are often called under a
            // lock the model does not see (`futures::lock::Mutex` wakes
            // its next waiter holding a std mutex), and a task switched to
            // at the wake would block on that lock for real. The wake's
            // step keeps its place among the visible steps.
            let polling = with_task(|t| t.borrow().as_ref().map(|t| Arc::ptr_eq(t, self)));
            if polling == Some(false) {
                let task = self.clone();
                rt::defer_to_next_step(Box::new(move || {
                    task.announce_wake();
                    task.mark_woken(false);
                }));
                return;
            }
        }
        self.announce_wake();
        let deferred = DEFERRING.with(std::cell::Cell::get)
            && rt::active()
            && with_task(|t| t.borrow().as_ref().is_some_and(|t| Arc::ptr_eq(t, self)));
        self.mark_woken(deferred);
    }
}

/// The simulated tasks of one runtime that have not finished, by id, and
/// how many of them may be inside a poll at once.
#[derive(Default)]
pub(crate) struct Registry {
    /// By id, so that shutdown aborts them in spawn order in every
    /// execution (a hash map's order changes from one to the next).
    live: Mutex<BTreeMap<u64, Arc<SimTask>>>,
    /// `None`: no limit, every task's steps interleave with every other's.
    workers: Mutex<Option<Arc<Workers>>>,
    /// Counts the runtime's `spawn_blocking` closures, for their ids.
    blocking: AtomicU64,
}

impl Registry {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<SimTask>>> {
        crate::lock(&self.live)
    }

    /// Lets at most `n` tasks (and `block_on` futures) of the runtime be
    /// inside a poll at once (`Builder::polls_at_once`).
    /// `tokio_order`: and, with one, polls them in the order tokio's
    /// current-thread scheduler does.
    pub(crate) fn limit_polls(&self, n: usize, tokio_order: bool) {
        let workers = Workers {
            slot: ObjectSlot::new(),
            free: AtomicUsize::new(n),
            one: n == 1,
            order: (n == 1 && tokio_order).then(|| Mutex::new(RunQueue::default())),
            main: Mutex::new(Weak::new()),
        };
        *crate::lock(&self.workers) = Some(Arc::new(workers));
    }

    fn workers(&self) -> Option<Arc<Workers>> {
        crate::lock(&self.workers).clone()
    }
}

/// The worker threads a runtime polls its tasks on, `n` of them: a poll
/// takes one in its `Op::Poll` step, enabled once the task was woken and
/// while a worker is free, and gives it back when `poll` returns in an
/// `Op::Yield` step that names the workers as the object it changes (the
/// task hands the thread back to the scheduler: switching to another task
/// there is no preemption, as at every yield). So at most `n` polls
/// overlap and, with one worker, a poll runs to its end before another
/// task's begins (a current-thread runtime), interleaving only with
/// threads. The poll names the workers'
/// object as the second one it changes, so that the reductions see what
/// enables or disables it: a wake of its task, or a worker taken or given
/// back. With one worker the hand-over also orders the polls for the race
/// detector (one OS thread runs them all); with more it does not, since
/// two workers run on two threads.
struct Workers {
    slot: ObjectSlot,
    free: AtomicUsize,
    one: bool,
    /// With one worker in tokio's order: the woken tasks, in that order.
    order: Option<Mutex<RunQueue>>,
    /// The `block_on` future polling here, whose turn the order decides.
    main: Mutex<Weak<SimTask>>,
}

impl Workers {
    fn object(&self) -> ObjectId {
        self.slot.id("Worker").0
    }

    /// Queues woken `task` in tokio's order, if the runtime keeps one
    /// (not a `block_on` future, whose turn is no place in the queue).
    fn queue(&self, task: &SimTask, deferred: bool) {
        if task.id.is_none() {
            return;
        }
        if let Some(order) = &self.order {
            crate::lock(order).woken(task.key, deferred);
        }
    }

    /// Whether tokio's order lets `task` be polled now (always, without
    /// one).
    fn in_turn(&self, task: &SimTask) -> bool {
        let Some(order) = &self.order else { return true };
        let main_woken = crate::lock(&self.main).upgrade().is_some_and(|m| m.woken.load(Ordering::Acquire));
        match crate::lock(order).next(main_woken) {
            Next::Main => task.id.is_none(),
            Next::Task(key) => key == task.key,
            Next::Nothing => false,
        }
    }

    /// The `Op::Poll` step of `task`, taking a worker.
    fn poll(self: &Arc<Self>, task: &SimTask, location: &'static Location<'static>) -> OnWorker {
        let object = self.object();
        rt::step_with_when(Op::Poll, Some(task.object()), object, location, &|| {
            task.woken.load(Ordering::Acquire) && self.free.load(Ordering::Relaxed) > 0 && self.in_turn(task)
        });
        if let Some(order) = &self.order {
            match task.id {
                Some(_) => crate::lock(order).took(task.key),
                None => crate::lock(order).took_main(),
            }
        }
        self.free.fetch_sub(1, Ordering::Relaxed);
        if self.one {
            rt::acquired(object);
        }
        OnWorker { workers: self.clone() }
    }
}

/// A worker taken by [`Workers::poll`]; dropping it gives it back.
struct OnWorker {
    workers: Arc<Workers>,
}

impl Drop for OnWorker {
    fn drop(&mut self) {
        // Not while the execution unwinds away (its actors are abandoned).
        if rt::active() {
            let object = self.workers.object();
            let location = rt::last_location().unwrap_or(Location::caller());
            // A yield (the task gives the thread back to the scheduler, so
            // a switch here is no preemption) that changes the workers.
            rt::step_with(Op::Yield, Some(object), object, location);
            if self.workers.one {
                rt::released(object);
            }
        }
        self.workers.free.fetch_add(1, Ordering::Relaxed);
    }
}

/// Polls `future` each time `task` is woken until it is ready; `None` if
/// the task was aborted first. `location` names the first poll; each later
/// one is named by the task's last visible operation before `Pending`.
///
/// With `workers`, each poll runs on a worker its step takes (see
/// [`Workers`]); an aborted task's future is dropped on one too, as the
/// runtime's thread drops it.
fn poll_loop<F: Future + ?Sized>(
    task: &Arc<SimTask>,
    mut future: Pin<&mut F>,
    mut location: &'static Location<'static>,
    workers: Option<&Arc<Workers>>,
) -> Polled<F::Output> {
    let waker = Waker::from(task.clone());
    let mut cx = Context::from_waker(&waker);
    loop {
        let worker = match workers {
            Some(w) => Some(w.poll(task, location)),
            None => {
                rt::step_when(Op::Poll, Some(task.object()), location, &|| task.woken.load(Ordering::Acquire));
                None
            }
        };
        task.woken.store(false, Ordering::Relaxed);
        // Wakers of fired timers other than the task's own (a combinator's
        // child wakers) learn now that their timer is due.
        let fired = std::mem::take(&mut *crate::lock(&task.timer_wakers));
        for w in fired.into_iter().filter(|w| !w.will_wake(&waker)) {
            w.wake();
        }
        if task.aborted.load(Ordering::Relaxed) {
            task.finish();
            return Polled::Aborted(worker);
        }
        // Timers armed during the poll wake this task (see `timer_wake`).
        let previous = with_task(|t| t.borrow_mut().replace(task.clone()));
        let polled = future.as_mut().poll(&mut cx);
        // The wakes it put off, before the poll counts as returned.
        rt::run_deferred();
        with_task(|t| *t.borrow_mut() = previous);
        if polled.is_ready() {
            task.finish();
        }
        drop(worker);
        if let Poll::Ready(output) = polled {
            return Polled::Ready(output);
        }
        location = rt::last_location().unwrap_or(location);
    }
}

/// How [`poll_loop`] ended.
enum Polled<T> {
    Ready(T),
    /// Aborted before a poll; holding the worker the future is to be
    /// dropped on, if the runtime limits its polls.
    Aborted(Option<OnWorker>),
}

/// Spawns `future` as an actor on `handle`'s runtime.
pub(crate) fn spawn<F>(handle: &Handle, future: F, location: &'static Location<'static>) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let shared = &handle.shared;
    let slot = JoinSlot::new();
    let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
    let join = JoinHandle::new(Arc::new(SimJoin {
        slot: slot.clone(),
        id,
        shared: Arc::downgrade(shared),
        abort_requested: AtomicBool::new(false),
    }));
    if shared.is_shutdown() {
        slot.complete(Err(JoinError::cancelled()));
        return join;
    }
    let workers = shared.sim.workers();
    let task = SimTask::new(Some(Id::from_count(id)), workers.as_ref());
    shared.sim.lock().insert(id, task.clone());
    let wrapped = Wrapped::new(future, slot);
    let handle = handle.clone();
    let body = move || {
        let _enter = enter(&handle);
        let mut future = Box::pin(wrapped);
        // `Wrapped` stores the output (or the caught panic) when ready;
        // dropped unfinished (aborted), it stores `Cancelled`.
        let polled = poll_loop(&task, future.as_mut(), location, workers.as_ref());
        drop(future);
        // An aborted future was dropped on its worker; now give it back.
        if let Polled::Aborted(worker) = polled {
            drop(worker);
        }
        handle.shared.sim.lock().remove(&id);
    };
    // A task's stack is the exploration's default: one that cannot be had
    // means the machine is out of memory, which production's allocation
    // of a task would not survive either.
    if let Err(e) = rt::spawn(Some(format!("task-{}", id + 1)), None, location, Box::new(body)) {
        panic!("failed to spawn a task: no stack for it: {e}");
    }
    join
}

/// Runs `future` to completion on the calling actor, with `handle` current.
pub(crate) fn block_on<F: Future>(handle: &Handle, future: F, location: &'static Location<'static>) -> F::Output {
    let _enter = enter(handle);
    let workers = handle.shared.sim.workers();
    let task = SimTask::new(None, workers.as_ref());
    let future = pin!(future);
    match poll_loop(&task, future, location, workers.as_ref()) {
        Polled::Ready(output) => output,
        Polled::Aborted(_) => unreachable!("a block_on task is never aborted"),
    }
}

/// Runs `f` on an actor of its own (a simulated thread).
pub(crate) fn spawn_blocking<F, R>(handle: Option<Handle>, f: F, location: &'static Location<'static>) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let slot = JoinSlot::new();
    let out = slot.clone();
    // Numbered apart from the runtime's tasks (whose count names their
    // actors, which a blocking closure must not shift), from 2^32 on.
    let id = match &handle {
        Some(h) => Id::from_count((1 << 32) + h.shared.sim.blocking.fetch_add(1, Ordering::Relaxed)),
        None => Id::next(),
    };
    let body = move || {
        let _enter = handle.as_ref().map(enter);
        out.complete(catch_unwind(AssertUnwindSafe(f)).map_err(JoinError::panic));
    };
    // As production's `spawn_blocking` when the OS cannot start a thread.
    if let Err(e) = rt::spawn(None, None, location, Box::new(body)) {
        panic!("failed to start a blocking thread: {e}");
    }
    JoinHandle::new(Blocking::new(slot, id))
}

/// The join side of a simulated task: the production slot its `Wrapped`
/// future completes, and the way to its actor for `abort`.
struct SimJoin<T> {
    slot: Arc<JoinSlot<T>>,
    id: u64,
    shared: Weak<Shared>,
    /// Set by the first `abort`; later ones do nothing.
    abort_requested: AtomicBool,
}

impl<T: Send + 'static> Join<T> for SimJoin<T> {
    fn poll_join(&self, cx: &mut Context<'_>) -> Poll<Result<T, JoinError>> {
        self.slot.poll_join(cx)
    }

    fn is_finished(&self) -> bool {
        self.slot.is_finished()
    }

    fn abort(self: Arc<Self>) {
        if self.abort_requested.swap(true, Ordering::Relaxed) {
            return;
        }
        if let Some(shared) = self.shared.upgrade() {
            abort_by_id(&shared, self.id);
        }
    }

    /// The output stays in the slot until the last of the handle and the
    /// task's `Wrapped` lets go of it, as before tasks had their own slot.
    fn detach(&self) {}

    fn abort_handle(self: Arc<Self>) -> Arc<dyn Abort> {
        self
    }

    fn id(&self) -> Id {
        Id::from_count(self.id)
    }
}

impl<T: Send + 'static> Abort for SimJoin<T> {
    fn abort(self: Arc<Self>) {
        Join::abort(self)
    }

    fn is_finished(&self) -> bool {
        Join::is_finished(self)
    }

    fn id(&self) -> Id {
        Join::id(self)
    }
}

/// Aborts the simulated task `id` of `shared`, if it is one that has not
/// finished, inside an exploration.
fn abort_by_id(shared: &Shared, id: u64) {
    if !rt::active() {
        return;
    }
    let task = shared.sim.lock().get(&id).cloned();
    if let Some(task) = task {
        task.abort();
    }
}

/// Aborts every simulated task of a runtime that shuts down.
pub(crate) fn shutdown(shared: &Shared) {
    let live = std::mem::take(&mut *shared.sim.lock());
    for task in live.into_values() {
        task.abort();
    }
}

/// The key of the actor-local current runtime: an address no
/// `thread_local!` key can have.
static CURRENT_KEY: u8 = 0;

fn with_current<R>(f: impl FnOnce(&RefCell<Option<Handle>>) -> R) -> R {
    rt::with_local(&CURRENT_KEY as *const u8 as usize, || RefCell::new(None), f)
}

/// Returns the runtime the running actor is inside (the OS thread-local
/// of production is shared by every actor, so it is kept per actor).
pub(crate) fn try_current() -> Option<Handle> {
    with_current(|c| c.borrow().clone())
}

/// The key of the actor-local task being polled.
static TASK_KEY: u8 = 1;

fn with_task<R>(f: impl FnOnce(&RefCell<Option<Arc<SimTask>>>) -> R) -> R {
    rt::with_local(&TASK_KEY as *const u8 as usize, || RefCell::new(None), f)
}

/// Returns the id of the task the running actor is polling, if any.
pub(crate) fn current_id() -> Option<Id> {
    with_task(|t| t.borrow().as_ref().and_then(|t| t.id))
}

/// Returns what a timer armed now should do when the engine fires it
/// ([`rt::wake_at`]): while `live`, wake the task being polled without a
/// step (the engine calls it while it decides) and hand `waker` to the
/// task's next poll, which calls it. `None` outside a poll of a simulated
/// task.
pub(crate) fn timer_wake(waker: &Waker, live: Arc<AtomicBool>) -> Option<Box<dyn Fn()>> {
    let task = with_task(|t| t.borrow().clone())?;
    let waker = waker.clone();
    Some(Box::new(move || {
        // A timer whose sleep was dropped or reset wakes no one.
        if live.load(Ordering::Relaxed) {
            crate::lock(&task.timer_wakers).push(waker.clone());
            task.mark_woken(false);
        }
    }))
}

/// Restores the running actor's previous current runtime when dropped.
struct Enter {
    previous: Option<Handle>,
}

fn enter(handle: &Handle) -> Enter {
    Enter { previous: with_current(|c| c.borrow_mut().replace(handle.clone())) }
}

impl Drop for Enter {
    fn drop(&mut self) {
        let previous = self.previous.take();
        if rt::active() {
            with_current(|c| *c.borrow_mut() = previous);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A waker whose wake panics.
    struct Panics;

    impl Wake for Panics {
        fn wake(self: Arc<Self>) {
            panic!("this waker panics");
        }
    }

    #[test]
    fn a_waker_that_panics_in_a_deferred_wake_leaves_no_wake_deferred() {
        let waker = Waker::from(Arc::new(Panics));
        let unwound = catch_unwind(AssertUnwindSafe(|| defer(&waker)));
        assert!(unwound.is_err());
        assert!(!DEFERRING.with(std::cell::Cell::get), "the next wake on this thread would count as a yield");
    }
}
