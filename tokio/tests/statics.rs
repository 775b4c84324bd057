//! A static of a std type declared in a test, as pools' suites count the
//! connections they dropped: each execution starts it at zero, as each
//! run of the test on tokio does.

use std::sync::atomic::{AtomicUsize, Ordering};

/// A connection that counts its drops in `counter`.
struct Connection(&'static AtomicUsize);

impl Drop for Connection {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Two tasks each take a connection over a channel of one slot and drop
/// it; main waits for both and expects two drops.
async fn two_connections_dropped(dropped: &'static AtomicUsize) {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Connection>(1);
    let taker = tokio::spawn(async move {
        while let Some(connection) = rx.recv().await {
            drop(connection);
        }
    });
    let giver = tokio::spawn(async move {
        for _ in 0..2 {
            tx.send(Connection(dropped)).await.unwrap();
        }
    });
    giver.await.unwrap();
    taker.await.unwrap();
    assert_eq!(dropped.load(Ordering::SeqCst), 2, "drops left by an earlier run");
}

#[tokio::test]
async fn a_drop_counter_declared_in_the_test_starts_at_zero() {
    static DROPPED: AtomicUsize = AtomicUsize::new(0);
    two_connections_dropped(&DROPPED).await;
}

#[cfg(feature = "sim")]
#[test]
fn every_execution_of_a_pool_test_counts_its_own_drops() {
    use samaritan::{Outcome, SearchStrategy};
    // Any poll order (tokio's current-thread order is one schedule).
    for (strategy, executions) in [(SearchStrategy::Dfs, 2506), (SearchStrategy::Random, 1000)] {
        let report = crate::support::explore_on(None, strategy, || {
            static DROPPED: AtomicUsize = AtomicUsize::new(0);
            two_connections_dropped(&DROPPED)
        });
        assert_eq!((&report.outcome, report.executions), (&Outcome::Pass, executions), "{report}");
    }
}
