//! The engine's record of a shared object, beyond its id.

use crate::op::ActorId;

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
}

impl ObjectInfo {
    /// A fresh object of `kind`: held by nobody, standing for no actor.
    pub(crate) fn new(kind: &'static str) -> ObjectInfo {
        ObjectInfo { kind, holders: Vec::new(), actor: None, memory: false, show: None }
    }
}
