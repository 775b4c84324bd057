//! [`sleep`] and [`Sleep`]: samaritan's virtual sleep inside an
//! exploration, tokio's outside.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use super::Instant;
use crate::exploring;

/// Waits until `duration` has elapsed; same API as [`tokio::time::sleep`].
///
/// Inside an exploration the virtual deadline is taken at the first poll
/// (samaritan's sleep), not at the call as tokio does: the same unless
/// virtual time moves between the two. The wait is a whole number of
/// milliseconds, at least one, as tokio's millisecond timer ticks make it.
#[track_caller]
pub fn sleep(duration: Duration) -> Sleep {
    if exploring() {
        let deadline = Instant::now().checked_add(duration).unwrap_or_else(far_future);
        Sleep(Repr::Sim { inner: samaritan::time::sleep(on_tokios_ticks(duration)), deadline })
    } else {
        Sleep(Repr::Tokio(Box::pin(tokio::time::sleep(duration))))
    }
}

/// Waits until `deadline`; same API as [`tokio::time::sleep_until`].
#[track_caller]
pub fn sleep_until(deadline: Instant) -> Sleep {
    if exploring() {
        Sleep(Repr::Sim { inner: virtual_sleep_until(deadline), deadline })
    } else {
        Sleep(Repr::Tokio(Box::pin(tokio::time::sleep_until(deadline.into()))))
    }
}

/// The virtual sleep until `deadline`, on tokio's ticks; a deadline
/// already past is ready at once, as on tokio.
fn virtual_sleep_until(deadline: Instant) -> samaritan::time::Sleep {
    match deadline.checked_duration_since(Instant::now()) {
        Some(left) => samaritan::time::sleep(on_tokios_ticks(left)),
        None => samaritan::time::sleep(Duration::ZERO),
    }
}

/// How long a sleep of `duration` lasts on tokio's timer, in virtual time.
///
/// tokio's timer has millisecond ticks: a sleep ends at the first tick at
/// or after its deadline rounded up to a whole millisecond, and since the
/// real clock always stands a little past the tick the driver last
/// processed, a sleep shorter than a millisecond (zero included) is
/// pending at its first poll and lasts until the next tick. The virtual
/// clock stands exactly on ticks, so the same sleep here is rounded up to
/// a whole number of milliseconds, at least one: a task that retries with
/// `sleep(Duration::ZERO)` lets the tasks it spawned run, and one that
/// loops on nanosecond sleeps lets time pass, as on tokio.
pub(super) fn on_tokios_ticks(duration: Duration) -> Duration {
    const TICK: u128 = 1_000_000;
    let ticks = duration.as_nanos().div_ceil(TICK).max(1);
    u64::try_from(ticks.saturating_mul(TICK)).map_or(Duration::MAX, Duration::from_nanos)
}

/// About thirty years from now, for a deadline past the clock's range.
pub(super) fn far_future() -> Instant {
    Instant::now() + Duration::from_secs(86400 * 365 * 30)
}

/// The future returned by [`sleep`] and [`sleep_until`]; same API as
/// [`tokio::time::Sleep`]. It is `Unpin` (tokio's is not; pinning it is
/// harmless).
#[must_use = "futures do nothing unless awaited"]
pub struct Sleep(Repr);

/// Whose sleep it is.
enum Repr {
    Sim { inner: samaritan::time::Sleep, deadline: Instant },
    Tokio(Pin<Box<tokio::time::Sleep>>),
}

impl Sleep {
    /// Returns the instant at which the sleep completes.
    pub fn deadline(&self) -> Instant {
        match &self.0 {
            Repr::Sim { deadline, .. } => *deadline,
            Repr::Tokio(s) => s.deadline().into(),
        }
    }

    /// Returns `true` once the deadline has passed.
    pub fn is_elapsed(&self) -> bool {
        match &self.0 {
            Repr::Sim { inner, deadline } => inner.is_elapsed() || Instant::now() >= *deadline,
            Repr::Tokio(s) => s.is_elapsed(),
        }
    }

    /// Moves the deadline, even after it elapsed.
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        match &mut self.get_mut().0 {
            Repr::Sim { inner, deadline: d } => {
                // A new sleep for the virtual time that remains (samaritan's
                // `reset` measures a deadline against the wall clock, which
                // moves meanwhile); dropping the old one disarms it.
                *inner = virtual_sleep_until(deadline);
                *d = deadline;
            }
            Repr::Tokio(s) => s.as_mut().reset(deadline.into()),
        }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match &mut self.get_mut().0 {
            Repr::Sim { inner, .. } => Pin::new(inner).poll(cx),
            Repr::Tokio(s) => s.as_mut().poll(cx),
        }
    }
}

impl fmt::Debug for Sleep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sleep").field("deadline", &self.deadline()).finish()
    }
}
