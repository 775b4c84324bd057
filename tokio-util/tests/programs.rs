//! The programs the tests run: tokio and tokio-util code, nothing of
//! samaritan's.

use std::future::poll_fn;
use std::sync::Arc;

use futures::SinkExt;
use tokio::sync::{mpsc, Mutex, Semaphore};
use tokio_util::sync::{CancellationToken, PollSemaphore, PollSender};

/// A task sends 1 then 2 through a `PollSender` (as a `Sink`) into a
/// channel of one slot, and drops it; returns what the receiver got, in
/// order.
pub(crate) async fn sink_two_items() -> Vec<u32> {
    let (tx, mut rx) = mpsc::channel(1);
    let mut tx = PollSender::new(tx);
    let sender = tokio::spawn(async move {
        tx.send(1).await.unwrap();
        tx.send(2).await.unwrap();
    });
    let mut got = Vec::new();
    while let Some(n) = rx.recv().await {
        got.push(n);
    }
    sender.await.unwrap();
    got
}

/// Holds the only slot of a channel through one `PollSender` while it
/// waits for a second slot through another, before sending into the
/// first: with `send_first`, it sends first and both items arrive.
pub(crate) async fn reserve_two_slots(send_first: bool) -> Vec<u32> {
    let (tx, mut rx) = mpsc::channel(1);
    let mut a = PollSender::new(tx.clone());
    let mut b = PollSender::new(tx);
    let receiver = tokio::spawn(async move {
        let mut got = Vec::new();
        while let Some(n) = rx.recv().await {
            got.push(n);
        }
        got
    });
    poll_fn(|cx| a.poll_reserve(cx)).await.unwrap();
    if send_first {
        a.send_item(1).unwrap();
    }
    poll_fn(|cx| b.poll_reserve(cx)).await.unwrap();
    if !send_first {
        a.send_item(1).unwrap();
    }
    b.send_item(2).unwrap();
    drop((a, b));
    receiver.await.unwrap()
}

/// Two tasks each take a permit of `permits` through a clone of one
/// `PollSemaphore` and count themselves in and out of the section it
/// guards (under a `Mutex`, so that the count is shared state the
/// explorer sees), yielding inside; returns the most that were inside at
/// once.
pub(crate) async fn guarded_section(permits: usize) -> usize {
    let sem = PollSemaphore::new(Arc::new(Semaphore::new(permits)));
    // (inside now, most inside at once)
    let count = Arc::new(Mutex::new((0, 0)));
    let tasks: Vec<_> = (0..2)
        .map(|_| {
            let (mut sem, count) = (sem.clone(), count.clone());
            tokio::spawn(async move {
                let _permit = poll_fn(|cx| sem.poll_acquire(cx)).await.unwrap();
                {
                    let mut c = count.lock().await;
                    c.0 += 1;
                    c.1 = c.1.max(c.0);
                }
                tokio::task::yield_now().await;
                count.lock().await.0 -= 1;
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    assert_eq!(sem.available_permits(), permits);
    let most = count.lock().await.1;
    assert!(most <= 1, "{most} tasks inside the section at once");
    most
}

/// A worker does one unit of work unless its token is cancelled, and main
/// cancels it and reads how much work was done: nothing may be done after
/// that. With `racy`, the worker checks the token, awaits, and then works,
/// so a cancel can come between the check and the work; without, it
/// checks under the lock that main cancels under.
pub(crate) async fn work_unless_cancelled(racy: bool) -> u32 {
    let token = CancellationToken::new();
    let done = Arc::new(Mutex::new(0));
    let worker = {
        let (token, done) = (token.child_token(), done.clone());
        tokio::spawn(async move {
            if racy {
                if !token.is_cancelled() {
                    tokio::task::yield_now().await;
                    *done.lock().await += 1;
                }
            } else {
                let mut done = done.lock().await;
                if !token.is_cancelled() {
                    *done += 1;
                }
            }
        })
    };
    let seen = {
        let done = done.lock().await;
        token.cancel();
        *done
    };
    worker.await.unwrap();
    let after = *done.lock().await;
    assert_eq!(after, seen, "work done after the cancel");
    after
}
