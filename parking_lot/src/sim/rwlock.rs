//! `RwLock` with upgradable reads, on samaritan's `RwLock` and a mutex
//! that writers and upgradable readers take first.
//!
//! Invariants:
//! - `upgrade` (the "upgrade token") is held by the writer and by the one
//!   upgradable reader, never by a plain reader; so while an upgradable
//!   read is held no writer waits on `inner`, and its upgrade (release the
//!   read, take the write) and a write's downgrade (release the write,
//!   take a read) have no writer in between, as parking_lot promises.
//! - Each guard holds samaritan's guard of `inner` except inside the
//!   conversions, which put one back before returning.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use samaritan::sync;

use super::mutex::{try_unpoisoned, unpoisoned, Held};

/// A reader-writer lock, as parking_lot's: guards returned directly, no
/// poisoning, and an upgradable read.
///
/// ```
/// extern crate samaritan_parking_lot as parking_lot;
/// use parking_lot::{RwLock, RwLockUpgradableReadGuard};
///
/// let lock = RwLock::new(1);
/// let read = lock.upgradable_read();
/// let other = lock.read();
/// assert_eq!(*read + *other, 2);
/// drop(other);
/// let mut write = RwLockUpgradableReadGuard::upgrade(read);
/// *write += 1;
/// assert_eq!(*parking_lot::RwLockWriteGuard::downgrade(write), 2);
/// ```
#[derive(Default)]
pub struct RwLock<T: ?Sized> {
    upgrade: sync::Mutex<()>,
    inner: sync::RwLock<T>,
}

/// A new [`RwLock`], in a `const` context.
pub const fn const_rwlock<T>(value: T) -> RwLock<T> {
    RwLock::new(value)
}

type Token<'a> = sync::MutexGuard<'a, ()>;

impl<T> RwLock<T> {
    /// A new unlocked lock holding `value`.
    pub const fn new(value: T) -> RwLock<T> {
        RwLock { upgrade: sync::Mutex::new(()), inner: sync::RwLock::new(value) }
    }

    /// The value, consuming the lock.
    pub fn into_inner(self) -> T {
        unpoisoned(self.inner.into_inner())
    }
}

impl<T: ?Sized> RwLock<T> {
    /// Takes a shared read lock, blocking while a writer holds or waits
    /// for the lock.
    #[track_caller]
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        RwLockReadGuard { inner: unpoisoned(self.inner.read()) }
    }

    /// Takes a read lock if it can be had now.
    #[track_caller]
    pub fn try_read(&self) -> Option<RwLockReadGuard<'_, T>> {
        try_unpoisoned(self.inner.try_read()).map(|inner| RwLockReadGuard { inner })
    }

    /// Takes the exclusive write lock.
    #[track_caller]
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        let token = unpoisoned(self.upgrade.lock());
        RwLockWriteGuard { lock: self, token: Some(token), inner: Some(unpoisoned(self.inner.write())) }
    }

    /// Takes the write lock if it is free now.
    #[track_caller]
    pub fn try_write(&self) -> Option<RwLockWriteGuard<'_, T>> {
        let token = try_unpoisoned(self.upgrade.try_lock())?;
        let inner = try_unpoisoned(self.inner.try_write())?;
        Some(RwLockWriteGuard { lock: self, token: Some(token), inner: Some(inner) })
    }

    /// Takes an upgradable read lock: shared with plain readers, exclusive
    /// of writers and of other upgradable readers.
    #[track_caller]
    pub fn upgradable_read(&self) -> RwLockUpgradableReadGuard<'_, T> {
        let token = unpoisoned(self.upgrade.lock());
        RwLockUpgradableReadGuard { lock: self, token: Some(token), inner: Some(unpoisoned(self.inner.read())) }
    }

    /// Takes an upgradable read lock if it can be had now.
    #[track_caller]
    pub fn try_upgradable_read(&self) -> Option<RwLockUpgradableReadGuard<'_, T>> {
        let token = try_unpoisoned(self.upgrade.try_lock())?;
        let inner = try_unpoisoned(self.inner.try_read())?;
        Some(RwLockUpgradableReadGuard { lock: self, token: Some(token), inner: Some(inner) })
    }

    /// Whether the lock is held by anyone: a [`RwLock::try_write`] that
    /// gives the lock back at once.
    #[track_caller]
    pub fn is_locked(&self) -> bool {
        self.try_write().is_none()
    }

    /// The value, through `&mut self`.
    pub fn get_mut(&mut self) -> &mut T {
        unpoisoned(self.inner.get_mut())
    }
}

impl<T> From<T> for RwLock<T> {
    fn from(value: T) -> RwLock<T> {
        RwLock::new(value)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("RwLock");
        match try_unpoisoned(self.inner.try_read()) {
            Some(guard) => d.field("data", &&*guard),
            None => d.field("data", &format_args!("<locked>")),
        };
        d.finish()
    }
}

/// A shared read lock of a [`RwLock`].
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockReadGuard<'a, T: ?Sized> {
    inner: sync::RwLockReadGuard<'a, T>,
}

impl<'a, T: ?Sized + 'a> RwLockReadGuard<'a, T> {
    /// A guard for a part of the value.
    pub fn map<U: ?Sized, F: FnOnce(&T) -> &U>(s: Self, f: F) -> MappedRwLockReadGuard<'a, U> {
        let part = NonNull::from(f(&*s.inner));
        MappedRwLockReadGuard { _held: Box::new(s.inner), part, _lock: PhantomData }
    }
}

impl<T: ?Sized> Deref for RwLockReadGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.inner
    }
}

/// The write lock of a [`RwLock`].
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockWriteGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
    // Field order is drop order: the write lock goes before the token.
    inner: Option<sync::RwLockWriteGuard<'a, T>>,
    token: Option<Token<'a>>,
}

impl<'a, T: ?Sized + 'a> RwLockWriteGuard<'a, T> {
    /// Turns the write lock into a read lock, with no writer in between.
    #[track_caller]
    pub fn downgrade(mut s: Self) -> RwLockReadGuard<'a, T> {
        drop(s.inner.take());
        let inner = unpoisoned(s.lock.inner.read());
        RwLockReadGuard { inner }
    }

    /// Turns the write lock into an upgradable read lock.
    #[track_caller]
    pub fn downgrade_to_upgradable(mut s: Self) -> RwLockUpgradableReadGuard<'a, T> {
        drop(s.inner.take());
        let inner = unpoisoned(s.lock.inner.read());
        RwLockUpgradableReadGuard { lock: s.lock, token: s.token.take(), inner: Some(inner) }
    }

    /// A guard for a part of the value.
    pub fn map<U: ?Sized, F: FnOnce(&mut T) -> &mut U>(mut s: Self, f: F) -> MappedRwLockWriteGuard<'a, U> {
        let mut inner = s.inner.take().expect("a guard holds its lock");
        let part = NonNull::from(f(&mut *inner));
        let held: (sync::RwLockWriteGuard<'a, T>, Option<Token<'a>>) = (inner, s.token.take());
        MappedRwLockWriteGuard { _held: Box::new(held), part, _lock: PhantomData }
    }
}

impl<T: ?Sized> Deref for RwLockWriteGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.inner.as_ref().expect("a guard holds its lock")
    }
}

impl<T: ?Sized> DerefMut for RwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.inner.as_mut().expect("a guard holds its lock")
    }
}

/// An upgradable read lock of a [`RwLock`].
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct RwLockUpgradableReadGuard<'a, T: ?Sized> {
    lock: &'a RwLock<T>,
    // The read lock goes before the token.
    inner: Option<sync::RwLockReadGuard<'a, T>>,
    token: Option<Token<'a>>,
}

impl<'a, T: ?Sized + 'a> RwLockUpgradableReadGuard<'a, T> {
    /// Turns it into the write lock, waiting for the plain readers to
    /// leave; no writer comes in between.
    #[track_caller]
    pub fn upgrade(mut s: Self) -> RwLockWriteGuard<'a, T> {
        drop(s.inner.take());
        let inner = unpoisoned(s.lock.inner.write());
        RwLockWriteGuard { lock: s.lock, token: s.token.take(), inner: Some(inner) }
    }

    /// Turns it into the write lock if no plain reader holds the lock.
    #[track_caller]
    pub fn try_upgrade(mut s: Self) -> Result<RwLockWriteGuard<'a, T>, Self> {
        drop(s.inner.take());
        match try_unpoisoned(s.lock.inner.try_write()) {
            Some(inner) => Ok(RwLockWriteGuard { lock: s.lock, token: s.token.take(), inner: Some(inner) }),
            None => {
                // No writer waits on the lock (they wait for the token
                // this guard holds), so the read is free to take again.
                s.inner = Some(unpoisoned(s.lock.inner.read()));
                Err(s)
            }
        }
    }

    /// Turns it into a plain read lock.
    pub fn downgrade(mut s: Self) -> RwLockReadGuard<'a, T> {
        let inner = s.inner.take().expect("a guard holds its lock");
        drop(s.token.take());
        RwLockReadGuard { inner }
    }

    /// Upgrades for the time `f` runs, then downgrades back.
    #[track_caller]
    pub fn with_upgraded<U, F: FnOnce(&mut T) -> U>(&mut self, f: F) -> U {
        drop(self.inner.take());
        let mut write = unpoisoned(self.lock.inner.write());
        let result = f(&mut write);
        drop(write);
        self.inner = Some(unpoisoned(self.lock.inner.read()));
        result
    }
}

impl<T: ?Sized> Deref for RwLockUpgradableReadGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.inner.as_ref().expect("a guard holds its lock")
    }
}

/// A read lock giving access to a part of the value
/// ([`RwLockReadGuard::map`]).
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct MappedRwLockReadGuard<'a, T: ?Sized> {
    _held: Box<dyn Held + 'a>,
    part: NonNull<T>,
    _lock: PhantomData<&'a T>,
}

impl<T: ?Sized> Deref for MappedRwLockReadGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: `part` points into the value the held read guard locks,
        // which stays shared-locked while `self` lives.
        unsafe { self.part.as_ref() }
    }
}

/// A write lock giving access to a part of the value
/// ([`RwLockWriteGuard::map`]).
#[must_use = "if unused the RwLock will immediately unlock"]
pub struct MappedRwLockWriteGuard<'a, T: ?Sized> {
    _held: Box<dyn Held + 'a>,
    part: NonNull<T>,
    _lock: PhantomData<&'a mut T>,
}

impl<T: ?Sized> Deref for MappedRwLockWriteGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: `part` points into the value the held write guard locks
        // exclusively while `self` lives.
        unsafe { self.part.as_ref() }
    }
}

impl<T: ?Sized> DerefMut for MappedRwLockWriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, and exclusive through `&mut self`.
        unsafe { self.part.as_mut() }
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for RwLockUpgradableReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MappedRwLockReadGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for MappedRwLockWriteGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
