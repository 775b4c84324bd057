// The models, written once and included once per tool, here and by the
// reduction bench. The including module brings the tool's `sync` and
// `thread` modules into scope, so each model runs the same code against
// that tool's primitives.

use std::hint::black_box;

use self::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use self::sync::{Arc, Condvar, Mutex};

/// One thread doing `n` atomic loads: `n` scheduling points, none a switch.
pub(crate) fn loads(n: usize) {
    let a = AtomicUsize::new(0);
    let mut sum = 0;
    for _ in 0..n {
        sum += a.load(SeqCst);
    }
    black_box(sum);
}

/// Two threads each doing `n` loads of one atomic: `2n` scheduling points,
/// each a switch under a round-robin schedule.
pub(crate) fn two_thread_loads(n: usize) {
    let a = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let a = a.clone();
            thread::spawn(move || {
                let mut sum = 0;
                for _ in 0..n {
                    sum += a.load(SeqCst);
                }
                black_box(sum);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

/// Two threads each taking `n` steps of four kinds in turn: a `fetch_add`
/// on a shared counter, a load of a shared flag, a store to the thread's
/// own atomic, and a lock and unlock of a shared mutex (two steps).
pub(crate) fn mixed(n: usize) {
    let counter = Arc::new(AtomicUsize::new(0));
    let flag = Arc::new(AtomicUsize::new(0));
    let lock = Arc::new(Mutex::new(0usize));
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let (counter, flag, lock) = (counter.clone(), flag.clone(), lock.clone());
            thread::spawn(move || {
                let own = AtomicUsize::new(0);
                let mut k = 0;
                while k < n {
                    match k % 5 {
                        0 => {
                            counter.fetch_add(1, SeqCst);
                        }
                        1 => {
                            black_box(flag.load(SeqCst));
                        }
                        2 => own.store(k, SeqCst),
                        // Lock and unlock: two steps.
                        _ => {
                            *lock.lock().unwrap() += 1;
                            k += 1;
                        }
                    }
                    k += 1;
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

/// `threads` threads each doing one `fetch_add` on a shared counter
/// (`threads!` orders of the additions).
pub(crate) fn fetch_add(threads: usize) {
    let n = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let n = n.clone();
            thread::spawn(move || {
                n.fetch_add(1, SeqCst);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(n.load(SeqCst), threads);
}

/// Three threads each locking one shared mutex twice (two separate critical
/// sections, each an increment).
pub(crate) fn mutex_3x2() {
    let m = Arc::new(Mutex::new(0usize));
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

/// A producer thread puts two items in a mutex-protected buffer, notifying
/// a condvar after each; a consumer thread waits on the condvar until an
/// item is there and takes both.
pub(crate) fn condvar() {
    let shared = Arc::new((Mutex::new(Vec::<usize>::new()), Condvar::new()));
    let producer = {
        let shared = shared.clone();
        thread::spawn(move || {
            for i in 0..2 {
                shared.0.lock().unwrap().push(i);
                shared.1.notify_one();
            }
        })
    };
    let consumer = thread::spawn(move || {
        let mut got = 0;
        while got < 2 {
            let mut buf = shared.0.lock().unwrap();
            while buf.is_empty() {
                buf = shared.1.wait(buf).unwrap();
            }
            got += buf.drain(..).count();
        }
    });
    producer.join().unwrap();
    consumer.join().unwrap();
}

/// A bounded blocking queue of capacity 1 (a mutex and two condition
/// variables, `not_empty` and `not_full`): `producers` threads put `items`
/// each, and `consumers` threads take an equal share of them all.
pub(crate) fn bounded_queue(producers: usize, items: usize, consumers: usize) {
    struct Queue {
        items: Mutex<Vec<usize>>,
        not_empty: Condvar,
        not_full: Condvar,
    }
    let q = Arc::new(Queue { items: Mutex::new(Vec::new()), not_empty: Condvar::new(), not_full: Condvar::new() });
    let mut handles = Vec::new();
    for p in 0..producers {
        let q = q.clone();
        handles.push(thread::spawn(move || {
            for i in 0..items {
                let mut buf = q.items.lock().unwrap();
                while buf.len() == 1 {
                    buf = q.not_full.wait(buf).unwrap();
                }
                buf.push(p * items + i);
                q.not_empty.notify_one();
            }
        }));
    }
    let share = producers * items / consumers;
    for _ in 0..consumers {
        let q = q.clone();
        handles.push(thread::spawn(move || {
            for _ in 0..share {
                let mut buf = q.items.lock().unwrap();
                while buf.is_empty() {
                    buf = q.not_empty.wait(buf).unwrap();
                }
                black_box(buf.pop());
                q.not_full.notify_one();
            }
        }));
    }
    for h in handles {
        h.join().unwrap();
    }
}
