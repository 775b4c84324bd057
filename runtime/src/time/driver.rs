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

use std::cmp::Ordering as CmpOrdering;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
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
        crate::lock(&self.waker)
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

struct Driver {
    heap: Mutex<BinaryHeap<Item>>,
    cvar: Condvar,
    seq: AtomicU64,
}

fn driver() -> &'static Driver {
    static DRIVER: OnceLock<&'static Driver> = OnceLock::new();
    DRIVER.get_or_init(|| {
        let d: &'static Driver = Box::leak(Box::new(Driver {
            heap: Mutex::new(BinaryHeap::new()),
            cvar: Condvar::new(),
            seq: AtomicU64::new(0),
        }));
        if let Err(e) = std::thread::Builder::new().name("samaritan-timer".into()).spawn(move || d.run()) {
            panic!("failed to start the timer thread: {e}");
        }
        d
    })
}

impl Driver {
    fn lock(&self) -> MutexGuard<'_, BinaryHeap<Item>> {
        crate::lock(&self.heap)
    }

    fn run(&self) {
        let mut due = Vec::new();
        loop {
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
                continue;
            }
            drop(heap);
            for entry in due.drain(..) {
                entry.fire();
            }
        }
    }
}

/// Registers `entry` to fire at `deadline`.
pub(crate) fn register(deadline: Instant, entry: Arc<Entry>) {
    let d = driver();
    let seq = d.seq.fetch_add(1, Ordering::Relaxed);
    let mut heap = d.lock();
    heap.push(Item { deadline, seq, entry });
    let earliest = heap.peek().is_some_and(|top| top.seq == seq);
    drop(heap);
    if earliest {
        d.cvar.notify_one();
    }
}
