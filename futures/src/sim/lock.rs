//! `futures::lock` under `sim`: `Mutex` on samaritan's async mutex
//! (every lock a visible step, waiters served in order).
//!
//! Invariant: an owned guard or owned lock future borrows the mutex that
//! the `Arc` stored beside it keeps alive; the borrow is declared first,
//! so it is dropped (the lock released, the wait given up) before the
//! `Arc`.

use std::fmt;
use std::future::Future;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::future::FusedFuture;
use samaritan::sync::{futures as lock_futures, AsyncMutex, AsyncMutexGuard};

/// An async mutex, as futures' `lock::Mutex`.
///
/// ```
/// extern crate samaritan_futures as futures;
/// use futures::lock::Mutex;
///
/// let m = Mutex::new(1);
/// futures::executor::block_on(async {
///     *m.lock().await += 1;
/// });
/// assert_eq!(*m.try_lock().unwrap(), 2);
/// ```
pub struct Mutex<T: ?Sized> {
    inner: AsyncMutex<T>,
}

impl<T> Mutex<T> {
    /// A new unlocked mutex holding `value`.
    pub fn new(value: T) -> Mutex<T> {
        Mutex { inner: AsyncMutex::new(value) }
    }

    /// The value, consuming the mutex.
    pub fn into_inner(self) -> T {
        self.inner.into_inner()
    }
}

impl<T: ?Sized> Mutex<T> {
    /// A future of the lock.
    #[track_caller]
    pub fn lock(&self) -> MutexLockFuture<'_, T> {
        MutexLockFuture { lock: Some(self.inner.lock()) }
    }

    /// The lock, if it is free.
    #[track_caller]
    pub fn try_lock(&self) -> Option<MutexGuard<'_, T>> {
        self.inner.try_lock().ok().map(|inner| MutexGuard { inner })
    }

    /// The value, through `&mut self`.
    pub fn get_mut(&mut self) -> &mut T {
        self.inner.get_mut()
    }
}

impl<T: ?Sized + 'static> Mutex<T> {
    /// A future of a lock that holds the `Arc`.
    #[track_caller]
    pub fn lock_owned(self: Arc<Self>) -> OwnedMutexLockFuture<T> {
        let lock = self.inner.lock();
        // SAFETY: the future borrows the mutex inside `self`'s allocation,
        // which the `Arc` stored beside it keeps alive until the future is
        // dropped (the module's invariant).
        let lock = unsafe { std::mem::transmute::<lock_futures::Lock<'_, T>, lock_futures::Lock<'static, T>>(lock) };
        OwnedMutexLockFuture { lock: Some(ManuallyDrop::new(lock)), mutex: self }
    }

    /// A lock that holds the `Arc`, if the mutex is free.
    #[track_caller]
    pub fn try_lock_owned(self: &Arc<Self>) -> Option<OwnedMutexGuard<T>> {
        let guard = self.inner.try_lock().ok()?;
        // SAFETY: as in `lock_owned`, for the guard.
        let guard = unsafe { std::mem::transmute::<AsyncMutexGuard<'_, T>, AsyncMutexGuard<'static, T>>(guard) };
        Some(OwnedMutexGuard { guard: ManuallyDrop::new(guard), mutex: self.clone() })
    }
}

impl<T: Default> Default for Mutex<T> {
    fn default() -> Mutex<T> {
        Mutex::new(T::default())
    }
}

impl<T> From<T> for Mutex<T> {
    fn from(value: T) -> Mutex<T> {
        Mutex::new(value)
    }
}

impl<T: ?Sized> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Mutex { .. }")
    }
}

/// [`Mutex::lock`]'s future.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct MutexLockFuture<'a, T: ?Sized> {
    /// `None` once it gave the guard.
    lock: Option<lock_futures::Lock<'a, T>>,
}

impl<'a, T: ?Sized> Future for MutexLockFuture<'a, T> {
    type Output = MutexGuard<'a, T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<MutexGuard<'a, T>> {
        let this = self.get_mut();
        let lock = this.lock.as_mut().expect("polled after it gave the lock");
        match Pin::new(lock).poll(cx) {
            Poll::Ready(inner) => {
                this.lock = None;
                Poll::Ready(MutexGuard { inner })
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: ?Sized> FusedFuture for MutexLockFuture<'_, T> {
    fn is_terminated(&self) -> bool {
        self.lock.is_none()
    }
}

impl<T: ?Sized> fmt::Debug for MutexLockFuture<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("MutexLockFuture { .. }")
    }
}

/// The lock of a [`Mutex`], held until dropped.
pub struct MutexGuard<'a, T: ?Sized> {
    inner: AsyncMutexGuard<'a, T>,
}

impl<T: ?Sized> Deref for MutexGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// [`Mutex::lock_owned`]'s future.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct OwnedMutexLockFuture<T: ?Sized + 'static> {
    lock: Option<ManuallyDrop<lock_futures::Lock<'static, T>>>,
    mutex: Arc<Mutex<T>>,
}

impl<T: ?Sized + 'static> Future for OwnedMutexLockFuture<T> {
    type Output = OwnedMutexGuard<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<OwnedMutexGuard<T>> {
        let this = self.get_mut();
        let lock = this.lock.as_mut().expect("polled after it gave the lock");
        match Pin::new(&mut **lock).poll(cx) {
            Poll::Ready(guard) => {
                // SAFETY: the future is done and dropped once, here; the
                // guard it gave borrows what `mutex` keeps alive.
                unsafe { ManuallyDrop::drop(this.lock.as_mut().expect("just polled")) };
                this.lock = None;
                Poll::Ready(OwnedMutexGuard { guard: ManuallyDrop::new(guard), mutex: this.mutex.clone() })
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: ?Sized + 'static> Drop for OwnedMutexLockFuture<T> {
    fn drop(&mut self) {
        if let Some(lock) = self.lock.as_mut() {
            // SAFETY: dropped once, here, while `self.mutex` keeps the
            // mutex alive.
            unsafe { ManuallyDrop::drop(lock) };
        }
    }
}

impl<T: ?Sized + 'static> fmt::Debug for OwnedMutexLockFuture<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("OwnedMutexLockFuture { .. }")
    }
}

/// A lock of a [`Mutex`] that holds its `Arc`.
pub struct OwnedMutexGuard<T: ?Sized + 'static> {
    guard: ManuallyDrop<AsyncMutexGuard<'static, T>>,
    mutex: Arc<Mutex<T>>,
}

impl<T: ?Sized + 'static> OwnedMutexGuard<T> {
    /// The `Arc` of the mutex this guard locks.
    pub fn mutex(s: &Self) -> &Arc<Mutex<T>> {
        &s.mutex
    }
}

impl<T: ?Sized + 'static> Deref for OwnedMutexGuard<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T: ?Sized + 'static> DerefMut for OwnedMutexGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<T: ?Sized + 'static> Drop for OwnedMutexGuard<T> {
    fn drop(&mut self) {
        // SAFETY: dropped once, here, while `self.mutex` keeps the mutex
        // alive.
        unsafe { ManuallyDrop::drop(&mut self.guard) };
    }
}

impl<T: ?Sized + fmt::Debug + 'static> fmt::Debug for OwnedMutexGuard<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
