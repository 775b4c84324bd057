//! Drop-in threads and sync primitives that production code runs on, and
//! that a deterministic scheduler explores under the `sim` feature.
//!
//! ```
//! use samaritan::sync::atomic::{AtomicUsize, Ordering};
//! use samaritan::sync::Arc;
//! use samaritan::thread;
//!
//! samaritan::check(|| {
//!     let n = Arc::new(AtomicUsize::new(0));
//!     let handles: Vec<_> = (0..2)
//!         .map(|_| {
//!             let n = n.clone();
//!             thread::spawn(move || {
//!                 n.fetch_add(1, Ordering::SeqCst);
//!             })
//!         })
//!         .collect();
//!     for h in handles {
//!         h.join().unwrap();
//!     }
//!     assert_eq!(n.load(Ordering::SeqCst), 2);
//! });
//! ```
//!
//! Without `sim`, `check` runs the closure once and every type is std's.
//! With `sim` (put it in `[dev-dependencies]`), `check` runs the closure
//! once per schedule until every schedule has been explored or one fails,
//! and a failure panics with a trace and a replay token.
//!
//! # `#[samaritan::test]`
//!
//! The [`test`] attribute writes the `check` for you: `#[samaritan::test]`
//! on a `fn` explores its body, on an `async fn` runs the body as the main
//! task of samaritan's [`executor`] inside the exploration, and arguments
//! set the [`Builder`](#configuring) (`#[samaritan::test(strategy = "dpor",
//! preemptions = 3)]`). Without `sim` it is a plain `#[test]`. A failure's
//! replay command names the test, under `cargo test` and cargo-nextest.
//!
//! # What a failure looks like
//!
//! Every failure names its verdict — a panic (thread, message, location),
//! a deadlock (each blocked thread, the object it waits on, who holds it,
//! and the wait-for cycle), a livelock (the repeating cycle of steps, once,
//! with its repeat count), a good-samaritan violation (a thread that spins
//! without yielding, and where it loops), a data race (the cell, and both
//! accesses with their kind, thread and location), a step bound exceeded,
//! uncontrolled blocking (a thread blocked on something samaritan does not
//! model, caught by a watchdog), or nondeterminism — then prints the
//! trace, one line per step
//! (index, thread, operation, object, source location; preemptions and
//! yields marked), the replay token, and the command that replays it:
//! `SAMARITAN_REPLAY=<token> cargo test <name> -- --exact`.
//!
//! # Configuring
//!
//! `Builder` (under `sim`) sets the strategy (iterative context bounding
//! with at most 2 preemptions by default; unbounded DFS, seeded random,
//! PCT, round robin), whether the fair scheduler is on (it is by default),
//! the step bound, the execution and time budgets, the seed, the coroutine
//! stack size, the watchdog and whether weak compare-exchange may fail
//! spuriously. Each setting defaults from a `SAMARITAN_*` environment
//! variable listed in the `env` module.
//!
//! # Spin loops and liveness
//!
//! The fair demonic scheduler (Musuvathi & Qadeer, PLDI 2008) lowers the
//! priority of a thread that yields while another it keeps waiting could
//! run. A spin loop that yields (`yield_now`, `sleep`, `spin_loop`, a wait
//! with a timeout) therefore ends in every explored execution, and a
//! program whose threads can go round a cycle forever is reported as a
//! livelock, or as a good-samaritan violation when a thread spins without
//! yielding. The step bound (100000 by default) is what turns that
//! divergence into a report: keep it far above a normal execution.
//!
//! # What is modelled
//!
//! Every operation on a samaritan primitive is a scheduling point. Atomics
//! are sequentially consistent whatever `Ordering` is passed: bugs that
//! need weaker memory orderings are not found yet. Waits with a timeout may
//! time out, `sleep` advances a virtual clock, and a simulated thread is a
//! coroutine, not an OS thread: code that blocks on anything else (a std
//! lock, I/O) is reported as uncontrolled blocking.
//!
//! # Data races
//!
//! Data that threads share under a protocol of their own (a lock beside
//! the data rather than around it, a ring buffer, a lazily set value) goes
//! in a [`cell::UnsafeCell`]: std's cell, reached through `with` (a read)
//! and `with_mut` (a write) as in loom. Under `sim` its accesses are not
//! scheduling points; every execution tracks happens-before with vector
//! clocks (spawn, join, locks, channels, atomics) and fails with a data
//! race when two threads access a cell, one of them writing, with nothing
//! ordering the two. Atomics count as sequentially consistent here too, so
//! a race that only a weaker `Ordering` allows is not found. Without `sim`
//! the cell is std's, at no cost.
//!
//! ```
//! use samaritan::cell::UnsafeCell;
//! use samaritan::sync::{Arc, Mutex};
//! use samaritan::thread;
//!
//! /// A counter whose increments a lock orders.
//! struct Counter {
//!     lock: Mutex<()>,
//!     value: UnsafeCell<u64>,
//! }
//!
//! // SAFETY: `value` is only accessed with `lock` held.
//! unsafe impl Sync for Counter {}
//!
//! samaritan::check(|| {
//!     let counter = Arc::new(Counter { lock: Mutex::new(()), value: UnsafeCell::new(0) });
//!     let other = counter.clone();
//!     let t = thread::spawn(move || {
//!         let _held = other.lock.lock().unwrap();
//!         // SAFETY: the lock is held.
//!         other.value.with_mut(|v| unsafe { *v += 1 });
//!     });
//!     {
//!         let _held = counter.lock.lock().unwrap();
//!         // SAFETY: the lock is held.
//!         counter.value.with_mut(|v| unsafe { *v += 1 });
//!     }
//!     t.join().unwrap();
//!     // SAFETY: the join orders the thread's write before this read.
//!     assert_eq!(counter.value.with(|v| unsafe { *v }), 2);
//! });
//! ```
#![doc(test(attr(deny(warnings))))]
// The "Available on crate feature sim only" badges on docs.rs (nightly
// rustdoc, `--cfg docsrs`); stable builds never see the feature.
#![cfg_attr(docsrs, feature(doc_cfg))]

#[doc(hidden)]
#[path = "test_attr.rs"]
pub mod __private;
pub mod alloc;
#[cfg(feature = "sim")]
mod check;
pub mod collections;
pub mod coverage;
#[cfg(feature = "sim")]
#[cfg_attr(docsrs, doc(cfg(feature = "sim")))]
pub mod env;
#[cfg(feature = "sim")]
mod foreign;
#[cfg(feature = "sim")]
mod limits;
#[cfg(feature = "sim")]
mod persist;
#[cfg(feature = "sim")]
mod runner_shard;
#[cfg(feature = "sim")]
#[cfg_attr(docsrs, doc(cfg(feature = "sim")))]
pub mod snapshot;
#[cfg(feature = "sim")]
mod split;

#[cfg(all(feature = "sim", feature = "insta"))]
#[doc(hidden)]
pub use insta as __insta;
#[cfg(not(feature = "sim"))]
mod production;

// `check` is in both modes: the badge that its `sim` version's `cfg`
// would earn it is wrong.
#[cfg(feature = "sim")]
#[cfg_attr(docsrs, doc(auto_cfg = false))]
pub use check::check;
#[cfg(feature = "sim")]
#[cfg_attr(docsrs, doc(cfg(feature = "sim")))]
pub use check::{replay, Builder, Error, SearchStrategy};
#[cfg(not(feature = "sim"))]
pub use production::check;

#[cfg(feature = "sim")]
#[cfg_attr(docsrs, doc(cfg(feature = "sim")))]
pub use samaritan_sim::{
    BlockedActor, Budget, CycleStep, Deadlock, Failure, MemoryModel, Op, Outcome, RaceAccess, ReadFrom, Schedule,
    Shard, ShardError, Shrink, Size, TokenError, Trace, TraceError, TraceLine, TOKEN_VERSION, TRACE_VERSION,
};

/// What [`Builder::explore`] returns (and what [`check`] panics with on a
/// failure): the verdict, what was covered, and for a failure the trace,
/// token and replay command. Its `Display` is the report a person reads.
///
/// ```
/// use samaritan::sync::atomic::{AtomicUsize, Ordering};
/// use samaritan::sync::Arc;
/// use samaritan::{thread, Builder, Outcome, SearchStrategy};
///
/// /// Two threads increment with a load and a store: an update can be lost.
/// fn lost_update() {
///     let n = Arc::new(AtomicUsize::new(0));
///     let m = n.clone();
///     let t = thread::spawn(move || {
///         let seen = m.load(Ordering::SeqCst);
///         m.store(seen + 1, Ordering::SeqCst);
///     });
///     let seen = n.load(Ordering::SeqCst);
///     n.store(seen + 1, Ordering::SeqCst);
///     t.join().unwrap();
///     assert_eq!(n.load(Ordering::SeqCst), 2, "an increment was lost");
/// }
///
/// let report = Builder::new().strategy(SearchStrategy::Dfs).explore(lost_update).unwrap();
/// assert!(report.is_failure());
/// assert!(matches!(report.outcome, Outcome::Panic { .. }));
/// let text = report.to_string();
/// assert!(text.starts_with("samaritan found a bug"), "{text}");
/// assert!(text.contains("an increment was lost"));
/// // The token in the report replays the failing schedule.
/// let token = &report.failure.as_ref().unwrap().token;
/// assert!(text.contains(&format!("replay token: {token}")));
/// ```
#[cfg(feature = "sim")]
#[cfg_attr(docsrs, doc(cfg(feature = "sim")))]
pub use samaritan_sim::Report;

/// Declares a test whose body samaritan explores under the `sim` feature
/// (an `async fn` as the main task of [`executor`]), and that runs once,
/// as a plain `#[test]`, without it.
///
/// ```
/// #[samaritan::test]
/// fn two_increments() {
///     use samaritan::sync::atomic::{AtomicUsize, Ordering};
///     use samaritan::sync::Arc;
///
///     let n = Arc::new(AtomicUsize::new(0));
///     let m = n.clone();
///     let t = samaritan::thread::spawn(move || {
///         m.fetch_add(1, Ordering::SeqCst);
///     });
///     n.fetch_add(1, Ordering::SeqCst);
///     t.join().unwrap();
///     assert_eq!(n.load(Ordering::SeqCst), 2);
/// }
///
/// #[samaritan::test(strategy = "dpor", max_executions = 1000)]
/// async fn a_task_returns_its_output() {
///     let task = samaritan::executor::spawn(async { 6 * 7 });
///     assert_eq!(task.await.unwrap(), 42);
/// }
/// ```
///
/// When a test fails under `sim`, the report ends with the command that
/// replays the failing schedule and runs only this test:
/// `SAMARITAN_REPLAY=<token> cargo test two_increments -- --exact`.
pub use samaritan_macros::test;

pub use samaritan_runtime::{executor, time};
pub use samaritan_runtime::{hint, thread, thread_local};
pub use samaritan_sync as sync;
pub use samaritan_sync::cell;
