//! tokio's current-thread run order, for a simulated runtime that polls one
//! task at a time in it (`Builder::tokio_order`).
//!
//! tokio's current-thread scheduler (its `scheduler/current_thread`) runs
//! in batches: at the start of each it polls the `block_on` future if that
//! was woken, then polls tasks from its local run queue in the order they
//! were woken (spawned tasks are queued as woken), until the queue is empty
//! or it has polled `EVENT_INTERVAL` (61) of them; then it parks briefly,
//! which also wakes the tasks that deferred themselves in the batch
//! (`yield_now` puts the yielding task on a deferred list, not the queue),
//! and the next batch begins. This module keeps that order as data: who
//! may be polled next is a function of it, so a one-worker exploration
//! polls exactly the task tokio would, and explores only what tokio leaves
//! open (the moments at which threads run and wake tasks, `select!`'s
//! choices, timers).
//!
//! Invariants: a key is in the queue or the deferred list at most once,
//! and never in both; the `block_on` future is in neither (its turn comes
//! at a batch boundary, when it is woken); a finished task is in neither
//! (one that woke itself in its last poll is taken out when it finishes:
//! left at the queue's front, it would be next for good, and nobody polled).

use std::collections::VecDeque;

/// tokio's `event_interval` default: the task polls in a batch before the
/// scheduler looks at its driver and the `block_on` future again.
pub(crate) const EVENT_INTERVAL: u32 = 61;

/// Who tokio polls next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// The `block_on` future.
    Main,
    /// The task with this key.
    Task(u64),
    /// Nobody is woken.
    Nothing,
}

/// The woken tasks of one runtime, in tokio's order.
#[derive(Debug, Default)]
pub(crate) struct RunQueue {
    /// Woken tasks, in the order of their wakes.
    queue: VecDeque<u64>,
    /// Tasks that woke themselves in their own poll (`yield_now`), in that
    /// order: queued at the end of the batch.
    deferred: Vec<u64>,
    /// Task polls since the `block_on` future's last poll.
    since_main: u32,
}

impl RunQueue {
    /// Queues task `key`, woken (`deferred`: by itself, inside its own
    /// poll). A task already queued stays where it is.
    pub(crate) fn woken(&mut self, key: u64, deferred: bool) {
        if self.queue.contains(&key) || self.deferred.contains(&key) {
            return;
        }
        if deferred {
            self.deferred.push(key);
        } else {
            self.queue.push_back(key);
        }
    }

    /// Whether the batch is over: the queue is empty or a whole batch ran.
    fn boundary(&self) -> bool {
        self.queue.is_empty() || self.since_main >= EVENT_INTERVAL
    }

    /// Who is polled next, given whether the `block_on` future is woken.
    pub(crate) fn next(&self, main_woken: bool) -> Next {
        if self.boundary() {
            if main_woken {
                return Next::Main;
            }
            // The deferred tasks join the queue's end at the boundary.
            if let Some(&key) = self.queue.front().or(self.deferred.first()) {
                return Next::Task(key);
            }
            return Next::Nothing;
        }
        self.queue.front().map_or(Next::Nothing, |&key| Next::Task(key))
    }

    /// The `block_on` future's poll begins.
    pub(crate) fn took_main(&mut self) {
        if self.boundary() {
            self.flush();
        }
        self.since_main = 0;
    }

    /// Task `key`'s poll begins; it was [`next`](RunQueue::next).
    pub(crate) fn took(&mut self, key: u64) {
        if self.boundary() {
            self.flush();
        }
        debug_assert_eq!(self.queue.front(), Some(&key), "only the next task is polled");
        self.queue.retain(|&k| k != key);
        self.since_main = self.since_main.saturating_add(1);
    }

    /// Task `key` finished: it is polled no more, wherever it was queued.
    pub(crate) fn finished(&mut self, key: u64) {
        self.queue.retain(|&k| k != key);
        self.deferred.retain(|&k| k != key);
    }

    /// The end of a batch: the deferred tasks join the queue.
    fn flush(&mut self) {
        self.queue.extend(self.deferred.drain(..));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_run_in_wake_order_and_main_at_the_end_of_the_batch() {
        let mut q = RunQueue::default();
        assert_eq!(q.next(true), Next::Main);
        q.took_main();
        q.woken(2, false);
        q.woken(1, false);
        q.woken(2, false);
        // main is woken in the batch: it waits for the queue to drain.
        assert_eq!(q.next(true), Next::Task(2));
        q.took(2);
        assert_eq!(q.next(true), Next::Task(1));
        q.took(1);
        assert_eq!(q.next(true), Next::Main);
        assert_eq!(q.next(false), Next::Nothing);
    }

    #[test]
    fn a_yielding_task_goes_after_the_batch_and_after_main() {
        let mut q = RunQueue::default();
        q.woken(1, false);
        q.woken(2, false);
        q.took(1);
        q.woken(1, true);
        assert_eq!(q.next(true), Next::Task(2));
        q.took(2);
        // The boundary: main first, then the deferred task.
        assert_eq!(q.next(true), Next::Main);
        q.took_main();
        assert_eq!(q.next(false), Next::Task(1));
        // Without main woken, the deferred task goes at once.
        q.took(1);
        q.woken(1, true);
        assert_eq!(q.next(false), Next::Task(1));
        q.took(1);
        assert_eq!(q.next(false), Next::Nothing);
    }

    #[test]
    fn a_task_that_woke_itself_in_its_last_poll_leaves_the_queue_when_it_finishes() {
        let mut q = RunQueue::default();
        q.woken(1, false);
        q.woken(2, false);
        q.took(1);
        // Task 1 wakes itself, then its poll returns Ready.
        q.woken(1, false);
        q.finished(1);
        q.took(2);
        q.woken(2, true);
        q.finished(2);
        assert_eq!(q.next(true), Next::Main);
        assert_eq!(q.next(false), Next::Nothing);
    }

    #[test]
    fn main_gets_a_turn_after_a_whole_batch_even_if_tasks_keep_waking() {
        let mut q = RunQueue::default();
        q.woken(1, false);
        q.woken(2, false);
        for i in 0..EVENT_INTERVAL {
            let key = [1, 2][i as usize % 2];
            assert_eq!(q.next(true), Next::Task(key), "poll {i}");
            q.took(key);
            q.woken(key, false);
        }
        assert_eq!(q.next(true), Next::Main);
        q.took_main();
        assert_eq!(q.next(true), Next::Task(2));
    }
}
