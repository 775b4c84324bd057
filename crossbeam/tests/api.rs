//! crossbeam's channel API as its users call it, on real threads:
//! production runs it on crossbeam, `sim` on samaritan's models outside
//! an exploration, and both must agree.

use std::thread;
use std::time::{Duration, Instant};

use samaritan_crossbeam::channel::{
    after, bounded, never, tick, unbounded, RecvError, RecvTimeoutError, SendError, SendTimeoutError, TryRecvError,
    TrySendError,
};
use samaritan_crossbeam::select;
use samaritan_crossbeam::utils::Backoff;

#[test]
fn bounded_and_unbounded_channels_send_receive_and_disconnect() {
    let (tx, rx) = bounded(2);
    tx.send(1).unwrap();
    tx.try_send(2).unwrap();
    assert_eq!(tx.try_send(3), Err(TrySendError::Full(3)));
    assert_eq!((tx.len(), tx.capacity(), tx.is_full(), rx.is_empty()), (2, Some(2), true, false));
    assert_eq!(tx.send_timeout(3, Duration::from_millis(5)), Err(SendTimeoutError::Timeout(3)));
    let rx2 = rx.clone();
    assert_eq!((rx.recv(), rx2.try_recv()), (Ok(1), Ok(2)));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    assert_eq!(rx.recv_timeout(Duration::from_millis(5)), Err(RecvTimeoutError::Timeout));
    drop(tx);
    assert_eq!((rx.recv(), rx2.try_recv()), (Err(RecvError), Err(TryRecvError::Disconnected)));

    let (tx, rx) = unbounded();
    let senders: Vec<_> = (0..3)
        .map(|i| {
            let tx = tx.clone();
            thread::spawn(move || tx.send(i).unwrap())
        })
        .collect();
    drop(tx);
    for s in senders {
        s.join().unwrap();
    }
    let mut got: Vec<i32> = rx.iter().collect();
    got.sort();
    assert_eq!((got, rx.capacity()), (vec![0, 1, 2], None));
    let (tx, rx) = unbounded::<u8>();
    drop(rx);
    assert_eq!((tx.send(1), tx.try_send(2)), (Err(SendError(1)), Err(TrySendError::Disconnected(2))));
}

#[test]
fn a_zero_capacity_channel_is_a_rendezvous() {
    let (tx, rx) = bounded(0);
    assert_eq!(tx.try_send(1), Err(TrySendError::Full(1)));
    assert_eq!((tx.len(), tx.capacity(), tx.is_full()), (0, Some(0), true));
    let t = thread::spawn(move || {
        tx.send(5).unwrap();
        tx.send_timeout(6, Duration::from_millis(5))
    });
    assert_eq!(rx.recv(), Ok(5));
    // Nobody receives the second within its time.
    assert_eq!(t.join().unwrap(), Err(SendTimeoutError::Timeout(6)));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
}

#[test]
fn select_takes_a_ready_operation_or_the_default() {
    let (tx1, rx1) = unbounded();
    let (tx2, rx2) = unbounded::<i32>();
    tx1.send(10).unwrap();
    let got = select! {
        recv(rx1) -> msg => msg.unwrap(),
        recv(rx2) -> msg => msg.unwrap() * 100,
    };
    assert_eq!(got, 10);
    let waited = select! {
        recv(rx1) -> _ => "rx1",
        recv(rx2) -> _ => "rx2",
        default(Duration::from_millis(5)) => "timeout",
    };
    assert_eq!(waited, "timeout");
    let mut sent = 0;
    for _ in 0..2 {
        select! {
            send(tx2, 7) -> res => { res.unwrap(); sent += 1 }
            default => unreachable!(),
        }
    }
    assert_eq!((sent, rx2.len()), (2, 2));
    drop(tx1);
    // A disconnected channel is ready: its receive fails.
    select! {
        recv(rx1) -> msg => assert_eq!(msg, Err(RecvError)),
    }
    // `break` in an arm leaves the user's loop.
    let mut rounds = 0;
    loop {
        rounds += 1;
        select! {
            recv(rx2) -> _ => continue,
            default => break,
        }
    }
    assert_eq!(rounds, 3);
}

#[test]
fn time_channels_deliver_on_time_and_never_never_does() {
    let start = Instant::now();
    let timer = after(Duration::from_millis(5));
    assert!(timer.recv().unwrap() >= start + Duration::from_millis(5));
    assert_eq!(timer.recv_timeout(Duration::from_millis(5)), Err(RecvTimeoutError::Timeout));
    let ticker = tick(Duration::from_millis(2));
    let (a, b) = (ticker.recv().unwrap(), ticker.recv().unwrap());
    assert!(b > a);
    let quiet = never::<u8>();
    assert_eq!(quiet.try_recv(), Err(TryRecvError::Empty));
    assert_eq!(quiet.recv_timeout(Duration::from_millis(1)), Err(RecvTimeoutError::Timeout));
    let fired = select! {
        recv(quiet) -> _ => false,
        recv(after(Duration::from_millis(1))) -> _ => true,
    };
    assert!(fired);
}

#[test]
fn backoff_completes_after_its_steps() {
    let backoff = Backoff::new();
    let mut steps = 0;
    while !backoff.is_completed() {
        backoff.snooze();
        steps += 1;
    }
    assert!(steps > 0);
    backoff.reset();
    backoff.spin();
    assert!(!backoff.is_completed());
}

#[test]
fn queues_and_atomic_cells_do_what_crossbeam_s_do() {
    use samaritan_crossbeam::atomic::AtomicCell;
    use samaritan_crossbeam::queue::{ArrayQueue, SegQueue};

    let q = ArrayQueue::new(2);
    assert_eq!((q.push(1), q.push(2), q.push(3)), (Ok(()), Ok(()), Err(3)));
    assert_eq!((q.len(), q.capacity(), q.is_full(), q.is_empty()), (2, 2, true, false));
    assert_eq!(q.force_push(4), Some(1));
    assert_eq!((q.pop(), q.pop(), q.pop()), (Some(2), Some(4), None));
    let s = SegQueue::new();
    let pushers: Vec<_> = (0..3)
        .map(|i| {
            let s = &s;
            move || s.push(i)
        })
        .collect();
    thread::scope(|scope| {
        for p in pushers {
            scope.spawn(p);
        }
    });
    let mut got: Vec<i32> = std::iter::from_fn(|| s.pop()).collect();
    got.sort();
    assert_eq!((got, s.is_empty()), (vec![0, 1, 2], true));

    let cell = AtomicCell::new(10u64);
    assert_eq!((cell.fetch_add(5), cell.fetch_sub(1), cell.load()), (10, 15, 14));
    assert_eq!((cell.fetch_max(20), cell.fetch_min(3), cell.load()), (14, 20, 3));
    assert_eq!((cell.fetch_or(4), cell.fetch_and(6), cell.fetch_xor(1), cell.load()), (3, 7, 6, 7));
    assert_eq!((cell.compare_exchange(7, 8), cell.compare_exchange(7, 9)), (Ok(7), Err(8)));
    assert_eq!(cell.fetch_update(|v| (v < 10).then_some(v * 2)), Ok(8));
    assert_eq!(cell.fetch_update(|_| None), Err(16));
    assert_eq!((cell.swap(1), cell.take(), cell.into_inner()), (16, 1, 0));
    let flag = AtomicCell::new(false);
    assert_eq!(
        (flag.fetch_or(true), flag.fetch_and(false), flag.fetch_xor(true), flag.load()),
        (false, true, false, true)
    );
}

#[test]
fn scoped_threads_borrow_the_stack_and_report_panics() {
    let mut counts = vec![0; 3];
    let total = samaritan_crossbeam::scope(|s| {
        for c in counts.iter_mut() {
            s.spawn(move |s| {
                *c += 1;
                // A thread of the scope may spawn more.
                s.spawn(|_| 1).join().unwrap()
            });
        }
        let named = s.builder().name("named".to_string()).spawn(|_| thread_name()).unwrap();
        named.join().unwrap()
    })
    .unwrap();
    assert_eq!((counts, total.as_deref()), (vec![1, 1, 1], Some("named")));
    let failed = samaritan_crossbeam::scope(|s| {
        s.spawn(|_| panic!("in a scoped thread"));
    });
    assert!(failed.is_err());
}

/// The current thread's name (the drop-in's threads under `sim`).
fn thread_name() -> Option<String> {
    #[cfg(feature = "sim")]
    return samaritan::thread::current().name().map(str::to_string);
    #[cfg(not(feature = "sim"))]
    return thread::current().name().map(str::to_string);
}
