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
//! - The output travels through the production [`JoinSlot`]: the finishing
//!   task stores it and wakes the joiner's waker (a visible wake when the
//!   joiner is simulated). A panic in `poll` is caught into
//!   [`JoinError::Panic`] by the production wrapper
//!   and so does not fail the execution.
//! - Abort: the [`JoinHandle`]'s first `abort` reaches [`abort_by_id`]
//!   (later ones do nothing); the simulated task, if it has not finished,
//!   is marked aborted and woken, and its loop drops the future, which
//!   publishes `Cancelled`.
//! - Shutdown (the runtime dropped) aborts every task still running, so
//!   their futures are dropped by their own actors, after the drop returned
//!   (production drops them during it).
//!
//! Invariant: one actor runs at a time, so the flags are Relaxed atomics
//! and the std locks inside the join slot are never contended.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe, Location};
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::task::{Context, Poll, Wake, Waker};

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::{ObjectId, Op};

use super::join::{Abort, Join, JoinError, JoinHandle, JoinSlot, Wrapped};
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
}

impl SimTask {
    fn new() -> Arc<SimTask> {
        // The first poll is enabled at once.
        Arc::new(SimTask {
            slot: ObjectSlot::new(),
            woken: AtomicBool::new(true),
            timer_wakers: Mutex::new(Vec::new()),
            aborted: AtomicBool::new(false),
        })
    }

    fn object(&self) -> ObjectId {
        self.slot.id("Task").0
    }

    /// Marks the task aborted and wakes it, after the visible wake.
    fn abort(self: &Arc<Self>) {
        self.announce_wake();
        self.aborted.store(true, Ordering::Relaxed);
        self.woken.store(true, Ordering::Relaxed);
    }

    /// Announces a wake of this task inside an exploration. Wakers are
    /// called through a vtable, so the caller's location is lost: the step
    /// shows the waking actor's previous visible operation instead.
    fn announce_wake(&self) {
        if rt::active() {
            rt::step(Op::Wake, Some(self.object()), rt::last_location().unwrap_or(Location::caller()));
        }
    }
}

impl Wake for SimTask {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.announce_wake();
        self.woken.store(true, Ordering::Relaxed);
    }
}

/// The simulated tasks of one runtime that have not finished, by id.
#[derive(Default)]
pub(crate) struct Registry {
    live: Mutex<HashMap<u64, Arc<SimTask>>>,
}

impl Registry {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<SimTask>>> {
        crate::lock(&self.live)
    }
}

/// Polls `future` each time `task` is woken until it is ready; `None` if
/// the task was aborted first. `location` names the first poll; each later
/// one is named by the task's last visible operation before `Pending`.
fn poll_loop<F: Future + ?Sized>(
    task: &Arc<SimTask>,
    mut future: Pin<&mut F>,
    mut location: &'static Location<'static>,
) -> Option<F::Output> {
    let waker = Waker::from(task.clone());
    let mut cx = Context::from_waker(&waker);
    loop {
        rt::step_when(Op::Poll, Some(task.object()), location, &|| task.woken.load(Ordering::Relaxed));
        task.woken.store(false, Ordering::Relaxed);
        // Wakers of fired timers other than the task's own (a combinator's
        // child wakers) learn now that their timer is due.
        let fired = std::mem::take(&mut *crate::lock(&task.timer_wakers));
        for w in fired.into_iter().filter(|w| !w.will_wake(&waker)) {
            w.wake();
        }
        if task.aborted.load(Ordering::Relaxed) {
            return None;
        }
        // Timers armed during the poll wake this task (see `timer_wake`).
        let previous = with_task(|t| t.borrow_mut().replace(task.clone()));
        let polled = future.as_mut().poll(&mut cx);
        with_task(|t| *t.borrow_mut() = previous);
        if let Poll::Ready(output) = polled {
            return Some(output);
        }
        location = rt::last_location().unwrap_or(location);
    }
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
    let task = SimTask::new();
    shared.sim.lock().insert(id, task.clone());
    let wrapped = Wrapped::new(future, slot);
    let handle = handle.clone();
    let body = move || {
        let _enter = enter(&handle);
        let mut future = Box::pin(wrapped);
        // `Wrapped` stores the output (or the caught panic) when ready;
        // dropped unfinished (aborted), it stores `Cancelled`.
        let _ = poll_loop(&task, future.as_mut(), location);
        drop(future);
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
    let task = SimTask::new();
    let future = pin!(future);
    poll_loop(&task, future, location).expect("a block_on task is never aborted")
}

/// Runs `f` on an actor of its own (a simulated thread).
pub(crate) fn spawn_blocking<F, R>(handle: Option<Handle>, f: F, location: &'static Location<'static>) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let slot = JoinSlot::new();
    let out = slot.clone();
    let body = move || {
        let _enter = handle.as_ref().map(enter);
        out.complete(catch_unwind(AssertUnwindSafe(f)).map_err(JoinError::panic));
    };
    // As production's `spawn_blocking` when the OS cannot start a thread.
    if let Err(e) = rt::spawn(None, None, location, Box::new(body)) {
        panic!("failed to start a blocking thread: {e}");
    }
    JoinHandle::new(slot)
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
}

impl<T: Send + 'static> Abort for SimJoin<T> {
    fn abort(self: Arc<Self>) {
        Join::abort(self)
    }

    fn is_finished(&self) -> bool {
        Join::is_finished(self)
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
    let live: Vec<_> = shared.sim.lock().drain().collect();
    for (_, task) in live {
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
            task.woken.store(true, Ordering::Relaxed);
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
