//! [`Mutex`]: samaritan's async mutex under tokio's names.

use std::fmt;

use samaritan::sync::futures::Lock;
use samaritan::sync::AsyncMutex;

/// An async mutual-exclusion lock, fair (FIFO); same API as
/// [`tokio::sync::Mutex`] for `new`, `const_new`, `lock`, `try_lock`,
/// `get_mut` and `into_inner`. Its guard may be held across `.await`.
pub struct Mutex<T: ?Sized>(AsyncMutex<T>);

/// The guard of a [`Mutex`]; the lock is released when it is dropped.
pub type MutexGuard<'a, T> = samaritan::sync::AsyncMutexGuard<'a, T>;

/// The error of [`Mutex::try_lock`] and `RwLock`'s `try_read`/`try_write`:
/// the lock is held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TryLockError(());

impl fmt::Display for TryLockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("operation would block")
    }
}

impl std::error::Error for TryLockError {}

impl TryLockError {
    pub(crate) fn new() -> Self {
        TryLockError(())
    }
}

impl<T> Mutex<T> {
    /// Creates an unlocked mutex holding `value`.
    pub const fn new(value: T) -> Self {
        Mutex(AsyncMutex::new(value))
    }

    /// Creates an unlocked mutex holding `value`, in a `const` context.
    pub const fn const_new(value: T) -> Self {
        Mutex::new(value)
    }

    /// Returns the value.
    pub fn into_inner(self) -> T {
        self.0.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    /// Locks the mutex, waiting (as a future) while another holds it.
    #[track_caller]
    pub fn lock(&self) -> Lock<'_, T> {
        self.0.lock()
    }

    /// Locks the mutex if it is free now.
    #[track_caller]
    pub fn try_lock(&self) -> Result<MutexGuard<'_, T>, TryLockError> {
        self.0.try_lock().map_err(|_| TryLockError::new())
    }

    /// Returns the value, through the unique borrow that makes the lock needless.
    pub fn get_mut(&mut self) -> &mut T {
        self.0.get_mut()
    }
}

impl<T: Default> Default for Mutex<T> {
    fn default() -> Self {
        Mutex::new(T::default())
    }
}

impl<T> From<T> for Mutex<T> {
    fn from(value: T) -> Self {
        Mutex::new(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
