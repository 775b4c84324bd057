//! samaritan's primitives in `static`s start every execution as a fresh
//! process has them: an atomic's value, a lock's data, a lazy value (r11);
//! and an atomic has std's layout, so a static layout assertion compiles
//! (r12).
#![cfg(feature = "sim")]

use std::mem::{align_of, size_of};

use samaritan::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize, AtomicPtr, AtomicU16, AtomicU32, AtomicU64,
    AtomicU8, AtomicUsize, Ordering,
};
use samaritan::sync::{LazyLock, Mutex, RwLock};
use samaritan::{thread, Builder, Outcome, Report, SearchStrategy};

/// A header that packs a count beside a length, as lock-free crates do,
/// with the assertion they make about it at compile time.
#[allow(dead_code)]
struct Header {
    count: AtomicUsize,
    len: usize,
}
const _: () = assert!(size_of::<Header>() == 2 * size_of::<usize>());
const _: () = assert!(size_of::<AtomicUsize>() == size_of::<usize>());

#[test]
fn every_atomic_has_the_size_and_alignment_of_std_s() {
    macro_rules! same {
        ($($ours:ty => $std:ty),* $(,)?) => {
            $(assert_eq!(
                (size_of::<$ours>(), align_of::<$ours>()),
                (size_of::<$std>(), align_of::<$std>()),
                stringify!($ours)
            );)*
        };
    }
    use std::sync::atomic as std_atomic;
    same!(
        AtomicBool => std_atomic::AtomicBool,
        AtomicI8 => std_atomic::AtomicI8,
        AtomicI16 => std_atomic::AtomicI16,
        AtomicI32 => std_atomic::AtomicI32,
        AtomicI64 => std_atomic::AtomicI64,
        AtomicIsize => std_atomic::AtomicIsize,
        AtomicU8 => std_atomic::AtomicU8,
        AtomicU16 => std_atomic::AtomicU16,
        AtomicU32 => std_atomic::AtomicU32,
        AtomicU64 => std_atomic::AtomicU64,
        AtomicUsize => std_atomic::AtomicUsize,
        AtomicPtr<u8> => std_atomic::AtomicPtr<u8>,
    );
    // The race-checked cell adds one word, as loom's does.
    assert_eq!(size_of::<samaritan::cell::UnsafeCell<u64>>(), size_of::<u64>() + size_of::<usize>());
}

/// r11: ids from a static counter, registered in a static lazy registry.
static NEXT_ID: AtomicUsize = AtomicUsize::new(0);
static REGISTRY: LazyLock<Mutex<Vec<usize>>> = LazyLock::new(|| Mutex::new(Vec::new()));

fn register() -> usize {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    REGISTRY.lock().unwrap().push(id);
    id
}

/// Two threads register; every execution is a fresh run of the program.
fn two_registrations() {
    let t = thread::spawn(register);
    let mine = register();
    let theirs = t.join().unwrap();
    assert_ne!(mine, theirs, "two threads got the same id");
    assert!(mine < 2 && theirs < 2, "ids {mine} and {theirs} leaked from an earlier execution");
    assert_eq!(REGISTRY.lock().unwrap().len(), 2);
}

#[track_caller]
fn passes(strategy: SearchStrategy, f: fn()) -> Report {
    let report = Builder::new().strategy(strategy).max_executions(2_000).explore(f).expect("valid settings");
    assert_eq!(report.outcome, Outcome::Pass, "{report}");
    report
}

/// The registry's whole exploration under every strategy, one after the
/// other (the statics are shared by the tests of this binary).
// Statics are known on Linux only (elsewhere they are not put back).
#[cfg(target_os = "linux")]
#[test]
fn a_static_id_counter_and_lazy_registry_start_afresh_in_every_execution() {
    // (strategy, executions): the systematic ones exhaust the space.
    let expected = [
        (SearchStrategy::Dfs, Some(38)),
        (SearchStrategy::Dpor, Some(6)),
        (SearchStrategy::Icb, Some(18)),
        (SearchStrategy::CbPor, Some(9)),
        (SearchStrategy::Portfolio, Some(29)),
        (SearchStrategy::Random, None),
        (SearchStrategy::Pct, None),
    ];
    let mut counts = Vec::new();
    for (strategy, _) in expected {
        let report = passes(strategy, two_registrations);
        counts.push((strategy, report.exhausted.then_some(report.executions)));
    }
    assert_eq!(counts, expected);
    // Put back after the last execution, as the program began.
    assert_eq!(NEXT_ID.load(Ordering::SeqCst), 0);
}

/// A static lock's data, from its initializer (const: a `Vec::new()`).
static LOG: Mutex<Vec<u32>> = Mutex::new(Vec::new());
static TABLE: RwLock<Vec<u32>> = RwLock::new(Vec::new());

// Statics are known on Linux only (elsewhere they are not put back).
#[cfg(target_os = "linux")]
#[test]
fn a_static_lock_s_data_starts_as_its_initializer_in_every_execution() {
    let report = passes(SearchStrategy::Dfs, || {
        let t = thread::spawn(|| {
            LOG.lock().unwrap().push(1);
            TABLE.write().unwrap().push(1);
        });
        LOG.lock().unwrap().push(2);
        TABLE.write().unwrap().push(2);
        t.join().unwrap();
        assert_eq!(LOG.lock().unwrap().len(), 2);
        assert_eq!(TABLE.read().unwrap().len(), 2);
    });
    assert_eq!((report.executions, report.exhausted), (52, true), "{report}");
    // Outside any exploration now: the data the program began with.
    assert!(LOG.lock().unwrap().is_empty());
    assert!(TABLE.read().unwrap().is_empty());
}

/// Locked outside any exploration before: samaritan has no copy of the
/// data as the program began.
static USED_BEFORE: Mutex<Vec<u32>> = Mutex::new(Vec::new());

// Statics are known on Linux only (elsewhere they are not put back).
#[cfg(target_os = "linux")]
#[test]
fn a_static_lock_used_before_the_exploration_is_named_when_its_data_makes_executions_differ() {
    USED_BEFORE.lock().unwrap().push(0);
    let report = Builder::new()
        .strategy(SearchStrategy::Dfs)
        .explore(|| {
            // The second execution sees the first one's elements, and
            // starts one more thread.
            let extra = (USED_BEFORE.lock().unwrap().len() > 1).then(|| thread::spawn(|| {}));
            let t = thread::spawn(|| USED_BEFORE.lock().unwrap().push(1));
            USED_BEFORE.lock().unwrap().push(2);
            t.join().unwrap();
            if let Some(extra) = extra {
                extra.join().unwrap();
            }
        })
        .unwrap();
    let Outcome::Nondeterminism { detail, .. } = &report.outcome else { panic!("{report}") };
    assert_eq!(
        detail,
        "replaying the same prefix, a thread announced a different operation than before\
         ; Mutex#0 is in a `static` whose state samaritan cannot put back between executions: \
             it was locked outside any exploration first, so samaritan has no copy of its data as the program began"
    );
}

/// An atomic dropped in an execution, and another made at the same
/// address, are two objects: the second does not continue the first's
/// history (its reads can only see its own stores).
#[test]
fn an_atomic_made_where_a_dropped_one_was_is_another_object() {
    let report = Builder::new()
        .strategy(SearchStrategy::Dfs)
        .explore(|| {
            // One slot for both, so that the address is the same whatever
            // the allocator does (tests running beside this one made the
            // system allocator's reuse vary between a search and its
            // replay, which samaritan rightly called nondeterminism).
            let mut slot = Box::new(std::mem::MaybeUninit::<AtomicUsize>::uninit());
            slot.write(AtomicUsize::new(1)).store(2, Ordering::Relaxed);
            // SAFETY: written just above, and not used again.
            unsafe { slot.assume_init_drop() };
            slot.write(AtomicUsize::new(1)).load(Ordering::Relaxed);
            // SAFETY: written just above, and not used again.
            unsafe { slot.assume_init_drop() };
            panic!("show the trace");
        })
        .unwrap();
    let failure = report.failure.as_ref().unwrap_or_else(|| panic!("expected a failure, got: {report}"));
    let objects: Vec<&str> = failure.trace.lines.iter().filter_map(|l| l.object.as_deref()).collect();
    assert_eq!(objects[..2], ["Atomic#0", "Atomic#1"], "{report}");
}

/// Counts the executions that started, from 0 in each.
static STARTED: AtomicUsize = AtomicUsize::new(0);

/// Locks its mutex when dropped.
struct LocksOnDrop(samaritan::sync::Arc<Mutex<()>>);

impl Drop for LocksOnDrop {
    fn drop(&mut self) {
        let _g = self.0.lock();
    }
}

/// t1 panics and, unwinding, would take a lock main holds: it is
/// abandoned half-way, which leaves the exploring thread unwinding for
/// good. The static it changed is still put back, by the fresh thread
/// the search moves to.
#[cfg(target_os = "linux")]
#[test]
fn a_static_is_put_back_after_an_execution_that_left_its_thread_unwinding() {
    let report = Builder::new()
        .strategy(SearchStrategy::Dfs)
        .explore(|| {
            assert_eq!(STARTED.fetch_add(1, Ordering::SeqCst), 0, "a static kept an earlier execution's value");
            let m = samaritan::sync::Arc::new(Mutex::new(()));
            let held = m.lock().unwrap();
            let m2 = m.clone();
            let t = thread::spawn(move || {
                let _cleanup = LocksOnDrop(m2);
                panic!("worker failed");
            });
            thread::yield_now();
            drop(held);
            let _ = t.join();
        })
        .unwrap();
    let Outcome::Panic { actor, message, .. } = &report.outcome else { panic!("{report}") };
    assert_eq!((actor.as_str(), message.as_str()), ("t1", "worker failed"));
    assert_eq!(STARTED.load(Ordering::SeqCst), 0);
}
