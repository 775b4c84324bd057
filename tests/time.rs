//! Timers on the real timer thread: `sleep`, `sleep_until`, `timeout`,
//! `interval`. Only lower bounds on durations are asserted (machines are
//! noisy); the timer is real in both modes, so every test runs the same
//! with `sim`. Total sleeping stays well under 100 ms.

use std::future::Future;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use samaritan::executor::{self, Builder, Runtime};
use samaritan::time::{self, Elapsed};

const MS: Duration = Duration::from_millis(1);

/// Runs `f` on each runtime flavour (and the free `block_on`) under a 20 s
/// watchdog, so a lost timer wakeup fails instead of hanging.
#[track_caller]
fn on_each_runtime<F, Fut>(f: F)
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let t = std::thread::spawn(move || {
        let multi: Runtime = Builder::multi_thread().worker_threads(2).build().unwrap();
        multi.block_on(f());
        // Awaited inside a task on a worker, not only in `block_on`.
        multi.block_on(multi.spawn(f())).unwrap();
        Builder::current_thread().build().unwrap().block_on(f());
        executor::block_on(f());
        let _ = tx.send(());
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(()) => t.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => std::panic::resume_unwind(t.join().unwrap_err()),
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("timer test hung for 20 s"),
    }
}

#[test]
fn sleep_lasts_at_least_its_duration() {
    on_each_runtime(|| async {
        let start = Instant::now();
        time::sleep(3 * MS).await;
        assert!(start.elapsed() >= 3 * MS);
    });
}

#[test]
fn sleep_until_a_past_instant_is_ready_at_once() {
    on_each_runtime(|| async {
        let s = time::sleep_until(Instant::now());
        assert!(s.is_elapsed());
        s.await;
        time::sleep(Duration::ZERO).await;
    });
}

#[test]
fn sleep_until_waits_for_the_deadline() {
    on_each_runtime(|| async {
        let deadline = Instant::now() + 2 * MS;
        let s = time::sleep_until(deadline);
        assert_eq!(s.deadline(), deadline);
        s.await;
        assert!(Instant::now() >= deadline);
    });
}

#[test]
fn timeout_fires_on_a_pending_future() {
    on_each_runtime(|| async {
        let start = Instant::now();
        let r = time::timeout(2 * MS, std::future::pending::<u32>()).await;
        let e: Elapsed = r.unwrap_err();
        assert_eq!(e.to_string(), "deadline has elapsed");
        assert!(start.elapsed() >= 2 * MS);
    });
}

#[test]
fn timeout_does_not_fire_on_a_ready_future() {
    on_each_runtime(|| async {
        // Even with a zero (already passed) deadline, a ready future wins.
        assert_eq!(time::timeout(Duration::ZERO, async { 5 }).await, Ok(5));
        assert_eq!(time::timeout(Duration::from_secs(60), async { 6 }).await, Ok(6));
        // Completing after one sleep, well before a long deadline.
        let r = time::timeout(Duration::from_secs(60), async {
            time::sleep(MS).await;
            7
        })
        .await;
        assert_eq!(r, Ok(7));
    });
}

#[test]
fn elapsed_reads_well() {
    let e = executor::block_on(time::timeout(Duration::ZERO, std::future::pending::<()>())).unwrap_err();
    assert_eq!(e.to_string(), "deadline has elapsed");
    assert_eq!(std::io::Error::from(e).kind(), std::io::ErrorKind::TimedOut);
}

#[test]
fn interval_ticks_n_times_at_least_a_period_apart() {
    on_each_runtime(|| async {
        let period = 2 * MS;
        let start = Instant::now();
        let mut iv = time::interval(period);
        assert_eq!(iv.period(), period);
        let mut ticks = Vec::new();
        for _ in 0..4 {
            ticks.push(iv.tick().await);
        }
        // The first tick is immediate; tick k is scheduled k periods after it.
        for (k, t) in ticks.iter().enumerate() {
            assert_eq!(*t, ticks[0] + period * k as u32);
        }
        assert!(start.elapsed() >= 3 * period);
    });
}

#[test]
fn many_concurrent_sleeps_all_complete() {
    on_each_runtime(|| async {
        let start = Instant::now();
        let handles: Vec<_> = (0..50u32)
            .map(|i| {
                executor::spawn(async move {
                    time::sleep(Duration::from_micros(100 * u64::from(i % 5))).await;
                    i
                })
            })
            .collect();
        let mut sum = 0;
        for h in handles {
            sum += h.await.unwrap();
        }
        assert_eq!(sum, 49 * 50 / 2);
        assert!(start.elapsed() >= Duration::from_micros(400));
    });
}

#[test]
fn reset_moves_the_deadline() {
    on_each_runtime(|| async {
        let start = Instant::now();
        let mut s = Box::pin(time::sleep(Duration::from_secs(60)));
        s.as_mut().get_mut().reset(Instant::now() + MS);
        s.await;
        let elapsed = start.elapsed();
        assert!(elapsed >= MS && elapsed < Duration::from_secs(60));
    });
}
