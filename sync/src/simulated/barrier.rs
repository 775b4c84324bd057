//! Simulated `Barrier`: a std barrier plus a modelled arrival count.
//!
//! A wait is one step (arrive) for the thread that completes the group, and
//! two (arrive, then block until the group is complete) for the others.
//!
//! Invariant: inside an execution, `arrived` counts the threads waiting in
//! the current generation and is always below `n` (or 0); `generation`
//! counts the groups released in that execution. The real barrier is used
//! only outside executions.

use std::fmt;
use std::panic::Location;
use std::sync::atomic::{AtomicUsize, Ordering};

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::{ObjectId, Op};

/// Same API as [`std::sync::Barrier`]; scheduled under `sim`.
pub struct Barrier {
    slot: ObjectSlot,
    n: usize,
    /// Threads waiting in the current generation.
    arrived: AtomicUsize,
    /// Groups released so far in the running execution.
    generation: AtomicUsize,
    inner: std::sync::Barrier,
}

/// Same API as [`std::sync::BarrierWaitResult`], which cannot be built
/// outside std.
#[derive(Debug)]
pub struct BarrierWaitResult(bool);

impl BarrierWaitResult {
    /// Returns `true` if this thread is the "leader thread" for the call to
    /// [`Barrier::wait()`]: under `sim`, the thread whose arrival completed
    /// the group.
    pub fn is_leader(&self) -> bool {
        self.0
    }
}

impl Barrier {
    /// Creates a new barrier that can block a given number of threads.
    pub const fn new(n: usize) -> Barrier {
        Barrier {
            slot: ObjectSlot::new(),
            n,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            inner: std::sync::Barrier::new(n),
        }
    }

    /// Returns this barrier's engine object, resetting the model on first
    /// use in an execution.
    fn object(&self) -> ObjectId {
        let (id, fresh) = self.slot.id("Barrier");
        if fresh {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.store(0, Ordering::Relaxed);
        }
        id
    }

    /// Blocks the current thread until all threads have rendezvoused here.
    #[track_caller]
    pub fn wait(&self) -> BarrierWaitResult {
        if !rt::active() {
            return BarrierWaitResult(self.inner.wait().is_leader());
        }
        let object = self.object();
        let location = Location::caller();
        rt::step(Op::BarrierWait, Some(object), location);
        let generation = self.generation.load(Ordering::Relaxed);
        let arrived = self.arrived.load(Ordering::Relaxed) + 1;
        if arrived >= self.n {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.store(generation.wrapping_add(1), Ordering::Relaxed);
            return BarrierWaitResult(true);
        }
        self.arrived.store(arrived, Ordering::Relaxed);
        rt::step_when(Op::BarrierWait, Some(object), location, &|| {
            self.generation.load(Ordering::Relaxed) != generation
        });
        BarrierWaitResult(false)
    }
}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Barrier").finish_non_exhaustive()
    }
}
