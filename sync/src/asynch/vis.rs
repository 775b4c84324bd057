//! Visibility of the async primitives inside an exploration.
//!
//! Under the `sim` feature, while [`rt::active`] holds, each operation that
//! reads or changes a primitive's shared state is announced first with
//! `rt::step` (a scheduling point of the exploration), then performed on the
//! real state, which is uncontended since one actor runs at a time. Blocking
//! stays what it is in production: a future returns `Pending` and is woken
//! later (a visible wake of its task).
//!
//! Without `sim`, [`Visible`] and [`Site`] are empty and every method is an
//! inlined no-op, so production pays nothing.
//!
//! Invariant: no step is announced while a primitive's internal std lock is
//! held (another actor may run at the step and take that lock on the same
//! OS thread); steps come first, and wakers are woken after unlocking.

#[cfg(feature = "sim")]
use samaritan_sim::rt::{self, ObjectSlot};
#[cfg(feature = "sim")]
pub(crate) use samaritan_sim::Op;
#[cfg(feature = "sim")]
use std::panic::Location;

/// The operation kinds the async primitives announce (a stand-in for the
/// engine's `Op` without `sim`, where nothing is announced).
#[cfg(not(feature = "sim"))]
#[derive(Clone, Copy)]
pub(crate) enum Op {
    Lock,
    TryLock,
    Unlock,
    ReadLock,
    TryReadLock,
    ReadUnlock,
    Wait,
    NotifyOne,
    NotifyAll,
    Load,
    Send,
    TrySend,
    Recv,
    TryRecv,
    Close,
}

/// Where the user called a primitive's method: a source location under
/// `sim`, nothing otherwise.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Site {
    #[cfg(feature = "sim")]
    location: &'static Location<'static>,
}

impl Site {
    /// The caller's location (through `#[track_caller]` frames).
    #[track_caller]
    #[inline]
    pub(crate) fn here() -> Site {
        Site {
            #[cfg(feature = "sim")]
            location: Location::caller(),
        }
    }
}

/// A primitive's engine object, registered lazily in each execution under
/// its kind (`"AsyncMutex"`, ...).
#[derive(Debug, Default)]
pub(crate) struct Visible {
    #[cfg(feature = "sim")]
    slot: ObjectSlot,
}

impl Visible {
    pub(crate) const fn new() -> Visible {
        Visible {
            #[cfg(feature = "sim")]
            slot: ObjectSlot::new(),
        }
    }

    /// Announces `op` on this object (kind `kind`) inside an exploration;
    /// returns once the running actor may perform it.
    #[inline]
    pub(crate) fn step(&self, kind: &'static str, op: Op, site: Site) {
        #[cfg(feature = "sim")]
        if rt::active() {
            rt::step(op, Some(self.slot.id(kind).0), site.location);
        }
        #[cfg(not(feature = "sim"))]
        let _ = (kind, op, site);
    }

    /// Records that the running actor now holds this object (for deadlock
    /// reports).
    #[inline]
    pub(crate) fn acquired(&self, kind: &'static str) {
        #[cfg(feature = "sim")]
        if rt::active() {
            rt::acquired(self.slot.id(kind).0);
        }
        #[cfg(not(feature = "sim"))]
        let _ = kind;
    }

    /// Records that the running actor no longer holds this object.
    #[inline]
    pub(crate) fn released(&self, kind: &'static str) {
        #[cfg(feature = "sim")]
        if rt::active() {
            rt::released(self.slot.id(kind).0);
        }
        #[cfg(not(feature = "sim"))]
        let _ = kind;
    }
}

/// Inside an exploration whose trace is being recorded, notes `text` on
/// the running task's latest step (`rt::note`); a no-op otherwise, and
/// without `sim`.
#[inline]
pub(crate) fn note(text: &dyn Fn() -> String) {
    #[cfg(feature = "sim")]
    if rt::active() {
        rt::note(&|_| text());
    }
    #[cfg(not(feature = "sim"))]
    let _ = text;
}
