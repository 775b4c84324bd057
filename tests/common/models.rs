//! Small programs the reduction tests (`dpor.rs`, `cb_por.rs`,
//! `hapset.rs`) explore under several strategies: written once, so that
//! their execution counts compare.

use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::{Arc, Mutex};
use samaritan::thread;

/// `n` threads each add one to a counter: `n!` orders of the additions.
pub(crate) fn fetch_adds(n: usize) {
    let c = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let c = c.clone();
            thread::spawn(move || {
                c.fetch_add(1, Ordering::SeqCst);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(c.load(Ordering::SeqCst), n);
}

/// Three threads take one lock twice each: 6! / (2! 2! 2!) = 90 orders of
/// the critical sections.
pub(crate) fn mutex_counter() {
    let m = Arc::new(Mutex::new(0));
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let m = m.clone();
            thread::spawn(move || {
                for _ in 0..2 {
                    *m.lock().unwrap() += 1;
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(*m.lock().unwrap(), 6);
}

/// A store racing two load-then-lock threads: 8 orders of the dependent
/// steps.
pub(crate) fn store_and_readers() {
    let (a, m) = (Arc::new(AtomicUsize::new(0)), Arc::new(Mutex::new(0)));
    let store = {
        let a = a.clone();
        thread::spawn(move || a.store(1, Ordering::SeqCst))
    };
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (a, m) = (a.clone(), m.clone());
            thread::spawn(move || {
                let seen = a.load(Ordering::SeqCst);
                *m.lock().unwrap() += seen;
            })
        })
        .collect();
    store.join().unwrap();
    for r in readers {
        r.join().unwrap();
    }
}

/// A load-then-store increment in two threads loses an update ("an
/// increment was lost").
pub(crate) fn lost_update() {
    let n = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let n = n.clone();
            thread::spawn(move || {
                let seen = n.load(Ordering::SeqCst);
                n.store(seen + 1, Ordering::SeqCst);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(n.load(Ordering::SeqCst), 2, "an increment was lost");
}

/// Main takes lock `a` then `b`; thread t1 takes `b` then `a`: a
/// lock-order deadlock with the cycle main -> t1 -> main.
pub(crate) fn lock_order_inversion() {
    let (a, b) = (Arc::new(Mutex::new(())), Arc::new(Mutex::new(())));
    let (a2, b2) = (a.clone(), b.clone());
    let t = thread::spawn(move || {
        let _x = b2.lock().unwrap();
        let _y = a2.lock().unwrap();
    });
    {
        let _x = a.lock().unwrap();
        let _y = b.lock().unwrap();
    }
    t.join().unwrap();
}
