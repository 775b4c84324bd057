//! The async primitives of `samaritan::sync` (issue #4): production
//! behaviour, identical with and without the `sim` feature.
//!
//! Futures are driven by hand (`poll` with a waker that records wakeups) to
//! check exact orders, and by `futures::executor::block_on` on std threads
//! to check exclusion under contention.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::task::{Context, Poll};
use std::thread;

use futures::executor::block_on;
use futures::task::{waker, ArcWake};
use futures::FutureExt;
use samaritan::sync::{async_mpsc, broadcast, oneshot, watch};
use samaritan::sync::{Arc, AsyncMutex, AsyncRwLock, Notify, Semaphore, TryAcquireError};

/// Records whether it was woken.
#[derive(Default)]
struct Flag(AtomicBool);

impl ArcWake for Flag {
    fn wake_by_ref(arc_self: &Arc<Self>) {
        arc_self.0.store(true, SeqCst);
    }
}

/// A boxed future with its own wake flag, polled by hand.
struct Probe<'a, T> {
    fut: Pin<Box<dyn Future<Output = T> + 'a>>,
    flag: Arc<Flag>,
}

impl<'a, T> Probe<'a, T> {
    fn new(fut: impl Future<Output = T> + 'a) -> Self {
        Probe { fut: Box::pin(fut), flag: Arc::default() }
    }

    /// Polls once; clears the wake flag first.
    fn poll(&mut self) -> Poll<T> {
        self.flag.0.store(false, SeqCst);
        let w = waker(self.flag.clone());
        self.fut.as_mut().poll(&mut Context::from_waker(&w))
    }

    #[track_caller]
    fn pending(&mut self) {
        assert!(self.poll().is_pending(), "future completed but should be pending");
    }

    #[track_caller]
    fn ready(&mut self) -> T {
        match self.poll() {
            Poll::Ready(v) => v,
            Poll::Pending => panic!("future pending but should be ready"),
        }
    }

    fn woken(&self) -> bool {
        self.flag.0.load(SeqCst)
    }
}

/// Runs `threads` std threads, each doing `body(i)` `iters` times under `block_on`.
#[track_caller]
fn contend<S: Send + Sync + 'static>(
    shared: Arc<S>,
    threads: usize,
    iters: usize,
    body: fn(&S, usize) -> futures::future::BoxFuture<'_, ()>,
) {
    let handles: Vec<_> = (0..threads)
        .map(|i| {
            let shared = shared.clone();
            thread::spawn(move || {
                for _ in 0..iters {
                    block_on(body(&shared, i));
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

/// Checks that a primitive is usable from multi-threaded executors.
#[test]
fn futures_and_guards_are_send() {
    fn send<T: Send>(_: &T) {}
    let m = AsyncMutex::new(0);
    let l = AsyncRwLock::new(0);
    let s = Semaphore::new(1);
    let n = Notify::new();
    send(&m.lock());
    send(&m.try_lock().unwrap());
    send(&l.read());
    send(&l.write());
    send(&s.acquire());
    send(&n.notified());
    let (tx, mut rx) = async_mpsc::channel::<u8>(1);
    send(&tx.send(1));
    send(&rx.recv());
    let (_wtx, mut wrx) = watch::channel(0);
    send(&wrx.changed());
    let (_btx, mut brx) = broadcast::channel::<u8>(1);
    send(&brx.recv());
}

// --- AsyncMutex ---------------------------------------------------------

struct Counter {
    lock: AsyncMutex<u64>,
    inside: AtomicUsize,
}

#[test]
fn mutex_excludes_under_contention() {
    let c = Arc::new(Counter { lock: AsyncMutex::new(0), inside: AtomicUsize::new(0) });
    contend(c.clone(), 8, 500, |c, _| {
        async move {
            let mut g = c.lock.lock().await;
            assert_eq!(c.inside.fetch_add(1, SeqCst), 0, "two holders at once");
            let v = *g;
            thread::yield_now();
            *g = v + 1;
            c.inside.fetch_sub(1, SeqCst);
        }
        .boxed()
    });
    assert_eq!(*c.lock.try_lock().unwrap(), 8 * 500);
}

#[test]
fn mutex_serves_waiters_in_fifo_order() {
    let m = AsyncMutex::new(Vec::new());
    let g = m.try_lock().unwrap();
    let mut waiters: Vec<_> = (0..4u8).map(|i| (i, Probe::new(m.lock()))).collect();
    for (_, w) in &mut waiters {
        w.pending();
    }
    drop(g);
    while !waiters.is_empty() {
        // Exactly one waiter was handed the lock; polling the others in reverse order does not change that.
        let woken: Vec<u8> = waiters.iter().filter(|(_, w)| w.woken()).map(|(i, _)| *i).collect();
        assert_eq!(woken.len(), 1);
        for (_, w) in waiters.iter_mut().rev().filter(|(_, w)| !w.woken()) {
            w.pending();
        }
        let at = waiters.iter().position(|(i, _)| *i == woken[0]).unwrap();
        let (i, mut w) = waiters.remove(at);
        w.ready().push(i); // The guard drops here, handing the lock on.
    }
    assert_eq!(*m.try_lock().unwrap(), [0, 1, 2, 3]);
}

#[test]
fn mutex_try_lock_does_not_barge_past_a_waiter() {
    let m = AsyncMutex::new(1);
    let g = m.try_lock().unwrap();
    assert!(m.try_lock().is_err());
    let mut w = Probe::new(m.lock());
    w.pending();
    drop(g);
    assert!(m.try_lock().is_err(), "the lock is promised to the waiter");
    let g = w.ready();
    assert_eq!(*g, 1);
    drop(g);
    assert_eq!(*m.try_lock().unwrap(), 1);
    let _g = m.try_lock().unwrap();
    assert_eq!(m.try_lock().unwrap_err().to_string(), "lock is held or waited for");
}

#[test]
fn mutex_cancelled_waiters_leave_the_queue_and_pass_the_lock_on() {
    let m = AsyncMutex::new(0);
    let g = m.try_lock().unwrap();
    let mut a = Probe::new(m.lock());
    let mut b = Probe::new(m.lock());
    let mut c = Probe::new(m.lock());
    a.pending();
    b.pending();
    c.pending();
    // `b` is cancelled while merely queued: it just leaves.
    drop(b);
    drop(g);
    assert!(a.woken() && !c.woken());
    // `a` is cancelled after being handed the lock, before polling: the lock goes to `c`.
    drop(a);
    assert!(c.woken());
    *c.ready() += 1;
    // A future dropped after one poll with `now_or_never` leaves no trace either.
    let g = m.try_lock().unwrap();
    assert!(m.lock().now_or_never().is_none());
    drop(g);
    assert_eq!(*m.lock().now_or_never().unwrap(), 1);
}

#[test]
fn mutex_guard_works_across_threads_with_block_on() {
    let m = Arc::new(AsyncMutex::new(String::new()));
    let g = block_on(m.lock());
    let m2 = m.clone();
    let t = thread::spawn(move || block_on(async { m2.lock().await.push('b') }));
    thread::sleep(std::time::Duration::from_millis(20));
    drop(g); // Wakes the thread blocked in `block_on`.
    t.join().unwrap();
    assert_eq!(Arc::try_unwrap(m).unwrap().into_inner(), "b");
}

// --- AsyncRwLock --------------------------------------------------------

#[test]
fn rwlock_readers_share_and_a_queued_writer_blocks_later_readers() {
    let l = AsyncRwLock::new(0);
    let r1 = l.try_read().unwrap();
    let r2 = block_on(l.read());
    assert!(l.try_write().is_err());
    let mut w = Probe::new(l.write());
    w.pending();
    // A reader arriving after the writer queues behind it (no writer starvation).
    assert!(l.try_read().is_err());
    let mut r3 = Probe::new(l.read());
    r3.pending();
    drop(r1);
    assert!(!w.woken());
    drop(r2);
    assert!(w.woken() && !r3.woken());
    r3.pending();
    let mut g = w.ready();
    *g = 7;
    drop(g);
    assert!(r3.woken());
    assert_eq!(*r3.ready(), 7);
    assert_eq!(*l.try_write().unwrap(), 7);
}

#[test]
fn rwlock_cancelled_writer_lets_queued_readers_in() {
    let l = AsyncRwLock::new(());
    let r = l.try_read().unwrap();
    let mut w = Probe::new(l.write());
    let mut r2 = Probe::new(l.read());
    w.pending();
    r2.pending();
    // The writer holds a partial grant (all permits but the one `r` holds); cancelling returns it.
    drop(w);
    assert!(r2.woken());
    let g2 = r2.ready();
    drop((r, g2));
    assert!(l.try_write().is_ok());
}

struct Pair {
    lock: AsyncRwLock<(u64, u64)>,
}

#[test]
fn rwlock_excludes_writers_under_contention() {
    let p = Arc::new(Pair { lock: AsyncRwLock::new((0, 0)) });
    contend(p.clone(), 8, 300, |p, i| {
        async move {
            if i % 2 == 0 {
                let mut g = p.lock.write().await;
                g.0 += 1;
                thread::yield_now();
                g.1 += 1;
            } else {
                let g = p.lock.read().await;
                assert_eq!(g.0, g.1, "a reader saw a half-done write");
            }
        }
        .boxed()
    });
    assert_eq!(*p.lock.try_read().unwrap(), (4 * 300, 4 * 300));
}

// --- Semaphore ----------------------------------------------------------

#[test]
fn semaphore_counts_permits() {
    let s = Semaphore::new(3);
    let p = block_on(s.acquire_many(2)).unwrap();
    assert_eq!((p.num_permits(), s.available_permits()), (2, 1));
    assert_eq!(s.try_acquire_many(2).unwrap_err(), TryAcquireError::NoPermits);
    let one = s.try_acquire().unwrap();
    assert_eq!(s.available_permits(), 0);
    drop(p);
    assert_eq!(s.available_permits(), 2);
    one.forget();
    assert_eq!(s.available_permits(), 2);
    s.add_permits(3);
    assert_eq!(s.available_permits(), 5);
    assert_eq!(s.try_acquire_many(5).unwrap().num_permits(), 5);
    assert_eq!(s.available_permits(), 5);
}

#[test]
fn semaphore_is_fifo_and_a_large_request_is_not_overtaken() {
    let s = Semaphore::new(0);
    let mut big = Probe::new(s.acquire_many(2));
    let mut small = Probe::new(s.acquire());
    big.pending();
    small.pending();
    s.add_permits(1);
    // The permit goes to the head (partially); the small request must not overtake it.
    assert!(!big.woken() && !small.woken());
    assert_eq!(s.available_permits(), 0);
    assert_eq!(s.try_acquire().unwrap_err(), TryAcquireError::NoPermits);
    small.pending();
    s.add_permits(1);
    assert!(big.woken() && !small.woken());
    let p = big.ready().unwrap();
    assert_eq!(p.num_permits(), 2);
    s.add_permits(1);
    assert!(small.woken());
    drop(small.ready().unwrap());
    drop(p);
    assert_eq!(s.available_permits(), 3);
}

#[test]
fn semaphore_cancelled_acquire_passes_on_its_partial_grant() {
    let s = Semaphore::new(1);
    let mut big = Probe::new(s.acquire_many(3));
    let mut a = Probe::new(s.acquire());
    let mut b = Probe::new(s.acquire());
    big.pending(); // Takes the 1 free permit as a partial grant.
    a.pending();
    b.pending();
    assert_eq!(s.available_permits(), 0);
    drop(big);
    assert!(a.woken() && !b.woken());
    let pa = a.ready().unwrap();
    // `a` is served; a granted-but-unpolled `b` dropped returns its permit to the pool.
    drop(pa);
    assert!(b.woken());
    drop(b);
    assert_eq!(s.available_permits(), 1);
    assert!(s.acquire().now_or_never().is_some());
    assert_eq!(s.available_permits(), 1);
}

#[test]
fn semaphore_close_fails_waiters_and_later_acquires() {
    let s = Semaphore::new(2);
    let held = s.try_acquire_many(2).unwrap();
    let mut w = Probe::new(s.acquire());
    w.pending();
    assert!(!s.is_closed());
    s.close();
    assert!(s.is_closed() && w.woken());
    assert!(w.ready().is_err());
    assert_eq!(s.try_acquire().unwrap_err(), TryAcquireError::Closed);
    assert_eq!(block_on(s.acquire()).unwrap_err().to_string(), "semaphore closed");
    drop(held); // Held permits can still be returned.
    assert_eq!(s.available_permits(), 2);
    assert_eq!(s.try_acquire().unwrap_err(), TryAcquireError::Closed);
}

struct Limited {
    sem: Semaphore,
    inside: AtomicUsize,
    max: AtomicUsize,
    done: AtomicUsize,
}

#[test]
fn semaphore_limits_concurrency_under_contention() {
    let l = Arc::new(Limited { sem: Semaphore::new(3), inside: 0.into(), max: 0.into(), done: 0.into() });
    contend(l.clone(), 8, 300, |l, _| {
        async move {
            let _p = l.sem.acquire().await.unwrap();
            let now = l.inside.fetch_add(1, SeqCst) + 1;
            l.max.fetch_max(now, SeqCst);
            thread::yield_now();
            l.inside.fetch_sub(1, SeqCst);
            l.done.fetch_add(1, SeqCst);
        }
        .boxed()
    });
    assert!(l.max.load(SeqCst) <= 3);
    assert_eq!((l.done.load(SeqCst), l.sem.available_permits()), (8 * 300, 3));
}

// --- Notify -------------------------------------------------------------

#[test]
fn notify_one_before_waiting_stores_one_permit() {
    let n = Notify::new();
    n.notify_one();
    n.notify_one(); // Still one permit.
    assert_eq!(n.notified().now_or_never(), Some(()));
    let mut w = Probe::new(n.notified());
    w.pending();
    n.notify_one();
    assert!(w.woken());
    w.ready();
    // The permit was consumed by the waiter, not stored.
    assert_eq!(n.notified().now_or_never(), None);
}

#[test]
fn notify_one_wakes_waiters_in_fifo_order() {
    let n = Notify::new();
    let mut a = Probe::new(n.notified());
    let mut b = Probe::new(n.notified());
    a.pending();
    b.pending();
    n.notify_one();
    assert!(a.woken() && !b.woken());
    b.pending();
    a.ready();
    n.notify_one();
    b.ready();
}

#[test]
fn notify_waiters_wakes_only_current_waiters_and_stores_nothing() {
    let n = Notify::new();
    let mut polled = Probe::new(n.notified());
    polled.pending();
    let mut unpolled = Probe::new(n.notified()); // Created before the call: it counts.
    n.notify_waiters();
    assert!(polled.woken());
    polled.ready();
    unpolled.ready();
    // Created after the call: no permit was stored.
    assert_eq!(n.notified().now_or_never(), None);
}

#[test]
fn notify_cancelled_waiter_passes_its_notification_on() {
    let n = Notify::new();
    let mut a = Probe::new(n.notified());
    let mut b = Probe::new(n.notified());
    a.pending();
    b.pending();
    n.notify_one();
    drop(a); // Picked by `notify_one` but never saw it.
    assert!(b.woken());
    b.ready();
    // With nobody else queued, a dropped pick is stored back as the permit.
    let mut c = Probe::new(n.notified());
    c.pending();
    n.notify_one();
    drop(c);
    assert_eq!(n.notified().now_or_never(), Some(()));
}

#[test]
fn notify_wakes_a_thread_blocked_in_block_on() {
    let n = Arc::new(Notify::new());
    let ready = Arc::new(AtomicBool::new(false));
    let (n2, ready2) = (n.clone(), ready.clone());
    let t = thread::spawn(move || {
        block_on(n2.notified());
        ready2.load(SeqCst)
    });
    ready.store(true, SeqCst);
    n.notify_one();
    assert!(t.join().unwrap());
}

// --- oneshot ------------------------------------------------------------

#[test]
fn oneshot_sends_one_value_across_threads() {
    let (tx, rx) = oneshot::channel();
    let t = thread::spawn(move || tx.send(5).unwrap());
    assert_eq!(block_on(rx), Ok(5));
    t.join().unwrap();
}

#[test]
fn oneshot_reports_a_dropped_end() {
    let (tx, mut rx) = oneshot::channel::<u8>();
    assert_eq!(rx.try_recv(), Err(oneshot::TryRecvError::Empty));
    let mut recv = Probe::new(&mut rx);
    recv.pending();
    drop(tx);
    assert!(recv.woken());
    assert_eq!(recv.ready().unwrap_err().to_string(), "sender dropped without sending");
    drop(recv);
    assert_eq!(rx.try_recv(), Err(oneshot::TryRecvError::Closed));

    let (tx, rx) = oneshot::channel();
    assert!(!tx.is_closed());
    drop(rx);
    assert!(tx.is_closed());
    assert_eq!(tx.send("back"), Err("back"));

    let (mut tx, mut rx) = oneshot::channel::<u8>();
    let mut closed = Probe::new(tx.closed());
    closed.pending();
    rx.close();
    assert!(closed.woken());
    closed.ready();
    drop(closed);
    assert_eq!(tx.send(1), Err(1));
}

// --- async_mpsc ---------------------------------------------------------

#[test]
fn mpsc_bounded_send_waits_while_full() {
    let (tx, mut rx) = async_mpsc::channel(2);
    tx.try_send(1).unwrap();
    block_on(tx.send(2)).unwrap();
    assert_eq!(tx.capacity(), 0);
    assert!(matches!(tx.try_send(9), Err(async_mpsc::TrySendError::Full(9))));
    let mut s3 = Probe::new(tx.send(3));
    let mut s4 = Probe::new(tx.send(4));
    s3.pending();
    s4.pending();
    assert_eq!(rx.try_recv(), Ok(1));
    // Room for one: the first waiting sender gets it.
    assert!(s3.woken() && !s4.woken());
    s4.pending();
    s3.ready().unwrap();
    assert_eq!(block_on(rx.recv()), Some(2));
    s4.ready().unwrap();
    assert_eq!((rx.try_recv(), rx.try_recv()), (Ok(3), Ok(4)));
    assert_eq!(rx.try_recv(), Err(async_mpsc::TryRecvError::Empty));
    assert_eq!(tx.capacity(), 2);
}

#[test]
fn mpsc_cancelled_send_passes_its_slot_on() {
    let (tx, mut rx) = async_mpsc::channel(1);
    tx.try_send(0).unwrap();
    let mut a = Probe::new(tx.send(1));
    let mut b = Probe::new(tx.send(2));
    a.pending();
    b.pending();
    assert_eq!(rx.try_recv(), Ok(0));
    drop(a); // Was handed the slot, never used it.
    assert!(b.woken());
    b.ready().unwrap();
    assert_eq!(rx.try_recv(), Ok(2));
}

#[test]
fn mpsc_closes_when_the_last_sender_drops() {
    let (tx, mut rx) = async_mpsc::channel(4);
    let tx2 = tx.clone();
    tx.try_send(1).unwrap();
    drop(tx);
    let mut recv = Probe::new(async move {
        let mut got = Vec::new();
        while let Some(v) = rx.recv().await {
            got.push(v);
        }
        got
    });
    recv.pending();
    tx2.try_send(2).unwrap();
    assert!(recv.woken());
    recv.pending();
    drop(tx2);
    assert!(recv.woken());
    assert_eq!(recv.ready(), [1, 2]);
}

#[test]
fn mpsc_closing_the_receiver_fails_senders_but_keeps_queued_messages() {
    let (tx, mut rx) = async_mpsc::channel(1);
    tx.try_send(1).unwrap();
    let mut waiting = Probe::new(tx.send(2));
    waiting.pending();
    assert!(!tx.is_closed());
    rx.close();
    assert!(tx.is_closed() && waiting.woken());
    assert_eq!(waiting.ready().unwrap_err().0, 2);
    assert!(matches!(tx.try_send(3), Err(async_mpsc::TrySendError::Closed(3))));
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(rx.try_recv(), Err(async_mpsc::TryRecvError::Disconnected));

    let (utx, urx) = async_mpsc::unbounded_channel::<u8>();
    drop(urx);
    assert!(utx.is_closed());
    assert_eq!(utx.send(7).unwrap_err().0, 7);
}

#[test]
fn mpsc_unbounded_keeps_fifo_order() {
    let (tx, mut rx) = async_mpsc::unbounded_channel();
    for i in 0..1000 {
        tx.send(i).unwrap();
    }
    drop(tx);
    let got = block_on(async {
        let mut got = Vec::new();
        while let Some(v) = rx.recv().await {
            got.push(v);
        }
        got
    });
    assert_eq!(got, (0..1000).collect::<Vec<_>>());
}

#[test]
fn mpsc_bounded_carries_every_message_from_several_threads() {
    let (tx, mut rx) = async_mpsc::channel::<(usize, usize)>(4);
    let producers: Vec<_> = (0..4)
        .map(|p| {
            let tx = tx.clone();
            thread::spawn(move || {
                for i in 0..500 {
                    block_on(tx.send((p, i))).unwrap();
                }
            })
        })
        .collect();
    drop(tx);
    let mut next = [0; 4];
    block_on(async {
        while let Some((p, i)) = rx.recv().await {
            assert_eq!(i, next[p], "messages of one producer arrive in order");
            next[p] += 1;
        }
    });
    for p in producers {
        p.join().unwrap();
    }
    assert_eq!(next, [500; 4]);
}

// --- watch --------------------------------------------------------------

#[test]
fn watch_changed_and_borrow() {
    let (tx, mut rx) = watch::channel("a");
    assert_eq!(*rx.borrow(), "a");
    assert_eq!(rx.has_changed(), Ok(false));
    let mut rx2 = rx.clone();
    assert_eq!(tx.receiver_count(), 2);
    {
        let mut changed = Probe::new(rx.changed());
        changed.pending();
        tx.send("b").unwrap();
        assert!(changed.woken());
        changed.ready().unwrap();
    }
    assert_eq!((*rx.borrow(), *tx.borrow()), ("b", "b"));
    assert_eq!(rx.changed().now_or_never(), None, "b was marked seen");
    // Two sends between looks: one change, the latest value.
    tx.send("c").unwrap();
    tx.send("d").unwrap();
    assert_eq!(rx2.has_changed(), Ok(true));
    assert_eq!(*rx2.borrow_and_update(), "d");
    assert_eq!(rx2.has_changed(), Ok(false));
    assert_eq!(block_on(rx.changed()), Ok(()));
    assert_eq!(*rx.borrow(), "d");
}

#[test]
fn watch_reports_a_dropped_end() {
    let (tx, mut rx) = watch::channel(0);
    let late = tx.subscribe();
    assert_eq!(tx.send_replace(1), 0);
    drop(late);
    tx.send(2).unwrap();
    {
        Probe::new(rx.changed()).ready().unwrap();
        let mut changed = Probe::new(rx.changed());
        changed.pending();
        drop(tx);
        assert!(changed.woken());
        assert_eq!(changed.ready().unwrap_err().to_string(), "sender dropped");
    }
    assert_eq!(*rx.borrow(), 2);

    let (tx, rx) = watch::channel(0);
    drop(rx);
    assert!(tx.is_closed());
    assert_eq!(tx.send(5).unwrap_err().0, 5);
}

#[test]
fn watch_send_modify_publishes_and_send_if_modified_may_not() {
    let (tx, mut rx) = watch::channel(vec![1]);
    tx.send_modify(|v| v.push(2));
    assert_eq!(rx.has_changed(), Ok(true));
    assert_eq!(*rx.borrow_and_update(), [1, 2]);
    assert!(!tx.send_if_modified(|v| v.len() > 5));
    assert_eq!(rx.has_changed(), Ok(false));
    let mut changed = Probe::new(rx.changed());
    changed.pending();
    assert!(tx.send_if_modified(|v| {
        v.clear();
        true
    }));
    assert!(changed.woken());
    changed.ready().unwrap();
    drop(changed);
    assert!(rx.borrow().is_empty());
}

#[test]
fn watch_an_unseen_value_is_reported_before_the_sender_drop() {
    let (tx, mut rx) = watch::channel(0);
    tx.send(1).unwrap();
    drop(tx);
    assert_eq!(block_on(rx.changed()), Ok(()));
    assert!(block_on(rx.changed()).is_err());
}

// --- broadcast ----------------------------------------------------------

#[test]
fn broadcast_a_lagging_receiver_is_told_how_many_it_missed() {
    let (tx, mut rx) = broadcast::channel(2);
    let mut late = tx.subscribe();
    for n in 1..=3 {
        assert_eq!(tx.send(n), Ok(2));
    }
    assert_eq!(tx.len(), 2);
    assert_eq!(rx.try_recv(), Err(broadcast::TryRecvError::Lagged(1)));
    assert_eq!(rx.try_recv(), Ok(2));
    assert_eq!(block_on(rx.recv()), Ok(3));
    assert_eq!(rx.try_recv(), Err(broadcast::TryRecvError::Empty));
    assert_eq!(late.len(), 2);
    assert_eq!(block_on(late.recv()), Err(broadcast::RecvError::Lagged(1)));
    drop(tx);
    assert_eq!(block_on(late.recv()), Ok(2));
    assert_eq!(block_on(late.recv()), Ok(3));
    assert_eq!(block_on(late.recv()), Err(broadcast::RecvError::Closed));
}

#[test]
fn broadcast_wakes_every_waiting_receiver_and_a_cancelled_recv_loses_nothing() {
    let (tx, mut a) = broadcast::channel(4);
    let mut b = tx.subscribe();
    let mut c = tx.subscribe();
    {
        let mut cancelled = Probe::new(c.recv());
        cancelled.pending();
    }
    let mut ra = Probe::new(a.recv());
    let mut rb = Probe::new(b.recv());
    ra.pending();
    rb.pending();
    assert_eq!(tx.send("x"), Ok(3));
    assert!(ra.woken() && rb.woken());
    assert_eq!((ra.ready(), rb.ready()), (Ok("x"), Ok("x")));
    assert_eq!(c.try_recv(), Ok("x"));
    drop(c);
    assert_eq!(tx.receiver_count(), 2);

    let (tx, rx) = broadcast::channel::<u8>(1);
    drop(rx);
    assert_eq!(tx.send(5).unwrap_err().0, 5);
}

#[test]
fn broadcast_every_receiver_gets_every_message_across_threads() {
    let (tx, rx) = broadcast::channel::<u32>(1024);
    let receivers: Vec<_> = (0..2)
        .map(|_| tx.subscribe())
        .chain([rx])
        .map(|mut rx| {
            thread::spawn(move || {
                let mut got = Vec::new();
                while let Ok(v) = block_on(rx.recv()) {
                    got.push(v);
                }
                got
            })
        })
        .collect();
    for v in 0..500 {
        tx.send(v).unwrap();
    }
    drop(tx);
    for r in receivers {
        assert_eq!(r.join().unwrap(), (0..500).collect::<Vec<_>>());
    }
}

// --- Under exploration ----------------------------------------------------

#[cfg(feature = "sim")]
mod sim {
    use futures::FutureExt;
    use samaritan::sync::atomic::{AtomicUsize, Ordering};
    use samaritan::sync::{async_mpsc, Arc, AsyncMutex, Notify, Semaphore};
    use samaritan::{thread, Builder, Outcome, SearchStrategy};

    struct Shared {
        n: AtomicUsize,
        lock: AsyncMutex<u32>,
        sem: Semaphore,
        notify: Notify,
        tx: async_mpsc::UnboundedSender<u32>,
    }

    /// One atomic increment (a scheduling point), then async operations that complete at once.
    fn step(s: &Shared, with_async: bool) {
        s.n.fetch_add(1, Ordering::SeqCst);
        if with_async {
            *s.lock.lock().now_or_never().unwrap() += 1;
            drop(s.sem.try_acquire().unwrap());
            s.notify.notify_one();
            s.tx.send(1).unwrap();
        }
    }

    #[track_caller]
    fn check_dfs(with_async: bool) -> u64 {
        let report = explore(with_async);
        assert!(matches!(report.outcome, Outcome::Pass), "{report}");
        report.executions
    }

    /// Explores two threads each doing `step` with DFS.
    fn explore(with_async: bool) -> samaritan::Report {
        Builder::new()
            .strategy(SearchStrategy::Dfs)
            .explore(move || {
                let (tx, mut rx) = async_mpsc::unbounded_channel();
                let s = Arc::new(Shared {
                    n: AtomicUsize::new(0),
                    lock: AsyncMutex::new(0),
                    sem: Semaphore::new(1),
                    notify: Notify::new(),
                    tx,
                });
                let s2 = s.clone();
                let t = thread::spawn(move || step(&s2, with_async));
                step(&s, with_async);
                t.join().unwrap();
                assert_eq!(s.n.load(Ordering::SeqCst), 2);
                if with_async {
                    assert_eq!(*s.lock.try_lock().unwrap(), 2);
                    assert_eq!(s.notify.notified().now_or_never(), Some(()));
                    assert_eq!((rx.try_recv(), rx.try_recv()), (Ok(1), Ok(1)));
                }
            })
            .unwrap()
    }

    #[test]
    fn async_primitives_are_scheduling_points() {
        // main S Am J, t1 At: only Am and At race, in 2 orders.
        assert_eq!(check_dfs(false), 2);
        // Each async operation is a visible step too (tests/async_sync_sim.rs
        // counts them), so the other thread can run inside the async
        // critical section, where `now_or_never` finds the lock held.
        let report = explore(true);
        assert!(matches!(&report.outcome, Outcome::Panic { .. }), "{report}");
    }
}
