//! Wakes from outside the model: a task's waker called by a thread the
//! exploration does not control (a `std::thread`, another runtime's
//! worker) sets its task's flag without a step.
//!
//! When no actor can run, no timer is armed and a task waits in its poll,
//! such a wake may still be coming. The engine then waits for one, in real
//! time and for at most a quarter of the watchdog (not while a failure is
//! shrunk: `Config::outside_wakes`), instead of calling the
//! execution a deadlock at once, if threads are running that were not
//! when the exploration began (or the OS cannot say). It waits at the
//! first such point of an exploration, and at later ones only once a wake
//! has come from outside: an exploration whose program is woken only from
//! inside pays one wait, at the deadlock that ends it.
//!
//! Invariant: waiting changes nothing in the model; it only re-reads the
//! actors' conditions, as every decision does.

use std::time::{Duration, Instant};

/// What an exploration has learnt about wakes from outside, across its
/// executions.
#[derive(Debug)]
pub(crate) struct Outside {
    /// The process's OS threads when the exploration began.
    baseline: Option<usize>,
    /// Whether a wait has been tried (and found nothing).
    tried: bool,
    /// Whether a wake from outside came during a wait.
    seen: bool,
}

impl Outside {
    pub(crate) fn new() -> Outside {
        Outside { baseline: os_threads(), tried: false, seen: false }
    }

    /// How long to wait for a wake from outside now, at most `limit`;
    /// `None` not to wait.
    pub(crate) fn wait_for(&self, limit: Duration) -> Option<Duration> {
        if limit.is_zero() || (self.tried && !self.seen) {
            return None;
        }
        let more_threads = match (self.baseline, os_threads()) {
            (Some(then), Some(now)) => now > then,
            _ => true,
        };
        more_threads.then_some(limit)
    }

    /// Notes how a wait ended: with a wake from outside, or not.
    pub(crate) fn record(&mut self, came: bool) {
        self.seen |= came;
        self.tried = true;
    }
}

/// Waits `limit`, calling `woken` every millisecond until it returns
/// `true`; returns `limit` if nothing came (not the time measured, so that
/// a replay's verdict reads as the search's).
pub(crate) fn wait(limit: Duration, mut woken: impl FnMut() -> bool) -> Option<Duration> {
    // Real time: std's clocks inside an execution move only with it.
    let start = crate::wall_clock::real(Instant::now);
    while crate::wall_clock::real(|| start.elapsed()) < limit {
        std::thread::sleep(Duration::from_millis(1));
        if woken() {
            return None;
        }
    }
    Some(limit)
}

/// The number of OS threads of this process, where the OS says (Linux).
fn os_threads() -> Option<usize> {
    std::fs::read_dir("/proc/self/task").ok().map(|d| d.count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_that_finds_nothing_is_not_tried_again_until_a_wake_came() {
        let mut outside = Outside { baseline: Some(0), tried: false, seen: false };
        let limit = outside.wait_for(Duration::from_millis(10)).expect("more threads than none");
        assert_eq!(limit, Duration::from_millis(10));
        let start = Instant::now();
        assert_eq!(wait(limit, || false), Some(limit));
        assert!(start.elapsed() >= limit);
        outside.record(false);
        assert_eq!(outside.wait_for(limit), None);
        outside.record(true);
        assert_eq!(outside.wait_for(limit), Some(limit));
        assert_eq!(outside.wait_for(Duration::ZERO), None);
    }

    #[test]
    fn a_wake_ends_the_wait() {
        let mut calls = 0;
        let waited = wait(Duration::from_secs(10), || {
            calls += 1;
            calls == 3
        });
        assert_eq!((waited, calls), (None, 3));
    }

    #[test]
    fn no_new_thread_means_no_wait() {
        let outside = Outside { baseline: os_threads().map(|n| n + 1000), tried: false, seen: false };
        if outside.baseline.is_some() {
            assert_eq!(outside.wait_for(Duration::from_secs(1)), None);
        }
    }
}
