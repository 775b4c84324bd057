//! tokio for production and, under the `sim` feature, tokio's tasks, sync
//! primitives, timers and `select!` on samaritan's explorer: a drop-in
//! for tokio users, madsim-style.
//!
//! # Switching
//!
//! ```toml
//! [dependencies]
//! tokio = { package = "samaritan-tokio", path = "../samaritan/tokio" }
//!
//! [dev-dependencies]
//! tokio = { package = "samaritan-tokio", path = "../samaritan/tokio", features = ["sim"] }
//! samaritan = { path = "../samaritan" }
//! ```
//!
//! The code stays as it is (`use tokio::sync::Mutex; tokio::spawn(...)`,
//! `#[tokio::test]`), and so does a feature list: tokio's feature names
//! are this crate's too, forwarded to tokio (`full` is always on).
//! Without `sim` this crate *is* tokio: every item is a re-export, so
//! production keeps tokio's runtime, I/O and speed. With `sim` (put it in `[dev-dependencies]`,
//! where resolver 2 keeps it out of normal builds), each `#[tokio::test]`
//! is explored: its body is the main task of samaritan's executor inside
//! `samaritan::check`, run once per schedule, and a failure panics with
//! samaritan's report (the verdict, a trace with one line per step, and
//! the command that replays it). Settings come from the `SAMARITAN_*`
//! environment variables. Inside an exploration the items below are
//! samaritan's simulated ones; outside one (a `#[tokio::main]`, a runtime
//! built by hand) tasks, timers and `select!` are tokio's, in a `sim`
//! build too, and the `sync` primitives are samaritan's async ones, which
//! behave as tokio's there (see the table).
//!
//! `sim` is not a default feature because cargo unifies features across a
//! workspace build, where a default `sim` would turn every crate's
//! production build into a simulation build.
//!
//! ```
//! extern crate samaritan_tokio as tokio;
//! use tokio::sync::mpsc;
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() {
//!     let (tx, mut rx) = mpsc::channel(8);
//!     for i in 1..=3 {
//!         let tx = tx.clone();
//!         tokio::spawn(async move { tx.send(i).await.unwrap() });
//!     }
//!     drop(tx);
//!     let mut sum = 0;
//!     while let Some(i) = rx.recv().await {
//!         sum += i;
//!     }
//!     assert_eq!(sum, 6);
//! }
//! ```
//!
//! Under `sim`, a test can also explore a program itself and look at the
//! report, here a `select!` whose winner depends on the branch polled
//! first, which is an explored choice (two executions, one per order):
//!
//! ```
//! # #[cfg(feature = "sim")]
//! # fn main() {
//! extern crate samaritan_tokio as tokio;
//! use samaritan::{Builder, Outcome, SearchStrategy};
//!
//! let report = Builder::new()
//!     .strategy(SearchStrategy::Dfs)
//!     .persist(false)
//!     .explore(|| {
//!         samaritan::executor::block_on(async {
//!             let (tx_a, mut a) = tokio::sync::mpsc::unbounded_channel();
//!             let (tx_b, mut b) = tokio::sync::mpsc::unbounded_channel();
//!             tx_a.send('a').unwrap();
//!             tx_b.send('b').unwrap();
//!             let first = tokio::select! {
//!                 Some(v) = a.recv() => v,
//!                 Some(v) = b.recv() => v,
//!             };
//!             assert!(first == 'a', "b won the race");
//!         })
//!     })
//!     .unwrap();
//! assert!(matches!(&report.outcome, Outcome::Panic { message, .. } if message == "b won the race"), "{report}");
//! # }
//! # #[cfg(not(feature = "sim"))]
//! # fn main() {}
//! ```
//!
//! # What maps
//!
//! Under `sim`; without it everything is tokio's.
//!
//! | tokio 1.x | inside an exploration |
//! |---|---|
//! | `spawn`, `task::{spawn, spawn_blocking, yield_now}` | samaritan's executor: each task an actor, each `spawn_blocking` a simulated thread; the choice is made at the call, so a task spawned inside an exploration is samaritan's, one spawned outside is tokio's |
//! | `task::{JoinHandle, AbortHandle, JoinError}` (`abort`, `abort_handle`, `is_finished`, `id`, `is_cancelled`, `is_panic`, `into_panic`, `try_into_panic`) | either executor's, behind one type |
//! | `task::{Id, id, try_id}` | samaritan's ids inside an exploration (a runtime numbers its tasks from 1, the same in every execution; `spawn_blocking` closures from 2^32); outside one, this crate numbers the tokio tasks its `spawn` starts (tokio's own ids are missing from the tokio 1.36-1.45 that lock files pin), and `try_id` is `None` in a task started by calling tokio directly; `None` in a test's body, which is no task, as tokio's |
//! | `task::JoinSet` (`new`, `spawn`, `spawn_blocking`, `join_next`, `try_join_next`, `poll_join_next`, each also `_with_id`, `join_all`, `abort_all`, `shutdown`, `detach_all`, `len`, `is_empty`) | one implementation for both executors, a list of this crate's join handles: each task runs where a `spawn` at that moment would; `join_next` returns tasks in the order they finished, as tokio's; dropping the set aborts its tasks; not mapped: `spawn_on`, `spawn_local`, `spawn_local_on`, `spawn_blocking_on` (they take tokio's runtime handle or `LocalSet`) |
//! | `sync::{mpsc, oneshot, watch, Mutex, RwLock, Notify, Semaphore}` | samaritan's async primitives in both cases (executor-agnostic, they behave like tokio's outside an exploration, on a tokio runtime too), under tokio's names and error types; `Mutex::lock_owned`/`try_lock_owned` (for `T: 'static`) and `Semaphore::*_owned` too; `blocking_*` run on samaritan's `block_on` (they do not panic inside async code, as tokio's do); `mpsc::Sender::{reserve, try_reserve, reserve_owned, try_reserve_owned}` with `Permit`/`OwnedPermit` (`reserve_owned`'s future is named, `sync::futures::ReserveOwned`; tokio-util's `PollSender` and `PollSemaphore` over these types are samaritan-tokio-util's); not mapped: `reserve_many`, `recv_many`, weak senders, owned `RwLock` guards, `MutexGuard::map`, `watch::Sender::closed`, `watch::Receiver::wait_for` |
//! | `sync::broadcast` | samaritan's `broadcast`, with tokio's rounding of the capacity to a power of two, `Lagged(n)`, `Closed` and error types; not mapped: weak senders, `Sender::closed` |
//! | `sync::{Barrier, OnceCell, SetOnce, ...}` | tokio's, not simulated |
//! | `time::{sleep, sleep_until, timeout, timeout_at, interval, interval_at, Instant, Sleep, Timeout, Interval, error::Elapsed}` | virtual time inside an exploration, tokio's outside; `Instant::now` reads the virtual clock; a `sleep`'s virtual deadline is taken at its first poll, and it lasts a whole number of milliseconds, at least one, as tokio's millisecond timer ticks make it (a zero sleep is pending once); `std::time::Instant` and `SystemTime` move with the virtual clock's jumps (64-bit glibc Linux), so std durations across a `sleep` are the sleep's |
//! | `time::{pause, resume, advance}` (`test-util`) | `pause` and `resume` do nothing (virtual time behaves as a paused clock), `advance` sleeps in virtual time |
//! | `select!` | this crate's, tokio's syntax (`biased;`, `, if` preconditions, `else`): the branch polled first is an explored choice among the enabled branches, at every poll; outside an exploration a random one, as tokio's |
//! | `join!`, `try_join!`, `pin!` | tokio's: they poll in a fixed order and need no runtime |
//! | `#[tokio::test]` | explored on a runtime of the flavor's size: `current_thread` (the default) polls one task at a time, so tasks interleave only where a poll returns (and with `spawn_blocking` threads); `multi_thread` lets `worker_threads` polls overlap (no limit without it); on `current_thread` the woken tasks are polled in the order tokio's current-thread scheduler polls them (wake order; the test's future when the run queue is empty or after 61 polls; `yield_now`'s task after the rest of the batch: `executor::Builder::tokio_order`), so only what tokio leaves open is explored (threads, `select!`, timers); on `multi_thread` which woken task is polled next is an explored choice; `start_paused` accepted and ignored (time is virtual), `crate = "..."` honoured |
//! | `#[tokio::main]` | tokio's: a program's entry point runs on tokio; explore with `#[tokio::test]` |
//! | `net::lookup_host`, `fs`'s free functions (`read`, `write`, `create_dir_all`, `metadata`, ...), `fs::File::{open, create}`, `fs::OpenOptions::open` | an `io::Error` (`Unsupported`) naming the call: network and file I/O are not simulated; tokio's outside an exploration |
//! | `net`'s types (`TcpListener`, `TcpStream`, `TcpSocket`, `UdpSocket`, Unix sockets) | tokio's own, so they pass to crates written against tokio; inside an exploration their `bind`/`connect` find no tokio runtime, and the report says the test cannot be checked as written (a misuse naming tokio's panic), not that it has a bug. So does any call that reaches real tokio's runtime from inside an exploration (a dependency that uses tokio directly) |
//! | the rest of `net`, `fs`, `io`, `process`, `signal`, `runtime` | tokio's, unchecked: inside an exploration they fail as tokio fails without a runtime |
#![doc(test(attr(deny(warnings))))]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use tokio::*;

#[cfg(feature = "sim")]
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;
#[cfg(feature = "sim")]
pub mod fs;
#[cfg(feature = "sim")]
mod io_guard;
#[cfg(feature = "sim")]
pub mod net;
#[cfg(feature = "sim")]
pub mod sync;
#[cfg(feature = "sim")]
pub mod task;
#[cfg(feature = "sim")]
pub mod time;

#[cfg(feature = "sim")]
pub use task::spawn;

/// Marks an `async fn` as a test; same arguments as tokio's `#[tokio::test]`
/// (`flavor`, `worker_threads`, `start_paused`, `crate`). Under `sim` the
/// body is explored: it is the main task of samaritan's executor inside
/// `samaritan::check`, as `#[samaritan::test]` makes it. The flavor says
/// how many polls may overlap, as the runtime tokio would build: on the
/// default `current_thread` one, a poll runs to its end before another
/// task's begins (tasks interleave where `poll` returns, and with
/// `spawn_blocking` threads); `multi_thread` with `worker_threads = n`
/// lets `n` overlap, and without `worker_threads` any number (tokio's
/// default is the machine's CPU count; no limit covers every machine).
/// `start_paused` is checked and ignored: time is virtual, as with it.
#[cfg(feature = "sim")]
pub use samaritan_macros::tokio_test as test;

/// Waits on several futures at once and runs the handler of the first to
/// complete; tokio's syntax and semantics (see tokio's `select!`).
///
/// Under `sim`, the branch polled first on each poll is an explored choice
/// inside an exploration (`biased;` keeps it the first), so every order in
/// which ready branches can win is reached, and a random one outside, as
/// tokio's.
#[cfg(feature = "sim")]
#[macro_export]
macro_rules! select {
    ($($input:tt)*) => {
        $crate::__private::select_expand! { $crate; $($input)* }
    };
}

/// Whether an exploration is running on the calling thread.
#[cfg(feature = "sim")]
pub(crate) fn exploring() -> bool {
    misuses();
    samaritan_sim::rt::active()
}

/// tokio's panic when it finds no runtime of its own (`CONTEXT_MISSING_ERROR`
/// in tokio's `util/error.rs`, the same words since tokio 1.0).
#[cfg(feature = "sim")]
const NO_TOKIO_RUNTIME: &str = "there is no reactor running, must be called from the context of a Tokio 1.x runtime";

/// Tells the engine that tokio's panic for a missing runtime is a misuse:
/// inside an exploration, code that reaches tokio itself (its network
/// types, its timers or spawn called by a dependency that uses tokio
/// directly) cannot be checked, and the report should say so rather than
/// call it a bug. Once per process.
#[cfg(feature = "sim")]
pub(crate) fn misuses() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        samaritan_sim::rt::misuse_on_panic(
            NO_TOKIO_RUNTIME,
            "the test reaches tokio's own runtime, which an exploration does not run: tokio's network types \
             (network I/O is not simulated), or a dependency that calls tokio directly (its timers, spawn or I/O), \
             which the `tokio` rename does not reach; run that part outside the exploration, or give the code \
             under test an in-memory stand-in",
        );
    });
}
