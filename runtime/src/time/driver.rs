//! The timer: one lazily started thread that owns a min-heap of deadlines.
//!
//! Invariants: an [`Entry`] is in the heap at most once; the thread fires it
//! (sets `fired`, then takes and wakes its waker) once its deadline has
//! passed, outside the heap lock. A sleeper stores its waker and then
//! re-checks `fired`, so a fire racing the store is never lost. The thread
//! always waits on the condvar with the earliest deadline as its timeout,
//! and a registration that becomes the new earliest notifies it.
//!
//! A dropped sleep leaves its entry in the heap (without a waker) until its
//! deadline: removal is lazy.

use crate::concurrency::atomic::{AtomicBool, AtomicU64, Ordering};
use crate::concurrency::{lock, thread, Arc, Condvar, Mutex, MutexGuard};
use std::cmp::Ordering as CmpOrdering;
use std::collections::BinaryHeap;
use std::sync::OnceLock;
use std::task::Waker;
use std::time::Instant;

/// One registered deadline.
#[derive(Default)]
pub(crate) struct Entry {
    /// Set by the timer thread when the deadline passed; never cleared.
    fired: AtomicBool,
    /// The waker of the last poll; `None` once fired or dropped.
    waker: Mutex<Option<Waker>>,
}

impl Entry {
    fn lock(&self) -> MutexGuard<'_, Option<Waker>> {
        lock(&self.waker)
    }

    pub(crate) fn is_fired(&self) -> bool {
        self.fired.load(Ordering::Acquire)
    }

    /// Stores `waker` to be woken on fire; returns `true` if already fired.
    pub(crate) fn set_waker(&self, waker: &Waker) -> bool {
        let mut slot = self.lock();
        match &mut *slot {
            Some(w) if w.will_wake(waker) => {}
            w => *w = Some(waker.clone()),
        }
        drop(slot);
        self.is_fired()
    }

    /// Forgets the waker (the sleep was dropped or reset).
    pub(crate) fn clear(&self) {
        let w = self.lock().take();
        drop(w);
    }

    fn fire(&self) {
        self.fired.store(true, Ordering::Release);
        let w = self.lock().take();
        if let Some(w) = w {
            w.wake();
        }
    }
}

struct Item {
    deadline: Instant,
    /// Registration order, to break ties deterministically.
    seq: u64,
    entry: Arc<Entry>,
}

impl PartialEq for Item {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == CmpOrdering::Equal
    }
}

impl Eq for Item {}

impl PartialOrd for Item {
    fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}

impl Ord for Item {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest first.
    fn cmp(&self, other: &Self) -> CmpOrdering {
        (other.deadline, other.seq).cmp(&(self.deadline, self.seq))
    }
}

/// The heap of deadlines and the condvar its thread waits on.
pub(crate) struct Driver {
    heap: Mutex<BinaryHeap<Item>>,
    cvar: Condvar,
    seq: AtomicU64,
}

fn driver() -> &'static Driver {
    static DRIVER: OnceLock<&'static Driver> = OnceLock::new();
    DRIVER.get_or_init(|| {
        let d: &'static Driver = Box::leak(Box::new(Driver::new()));
        if let Err(e) = thread::Builder::new().name("samaritan-timer".into()).spawn(move || d.run()) {
            panic!("failed to start the timer thread: {e}");
        }
        d
    })
}

impl Driver {
    /// An empty driver; its thread is whoever calls [`Driver::turn`].
    pub(crate) fn new() -> Driver {
        Driver { heap: Mutex::new(BinaryHeap::new()), cvar: Condvar::new(), seq: AtomicU64::new(0) }
    }

    fn lock(&self) -> MutexGuard<'_, BinaryHeap<Item>> {
        lock(&self.heap)
    }

    fn run(&self) {
        let mut due = Vec::new();
        loop {
            self.turn(&mut due);
        }
    }

    /// One turn of the timer thread: fires every entry whose deadline has
    /// passed, or, when none has, waits until the earliest deadline or a
    /// new earliest registration. Returns how many entries it fired.
    /// `due` is scratch space, empty between turns.
    pub(crate) fn turn(&self, due: &mut Vec<Arc<Entry>>) -> usize {
        let mut heap = self.lock();
        let now = Instant::now();
        while heap.peek().is_some_and(|top| top.deadline <= now) {
            if let Some(item) = heap.pop() {
                due.push(item.entry);
            }
        }
        if due.is_empty() {
            let _unused = match heap.peek() {
                Some(top) => {
                    let wait = top.deadline - now;
                    self.cvar.wait_timeout(heap, wait).unwrap_or_else(|e| e.into_inner()).0
                }
                None => self.cvar.wait(heap).unwrap_or_else(|e| e.into_inner()),
            };
            return 0;
        }
        drop(heap);
        let fired = due.len();
        for entry in due.drain(..) {
            entry.fire();
        }
        fired
    }

    /// Registers `entry` to fire at `deadline`.
    pub(crate) fn register(&self, deadline: Instant, entry: Arc<Entry>) {
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        let mut heap = self.lock();
        heap.push(Item { deadline, seq, entry });
        let earliest = heap.peek().is_some_and(|top| top.seq == seq);
        drop(heap);
        if earliest {
            self.cvar.notify_one();
        }
    }
}

/// Registers `entry` to fire at `deadline` on the timer thread.
pub(crate) fn register(deadline: Instant, entry: Arc<Entry>) {
    driver().register(deadline, entry);
}

/// The driver's model test (issue #4), under samaritan and under loom; see
/// `executor/tests/mod.rs`.
#[cfg(all(test, any(samaritan_loom, feature = "sim")))]
mod tests {
    use std::future::poll_fn;
    use std::task::Poll;
    use std::time::Instant;

    use super::{Driver, Entry};
    use crate::concurrency::{thread, Arc};
    use crate::executor::tests as model;

    /// A sleep registering with a driver whose thread may already be
    /// waiting, and storing its waker while the thread may be firing it.
    /// A registration that becomes the earliest must wake the waiting
    /// thread, and a fire racing the waker's store must be seen by the
    /// sleeper's re-check; either loss leaves both sides waiting (a
    /// deadlock). The deadline has passed already, so the entry is due as
    /// soon as the thread looks and the model never waits for the clock.
    fn registration_racing_fire() {
        let driver = Arc::new(Driver::new());
        let d = driver.clone();
        let timer = thread::Builder::new()
            .name("timer".to_string())
            .spawn(move || {
                let mut due = Vec::new();
                while d.turn(&mut due) == 0 {}
            })
            .expect("the timer thread starts");
        let deadline = Instant::now();
        let entry = Arc::new(Entry::default());
        let mut registered = false;
        model::block_on(poll_fn(|cx| {
            if !registered {
                driver.register(deadline, entry.clone());
                registered = true;
            }
            if entry.set_waker(cx.waker()) {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        }));
        timer.join().expect("the timer thread finishes");
        assert!(entry.is_fired());
    }

    #[cfg(not(samaritan_loom))]
    #[test]
    fn a_registration_racing_the_timer_thread_is_fired_and_woken() {
        // 39 before spurious wake-ups of the timer thread's waits, 108
        // before the C11 model let its loads read older stores, 138 before
        // a spurious wake-up cost a preemption.
        model::check(61, registration_racing_fire);
    }

    #[cfg(samaritan_loom)]
    #[test]
    fn loom_a_registration_racing_the_timer_thread_is_fired_and_woken() {
        model::model(model::PREEMPTIONS, registration_racing_fire);
    }
}
