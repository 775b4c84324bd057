//! `samaritan::sync::{Once, OnceLock, LazyLock}` in production mode and
//! under exploration.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering as StdOrdering};

use samaritan::sync::{Arc, LazyLock, Once, OnceLock};
use samaritan::thread;

/// Two threads run `body` on shared state `S`; the main thread joins both
/// and hands the state to `after`.
fn two_threads<S: Send + Sync + 'static>(state: S, body: fn(&S, usize), after: fn(&S)) {
    let state = Arc::new(state);
    let handles: Vec<_> = (0..2)
        .map(|i| {
            let state = state.clone();
            thread::spawn(move || body(&state, i))
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    after(&state);
}

/// Both threads call `call_once`; the closure runs once.
fn once_runs_once() {
    two_threads(
        (Once::new(), StdAtomicUsize::new(0)),
        |(once, runs), _| {
            once.call_once(|| {
                runs.fetch_add(1, StdOrdering::SeqCst);
            });
            assert!(once.is_completed());
        },
        |(_, runs)| assert_eq!(runs.load(StdOrdering::SeqCst), 1),
    );
}

/// Both threads race to initialize; both see the winner's value.
fn once_lock_agrees() {
    two_threads(
        (OnceLock::new(), StdAtomicUsize::new(usize::MAX)),
        |(lock, seen), i| {
            let value = *lock.get_or_init(|| i);
            let first = seen.swap(value, StdOrdering::SeqCst);
            assert!(first == usize::MAX || first == value);
        },
        |(lock, seen)| assert_eq!(lock.get().copied(), Some(seen.load(StdOrdering::SeqCst))),
    );
}

#[test]
fn once_primitives_initialize_once_with_real_threads() {
    // In both modes this runs for real: no exploration is started.
    once_runs_once();
    once_lock_agrees();
    let lazy = LazyLock::new(|| vec![1, 2]);
    assert_eq!(LazyLock::force(&lazy).len(), 2);
    assert_eq!(*lazy, [1, 2]);
    assert_eq!(format!("{:?}", LazyLock::<u8>::default()), format!("{:?}", std::sync::LazyLock::<u8>::default()));
}

#[test]
fn a_panicking_call_once_poisons_and_call_once_force_recovers() {
    let once = Once::new();
    let result = panic::catch_unwind(AssertUnwindSafe(|| once.call_once(|| panic!("boom"))));
    assert!(result.is_err());
    assert!(!once.is_completed());
    let again = panic::catch_unwind(AssertUnwindSafe(|| once.call_once(|| {})));
    assert!(again.is_err());
    let mut poisoned = false;
    once.call_once_force(|state| poisoned = state.is_poisoned());
    assert!(poisoned);
    assert!(once.is_completed());
}

#[test]
fn once_lock_set_get_take_behave_like_std() {
    let mut lock = OnceLock::new();
    assert_eq!(lock.get(), None);
    assert_eq!(format!("{lock:?}"), format!("{:?}", std::sync::OnceLock::<u8>::new()));
    assert_eq!(lock.set(1), Ok(()));
    assert_eq!(lock.set(2), Err(2));
    assert_eq!(*lock.get_or_init(|| 3), 1);
    *lock.get_mut().unwrap() += 1;
    assert_eq!(format!("{lock:?}"), format!("{:?}", std::sync::OnceLock::from(2u8)));
    assert_eq!(lock.take(), Some(2));
    assert_eq!(lock.get(), None);
    assert_eq!(OnceLock::from(7).clone().into_inner(), Some(7));
    assert_eq!(OnceLock::<u8>::default(), OnceLock::new());
}

#[test]
fn a_panicking_lazy_lock_is_poisoned() {
    let lazy: LazyLock<u8> = LazyLock::new(|| panic!("boom"));
    assert!(panic::catch_unwind(AssertUnwindSafe(|| *lazy)).is_err());
    let again = panic::catch_unwind(AssertUnwindSafe(|| *lazy)).unwrap_err();
    assert_eq!(again.downcast_ref::<&str>(), Some(&"LazyLock instance has previously been poisoned"));
}

#[cfg(feature = "sim")]
mod common;

#[cfg(feature = "sim")]
mod sim {
    use super::common::{check_exhausts, dfs};
    use super::*;
    use samaritan::{BlockedActor, Builder, Deadlock, Outcome};

    // Used by one test only: forcing it elsewhere in this binary would make
    // it start complete in that test's exploration. `LAZY_RUNS` is std's,
    // which samaritan cannot put back (and does not see: the initializer
    // takes no step); it only counts.
    static LAZY_RUNS: StdAtomicUsize = StdAtomicUsize::new(0);
    static LAZY: LazyLock<usize> = LazyLock::new(|| {
        LAZY_RUNS.fetch_add(1, StdOrdering::SeqCst);
        40
    });

    /// Both threads read a `static` `LazyLock`.
    fn lazy_static_is_shared() {
        two_threads((), |(), _| assert_eq!(*LAZY, 40), |()| {});
    }

    // Each initialization below is: main S1 S2 J1 J2; the thread that wins
    // takes begin B and complete C; the other takes B only, enabled only
    // outside the winner's B..C (after C it finds the value). The reads
    // after initialization (`is_completed`, `get`) add steps, so the counts
    // differ per test; the two-step core is counted in `..._seven_...`.

    #[test]
    fn a_static_lazy_lock_races_in_seven_executions_and_initializes_once_in_each() {
        // t1 wins (B1 before B2): B1 C1 fall before S2 (2 ways: both, or
        // just B1) or both after it; in each case B2 then goes before or
        // after J1: 3 * 2 = 6. t2 wins: B2 needs S2, so S2 B2 C2 B1 J1 J2
        // is forced: 1. Total 7. Every execution starts with the static
        // uninitialized, as a fresh process: the initializer runs once in
        // each.
        check_exhausts(lazy_static_is_shared, 7);
        assert_eq!(LAZY_RUNS.load(StdOrdering::SeqCst), 7);
    }

    #[test]
    fn call_once_runs_the_closure_once_in_every_schedule() {
        // As in the lazy test, plus a step L (`is_completed`) after each
        // thread's call. Slots: x = S1..S2, y = S2..J1, z = J1..J2.
        // t1 wins (B1 C1 L1; t2 B2 L2 with B2 after C1): with k of t1's
        // steps in x, the rest in y, and m of t2's in y, the rest in z:
        // k=3: 1+1+1; k=2: L1 and t2's m steps mix freely, 1+2+3;
        // k=1: C1 L1 mix with t2's, B2 after C1, 1+2+3; k=0: the same, 6.
        // 21 in all. t2 wins (B2 C2 L2; t1 B1 L1 after C2, all within y):
        // L2 falls in y (3 places among B1 L1) or in z: 4. Total 25.
        check_exhausts(once_runs_once, 25);
    }

    #[test]
    fn once_lock_threads_agree_on_the_value_in_seven_executions() {
        // The core counted in the lazy test; main's final `get` comes after
        // both joins, so it adds no interleaving: 7.
        check_exhausts(once_lock_agrees, 7);
    }

    #[test]
    fn a_completed_lazy_lock_orders_nothing_between_its_readers() {
        // std's `force` of a completed cell is an acquire load of its
        // state, and nothing is released into the cell after its
        // initializer: the thread's store of `data` before its read of the
        // lock is not made visible to main by main's read after it. So
        // main may see the flag and still an old `data` (1, 0). When a
        // begin step that found the cell complete was a `call_once` that
        // released and acquired, main's read after the thread's acquired
        // its store, and only three outcomes were reached (in 30
        // executions).
        use samaritan::sync::atomic::{AtomicU32, Ordering::Relaxed};
        use std::collections::BTreeSet;
        static SEEN: std::sync::Mutex<BTreeSet<(u32, u32)>> = std::sync::Mutex::new(BTreeSet::new());
        let report = dfs(|| {
            let lazy = Arc::new(LazyLock::new(|| 1u32));
            assert_eq!(**lazy, 1);
            let (data, flag) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
            let (l2, d2, f2) = (lazy.clone(), data.clone(), flag.clone());
            let t = thread::spawn(move || {
                d2.store(1, Relaxed);
                assert_eq!(**l2, 1);
                f2.store(1, Relaxed);
            });
            let seen_flag = flag.load(Relaxed);
            assert_eq!(**lazy, 1);
            let seen_data = data.load(Relaxed);
            t.join().unwrap();
            SEEN.lock().unwrap().insert((seen_flag, seen_data));
        });
        assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, 41, true), "{report}");
        let seen: Vec<_> = SEEN.lock().unwrap().iter().copied().collect();
        assert_eq!(seen, [(0, 0), (0, 1), (1, 0), (1, 1)], "{report}");
    }

    #[test]
    fn a_recursive_call_once_deadlocks_on_the_once() {
        let body = || {
            let once = Once::new();
            once.call_once(|| once.call_once(|| {}));
        };
        let report = dfs(body);
        let Outcome::Deadlock(Deadlock { blocked, cycle, .. }) = &report.outcome else { panic!("{report}") };
        let BlockedActor { actor, op, object, holders, .. } = &blocked[0];
        assert_eq!(
            (actor.as_str(), op.as_str(), object.as_deref(), holders.as_slice()),
            ("main", "call_once", Some("Once#0"), ["main".to_string()].as_slice())
        );
        assert_eq!(cycle, &["main", "main"]);
        let token = report.token().expect("a failure has a token").to_string();
        assert_eq!(Builder::new().replay(&token, body).unwrap().outcome, report.outcome);
    }

    #[test]
    fn a_panic_caught_inside_an_execution_poisons_the_once() {
        check_exhausts(a_panicking_call_once_poisons_and_call_once_force_recovers, 1);
    }

    #[test]
    fn once_lock_behaves_like_std_inside_an_execution() {
        check_exhausts(once_lock_set_get_take_behave_like_std, 1);
        check_exhausts(a_panicking_lazy_lock_is_poisoned, 1);
    }

    #[test]
    fn a_reader_may_see_the_once_lock_before_or_after_it_is_set() {
        static SAW_NONE: StdAtomicUsize = StdAtomicUsize::new(0);
        static SAW_SOME: StdAtomicUsize = StdAtomicUsize::new(0);
        let report = dfs(|| {
            let lock = Arc::new(OnceLock::new());
            let l2 = lock.clone();
            let t = thread::spawn(move || l2.set(5).unwrap());
            match lock.get() {
                None => SAW_NONE.fetch_add(1, StdOrdering::SeqCst),
                Some(v) => SAW_SOME.fetch_add(*v, StdOrdering::SeqCst),
            };
            t.join().unwrap();
        });
        // main S G J; t1 P (set: one step, no initializer runs). P before
        // or after G: 2 executions, one seeing nothing, one seeing 5.
        assert_eq!((&report.outcome, report.executions), (&Outcome::Pass, 2), "{report}");
        assert_eq!((SAW_NONE.load(StdOrdering::SeqCst), SAW_SOME.load(StdOrdering::SeqCst)), (1, 5));
    }
}
