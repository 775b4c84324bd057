//! Shapes published loom suites rely on (issue #24), written from those
//! shapes, not copied from the crates.

use std::sync::atomic::AtomicUsize as StdAtomicUsize;
use std::sync::atomic::Ordering::SeqCst;

use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{Arc, Mutex};
use loom::thread;
use samaritan::SearchStrategy;

use crate::{assert_pass, check};

/// A registry of thread ids in a `lazy_static!`, as a slab keeps one: a
/// thread takes the next free id. loom creates the value afresh in every
/// execution, so ids start at 0 in each; the suites rely on it.
struct Registry {
    next: AtomicUsize,
    /// Values a thread left: dropped with the registry at the end of each
    /// execution, where an `Arc` still held would be reported as a leak.
    parked: Mutex<Vec<Arc<usize>>>,
}

/// Registries made and dropped, in this process.
static MADE: StdAtomicUsize = StdAtomicUsize::new(0);
static DROPPED: StdAtomicUsize = StdAtomicUsize::new(0);

impl Drop for Registry {
    fn drop(&mut self) {
        DROPPED.fetch_add(1, SeqCst);
    }
}

loom::lazy_static! {
    static ref REGISTRY: Registry = {
        MADE.fetch_add(1, SeqCst);
        Registry { next: AtomicUsize::new(0), parked: Mutex::new(Vec::new()) }
    };
}

fn register() -> usize {
    let id = REGISTRY.next.fetch_add(1, Ordering::AcqRel);
    REGISTRY.parked.lock().unwrap().push(Arc::new(id));
    id
}

fn two_threads_register() {
    let t = thread::spawn(register);
    let mine = register();
    let theirs = t.join().unwrap();
    assert_eq!(mine + theirs, 1, "ids start at 0 in every execution");
}

/// The only test of this binary that uses the registry: the counters are
/// the process's.
#[test]
fn a_lazy_static_registry_is_made_afresh_and_dropped_in_every_execution() {
    // As `loom::model` runs it.
    assert_pass(&check(two_threads_register), 8);
    let mut counts = Vec::new();
    for strategy in [SearchStrategy::Dpor, SearchStrategy::Dfs, SearchStrategy::CbPor, SearchStrategy::Random] {
        let before = (MADE.load(SeqCst), DROPPED.load(SeqCst));
        let mut builder = loom::model::Builder::new();
        builder.max_permutations = Some(500);
        let report =
            builder.to_samaritan().strategy(strategy).persist(false).progress(false).explore(two_threads_register);
        let report = report.expect("valid settings");
        assert_eq!(report.outcome, samaritan::Outcome::Pass, "{report}");
        let made = MADE.load(SeqCst) - before.0;
        // One registry per execution, each dropped when it ended.
        assert_eq!((made, DROPPED.load(SeqCst) - before.1), (report.executions as usize, made));
        counts.push((strategy, report.executions));
    }
    // Two reads of the completed registry commute (a begin step that
    // finds it complete is a load): before they did, DPOR ran 20 and
    // cb-por 13.
    assert_eq!(
        counts,
        [
            (SearchStrategy::Dpor, 8),
            (SearchStrategy::Dfs, 112),
            (SearchStrategy::CbPor, 7),
            (SearchStrategy::Random, 500)
        ]
    );
}

#[test]
fn builder_has_default_as_loom_s() {
    let builder: loom::model::Builder = Default::default();
    assert_eq!(builder.max_threads, loom::MAX_THREADS);
    builder.check(|| {
        let n = AtomicUsize::new(1);
        assert_eq!(n.load(Ordering::Relaxed), 1);
    });
}

#[test]
fn the_lazy_static_module_has_loom_s_items() {
    // A thread-local read after its destruction began: the error type.
    fn takes(_: Result<(), loom::lazy_static::AccessError>) {}
    takes(Ok(()));
    assert!(!loom::lazy_static::panicking());
    check(|| loom::lazy_static::yield_now());
}

/// A test with several `loom::model` calls: the report of the one that
/// fails says which it is.
#[test]
fn a_failing_model_among_several_is_named_by_its_location() {
    // Nothing of this binary tests persistence: keep the failure out of
    // `target/samaritan/failures`.
    std::env::set_var("SAMARITAN_PERSIST", "0");
    loom::model(|| {
        let n = AtomicUsize::new(0);
        n.fetch_add(1, Ordering::Relaxed);
    });
    let line = line!() + 2;
    let failed = std::panic::catch_unwind(|| {
        loom::model(|| {
            let n = Arc::new(AtomicUsize::new(0));
            let m = n.clone();
            let t = thread::spawn(move || {
                let v = m.load(Ordering::Acquire);
                m.store(v + 1, Ordering::Release);
            });
            let v = n.load(Ordering::Acquire);
            n.store(v + 1, Ordering::Release);
            t.join().unwrap();
            assert_eq!(n.load(Ordering::Acquire), 2, "lost update");
        })
    });
    let report = *failed.unwrap_err().downcast::<String>().unwrap();
    let header = format!("of the model at loom/tests/compat.rs:{line}:9 (strategy dpor)");
    assert!(report.lines().next().unwrap().ends_with(&header), "{report}");
}

/// An object with an atomic, made by one thread and handed to another
/// through a pointer published with `publish`, read with `read`: the
/// other's `fetch_add` on it races with the atomic's initialization unless
/// the publication synchronizes (as bytes' `Shared`, promoted by a clone).
fn hand_over(publish: Ordering, read: Ordering) -> samaritan::Report {
    struct Shared {
        count: AtomicUsize,
    }
    check(move || {
        let slot = Arc::new(loom::sync::atomic::AtomicPtr::new(std::ptr::null_mut::<Shared>()));
        let other = slot.clone();
        let t = thread::spawn(move || {
            let shared = Box::into_raw(Box::new(Shared { count: AtomicUsize::new(1) }));
            other.store(shared, publish);
        });
        let shared = slot.load(read);
        if !shared.is_null() {
            // SAFETY: published by t1 and never freed before the end.
            unsafe { (*shared).count.fetch_add(1, Ordering::Relaxed) };
        }
        t.join().unwrap();
        let shared = slot.load(Ordering::Acquire);
        // SAFETY: t1 is joined; the box is freed once, here.
        drop(unsafe { Box::from_raw(shared) });
    })
}

#[test]
fn an_atomic_reached_through_an_unsynchronized_pointer_races_with_its_creation() {
    let report = hand_over(Ordering::Relaxed, Ordering::Relaxed);
    let samaritan::Outcome::DataRace { cell, first, second } = &report.outcome else { panic!("{report}") };
    assert!(cell.starts_with("AtomicNew#"), "{report}");
    assert_eq!((first.write, first.actor.as_str(), second.write, second.actor.as_str()), (true, "t1", false, "main"));
    // Published with release and read with acquire: every execution passes
    // (the acquire load reads the slot before or after the store, and the
    // store-first order covers the other).
    assert_pass(&hand_over(Ordering::Release, Ordering::Acquire), 2);
}
