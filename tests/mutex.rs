//! `samaritan::sync::Mutex` in production mode and under exploration.

use samaritan::sync::{Arc, Mutex, TryLockError};
use samaritan::thread;

/// Two threads add to a locked counter; the result is always 2.
fn locked_counter() {
    let n = Arc::new(Mutex::new(0));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let n = n.clone();
            thread::spawn(move || *n.lock().unwrap() += 1)
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(*n.lock().unwrap(), 2);
}

#[test]
fn lock_try_lock_and_into_inner_behave_like_std() {
    let m = Mutex::new(vec![1]);
    {
        let mut g = m.lock().unwrap();
        g.push(2);
        assert!(matches!(m.try_lock(), Err(TryLockError::WouldBlock)));
    }
    m.try_lock().unwrap().push(3);
    assert!(!m.is_poisoned());
    let mut m = m;
    m.get_mut().unwrap().push(4);
    assert_eq!(m.into_inner().unwrap(), [1, 2, 3, 4]);
    assert_eq!(format!("{:?}", Mutex::new(5)), format!("{:?}", std::sync::Mutex::new(5)));
}

#[test]
fn a_panic_while_locked_poisons() {
    let m = Arc::new(Mutex::new(0));
    let m2 = m.clone();
    // Outside an exploration (or without `sim`) threads are real threads.
    let result = std::thread::spawn(move || {
        let _g = m2.lock().unwrap();
        panic!("poison it");
    })
    .join();
    assert!(result.is_err());
    assert!(m.is_poisoned());
    m.clear_poison();
    assert!(!m.is_poisoned());
}

#[test]
fn a_locked_counter_counts_with_real_threads() {
    // In both modes this runs for real: `samaritan::check` explores only
    // under `sim`; here we call the body directly.
    locked_counter();
}

#[cfg(feature = "sim")]
mod sim {
    use super::*;
    use samaritan::{Builder, Outcome, SearchStrategy};

    #[test]
    fn a_locked_counter_has_ten_executions() {
        // main S1 S2 J1 J2; t1 L1 U1; t2 L2 U2; critical sections exclusive.
        // t1's section first: S2 before L1, inside it or after U1 (3 ways),
        // then J1 before L2, between, or after U2 (3 ways): 9.
        // t2's section first: S2 L2 U2 L1 U1 J1 J2 is forced: 1. Total 10.
        let report = Builder::new().strategy(SearchStrategy::Dfs).explore(locked_counter).unwrap();
        assert_eq!((report.outcome, report.executions, report.exhausted), (Outcome::Pass, 10, true));
    }

    #[test]
    fn try_lock_fails_in_some_schedules_and_not_in_others() {
        use samaritan::sync::atomic::{AtomicUsize, Ordering};
        static FAILED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let report = Builder::new()
            .strategy(samaritan::SearchStrategy::Icb)
            .explore(|| {
                let m = Arc::new(Mutex::new(()));
                let busy = Arc::new(AtomicUsize::new(0));
                let (m2, busy2) = (m.clone(), busy.clone());
                let t = thread::spawn(move || {
                    if m2.try_lock().is_err() {
                        busy2.store(1, Ordering::SeqCst);
                    }
                });
                drop(m.lock().unwrap());
                t.join().unwrap();
                if busy.load(Ordering::SeqCst) == 1 {
                    FAILED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            })
            .unwrap();
        // main S L U J Ld; t1 T (try_lock, always enabled), then U' when it
        // succeeded or a store St when it failed. After S:
        // - T before L: T succeeds, U' is forced (L is disabled): 1;
        // - L then T: T fails; U and St in either order: 2 (both failing);
        // - L then U: T is forced, succeeds, U' forced: 1.
        // 4 executions, 2 of them with a failed try_lock.
        assert_eq!(report.outcome, Outcome::Pass);
        assert_eq!(FAILED.load(std::sync::atomic::Ordering::SeqCst), 2);
        assert_eq!(report.executions, 4);
    }

    #[test]
    fn outside_an_exploration_a_sim_build_uses_real_threads() {
        // No `check` here: the primitives pass through to std.
        locked_counter();
        let m = Arc::new(Mutex::new(0));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let m = m.clone();
                std::thread::spawn(move || {
                    for _ in 0..1000 {
                        *m.lock().unwrap() += 1;
                    }
                })
            })
            .collect();
        handles.into_iter().for_each(|h| h.join().unwrap());
        assert_eq!(*m.lock().unwrap(), 4000);
    }
}
