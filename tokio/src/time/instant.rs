//! [`Instant`]: a point in time, on the virtual clock inside an
//! exploration.

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};
use std::sync::OnceLock;
use std::time::Duration;

use crate::exploring;

/// A measurement of a monotonically nondecreasing clock; same API as
/// [`tokio::time::Instant`].
///
/// [`Instant::now`] inside an exploration is a fixed origin plus
/// samaritan's virtual clock (which starts at zero in every execution), so
/// the differences between instants are exact and the same in every
/// replay; outside one it is tokio's `Instant::now` (which a paused tokio
/// clock controls). The origin is the wall-clock instant of the first call
/// inside an exploration in the process; only differences mean anything.
///
/// Inside an exploration a std instant converts to the instant as far
/// from the virtual now as it is from std's now, and back the same way
/// (std's clocks follow the virtual clock there: `samaritan_sim::
/// STD_CLOCKS_FOLLOW`): `interval_at((std::time::Instant::now() +
/// period).into(), period)` ticks first one period from now, as on tokio
/// (std's clock moves only with the program there, a microsecond a read:
/// the conversion is exact to tokio's millisecond tick).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    std: std::time::Instant,
}

/// The instant the virtual clock's zero stands for.
fn origin() -> std::time::Instant {
    static ORIGIN: OnceLock<std::time::Instant> = OnceLock::new();
    *ORIGIN.get_or_init(std::time::Instant::now)
}

impl Instant {
    /// Returns the current instant.
    pub fn now() -> Instant {
        if exploring() {
            Instant { std: origin() + Duration::from_nanos(samaritan_sim::rt::now()) }
        } else {
            Instant { std: tokio::time::Instant::now().into_std() }
        }
    }

    /// Converts a std instant (onto the virtual clock inside an
    /// exploration).
    pub fn from_std(std: std::time::Instant) -> Instant {
        if !exploring() {
            return Instant { std };
        }
        Instant { std: moved(std, std::time::Instant::now(), Instant::now().std) }
    }

    /// Converts to a std instant (from the virtual clock inside an
    /// exploration).
    pub fn into_std(self) -> std::time::Instant {
        if !exploring() {
            return self.std;
        }
        moved(self.std, Instant::now().std, std::time::Instant::now())
    }

    /// Returns the time from `earlier` to `self`, zero if `earlier` is later.
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// Returns the time from `earlier` to `self`, `None` if `earlier` is later.
    pub fn checked_duration_since(&self, earlier: Instant) -> Option<Duration> {
        self.std.checked_duration_since(earlier.std)
    }

    /// Returns the time from `earlier` to `self`, zero if `earlier` is later.
    pub fn saturating_duration_since(&self, earlier: Instant) -> Duration {
        self.std.saturating_duration_since(earlier.std)
    }

    /// Returns the time elapsed since `self`.
    pub fn elapsed(&self) -> Duration {
        Instant::now().saturating_duration_since(*self)
    }

    /// Returns `self + duration`, `None` on overflow.
    pub fn checked_add(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_add(duration).map(|std| Instant { std })
    }

    /// Returns `self - duration`, `None` on overflow.
    pub fn checked_sub(&self, duration: Duration) -> Option<Instant> {
        self.std.checked_sub(duration).map(|std| Instant { std })
    }
}

/// `instant` on a clock that reads `to` where the clock it was read on
/// reads `from`: as far ahead of `to`, or behind it, as it is of `from`
/// (`to` itself if that is before the type's range).
fn moved(instant: std::time::Instant, from: std::time::Instant, to: std::time::Instant) -> std::time::Instant {
    match instant.checked_duration_since(from) {
        Some(ahead) => to + ahead,
        None => to.checked_sub(from - instant).unwrap_or(to),
    }
}

impl From<std::time::Instant> for Instant {
    fn from(std: std::time::Instant) -> Instant {
        Instant::from_std(std)
    }
}

impl From<Instant> for std::time::Instant {
    fn from(i: Instant) -> std::time::Instant {
        i.into_std()
    }
}

impl From<tokio::time::Instant> for Instant {
    fn from(i: tokio::time::Instant) -> Instant {
        Instant::from_std(i.into_std())
    }
}

impl From<Instant> for tokio::time::Instant {
    fn from(i: Instant) -> tokio::time::Instant {
        tokio::time::Instant::from_std(i.into_std())
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;

    fn add(self, d: Duration) -> Instant {
        Instant { std: self.std + d }
    }
}

impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, d: Duration) {
        self.std += d;
    }
}

impl Sub<Duration> for Instant {
    type Output = Instant;

    fn sub(self, d: Duration) -> Instant {
        Instant { std: self.std - d }
    }
}

impl SubAssign<Duration> for Instant {
    fn sub_assign(&mut self, d: Duration) {
        self.std -= d;
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;

    fn sub(self, earlier: Instant) -> Duration {
        self.duration_since(earlier)
    }
}

impl fmt::Debug for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.std.fmt(f)
    }
}
