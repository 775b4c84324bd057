//! The mapped API, as `#[tokio::test]`s: on tokio without `sim`,
//! explored (every schedule, each asserting the same values) under it.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, oneshot, watch, Notify, RwLock, Semaphore};
use tokio::task::JoinSet;
use tokio::time::{self, Instant};

/// Asserts that `elapsed` is `expected`: exactly in virtual time (`sim`),
/// at least on tokio's clock.
#[track_caller]
fn assert_elapsed(elapsed: Duration, expected: Duration) {
    if cfg!(feature = "sim") {
        assert_eq!(elapsed, expected);
    } else {
        assert!(elapsed >= expected, "{elapsed:?} < {expected:?}");
    }
}

#[tokio::test]
async fn withdrawals_under_one_lock_hold_leave_20() {
    crate::programs::two_withdrawals(false).await;
}

#[tokio::test]
async fn a_notified_future_made_before_the_check_is_woken() {
    crate::programs::flag_then_notify_waiters(false).await;
}

#[tokio::test]
async fn a_broadcast_listener_subscribed_first_hears_the_message() {
    crate::programs::listener(false).await;
}

#[tokio::test]
async fn a_biased_select_takes_its_first_ready_branch() {
    assert_eq!(crate::programs::select_one(true).await, "a");
}

#[tokio::test]
async fn a_spawned_task_returns_its_output() {
    let task = tokio::spawn(async { 6 * 7 });
    assert_eq!(task.await.unwrap(), 42);
    let blocking = tokio::task::spawn_blocking(|| "done");
    assert_eq!(blocking.await.unwrap(), "done");
    tokio::task::yield_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_over_mpsc_get_replies_over_oneshot() {
    let (tx, mut rx) = mpsc::channel::<(u32, oneshot::Sender<u32>)>(1);
    let server = tokio::spawn(async move {
        while let Some((n, reply)) = rx.recv().await {
            reply.send(n * 2).unwrap();
        }
    });
    let mut answers = Vec::new();
    for n in [1, 2] {
        let (reply, answer) = oneshot::channel();
        tx.send((n, reply)).await.unwrap();
        answers.push(answer.await.unwrap());
    }
    drop(tx);
    server.await.unwrap();
    assert_eq!(answers, [2, 4]);
}

#[tokio::test]
async fn channel_errors_are_tokios() {
    let (tx, mut rx) = mpsc::channel::<u8>(1);
    tx.try_send(1).unwrap();
    assert!(matches!(tx.try_send(2), Err(mpsc::error::TrySendError::Full(2))));
    assert_eq!(rx.try_recv(), Ok(1));
    assert_eq!(rx.try_recv(), Err(mpsc::error::TryRecvError::Empty));
    drop(rx);
    assert_eq!(tx.send(3).await.unwrap_err().0, 3);

    let (tx, rx) = oneshot::channel::<u8>();
    drop(tx);
    assert_eq!(rx.await.unwrap_err().to_string(), "channel closed");
}

#[tokio::test]
async fn a_lagging_broadcast_receiver_is_told_how_many_it_missed() {
    // A capacity of 2 keeps the last two messages.
    let (tx, mut rx) = broadcast::channel(2);
    let mut late = tx.subscribe();
    for n in 1..=3 {
        assert_eq!(tx.send(n).unwrap(), 2);
    }
    assert_eq!(rx.recv().await, Err(broadcast::error::RecvError::Lagged(1)));
    assert_eq!(rx.recv().await, Ok(2));
    assert_eq!(rx.recv().await, Ok(3));
    assert_eq!(late.try_recv(), Err(broadcast::error::TryRecvError::Lagged(1)));
    assert_eq!(late.len(), 2);
    drop(tx);
    assert_eq!(rx.recv().await, Err(broadcast::error::RecvError::Closed));
}

#[tokio::test]
async fn a_join_set_joins_every_task_and_aborts_the_rest() {
    let mut set = JoinSet::new();
    for i in 0..3u32 {
        set.spawn(async move { i * 10 });
    }
    assert_eq!(set.len(), 3);
    let mut outputs = Vec::new();
    while let Some(r) = set.join_next().await {
        outputs.push(r.unwrap());
    }
    outputs.sort();
    assert_eq!(outputs, [0, 10, 20]);
    assert!(set.is_empty());

    for _ in 0..2 {
        set.spawn(std::future::pending::<u32>());
    }
    set.abort_all();
    let mut cancelled = 0;
    while let Some(r) = set.join_next().await {
        assert!(r.unwrap_err().is_cancelled());
        cancelled += 1;
    }
    assert_eq!(cancelled, 2);
}

#[tokio::test]
async fn a_timeout_fires_after_its_duration() {
    let start = Instant::now();
    let r = time::timeout(Duration::from_millis(50), std::future::pending::<()>()).await;
    assert_eq!(r.unwrap_err().to_string(), "deadline has elapsed");
    assert_elapsed(start.elapsed(), Duration::from_millis(50));
    assert_eq!(time::timeout(Duration::from_millis(50), async { 7 }).await.unwrap(), 7);
}

#[tokio::test]
async fn sleep_and_interval_follow_the_clock() {
    let start = Instant::now();
    time::sleep(Duration::from_millis(10)).await;
    assert_elapsed(start.elapsed(), Duration::from_millis(10));
    let mut ticks = time::interval(Duration::from_millis(10));
    let first = ticks.tick().await;
    ticks.tick().await;
    let third = ticks.tick().await;
    assert_eq!(third - first, Duration::from_millis(20));
    assert_elapsed(start.elapsed(), Duration::from_millis(30));
}

#[tokio::test]
async fn watch_notify_rwlock_and_semaphore() {
    let (tx, mut rx) = watch::channel(0);
    let sender = tokio::spawn(async move {
        tx.send(1).unwrap();
        tx
    });
    rx.changed().await.unwrap();
    assert_eq!(*rx.borrow_and_update(), 1);
    let (modified, mut seen) = watch::channel(vec![1]);
    modified.send_modify(|v| v.push(2));
    assert!(!modified.send_if_modified(|v| v.is_empty()));
    assert_eq!(*seen.borrow_and_update(), [1, 2]);
    drop(sender.await.unwrap());
    assert!(rx.changed().await.is_err());

    let notify = Arc::new(Notify::new());
    notify.notify_one();
    notify.notified().await;

    let lock = RwLock::new(1);
    {
        let a = lock.read().await;
        let b = lock.read().await;
        assert_eq!(*a + *b, 2);
        assert!(lock.try_write().is_err());
    }
    *lock.write().await += 1;
    assert_eq!(lock.into_inner(), 2);

    let semaphore = Semaphore::new(1);
    let permit = semaphore.acquire().await.unwrap();
    assert!(semaphore.try_acquire().is_err());
    drop(permit);
    assert_eq!(semaphore.available_permits(), 1);
}

/// `JoinError` is `Send + Sync` as tokio's is, so `?` takes a join into
/// `Box<dyn Error + Send + Sync>` (or `anyhow::Error`).
fn into_boxed(e: tokio::task::JoinError) -> Box<dyn std::error::Error + Send + Sync> {
    e.into()
}

/// Waits for a task through `?`, as services write it.
async fn joined() -> Result<u32, Box<dyn std::error::Error + Send + Sync>> {
    Ok(tokio::spawn(async { 7 }).await?)
}

#[tokio::test]
async fn join_and_try_acquire_errors_have_tokios_signatures() {
    assert_eq!(joined().await.unwrap(), 7);
    let handle = tokio::spawn(std::future::pending::<()>());
    let id = handle.id();
    handle.abort();
    let err = handle.await.unwrap_err();
    assert!(err.is_cancelled());
    assert_eq!(format!("{err:?}"), format!("JoinError::Cancelled({id:?})"));
    assert_eq!(into_boxed(err).to_string(), format!("task {id} was cancelled"));
    let panicking = tokio::spawn(async { panic!("boom") });
    let id = panicking.id();
    let err = panicking.await.unwrap_err();
    assert_eq!(format!("{err:?}"), format!("JoinError::Panic({id:?}, \"boom\", ...)"));
    assert_eq!(err.to_string(), format!("task {id} panicked with message \"boom\""));

    // `TryAcquireError` is exhaustive, as tokio's: two arms, no wildcard.
    fn why(result: Result<tokio::sync::SemaphorePermit<'_>, tokio::sync::TryAcquireError>) -> &'static str {
        match result {
            Ok(_) => "acquired",
            Err(tokio::sync::TryAcquireError::NoPermits) => "no permits",
            Err(tokio::sync::TryAcquireError::Closed) => "closed",
        }
    }
    let semaphore = Semaphore::new(0);
    assert_eq!(why(semaphore.try_acquire()), "no permits");
    semaphore.add_permits(1);
    assert_eq!(why(semaphore.try_acquire()), "acquired");
    semaphore.close();
    assert_eq!(why(semaphore.try_acquire()), "closed");
}

#[tokio::test]
async fn a_receiver_reports_its_queue_and_capacity() {
    let (tx, mut rx) = mpsc::channel::<u32>(2);
    assert_eq!((rx.len(), rx.is_empty(), rx.capacity(), rx.max_capacity(), rx.is_closed()), (0, true, 2, 2, false));
    tx.send(1).await.unwrap();
    assert_eq!((rx.len(), rx.is_empty(), rx.capacity()), (1, false, 1));
    // Closed once every sender is gone, with a message still queued.
    drop(tx);
    assert_eq!((rx.is_closed(), rx.len()), (true, 1));
    assert_eq!(rx.recv().await, Some(1));
    assert_eq!((rx.len(), rx.capacity(), rx.max_capacity()), (0, 2, 2));

    let (tx, mut rx) = mpsc::unbounded_channel::<u32>();
    tx.send(5).unwrap();
    assert_eq!((rx.len(), rx.is_empty(), rx.is_closed()), (1, false, false));
    rx.close();
    assert_eq!((rx.is_closed(), rx.len()), (true, 1));
    assert_eq!(rx.recv().await, Some(5));
    assert!(rx.is_empty());
}

#[tokio::test]
async fn join_and_select_with_else_and_preconditions() {
    let (a, b) = tokio::join!(async { 1 }, async { 2 });
    assert_eq!(a + b, 3);
    let r: Result<(u8, u8), &str> = tokio::try_join!(async { Ok(1) }, async { Err("no") });
    assert_eq!(r, Err("no"));

    let (_tx, mut rx) = mpsc::channel::<u8>(1);
    let taken = tokio::select! {
        v = rx.recv(), if false => v,
        else => None,
    };
    assert_eq!(taken, None);
    let mut later = Box::pin(time::sleep(Duration::from_millis(5)));
    let which = tokio::select! {
        _ = &mut later => "sleep",
        Some(v) = rx.recv() => if v == 0 { "zero" } else { "other" },
    };
    assert_eq!(which, "sleep");
}

#[tokio::test]
async fn owned_guards_and_permits_keep_their_lock_alive() {
    let limit = Arc::new(Semaphore::new(2));
    let counter = Arc::new(tokio::sync::Mutex::new(0));
    let mut tasks = Vec::new();
    for _ in 0..3 {
        let permit = limit.clone().acquire_owned().await.unwrap();
        let counter = counter.clone();
        tasks.push(tokio::spawn(async move {
            *counter.lock_owned().await += 1;
            drop(permit);
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(*counter.lock().await, 3);
    assert_eq!(limit.available_permits(), 2);
    let held = counter.clone().try_lock_owned().unwrap();
    assert!(counter.try_lock().is_err());
    drop(held);
    let permits = limit.clone().try_acquire_many_owned(2).unwrap();
    assert_eq!(permits.num_permits(), 2);
    permits.forget();
    assert_eq!(limit.available_permits(), 0);
}

#[tokio::test]
async fn a_join_set_returns_tasks_in_the_order_they_finished() {
    let mut set = JoinSet::new();
    set.spawn(async {
        time::sleep(Duration::from_millis(20)).await;
        "slow"
    });
    set.spawn(async {
        time::sleep(Duration::from_millis(10)).await;
        "fast"
    });
    // Both have finished before the set is asked.
    time::sleep(Duration::from_millis(50)).await;
    let first = set.join_next().await.unwrap().unwrap();
    let second = set.join_next().await.unwrap().unwrap();
    assert_eq!([first, second], ["fast", "slow"]);
}

#[tokio::test]
async fn tasks_know_their_ids_and_so_do_their_handles_and_errors() {
    assert_eq!(tokio::task::try_id(), None, "the test's body is no task");
    let task = tokio::spawn(async { tokio::task::id() });
    let (id, abort) = (task.id(), task.abort_handle());
    assert_eq!((task.await.unwrap(), abort.id()), (id, id));
    assert_eq!(format!("{id:?}"), format!("Id({id})"));
    let other = tokio::spawn(async { tokio::task::try_id() });
    let other_id = other.id();
    assert_ne!(other_id, id);
    assert_eq!(other.await.unwrap(), Some(other_id));
    let panicking = tokio::spawn(async { panic!("boom") });
    let panic_id = panicking.id();
    let err = panicking.await.unwrap_err();
    assert!(err.is_panic());
    assert_eq!(err.id(), panic_id);
}

#[tokio::test]
async fn a_join_set_says_which_task_each_output_is_from() {
    let mut set = JoinSet::new();
    let slow = set.spawn(async {
        time::sleep(Duration::from_millis(20)).await;
        "slow"
    });
    let blocking = set.spawn_blocking(|| "blocking");
    assert_eq!(set.len(), 2);
    let mut got = Vec::new();
    while let Some(r) = set.join_next_with_id().await {
        got.push(r.unwrap());
    }
    got.sort_by_key(|&(_, v)| v);
    assert_eq!(got, [(blocking.id(), "blocking"), (slow.id(), "slow")]);
    let quick = set.spawn(async { "quick" });
    time::sleep(Duration::from_millis(5)).await;
    assert_eq!(set.try_join_next_with_id().map(Result::unwrap), Some((quick.id(), "quick")));
    assert!(set.try_join_next_with_id().is_none());
}

#[tokio::test]
async fn permits_hold_a_slot_until_they_send_or_drop() {
    use mpsc::error::TrySendError;
    let (tx, mut rx) = mpsc::channel::<u8>(1);
    let permit = tx.reserve().await.unwrap();
    assert_eq!(tx.capacity(), 0);
    assert!(matches!(tx.try_send(9), Err(TrySendError::Full(9))));
    assert!(matches!(tx.try_reserve(), Err(TrySendError::Full(()))));
    permit.send(1);
    assert_eq!(rx.recv().await, Some(1));
    drop(tx.try_reserve().unwrap());
    assert_eq!(tx.capacity(), 1, "a dropped permit gives its slot back");
    let tx2 = tx.clone().reserve_owned().await.unwrap().send(2);
    assert_eq!(rx.recv().await, Some(2));
    let tx3 = tx2.try_reserve_owned().unwrap().release();
    assert_eq!(tx3.capacity(), 1);
    // A reservation that waits gets the slot the receiver frees.
    tx.send(3).await.unwrap();
    let waiting = tokio::spawn(tx.clone().reserve_owned());
    assert_eq!(rx.recv().await, Some(3));
    waiting.await.unwrap().unwrap().send(4);
    assert_eq!(rx.recv().await, Some(4));
    drop(rx);
    assert!(tx.reserve().await.is_err());
    assert!(matches!(tx3.try_reserve_owned(), Err(TrySendError::Closed(_))));
}

#[tokio::test]
async fn select_binds_mutably_and_breaks_out_of_a_loop() -> Result<(), std::io::Error> {
    let (tx, mut rx) = mpsc::unbounded_channel();
    for n in [1, 2, 3] {
        tx.send(n).unwrap();
    }
    drop(tx);
    let mut sum = 0;
    loop {
        tokio::select! {
            Some(mut n) = rx.recv() => {
                n *= 10;
                sum += n;
            }
            else => break,
        }
    }
    assert_eq!(sum, 60);
    Ok(())
}

#[tokio::test]
async fn deadlines_reset_and_absolute_timers() {
    let start = Instant::now();
    let mut sleep = Box::pin(time::sleep(Duration::from_secs(100)));
    sleep.as_mut().reset(start + Duration::from_millis(10));
    assert_eq!(sleep.deadline(), start + Duration::from_millis(10));
    sleep.as_mut().await;
    assert!(sleep.is_elapsed());
    let elapsed = start.elapsed();
    assert_elapsed(elapsed, Duration::from_millis(10));
    assert!(elapsed < Duration::from_secs(100));

    let now = Instant::now();
    time::sleep_until(now + Duration::from_millis(5)).await;
    let r = time::timeout_at(Instant::now() + Duration::from_millis(5), std::future::pending::<()>()).await;
    assert!(r.is_err());
    let mut ticks = time::interval_at(Instant::now() + Duration::from_millis(5), Duration::from_millis(5));
    ticks.tick().await;
    assert_elapsed(now.elapsed(), Duration::from_millis(15));
}

#[tokio::test]
async fn blocking_calls_work_from_a_blocking_thread() {
    let (tx, mut rx) = mpsc::channel(1);
    let (reply, answer) = oneshot::channel();
    let lock = Arc::new(tokio::sync::Mutex::new(0));
    let held = lock.clone();
    let worker = tokio::task::spawn_blocking(move || {
        let n = rx.blocking_recv().unwrap();
        *held.blocking_lock() += n;
        reply.send(n * 2).unwrap();
    });
    tx.send(5).await.unwrap();
    worker.await.unwrap();
    assert_eq!(answer.await, Ok(10));
    assert_eq!(*lock.lock().await, 5);
}

/// tokio's test clock; with `test-util` only, as in tokio.
#[cfg(feature = "test-util")]
#[tokio::test]
async fn advance_moves_a_paused_clock() {
    time::pause();
    let start = Instant::now();
    let timer = tokio::spawn(time::sleep(Duration::from_secs(5)));
    time::advance(Duration::from_secs(5)).await;
    assert_eq!(start.elapsed(), Duration::from_secs(5));
    timer.await.unwrap();
    time::resume();
}

/// What tokio's are, these are: `Send` (and `Sync` where tokio's are), so
/// that code moving them between tasks compiles in both modes.
#[test]
fn handles_futures_and_guards_are_send() {
    fn send<T: Send>(_: &T) {}
    fn send_sync<T: Send + Sync>(_: &T) {}
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let handle = tokio::spawn(async {});
        send_sync(&handle);
        let mut set = JoinSet::<()>::new();
        send_sync(&set);
        send(&set.join_next());
        send_sync(&time::sleep(Duration::ZERO));
        send_sync(&time::timeout(Duration::ZERO, async {}));
        send_sync(&time::interval(Duration::from_millis(1)));
        let (tx, mut rx) = mpsc::channel::<u8>(1);
        send(&tx.send(1));
        send(&rx.recv());
        let (btx, mut brx) = broadcast::channel::<u8>(1);
        send_sync(&btx);
        send(&brx.recv());
        let (_wtx, mut wrx) = watch::channel(0);
        send(&wrx.changed());
        let lock = Arc::new(tokio::sync::Mutex::new(0));
        send(&lock.lock());
        send(&lock.clone().lock_owned());
        send_sync(&lock.lock().await);
        let sem = Arc::new(Semaphore::new(1));
        send(&sem.clone().acquire_owned());
        send_sync(&sem.clone().acquire_owned().await.unwrap());
        send(&tokio::task::yield_now());
        handle.await.unwrap();
    });
}

#[tokio::test]
async fn abort_handles_cancel_one_task() {
    let mut set = JoinSet::new();
    let forever = set.spawn(std::future::pending::<&str>());
    set.spawn(async { "done" });
    forever.abort();
    let mut outcomes = Vec::new();
    while let Some(r) = set.join_next().await {
        outcomes.push(r.map_err(|e| e.is_cancelled()));
    }
    outcomes.sort();
    assert_eq!(outcomes, [Ok("done"), Err(true)]);
    assert!(forever.is_finished());

    let task = tokio::spawn(std::future::pending::<()>());
    let aborter = task.abort_handle();
    aborter.clone().abort();
    assert!(task.await.unwrap_err().is_cancelled());
    assert!(aborter.is_finished());
}

#[tokio::test]
async fn missed_ticks_burst_delay_or_skip_as_tokios() {
    use time::MissedTickBehavior::{Burst, Delay, Skip};
    let period = Duration::from_millis(10);
    let mut seen = Vec::new();
    for behavior in [Burst, Delay, Skip] {
        let mut ticks = time::interval(period);
        ticks.set_missed_tick_behavior(behavior);
        let start = ticks.tick().await;
        // Late by two and a half periods.
        time::sleep(Duration::from_millis(25)).await;
        let late = ticks.tick().await;
        let next = ticks.tick().await;
        seen.push(((late - start).as_millis(), (next - start).as_millis() / 5 * 5));
    }
    // Delay waits a period from when the late tick was taken, Skip goes
    // to the next multiple of the period after it: 25 ms in virtual time,
    // at least that on tokio's clock (a loaded machine sleeps longer).
    if cfg!(feature = "sim") {
        assert_eq!(seen, [(10, 20), (10, 35), (10, 30)]);
    } else {
        assert_eq!(seen[0], (10, 20));
        assert!(seen[1].0 == 10 && seen[1].1 >= 35, "{seen:?}");
        assert!(seen[2].0 == 10 && seen[2].1 >= 30 && seen[2].1 % 10 == 0, "{seen:?}");
    }
}
