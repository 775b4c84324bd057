//! The modelled channel behind every handle of a channel made inside an
//! execution: one engine object of kind `"Channel"`.
//!
//! Invariants:
//! - The queue and every counter change only with `queue` locked, so the
//!   counters always mirror the queue (`len == queue.len()`). Inside an
//!   execution only one actor runs, so the lock is uncontended; the engine's
//!   `ready` closures read the counters without it.
//! - `senders` counts live `Sender`s and `SyncSender`s; `receiver` is true
//!   until the `Receiver` is dropped. Neither ever comes back.
//! - For a rendezvous channel (capacity 0) the queue holds at most one
//!   value: the one a sender is handing over. The sender's value was taken
//!   once `popped` reaches its ticket (the value of `pushed` after its push).
//!
//! A channel used outside an execution (it escaped the one that made it)
//! still works: the waits that the engine schedules inside an execution
//! block on `cv` instead.

use std::collections::VecDeque;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::{RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use samaritan_sim::rt::{self, ObjectSlot};
use samaritan_sim::{ObjectId, Op};

type Loc = &'static Location<'static>;

pub(super) struct Chan<T> {
    /// Where the channel was made: drops of its handles are reported here,
    /// since drop glue does not pass on its caller's location.
    made_at: Loc,
    slot: ObjectSlot,
    /// `None` for `channel()`, `Some(n)` for `sync_channel(n)`.
    capacity: Option<usize>,
    queue: Mutex<VecDeque<T>>,
    /// Wakes waiters outside an execution; unused inside one.
    cv: Condvar,
    len: AtomicUsize,
    senders: AtomicUsize,
    receiver: AtomicBool,
    /// Values ever pushed and popped, for rendezvous tickets.
    pushed: AtomicU64,
    popped: AtomicU64,
    /// Whether the receiver is in `recv` or `recv_timeout`, or (inside an
    /// execution) has announced one: a rendezvous `try_send` succeeds only
    /// then, and in the second case only by an explored choice.
    receiving: AtomicBool,
}

impl<T> Chan<T> {
    /// Creates a channel with one sender and the receiver alive, registered
    /// with the engine if inside an execution.
    pub(super) fn new(capacity: Option<usize>, made_at: Loc) -> Chan<T> {
        let chan = Chan {
            made_at,
            slot: ObjectSlot::new(),
            capacity,
            queue: Mutex::new(VecDeque::new()),
            cv: Condvar::new(),
            len: AtomicUsize::new(0),
            senders: AtomicUsize::new(1),
            receiver: AtomicBool::new(true),
            pushed: AtomicU64::new(0),
            popped: AtomicU64::new(0),
            receiving: AtomicBool::new(false),
        };
        // Number objects in creation order. The counters mirror the queue
        // in and out of executions, so a fresh registration resets nothing.
        chan.object();
        chan
    }

    fn object(&self) -> Option<ObjectId> {
        rt::active().then(|| self.slot.id("Channel").0)
    }

    fn lock(&self) -> MutexGuard<'_, VecDeque<T>> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Announces `op`, which can always proceed, and locks the queue.
    fn step(&self, op: Op, loc: Loc) -> MutexGuard<'_, VecDeque<T>> {
        if let Some(object) = self.object() {
            rt::step(op, Some(object), loc);
        }
        self.lock()
    }

    /// Announces `op`, returning with the queue locked once `ready()` holds.
    fn wait(&self, op: Op, loc: Loc, ready: &dyn Fn() -> bool) -> MutexGuard<'_, VecDeque<T>> {
        if let Some(object) = self.object() {
            rt::step_when(op, Some(object), loc, ready);
            return self.lock();
        }
        let mut queue = self.lock();
        while !ready() {
            queue = self.cv.wait(queue).unwrap_or_else(PoisonError::into_inner);
        }
        queue
    }

    fn push(&self, queue: &mut VecDeque<T>, value: T) -> u64 {
        queue.push_back(value);
        self.len.store(queue.len(), Relaxed);
        self.cv.notify_all();
        self.pushed.fetch_add(1, Relaxed) + 1
    }

    fn pop(&self, queue: &mut VecDeque<T>) -> Option<T> {
        let value = queue.pop_front()?;
        self.len.store(queue.len(), Relaxed);
        self.popped.fetch_add(1, Relaxed);
        self.cv.notify_all();
        Some(value)
    }

    fn is_ready_to_recv(&self) -> bool {
        self.len.load(Relaxed) > 0 || self.senders.load(Relaxed) == 0
    }

    /// `Sender::send` and `SyncSender::send`.
    pub(super) fn send(&self, value: T, loc: Loc) -> Result<(), SendError<T>> {
        let alive = || self.receiver.load(Relaxed);
        let mut queue = match self.capacity {
            None => self.step(Op::Send, loc),
            Some(0) => return self.hand_over(value, loc),
            Some(cap) => self.wait(Op::Send, loc, &|| self.len.load(Relaxed) < cap || !alive()),
        };
        if !alive() {
            return Err(SendError(value));
        }
        self.push(&mut queue, value);
        Ok(())
    }

    /// A rendezvous send, in two `Send` steps: the sender puts its value in
    /// the (empty) hand-over slot, then waits until the receiver took it. If
    /// the receiver is dropped first, it takes the value back.
    fn hand_over(&self, value: T, loc: Loc) -> Result<(), SendError<T>> {
        let alive = || self.receiver.load(Relaxed);
        let mut queue = self.wait(Op::Send, loc, &|| self.len.load(Relaxed) == 0 || !alive());
        if !alive() {
            return Err(SendError(value));
        }
        let ticket = self.push(&mut queue, value);
        drop(queue);
        let taken = || self.popped.load(Relaxed) >= ticket;
        let mut queue = self.wait(Op::Send, loc, &|| taken() || !alive());
        if taken() {
            return Ok(());
        }
        let value = queue.pop_back().expect("an untaken rendezvous value is still queued");
        self.len.store(queue.len(), Relaxed);
        Err(SendError(value))
    }

    /// `SyncSender::try_send`.
    pub(super) fn try_send(&self, value: T, loc: Loc) -> Result<(), TrySendError<T>> {
        let mut queue = self.step(Op::TrySend, loc);
        if !self.receiver.load(Relaxed) {
            return Err(TrySendError::Disconnected(value));
        }
        let room = match self.capacity {
            // A receiver marks itself receiving at its arrival step,
            // before the receive's own scheduling point, so a receiver
            // that arrived may not have reached `recv` yet in the
            // program's real interleaving: whether it had (the value is
            // handed over) or not (`Full`) is an explored choice. Without
            // a receiver there is no choice.
            Some(0) => queue.is_empty() && self.receiving.load(Relaxed) && rt::choose(2) == 0,
            Some(cap) => queue.len() < cap,
            None => true,
        };
        if !room {
            return Err(TrySendError::Full(value));
        }
        self.push(&mut queue, value);
        Ok(())
    }

    /// A receiver arrives at a blocking receive: on a rendezvous channel,
    /// where senders' `try_send` decides from it, first a step of its own
    /// on the channel (so that partial-order reduction sees `try_send`
    /// depend on a step of the receiver on this channel), then the mark.
    fn arrive(&self, loc: Loc) {
        if let (Some(0), Some(object)) = (self.capacity, self.object()) {
            rt::step(Op::Arrive, Some(object), loc);
        }
        self.receiving.store(true, Relaxed);
    }

    /// `Receiver::recv`.
    pub(super) fn recv(&self, loc: Loc) -> Result<T, RecvError> {
        self.arrive(loc);
        let mut queue = self.wait(Op::Recv, loc, &|| self.is_ready_to_recv());
        self.receiving.store(false, Relaxed);
        self.pop(&mut queue).ok_or(RecvError)
    }

    /// `Receiver::try_recv`.
    pub(super) fn try_recv(&self, loc: Loc) -> Result<T, TryRecvError> {
        let mut queue = self.step(Op::TryRecv, loc);
        match self.pop(&mut queue) {
            Some(value) => Ok(value),
            None if self.senders.load(Relaxed) == 0 => Err(TryRecvError::Disconnected),
            None => Err(TryRecvError::Empty),
        }
    }

    /// `Receiver::recv_timeout`. Inside an execution it is one always-enabled
    /// step that times out (advancing the virtual clock by `timeout`) when
    /// nothing is there as it is scheduled.
    pub(super) fn recv_timeout(&self, timeout: Duration, loc: Loc) -> Result<T, RecvTimeoutError> {
        self.arrive(loc);
        let mut queue = match self.object() {
            Some(object) => {
                rt::step(Op::RecvTimeout, Some(object), loc);
                self.lock()
            }
            // Like std, a deadline past the end of time means no deadline.
            None => match Instant::now().checked_add(timeout) {
                None => self.wait(Op::Recv, loc, &|| self.is_ready_to_recv()),
                Some(deadline) => {
                    let mut queue = self.lock();
                    while !self.is_ready_to_recv() {
                        let left = deadline.saturating_duration_since(Instant::now());
                        if left.is_zero() {
                            break;
                        }
                        queue = self.cv.wait_timeout(queue, left).unwrap_or_else(PoisonError::into_inner).0;
                    }
                    queue
                }
            },
        };
        self.receiving.store(false, Relaxed);
        match self.pop(&mut queue) {
            Some(value) => Ok(value),
            None if self.senders.load(Relaxed) == 0 => Err(RecvTimeoutError::Disconnected),
            None => {
                if rt::active() {
                    rt::advance_clock(timeout.as_nanos().min(u128::from(u64::MAX)) as u64);
                }
                Err(RecvTimeoutError::Timeout)
            }
        }
    }

    /// Counts a new sender handle; not a visible operation, since a clone
    /// is made from a live sender and so changes nobody's options.
    pub(super) fn add_sender(&self) {
        let _queue = self.lock();
        self.senders.fetch_add(1, Relaxed);
    }

    /// Drops a sender handle. Dropping the last one is a visible `Send`
    /// step (it disconnects the receiver); any other is invisible.
    pub(super) fn drop_sender(&self) {
        // Only the last handle's owner can make more senders, so a count of
        // one stays one across the step.
        let _queue = if self.senders.load(Relaxed) == 1 { self.step(Op::Close, self.made_at) } else { self.lock() };
        self.senders.fetch_sub(1, Relaxed);
        self.cv.notify_all();
    }

    /// Drops the receiver: a visible `Close` step. Like std, an unbounded
    /// channel drops its queued values now; a bounded one keeps them until
    /// its last handle goes.
    pub(super) fn drop_receiver(&self) {
        let mut queue = self.step(Op::Close, self.made_at);
        self.receiver.store(false, Relaxed);
        let left = queue.len();
        if left > 0 {
            rt::note(&|_| format!("{left} message{} dropped unreceived", if left == 1 { "" } else { "s" }));
        }
        let discarded = match self.capacity {
            None => {
                self.len.store(0, Relaxed);
                std::mem::take(&mut *queue)
            }
            Some(_) => VecDeque::new(),
        };
        self.cv.notify_all();
        drop(queue);
        // Values may own handles whose drops reach the engine: drop them
        // with the queue unlocked.
        drop(discarded);
    }
}
