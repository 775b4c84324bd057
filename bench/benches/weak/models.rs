// The weak-memory models, written once and included once per tool by
// `main.rs`. The including module brings the tool's `sync` and `thread`
// into scope. Each model returns its outcome: the values its loads read.

use self::sync::atomic::{fence, AtomicUsize, Ordering};
use self::sync::Arc;

use Ordering::{Acquire, Relaxed, Release, SeqCst};

/// Two atomics, shared.
type Two = Arc<(AtomicUsize, AtomicUsize)>;

fn pair() -> (Two, Two) {
    let a = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
    (a.clone(), a)
}

/// Store buffering: each thread stores one location and loads the other;
/// with `fences`, a SeqCst fence between.
pub(crate) fn sb(store: Ordering, load: Ordering, fences: bool) -> Vec<usize> {
    let (a, b) = pair();
    let t = thread::spawn(move || {
        b.0.store(1, store);
        if fences {
            fence(SeqCst);
        }
        b.1.load(load)
    });
    a.1.store(1, store);
    if fences {
        fence(SeqCst);
    }
    let r = a.0.load(load);
    vec![t.join().unwrap(), r]
}

/// Message passing: data then flag; the reader reads flag then data.
pub(crate) fn mp(store: Ordering, load: Ordering) -> Vec<usize> {
    let (a, b) = pair();
    let t = thread::spawn(move || {
        b.0.store(1, Relaxed);
        b.1.store(1, store);
    });
    let flag = a.1.load(load);
    let data = a.0.load(Relaxed);
    t.join().unwrap();
    vec![flag, data]
}

/// Independent reads of independent writes: two writers, two readers
/// reading the locations in opposite orders.
pub(crate) fn iriw(store: Ordering, load: Ordering) -> Vec<usize> {
    let (a, b) = pair();
    let (c, d) = (a.clone(), a.clone());
    let w1 = thread::spawn(move || b.0.store(1, store));
    let w2 = thread::spawn(move || c.1.store(1, store));
    let r = thread::spawn(move || vec![d.0.load(load), d.1.load(load)]);
    let mut out = vec![a.1.load(load), a.0.load(load)];
    out.extend(r.join().unwrap());
    w1.join().unwrap();
    w2.join().unwrap();
    out
}

/// 2+2W: each thread stores 1 to one location and 2 to the other; the
/// final values.
pub(crate) fn two_plus_two_w(order: Ordering) -> Vec<usize> {
    let (a, b) = pair();
    let t = thread::spawn(move || {
        b.0.store(1, order);
        b.1.store(2, order);
    });
    a.1.store(1, order);
    a.0.store(2, order);
    t.join().unwrap();
    vec![a.0.load(SeqCst), a.1.load(SeqCst)]
}

/// CoRR: one writer stores 1 then 2; two loads by the reader never see
/// the stores out of order.
pub(crate) fn corr() -> Vec<usize> {
    let (a, b) = pair();
    let t = thread::spawn(move || {
        b.0.store(1, Relaxed);
        b.0.store(2, Relaxed);
    });
    let first = a.0.load(Relaxed);
    let second = a.0.load(Relaxed);
    t.join().unwrap();
    vec![first, second]
}

/// Dekker's entry: each thread raises its flag, then enters if the other's
/// is down; the outcome counts the threads that entered together (2 is
/// the mutual-exclusion violation).
pub(crate) fn dekker(store: Ordering, load: Ordering) -> Vec<usize> {
    let (a, b) = pair();
    let t = thread::spawn(move || {
        b.0.store(1, store);
        usize::from(b.1.load(load) == 0)
    });
    a.1.store(1, store);
    let me = usize::from(a.0.load(load) == 0);
    vec![me + t.join().unwrap()]
}

/// `n` threads each adding one with `fetch_add` (SeqCst), then a read.
pub(crate) fn fetch_add(n: usize) -> Vec<usize> {
    let a = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let a = a.clone();
            thread::spawn(move || {
                a.fetch_add(1, SeqCst);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    vec![a.load(SeqCst)]
}

/// Two threads add to a counter under a mutex, twice each.
pub(crate) fn mutex_counter() -> Vec<usize> {
    let m = Arc::new(sync::Mutex::new(0));
    let handles: Vec<_> = (0..2)
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
    let n = *m.lock().unwrap();
    vec![n]
}

/// Message passing with Release/Acquire, the reader spinning on the flag
/// (a yield per try), as lock-free code waits.
pub(crate) fn mp_spin() -> Vec<usize> {
    let (a, b) = pair();
    let t = thread::spawn(move || {
        b.0.store(1, Relaxed);
        b.1.store(1, Release);
    });
    while a.1.load(Acquire) == 0 {
        thread::yield_now();
    }
    let data = a.0.load(Relaxed);
    t.join().unwrap();
    vec![data]
}
