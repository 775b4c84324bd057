//! Simulated `OnceLock`: std's `OnceLock` for production use, plus a value
//! per execution under the one-time-initialization model of
//! [`super::once`].
//!
//! A value set inside an execution belongs to that execution: the next
//! execution starts uninitialized again (so a `static` explores its
//! initialization race in every execution). Because references handed out
//! earlier may still exist, such a value is never dropped while the lock is
//! shared: it is leaked when a later execution replaces it, and dropped
//! with the lock (or taken) otherwise.
//!
//! Invariants:
//! - `real` is only written outside executions (or by `From`/`Clone`, on a
//!   new lock). A value found there when an execution first uses the lock
//!   makes the model start complete.
//! - Inside an execution, once the model is complete, the value is
//!   `real`'s if it has one, else `sim`'s, which is then non-null.

use std::fmt;
use std::panic::Location;
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

use samaritan_sim::rt;
use samaritan_sim::ObjectId;

use super::once::{OnceModel, COMPLETE, INCOMPLETE};

/// Same API as [`std::sync::OnceLock`]; scheduled under `sim`.
pub struct OnceLock<T> {
    model: OnceModel,
    real: std::sync::OnceLock<T>,
    /// A `Box::into_raw` value set in an execution, or null.
    sim: AtomicPtr<T>,
}

impl<T> OnceLock<T> {
    /// Creates a new uninitialized cell.
    pub const fn new() -> OnceLock<T> {
        OnceLock { model: OnceModel::new(), real: std::sync::OnceLock::new(), sim: AtomicPtr::new(ptr::null_mut()) }
    }

    pub(crate) fn object(&self) -> ObjectId {
        self.object_with(|_| {})
    }

    /// [`OnceLock::object`], handing the id to `fresh` on first use in an
    /// execution.
    pub(crate) fn object_with(&self, fresh: impl FnOnce(ObjectId)) -> ObjectId {
        self.model.object("OnceLock", || self.real.get().is_some(), fresh)
    }

    /// Returns the value of a complete model.
    fn value(&self) -> &T {
        if let Some(value) = self.real.get() {
            return value;
        }
        let value = self.sim.load(Ordering::Acquire);
        assert!(!value.is_null(), "a complete OnceLock has a value");
        // SAFETY: a non-null `sim` came from `Box::into_raw` and is freed
        // only through `&mut self`, so it lives as long as this borrow.
        unsafe { &*value }
    }

    /// Whether a value set in an earlier execution is still around.
    pub(crate) fn has_earlier_value(&self) -> bool {
        !self.sim.load(Ordering::Acquire).is_null()
    }

    /// Returns the value set in an execution, if any (for `LazyLock` used
    /// outside executions after its initializer ran inside one).
    pub(crate) fn earlier_value(&self) -> Option<&T> {
        let value = self.sim.load(Ordering::Acquire);
        // SAFETY: as in `value`.
        (!value.is_null()).then(|| unsafe { &*value })
    }

    /// Stores the value of this execution; an earlier execution's value is
    /// leaked, since references to it may remain.
    fn store(&self, value: T) {
        self.sim.store(Box::into_raw(Box::new(value)), Ordering::Release);
    }

    /// Gets the reference to the underlying value.
    #[track_caller]
    pub fn get(&self) -> Option<&T> {
        if !rt::active() {
            return self.real.get();
        }
        let object = self.object();
        self.model.load_complete(object, Location::caller()).then(|| self.value())
    }

    /// Gets the mutable reference to the underlying value.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        if !rt::active() {
            return self.real.get_mut();
        }
        self.object();
        if self.model.state() != COMPLETE {
            return None;
        }
        if self.real.get().is_some() {
            return self.real.get_mut();
        }
        // SAFETY: complete with no real value, so `sim` is a live box (see
        // `value`), and `&mut self` excludes every other reference.
        Some(unsafe { &mut **self.sim.get_mut() })
    }

    /// Initializes the contents of the cell to `value`; returns it back if
    /// the cell was already initialized.
    #[track_caller]
    pub fn set(&self, value: T) -> Result<(), T> {
        if !rt::active() {
            return self.real.set(value);
        }
        let object = self.object();
        if self.model.begin(object, Location::caller()) == COMPLETE {
            return Err(value);
        }
        // No initializer runs, so begin and complete are one step.
        self.store(value);
        self.model.set_state(COMPLETE);
        Ok(())
    }

    /// Gets the contents of the cell, initializing it with `f` if the cell
    /// was uninitialized.
    #[track_caller]
    pub fn get_or_init<F: FnOnce() -> T>(&self, f: F) -> &T {
        if !rt::active() {
            return self.real.get_or_init(f);
        }
        self.sim_init(Location::caller(), || Some(f()))
    }

    /// Runs the initialization protocol in an execution. `produce` returns
    /// the new value, or `None` to keep the earlier execution's one.
    pub(crate) fn sim_init(&self, location: &'static Location<'static>, produce: impl FnOnce() -> Option<T>) -> &T {
        let object = self.object();
        if self.model.begin(object, location) == COMPLETE {
            return self.value();
        }
        // A panicking initializer leaves the cell uninitialized (std).
        let running = self.model.start(object, INCOMPLETE);
        let value = produce();
        running.complete(location);
        if let Some(value) = value {
            self.store(value);
        }
        self.value()
    }

    /// Consumes the `OnceLock`, returning the wrapped value.
    pub fn into_inner(mut self) -> Option<T> {
        self.take()
    }

    /// Takes the value out of this `OnceLock`, moving it back to an
    /// uninitialized state.
    pub fn take(&mut self) -> Option<T> {
        if !rt::active() {
            return self.real.take();
        }
        self.object();
        if self.model.state() != COMPLETE {
            return None;
        }
        self.model.set_state(INCOMPLETE);
        if let Some(value) = self.real.take() {
            return Some(value);
        }
        let value = std::mem::replace(self.sim.get_mut(), ptr::null_mut());
        // SAFETY: complete with no real value, so `sim` is a live box that
        // `&mut self` owns exclusively.
        Some(*unsafe { Box::from_raw(value) })
    }

    /// Returns the value without a step (for `Debug`).
    pub(crate) fn peek(&self) -> Option<&T> {
        if !rt::active() {
            return self.real.get();
        }
        self.object();
        (self.model.state() == COMPLETE).then(|| self.value())
    }
}

impl<T> Drop for OnceLock<T> {
    fn drop(&mut self) {
        let value = std::mem::replace(self.sim.get_mut(), ptr::null_mut());
        if !value.is_null() {
            // SAFETY: `sim` came from `Box::into_raw`; `&mut self` means no
            // reference to it remains.
            drop(unsafe { Box::from_raw(value) });
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for OnceLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_tuple("OnceLock");
        match self.peek() {
            Some(v) => d.field(v),
            None => d.field(&format_args!("<uninit>")),
        };
        d.finish()
    }
}

impl<T> Default for OnceLock<T> {
    fn default() -> OnceLock<T> {
        OnceLock::new()
    }
}

impl<T> From<T> for OnceLock<T> {
    fn from(value: T) -> OnceLock<T> {
        let lock = OnceLock::new();
        // Outside the model: a fresh lock cannot be initialized yet.
        let _ = lock.real.set(value);
        lock
    }
}

impl<T: Clone> Clone for OnceLock<T> {
    fn clone(&self) -> OnceLock<T> {
        match self.peek() {
            Some(value) => OnceLock::from(value.clone()),
            None => OnceLock::new(),
        }
    }
}

impl<T: PartialEq> PartialEq for OnceLock<T> {
    fn eq(&self, other: &OnceLock<T>) -> bool {
        self.peek() == other.peek()
    }
}

impl<T: Eq> Eq for OnceLock<T> {}
