//! The programs the tests run: tokio code, nothing of samaritan's.

use std::sync::Arc;

use tokio::sync::Mutex;

/// Withdraws `amount` if the balance covers it, checking and withdrawing
/// under two lock holds: another withdrawal can come between them.
#[cfg_attr(not(feature = "sim"), allow(dead_code))]
pub(crate) async fn withdraw_racy(balance: Arc<Mutex<i64>>, amount: i64) {
    let enough = *balance.lock().await >= amount;
    if enough {
        *balance.lock().await -= amount;
    }
}

/// Withdraws `amount` if the balance covers it, under one lock hold.
pub(crate) async fn withdraw(balance: Arc<Mutex<i64>>, amount: i64) {
    let mut b = balance.lock().await;
    if *b >= amount {
        *b -= amount;
    }
}

/// Two tasks withdraw 80 each from 100; the balance must not go negative.
pub(crate) async fn two_withdrawals(racy: bool) {
    let balance = Arc::new(Mutex::new(100));
    let tasks: Vec<_> = (0..2)
        .map(|_| {
            let balance = balance.clone();
            tokio::spawn(async move {
                if racy {
                    withdraw_racy(balance, 80).await
                } else {
                    withdraw(balance, 80).await
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let left = *balance.lock().await;
    assert!(left >= 0, "overdrawn: {left}");
    assert_eq!(left, 20);
}

/// Two channels with a message each, and a `select!` that takes one:
/// which one depends on the branch polled first.
pub(crate) async fn select_one(biased: bool) -> &'static str {
    let (tx_a, mut rx_a) = tokio::sync::mpsc::channel(1);
    let (tx_b, mut rx_b) = tokio::sync::mpsc::channel(1);
    tx_a.send("a").await.unwrap();
    tx_b.send("b").await.unwrap();
    if biased {
        tokio::select! {
            biased;
            Some(v) = rx_a.recv() => v,
            Some(v) = rx_b.recv() => v,
        }
    } else {
        tokio::select! {
            Some(v) = rx_a.recv() => v,
            Some(v) = rx_b.recv() => v,
        }
    }
}

/// A task sets a flag and wakes the waiters; the main task waits unless
/// the flag is set. `notify_waiters` wakes only the `notified()` futures
/// that exist at that moment; with `lost`, the main task makes its future
/// after checking the flag, and a notification in between is lost.
/// Without it, the future is made first, as tokio's documentation says.
#[cfg_attr(not(feature = "sim"), allow(dead_code))]
pub(crate) async fn flag_then_notify_waiters(lost: bool) {
    use std::sync::atomic::{AtomicBool, Ordering};

    let ready = Arc::new(AtomicBool::new(false));
    let notify = Arc::new(tokio::sync::Notify::new());
    let (r, n) = (ready.clone(), notify.clone());
    let setter = tokio::spawn(async move {
        r.store(true, Ordering::SeqCst);
        n.notify_waiters();
    });
    let early = if lost { None } else { Some(notify.notified()) };
    if !ready.load(Ordering::SeqCst) {
        match early {
            Some(notified) => notified.await,
            None => notify.notified().await,
        }
    }
    setter.await.unwrap();
}

/// A listener task hears a broadcast; with `late`, it subscribes itself,
/// while the main task sends: a subscription made after the send misses
/// the message. Without it, the main task subscribes for it first.
pub(crate) async fn listener(late: bool) {
    let (tx, _keep) = tokio::sync::broadcast::channel::<&str>(4);
    let early = if late { None } else { Some(tx.subscribe()) };
    let tx2 = tx.clone();
    let listener = tokio::spawn(async move {
        let mut rx = early.unwrap_or_else(|| tx2.subscribe());
        drop(tx2);
        rx.recv().await
    });
    tx.send("hello").unwrap();
    drop(tx);
    let heard = listener.await.unwrap();
    assert!(heard.is_ok(), "the listener subscribed too late: {heard:?}");
}

/// The main task spawns a task and then, in the same poll, sets a flag
/// the task asserts: on a current-thread runtime the task runs only once
/// the main task's poll has returned, so it always sees the flag. Where
/// polls overlap (more than one worker) it may run first.
pub(crate) async fn flag_set_after_spawn() {
    let set = Arc::new(Mutex::new(false));
    let seen = set.clone();
    let task = tokio::spawn(async move { assert!(*seen.lock().await, "the task ran inside the spawner's poll") });
    *set.lock().await = true;
    if let Err(e) = task.await {
        std::panic::resume_unwind(e.into_panic());
    }
}

/// A future that holds a std mutex across a `Sleep`'s poll and lets go
/// before returning, as a rate limiter holds its state's lock while it
/// arms its timer: correct wherever polls do not overlap.
#[cfg_attr(not(feature = "sim"), allow(dead_code))]
struct LockedSleep {
    state: Arc<std::sync::Mutex<u32>>,
    sleep: std::pin::Pin<Box<tokio::time::Sleep>>,
}

impl std::future::Future for LockedSleep {
    type Output = ();

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        let state = self.state.clone();
        let mut polls = state.lock().unwrap();
        *polls += 1;
        let ready = self.sleep.as_mut().poll(cx);
        drop(polls);
        ready
    }
}

/// Two tasks each wait on a [`LockedSleep`] over one mutex.
#[cfg_attr(not(feature = "sim"), allow(dead_code))]
pub(crate) async fn sleeps_under_a_std_mutex() {
    let state = Arc::new(std::sync::Mutex::new(0));
    let tasks: Vec<_> = (0..2)
        .map(|i| {
            let sleep = Box::pin(tokio::time::sleep(std::time::Duration::from_millis(10 * (i + 1))));
            tokio::spawn(LockedSleep { state: state.clone(), sleep })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert!(*state.lock().unwrap() >= 4);
}

/// A one-shot gate whose waiters' wakers sit in a `std::sync::Mutex`, woken
/// while it is held, as `futures::lock::Mutex`'s unlock wakes its next
/// waiter.
struct StdGate {
    open: std::sync::atomic::AtomicBool,
    waiters: std::sync::Mutex<Vec<std::task::Waker>>,
}

impl StdGate {
    /// Opens the gate and wakes every waiter, the std mutex held.
    fn open(&self) {
        self.open.store(true, std::sync::atomic::Ordering::SeqCst);
        let waiters = self.waiters.lock().unwrap();
        for w in waiters.iter() {
            w.wake_by_ref();
        }
    }

    /// Waits until the gate is open.
    async fn wait(&self) {
        std::future::poll_fn(|cx| {
            let mut waiters = self.waiters.lock().unwrap();
            if self.open.load(std::sync::atomic::Ordering::SeqCst) {
                return std::task::Poll::Ready(());
            }
            waiters.push(cx.waker().clone());
            std::task::Poll::Pending
        })
        .await
    }
}

/// A task waits on a [`StdGate`] that the main task opens, and another
/// takes the gate's std mutex once. Where polls overlap, that task's poll
/// may come while the main task wakes the waiter, the std mutex held.
#[cfg_attr(not(feature = "sim"), allow(dead_code))]
pub(crate) async fn wakes_under_a_std_mutex() {
    let gate = Arc::new(StdGate { open: false.into(), waiters: std::sync::Mutex::new(Vec::new()) });
    let waiter = {
        let gate = gate.clone();
        tokio::spawn(async move { gate.wait().await })
    };
    tokio::task::yield_now().await;
    let other = {
        let gate = gate.clone();
        tokio::spawn(async move { drop(gate.waiters.lock().unwrap()) })
    };
    gate.open();
    waiter.await.unwrap();
    other.await.unwrap();
}

/// A fair semaphore with no permits; a large acquire is made and polled
/// by the main task, `small` tasks queue behind it, and a refill adds
/// `small` permits after 20 ms, which the large acquire at the head of the
/// queue takes. Nothing completes until the `select!`'s 200 ms sleep
/// drops the large acquire; its permits then go to the small ones at once.
/// On a current-thread runtime the tasks run only after the main task's
/// first poll, so the large acquire is always first in line; where they
/// can run inside that poll, one queues first and wins.
pub(crate) async fn small_acquires_behind_a_large_one(small: u32) {
    use std::time::Duration;
    use tokio::sync::Semaphore;
    use tokio::time::{sleep, Instant};

    let sem = Arc::new(Semaphore::new(0));
    let mut large = std::pin::pin!(Some(sem.clone().acquire_many_owned(small * 10)));
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..small {
        let sem = sem.clone();
        set.spawn(async move { sem.acquire().await.unwrap().forget() });
    }
    let refill = sem.clone();
    let refiller = tokio::spawn(async move {
        sleep(Duration::from_millis(20)).await;
        refill.add_permits(small as usize);
    });
    tokio::select! {
        _ = sleep(Duration::from_millis(200)) => large.set(None),
        _ = Option::as_pin_mut(large.as_mut()).unwrap() => panic!("the large acquire completed"),
        _ = set.join_next() => panic!("a small acquire got ahead of the large one"),
    }
    let start = Instant::now();
    let mut released = 0;
    while set.join_next().await.is_some() {
        released += 1;
    }
    assert!(start.elapsed() <= Duration::from_millis(10));
    assert_eq!(released, small);
    refiller.await.unwrap();
}

/// The main task awaits a reply that a `std::thread` (outside the model)
/// sends after `after`, real time; with `send` false the thread forgets
/// the sender instead, so that nothing ever wakes the main task.
#[cfg_attr(not(feature = "sim"), allow(dead_code))]
pub(crate) async fn reply_from_a_std_thread(after: std::time::Duration, send: bool) {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let thread = std::thread::spawn(move || {
        std::thread::sleep(after);
        if send {
            tx.send(5).unwrap();
        } else {
            std::mem::forget(tx);
        }
    });
    assert_eq!(rx.await, Ok(5));
    thread.join().unwrap();
}

/// Two tasks each reserve a slot of a one-slot channel and then send into
/// it; the main task receives both. With `drop_one`, the second task lets
/// its permit go without sending, and the main task waits for a message
/// that never comes.
#[cfg_attr(not(feature = "sim"), allow(dead_code))]
pub(crate) async fn reserved_sends(drop_one: bool) {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<u32>(1);
    let tasks: Vec<_> = (1..=2)
        .map(|n| {
            let tx = tx.clone();
            tokio::spawn(async move {
                let permit = tx.reserve().await.unwrap();
                if drop_one && n == 2 {
                    drop(permit);
                } else {
                    permit.send(n);
                }
            })
        })
        .collect();
    drop(tx);
    let mut sum = 0;
    for _ in 0..2 {
        sum += rx.recv().await.expect("a reserved message was never sent");
    }
    assert_eq!(sum, 3);
    for t in tasks {
        t.await.unwrap();
    }
}

/// The main task spawns two tasks and yields: on a current-thread runtime
/// a task that yields goes behind every task already waiting, so both
/// have run when it resumes (a pool's tests check its queue this way).
pub(crate) async fn yield_lets_waiting_tasks_run() {
    let log = Arc::new(std::sync::Mutex::new(Vec::new()));
    let tasks: Vec<_> = (1..=2)
        .map(|i| {
            let log = log.clone();
            tokio::spawn(async move { log.lock().unwrap().push(i) })
        })
        .collect();
    tokio::task::yield_now().await;
    assert_eq!(log.lock().unwrap().len(), 2, "the yielding task resumed before the waiting ones ran");
    for t in tasks {
        t.await.unwrap();
    }
}

/// A task spawns a refill and only then wakes the main task, through a
/// oneshot: tokio's current-thread scheduler polls woken tasks in wake
/// order and the test's own future after them, so the refill has run by
/// the time the main task looks (a pool's test checks its idle count
/// this way after its getters signal).
pub(crate) async fn refill_runs_before_the_woken_main_task() {
    let stock = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (tx, rx) = tokio::sync::oneshot::channel();
    let getter = {
        let stock = stock.clone();
        tokio::spawn(async move {
            tokio::spawn(async move { stock.fetch_add(1, std::sync::atomic::Ordering::SeqCst) });
            tx.send(()).unwrap();
        })
    };
    rx.await.unwrap();
    assert_eq!(stock.load(std::sync::atomic::Ordering::SeqCst), 1, "the main task ran before the refill");
    getter.await.unwrap();
}

/// A retry loop that spawns a hook for each failed attempt and sleeps
/// zero between attempts: tokio's timer ends the sleep at its next
/// millisecond tick, so the hooks run during the loop (a retry crate's
/// test counts them this way).
pub(crate) async fn zero_sleeps_let_spawned_hooks_run() {
    let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let start = tokio::time::Instant::now();
    for _ in 0..3 {
        let ran = ran.clone();
        tokio::spawn(async move { ran.fetch_add(1, std::sync::atomic::Ordering::SeqCst) });
        tokio::time::sleep(std::time::Duration::ZERO).await;
    }
    assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 3, "a zero sleep did not let the spawned hooks run");
    assert!(start.elapsed() >= std::time::Duration::from_millis(1), "three zero sleeps took no time");
}

/// A task that wakes itself in its last poll and finishes in it (a retry
/// loop whose timer fired during the poll, then gave up), while the main
/// task sleeps: the main task's timer still lets it run.
pub(crate) async fn a_task_that_wakes_itself_and_finishes() {
    let task = tokio::spawn(std::future::poll_fn(|cx| {
        cx.waker().wake_by_ref();
        std::task::Poll::Ready(7)
    }));
    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    assert_eq!(task.await.unwrap(), 7);
}

/// Tasks still pending when the runtime shuts down: each is aborted, and
/// its abort is a wake, in the same order in every execution.
pub(crate) async fn tasks_left_pending_at_shutdown() {
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
    for _ in 0..4 {
        let flag = flag.clone();
        tokio::spawn(async move {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
            std::future::pending::<()>().await
        });
    }
    tokio::task::yield_now().await;
    let _ = flag.load(std::sync::atomic::Ordering::SeqCst);
}

/// Main awaits a task that awaits a message from a sender main keeps: a
/// deadlock.
#[cfg_attr(not(feature = "sim"), allow(dead_code))]
pub(crate) async fn receiver_awaited_while_its_sender_lives() {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<u8>(1);
    let receiver = tokio::spawn(async move { rx.recv().await });
    receiver.await.unwrap();
    drop(tx);
}
