//! Timers for async code: [`sleep`], [`sleep_until`], [`timeout`] and
//! [`interval`], on a real timer thread.
//!
//! ```
//! # // The documentation is read as `samaritan::time`; this crate is
//! # // what `samaritan` re-exports there.
//! # extern crate samaritan_runtime as samaritan;
//! use std::time::Duration;
//! use samaritan::{executor, time};
//!
//! executor::block_on(async {
//!     time::sleep(Duration::from_millis(1)).await;
//!     let r = time::timeout(Duration::from_millis(1), std::future::pending::<()>()).await;
//!     assert!(r.is_err());
//! });
//! ```
//!
//! The timers work on any executor (and outside one): a single `samaritan-timer`
//! thread, started on first use, keeps the deadlines in a heap and wakes each
//! future once its deadline has passed. A timer never completes before its
//! deadline; how late it may be depends on the OS scheduler.
//!
//! Under the `sim` feature, outside an exploration this is the production
//! timer. Inside one, time is virtual: a sleep's first poll is a yielding
//! `Op::Sleep` step (`samaritan::Op`) that arms an engine timer
//! at its virtual deadline and returns `Pending`; when no actor can run,
//! the engine's clock jumps to the earliest deadline and wakes the task
//! that armed it. So a sleep lasts exactly its duration in virtual time and
//! nothing reads the wall clock, except the first poll of an absolute
//! deadline ([`sleep_until`], [`timeout_at`], [`interval_at`]), which is
//! measured against it once; later deadlines of an [`Interval`] follow in
//! virtual time. A [`timeout`] elapses only when nothing else can happen
//! first; when its future becomes ready at the same virtual instant as its
//! deadline, which one wins is an explored choice.

mod driver;

use std::fmt;
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use driver::Entry;

/// `now + d`, saturating at about thirty years from now.
fn deadline_after(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d).unwrap_or_else(|| now + Duration::from_secs(60 * 60 * 24 * 365 * 30))
}

/// Waits until `duration` has elapsed.
#[track_caller]
pub fn sleep(duration: Duration) -> Sleep {
    #[cfg_attr(not(feature = "sim"), allow(unused_mut))]
    let mut sleep = sleep_until(deadline_after(duration));
    #[cfg(feature = "sim")]
    {
        sleep.sim.duration = Some(duration);
    }
    sleep
}

/// Waits until `deadline`; completes at once if it has passed.
#[track_caller]
pub fn sleep_until(deadline: Instant) -> Sleep {
    Sleep {
        deadline,
        entry: None,
        #[cfg(feature = "sim")]
        sim: SimSleep { duration: None, location: std::panic::Location::caller(), deadline_ns: None, armed: None },
    }
}

/// What a sleep needs inside an exploration.
#[cfg(feature = "sim")]
#[derive(Debug)]
struct SimSleep {
    /// The exact duration, when made by [`sleep`]; `None` for a deadline.
    duration: Option<Duration>,
    /// Where the sleep was made, for its step.
    location: &'static std::panic::Location<'static>,
    /// Its virtual deadline (engine nanoseconds), once first polled.
    deadline_ns: Option<u64>,
    /// The armed engine timer's switch: cleared when the sleep is dropped
    /// or reset, so that a stale timer wakes no one.
    armed: Option<Arc<std::sync::atomic::AtomicBool>>,
}

#[cfg(feature = "sim")]
impl SimSleep {
    fn disarm(&mut self) {
        if let Some(live) = self.armed.take() {
            live.store(false, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

#[cfg(feature = "sim")]
fn nanos(d: Duration) -> u64 {
    d.as_nanos().min(u128::from(u64::MAX)) as u64
}

/// The future returned by [`sleep`] and [`sleep_until`].
///
/// It registers with the timer on its first `Pending` poll, and unregisters
/// its waker when dropped or reset.
#[must_use = "futures do nothing unless awaited"]
pub struct Sleep {
    deadline: Instant,
    /// `Some` once registered for `deadline`.
    entry: Option<Arc<Entry>>,
    #[cfg(feature = "sim")]
    sim: SimSleep,
}

impl Sleep {
    /// Returns the instant at which this sleep completes.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Returns `true` once the deadline has passed.
    pub fn is_elapsed(&self) -> bool {
        #[cfg(feature = "sim")]
        if samaritan_sim::rt::active() {
            return self.elapsed_sim();
        }
        self.entry.as_ref().is_some_and(|e| e.is_fired()) || Instant::now() >= self.deadline
    }

    /// Moves the deadline (earlier or later), even after it elapsed.
    pub fn reset(&mut self, deadline: Instant) {
        if let Some(entry) = self.entry.take() {
            entry.clear();
        }
        #[cfg(feature = "sim")]
        {
            // In virtual time: as far from the virtual now as `deadline` is
            // from the wall-clock now.
            self.sim.duration = None;
            self.sim.disarm();
            self.sim.deadline_ns = samaritan_sim::rt::active().then(|| {
                samaritan_sim::rt::now().saturating_add(nanos(deadline.saturating_duration_since(Instant::now())))
            });
        }
        self.deadline = deadline;
    }

    /// Moves the deadline `period` later (an interval's next tick): in
    /// virtual time exactly `period` after the last virtual deadline.
    fn shift(&mut self, period: Duration) {
        #[cfg(feature = "sim")]
        let next_ns = self.sim.deadline_ns.map(|d| d.saturating_add(nanos(period)));
        let next = self.deadline.checked_add(period).unwrap_or(self.deadline);
        self.reset(next);
        #[cfg(feature = "sim")]
        if next_ns.is_some() {
            self.sim.deadline_ns = next_ns;
        }
    }

    /// Polls in virtual time (inside an exploration).
    #[cfg(feature = "sim")]
    fn poll_sim(&mut self, cx: &Context<'_>) -> Poll<()> {
        use samaritan_sim::{rt, Op};
        let deadline = match self.sim.deadline_ns {
            Some(deadline) => deadline,
            None => {
                // The first poll: a yield, and the deadline fixed.
                rt::step(Op::Sleep, None, self.sim.location);
                let left = self.sim.duration.unwrap_or_else(|| self.deadline.saturating_duration_since(Instant::now()));
                let deadline = rt::now().saturating_add(nanos(left));
                self.sim.deadline_ns = Some(deadline);
                deadline
            }
        };
        if rt::now() >= deadline {
            return Poll::Ready(());
        }
        if self.sim.armed.is_none() {
            let live = Arc::new(std::sync::atomic::AtomicBool::new(true));
            match crate::executor::sim::timer_wake(cx.waker(), live.clone()) {
                Some(wake) => {
                    rt::wake_at(deadline, wake);
                    self.sim.armed = Some(live);
                }
                // Not polled by a simulated task (a hand-rolled executor):
                // nobody to wake, so the time passes at once.
                None => {
                    rt::advance_clock(deadline - rt::now());
                    return Poll::Ready(());
                }
            }
        }
        Poll::Pending
    }

    /// Returns whether the virtual deadline has passed (inside an
    /// exploration, once polled).
    #[cfg(feature = "sim")]
    fn elapsed_sim(&self) -> bool {
        self.sim.deadline_ns.is_some_and(|d| samaritan_sim::rt::now() >= d)
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        #[cfg(feature = "sim")]
        if samaritan_sim::rt::active() {
            return self.poll_sim(cx);
        }
        if self.is_elapsed() {
            return Poll::Ready(());
        }
        let fired = match &self.entry {
            Some(entry) => entry.set_waker(cx.waker()),
            None => {
                let entry = Arc::new(Entry::default());
                entry.set_waker(cx.waker());
                driver::register(self.deadline, entry.clone());
                self.entry = Some(entry);
                false
            }
        };
        if fired {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if let Some(entry) = &self.entry {
            entry.clear();
        }
        #[cfg(feature = "sim")]
        self.sim.disarm();
    }
}

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sleep").field("deadline", &self.deadline).finish_non_exhaustive()
    }
}

/// The error of a [`timeout`] whose deadline passed first.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Elapsed {}

impl fmt::Display for Elapsed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("deadline has elapsed")
    }
}

impl std::error::Error for Elapsed {}

impl From<Elapsed> for std::io::Error {
    fn from(e: Elapsed) -> Self {
        std::io::Error::new(std::io::ErrorKind::TimedOut, e)
    }
}

/// Runs `future` with a time limit: `Ok(output)` if it completes within
/// `duration`, `Err(Elapsed)` otherwise (and the future is dropped with the
/// [`Timeout`]). A future that is ready on its first poll always wins.
#[track_caller]
pub fn timeout<F: Future>(duration: Duration, future: F) -> Timeout<F> {
    Timeout { future, sleep: sleep(duration) }
}

/// Like [`timeout`], with an absolute deadline.
#[track_caller]
pub fn timeout_at<F: Future>(deadline: Instant, future: F) -> Timeout<F> {
    Timeout { future, sleep: sleep_until(deadline) }
}

pin_project_lite::pin_project! {
    /// The future returned by [`timeout`] and [`timeout_at`].
    #[must_use = "futures do nothing unless awaited"]
    pub struct Timeout<F> {
        #[pin]
        future: F,
        sleep: Sleep,
    }
}

impl<F> Timeout<F> {
    /// Returns the wrapped future.
    pub fn get_ref(&self) -> &F {
        &self.future
    }

    /// Consumes the timeout, returning the wrapped future.
    pub fn into_inner(self) -> F {
        self.future
    }
}

impl<F: Future> Future for Timeout<F> {
    type Output = Result<F::Output, Elapsed>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        // The future first: one that is ready wins over a passed deadline,
        // except in virtual time, where both at once is an explored race.
        if let Poll::Ready(v) = this.future.poll(cx) {
            #[cfg(feature = "sim")]
            if samaritan_sim::rt::active() && this.sleep.elapsed_sim() && samaritan_sim::rt::choose(2) == 1 {
                return Poll::Ready(Err(Elapsed {}));
            }
            return Poll::Ready(Ok(v));
        }
        match Pin::new(this.sleep).poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(Elapsed {})),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<F> fmt::Debug for Timeout<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Timeout").field("deadline", &self.sleep.deadline).finish_non_exhaustive()
    }
}

/// Returns an [`Interval`] whose first tick completes at once and each
/// next one `period` after the previous deadline.
///
/// # Panics
///
/// If `period` is zero.
#[track_caller]
pub fn interval(period: Duration) -> Interval {
    interval_at(Instant::now(), period)
}

/// Returns an [`Interval`] whose first tick completes at `start`.
///
/// # Panics
///
/// If `period` is zero.
#[track_caller]
pub fn interval_at(start: Instant, period: Duration) -> Interval {
    assert!(!period.is_zero(), "interval period must be non-zero");
    Interval { period, sleep: sleep_until(start) }
}

/// Ticks at a fixed period; see [`interval`].
///
/// Missed ticks burst: if a tick is awaited late, the following ones
/// complete at once until the schedule has caught up, so the number of
/// ticks after `n * period` is `n + 1` (the schedule does not drift).
#[derive(Debug)]
pub struct Interval {
    period: Duration,
    /// Sleeps until the next tick's deadline.
    sleep: Sleep,
}

impl Interval {
    /// Waits for the next tick and returns its scheduled instant.
    pub async fn tick(&mut self) -> Instant {
        poll_fn(|cx| self.poll_tick(cx)).await
    }

    /// Polls for the next tick; returns its scheduled instant once due.
    pub fn poll_tick(&mut self, cx: &mut Context<'_>) -> Poll<Instant> {
        match Pin::new(&mut self.sleep).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(()) => {
                let tick = self.sleep.deadline();
                self.sleep.shift(self.period);
                Poll::Ready(tick)
            }
        }
    }

    /// Returns the period between ticks.
    pub fn period(&self) -> Duration {
        self.period
    }

    /// Restarts the schedule: the next tick is one period from now.
    pub fn reset(&mut self) {
        self.sleep.reset(deadline_after(self.period));
    }
}
