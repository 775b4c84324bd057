//! [`Mutex`]: samaritan's async mutex under tokio's names.

use std::fmt;
use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use samaritan::sync::futures::Lock;
use samaritan::sync::AsyncMutex;

/// An async mutual-exclusion lock, fair (FIFO); same API as
/// [`tokio::sync::Mutex`] for `new`, `const_new`, `lock`, `try_lock`, `blocking_lock`,
/// `lock_owned`, `try_lock_owned` (for `T: 'static`), `get_mut` and
/// `into_inner`. Its guard may be held across `.await`.
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

    /// Locks the mutex from synchronous code, waiting while another holds it.
    ///
    /// Runs the future on samaritan's `block_on` (a simulated thread's own
    /// executor inside an exploration); unlike tokio's, it does not panic
    /// when called from async code, which it would block.
    #[track_caller]
    pub fn blocking_lock(&self) -> MutexGuard<'_, T> {
        samaritan::executor::block_on(self.0.lock())
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

impl<T: ?Sized + 'static> Mutex<T> {
    /// Locks the mutex; the guard keeps it alive.
    #[track_caller]
    pub fn lock_owned(self: Arc<Self>) -> LockOwned<T> {
        let lock = self.0.lock();
        // SAFETY: the future borrows the mutex inside `self`'s allocation,
        // which the `Arc` stored beside it keeps alive and in place
        // (moving the `Arc` moves a pointer) for as long as the future
        // exists: `LockOwned::drop` drops the future before the `Arc`,
        // and the `'static` lifetime never leaves this module.
        let lock = unsafe { std::mem::transmute::<Lock<'_, T>, Lock<'static, T>>(lock) };
        LockOwned { lock: Some(lock), mutex: self }
    }

    /// Locks the mutex if it is free now; the guard keeps it alive.
    #[track_caller]
    pub fn try_lock_owned(self: Arc<Self>) -> Result<OwnedMutexGuard<T>, TryLockError> {
        let guard = self.0.try_lock().map_err(|_| TryLockError::new())?;
        // SAFETY: as in `lock_owned`; `OwnedMutexGuard::drop` drops the
        // guard before the `Arc`.
        let guard = unsafe { std::mem::transmute::<MutexGuard<'_, T>, MutexGuard<'static, T>>(guard) };
        Ok(OwnedMutexGuard { guard: Some(guard), mutex: self })
    }
}

/// The future of [`Mutex::lock_owned`].
#[must_use = "futures do nothing unless awaited"]
pub struct LockOwned<T: ?Sized + 'static> {
    /// Dropped first, in `drop`, while `mutex` keeps the mutex alive.
    lock: Option<Lock<'static, T>>,
    mutex: Arc<Mutex<T>>,
}

impl<T: ?Sized + 'static> Future for LockOwned<T> {
    type Output = OwnedMutexGuard<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<OwnedMutexGuard<T>> {
        let this = &mut *self;
        let lock = this.lock.as_mut().expect("`LockOwned` polled after it completed");
        let guard = ready!(Pin::new(lock).poll(cx));
        this.lock = None;
        Poll::Ready(OwnedMutexGuard { guard: Some(guard), mutex: this.mutex.clone() })
    }
}

impl<T: ?Sized + 'static> Drop for LockOwned<T> {
    fn drop(&mut self) {
        self.lock = None;
    }
}

impl<T: ?Sized + 'static> fmt::Debug for LockOwned<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LockOwned").finish_non_exhaustive()
    }
}

/// A guard of a [`Mutex`] that keeps it alive; the lock is released when
/// it is dropped.
pub struct OwnedMutexGuard<T: ?Sized + 'static> {
    /// Borrows the mutex in `mutex`; dropped first, in `drop`. `None`
    /// only while dropping.
    guard: Option<MutexGuard<'static, T>>,
    mutex: Arc<Mutex<T>>,
}

impl<T: ?Sized + 'static> OwnedMutexGuard<T> {
    /// Returns the mutex the guard holds.
    pub fn mutex(this: &Self) -> &Arc<Mutex<T>> {
        &this.mutex
    }
}

impl<T: ?Sized + 'static> Deref for OwnedMutexGuard<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.guard.as_deref().expect("a live guard")
    }
}

impl<T: ?Sized + 'static> DerefMut for OwnedMutexGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.guard.as_deref_mut().expect("a live guard")
    }
}

impl<T: ?Sized + 'static> Drop for OwnedMutexGuard<T> {
    fn drop(&mut self) {
        // Before `mutex`, which a field drops after this body.
        self.guard = None;
    }
}

impl<T: ?Sized + fmt::Debug + 'static> fmt::Debug for OwnedMutexGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
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
