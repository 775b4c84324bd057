//! `samaritan::sync::RwLock` in production mode and under exploration.

use samaritan::sync::{Arc, RwLock, TryLockError};
use samaritan::thread;

/// Spawns two threads running `body` on one shared lock and joins them.
fn two_threads(bodies: [fn(&RwLock<u32>); 2]) -> impl Fn() + Send + Sync + 'static {
    move || {
        let lock = Arc::new(RwLock::new(0));
        let handles: Vec<_> = bodies
            .iter()
            .map(|&body| {
                let lock = lock.clone();
                thread::spawn(move || body(&lock))
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }
}

fn reader(lock: &RwLock<u32>) {
    let g = lock.read().unwrap();
    assert!(*g <= 1);
}

fn writer(lock: &RwLock<u32>) {
    *lock.write().unwrap() += 1;
}

#[test]
fn read_write_and_try_behave_like_std() {
    let lock = RwLock::new(vec![1]);
    {
        let r1 = lock.read().unwrap();
        let r2 = lock.try_read().unwrap();
        assert_eq!((r1.len(), r2.len()), (1, 1));
        assert!(matches!(lock.try_write(), Err(TryLockError::WouldBlock)));
    }
    {
        let mut w = lock.write().unwrap();
        w.push(2);
        assert!(matches!(lock.try_read(), Err(TryLockError::WouldBlock)));
        assert!(matches!(lock.try_write(), Err(TryLockError::WouldBlock)));
    }
    lock.try_write().unwrap().push(3);
    assert_eq!(format!("{:?}", lock.read().unwrap()), "[1, 2, 3]");
    let mut lock = lock;
    lock.get_mut().unwrap().push(4);
    assert_eq!(lock.into_inner().unwrap(), [1, 2, 3, 4]);
    assert_eq!(format!("{:?}", RwLock::new(5)), format!("{:?}", std::sync::RwLock::new(5)));
    assert_eq!(*RwLock::<u8>::default().read().unwrap(), 0);
}

#[test]
fn a_panic_while_writing_poisons() {
    let lock = Arc::new(RwLock::new(0));
    let l2 = lock.clone();
    // Outside an exploration (or without `sim`) threads are real threads.
    let result = std::thread::spawn(move || {
        let _w = l2.write().unwrap();
        panic!("poison it");
    })
    .join();
    assert!(result.is_err());
    assert!(lock.is_poisoned());
    assert!(lock.read().is_err());
    lock.clear_poison();
    assert!(!lock.is_poisoned());
    assert_eq!(*lock.read().unwrap(), 0);
}

#[test]
fn readers_and_writers_with_real_threads() {
    // In both modes this runs for real: no exploration is started.
    two_threads([writer, reader])();
    let lock = Arc::new(RwLock::new(0));
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let lock = lock.clone();
            std::thread::spawn(move || {
                for _ in 0..500 {
                    if i % 2 == 0 {
                        *lock.write().unwrap() += 1;
                    } else {
                        assert!(*lock.read().unwrap() <= 1000);
                    }
                }
            })
        })
        .collect();
    handles.into_iter().for_each(|h| h.join().unwrap());
    assert_eq!(*lock.read().unwrap(), 1000);
}

#[cfg(feature = "sim")]
mod common;

#[cfg(feature = "sim")]
mod sim {
    use super::common::{check_exhausts, dfs};
    use super::*;
    use samaritan::{BlockedActor, Builder, Deadlock, Outcome};

    #[test]
    fn two_readers_share_the_lock_in_nineteen_executions() {
        // main S1 S2 J1 J2; t1 R1 U1; t2 R2 U2; readers never exclude each
        // other. t1's two steps fall before S2 (a of them) or between S2 and
        // J1; t2's fall between S2 and J1 (b of them) or between J1 and J2.
        // Between S2 and J1, (2-a) + b steps interleave: C(2-a+b, b) ways.
        // a=0: 1+3+6, a=1: 1+2+3, a=2: 1+1+1. Total 19.
        check_exhausts(two_threads([reader, reader]), 19);
    }

    #[test]
    fn a_writer_excludes_a_reader_in_sixteen_executions() {
        // t1 A1 W1 U1 (the writer's arrival is a step of its own), t2 R2
        // U2, sections exclusive; main S1 S2 J1 J2.
        // t2 after t1: S2 before A1, between A1 and W1 or inside (3) times
        // J1 before R2, inside or after (3), or S2 after U1 and then J1 in
        // 3 places: 12. t2 before W1: S2 R2 U2 with A1 in 4 places, then
        // W1 U1 J1 J2: 4. Total 16 (10 before the arrival step).
        check_exhausts(two_threads([writer, reader]), 16);
    }

    #[test]
    fn the_std_behaviour_holds_inside_an_execution() {
        check_exhausts(read_write_and_try_behave_like_std, 1);
    }

    #[test]
    fn try_write_fails_while_a_reader_holds_the_lock() {
        check_exhausts(
            || {
                let lock = RwLock::new(0);
                let r = lock.read().unwrap();
                assert!(matches!(lock.try_write(), Err(TryLockError::WouldBlock)));
                assert!(lock.try_read().is_ok());
                drop(r);
                *lock.try_write().unwrap() = 1;
                assert_eq!(*lock.read().unwrap(), 1);
            },
            1,
        );
    }

    #[test]
    fn upgrading_a_read_lock_deadlocks_and_names_the_lock() {
        let body = || {
            let lock = RwLock::new(0);
            let _r = lock.read().unwrap();
            let _w = lock.write().unwrap();
        };
        let report = dfs(body);
        let Outcome::Deadlock(Deadlock { blocked, cycle, .. }) = &report.outcome else { panic!("{report}") };
        let BlockedActor { actor, op, object, holders, .. } = &blocked[0];
        assert_eq!(
            (blocked.len(), actor.as_str(), op.as_str(), object.as_deref(), holders.as_slice()),
            (1, "main", "lock", Some("RwLock#0"), ["main".to_string()].as_slice())
        );
        assert_eq!(cycle, &["main", "main"]);
        assert_eq!(report.executions, 1);
        let token = report.token().expect("a failure has a token").to_string();
        let replayed = Builder::new().replay(&token, body).unwrap();
        assert_eq!(replayed.outcome, report.outcome);
    }

    /// main reads, spawns a writer, then reads again while holding its
    /// first read guard (a recursive read).
    fn recursive_read_with_a_writer() {
        let lock = Arc::new(RwLock::new(0));
        let theirs = lock.clone();
        let first = lock.read().unwrap();
        let w = thread::spawn(move || *theirs.write().unwrap() += 1);
        let second = lock.read().unwrap();
        assert_eq!(*first + *second, 0);
        drop(second);
        drop(first);
        w.join().unwrap();
    }

    #[test]
    fn a_recursive_read_behind_a_waiting_writer_deadlocks() {
        // main R1 S R2 U2 U1 J; t1 A (its arrival) then W, blocked by R1.
        // After S, R2 and A are both enabled:
        //   R2 first: no writer waits, admitted; A before U2, between or
        //   after U1, then W and J: 3 passing executions;
        //   A first: R2 chooses whether it came after the writer began
        //   waiting: no, admitted: passes (1); yes, queued behind W, which
        //   waits for main's R1: deadlock, in execution 5.
        // Admitted whenever no writer held the lock, it passed every time.
        let report = dfs(recursive_read_with_a_writer);
        let Outcome::Deadlock(Deadlock { blocked, .. }) = &report.outcome else { panic!("{report}") };
        let seen: Vec<_> = blocked
            .iter()
            .map(|b| (b.actor.as_str(), b.op.as_str(), b.object.as_deref(), b.holders.as_slice()))
            .collect();
        let main = ["main".to_string()];
        assert_eq!(
            seen,
            [("main", "read", Some("RwLock#0"), main.as_slice()), ("t1", "lock", Some("RwLock#0"), main.as_slice())],
            "{report}"
        );
        assert_eq!(report.executions, 5);
        let token = report.token().expect("a failure has a token").to_string();
        let replayed = Builder::new().replay(&token, recursive_read_with_a_writer).unwrap();
        assert_eq!(replayed.outcome, report.outcome);
    }

    #[test]
    fn try_read_fails_behind_a_waiting_writer_by_choice() {
        // As above with try_read (main R1 S TR, t1 A W): TR before A gets
        // a guard, with A in 3 places among main's unlocks (3); A before
        // TR makes TR choose between a guard and WouldBlock (2). Total 5,
        // one of them WouldBlock.
        use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering as StdOrdering};
        static WOULD_BLOCK: StdAtomicUsize = StdAtomicUsize::new(0);
        check_exhausts(
            || {
                let lock = Arc::new(RwLock::new(0));
                let theirs = lock.clone();
                let first = lock.read().unwrap();
                let w = thread::spawn(move || *theirs.write().unwrap() += 1);
                if let Err(TryLockError::WouldBlock) = lock.try_read() {
                    WOULD_BLOCK.fetch_add(1, StdOrdering::SeqCst);
                }
                drop(first);
                w.join().unwrap();
            },
            5,
        );
        assert_eq!(WOULD_BLOCK.load(StdOrdering::SeqCst), 1);
    }

    #[test]
    fn try_locks_give_up_on_a_lock_held_outside_the_model() {
        static SHARED: RwLock<()> = RwLock::new(());
        static PLAIN: samaritan::sync::Mutex<()> = samaritan::sync::Mutex::new(());
        // Held for real, outside any exploration (passthrough).
        let _w = SHARED.write().unwrap();
        let _m = PLAIN.lock().unwrap();
        let report = Builder::new()
            .explore(|| {
                assert!(matches!(SHARED.try_read(), Err(std::sync::TryLockError::WouldBlock)));
                assert!(matches!(SHARED.try_write(), Err(std::sync::TryLockError::WouldBlock)));
                assert!(matches!(PLAIN.try_lock(), Err(std::sync::TryLockError::WouldBlock)));
            })
            .unwrap();
        // One thread: one execution, and no hang.
        assert_eq!((report.outcome, report.executions), (Outcome::Pass, 1));
    }
}
