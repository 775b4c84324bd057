//! What `select!` expands to: a [`Select`] of the arms' operations, which
//! waits until some are ready and picks one, an explored choice.
//!
//! Invariants:
//! - An operation is chosen only once reserved (a message taken for the
//!   selecting thread, a send slot held for it), so the arm that runs
//!   next always completes it.
//! - While it waits, the select is registered on every channel of its
//!   operations, and checks them all again after registering, so no
//!   change between the check and the wait is missed.
//! - Among the ready operations the one taken is `rt::choose`'s inside an
//!   exploration (every ready operation is explored), random outside.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::signal::Signal;
use super::{Flavor, Receiver, RecvError, SendError, Sender};

/// What a select waits on: the operations' side of it.
trait Op {
    fn ready(&self) -> bool;
    fn reserve(&self) -> bool;
    fn register(&self, signal: &Arc<Signal>);
    fn unregister(&self, signal: &Arc<Signal>);
    /// When it becomes ready by itself (a time channel).
    fn deadline(&self) -> Option<Instant>;
}

impl<T> Op for Receiver<T> {
    fn ready(&self) -> bool {
        match &self.flavor {
            Flavor::Chan(chan) => chan.recv_ready(),
            Flavor::Time(timer) => timer.ready(),
            Flavor::Never => false,
        }
    }

    fn reserve(&self) -> bool {
        match &self.flavor {
            Flavor::Chan(chan) => chan.reserve_recv(),
            Flavor::Time(timer) => timer.reserve(),
            Flavor::Never => false,
        }
    }

    fn register(&self, signal: &Arc<Signal>) {
        match &self.flavor {
            Flavor::Chan(chan) => chan.register(signal, true),
            Flavor::Time(timer) => timer.register(signal),
            Flavor::Never => {}
        }
    }

    fn unregister(&self, signal: &Arc<Signal>) {
        if let Flavor::Chan(chan) = &self.flavor {
            chan.unregister(signal, true);
        }
    }

    fn deadline(&self) -> Option<Instant> {
        match &self.flavor {
            Flavor::Time(timer) => timer.next(),
            _ => None,
        }
    }
}

impl<T> Op for Sender<T> {
    fn ready(&self) -> bool {
        self.chan.send_ready()
    }

    fn reserve(&self) -> bool {
        self.chan.reserve_send()
    }

    fn register(&self, signal: &Arc<Signal>) {
        self.chan.register(signal, false);
    }

    fn unregister(&self, signal: &Arc<Signal>) {
        self.chan.unregister(signal, false);
    }

    fn deadline(&self) -> Option<Instant> {
        None
    }
}

#[doc(hidden)]
pub mod __private {
    //! The items `select!` expands to; not part of the API.

    use super::*;

    /// The index `Select::wait` returns for a `default` arm.
    pub const DEFAULT: usize = usize::MAX;

    /// An arm's result on its way out of the nested arms: the selected
    /// arm's value, or the index of the operation still to be matched.
    #[derive(Debug)]
    pub enum Pending<V> {
        /// The selected arm ran and gave this.
        Done(V),
        /// The operation at this index (or [`DEFAULT`]) was selected.
        NotMine(usize),
    }

    /// The operations of one `select!`, in the order of its arms.
    #[derive(Default)]
    pub struct Select<'a> {
        ops: Vec<&'a dyn Op>,
        /// `Some(None)`: a `default` arm; `Some(Some(t))`: `default(t)`.
        default: Option<Option<Duration>>,
        /// `select_biased!`: the first ready operation, no choice.
        biased: bool,
    }

    impl std::fmt::Debug for Select<'_> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Select")
                .field("ops", &self.ops.len())
                .field("default", &self.default)
                .field("biased", &self.biased)
                .finish()
        }
    }

    impl<'a> Select<'a> {
        /// An empty select.
        pub fn new() -> Select<'a> {
            Select::default()
        }

        /// Adds a receive; returns its index.
        pub fn recv<T>(&mut self, r: &'a Receiver<T>) -> usize {
            self.ops.push(r);
            self.ops.len() - 1
        }

        /// Adds a send; returns its index.
        pub fn send<T>(&mut self, s: &'a Sender<T>) -> usize {
            self.ops.push(s);
            self.ops.len() - 1
        }

        /// Takes the first ready operation instead of choosing
        /// (`select_biased!`).
        pub fn biased(&mut self) {
            self.biased = true;
        }

        /// Adds the `default` arm (`Some(t)`: `default(t)`).
        pub fn default_arm(&mut self, timeout: Option<Duration>) {
            self.default = Some(timeout);
        }

        /// Waits until an operation is ready and reserves one (an
        /// explored choice among the ready ones); returns its index, or
        /// [`DEFAULT`] when the `default` arm is taken.
        #[track_caller]
        pub fn wait(&mut self) -> usize {
            let deadline = match self.default {
                Some(Some(t)) => Some(Instant::now() + t),
                _ => None,
            };
            loop {
                let ready: Vec<usize> = (0..self.ops.len()).filter(|&i| self.ops[i].ready()).collect();
                if !ready.is_empty() {
                    let i = if self.biased { ready[0] } else { ready[samaritan::__private::pick(ready.len())] };
                    if self.ops[i].reserve() {
                        return i;
                    }
                    continue;
                }
                if self.default == Some(None) {
                    return DEFAULT;
                }
                let signal = Arc::new(Signal::new());
                for op in &self.ops {
                    op.register(&signal);
                }
                let until = self.ops.iter().filter_map(|op| op.deadline()).chain(deadline).min();
                if !self.ops.iter().any(|op| op.ready()) {
                    signal.wait(until);
                }
                for op in &self.ops {
                    op.unregister(&signal);
                }
                // Past the `default(timeout)` deadline with nothing ready
                // (timed out, or woken by a change that readied nothing).
                if deadline.is_some_and(|d| Instant::now() >= d) && !self.ops.iter().any(|op| op.ready()) {
                    return DEFAULT;
                }
            }
        }
    }

    impl<T> Receiver<T> {
        /// The message a select reserved for this thread.
        #[doc(hidden)]
        #[track_caller]
        pub fn __selected(&self) -> Result<T, RecvError> {
            match &self.flavor {
                Flavor::Chan(chan) => chan.take_handed().ok_or(RecvError),
                Flavor::Time(timer) => Ok(super::super::instant_as(timer.take_handed())),
                Flavor::Never => unreachable!("a never channel is never selected"),
            }
        }
    }

    impl<T> Sender<T> {
        /// Sends into the slot a select reserved for this thread.
        #[doc(hidden)]
        #[track_caller]
        pub fn __send_selected(&self, msg: T) -> Result<(), SendError<T>> {
            self.chan.send_reserved(msg)
        }
    }
}
