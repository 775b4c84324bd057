//! `samaritan::sync::atomic` in production mode and under exploration.

use samaritan::sync::atomic::{fence, AtomicBool, AtomicI64, AtomicPtr, AtomicU8, AtomicUsize, Ordering};

#[test]
fn integer_atomics_behave_like_std() {
    let n = AtomicUsize::new(5);
    assert_eq!(n.fetch_add(2, Ordering::SeqCst), 5);
    assert_eq!(n.fetch_sub(1, Ordering::SeqCst), 7);
    assert_eq!(n.swap(10, Ordering::SeqCst), 6);
    assert_eq!(n.compare_exchange(10, 11, Ordering::SeqCst, Ordering::SeqCst), Ok(10));
    assert_eq!(n.compare_exchange(10, 12, Ordering::SeqCst, Ordering::SeqCst), Err(11));
    assert_eq!(n.fetch_max(20, Ordering::SeqCst), 11);
    assert_eq!(n.fetch_min(3, Ordering::SeqCst), 20);
    assert_eq!(n.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |v| Some(v * 2)), Ok(3));
    assert_eq!(n.load(Ordering::SeqCst), 6);
    let i = AtomicI64::new(-1);
    assert_eq!(i.fetch_and(0b10, Ordering::SeqCst), -1);
    assert_eq!(i.fetch_or(0b1, Ordering::SeqCst), 0b10);
    assert_eq!(i.fetch_xor(0b11, Ordering::SeqCst), 0b11);
    assert_eq!(i.into_inner(), 0);
    let mut u = AtomicU8::new(250);
    assert_eq!(u.fetch_add(10, Ordering::SeqCst), 250);
    *u.get_mut() += 1;
    assert_eq!(u.load(Ordering::SeqCst), 5);
    fence(Ordering::SeqCst);
}

#[test]
fn bool_and_pointer_atomics_behave_like_std() {
    let b = AtomicBool::new(false);
    assert!(!b.fetch_or(true, Ordering::SeqCst));
    assert!(b.fetch_and(false, Ordering::SeqCst));
    assert!(!b.fetch_xor(true, Ordering::SeqCst));
    assert!(b.load(Ordering::SeqCst));
    let mut x = 1;
    let mut y = 2;
    let p = AtomicPtr::new(&mut x as *mut i32);
    assert_eq!(p.swap(&mut y, Ordering::SeqCst), &mut x as *mut i32);
    // SAFETY: `p` points at `y`, which is live and not otherwise borrowed.
    assert_eq!(unsafe { *p.load(Ordering::SeqCst) }, 2);
}

#[test]
fn a_weak_compare_exchange_loop_succeeds() {
    let n = AtomicUsize::new(0);
    let mut current = n.load(Ordering::Relaxed);
    while let Err(seen) = n.compare_exchange_weak(current, current + 1, Ordering::SeqCst, Ordering::Relaxed) {
        current = seen;
    }
    assert_eq!(n.load(Ordering::SeqCst), 1);
}

#[cfg(feature = "sim")]
mod sim {
    use samaritan::sync::atomic::{AtomicUsize, Ordering};
    use samaritan::sync::Arc;
    use samaritan::{thread, Builder, Outcome, SearchStrategy};

    #[test]
    fn a_compare_exchange_increment_never_loses_an_update() {
        let report = Builder::new()
            .strategy(SearchStrategy::Dfs)
            .spurious_failures(false)
            .explore(|| {
                let n = Arc::new(AtomicUsize::new(0));
                let n2 = n.clone();
                let inc = move |n: &AtomicUsize| {
                    let mut current = n.load(Ordering::SeqCst);
                    while let Err(seen) = n.compare_exchange(current, current + 1, Ordering::SeqCst, Ordering::SeqCst) {
                        current = seen;
                    }
                };
                let t = thread::spawn(move || inc(&n2));
                inc(&n);
                t.join().unwrap();
                assert_eq!(n.load(Ordering::SeqCst), 2);
            })
            .unwrap();
        // main S Lm Cm J Ld, t1 Lt Ct; a CAS whose load is stale fails and
        // its thread retries. Branching happens only among the first four
        // operations: the interleavings of Lm<Cm with Lt<Ct, C(4,2) = 6.
        // After the first CAS the winner either finished (t1) or waits in
        // join (main), so the loser's retry is forced. 6 executions.
        assert_eq!((report.outcome, report.exhausted), (Outcome::Pass, true));
        assert_eq!(report.executions, 6);
    }

    #[test]
    fn the_weak_compare_exchange_retry_loop_terminates_under_exhaustive_search() {
        let report = Builder::new()
            .strategy(SearchStrategy::Icb)
            .explore(|| {
                let n = AtomicUsize::new(0);
                let mut current = n.load(Ordering::Relaxed);
                while let Err(seen) = n.compare_exchange_weak(current, current + 1, Ordering::SeqCst, Ordering::Relaxed)
                {
                    current = seen;
                }
                assert_eq!(n.load(Ordering::SeqCst), 1);
            })
            .unwrap();
        // The first weak CAS succeeds or fails spuriously (a choice); after a
        // spurious failure the retry cannot fail spuriously again and
        // succeeds. 2 executions.
        assert_eq!((report.outcome, report.executions, report.exhausted), (Outcome::Pass, 2, true));
    }
}
