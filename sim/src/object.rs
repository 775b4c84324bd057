//! The engine's record of a shared object, beyond its id.

use crate::op::ActorId;

/// What releases a lock for a holder abandoned with its guard: the
/// primitive's words and its function of them (`rt::on_abandon`).
pub(crate) type Release = ([usize; 2], unsafe fn([usize; 2]));

/// The engine's record of a shared object.
#[derive(Debug)]
pub(crate) struct ObjectInfo {
    pub(crate) kind: &'static str,
    /// Actors currently holding it (lock owners), for deadlock reports.
    pub(crate) holders: Vec<ActorId>,
    /// The actor it stands for (a thread's handle), so that a join on it
    /// happens after that actor's steps ([`crate::rt::represents`]).
    pub(crate) actor: Option<ActorId>,
    /// Whether it is an atomic under the C11 memory model, which does its
    /// own synchronization ([`crate::memory`]): the race detector's
    /// per-object rule does not apply to its steps.
    pub(crate) memory: bool,
    /// How the trace shows a value this object holds (an atomic's, as the
    /// memory model's 64 bits); `None`: values are not shown.
    pub(crate) show: Option<fn(u64) -> Option<String>>,
    /// A bit of state the primitive keeps here rather than in itself (an
    /// atomic has no room beside its value): false when registered.
    pub(crate) flag: bool,
    /// How to release the object for a holder abandoned when its
    /// execution ends early (`rt::on_abandon`): the primitive's words and
    /// function.
    pub(crate) abandon: Option<Release>,
}

impl ObjectInfo {
    /// A fresh object of `kind`: held by nobody, standing for no actor.
    pub(crate) fn new(kind: &'static str) -> ObjectInfo {
        ObjectInfo { kind, holders: Vec::new(), actor: None, memory: false, show: None, flag: false, abandon: None }
    }
}
