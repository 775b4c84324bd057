//! The channels that deliver time (`after`, `at`, `tick`) and the one
//! that never delivers (`never`), on std's clock, which follows the
//! virtual one inside an exploration.
//!
//! Invariant: `next` is the instant of the next delivery (`None` once an
//! `after`/`at` has delivered: it never delivers again); waiting for it is
//! a `thread::sleep`, waiting past the last one a wait nobody notifies.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam::channel::{RecvTimeoutError, TryRecvError};
use samaritan::sync::{Condvar, Mutex, MutexGuard};
use samaritan::thread::{self, ThreadId};

use super::signal::Signal;
use crate::sim::unpoisoned;

/// A timer's deliveries.
pub(crate) struct Timer {
    /// `None`: delivers once; `Some`: every period.
    period: Option<Duration>,
    state: Mutex<TimerState>,
    /// Never notified: what a receive past the last delivery waits on.
    idle: Condvar,
}

struct TimerState {
    next: Option<Instant>,
    /// Deliveries selects took, by thread.
    handed: Vec<(ThreadId, Instant)>,
}

impl Timer {
    pub(crate) fn new(first: Option<Instant>, period: Option<Duration>) -> Arc<Timer> {
        Arc::new(Timer {
            period,
            state: Mutex::new(TimerState { next: first, handed: Vec::new() }),
            idle: Condvar::new(),
        })
    }

    #[track_caller]
    fn lock(&self) -> MutexGuard<'_, TimerState> {
        unpoisoned(self.state.lock())
    }

    /// Takes the delivery due at `due`.
    fn deliver(&self, st: &mut TimerState, due: Instant) -> Instant {
        st.next = self.period.map(|p| due + p);
        due
    }

    /// Receives, waiting until `deadline` (`None`: for ever).
    #[track_caller]
    pub(crate) fn recv(&self, deadline: Option<Instant>) -> Result<Instant, RecvTimeoutError> {
        loop {
            let mut st = self.lock();
            let now = Instant::now();
            match st.next {
                Some(due) if due <= now => return Ok(self.deliver(&mut st, due)),
                Some(due) => {
                    drop(st);
                    let until = deadline.map_or(due, |d| d.min(due));
                    if deadline.is_some_and(|d| d < due && d <= now) {
                        return Err(RecvTimeoutError::Timeout);
                    }
                    thread::sleep(until.saturating_duration_since(now));
                    if deadline.is_some_and(|d| d < due) {
                        return Err(RecvTimeoutError::Timeout);
                    }
                }
                None => match deadline {
                    None => drop(unpoisoned(self.idle.wait(st))),
                    Some(d) => {
                        drop(st);
                        thread::sleep(d.saturating_duration_since(now));
                        return Err(RecvTimeoutError::Timeout);
                    }
                },
            }
        }
    }

    #[track_caller]
    pub(crate) fn try_recv(&self) -> Result<Instant, TryRecvError> {
        let mut st = self.lock();
        match st.next {
            Some(due) if due <= Instant::now() => Ok(self.deliver(&mut st, due)),
            _ => Err(TryRecvError::Empty),
        }
    }

    /// The next delivery, for a select's timeout.
    #[track_caller]
    pub(crate) fn next(&self) -> Option<Instant> {
        self.lock().next
    }

    #[track_caller]
    pub(crate) fn ready(&self) -> bool {
        self.lock().next.is_some_and(|due| due <= Instant::now())
    }

    #[track_caller]
    pub(crate) fn reserve(&self) -> bool {
        let mut st = self.lock();
        match st.next {
            Some(due) if due <= Instant::now() => {
                let at = self.deliver(&mut st, due);
                st.handed.push((thread::current().id(), at));
                true
            }
            _ => false,
        }
    }

    #[track_caller]
    pub(crate) fn take_handed(&self) -> Instant {
        let me = thread::current().id();
        let mut st = self.lock();
        let at = st.handed.iter().position(|(t, _)| *t == me).expect("a select reserved this receive");
        st.handed.remove(at).1
    }

    /// Timers need no wake-up: the select waits until their instant.
    pub(crate) fn register(&self, _signal: &Arc<Signal>) {}
}
