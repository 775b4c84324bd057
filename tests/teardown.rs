//! Teardown: an execution that ends early unwinds every thread so that
//! destructors run, and never hangs.
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
fn a_deadlocked_execution_drops_everything_its_threads_owned() {
    static COUNTERS: (StdAtomicUsize, StdAtomicUsize) = (StdAtomicUsize::new(0), StdAtomicUsize::new(0));
    let report = Builder::new()
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
    // Four values per execution, in every execution up to the deadlock and
    // in the replay of the deadlocking schedule that records its trace.
    assert_eq!(created, 4 * (report.executions as usize + 1));
    assert_eq!(dropped, created);
    assert_eq!(report.failure.unwrap().leaked_actors, 0);
}

#[test]
fn a_panicking_thread_ends_the_execution_and_the_others_are_unwound() {
    static COUNTERS: (StdAtomicUsize, StdAtomicUsize) = (StdAtomicUsize::new(0), StdAtomicUsize::new(0));
    let report = Builder::new()
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
    assert_eq!(COUNTERS.0.load(SeqCst), COUNTERS.1.load(SeqCst));
    assert_eq!(report.executions, 1);
}

#[test]
fn a_destructor_that_would_block_at_teardown_is_abandoned_not_hung() {
    /// Locks `0` when dropped.
    struct LocksOnDrop(Arc<Mutex<()>>);
    impl Drop for LocksOnDrop {
        fn drop(&mut self) {
            let _g = self.0.lock();
        }
    }
    let report = Builder::new()
        .explore(|| {
            let a = Arc::new(Mutex::new(()));
            let b = Arc::new(Mutex::new(()));
            let (a2, b2) = (a.clone(), b.clone());
            let t = thread::spawn(move || {
                let _b = b2.lock().unwrap();
                let _a = a2.lock().unwrap();
            });
            // At teardown main unwinds first and, while dropping `_guard`,
            // needs `b`, which t1 holds.
            let _guard = LocksOnDrop(b.clone());
            let _a = a.lock().unwrap();
            let _b = b.lock().unwrap();
            drop((_a, _b));
            t.join().unwrap();
        })
        .unwrap();
    assert!(matches!(report.outcome, Outcome::Deadlock(_)), "{report}");
    let failure = report.failure.unwrap();
    assert_eq!(failure.leaked_actors, 1);
}
