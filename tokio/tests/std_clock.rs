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
