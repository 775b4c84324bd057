//! parking_lot's API as its users call it, on real threads: production
//! runs it on parking_lot, `sim` on samaritan's models outside an
//! exploration, and both must agree.

use std::cell::Cell;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use samaritan_parking_lot::{
    const_mutex, Condvar, FairMutex, FairMutexGuard, MappedMutexGuard, Mutex, MutexGuard, Once, OnceState,
    ReentrantMutex, RwLock, RwLockReadGuard, RwLockUpgradableReadGuard, RwLockWriteGuard,
};

#[test]
fn a_mutex_locks_without_poisoning() {
    let m = Arc::new(Mutex::new(vec![1]));
    let other = m.clone();
    let panicked = thread::spawn(move || {
        let mut v = other.lock();
        v.push(2);
        panic!("while holding the lock");
    })
    .join();
    assert!(panicked.is_err());
    // parking_lot does not poison: the lock is free and the data there.
    assert_eq!(*m.lock(), [1, 2]);
    assert!(!m.is_locked());
    let guard = m.lock();
    assert!(m.is_locked() && m.try_lock().is_none());
    assert!(m.try_lock_for(Duration::from_millis(5)).is_none());
    drop(guard);
    assert!(m.try_lock_until(Instant::now() + Duration::from_millis(5)).is_some());
    let mut m = Arc::try_unwrap(m).unwrap();
    m.get_mut().push(3);
    assert_eq!(m.into_inner(), [1, 2, 3]);
    static COUNT: Mutex<u32> = const_mutex(0);
    *COUNT.lock() += 1;
    assert_eq!(*COUNT.lock(), 1);
    let fair = FairMutex::new(5);
    FairMutexGuard::unlock_fair(fair.lock());
    assert_eq!(format!("{:?}", fair), "Mutex { data: 5 }");
}

#[test]
fn guards_map_to_parts_and_unlock_for_a_while() {
    let m = Mutex::new((1, (String::from("a"), 0u8)));
    let mut inner: MappedMutexGuard<'_, (String, u8)> = MutexGuard::map(m.lock(), |pair| &mut pair.1);
    inner.0.push('b');
    let mut count = MappedMutexGuard::map(inner, |inner| &mut inner.1);
    *count += 7;
    drop(count);
    assert_eq!(m.lock().1, (String::from("ab"), 7));
    let none = MutexGuard::try_map(m.lock(), |_| None::<&mut u8>);
    let mut guard = none.expect_err("the guard comes back");
    let seen = MutexGuard::unlocked(&mut guard, || m.try_lock().map(|g| g.0));
    assert_eq!(seen, Some(1));
    MutexGuard::bump(&mut guard);
    assert_eq!(guard.0, 1);
}

#[test]
fn a_condvar_waits_with_a_mutable_guard_and_says_who_waited() {
    let pair = Arc::new((Mutex::new(false), Condvar::new()));
    let (m, cv) = &*pair;
    let mut guard = m.lock();
    assert!(cv.wait_for(&mut guard, Duration::from_millis(5)).timed_out());
    assert!(cv.wait_until(&mut guard, Instant::now() + Duration::from_millis(5)).timed_out());
    assert!(cv.wait_while_for(&mut guard, |ready| !*ready, Duration::from_millis(5)).timed_out());
    assert!(!cv.notify_one());
    assert_eq!(cv.notify_all(), 0);
    drop(guard);
    let other = pair.clone();
    let t = thread::spawn(move || {
        let (m, cv) = &*other;
        let mut ready = m.lock();
        *ready = true;
        // Wait until the main thread is waiting, then wake it.
        while !cv.notify_one() {
            MutexGuard::unlocked(&mut ready, || thread::sleep(Duration::from_millis(1)));
        }
    });
    let mut ready = m.lock();
    cv.wait_while(&mut ready, |ready| !*ready);
    assert!(*ready);
    drop(ready);
    t.join().unwrap();
}

#[test]
fn a_rwlock_reads_writes_upgrades_and_downgrades() {
    let lock = RwLock::new(1);
    {
        let (a, b) = (lock.read(), lock.read());
        assert_eq!(*a + *b, 2);
        assert!(lock.try_write().is_none() && lock.try_read().is_some());
    }
    let up = lock.upgradable_read();
    assert!(lock.try_upgradable_read().is_none() && lock.try_read().is_some());
    let reader = lock.read();
    let up = RwLockUpgradableReadGuard::try_upgrade(up).expect_err("a reader is in");
    drop(reader);
    let mut write = RwLockUpgradableReadGuard::upgrade(up);
    *write += 1;
    let up = RwLockWriteGuard::downgrade_to_upgradable(write);
    let read = RwLockUpgradableReadGuard::downgrade(up);
    assert_eq!(*read, 2);
    let part = RwLockReadGuard::map(read, |v| v);
    assert_eq!(*part, 2);
    drop(part);
    let mut up = lock.upgradable_read();
    up.with_upgraded(|v| *v *= 10);
    assert_eq!(*up, 20);
    drop(up);
    let write = lock.write();
    assert!(lock.is_locked());
    assert_eq!(*RwLockWriteGuard::downgrade(write), 20);
    let mut part = RwLockWriteGuard::map(lock.write(), |v| v);
    *part += 1;
    drop(part);
    assert_eq!(lock.into_inner(), 21);
}

#[test]
fn a_reentrant_mutex_is_taken_again_by_its_owner_only() {
    let m = Arc::new(ReentrantMutex::new(Cell::new(0)));
    let outer = m.lock();
    let inner = m.lock();
    inner.set(1);
    assert!(m.is_owned_by_current_thread() && m.is_locked());
    let other = m.clone();
    assert!(!thread::spawn(move || other.try_lock().is_some()).join().unwrap());
    drop(outer);
    drop(inner);
    assert!(!m.is_locked());
    let other = m.clone();
    assert!(thread::spawn(move || other.try_lock().is_some()).join().unwrap());
    assert_eq!(m.lock().get(), 1);
}

#[test]
fn a_once_runs_its_closure_once_and_says_so() {
    let once = Once::new();
    assert_eq!(once.state(), OnceState::New);
    let mut runs = 0;
    once.call_once(|| runs += 1);
    once.call_once(|| runs += 1);
    once.call_once_force(|_| runs += 1);
    assert_eq!((runs, once.state(), once.state().done(), once.state().poisoned()), (1, OnceState::Done, true, false));
}

#[cfg(feature = "arc_lock")]
#[test]
fn an_arc_guard_holds_its_mutex_s_arc() {
    use samaritan_parking_lot::{ArcMutexGuard, RawMutex};

    let m = Arc::new(Mutex::new(vec![1]));
    let mut guard: ArcMutexGuard<RawMutex, Vec<i32>> = m.lock_arc();
    guard.push(2);
    assert!(Arc::ptr_eq(ArcMutexGuard::mutex(&guard), &m) && m.try_lock_arc().is_none());
    // The guard outlives the borrow it came from.
    let kept = move || guard;
    drop(kept());
    assert_eq!(*m.try_lock_arc().expect("free again"), [1, 2]);
}
