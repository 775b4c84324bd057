//! The wrappers' API, as `#[tokio::test]`s: on tokio-util without `sim`,
//! explored (every schedule, each asserting the same values) under it.

use std::future::poll_fn;
use std::sync::Arc;

use futures::StreamExt;
use tokio::sync::{mpsc, Semaphore};
use tokio_util::sync::{CancellationToken, PollSemaphore, PollSender};

use crate::programs;

#[tokio::test]
async fn a_sink_delivers_its_items_in_order() {
    assert_eq!(programs::sink_two_items().await, [1, 2]);
}

#[tokio::test]
async fn a_slot_sent_before_the_next_reservation_lets_both_through() {
    assert_eq!(programs::reserve_two_slots(true).await, [1, 2]);
}

#[tokio::test]
async fn one_permit_keeps_the_section_to_one_task() {
    assert_eq!(programs::guarded_section(1).await, 1);
}

#[tokio::test]
async fn a_send_without_a_reservation_is_refused_after_close() {
    let (tx, mut rx) = mpsc::channel::<u8>(1);
    let mut tx = PollSender::new(tx);
    assert!(!tx.is_closed());
    assert!(tx.get_ref().is_some());
    poll_fn(|cx| tx.poll_reserve(cx)).await.unwrap();
    // A reservation in hand survives `close`, for one more send.
    tx.close();
    assert!(tx.is_closed());
    assert!(tx.get_ref().is_none());
    tx.send_item(1).unwrap();
    let err = tx.send_item(2).unwrap_err();
    assert_eq!(err.to_string(), "channel closed");
    assert_eq!(err.into_inner(), Some(2));
    assert_eq!(rx.recv().await, Some(1));
    assert_eq!(rx.recv().await, None);
    let err = poll_fn(|cx| tx.poll_reserve(cx)).await.unwrap_err();
    assert_eq!(err.into_inner(), None);
}

#[tokio::test]
async fn an_aborted_reservation_gives_its_slot_back() {
    let (tx, mut rx) = mpsc::channel::<u8>(1);
    let other = tx.clone();
    let mut tx = PollSender::new(tx);
    assert!(!tx.abort_send(), "nothing reserved yet");
    poll_fn(|cx| tx.poll_reserve(cx)).await.unwrap();
    assert!(other.try_send(9).is_err(), "the slot is reserved");
    assert!(tx.abort_send());
    other.try_send(9).unwrap();
    // Now the channel is full: the reservation waits, and aborting it
    // cancels it.
    let waker = futures::task::noop_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    assert!(tx.poll_reserve(&mut cx).is_pending());
    assert!(tx.abort_send());
    assert_eq!(rx.recv().await, Some(9));
    poll_fn(|cx| tx.poll_reserve(cx)).await.unwrap();
    tx.send_item(3).unwrap();
    assert_eq!(rx.recv().await, Some(3));
}

#[tokio::test]
async fn a_reservation_on_a_closed_channel_fails_and_closes_the_sender() {
    let (tx, rx) = mpsc::channel::<u8>(1);
    let mut tx = PollSender::new(tx);
    let clone = tx.clone();
    drop(rx);
    assert!(poll_fn(|cx| tx.poll_reserve(cx)).await.is_err());
    assert!(tx.is_closed());
    assert!(!clone.is_closed(), "a clone has its own state until it reserves");
}

#[tokio::test]
async fn a_poll_semaphore_streams_permits_until_closed() {
    let sem = Arc::new(Semaphore::new(2));
    let mut poll = PollSemaphore::new(sem.clone());
    let first = poll.next().await.unwrap();
    let two = poll_fn(|cx| poll.poll_acquire_many(cx, 1)).await.unwrap();
    assert_eq!(poll.available_permits(), 0);
    drop((first, two));
    assert_eq!(sem.available_permits(), 2);
    poll.add_permits(1);
    assert_eq!(poll.available_permits(), 3);
    assert!(Arc::ptr_eq(&poll.clone_inner(), &sem));
    assert!(std::ptr::eq(poll.as_ref(), &*sem));
    poll.close();
    assert!(poll.next().await.is_none());
    assert!(Arc::ptr_eq(&poll.into_inner(), &sem));
}

#[tokio::test]
async fn checked_work_is_never_done_after_the_cancel() {
    assert!(programs::work_unless_cancelled(false).await <= 1);
}

#[tokio::test]
async fn a_cancel_reaches_every_token_below_and_none_above() {
    let root = CancellationToken::new();
    let child = root.child_token();
    let grandchild = child.child_token();
    let sibling = root.child_token();
    // A node whose tokens are gone still passes a cancel down.
    drop(child);
    sibling.cancel();
    assert!(sibling.is_cancelled());
    assert!(!root.is_cancelled() && !grandchild.is_cancelled());
    let waiter = {
        let grandchild = grandchild.clone();
        tokio::spawn(async move { grandchild.cancelled_owned().await })
    };
    root.cancel();
    waiter.await.unwrap();
    assert!(grandchild.is_cancelled());
    assert!(root.child_token().is_cancelled(), "a child of a cancelled token starts cancelled");
    root.cancelled().await;
    assert_eq!(format!("{root:?}"), "CancellationToken { is_cancelled: true }");
}

#[tokio::test]
async fn tokens_compare_by_identity_and_guards_cancel_on_drop() {
    let token = CancellationToken::default();
    assert_eq!(token, token.clone());
    assert_ne!(token, CancellationToken::new());
    // Hashed by identity: interior state never changes a hash.
    #[allow(clippy::mutable_key_type)]
    let set = std::collections::HashSet::from([token.clone(), token.clone()]);
    assert_eq!(set.len(), 1);
    let kept = token.clone().drop_guard().disarm();
    assert!(!kept.is_cancelled());
    let disarmed: &CancellationToken = token.drop_guard_ref().disarm();
    assert_eq!(disarmed, &token);
    assert!(!token.is_cancelled());
    {
        let guard = token.drop_guard_ref();
        assert_eq!(guard.token(), &kept);
    }
    assert!(kept.is_cancelled());
    let other = CancellationToken::new();
    drop(other.clone().drop_guard());
    assert!(other.is_cancelled());
}

#[tokio::test]
async fn run_until_cancelled_returns_the_output_or_none() {
    let token = CancellationToken::new();
    assert_eq!(token.run_until_cancelled(async { 5 }).await, Some(5));
    let pending = token.clone();
    let stopper = tokio::spawn(async move { pending.cancel() });
    assert_eq!(token.run_until_cancelled(std::future::pending::<u8>()).await, None);
    stopper.await.unwrap();
    assert_eq!(token.clone().run_until_cancelled_owned(async { 6 }).await, None, "already cancelled");
}
