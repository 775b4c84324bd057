//! loom's API on samaritan's explorer: a loom test suite runs unchanged
//! with the dependency renamed.
//!
//! # Switching
//!
//! ```toml
//! [target.'cfg(loom)'.dev-dependencies]
//! loom = { package = "samaritan-loom", path = "../samaritan/loom", features = ["sim"] }
//! ```
//!
//! The tests stay as they are (`use loom::sync::Arc; loom::model(|| ...)`,
//! run with `RUSTFLAGS="--cfg loom" cargo test --release`). A failure
//! panics with samaritan's report instead of loom's: the verdict (panic,
//! deadlock with its wait-for cycle, data race naming both accesses,
//! livelock, step bound), a trace with one line per step, and a replay
//! token with the command that replays it
//! (`SAMARITAN_REPLAY=<token> cargo test <name> -- --exact`).
//! As with `samaritan::check`, a failing test's schedule is kept under
//! `target/samaritan/failures/` and replayed first on the next run.
//!
//! The `sim` feature turns on samaritan's explorer, and is always wanted:
//! like loom, this crate only serves tests. It is a feature and not a
//! default only because cargo unifies features across a workspace build,
//! where a default `sim` would turn every crate's production build into a
//! simulation build. Without it, the crate compiles and [`model()`] panics
//! saying so.
//!
//! ```
//! # #[cfg(feature = "sim")]
//! # fn main() {
//! # use samaritan_loom as loom;
//! use loom::sync::atomic::{AtomicUsize, Ordering};
//! use loom::sync::Arc;
//! use loom::thread;
//!
//! loom::model(|| {
//!     let n = Arc::new(AtomicUsize::new(0));
//!     let m = n.clone();
//!     let t = thread::spawn(move || {
//!         m.fetch_add(1, Ordering::Release);
//!     });
//!     n.fetch_add(1, Ordering::Release);
//!     t.join().unwrap();
//!     assert_eq!(n.load(Ordering::Acquire), 2);
//! });
//! # }
//! # #[cfg(not(feature = "sim"))]
//! # fn main() {}
//! ```
//!
//! # What maps
//!
//! | loom 0.7 | here |
//! |---|---|
//! | `model`, `model::Builder::{new, default, check, checkpoint_file}` | samaritan's `Builder::check`; see [`model::Builder`] for each field |
//! | features `futures`, `checkpoint` | accepted; they turn on nothing (`future` is always here; a replay token replaces checkpoints) |
//! | `preemption_bound` / `LOOM_MAX_PREEMPTIONS` | `None`: `dpor` (every schedule up to independent steps, as loom); `Some(n)`: `bpor` at bound `n`, bounded partial-order reduction as loom runs it, the bound counted as loom counts it (once spent, no other switch of thread); `SAMARITAN_LOOM_BOUND=0` ([`model::Builder::loom_bound`]) covers every execution with at most `n` preemptions instead |
//! | `max_branches` / `LOOM_MAX_BRANCHES` | the step bound of an execution; at loom's default (1000), samaritan's (100000), since every operation is a step |
//! | `max_permutations` / `LOOM_MAX_PERMUTATIONS` | the execution budget |
//! | `max_duration` / `LOOM_MAX_DURATION` | the time budget (`None`: none, as loom) |
//! | `max_threads`, `checkpoint_*`, `location`, `log`, `expect_explicit_explore` | accepted, ignored |
//! | `thread::{spawn, JoinHandle, yield_now, current, park, Thread, ThreadId, Builder, LocalKey, AccessError, panicking}` | samaritan's threads; `spawn` takes non-`Send` closures, as loom's |
//! | `sync::Arc` | samaritan's `sync::counted::Arc`: every clone, drop and count read is a step, the last owner's drop is ordered after the others' accesses, and an `Arc` alive when every thread has finished is reported as a leak, as loom does; no `Arc::from_std`, no `Arc<dyn Trait>` coercion |
//! | `sync::{Mutex, RwLock, Condvar, Barrier, mpsc, …Guard, LockResult, TryLockResult}` | samaritan's |
//! | `sync::Notify` (`notify`, `wait`) | a samaritan `Mutex` and `Condvar`; the first `wait` of each `Notify` in an execution may return spuriously, an explored choice, as loom's |
//! | spurious failures | off, as loom: `Condvar::wait` and `thread::park` never wake spuriously, `compare_exchange_weak` never fails spuriously; [`model::Builder::spurious_failures`] (`SAMARITAN_SPURIOUS_FAILURES=1`) explores them, as samaritan does by default |
//! | `sync::atomic::*` with `with_mut`, `unsync_load`, `compare_and_swap`, `fence`, `spin_loop_hint` | samaritan's atomics under the C11 memory model (each load's choice of store explored, `Ordering`s honoured; SeqCst as RC11, so Dekker passes where loom flags it) but for loom's approximation of a failing compare-exchange, which reads the newest store as loom's does ([`model::Builder::cas_reads_newest`]; every pass summary says so; `SAMARITAN_MEMORY_MODEL=weak` explores its stale reads too), boxed as loom's (a word, `new` not `const`), their creation a write every access must happen after (an atomic reached through a pointer published without synchronization is a data race on `AtomicNew#n`, as loom's "Concurrent load and mut accesses"); `unsync_load` is a SeqCst load |
//! | `cell::{UnsafeCell, ConstPtr, MutPtr}` (`with`, `with_mut`, `get`, `get_mut`, `deref`) | samaritan's race-checked cell; a `get`/`get_mut` access is checked when made, not while the pointer lives |
//! | `lazy_static!`, `lazy_static::{Lazy, AccessError, yield_now, panicking}` | as loom's: a value per execution, made on first use (a thread arriving meanwhile waits) and dropped when the test's closure returns |
//! | `thread_local!` | samaritan's, per simulated thread |
//! | `future::{block_on, AtomicWaker}` | samaritan's executor; `AtomicWaker` on a samaritan `Mutex` |
//! | `hint::{spin_loop, unreachable_unchecked}` | a yielding step; a panic (as loom) |
//! | `alloc::{alloc, alloc_zeroed, dealloc, Layout, Track}` | std's allocator; no leak tracking |
//! | the global allocator | under `sim`, samaritan's `alloc::NoReuse` (default feature `allocator`): memory freed during an execution is reused only after it ends, so a pointer compare-exchange never meets a reused address (loom leaves that to the system allocator; samaritan would see the same schedule behave two ways and report nondeterminism). A binary with its own `#[global_allocator]` sets `default-features = false` |
//! | `explore`, `stop_exploring`, `skip_branch` | no-ops: every branch is explored |
//! | `cell::Cell` | on the race-checked cell, as loom's |
//! | `MAX_THREADS` | 5, as loom's; samaritan itself has no such limit |
//! | load buffering (a load reading a later store), `Arc::from_std`, leak tracking of other objects | not mapped |
#![doc(test(attr(deny(warnings))))]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod atomic_waker;
pub mod cell;
mod extra;
pub mod model;
pub mod sync;
pub mod thread;

pub use extra::{alloc, future, hint, lazy_static};

// No address freed during an execution comes back in it (see the table
// above and `samaritan::alloc`).
#[cfg(all(feature = "sim", feature = "allocator"))]
#[global_allocator]
static ALLOCATOR: samaritan::alloc::NoReuse = samaritan::alloc::NoReuse;

/// loom's limit on threads per execution, for code that reads it;
/// samaritan has no such limit, and [`model::Builder::max_threads`] is
/// ignored.
pub const MAX_THREADS: usize = 5;
#[doc(inline)]
pub use model::model;

/// Declares thread-local statics, one value per simulated thread; same
/// syntax as [`std::thread_local!`].
pub use samaritan::thread_local;

/// Whether an exploration is running on the calling thread.
pub(crate) fn exploring() -> bool {
    #[cfg(feature = "sim")]
    return samaritan_sim::rt::active();
    #[cfg(not(feature = "sim"))]
    return false;
}

/// Does nothing: loom's `explore` enables exploration again after
/// [`stop_exploring`]; samaritan explores every branch throughout.
pub fn explore() {}

/// Does nothing: loom's `stop_exploring` stops branching from here on;
/// samaritan explores every branch (more executions, and failures loom
/// would not look for).
pub fn stop_exploring() {}

/// Does nothing: loom's `skip_branch` abandons the current branch;
/// samaritan explores it (more executions, and failures loom would not
/// look for).
pub fn skip_branch() {}

/// Declares lazily initialized statics; same syntax as loom's (and the
/// `lazy_static` crate's), with a value per execution as loom's (see
/// [`lazy_static::Lazy`]).
#[macro_export]
macro_rules! lazy_static {
    ($(#[$attr:meta])* static ref $N:ident : $T:ty = $e:expr; $($t:tt)*) => {
        $crate::__lazy_static_internal!($(#[$attr])* () static ref $N : $T = $e; $($t)*);
    };
    ($(#[$attr:meta])* pub static ref $N:ident : $T:ty = $e:expr; $($t:tt)*) => {
        $crate::__lazy_static_internal!($(#[$attr])* (pub) static ref $N : $T = $e; $($t)*);
    };
    ($(#[$attr:meta])* pub ($($vis:tt)+) static ref $N:ident : $T:ty = $e:expr; $($t:tt)*) => {
        $crate::__lazy_static_internal!($(#[$attr])* (pub ($($vis)+)) static ref $N : $T = $e; $($t)*);
    };
    () => ()
}

#[macro_export]
#[doc(hidden)]
macro_rules! __lazy_static_internal {
    ($(#[$attr:meta])* ($($vis:tt)*) static ref $N:ident : $T:ty = $init:expr; $($t:tt)*) => {
        #[allow(missing_copy_implementations)]
        #[allow(non_camel_case_types)]
        #[allow(dead_code)]
        $(#[$attr])*
        $($vis)* struct $N {__private_field: ()}
        #[doc(hidden)]
        $($vis)* static $N: $N = $N {__private_field: ()};
        impl ::core::ops::Deref for $N {
            type Target = $T;
            fn deref(&self) -> &$T {
                fn __static_ref_initialize() -> $T { $init }
                static LAZY: $crate::lazy_static::Lazy<$T> =
                    $crate::lazy_static::Lazy::new(__static_ref_initialize);
                LAZY.get()
            }
        }
        $crate::lazy_static!($($t)*);
    };
    () => ()
}
