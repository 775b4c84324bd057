//! Visible operations: what an actor announces before it touches shared state.
//!
//! Invariant: an [`Op`] names a kind of access, never a primitive's type. Later
//! analyses (dependency for DPOR, HaPSet keys) read `(object, op)` pairs only.

use std::fmt;

/// Identifies an actor (a simulated thread) within one execution.
///
/// Ids are handed out in spawn order, so the same schedule gives the same ids
/// in every execution. The test closure itself runs as actor 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ActorId(pub(crate) u32);

impl ActorId {
    /// The actor that runs the test closure.
    pub const MAIN: ActorId = ActorId(0);

    /// Returns the actor's index in spawn order.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Builds an id from a spawn-order index.
    pub fn from_index(index: usize) -> ActorId {
        ActorId(index as u32)
    }
}

/// Identifies a shared object within one execution.
///
/// Objects are numbered in the order of their first visible operation in the
/// execution, which is deterministic for a given schedule, so ids match
/// across executions that share a prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectId(pub(crate) u32);

impl ObjectId {
    /// Returns the object's index in first-use order.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Builds an id from a first-use index.
    pub fn from_index(index: usize) -> ObjectId {
        ObjectId(index as u32)
    }
}

/// A visible operation, announced at a scheduling point before it happens.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Spawns a new actor.
    Spawn,
    /// Waits for an actor to finish.
    Join,
    /// Gives up the processor (`yield_now`).
    Yield,
    /// Sleeps; advances the virtual clock.
    Sleep,
    /// A busy-wait hint (`spin_loop`).
    SpinLoop,
    /// Parks the current thread until it is unparked.
    Park,
    /// Parks with a timeout: may time out.
    ParkTimeout,
    /// Unparks a thread.
    Unpark,
    /// Acquires an exclusive lock, blocking.
    Lock,
    /// Tries to acquire an exclusive lock.
    TryLock,
    /// Releases an exclusive lock.
    Unlock,
    /// Acquires a shared lock, blocking.
    ReadLock,
    /// Tries to acquire a shared lock.
    TryReadLock,
    /// Releases a shared lock.
    ReadUnlock,
    /// Waits on a condition variable until notified.
    Wait,
    /// Waits on a condition variable with a timeout: may time out.
    WaitTimeout,
    /// Wakes one waiter.
    NotifyOne,
    /// Wakes every waiter.
    NotifyAll,
    /// Waits at a barrier.
    BarrierWait,
    /// Runs or waits for a one-time initialization.
    CallOnce,
    /// Reads an atomic (or a primitive's state), reading the newest
    /// value.
    Load,
    /// Reads an atomic that the C11 model lets read any readable store,
    /// whichever the others' stores to it taken before: not `SeqCst`, and
    /// its thread not under the progress rule (it did not yield since it
    /// last accessed the atomic), under [`MemoryModel::Weak`]. Shown as
    /// `load` in traces. For the reductions it is an
    /// [`Access::Observe`]: a store taken before it only adds a store it
    /// may read, so that order covers the other (see [`Access::Observe`]).
    ///
    /// [`MemoryModel::Weak`]: crate::MemoryModel::Weak
    WeakLoad,
    /// Writes an atomic.
    Store,
    /// Read-modify-writes an atomic (swap, fetch_*, fetch_update step).
    Rmw,
    /// Compare-and-exchange on an atomic.
    CompareExchange,
    /// A memory fence.
    Fence,
    /// Sends on a channel, blocking while it is full.
    Send,
    /// Tries to send on a channel.
    TrySend,
    /// Receives from a channel, blocking while it is empty.
    Recv,
    /// Tries to receive from a channel.
    TryRecv,
    /// Receives with a timeout: may time out.
    RecvTimeout,
    /// Closes one end of a channel (its last sender or its receiver is
    /// dropped).
    Close,
    /// A data choice made by the engine (for example a spurious failure).
    Choose,
    /// An async task is about to poll its future; enabled only once the
    /// task was woken (or right after its spawn).
    Poll,
    /// Wakes an async task.
    Wake,
    /// Arrives at a blocking operation where other threads can see it
    /// waiting (a writer queueing at a reader-writer lock, which new
    /// readers then queue behind): a step of its own on the object, so that
    /// what others decide from the arrival depends on a step on that
    /// object, as partial-order reduction needs.
    Arrive,
    /// Adds a reference to a reference-counted object from one the actor
    /// holds (a clone, a downgrade). Synchronizes nothing, as a `Relaxed`
    /// increment. Commutes with other increments and decrements.
    RefInc,
    /// Gives up a reference to a reference-counted object without freeing
    /// its value (a drop that is not the last). Releases. Commutes with
    /// increments and other decrements. Announced for every drop: the
    /// primitive decides when the step is taken whether it is this or
    /// [`Op::RefFree`] ([`rt::step_as`](crate::rt::step_as)).
    RefDec,
    /// Reads a reference count (`strong_count`, `get_mut` checking that
    /// its reference is the only one, a `try_unwrap` that fails); acquires
    /// only where the primitive says so ([`rt::acquire`](crate::rt::acquire)).
    /// Commutes with other reads.
    RefRead,
    /// Gives up the last strong reference to a reference-counted object:
    /// the value is freed by this actor. Releases and acquires, so the
    /// value's drop happens after every other owner's accesses. Conflicts
    /// with every operation on the object.
    RefFree,
    /// Turns a weak reference into a strong one if the value is still
    /// alive (`Weak::upgrade`); acquires where the primitive says it
    /// succeeded. Conflicts with every operation on the object.
    RefUpgrade,
    /// Asks whether a thread has finished (`JoinHandle::is_finished`):
    /// reads the thread's object. Synchronizes nothing (std's check is a
    /// `Relaxed` load). Commutes with other reads.
    IsFinished,
    /// Never a step: the operation of the footprint a thread's end has
    /// (an [`Access::End`] of its object), which strategies learn as part
    /// of the step during which it came
    /// ([`Strategy::on_end`](crate::Strategy::on_end)). Synchronizes
    /// nothing.
    Exit,
}

impl Op {
    /// Returns whether the step gives up the processor in the sense of the
    /// fair scheduler (fair-stateless-model-checking, section 3): yields,
    /// sleeps, spin hints and every wait with a timeout.
    pub fn is_yield(self) -> bool {
        matches!(self, Op::Yield | Op::Sleep | Op::SpinLoop | Op::ParkTimeout | Op::WaitTimeout | Op::RecvTimeout)
    }

    /// Returns how the operation touches its object, for the dependency
    /// relation of partial-order reduction (`Footprint::dependent` in
    /// `samaritan-sim`).
    pub fn access(self) -> Access {
        match self {
            // Nothing shared changes (sequentially consistent simulation:
            // a fence orders nothing more); a spawn's effect on its child is
            // a happens-before edge, not a conflict; a sleep touches the
            // virtual clock only (`clock`).
            Op::Yield | Op::SpinLoop | Op::Fence | Op::Choose | Op::Spawn | Op::Sleep => Access::Local,
            Op::Load | Op::RefRead | Op::IsFinished => Access::Read,
            Op::WeakLoad => Access::Observe,
            Op::RefInc | Op::RefDec => Access::Count,
            Op::Exit => Access::End,
            _ => Access::Write,
        }
    }

    /// Returns how the operation touches the virtual clock: a sleep moves
    /// it, and so may every wait with a timeout (when it times out); a
    /// poll reads it (an async sleep compares its deadline with it, and
    /// the engine's timers fire off it). The clock is read nowhere else
    /// (a read between two steps belongs to the step before it), so this
    /// is all the dependency on time there is.
    pub fn clock(self) -> Access {
        match self {
            Op::Sleep | Op::ParkTimeout | Op::WaitTimeout | Op::RecvTimeout => Access::Write,
            Op::Poll => Access::Read,
            _ => Access::Local,
        }
    }

    /// Every operation, in declaration order.
    pub const ALL: [Op; 43] = [
        Op::Spawn,
        Op::Join,
        Op::Yield,
        Op::Sleep,
        Op::SpinLoop,
        Op::Park,
        Op::ParkTimeout,
        Op::Unpark,
        Op::Lock,
        Op::TryLock,
        Op::Unlock,
        Op::ReadLock,
        Op::TryReadLock,
        Op::ReadUnlock,
        Op::Wait,
        Op::WaitTimeout,
        Op::NotifyOne,
        Op::NotifyAll,
        Op::BarrierWait,
        Op::CallOnce,
        Op::Load,
        Op::WeakLoad,
        Op::Store,
        Op::Rmw,
        Op::CompareExchange,
        Op::Fence,
        Op::Send,
        Op::TrySend,
        Op::Recv,
        Op::TryRecv,
        Op::RecvTimeout,
        Op::Close,
        Op::Choose,
        Op::Poll,
        Op::Wake,
        Op::Arrive,
        Op::RefInc,
        Op::RefDec,
        Op::RefRead,
        Op::RefFree,
        Op::RefUpgrade,
        Op::IsFinished,
        Op::Exit,
    ];

    /// Returns the operation whose trace name is `name` (for `load`,
    /// [`Op::Load`]: a weak load shows as one).
    pub fn from_name(name: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Returns the operation a trace shows for this one: a weak load is
    /// a load there ([`Op::WeakLoad`] differs only in what the reductions
    /// may reorder).
    pub fn shown(self) -> Op {
        match self {
            Op::WeakLoad => Op::Load,
            op => op,
        }
    }

    /// Returns the short lowercase name used in traces.
    pub fn name(self) -> &'static str {
        match self {
            Op::Spawn => "spawn",
            Op::Join => "join",
            Op::Yield => "yield",
            Op::Sleep => "sleep",
            Op::SpinLoop => "spin_loop",
            Op::Park => "park",
            Op::ParkTimeout => "park_timeout",
            Op::Unpark => "unpark",
            Op::Lock => "lock",
            Op::TryLock => "try_lock",
            Op::Unlock => "unlock",
            Op::ReadLock => "read",
            Op::TryReadLock => "try_read",
            Op::ReadUnlock => "read_unlock",
            Op::Wait => "wait",
            Op::WaitTimeout => "wait_timeout",
            Op::NotifyOne => "notify_one",
            Op::NotifyAll => "notify_all",
            Op::BarrierWait => "barrier_wait",
            Op::CallOnce => "call_once",
            Op::Load | Op::WeakLoad => "load",
            Op::Store => "store",
            Op::Rmw => "rmw",
            Op::CompareExchange => "compare_exchange",
            Op::Fence => "fence",
            Op::Send => "send",
            Op::TrySend => "try_send",
            Op::Recv => "recv",
            Op::TryRecv => "try_recv",
            Op::RecvTimeout => "recv_timeout",
            Op::Close => "close",
            Op::Choose => "choose",
            Op::Poll => "poll",
            Op::Wake => "wake",
            Op::Arrive => "arrive",
            Op::RefInc => "ref_inc",
            Op::RefDec => "ref_dec",
            Op::RefRead => "ref_read",
            Op::RefFree => "ref_free",
            Op::RefUpgrade => "ref_upgrade",
            Op::IsFinished => "is_finished",
            Op::Exit => "exit",
        }
    }
}

/// How an operation touches shared state (see [`Op::access`] and
/// [`Op::clock`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Touches nothing another actor can observe.
    Local,
    /// Reads its object: commutes with other reads of it.
    Read,
    /// Adds to or takes from a count on its object without reading it (a
    /// reference count's increment, or a decrement that frees nothing):
    /// commutes with other such changes, conflicts with reads and writes.
    Count,
    /// Changes its object (or may block on it): conflicts with every other
    /// operation on it but an [`Access::End`].
    Write,
    /// Reads an atomic, choosing which readable store ([`Op::WeakLoad`]):
    /// commutes with other reads, conflicts with writes, but not alike in
    /// both orders. A write taken *before* it is no reason to try the
    /// other order: the load may still read every store it could read
    /// first (its choices only gain the write's), so reductions neither
    /// order it after the writes before it nor reverse that pair. A write
    /// taken *after* it is: taken first, the load could read it. The
    /// relation on the executed steps is the one of reads-from (a load
    /// depends on the store it read, a store on the stores before it),
    /// which `Footprint::dependent` over-approximates.
    Observe,
    /// Ends the thread its object stands for ([`Op::Exit`]): conflicts only
    /// with reads of that object (whether it ended), and commutes with
    /// every other operation on it (a `join` waits for the end and is
    /// ordered after it anyway; an `unpark` changes nothing it shows).
    End,
}

/// What one operation touches, for the dependency relation of
/// partial-order reduction: its object (in the way [`Op::access`] says), a
/// second object it changes ([`Pending::second`](crate::Pending::second):
/// the mutex a condition-variable wait releases), and the virtual clock
/// ([`Op::clock`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Footprint {
    /// The operation.
    pub op: Op,
    /// The object it names.
    pub object: Option<ObjectId>,
    /// A second object it changes, if any.
    pub second: Option<ObjectId>,
    /// Whether it is a `SeqCst` access of an atomic
    /// ([`Footprint::fence_order`]).
    pub seq_cst: bool,
}

impl Access {
    /// Returns whether two accesses of one object by different actors
    /// conflict: neither is local, they are not both reads (an
    /// [`Access::Observe`] is one) nor both count changes, and an end
    /// meets a read.
    pub fn conflicts(self, other: Access) -> bool {
        match (self, other) {
            (Access::End, b) | (b, Access::End) => b == Access::Read,
            _ => !matches!(
                (self.as_read(), other.as_read()),
                (Access::Local, _) | (_, Access::Local) | (Access::Read, Access::Read) | (Access::Count, Access::Count)
            ),
        }
    }

    /// Whether an earlier access `self` and a later one `later`, of one
    /// object by different actors, are a reason to try the other order:
    /// they conflict, and are not a write followed by an
    /// [`Access::Observe`] (which the other order only gives fewer
    /// choices).
    pub fn races_with(self, later: Access) -> bool {
        self.conflicts(later) && !(later == Access::Observe && self == Access::Write)
    }

    /// Whether a later access `later` is ordered after an earlier `self`
    /// of one object by different actors, in the happens-before relation
    /// of the reductions: they conflict, and are not a write and an
    /// [`Access::Observe`] in either order (what a weak load read, not
    /// when, orders it: see [`Access::Observe`]).
    pub fn orders(self, later: Access) -> bool {
        self.conflicts(later)
            && !matches!((self, later), (Access::Write, Access::Observe) | (Access::Observe, Access::Write))
    }

    /// An [`Access::Observe`] as the read it is.
    fn as_read(self) -> Access {
        match self {
            Access::Observe => Access::Read,
            other => other,
        }
    }
}

impl Footprint {
    /// Returns whether two operations, by different actors, are dependent:
    /// executing them in the other order may lead to a different state or
    /// enable or disable something else (Flanagan and Godefroid's relation,
    /// inspect-runtime-model-checking-dpor.txt, section 3). They are when
    /// they touch one object and not both only read it (a second object
    /// counts as written), or when both touch the virtual clock and one of
    /// them moves it. Operations on different objects commute; so do a
    /// wait and a notify on different condition variables, two sleeps'
    /// clock moves and a lock step, sends to different channels, two
    /// clones or two drops of an `Arc` that free nothing. `SeqCst` fences
    /// also conflict with each other and with the accesses of atomics that
    /// may be `SeqCst` ([`Footprint::fence_order`]).
    pub fn dependent(self, other: Footprint) -> bool {
        for (o, a) in self.touches() {
            for (p, b) in other.touches() {
                if o == p && a.conflicts(b) {
                    return true;
                }
            }
        }
        self.op.clock().conflicts(other.op.clock()) || self.fence_order().conflicts(other.fence_order())
    }

    /// How the operation takes part in the order of `SeqCst` fences, the
    /// one order of the C11 model that spans every atomic: a `SeqCst`
    /// fence (an [`Op::Fence`] on the fences' object) writes it, since it
    /// learns what every earlier one's thread knew and every `SeqCst`
    /// store before it; a `SeqCst` access of an atomic reads it (a store
    /// is learnt by the fences after it, a load learns what the fences
    /// before it learnt). So two fences conflict, and a fence conflicts
    /// with a `SeqCst` access of any atomic; the rest commute here.
    pub fn fence_order(self) -> Access {
        match self.op {
            Op::Fence if self.object.is_some() => Access::Write,
            _ if self.seq_cst => Access::Read,
            _ => Access::Local,
        }
    }

    /// The objects touched and how, the second object as a write.
    pub fn touches(self) -> impl Iterator<Item = (ObjectId, Access)> {
        let access = self.op.access();
        let first = self.object.filter(|_| access != Access::Local).map(|o| (o, access));
        first.into_iter().chain(self.second.map(|o| (o, Access::Write)))
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_reads_back_as_the_one_its_trace_shows() {
        for op in Op::ALL {
            assert_eq!(Op::from_name(op.name()), Some(op.shown()), "{op}");
        }
        assert_eq!((Op::WeakLoad.shown(), Op::WeakLoad.name()), (Op::Load, "load"));
    }

    #[test]
    fn a_weak_load_races_with_a_later_store_and_is_ordered_by_none() {
        let (observe, write, read) = (Access::Observe, Access::Write, Access::Read);
        // Conflicting for every use that wants the plain relation...
        assert!(observe.conflicts(write) && write.conflicts(observe));
        assert!(!observe.conflicts(read) && !observe.conflicts(observe) && !observe.conflicts(Access::End));
        // ...a reason to try the other order only when the store comes
        // after the load (taken first, the load could read it)...
        assert!(observe.races_with(write) && !write.races_with(observe));
        assert!(write.races_with(read) && read.races_with(write));
        // ...and ordering neither way.
        assert!(!write.orders(observe) && !observe.orders(write));
        assert!(write.orders(read) && read.orders(write) && write.orders(write));
    }

    #[test]
    fn seq_cst_fences_conflict_with_each_other_and_with_seq_cst_accesses() {
        let fence = Footprint { op: Op::Fence, object: Some(ObjectId(9)), second: None, seq_cst: true };
        let at = |op, o: u32, seq_cst| Footprint { op, object: Some(ObjectId(o)), second: None, seq_cst };
        assert!(fence.dependent(fence));
        for op in [Op::Store, Op::Rmw, Op::CompareExchange, Op::Load] {
            assert!(fence.dependent(at(op, 1, true)) && at(op, 1, true).dependent(fence), "{op}");
            assert!(!fence.dependent(at(op, 1, false)), "{op}");
        }
        // A fence that is not SeqCst names no object and orders nothing.
        let relaxed = Footprint { op: Op::Fence, object: None, second: None, seq_cst: false };
        assert!(!relaxed.dependent(fence) && !relaxed.dependent(at(Op::Store, 1, true)));
        // SeqCst accesses of two atomics still commute.
        assert!(!at(Op::Store, 1, true).dependent(at(Op::Store, 2, true)));
    }

    #[test]
    fn a_threads_end_conflicts_only_with_reads_of_its_object() {
        let on = |op, o: usize| Footprint { op, object: Some(ObjectId(o as u32)), second: None, seq_cst: false };
        let end = on(Op::Exit, 0);
        assert!(end.dependent(on(Op::IsFinished, 0)) && on(Op::IsFinished, 0).dependent(end));
        // A join waits for the end and is ordered after it by its peer;
        // an unpark or a park changes nothing an end shows.
        for op in [Op::Join, Op::Unpark, Op::Park, Op::Exit] {
            assert!(!end.dependent(on(op, 0)) && !on(op, 0).dependent(end), "{op}");
        }
        assert!(!end.dependent(on(Op::IsFinished, 1)));
        // Questions commute with each other, not with what writes.
        assert!(!on(Op::IsFinished, 0).dependent(on(Op::IsFinished, 0)));
        assert!(on(Op::IsFinished, 0).dependent(on(Op::Unpark, 0)));
    }
}
