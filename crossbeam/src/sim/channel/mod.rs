//! `crossbeam::channel` under `sim`: multi-producer multi-consumer
//! channels on samaritan's mutex and condition variable, time channels on
//! the virtual clock, and `select!` with an explored choice.
//!
//! Invariant: a `Receiver<T>` of the time flavour exists only for
//! `T = Instant` (`after`, `at` and `tick` make it), which is what makes
//! handing an `Instant` out as a `T` sound.

mod chan;
mod select;
mod signal;
mod timer;

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use crossbeam::channel::{RecvError, RecvTimeoutError, SendError, SendTimeoutError, TryRecvError, TrySendError};

pub use crate::{select, select_biased};
#[doc(hidden)]
pub use select::__private;

use chan::Chan;
use timer::Timer;

/// The sending side of a channel, as crossbeam's (cloneable).
///
/// ```
/// extern crate samaritan_crossbeam as crossbeam;
/// use crossbeam::channel::{bounded, TrySendError};
///
/// let (tx, rx) = bounded(1);
/// tx.send(1).unwrap();
/// assert_eq!(tx.try_send(2), Err(TrySendError::Full(2)));
/// assert_eq!((rx.recv(), rx.len()), (Ok(1), 0));
/// ```
pub struct Sender<T> {
    chan: Arc<Chan<T>>,
}

/// The receiving side of a channel, as crossbeam's (cloneable: every
/// message goes to one receiver).
pub struct Receiver<T> {
    flavor: Flavor<T>,
}

enum Flavor<T> {
    Chan(Arc<Chan<T>>),
    /// Only in a `Receiver<Instant>` (the module's invariant).
    Time(Arc<Timer>),
    Never,
}

/// A channel of at most `cap` messages; `0` makes a rendezvous channel,
/// where a send waits for a receive.
pub fn bounded<T>(cap: usize) -> (Sender<T>, Receiver<T>) {
    let chan = Arc::new(Chan::new(Some(cap)));
    (Sender { chan: chan.clone() }, Receiver { flavor: Flavor::Chan(chan) })
}

/// A channel of any number of messages.
pub fn unbounded<T>() -> (Sender<T>, Receiver<T>) {
    let chan = Arc::new(Chan::new(None));
    (Sender { chan: chan.clone() }, Receiver { flavor: Flavor::Chan(chan) })
}

/// A channel that delivers the time once, `duration` from now.
///
/// ```
/// extern crate samaritan_crossbeam as crossbeam;
/// use std::time::Duration;
///
/// let timeout = crossbeam::channel::after(Duration::from_millis(1));
/// assert!(timeout.recv().is_ok());
/// ```
pub fn after(duration: Duration) -> Receiver<Instant> {
    at(Instant::now() + duration)
}

/// A channel that delivers the time once, at `when`.
pub fn at(when: Instant) -> Receiver<Instant> {
    Receiver { flavor: Flavor::Time(Timer::new(Some(when), None)) }
}

/// A channel that delivers the time every `duration`.
pub fn tick(duration: Duration) -> Receiver<Instant> {
    Receiver { flavor: Flavor::Time(Timer::new(Some(Instant::now() + duration), Some(duration))) }
}

/// A channel that never delivers.
pub fn never<T>() -> Receiver<T> {
    Receiver { flavor: Flavor::Never }
}

impl<T> Sender<T> {
    /// Sends, waiting for room (or, with capacity 0, for a receiver).
    #[track_caller]
    pub fn send(&self, msg: T) -> Result<(), SendError<T>> {
        self.chan.send(msg, None).map_err(|e| SendError(e.into_inner()))
    }

    /// Sends if it can now.
    #[track_caller]
    pub fn try_send(&self, msg: T) -> Result<(), TrySendError<T>> {
        self.chan.try_send(msg)
    }

    /// Sends, waiting at most `timeout`.
    #[track_caller]
    pub fn send_timeout(&self, msg: T, timeout: Duration) -> Result<(), SendTimeoutError<T>> {
        self.chan.send(msg, Some(Instant::now() + timeout))
    }

    /// Sends, waiting until `deadline` at most.
    #[track_caller]
    pub fn send_deadline(&self, msg: T, deadline: Instant) -> Result<(), SendTimeoutError<T>> {
        self.chan.send(msg, Some(deadline))
    }

    /// Whether the channel holds no message.
    #[track_caller]
    pub fn is_empty(&self) -> bool {
        self.chan.lock().len() == 0
    }

    /// Whether the channel is full (always, with capacity 0).
    #[track_caller]
    pub fn is_full(&self) -> bool {
        self.chan.lock().is_full()
    }

    /// How many messages it holds.
    #[track_caller]
    pub fn len(&self) -> usize {
        self.chan.lock().len()
    }

    /// Its capacity (`None`: unbounded).
    #[track_caller]
    pub fn capacity(&self) -> Option<usize> {
        self.chan.lock().capacity()
    }

    /// Whether `other` sends on the same channel.
    pub fn same_channel(&self, other: &Sender<T>) -> bool {
        Arc::ptr_eq(&self.chan, &other.chan)
    }
}

impl<T> Clone for Sender<T> {
    #[track_caller]
    fn clone(&self) -> Sender<T> {
        self.chan.lock().senders += 1;
        Sender { chan: self.chan.clone() }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.chan.drop_side(true);
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Sender { .. }")
    }
}

/// Hands out a time flavour's `Instant` as the receiver's `T`.
fn instant_as<T>(at: Instant) -> T {
    // SAFETY: only a `Receiver<Instant>` has the time flavour (the
    // module's invariant), so `T` is `Instant`, which is `Copy`.
    unsafe { std::mem::transmute_copy::<Instant, T>(&at) }
}

impl<T> Receiver<T> {
    /// Receives, waiting for a message.
    #[track_caller]
    pub fn recv(&self) -> Result<T, RecvError> {
        self.recv_until(None).map_err(|_| RecvError)
    }

    /// Receives if a message is there now.
    #[track_caller]
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        match &self.flavor {
            Flavor::Chan(chan) => chan.try_recv(),
            Flavor::Time(timer) => timer.try_recv().map(instant_as),
            Flavor::Never => Err(TryRecvError::Empty),
        }
    }

    /// Receives, waiting at most `timeout`.
    #[track_caller]
    pub fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        self.recv_until(Some(Instant::now() + timeout))
    }

    /// Receives, waiting until `deadline` at most.
    #[track_caller]
    pub fn recv_deadline(&self, deadline: Instant) -> Result<T, RecvTimeoutError> {
        self.recv_until(Some(deadline))
    }

    #[track_caller]
    fn recv_until(&self, deadline: Option<Instant>) -> Result<T, RecvTimeoutError> {
        match &self.flavor {
            Flavor::Chan(chan) => chan.recv(deadline),
            Flavor::Time(timer) => timer.recv(deadline).map(instant_as),
            Flavor::Never => match deadline {
                Some(d) => {
                    samaritan::thread::sleep(d.saturating_duration_since(Instant::now()));
                    Err(RecvTimeoutError::Timeout)
                }
                None => {
                    // Nothing ever comes: the thread blocks for good.
                    let (m, cv) = (samaritan::sync::Mutex::new(()), samaritan::sync::Condvar::new());
                    let mut g = crate::sim::unpoisoned(m.lock());
                    loop {
                        g = crate::sim::unpoisoned(cv.wait(g));
                    }
                }
            },
        }
    }

    /// Whether the channel holds no message.
    #[track_caller]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the channel is full.
    #[track_caller]
    pub fn is_full(&self) -> bool {
        match &self.flavor {
            Flavor::Chan(chan) => chan.lock().is_full(),
            Flavor::Time(timer) => timer.ready(),
            Flavor::Never => true,
        }
    }

    /// How many messages it holds.
    #[track_caller]
    pub fn len(&self) -> usize {
        match &self.flavor {
            Flavor::Chan(chan) => chan.lock().len(),
            Flavor::Time(timer) => usize::from(timer.ready()),
            Flavor::Never => 0,
        }
    }

    /// Its capacity (`None`: unbounded).
    #[track_caller]
    pub fn capacity(&self) -> Option<usize> {
        match &self.flavor {
            Flavor::Chan(chan) => chan.lock().capacity(),
            Flavor::Time(_) => Some(1),
            Flavor::Never => Some(0),
        }
    }

    /// Whether `other` receives from the same channel.
    pub fn same_channel(&self, other: &Receiver<T>) -> bool {
        match (&self.flavor, &other.flavor) {
            (Flavor::Chan(a), Flavor::Chan(b)) => Arc::ptr_eq(a, b),
            (Flavor::Time(a), Flavor::Time(b)) => Arc::ptr_eq(a, b),
            (Flavor::Never, Flavor::Never) => true,
            _ => false,
        }
    }

    /// The messages, waiting for each, until every sender is gone.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { rx: self }
    }

    /// The messages there now.
    pub fn try_iter(&self) -> TryIter<'_, T> {
        TryIter { rx: self }
    }
}

impl<T> Clone for Receiver<T> {
    #[track_caller]
    fn clone(&self) -> Receiver<T> {
        let flavor = match &self.flavor {
            Flavor::Chan(chan) => {
                chan.lock().receivers += 1;
                Flavor::Chan(chan.clone())
            }
            Flavor::Time(timer) => Flavor::Time(timer.clone()),
            Flavor::Never => Flavor::Never,
        };
        Receiver { flavor }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if let Flavor::Chan(chan) = &self.flavor {
            chan.drop_side(false);
        }
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Receiver { .. }")
    }
}

/// The messages of a [`Receiver`], waiting for each ([`Receiver::iter`]).
#[derive(Debug)]
pub struct Iter<'a, T> {
    rx: &'a Receiver<T>,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;

    #[track_caller]
    fn next(&mut self) -> Option<T> {
        self.rx.recv().ok()
    }
}

/// The messages there now ([`Receiver::try_iter`]).
#[derive(Debug)]
pub struct TryIter<'a, T> {
    rx: &'a Receiver<T>,
}

impl<T> Iterator for TryIter<'_, T> {
    type Item = T;

    #[track_caller]
    fn next(&mut self) -> Option<T> {
        self.rx.try_recv().ok()
    }
}

/// The messages of a [`Receiver`], owned.
#[derive(Debug)]
pub struct IntoIter<T> {
    rx: Receiver<T>,
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;

    #[track_caller]
    fn next(&mut self) -> Option<T> {
        self.rx.recv().ok()
    }
}

impl<T> IntoIterator for Receiver<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;

    fn into_iter(self) -> IntoIter<T> {
        IntoIter { rx: self }
    }
}

impl<'a, T> IntoIterator for &'a Receiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}
