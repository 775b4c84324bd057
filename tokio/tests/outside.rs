//! Outside an exploration the crate is tokio, under `sim` too: the same
//! program on a tokio runtime built by hand.

use std::time::Duration;

#[test]
fn outside_an_exploration_tasks_and_timers_are_tokios() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let out = rt.block_on(async {
        let task = tokio::spawn(async {
            tokio::time::sleep(Duration::from_millis(1)).await;
            5
        });
        let r = tokio::time::timeout(Duration::from_millis(1), std::future::pending::<()>()).await;
        assert!(r.is_err());
        let (tx, mut rx) = tokio::sync::mpsc::channel(1);
        tx.send(1).await.unwrap();
        let got = tokio::select! {
            Some(v) = rx.recv() => v,
            _ = tokio::time::sleep(Duration::from_secs(60)) => 0,
        };
        task.await.unwrap() + got
    });
    assert_eq!(out, 6);
}
