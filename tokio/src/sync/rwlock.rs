//! [`RwLock`]: samaritan's async reader-writer lock under tokio's names.

use std::fmt;

use samaritan::sync::futures::{Read, Write};
use samaritan::sync::AsyncRwLock;

use super::TryLockError;

/// An async reader-writer lock, fair (FIFO); same API as
/// [`tokio::sync::RwLock`] for `new`, `const_new`, `read`, `write`,
/// `try_read`, `try_write`, `blocking_read`, `blocking_write`, `get_mut`
/// and `into_inner`.
pub struct RwLock<T: ?Sized>(AsyncRwLock<T>);

/// Shared access to an [`RwLock`]'s value.
pub type RwLockReadGuard<'a, T> = samaritan::sync::AsyncRwLockReadGuard<'a, T>;

/// Exclusive access to an [`RwLock`]'s value.
pub type RwLockWriteGuard<'a, T> = samaritan::sync::AsyncRwLockWriteGuard<'a, T>;

impl<T> RwLock<T> {
    /// Creates an unlocked lock holding `value`.
    pub const fn new(value: T) -> Self {
        RwLock(AsyncRwLock::new(value))
    }

    /// Creates an unlocked lock holding `value`, in a `const` context.
    pub const fn const_new(value: T) -> Self {
        RwLock::new(value)
    }

    /// Returns the value.
    pub fn into_inner(self) -> T {
        self.0.into_inner()
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Locks for reading, waiting (as a future) while a writer holds or
    /// waits for the lock.
    #[track_caller]
    pub fn read(&self) -> Read<'_, T> {
        self.0.read()
    }

    /// Locks for writing, waiting (as a future) while anyone holds it.
    #[track_caller]
    pub fn write(&self) -> Write<'_, T> {
        self.0.write()
    }

    /// Locks for reading from synchronous code.
    ///
    /// Runs the future on samaritan's `block_on` (a simulated thread's own
    /// executor inside an exploration); unlike tokio's, it does not panic
    /// when called from async code, which it would block.
    #[track_caller]
    pub fn blocking_read(&self) -> RwLockReadGuard<'_, T> {
        samaritan::executor::block_on(self.0.read())
    }

    /// Locks for writing from synchronous code.
    ///
    /// Runs the future on samaritan's `block_on` (a simulated thread's own
    /// executor inside an exploration); unlike tokio's, it does not panic
    /// when called from async code, which it would block.
    #[track_caller]
    pub fn blocking_write(&self) -> RwLockWriteGuard<'_, T> {
        samaritan::executor::block_on(self.0.write())
    }

    /// Locks for reading if that is possible now.
    #[track_caller]
    pub fn try_read(&self) -> Result<RwLockReadGuard<'_, T>, TryLockError> {
        self.0.try_read().map_err(|_| TryLockError::new())
    }

    /// Locks for writing if the lock is free now.
    #[track_caller]
    pub fn try_write(&self) -> Result<RwLockWriteGuard<'_, T>, TryLockError> {
        self.0.try_write().map_err(|_| TryLockError::new())
    }

    /// Returns the value, through the unique borrow that makes the lock needless.
    pub fn get_mut(&mut self) -> &mut T {
        self.0.get_mut()
    }
}

impl<T: Default> Default for RwLock<T> {
    fn default() -> Self {
        RwLock::new(T::default())
    }
}

impl<T> From<T> for RwLock<T> {
    fn from(value: T) -> Self {
        RwLock::new(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
