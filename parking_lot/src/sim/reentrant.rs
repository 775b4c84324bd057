//! `ReentrantMutex`: a lock its owner may take again, on samaritan's
//! mutex and condition variable.
//!
//! Invariants:
//! - `owner` is `None` with `depth` 0, or the thread holding the lock and
//!   how many of its guards are alive.
//! - A thread waits on `freed` only while another thread owns the lock;
//!   the last guard's drop clears the owner and notifies.

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

use samaritan::sync::{Condvar, Mutex};
use samaritan::thread::{self, ThreadId};

use super::mutex::unpoisoned;

/// Who holds a [`ReentrantMutex`], and how often.
#[derive(Debug, Default)]
struct Owner {
    thread: Option<ThreadId>,
    depth: usize,
}

/// A mutex its owner may lock again without deadlocking, as
/// parking_lot's; its guards give shared access only.
///
/// ```
/// extern crate samaritan_parking_lot as parking_lot;
/// use parking_lot::ReentrantMutex;
/// use std::cell::Cell;
///
/// let m = ReentrantMutex::new(Cell::new(0));
/// let outer = m.lock();
/// let inner = m.lock();
/// inner.set(inner.get() + 1);
/// drop(inner);
/// assert_eq!(outer.get(), 1);
/// ```
pub struct ReentrantMutex<T: ?Sized> {
    owner: Mutex<Owner>,
    freed: Condvar,
    data: T,
}

// SAFETY: the data is reached only through guards, and the guards of
// one lock all belong to its owner thread: shared access from one thread
// at a time, which needs `T: Send` only (parking_lot's bound).
unsafe impl<T: ?Sized + Send> Sync for ReentrantMutex<T> {}

/// A new [`ReentrantMutex`], in a `const` context.
pub const fn const_reentrant_mutex<T>(value: T) -> ReentrantMutex<T> {
    ReentrantMutex::new(value)
}

impl<T> ReentrantMutex<T> {
    /// A new unlocked mutex holding `value`.
    pub const fn new(value: T) -> ReentrantMutex<T> {
        ReentrantMutex { owner: Mutex::new(Owner { thread: None, depth: 0 }), freed: Condvar::new(), data: value }
    }

    /// The value, consuming the mutex.
    pub fn into_inner(self) -> T {
        self.data
    }
}

impl<T: ?Sized> ReentrantMutex<T> {
    /// Takes the lock, blocking while another thread holds it.
    #[track_caller]
    pub fn lock(&self) -> ReentrantMutexGuard<'_, T> {
        let me = thread::current().id();
        let mut owner = unpoisoned(self.owner.lock());
        while owner.thread.is_some_and(|t| t != me) {
            owner = unpoisoned(self.freed.wait(owner));
        }
        owner.thread = Some(me);
        owner.depth += 1;
        ReentrantMutexGuard { mutex: self, _not_send: PhantomData }
    }

    /// Takes the lock if it is free or this thread's.
    #[track_caller]
    pub fn try_lock(&self) -> Option<ReentrantMutexGuard<'_, T>> {
        let me = thread::current().id();
        let mut owner = unpoisoned(self.owner.lock());
        if owner.thread.is_some_and(|t| t != me) {
            return None;
        }
        owner.thread = Some(me);
        owner.depth += 1;
        Some(ReentrantMutexGuard { mutex: self, _not_send: PhantomData })
    }

    /// Whether some thread holds the lock.
    #[track_caller]
    pub fn is_locked(&self) -> bool {
        unpoisoned(self.owner.lock()).thread.is_some()
    }

    /// Whether this thread holds the lock.
    #[track_caller]
    pub fn is_owned_by_current_thread(&self) -> bool {
        unpoisoned(self.owner.lock()).thread == Some(thread::current().id())
    }

    /// The value, through `&mut self`.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.data
    }
}

impl<T: Default> Default for ReentrantMutex<T> {
    fn default() -> ReentrantMutex<T> {
        ReentrantMutex::new(T::default())
    }
}

impl<T: ?Sized> fmt::Debug for ReentrantMutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReentrantMutex").finish_non_exhaustive()
    }
}

/// One hold of a [`ReentrantMutex`]; the lock is free once every guard of
/// its owner is dropped.
#[must_use = "if unused the ReentrantMutex will immediately unlock"]
pub struct ReentrantMutexGuard<'a, T: ?Sized> {
    mutex: &'a ReentrantMutex<T>,
    /// A guard stays on its owner thread (parking_lot's are `!Send`).
    _not_send: PhantomData<*const ()>,
}

impl<T: ?Sized> Deref for ReentrantMutexGuard<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.mutex.data
    }
}

impl<T: ?Sized> Drop for ReentrantMutexGuard<'_, T> {
    fn drop(&mut self) {
        let mut owner = unpoisoned(self.mutex.owner.lock());
        owner.depth -= 1;
        if owner.depth == 0 {
            owner.thread = None;
            drop(owner);
            self.mutex.freed.notify_one();
        }
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for ReentrantMutexGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}
