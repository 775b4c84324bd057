//! Explorations of programs written against parking_lot's API: the bugs
//! parking_lot users write are found with a trace and a token that
//! replays them, and their fixed twins pass.

use std::collections::BTreeSet;
use std::sync::Mutex as StdMutex;

use samaritan::sync::atomic::{AtomicBool, Ordering};
use samaritan::sync::Arc;
use samaritan::{thread, Builder, Outcome, Report, SearchStrategy};
use samaritan_parking_lot::{Condvar, Mutex, ReentrantMutex, RwLock, RwLockUpgradableReadGuard};

fn dfs() -> Builder {
    Builder::new().strategy(SearchStrategy::Dfs).persist(false).progress(false)
}

/// Asserts that DFS passes `f` after exactly `executions` executions and
/// covers the whole space.
#[track_caller]
fn check_exhausts(f: impl Fn() + Send + Sync + 'static, executions: u64) {
    let report = dfs().explore(f).unwrap();
    assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, executions, true), "{report}");
}

/// Asserts that `report` is a deadlock whose token replays it, and returns
/// its text.
#[track_caller]
fn deadlock_that_replays(report: &Report, f: impl Fn() + Send + Sync + 'static) -> String {
    assert!(matches!(report.outcome, Outcome::Deadlock(_)), "{report}");
    let again = dfs().replay(report.token().expect("a token"), f).unwrap();
    assert!(matches!(again.outcome, Outcome::Deadlock(_)), "{again}");
    report.to_string()
}

/// Two threads take two parking_lot mutexes; `crossed` takes them in
/// opposite orders (a lock-order inversion).
fn two_locks(crossed: bool) {
    let a = Arc::new(Mutex::new(0));
    let b = Arc::new(Mutex::new(0));
    let (a2, b2) = (a.clone(), b.clone());
    let t = thread::spawn(move || {
        let (first, second) = if crossed { (&b2, &a2) } else { (&a2, &b2) };
        let _x = first.lock();
        *second.lock() += 1;
    });
    {
        let _x = a.lock();
        *b.lock() += 1;
    }
    t.join().unwrap();
}

#[test]
fn a_lock_order_inversion_is_a_deadlock_with_a_replayable_token() {
    let report = dfs().explore(|| two_locks(true)).unwrap();
    let text = deadlock_that_replays(&report, || two_locks(true));
    // The trace names the test's own lines, not the drop-in's.
    assert!(text.contains("wait-for cycle: main -> t1 -> main"), "{text}");
    assert!(
        text.contains(
            "  thread 'main' blocked in lock on Mutex#1 held by 't1' at parking_lot/tests/explore.rs:48:12\n  \
             thread 't1' blocked in lock on Mutex#2 held by 'main' at parking_lot/tests/explore.rs:44:17\n"
        ),
        "{text}"
    );
    check_exhausts(|| two_locks(false), 2);
}

/// A consumer waits for a flag on a parking_lot condvar; the producer
/// sets the flag without the lock (`racy`) or under it, then notifies.
fn handoff(racy: bool) {
    let state = Arc::new((Mutex::new(()), Condvar::new(), AtomicBool::new(false)));
    let other = state.clone();
    let producer = thread::spawn(move || {
        let (m, cv, ready) = &*other;
        if racy {
            ready.store(true, Ordering::SeqCst);
        } else {
            let _g = m.lock();
            ready.store(true, Ordering::SeqCst);
        }
        cv.notify_one();
    });
    let (m, cv, ready) = &*state;
    let mut guard = m.lock();
    while !ready.load(Ordering::SeqCst) {
        cv.wait(&mut guard);
    }
    drop(guard);
    producer.join().unwrap();
}

#[test]
fn a_notification_sent_between_the_check_and_the_wait_is_lost() {
    let report = dfs().explore(|| handoff(true)).unwrap();
    let text = deadlock_that_replays(&report, || handoff(true));
    assert!(text.contains("thread 'main' blocked in wait on Condvar"), "{text}");
    check_exhausts(|| handoff(false), 23);
}

#[test]
fn a_timed_wait_may_time_out_or_be_notified() {
    let seen = Arc::new(StdMutex::new(BTreeSet::new()));
    let s = seen.clone();
    let report = dfs()
        .explore(move || {
            let pair = Arc::new((Mutex::new(false), Condvar::new()));
            let other = pair.clone();
            let t = thread::spawn(move || {
                *other.0.lock() = true;
                other.1.notify_all();
            });
            let mut done = pair.0.lock();
            let timed_out = if *done {
                None
            } else {
                Some(pair.1.wait_for(&mut done, std::time::Duration::from_secs(1)).timed_out())
            };
            drop(done);
            t.join().unwrap();
            s.lock().unwrap().insert(timed_out);
        })
        .unwrap();
    assert_eq!((&report.outcome, report.exhausted), (&Outcome::Pass, true), "{report}");
    assert_eq!(*seen.lock().unwrap(), BTreeSet::from([None, Some(false), Some(true)]));
}

/// Two threads add 1: one with an upgradable read it upgrades, one with a
/// plain write; `drop_between` gives the read up before writing instead
/// of upgrading (a lost update).
fn add_twice(drop_between: bool) {
    let lock = Arc::new(RwLock::new(0));
    let other = lock.clone();
    let writer = thread::spawn(move || *other.write() += 1);
    let read = lock.upgradable_read();
    let seen = *read;
    if drop_between {
        drop(read);
        *lock.write() = seen + 1;
    } else {
        *RwLockUpgradableReadGuard::upgrade(read) = seen + 1;
    }
    writer.join().unwrap();
    assert_eq!(*lock.read(), 2, "an update was lost");
}

#[test]
fn an_upgrade_lets_no_writer_in_and_dropping_the_read_does() {
    check_exhausts(|| add_twice(false), 2);
    let report = dfs().explore(|| add_twice(true)).unwrap();
    assert!(
        matches!(&report.outcome, Outcome::Panic { message, .. } if message.starts_with("assertion `left == right` failed: an update was lost")),
        "{report}"
    );
    assert!(dfs().replay(report.token().unwrap(), || add_twice(true)).unwrap().is_failure());
}

#[test]
fn a_reentrant_mutex_excludes_other_threads_at_every_depth() {
    check_exhausts(
        || {
            let m = Arc::new(ReentrantMutex::new(std::cell::Cell::new(0)));
            let other = m.clone();
            let bump = move |m: &ReentrantMutex<std::cell::Cell<u32>>| {
                let outer = m.lock();
                let inner = m.lock();
                let v = inner.get();
                drop(inner);
                outer.set(v + 1);
            };
            let t = thread::spawn(move || bump(&other));
            bump(&m);
            t.join().unwrap();
            assert_eq!(m.lock().get(), 2);
        },
        360,
    );
}
