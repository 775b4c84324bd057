//! [`interval`]: ticks on the virtual clock inside an exploration, tokio's
//! `Interval` outside.

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use super::{Instant, MissedTickBehavior, Sleep};
use crate::exploring;

/// Returns an [`Interval`] whose first tick completes at once; same API as
/// [`tokio::time::interval`].
///
/// # Panics
///
/// If `period` is zero.
#[track_caller]
pub fn interval(period: Duration) -> Interval {
    interval_at(Instant::now(), period)
}

/// Returns an [`Interval`] whose first tick completes at `start`; same API
/// as [`tokio::time::interval_at`].
///
/// # Panics
///
/// If `period` is zero.
#[track_caller]
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    assert!(period > Duration::ZERO, "`period` must be non-zero.");
    if exploring() {
        Interval(Repr::Sim { next: start, period, sleep: None, missed: MissedTickBehavior::Burst })
    } else {
        Interval(Repr::Tokio(tokio::time::interval_at(start.into(), period)))
    }
}

/// Ticks at a period; same API as [`tokio::time::Interval`] for `tick`,
/// `poll_tick`, `period`, `reset` and the missed-tick behaviour.
#[derive(Debug)]
pub struct Interval(Repr);

/// Whose interval it is.
#[derive(Debug)]
enum Repr {
    Sim {
        /// The next tick's deadline.
        next: Instant,
        period: Duration,
        /// Sleeps until `next`, once a poll found it in the future.
        sleep: Option<Sleep>,
        missed: MissedTickBehavior,
    },
    Tokio(tokio::time::Interval),
}

impl Interval {
    /// Waits for the next tick and returns its scheduled instant.
    pub async fn tick(&mut self) -> Instant {
        poll_fn(|cx| self.poll_tick(cx)).await
    }

    /// Polls for the next tick.
    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Instant> {
        match &mut self.0 {
            Repr::Sim { next, period, sleep, missed } => {
                let now = Instant::now();
                if *next > now {
                    let s = sleep.get_or_insert_with(|| super::sleep_until(*next));
                    if Pin::new(s).poll(cx).is_pending() {
                        return Poll::Pending;
                    }
                }
                *sleep = None;
                let tick = *next;
                let now = Instant::now();
                // tokio's rule: a tick more than 5 ms late is missed.
                *next = if now > tick + Duration::from_millis(5) {
                    match missed {
                        MissedTickBehavior::Delay => now + *period,
                        MissedTickBehavior::Skip => {
                            let late = now.duration_since(tick).as_nanos() % period.as_nanos();
                            now + *period - Duration::from_nanos(late as u64)
                        }
                        _ => tick + *period,
                    }
                } else {
                    tick + *period
                };
                Poll::Ready(tick)
            }
            Repr::Tokio(i) => i.poll_tick(cx).map(Instant::from),
        }
    }

    /// Restarts the schedule: the next tick is one period from now.
    pub fn reset(&mut self) {
        match &mut self.0 {
            Repr::Sim { next, period, sleep, .. } => {
                *next = Instant::now() + *period;
                *sleep = None;
            }
            Repr::Tokio(i) => i.reset(),
        }
    }

    /// Returns the period.
    pub fn period(&self) -> Duration {
        match &self.0 {
            Repr::Sim { period, .. } => *period,
            Repr::Tokio(i) => i.period(),
        }
    }

    /// Returns what happens when a tick is missed.
    pub fn missed_tick_behavior(&self) -> MissedTickBehavior {
        match &self.0 {
            Repr::Sim { missed, .. } => *missed,
            Repr::Tokio(i) => i.missed_tick_behavior(),
        }
    }

    /// Sets what happens when a tick is missed.
    pub fn set_missed_tick_behavior(&mut self, behavior: MissedTickBehavior) {
        match &mut self.0 {
            Repr::Sim { missed, .. } => *missed = behavior,
            Repr::Tokio(i) => i.set_missed_tick_behavior(behavior),
        }
    }
}
