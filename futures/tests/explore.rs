//! Explorations of programs written against futures' API: which ready
//! branch `select!` takes is explored, a wait that nothing ends is a
//! deadlock with a token that replays it, and a lost update across an
//! `.await` is found where holding the lock passes.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex as StdMutex};

use samaritan::executor::{block_on, spawn};
use samaritan::{Builder, Outcome, SearchStrategy};
use samaritan_futures::channel::{mpsc, oneshot};
use samaritan_futures::future::FutureExt;
use samaritan_futures::lock::Mutex;
use samaritan_futures::{select, SinkExt, StreamExt};

fn dfs() -> Builder {
    Builder::new().strategy(SearchStrategy::Dfs).persist(false).progress(false)
}

/// Asserts that DFS passes `f` after exactly `executions` executions and
/// covers the whole space.
#[track_caller]
fn check_exhausts(f: impl Fn() + Send + Sync + 'static, executions: u64) {
    let report = dfs().explore(f).unwrap();
    assert_eq!((&report.outcome, report.executions, report.exhausted), (&Outcome::Pass, executions, true), "{report}");
}

#[test]
fn select_explores_which_ready_branch_wins() {
    let seen = Arc::new(StdMutex::new(BTreeSet::new()));
    let s = seen.clone();
    check_exhausts(
        move || {
            let first = block_on(async {
                let mut a = async { 'a' }.boxed().fuse();
                let mut b = async { 'b' }.boxed().fuse();
                select! {
                    x = a => x,
                    y = b => y,
                }
            });
            s.lock().unwrap().insert(first);
        },
        2,
    );
    assert_eq!(*seen.lock().unwrap(), BTreeSet::from(['a', 'b']));
}

/// Two tasks each wait for the other's answer before giving their own
/// (`crossed`), or one answers first.
fn handshake(crossed: bool) {
    block_on(async move {
        let (to_b, from_a) = oneshot::channel::<u8>();
        let (to_a, from_b) = oneshot::channel::<u8>();
        let b = spawn(async move {
            let got = from_a.await.unwrap();
            to_a.send(got + 1).unwrap();
        });
        if crossed {
            let got = from_b.await.unwrap();
            to_b.send(got).unwrap();
        } else {
            to_b.send(1).unwrap();
            assert_eq!(from_b.await, Ok(2));
        }
        b.await.unwrap();
    });
}

#[test]
fn two_tasks_waiting_for_each_other_deadlock_and_the_token_replays() {
    let report = dfs().explore(|| handshake(true)).unwrap();
    assert!(matches!(report.outcome, Outcome::Deadlock(_)), "{report}");
    let again = dfs().replay(report.token().unwrap(), || handshake(true)).unwrap();
    assert!(matches!(again.outcome, Outcome::Deadlock(_)), "{again}");
    check_exhausts(|| handshake(false), 149);
}

/// Two tasks add 1 under an async mutex: reading under one lock and
/// writing under another (`split`), or under one lock held across.
fn add_twice(split: bool) {
    block_on(async move {
        let m = Arc::new(Mutex::new(0u32));
        let add = move |m: Arc<Mutex<u32>>| async move {
            if split {
                let seen = *m.lock().await;
                samaritan_futures::pending!();
                *m.lock().await = seen + 1;
            } else {
                let mut g = m.lock().await;
                *g += 1;
            }
        };
        let t = spawn(add(m.clone()));
        // The other task is polled while this one waits.
        let other = spawn(add(m.clone()));
        t.await.unwrap();
        other.await.unwrap();
        assert_eq!(*m.lock().await, 2, "an update was lost");
    });
}

#[test]
fn a_lost_update_across_an_await_is_found_and_holding_the_lock_passes() {
    let report = dfs().explore(|| add_twice(true)).unwrap();
    assert!(report.is_failure(), "{report}");
    check_exhausts(|| add_twice(false), 136);
}

#[test]
fn a_bounded_channel_s_backpressure_is_explored_with_every_order() {
    // A producer sends three messages through `channel(0)`; the consumer
    // sees them in order in every execution.
    check_exhausts(
        || {
            block_on(async {
                let (mut tx, mut rx) = mpsc::channel::<u32>(0);
                let producer = spawn(async move {
                    for i in 0..3 {
                        tx.send(i).await.unwrap();
                    }
                });
                let mut got = Vec::new();
                while let Some(v) = rx.next().await {
                    got.push(v);
                }
                producer.await.unwrap();
                assert_eq!(got, [0, 1, 2]);
            })
        },
        81,
    );
}
