//! Simulated `LazyLock`: a [`OnceLock`] plus the initializer.
//!
//! The initializer runs once, in the first execution that forces the lock
//! (or outside executions). A later execution still replays the
//! initialization protocol (begin and complete steps, with other threads
//! blocked in between) but keeps the value produced earlier, so a `static`
//! `LazyLock` gives every execution the same steps, as long as its
//! initializer makes no visible operation itself.

use std::fmt;
use std::ops::Deref;
use std::panic::Location;
use std::sync::PoisonError;

use samaritan_sim::rt;

use super::once_lock::OnceLock;

/// Same API as [`std::sync::LazyLock`]; scheduled under `sim`.
pub struct LazyLock<T, F = fn() -> T> {
    cell: OnceLock<T>,
    /// The initializer until it is called.
    init: std::sync::Mutex<Option<F>>,
}

impl<T, F: FnOnce() -> T> LazyLock<T, F> {
    /// Creates a new lazy value with the given initializing function.
    pub const fn new(f: F) -> LazyLock<T, F> {
        LazyLock { cell: OnceLock::new(), init: std::sync::Mutex::new(Some(f)) }
    }

    fn take_init(&self) -> Option<F> {
        self.init.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// Forces the evaluation of this lazy value and returns a reference to
    /// the result.
    ///
    /// # Panics
    ///
    /// Panics if the initializer panicked before (the lock is poisoned).
    #[track_caller]
    pub fn force(this: &LazyLock<T, F>) -> &T {
        if !rt::active() {
            if let Some(value) = this.cell.get() {
                return value;
            }
            let consumed = this.init.lock().unwrap_or_else(PoisonError::into_inner).is_none();
            if let Some(value) = this.cell.earlier_value().filter(|_| consumed) {
                // Initialized inside an execution.
                return value;
            }
            return this.cell.get_or_init(|| match this.take_init() {
                Some(f) => f(),
                None => poisoned(),
            });
        }
        this.cell.sim_init(Location::caller(), || match this.take_init() {
            Some(f) => Some(f()),
            // Called in an earlier execution: keep its value.
            None if this.cell.has_earlier_value() => None,
            None => poisoned(),
        })
    }
}

fn poisoned() -> ! {
    panic!("LazyLock instance has previously been poisoned")
}

impl<T, F: FnOnce() -> T> Deref for LazyLock<T, F> {
    type Target = T;

    #[track_caller]
    fn deref(&self) -> &T {
        LazyLock::force(self)
    }
}

impl<T: Default> Default for LazyLock<T> {
    fn default() -> LazyLock<T> {
        LazyLock::new(T::default)
    }
}

impl<T: fmt::Debug, F> fmt::Debug for LazyLock<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_tuple("LazyLock");
        match self.cell.peek() {
            Some(v) => d.field(v),
            None => d.field(&format_args!("<uninit>")),
        };
        d.finish()
    }
}
