//! Simulated `Condvar`: a std condition variable plus a modelled wait queue.
//!
//! A wait is split as in inspect (inspect-runtime-model-checking-dpor,
//! section 4.3, "Handling wait and signal"): *pre-wait* joins the queue and
//! releases the mutex in one step; *wait* blocks until a notification picks
//! this waiter; *post-wait* re-acquires the mutex like `lock`. Because
//! joining the queue is its own step, a notification that runs before it
//! finds no waiter and is lost, exactly as on a real platform: a missing
//! predicate then shows up as a deadlock naming the condvar.
//!
//! Model choices:
//! - `notify_one` wakes one waiter of its choice: which one is an explored
//!   choice when two or more wait (the oldest first); std promises no order.
//! - A plain `wait` may wake spuriously, as std allows: after its pre-wait
//!   step it chooses (an explored choice) whether it will, and a wait that
//!   will has an always-enabled wait step, which wakes it whether or not a
//!   notification picked it first. Like a spurious weak compare-exchange
//!   failure, it is off with `Builder::spurious_failures(false)` and never
//!   chosen twice in a row for one thread on one condvar, so the usual
//!   `while !condition { wait }` loop terminates under exhaustive search.
//! - `wait_timeout`'s blocked step is always enabled: when it is scheduled
//!   before a notification reached the waiter, the wait times out and the
//!   virtual clock advances by the timeout.
//!
//! Invariant: inside an execution, `waiters` holds one flag per thread
//! between its pre-wait and its wake-up (notified, timed out or spurious),
//! oldest first; a flag is set exactly when its waiter was picked by a
//! notify. `spurious` holds the threads whose last `wait` on this condvar
//! in the running execution woke spuriously.

use std::collections::VecDeque;
use std::fmt;
use std::panic::Location;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, LockResult, PoisonError};
use std::time::Duration;

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::{ActorId, ObjectId, Op};

use super::mutex::{Mutex, MutexGuard};

/// Same API as [`std::sync::Condvar`]; scheduled under `sim`.
pub struct Condvar {
    slot: ObjectSlot,
    /// Notified flags of the waiting threads, oldest first. Never locked
    /// across a call into the engine.
    waiters: std::sync::Mutex<VecDeque<Waiter>>,
    /// The threads whose last `wait` woke spuriously. Never locked across
    /// a call into the engine.
    spurious: std::sync::Mutex<Vec<ActorId>>,
    inner: parking_lot::Condvar,
}

/// Set by the notification that picks a waiter: 0 while none has, else
/// the notifying actor's index plus one (for the trace's notes).
type Notified = Arc<AtomicU32>;

/// What the wake-up step's note says: who notified, or why it woke
/// without a notification.
fn woken_note(notified: u32, without: &'static str) {
    match notified.checked_sub(1) {
        Some(by) => rt::note(&|name| format!("woken by {}", name(ActorId::from_index(by as usize)))),
        None => rt::note(&|_| without.to_string()),
    }
}

/// A thread waiting on a condvar: who (for the trace's notes) and the
/// flag a notification sets.
#[derive(Debug)]
struct Waiter {
    actor: ActorId,
    notified: Notified,
}

/// Same API as [`std::sync::WaitTimeoutResult`], which cannot be built
/// outside std.
#[derive(Debug, PartialEq, Eq, Copy, Clone)]
pub struct WaitTimeoutResult(bool);

impl WaitTimeoutResult {
    /// Returns `true` if the wait was known to have timed out.
    pub fn timed_out(&self) -> bool {
        self.0
    }
}

impl Condvar {
    /// Creates a new condition variable which is ready to be waited on and
    /// notified.
    pub const fn new() -> Condvar {
        Condvar {
            slot: ObjectSlot::new(),
            waiters: std::sync::Mutex::new(VecDeque::new()),
            spurious: std::sync::Mutex::new(Vec::new()),
            inner: parking_lot::Condvar::new(),
        }
    }

    /// Returns this condvar's engine object, resetting the model on first use
    /// in an execution.
    fn object(&self) -> ObjectId {
        let (id, fresh) = self.slot.id("Condvar");
        if fresh {
            self.queue().clear();
            self.spurious.lock().unwrap_or_else(PoisonError::into_inner).clear();
        }
        id
    }

    fn queue(&self) -> std::sync::MutexGuard<'_, VecDeque<Waiter>> {
        self.waiters.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Blocks the current thread until this condition variable receives a
    /// notification.
    #[track_caller]
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> LockResult<MutexGuard<'a, T>> {
        self.wait_at(guard, true, Location::caller())
    }

    /// [`Condvar::wait`]; `spurious` says whether it may wake spuriously.
    fn wait_at<'a, T>(
        &self,
        mut guard: MutexGuard<'a, T>,
        spurious: bool,
        location: &'static Location<'static>,
    ) -> LockResult<MutexGuard<'a, T>> {
        let Some(lock) = guard.object.filter(|_| rt::active()) else {
            self.inner.wait(guard.inner.as_mut().expect("guard is live"));
            return guard.mutex.poison.result(guard);
        };
        let (mutex, notified) = self.pre_wait(guard, lock, location);
        if spurious && self.wakes_spuriously(location) {
            // Always enabled: scheduled before a notification picked this
            // waiter, it wakes without one.
            rt::step(Op::Wait, Some(self.object()), location);
            if notified.load(Ordering::Relaxed) == 0 {
                self.queue().retain(|w| !Arc::ptr_eq(&w.notified, &notified));
            }
            woken_note(notified.load(Ordering::Relaxed), "woke spuriously");
        } else {
            rt::step_when(Op::Wait, Some(self.object()), location, &|| notified.load(Ordering::Relaxed) != 0);
            woken_note(notified.load(Ordering::Relaxed), "woke");
        }
        post_wait(mutex, lock, location)
    }

    /// Decides whether the running thread's `wait`, past its pre-wait
    /// step, wakes spuriously: an explored choice when spurious failures
    /// are on and its last wait here did not, `false` otherwise.
    fn wakes_spuriously(&self, location: &'static Location<'static>) -> bool {
        if !rt::spurious_failures() {
            return false;
        }
        let me = rt::current();
        let last = self.spurious.lock().unwrap_or_else(PoisonError::into_inner).contains(&me);
        let wakes = !last && rt::choose_fault(location);
        let mut spurious = self.spurious.lock().unwrap_or_else(PoisonError::into_inner);
        if wakes {
            spurious.push(me);
        } else {
            spurious.retain(|&a| a != me);
        }
        wakes
    }

    /// Blocks the current thread until `condition` returns `false`.
    ///
    /// Under `sim` its waits do not wake spuriously: the caller could tell
    /// only by `condition` being called again with nothing changed, and
    /// the wake-ups would multiply the schedules of every caller.
    #[track_caller]
    pub fn wait_while<'a, T, F>(&self, mut guard: MutexGuard<'a, T>, mut condition: F) -> LockResult<MutexGuard<'a, T>>
    where
        F: FnMut(&mut T) -> bool,
    {
        let location = Location::caller();
        while condition(&mut *guard) {
            guard = self.wait_at(guard, false, location)?;
        }
        Ok(guard)
    }

    /// Waits on this condition variable for a notification, timing out
    /// after `dur`.
    #[track_caller]
    pub fn wait_timeout<'a, T>(
        &self,
        guard: MutexGuard<'a, T>,
        dur: Duration,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
        super::guard::wrap(self.wait_timeout_clocked(guard, dur, Location::caller()), |(g, r, _)| (g, r))
    }

    /// [`Condvar::wait_timeout`], also returning, inside an exploration,
    /// the virtual clock when the wait was scheduled and when it ended
    /// (after a time-out's advance). Both are read at the `wait_timeout`
    /// step, which is the step the dependency relation charges with the
    /// clock ([`Op::clock`]), and not later, after the mutex is taken
    /// again: a read there would belong to the `lock` step.
    fn wait_timeout_clocked<'a, T>(
        &self,
        mut guard: MutexGuard<'a, T>,
        dur: Duration,
        location: &'static Location<'static>,
    ) -> LockResult<Clocked<'a, T>> {
        let Some(lock) = guard.object.filter(|_| rt::active()) else {
            let timed_out = self.inner.wait_for(guard.inner.as_mut().expect("guard is live"), dur).timed_out();
            return guard.mutex.poison.result((guard, WaitTimeoutResult(timed_out), None));
        };
        let (mutex, notified) = self.pre_wait(guard, lock, location);
        // Always enabled: scheduled before a notification, it times out.
        rt::step(Op::WaitTimeout, Some(self.object()), location);
        let timed_out = notified.load(Ordering::Relaxed) == 0;
        woken_note(notified.load(Ordering::Relaxed), "timed out");
        let before = rt::now();
        if timed_out {
            self.queue().retain(|w| !Arc::ptr_eq(&w.notified, &notified));
            rt::advance_clock(dur.as_nanos().min(u128::from(u64::MAX)) as u64);
        }
        let clock = Some((before, rt::now()));
        super::guard::wrap(post_wait(mutex, lock, location), |g| (g, WaitTimeoutResult(timed_out), clock))
    }

    /// Waits on this condition variable while `condition` returns `true`,
    /// timing out after `dur` (measured on the virtual clock under `sim`,
    /// from the first wait's step).
    #[track_caller]
    pub fn wait_timeout_while<'a, T, F>(
        &self,
        mut guard: MutexGuard<'a, T>,
        dur: Duration,
        mut condition: F,
    ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)>
    where
        F: FnMut(&mut T) -> bool,
    {
        let location = Location::caller();
        let real_start = std::time::Instant::now();
        // The virtual clock at the first wait's step, and the time waited
        // since, as the waits' steps read it.
        // (None outside an exploration, where the wall clock counts.)
        let mut sim_start = None;
        let mut sim_elapsed = rt::active().then_some(Duration::ZERO);
        loop {
            if !condition(&mut *guard) {
                return Ok((guard, WaitTimeoutResult(false)));
            }
            let elapsed = sim_elapsed.unwrap_or_else(|| real_start.elapsed());
            let remaining = match dur.checked_sub(elapsed) {
                Some(left) if !left.is_zero() => left,
                _ => return Ok((guard, WaitTimeoutResult(true))),
            };
            let (next, _, clock) = match self.wait_timeout_clocked(guard, remaining, location) {
                Ok(done) => done,
                Err(poisoned) => {
                    let (g, r, _) = poisoned.into_inner();
                    return Err(PoisonError::new((g, r)));
                }
            };
            guard = next;
            sim_elapsed = clock.map(|(before, after)| {
                let start = *sim_start.get_or_insert(before);
                Duration::from_nanos(after - start)
            });
        }
    }

    /// Wakes up one blocked thread on this condvar: under `sim`, which one
    /// is an explored choice. Without waiters the notification is lost.
    #[track_caller]
    pub fn notify_one(&self) {
        if !rt::active() {
            self.inner.notify_one();
            return;
        }
        rt::step(Op::NotifyOne, Some(self.object()), Location::caller());
        // Who notified, for the woken waiter's note.
        let me = rt::current().index() as u32 + 1;
        let waiting = self.queue().len();
        if waiting == 0 {
            rt::note(&|_| "nobody was waiting: the notification is lost".to_string());
            return;
        }
        // The queue is not locked across the choice, a call into the engine.
        let picked = rt::choose(waiting);
        let woken = self.queue().remove(picked);
        if let Some(waiter) = woken {
            waiter.notified.store(me, Ordering::Relaxed);
            let still: Vec<ActorId> = self.queue().iter().map(|w| w.actor).collect();
            rt::note(&|name| match still.as_slice() {
                [] => format!("woke {}", name(waiter.actor)),
                rest => {
                    let rest: Vec<String> = rest.iter().map(|&a| name(a)).collect();
                    format!("woke {}; {} still waiting", name(waiter.actor), rest.join(", "))
                }
            });
        }
    }

    /// Wakes up all blocked threads on this condvar.
    #[track_caller]
    pub fn notify_all(&self) {
        if !rt::active() {
            self.inner.notify_all();
            return;
        }
        rt::step(Op::NotifyAll, Some(self.object()), Location::caller());
        // Who notified, for the woken waiter's note.
        let me = rt::current().index() as u32 + 1;
        let woken: Vec<Waiter> = self.queue().drain(..).collect();
        for waiter in &woken {
            waiter.notified.store(me, Ordering::Relaxed);
        }
        rt::note(&|name| match woken.as_slice() {
            [] => "nobody was waiting: the notification is lost".to_string(),
            all => format!("woke {}", all.iter().map(|w| name(w.actor)).collect::<Vec<_>>().join(", ")),
        });
    }

    /// Pre-wait: joins the queue and releases the mutex (model and real) in
    /// one step. Returns the mutex and this waiter's notified flag.
    fn pre_wait<'a, T>(
        &self,
        mut guard: MutexGuard<'a, T>,
        lock: ObjectId,
        location: &'static Location<'static>,
    ) -> (&'a Mutex<T>, Notified) {
        let object = self.object();
        // The guard stays whole across the step, so an unwind here unlocks.
        // The step changes the mutex too (it releases it).
        rt::step_with(Op::Wait, Some(object), lock, location);
        rt::note(&|_| "begins waiting".to_string());
        let notified = Arc::new(AtomicU32::new(0));
        self.queue().push_back(Waiter { actor: rt::current(), notified: notified.clone() });
        let mutex = guard.mutex;
        drop(guard.inner.take());
        drop(guard);
        mutex.release(lock);
        (mutex, notified)
    }
}

/// What [`Condvar::wait_timeout_clocked`] returns: the guard, whether the
/// wait timed out, and the virtual clock when its step was scheduled and
/// when it ended (inside an exploration).
type Clocked<'a, T> = (MutexGuard<'a, T>, WaitTimeoutResult, Option<(u64, u64)>);

/// Post-wait: re-acquires the mutex, blocking like `lock`.
fn post_wait<'a, T>(
    mutex: &'a Mutex<T>,
    lock: ObjectId,
    location: &'static Location<'static>,
) -> LockResult<MutexGuard<'a, T>> {
    rt::step_when(Op::Lock, Some(lock), location, &|| !mutex.is_locked());
    mutex.acquire(lock, location)
}

impl fmt::Debug for Condvar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Condvar").finish_non_exhaustive()
    }
}

impl Default for Condvar {
    fn default() -> Condvar {
        Condvar::new()
    }
}
