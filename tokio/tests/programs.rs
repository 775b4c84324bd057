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
