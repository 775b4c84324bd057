//! Teardown: an execution that ends early abandons the threads it cut
//! short where they stand (their destructors do not run, so none can
//! panic and abort the process), releases the locks they hold, and never
//! hangs.
#![cfg(feature = "sim")]

use std::sync::atomic::AtomicUsize as StdAtomicUsize;
use std::sync::atomic::Ordering::SeqCst;

use samaritan::sync::{Arc, Mutex};
use samaritan::{thread, Builder, Outcome};

/// Counts its own creations and drops in the given counters.
struct Tracked(&'static (StdAtomicUsize, StdAtomicUsize));

impl Tracked {
    fn new(counters: &'static (StdAtomicUsize, StdAtomicUsize)) -> Tracked {
        counters.0.fetch_add(1, SeqCst);
        Tracked(counters)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0 .1.fetch_add(1, SeqCst);
    }
}

#[test]
fn a_deadlocked_execution_leaves_what_its_threads_owned() {
    static COUNTERS: (StdAtomicUsize, StdAtomicUsize) = (StdAtomicUsize::new(0), StdAtomicUsize::new(0));
    // Without minimization, whose extra runs would add to the counts.
    let report = Builder::new()
        .minimize(false)
        .explore(|| {
            let a = Arc::new(Mutex::new(Tracked::new(&COUNTERS)));
            let b = Arc::new(Mutex::new(Tracked::new(&COUNTERS)));
            let (a2, b2) = (a.clone(), b.clone());
            let t = thread::spawn(move || {
                let _local = Tracked::new(&COUNTERS);
                let _b = b2.lock().unwrap();
                let _a = a2.lock().unwrap();
            });
            let _local = Tracked::new(&COUNTERS);
            let _a = a.lock().unwrap();
            let _b = b.lock().unwrap();
            drop((_a, _b));
            t.join().unwrap();
        })
        .unwrap();
    assert!(matches!(report.outcome, Outcome::Deadlock(_)), "{report}");
    let (created, dropped) = (COUNTERS.0.load(SeqCst), COUNTERS.1.load(SeqCst));
    // Four values per execution, in every execution up to the deadlock, in
    // the replay of the first execution's schedule (which must pass again:
    // no state left over) and in the replay of the deadlocking schedule
    // that records its trace. The two deadlocking executions (the last of
    // the search and the traced replay) leave their four: both threads
    // are cut short, and the two `Arc`s are theirs.
    assert_eq!(created, 4 * (report.executions as usize + 2));
    assert_eq!(created - dropped, 4 * 2);
    assert_eq!(report.failure.unwrap().leaked_actors, 0);
}

/// A lock that outlives the execution (the test's closure holds it) is
/// free again after a deadlock left a thread holding it: its real lock is
/// released for the abandoned guard.
#[test]
fn a_lock_held_by_an_abandoned_thread_is_free_after_the_execution() {
    let outside = std::sync::Arc::new((Mutex::new(0u32), Mutex::new(())));
    let inside = outside.clone();
    let report = Builder::new()
        .explore(move || {
            let locks = inside.clone();
            let t = thread::spawn(move || {
                let _second = locks.1.lock().unwrap();
                *locks.0.lock().unwrap() += 1;
            });
            let mut first = inside.0.lock().unwrap();
            *first += 1;
            let _second = inside.1.lock().unwrap();
            drop(first);
            t.join().unwrap();
        })
        .unwrap();
    assert!(matches!(report.outcome, Outcome::Deadlock(_)), "{report}");
    let free = outside.0.try_lock().is_ok() && outside.1.try_lock().is_ok();
    assert!(free, "a lock stayed held after its holder was abandoned");
    assert!(!outside.0.is_poisoned() && !outside.1.is_poisoned());
}

#[test]
fn a_panicking_thread_ends_the_execution_and_the_others_are_abandoned() {
    static COUNTERS: (StdAtomicUsize, StdAtomicUsize) = (StdAtomicUsize::new(0), StdAtomicUsize::new(0));
    let report = Builder::new()
        .minimize(false)
        .explore(|| {
            let gate = Arc::new(Mutex::new(()));
            let held = gate.lock().unwrap();
            let gate2 = gate.clone();
            let waiter = thread::spawn(move || {
                let _local = Tracked::new(&COUNTERS);
                let _g = gate2.lock().unwrap();
            });
            let _local = Tracked::new(&COUNTERS);
            thread::spawn(|| panic!("boom")).join().unwrap();
            drop(held);
            waiter.join().unwrap();
        })
        .unwrap();
    let Outcome::Panic { actor, message, .. } = &report.outcome else { panic!("{report}") };
    assert_eq!((actor.as_str(), message.as_str()), ("t2", "boom"));
    assert_eq!(report.executions, 1);
    // In the search's execution and in the traced replay: main and the
    // waiter are cut short with their values.
    assert_eq!((COUNTERS.0.load(SeqCst), COUNTERS.1.load(SeqCst)), (4, 0));
}

/// Locks its mutex when dropped.
struct LocksOnDrop(Arc<Mutex<()>>);

impl Drop for LocksOnDrop {
    fn drop(&mut self) {
        let _g = self.0.lock();
    }
}

/// Spawns a thread that panics and joins it, once `ready` is set: the
/// execution ends there, with the other threads still alive.
fn panic_once(ready: &samaritan::sync::atomic::AtomicBool) {
    while !ready.load(samaritan::sync::atomic::Ordering::SeqCst) {
        thread::yield_now();
    }
    thread::spawn(|| panic!("boom")).join().unwrap();
}

#[test]
fn destructors_that_would_wait_at_teardown_never_run() {
    let report = Builder::new()
        .explore(|| {
            let ready = Arc::new(samaritan::sync::atomic::AtomicBool::new(false));
            let a = Arc::new(Mutex::new(()));
            let b = Arc::new(Mutex::new(()));
            // Had main been unwound, dropping `_guard` would need `b`,
            // which t1 holds.
            let _guard = LocksOnDrop(b.clone());
            let _a = a.lock().unwrap();
            let (a2, b2, ready2) = (a.clone(), b.clone(), ready.clone());
            let _t = thread::spawn(move || {
                let _b = b2.lock().unwrap();
                ready2.store(true, samaritan::sync::atomic::Ordering::SeqCst);
                let _a = a2.lock().unwrap();
            });
            panic_once(&ready);
        })
        .unwrap();
    let Outcome::Panic { actor, message, .. } = &report.outcome else { panic!("{report}") };
    assert_eq!((actor.as_str(), message.as_str()), ("t2", "boom"));
    assert_eq!(report.failure.as_ref().unwrap().leaked_actors, 0, "{report}");
}

#[test]
fn destructors_that_would_wait_on_each_other_at_teardown_never_run() {
    let report = Builder::new()
        .explore(|| {
            let ready = Arc::new(samaritan::sync::atomic::AtomicBool::new(false));
            let a = Arc::new(Mutex::new(()));
            let b = Arc::new(Mutex::new(()));
            let _a = a.lock().unwrap();
            // Dropped before `_a`, had main been unwound: needs `b` while
            // `a` is still held.
            let _g = LocksOnDrop(b.clone());
            let (a2, b2, ready2) = (a.clone(), b.clone(), ready.clone());
            let _t = thread::spawn(move || {
                let _b = b2.lock().unwrap();
                // The same for t1: needs `a` while `b` is still held.
                let _g = LocksOnDrop(a2.clone());
                ready2.store(true, samaritan::sync::atomic::Ordering::SeqCst);
                let _a = a2.lock().unwrap();
            });
            panic_once(&ready);
        })
        .unwrap();
    let Outcome::Panic { actor, message, .. } = &report.outcome else { panic!("{report}") };
    assert_eq!((actor.as_str(), message.as_str()), ("t2", "boom"));
    // Abandoned, not unwound: nothing to give up on half-way.
    assert_eq!(report.failure.unwrap().leaked_actors, 0);
}

/// r01: an execution cut short (here by DPOR's sleep sets) ends while a
/// thread's destructor would wait for a lock another unfinished thread
/// holds. When teardown unwound threads, that actor was abandoned
/// mid-unwind, leaving the exploring thread's panic count raised, so that
/// no later operation took a step and DPOR passed the program.
#[test]
fn dpor_finds_the_bug_when_destructors_block_at_teardown() {
    /// Locks its mutex when dropped.
    struct LockOnDrop(Arc<Mutex<u32>>);
    impl Drop for LockOnDrop {
        fn drop(&mut self) {
            *self.0.lock().unwrap() += 1;
        }
    }
    use samaritan::sync::atomic::{AtomicUsize, Ordering};
    let report = Builder::new()
        .strategy(samaritan::SearchStrategy::Dpor)
        .minimize(false)
        .explore(|| {
            let d = Arc::new(Mutex::new(0u32));
            let x = Arc::new(AtomicUsize::new(0));
            let y = Arc::new(AtomicUsize::new(0));
            let seen = Arc::new(AtomicUsize::new(usize::MAX));
            let hs: Vec<_> = (0..4)
                .map(|i| {
                    let (d, x, y, seen) = (d.clone(), x.clone(), y.clone(), seen.clone());
                    thread::spawn(move || {
                        let _guard = LockOnDrop(d.clone());
                        let _held = (i == 3).then(|| d.lock().unwrap());
                        if i < 2 {
                            x.fetch_add(1, Ordering::SeqCst);
                        } else {
                            y.fetch_add(1, Ordering::SeqCst);
                            let v = x.fetch_add(1, Ordering::SeqCst);
                            y.load(Ordering::SeqCst);
                            if i == 2 {
                                seen.store(v, Ordering::SeqCst);
                            }
                        }
                    })
                })
                .collect();
            x.fetch_add(1, Ordering::SeqCst);
            for h in hs {
                h.join().unwrap();
            }
            assert_ne!(seen.load(Ordering::SeqCst), 0, "thread 2 saw x == 0");
        })
        .unwrap();
    let Outcome::Panic { message, .. } = &report.outcome else { panic!("{report}") };
    assert!(message.contains("thread 2 saw x == 0"), "{message}");
    assert_eq!(report.executions, 8318);
}

/// `check` returns only once everything of the exploration is dropped,
/// the test's closure included, so what it captured is the caller's
/// alone again.
#[test]
fn check_returns_after_its_closure_is_dropped() {
    for _ in 0..200 {
        let shared = std::sync::Arc::new(());
        let captured = shared.clone();
        samaritan::check(move || {
            let _ = &captured;
            let t = thread::spawn(|| {});
            t.join().unwrap();
        });
        assert!(std::sync::Arc::try_unwrap(shared).is_ok(), "the exploration still held the closure");
    }
}

#[test]
fn a_panicking_thread_whose_destructor_would_block_is_still_a_panic() {
    /// Locks its mutex when dropped.
    struct LocksOnDrop(Arc<Mutex<()>>);
    impl Drop for LocksOnDrop {
        fn drop(&mut self) {
            let _g = self.0.lock();
        }
    }
    let report = Builder::new()
        .explore(|| {
            let m = Arc::new(Mutex::new(()));
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
}

#[test]
fn a_panic_in_a_thread_local_destructor_is_reported() {
    struct PanicsOnDrop;
    impl Drop for PanicsOnDrop {
        fn drop(&mut self) {
            panic!("thread-local destructor failed");
        }
    }
    samaritan::thread_local! {
        static LOCAL: PanicsOnDrop = const { PanicsOnDrop };
    }
    let report = Builder::new()
        .explore(|| {
            thread::spawn(|| LOCAL.with(|_| ())).join().unwrap();
        })
        .unwrap();
    let Outcome::Panic { actor, message, .. } = &report.outcome else { panic!("{report}") };
    assert_eq!((actor.as_str(), message.as_str()), ("t1", "thread-local destructor failed"));
}

#[test]
fn a_thread_that_would_catch_a_teardown_and_loop_is_simply_abandoned() {
    let report = Builder::new()
        .explore(|| {
            let flag = Arc::new(samaritan::sync::atomic::AtomicBool::new(false));
            let flag2 = flag.clone();
            thread::spawn(move || loop {
                // Would catch an unwinding teardown and go on.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    flag2.load(samaritan::sync::atomic::Ordering::SeqCst);
                    thread::yield_now();
                }));
            });
            thread::yield_now();
            panic!("main failed");
        })
        .unwrap();
    let Outcome::Panic { actor, message, .. } = &report.outcome else { panic!("{report}") };
    assert_eq!((actor.as_str(), message.as_str()), ("main", "main failed"));
    assert_eq!(report.failure.unwrap().leaked_actors, 0);
}

#[test]
fn static_locks_are_left_unpoisoned_and_the_deadlock_is_reported() {
    static A: Mutex<()> = Mutex::new(());
    static B: Mutex<()> = Mutex::new(());
    let report = Builder::new()
        .explore(|| {
            let t = thread::spawn(|| {
                let _b = B.lock().unwrap();
                let _a = A.lock().unwrap();
            });
            {
                let _a = A.lock().unwrap();
                let _b = B.lock().unwrap();
            }
            t.join().unwrap();
        })
        .unwrap();
    assert!(matches!(report.outcome, Outcome::Deadlock(_)), "{report}");
    assert!(!A.is_poisoned() && !B.is_poisoned());
}

#[test]
fn a_panic_message_that_differs_between_runs_is_not_nondeterminism() {
    let report = Builder::new()
        .explore(|| {
            let n = Arc::new(samaritan::sync::atomic::AtomicUsize::new(0));
            let n2 = n.clone();
            let t = thread::spawn(move || {
                let v = n2.load(samaritan::sync::atomic::Ordering::SeqCst);
                n2.store(v + 1, samaritan::sync::atomic::Ordering::SeqCst);
            });
            let v = n.load(samaritan::sync::atomic::Ordering::SeqCst);
            n.store(v + 1, samaritan::sync::atomic::Ordering::SeqCst);
            t.join().unwrap();
            let total = n.load(samaritan::sync::atomic::Ordering::SeqCst);
            // The address differs between the search and its replay.
            assert_eq!(total, 2, "lost update in the counter at {:p}", Arc::as_ptr(&n));
        })
        .unwrap();
    let Outcome::Panic { message, .. } = &report.outcome else { panic!("{report}") };
    assert!(message.starts_with("assertion `left == right` failed: lost update in the counter at 0x"), "{message}");
}
