//! std's clocks inside an exploration move with the virtual clock: a
//! program that stamps things with `std::time::Instant` and sleeps on
//! tokio's timers sees the time its sleeps took, as it does on tokio.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use samaritan::{Outcome, SearchStrategy};

use crate::support::{explore, explore_on};

/// A cache whose entries are stamped with std's clock, reaped by a task
/// on a `tokio::time::interval` once idle for two seconds: main puts two
/// in, sleeps five seconds and expects them gone.
async fn idle_entries_are_reaped() {
    let cache: Arc<Mutex<Vec<(u32, Instant)>>> = Arc::default();
    let reaper = {
        let cache = cache.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(Duration::from_millis(500));
            for _ in 0..12 {
                every.tick().await;
                cache.lock().unwrap().retain(|(_, stamp)| stamp.elapsed() <= Duration::from_secs(2));
            }
        })
    };
    cache.lock().unwrap().extend([(1, Instant::now()), (2, Instant::now())]);
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(cache.lock().unwrap().len(), 0, "idle entries outlived the idle timeout");
    reaper.abort();
}

#[test]
fn a_pool_that_stamps_with_std_instant_sees_its_sleeps_pass() {
    let report = explore(idle_entries_are_reaped);
    if samaritan_sim::STD_CLOCKS_FOLLOW {
        assert!(matches!(report.outcome, Outcome::Pass), "{report}");
        assert_eq!(report.executions, 42);
    } else {
        assert!(matches!(report.outcome, Outcome::Panic { .. }), "{report}");
    }
}

#[test]
fn std_durations_across_a_sleep_are_the_sleep_in_every_schedule() {
    if !samaritan_sim::STD_CLOCKS_FOLLOW {
        return;
    }
    // Two tasks sleep a second each, at once: the clock moves one second,
    // and both tasks' std durations say so, on either clock.
    let report = explore_on(None, SearchStrategy::Dfs, || async {
        let timed = || async {
            let (start, wall) = (Instant::now(), SystemTime::now());
            tokio::time::sleep(Duration::from_secs(1)).await;
            let (took, wall_took) = (start.elapsed(), wall.elapsed().unwrap());
            assert!(took >= Duration::from_secs(1) && took < Duration::from_millis(1500), "{took:?}");
            assert!(wall_took >= Duration::from_secs(1) && wall_took < Duration::from_millis(1500));
        };
        let other = tokio::spawn(timed());
        timed().await;
        other.await.unwrap();
    });
    assert!(matches!(report.outcome, Outcome::Pass), "{report}");
    assert_eq!(report.executions, 6);
}

/// A reaper's interval that starts one period after std's now, as a pool
/// starts it (`interval_at((std::time::Instant::now() + period).into(), ..)`),
/// beside a request that times out at the same instant: the reaper ticks
/// one period from now in every execution, and the two timers tie.
async fn reaper_started_from_std_now() {
    let period = Duration::from_secs(30);
    let t0 = tokio::time::Instant::now();
    let reaper = tokio::spawn(async move {
        let mut every = tokio::time::interval_at((Instant::now() + period).into(), period);
        every.tick().await;
        tokio::time::Instant::now()
    });
    let timed_out = tokio::time::timeout(period, std::future::pending::<()>()).await.is_err();
    let ticked = reaper.await.unwrap();
    assert!(timed_out);
    assert_eq!(ticked - t0, period, "the first tick is one period after std's now");
    // And back: a virtual instant is as far from std's now as from the virtual now.
    let back: Instant = (tokio::time::Instant::now() + period).into();
    let ahead = back - Instant::now();
    assert!(ahead <= period && ahead > period - Duration::from_millis(100), "{ahead:?}");
}

#[test]
fn a_std_instant_converts_to_the_virtual_instant_as_far_from_now() {
    if !samaritan_sim::STD_CLOCKS_FOLLOW {
        return;
    }
    let report = explore_on(None, SearchStrategy::Dfs, reaper_started_from_std_now);
    assert!(matches!(report.outcome, Outcome::Pass), "{report}");
    assert_eq!(report.executions, 6);
}

/// A rate-limit test's shape: tasks wait out ten 200 ms refills and the
/// test asserts, with std's clock, that it took 2 s within 10 ms. Inside
/// an execution std's clock moves only with the virtual clock and a
/// microsecond a read, so the engine's own time (tens of milliseconds for
/// these steps in a debug build) never shows.
async fn timed_refills() {
    let start = Instant::now();
    let waiters: Vec<_> = (0..10)
        .map(|_| {
            tokio::spawn(async {
                for _ in 0..10 {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            })
        })
        .collect();
    for w in waiters {
        w.await.unwrap();
    }
    let took = start.elapsed();
    assert!(took >= Duration::from_secs(2) && took < Duration::from_secs(2) + Duration::from_millis(1), "{took:?}");
    // The sleeps and whole microseconds of reads: no real time at all.
    assert_eq!((took - Duration::from_secs(2)).as_nanos() % 1_000, 0, "{took:?}");
}

#[test]
fn std_durations_measure_the_sleeps_and_not_the_engine() {
    if !samaritan_sim::STD_CLOCKS_FOLLOW {
        return;
    }
    let report = explore_on(Some(1), SearchStrategy::Random, timed_refills);
    assert!(matches!(report.outcome, Outcome::Pass), "{report}");
    assert_eq!(report.executions, 1000);
}
