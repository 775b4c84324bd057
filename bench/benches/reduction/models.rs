// The reduction models, written once and included once per tool (the
// including module brings the tool's `sync` and `thread` into scope).

use self::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use self::sync::{Arc, Condvar, Mutex};

/// `n` threads each doing one `fetch_add` on a shared counter: `n!` orders
/// of the additions (Mazurkiewicz traces).
pub(crate) fn fetch_add(n: usize) {
    let c = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let c = c.clone();
            thread::spawn(move || {
                c.fetch_add(1, SeqCst);
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(c.load(SeqCst), n);
}

/// Three threads each locking one mutex twice: 6! / (2!)^3 = 90 orders of
/// the critical sections.
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

/// A producer puts two items in a mutex-protected buffer, notifying a
/// condvar after each; a consumer waits until an item is there and takes
/// what it finds, until it has both.
pub(crate) fn producer_consumer() {
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
