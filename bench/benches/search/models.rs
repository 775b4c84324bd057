// The many-thread shapes of SCTBench (Thomson, Donaldson and Betts,
// "Concurrency testing using controlled schedulers: an empirical study"),
// written anew, and a bounded blocking queue: included once per tool by
// `main.rs`, which brings that tool's `sync` and `thread` into scope. Each
// fails an assertion in the schedules that expose its bug.

use self::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use self::sync::{Arc, Mutex};

/// `n - 1` setters each store `a = 1`, then `b = 1`; one checker loads `a`
/// and then `b`, and fails when it sees `a` set without `b` (a setter
/// preempted between its stores, the checker run in between).
pub(crate) fn reorder(n: usize) {
    let flags = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
    let mut handles = Vec::new();
    for _ in 0..n - 1 {
        let flags = flags.clone();
        handles.push(thread::spawn(move || {
            flags.0.store(1, SeqCst);
            flags.1.store(1, SeqCst);
        }));
    }
    let checker = {
        let flags = flags.clone();
        thread::spawn(move || {
            let a = flags.0.load(SeqCst);
            let b = flags.1.load(SeqCst);
            assert!(!(a == 1 && b == 0), "reorder: a set before b");
        })
    };
    handles.push(checker);
    for h in handles {
        h.join().unwrap();
    }
}

/// `n - 1` writers each set `x = 1` under one lock and then `y = x + 1`
/// under another; one reader reads `x` under the first and, once it is 1,
/// `y` under the second, and fails when `y` is not 2 yet (a writer
/// preempted between its two critical sections).
pub(crate) fn twostage(n: usize) {
    let state = Arc::new((Mutex::new(0usize), Mutex::new(0usize)));
    let mut handles = Vec::new();
    for _ in 0..n - 1 {
        let state = state.clone();
        handles.push(thread::spawn(move || {
            let x = {
                let mut x = state.0.lock().unwrap();
                *x = 1;
                *x
            };
            *state.1.lock().unwrap() = x + 1;
        }));
    }
    let reader = {
        let state = state.clone();
        thread::spawn(move || {
            let x = *state.0.lock().unwrap();
            if x == 1 {
                let y = *state.1.lock().unwrap();
                assert_eq!(y, 2, "twostage: the second stage had not run");
            }
        })
    };
    handles.push(reader);
    for h in handles {
        h.join().unwrap();
    }
}

/// `n - 1` threads increment a counter (a load, then a store) under one
/// lock and one thread under another lock: the counter loses an increment
/// when that thread and another interleave their load and store.
pub(crate) fn wronglock(n: usize) {
    let shared = Arc::new((Mutex::new(()), Mutex::new(()), AtomicUsize::new(0)));
    let handles: Vec<_> = (0..n)
        .map(|i| {
            let shared = shared.clone();
            thread::spawn(move || {
                let lock = if i == 0 { &shared.1 } else { &shared.0 };
                let _held = lock.lock().unwrap();
                let seen = shared.2.load(SeqCst);
                shared.2.store(seen + 1, SeqCst);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(shared.2.load(SeqCst), n, "wronglock: an increment was lost");
}

/// `n` threads each take one lock once: correct, with `n!` lock orders
/// (the shape of the 200-thread program).
pub(crate) fn lock_once(n: usize) {
    let m = Arc::new(Mutex::new(0usize));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let m = m.clone();
            thread::spawn(move || *m.lock().unwrap() += 1)
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(*m.lock().unwrap(), n);
}
