//! Simulated `mpsc`: std's channel outside an execution, a modelled one
//! inside.
//!
//! A channel made outside an execution is std's own, and every handle passes
//! straight through to it (using one inside an execution then blocks for
//! real, which the watchdog reports). A channel made inside an execution is
//! one engine object, `Channel#n`, whose operations are steps:
//!
//! | operation                        | op            | can proceed when                         |
//! |----------------------------------|---------------|------------------------------------------|
//! | `Sender::send`                   | `Send`        | always                                   |
//! | `SyncSender::send`, capacity `n` | `Send`        | fewer than `n` queued, or no receiver    |
//! | `SyncSender::send`, capacity 0   | `Send`        | the slot is empty, or no receiver       |
//! | ... then, second step            | `Send`        | the receiver took the value, or is gone  |
//! | `SyncSender::try_send`           | `TrySend`     | always                                   |
//! | `Receiver::recv`, `iter`         | `Recv`        | a value is queued, or no sender is left  |
//! | `Receiver::try_recv`, `try_iter` | `TryRecv`     | always                                   |
//! | `Receiver::recv_timeout`         | `RecvTimeout` | always; times out if nothing is queued   |
//! | dropping the last sender         | `Close`       | always                                   |
//! | dropping the receiver            | `Close`       | always                                   |
//!
//! A rendezvous (capacity 0) send is thus two steps, so the sender returns
//! only after the receiver took its value; a rendezvous `try_send` succeeds
//! only while the receiver is in `recv` or `recv_timeout`, and then by an
//! explored choice: the receiver announced its receive, but whether it had
//! reached it when the `try_send` ran (handed over) or not (`Full`) is up
//! to the real interleaving. Drop glue does not pass on its caller's
//! location, so `Close` steps show where the channel was made; the
//! iterators show where they were made.
//!
//! Cloning a sender and dropping a sender that is not the last are not
//! steps: they change nothing another thread can observe.

mod chan;

use std::fmt;
use std::panic::Location;
use std::sync::mpsc as std_mpsc;
use std::sync::mpsc::{RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError};
use std::sync::Arc;
use std::time::Duration;

use samaritan_sim::rt;

use chan::Chan;

/// Either std's handle or a handle on a modelled channel.
enum Handle<R, T> {
    Real(R),
    Sim(Arc<Chan<T>>),
}

/// Same API as [`std::sync::mpsc::Sender`]; scheduled under `sim`.
pub struct Sender<T>(Handle<std_mpsc::Sender<T>, T>);

/// Same API as [`std::sync::mpsc::SyncSender`]; scheduled under `sim`.
pub struct SyncSender<T>(Handle<std_mpsc::SyncSender<T>, T>);

/// Same API as [`std::sync::mpsc::Receiver`]; scheduled under `sim`.
pub struct Receiver<T>(Handle<std_mpsc::Receiver<T>, T>);

/// Same API as [`std::sync::mpsc::channel`]; modelled inside an execution.
#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    if !rt::active() {
        let (tx, rx) = std_mpsc::channel();
        return (Sender(Handle::Real(tx)), Receiver(Handle::Real(rx)));
    }
    let chan = Arc::new(Chan::new(None, Location::caller()));
    (Sender(Handle::Sim(chan.clone())), Receiver(Handle::Sim(chan)))
}

/// Same API as [`std::sync::mpsc::sync_channel`]; modelled inside an
/// execution, where capacity 0 is a rendezvous.
#[track_caller]
pub fn sync_channel<T>(bound: usize) -> (SyncSender<T>, Receiver<T>) {
    if !rt::active() {
        let (tx, rx) = std_mpsc::sync_channel(bound);
        return (SyncSender(Handle::Real(tx)), Receiver(Handle::Real(rx)));
    }
    let chan = Arc::new(Chan::new(Some(bound), Location::caller()));
    (SyncSender(Handle::Sim(chan.clone())), Receiver(Handle::Sim(chan)))
}

impl<T> Sender<T> {
    /// Sends a value; fails only if the receiver is gone.
    #[track_caller]
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        match &self.0 {
            Handle::Real(tx) => tx.send(t),
            Handle::Sim(chan) => chan.send(t, Location::caller()),
        }
    }
}

impl<T> SyncSender<T> {
    /// Sends a value, blocking while the channel is full; fails only if the
    /// receiver is gone.
    #[track_caller]
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        match &self.0 {
            Handle::Real(tx) => tx.send(t),
            Handle::Sim(chan) => chan.send(t, Location::caller()),
        }
    }

    /// Sends a value if there is room now.
    #[track_caller]
    pub fn try_send(&self, t: T) -> Result<(), TrySendError<T>> {
        match &self.0 {
            Handle::Real(tx) => tx.try_send(t),
            Handle::Sim(chan) => chan.try_send(t, Location::caller()),
        }
    }
}

macro_rules! sender_common {
    ($name:ident) => {
        impl<T> Clone for $name<T> {
            fn clone(&self) -> $name<T> {
                match &self.0 {
                    Handle::Real(tx) => $name(Handle::Real(tx.clone())),
                    Handle::Sim(chan) => {
                        chan.add_sender();
                        $name(Handle::Sim(chan.clone()))
                    }
                }
            }
        }

        impl<T> Drop for $name<T> {
            fn drop(&mut self) {
                if let Handle::Sim(chan) = &self.0 {
                    chan.drop_sender();
                }
            }
        }

        impl<T> fmt::Debug for $name<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).finish_non_exhaustive()
            }
        }
    };
}

sender_common!(Sender);
sender_common!(SyncSender);

impl<T> Receiver<T> {
    /// Blocks until a value arrives; fails once the channel is empty and
    /// every sender is gone.
    #[track_caller]
    pub fn recv(&self) -> Result<T, RecvError> {
        self.recv_at(Location::caller())
    }

    fn recv_at(&self, location: &'static Location<'static>) -> Result<T, RecvError> {
        match &self.0 {
            Handle::Real(rx) => rx.recv(),
            Handle::Sim(chan) => chan.recv(location),
        }
    }

    /// Returns a value if one is queued now.
    #[track_caller]
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        self.try_recv_at(Location::caller())
    }

    fn try_recv_at(&self, location: &'static Location<'static>) -> Result<T, TryRecvError> {
        match &self.0 {
            Handle::Real(rx) => rx.try_recv(),
            Handle::Sim(chan) => chan.try_recv(location),
        }
    }

    /// Waits at most `timeout` for a value. Inside an execution, whether it
    /// times out is an explored choice: it does if nothing is queued when
    /// it is scheduled.
    #[track_caller]
    pub fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        match &self.0 {
            Handle::Real(rx) => rx.recv_timeout(timeout),
            Handle::Sim(chan) => chan.recv_timeout(timeout, Location::caller()),
        }
    }

    /// Returns an iterator that blocks for each value until every sender is
    /// gone. Its steps show this call's location in traces.
    #[track_caller]
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { rx: self, location: Location::caller() }
    }

    /// Returns an iterator over the values queued now. Its steps show this
    /// call's location in traces.
    #[track_caller]
    pub fn try_iter(&self) -> TryIter<'_, T> {
        TryIter { rx: self, location: Location::caller() }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        if let Handle::Sim(chan) = &self.0 {
            chan.drop_receiver();
        }
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}

// The iterators remember where they were made: their `next` is mostly
// called from inside std's adapters (`sum`, `collect`), where
// `#[track_caller]` would point into std.

/// Same API as [`std::sync::mpsc::Iter`].
pub struct Iter<'a, T> {
    rx: &'a Receiver<T>,
    location: &'static Location<'static>,
}

/// Same API as [`std::sync::mpsc::TryIter`].
pub struct TryIter<'a, T> {
    rx: &'a Receiver<T>,
    location: &'static Location<'static>,
}

/// Same API as [`std::sync::mpsc::IntoIter`].
pub struct IntoIter<T> {
    rx: Receiver<T>,
    location: &'static Location<'static>,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.recv_at(self.location).ok()
    }
}

impl<T> Iterator for TryIter<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.try_recv_at(self.location).ok()
    }
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.recv_at(self.location).ok()
    }
}

impl<'a, T> IntoIterator for &'a Receiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;
    #[track_caller]
    fn into_iter(self) -> Iter<'a, T> {
        Iter { rx: self, location: Location::caller() }
    }
}

impl<T> IntoIterator for Receiver<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;
    #[track_caller]
    fn into_iter(self) -> IntoIter<T> {
        IntoIter { rx: self, location: Location::caller() }
    }
}

// Debug output as std's derived one: the receiver only.
macro_rules! iter_debug {
    ($name:ident $(, $lt:lifetime)?) => {
        impl<$($lt,)? T> fmt::Debug for $name<$($lt,)? T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).field("rx", &self.rx).finish()
            }
        }
    };
}

iter_debug!(Iter, 'a);
iter_debug!(TryIter, 'a);
iter_debug!(IntoIter);
