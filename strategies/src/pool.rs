//! Work stealing between the workers of one parallel search: a shared
//! pool of unexplored subtrees.
//!
//! Every worker runs its own search over the subtrees it holds. A worker
//! that has nothing left asks the pool ([`Member::take`]) and waits; a
//! worker with work checks after each execution whether anyone waits
//! ([`Member::hungry`], one relaxed load) and, if so, gives part of what it
//! has not explored yet ([`Member::give`]): for a depth-first search, half
//! of the untried alternatives of its shallowest decision that has any
//! (Yang et al., "Distributed dynamic partial order reduction", SPIN 2007,
//! hand unexplored branches of the search stack to idle workers the same
//! way). The search is over when nobody holds work and the pool is empty.
//!
//! Each item carries its *rank*: the smallest position, in the order one
//! worker would run executions, that an execution of the item can have
//! (for a depth-first search, the indices of the alternatives taken along
//! its prefix). A failure is recorded with its rank ([`Member::failed`]);
//! work wholly after the best failure found is dropped, and items are
//! handed out lowest rank first, so that the failure a search reports is
//! the first one the one-worker order reaches (with every execution
//! before it explored), whatever the timing.
//!
//! Invariants (under the lock):
//! - `working` counts the members that hold work: not waiting in `take`
//!   and not gone; the search is over exactly when it is 0 and `items` is
//!   empty (a member holding work may still give some).
//! - `items` holds no item whose rank is wholly after `best`.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// What the members of one search share.
#[derive(Debug)]
struct Shared<T> {
    state: Mutex<State<T>>,
    ready: Condvar,
    /// Members waiting in `take`, read without the lock.
    hungry: AtomicUsize,
    /// Whether `best` is set, read without the lock (after each
    /// execution: a search without failures never takes the lock then).
    failed: AtomicBool,
}

#[derive(Debug)]
struct State<T> {
    /// Unexplored work, with its rank.
    items: Vec<(Vec<u32>, T)>,
    working: usize,
    /// The rank of the first failure found, in the one-worker order.
    best: Option<Vec<u32>>,
    /// Set by a member whose part left executions beyond a preemption
    /// bound ([`Member::flag`]).
    flagged: bool,
}

/// Whether every execution with a rank that starts with `prefix` comes
/// after `best` in the one-worker order.
pub(crate) fn after(prefix: &[u32], best: &[u32]) -> bool {
    let k = prefix.len().min(best.len());
    prefix[..k] > best[..k]
}

/// One worker's handle on the pool of a parallel search; made by
/// [`team`]. Dropping it (the worker's search ended) lets the others
/// know it will give nothing more.
#[derive(Debug)]
pub(crate) struct Member<T> {
    shared: Arc<Shared<T>>,
    /// Whether this member holds work (counted in `working`).
    working: bool,
    /// Set when the search is called off: stop waiting.
    cancel: Option<Arc<AtomicBool>>,
}

/// The handles of `n` workers of one search: each starts holding work
/// (the first holds the whole space, the others hold nothing and ask the
/// pool at their first execution).
pub(crate) fn team<T>(n: usize) -> Vec<Member<T>> {
    let state = State { items: Vec::new(), working: n, best: None, flagged: false };
    let (ready, hungry, failed) = (Condvar::new(), AtomicUsize::new(0), AtomicBool::new(false));
    let shared = Arc::new(Shared { state: Mutex::new(state), ready, hungry, failed });
    (0..n).map(|_| Member { shared: shared.clone(), working: true, cancel: None }).collect()
}

impl<T> Member<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A panic while the lock was held left the state consistent: every
        // change under it is a single push, pop or count.
        self.shared.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Makes [`Member::take`] give up waiting once `cancel` is set.
    pub(crate) fn set_cancel(&mut self, cancel: Arc<AtomicBool>) {
        self.cancel = Some(cancel);
    }

    /// Whether a member waits for work (cheap: read after each execution).
    #[inline]
    pub(crate) fn hungry(&self) -> bool {
        self.shared.hungry.load(Ordering::Relaxed) > 0
    }

    /// Gives `item`, whose executions all have ranks starting with
    /// `rank`, to a waiting member (dropped when it comes after the best
    /// failure).
    pub(crate) fn give(&self, rank: Vec<u32>, item: T) {
        let mut state = self.lock();
        if state.best.as_deref().is_some_and(|best| after(&rank, best)) {
            return;
        }
        state.items.push((rank, item));
        drop(state);
        self.shared.ready.notify_one();
    }

    /// Stops holding work and waits for an item: the one of lowest rank.
    /// `None` when the search is over (no member holds work and none is
    /// left to give), or called off ([`Member::set_cancel`]).
    pub(crate) fn take(&mut self) -> Option<T> {
        let shared = self.shared.clone();
        let mut state = shared.state.lock().unwrap_or_else(|p| p.into_inner());
        if self.working {
            self.working = false;
            state.working -= 1;
        }
        self.shared.hungry.fetch_add(1, Ordering::Relaxed);
        let item = loop {
            if let Some(best) = state.best.clone() {
                state.items.retain(|(rank, _)| !after(rank, &best));
            }
            let lowest = (0..state.items.len()).min_by(|&a, &b| state.items[a].0.cmp(&state.items[b].0));
            if let Some(i) = lowest {
                state.working += 1;
                self.working = true;
                break Some(state.items.swap_remove(i).1);
            }
            if state.working == 0 {
                // Nobody can give anything any more: wake the others to
                // see it too.
                self.shared.ready.notify_all();
                break None;
            }
            state = match &self.cancel {
                // Looked at every 10 ms: whoever sets it does not know the
                // pool to wake it.
                Some(cancel) if cancel.load(Ordering::Relaxed) => break None,
                Some(_) => shared
                    .ready
                    .wait_timeout(state, Duration::from_millis(10))
                    .map_or_else(|p| p.into_inner().0, |w| w.0),
                None => shared.ready.wait(state).unwrap_or_else(|p| p.into_inner()),
            };
        };
        self.shared.hungry.fetch_sub(1, Ordering::Relaxed);
        item
    }

    /// Records a failure at `rank`; returns the best failure's rank now.
    pub(crate) fn failed(&self, rank: &[u32]) {
        let mut state = self.lock();
        if state.best.as_deref().is_none_or(|best| rank < best) {
            state.best = Some(rank.to_vec());
        }
        self.shared.failed.store(true, Ordering::Relaxed);
    }

    /// Whether every execution whose rank starts with `prefix` comes after
    /// the best failure found so far (it need not run).
    pub(crate) fn beyond_best(&self, prefix: impl FnOnce() -> Vec<u32>) -> bool {
        self.any_failed() && self.lock().best.as_deref().is_some_and(|best| after(&prefix(), best))
    }

    /// Notes that this member's part left executions beyond the search's
    /// bound: call before [`Member::take`], so that a member the pool
    /// tells the search is over sees it ([`Member::flagged`]).
    pub(crate) fn flag(&self) {
        self.lock().flagged = true;
    }

    /// Whether some member's part left executions beyond the bound.
    pub(crate) fn flagged(&self) -> bool {
        self.lock().flagged
    }

    /// Whether any member recorded a failure (no lock: a relaxed load; a
    /// failure recorded on another thread is seen an execution or so
    /// later, which costs executions, never correctness).
    #[inline]
    pub(crate) fn any_failed(&self) -> bool {
        self.shared.failed.load(Ordering::Relaxed)
    }
}

impl<T> Drop for Member<T> {
    fn drop(&mut self) {
        if self.working {
            let mut state = self.lock();
            state.working -= 1;
            drop(state);
            self.shared.ready.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_compare_by_their_common_prefix() {
        assert!(after(&[1, 3], &[1, 2, 9]));
        assert!(!after(&[1, 2], &[1, 2, 9]));
        assert!(!after(&[1, 2, 9, 0], &[1, 2, 9]));
        assert!(!after(&[0, 7], &[1]));
    }

    #[test]
    fn the_lowest_ranked_item_goes_first_and_work_after_a_failure_is_dropped() {
        let mut members = team::<&str>(2);
        let (mut a, b) = (members.remove(0), members.remove(0));
        b.give(vec![2, 0], "late");
        b.give(vec![1, 5], "early");
        assert_eq!(a.take(), Some("early"));
        b.failed(&[1, 9]);
        assert!(b.beyond_best(|| vec![2]));
        assert!(!b.beyond_best(|| vec![1, 8]));
        // The late item is wholly after the failure at [1, 9].
        b.give(vec![1, 7], "kept");
        assert_eq!(a.take(), Some("kept"));
        drop(b);
        // `a` took work twice and gave it back by asking again: now nobody
        // holds any, so the search is over.
        assert_eq!(a.take(), None);
    }

    #[test]
    fn a_waiting_member_gets_what_a_busy_one_gives_and_the_search_ends_when_all_wait() {
        let mut members = team::<u32>(3);
        let busy = members.remove(0);
        let waiting: Vec<_> = members
            .into_iter()
            .map(|mut m| std::thread::spawn(move || std::iter::from_fn(|| m.take()).collect::<Vec<_>>()))
            .collect();
        while !busy.hungry() {
            std::thread::yield_now();
        }
        for i in 0..10 {
            busy.give(vec![i], i);
        }
        drop(busy);
        let mut got: Vec<u32> = waiting.into_iter().flat_map(|h| h.join().unwrap()).collect();
        got.sort_unstable();
        assert_eq!(got, (0..10).collect::<Vec<_>>());
    }
}
