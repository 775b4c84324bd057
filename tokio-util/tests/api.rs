//! The wrappers' API, as `#[tokio::test]`s: on tokio-util without `sim`,
//! explored (every schedule, each asserting the same values) under it.

use std::future::poll_fn;
use std::sync::Arc;

use futures::StreamExt;
use tokio::sync::{mpsc, Semaphore};
use tokio_util::sync::{PollSemaphore, PollSender};

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
