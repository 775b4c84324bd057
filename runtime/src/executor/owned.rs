//! The registry of a runtime's live tasks, which shutdown cancels: sharded
//! by task id, like tokio's `OwnedTasks`, so that spawns and completions
//! on different threads seldom take the same lock.
//!
//! Each shard is a slab (slots plus a free list) behind its own mutex; a
//! task records its slot in its header (`Header::slot`, read and written
//! only under the shard's lock). Ids come from one counter, so tasks
//! spawned in a row land in different shards.
//!
//! Invariants, per shard and under its lock:
//! - A task is in a slot from its spawn until it finishes (or shutdown
//!   closes the shard); its header names that slot until it finishes.
//! - Once `closed`, the shard is empty and stays so: inserting fails
//!   (the spawn then cancels the task) and removing does nothing.

use crate::concurrency::{lock, Mutex};
use std::sync::atomic::Ordering::Relaxed;

use super::task::{Header, Task};

/// The sentinel of `Header::slot`: in no shard.
const NO_SLOT: usize = usize::MAX;

/// The live tasks of one runtime; see the module docs.
pub(crate) struct OwnedTasks {
    shards: Box<[Mutex<Shard>]>,
    /// `shards.len() - 1`; the length is a power of two.
    mask: usize,
}

#[derive(Default)]
struct Shard {
    slots: Vec<Option<Task>>,
    free: Vec<usize>,
    closed: bool,
}

impl OwnedTasks {
    /// A registry with at least `shards` shards (rounded up to a power of two).
    pub(crate) fn new(shards: usize) -> OwnedTasks {
        let n = shards.max(1).next_power_of_two();
        OwnedTasks { shards: (0..n).map(|_| Mutex::new(Shard::default())).collect(), mask: n - 1 }
    }

    fn shard(&self, header: &Header) -> &Mutex<Shard> {
        // Truncating the id keeps its low bits, which is all the mask reads.
        &self.shards[header.id as usize & self.mask]
    }

    /// Registers `task`, unless its shard is closed or `refuse` (called
    /// under the shard's lock) says so; returns whether it did.
    pub(crate) fn insert(&self, task: &Task, refuse: impl FnOnce() -> bool) -> bool {
        let header = task.header();
        let mut shard = lock(self.shard(header));
        if shard.closed || refuse() {
            return false;
        }
        let index = match shard.free.pop() {
            Some(index) => {
                shard.slots[index] = Some(task.clone());
                index
            }
            None => {
                shard.slots.push(Some(task.clone()));
                shard.slots.len() - 1
            }
        };
        header.slot.store(index, Relaxed);
        true
    }

    /// Forgets the task of `header` (it finished); a no-op if it is in no
    /// shard any more.
    pub(crate) fn remove(&self, header: &Header) {
        let task = {
            let mut shard = lock(self.shard(header));
            let index = header.slot.swap(NO_SLOT, Relaxed);
            if index == NO_SLOT || shard.closed {
                return;
            }
            let task = shard.slots[index].take();
            debug_assert!(task.as_ref().is_some_and(|t| std::ptr::eq(t.header(), header)), "a task's slot names it");
            shard.free.push(index);
            task
        };
        // Outside the lock: this may be the last reference.
        drop(task);
    }

    /// Closes every shard and returns the tasks that were in them.
    pub(crate) fn close(&self) -> Vec<Task> {
        let mut all = Vec::new();
        for shard in self.shards.iter() {
            let mut shard = lock(shard);
            shard.closed = true;
            shard.free = Vec::new();
            all.extend(std::mem::take(&mut shard.slots).into_iter().flatten());
        }
        all
    }
}
