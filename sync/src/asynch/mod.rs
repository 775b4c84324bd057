//! Async sync primitives: they park tasks (by their `Waker`), not threads.
//!
//! # Naming
//!
//! Blocking and async primitives live side by side in one crate, so a name
//! alone must tell which is which: the async locks carry an `Async` prefix
//! ([`AsyncMutex`], [`AsyncRwLock`] and their guards, [`AsyncTryLockError`])
//! and the async queue module is `async_mpsc`, while [`Mutex`](crate::Mutex),
//! [`RwLock`](crate::RwLock) and [`mpsc`](crate::mpsc) stay std's blocking
//! ones. Types with no blocking twin keep their usual names ([`Semaphore`],
//! [`Notify`], `oneshot`, `watch`, `broadcast`).
//!
//! # Design
//!
//! Executor-agnostic: they only use `Waker`s. Each is a small state machine
//! behind a std mutex that is held for a few instructions and never across
//! a wake (wakers are collected and woken after unlocking). The locks share
//! one fair semaphore (`batch`): FIFO service, partial grants to the head
//! so large requests are not starved, and pending futures that give back
//! what they were handed when dropped. The bounded channel keeps its
//! capacity and waiting senders under its own lock (`mpsc/chan.rs`), with
//! the same rules, so a message costs one lock.
//!
//! They are the same real implementations under the `sim` feature: they use
//! std primitives internally, not samaritan's modelled ones. Inside an
//! exploration each public operation is announced as one visible step
//! before it touches the shared state (see `vis`); their internals take no
//! steps of their own.

mod batch;
pub mod broadcast;
pub mod mpsc;
mod mutex;
mod notify;
pub mod oneshot;
mod rwlock;
mod semaphore;
mod vis;
mod wait_list;
pub mod watch;

pub use mutex::{AsyncMutex, AsyncMutexGuard, AsyncTryLockError, Lock};
pub use notify::{Notified, Notify};
pub use rwlock::{AsyncRwLock, AsyncRwLockReadGuard, AsyncRwLockWriteGuard, Read, Write};
pub use semaphore::{Acquire, AcquireError, Semaphore, SemaphorePermit, TryAcquireError};
