//! futures' synchronizing API as its users call it: production runs it on
//! futures, `sim` on samaritan's outside an exploration, and both agree.

use std::sync::Arc;

use samaritan_futures::channel::{mpsc, oneshot};
use samaritan_futures::executor::{block_on, block_on_stream};
use samaritan_futures::future::FutureExt;
use samaritan_futures::lock::Mutex;
use samaritan_futures::{select, SinkExt, StreamExt};

#[test]
fn a_bounded_channel_holds_its_buffer_plus_a_slot_per_sender() {
    let (mut tx, mut rx) = mpsc::channel::<u32>(1);
    let mut tx2 = tx.clone();
    // Buffer 1 plus one slot for each of the two senders.
    tx.try_send(1).unwrap();
    tx.try_send(2).unwrap();
    let full = tx.try_send(3).unwrap_err();
    assert!(full.is_full() && !full.is_disconnected());
    assert_eq!(full.into_inner(), 3);
    tx2.try_send(4).unwrap();
    assert!(tx2.try_send(5).unwrap_err().is_full());
    assert_eq!(rx.try_recv(), Ok(1));
    // Taking one lets the sender that parked first go.
    tx.try_send(3).unwrap();
    assert!(tx.is_connected_to(&rx) && tx.same_receiver(&tx2));
    tx.close_channel();
    // A parked sender is full before it is disconnected; once unparked,
    // it finds the channel closed.
    assert!(tx2.try_send(6).unwrap_err().is_full());
    assert_eq!(rx.try_recv(), Ok(2));
    assert!(tx2.try_send(6).unwrap_err().is_disconnected());
    let rest: Vec<u32> = block_on(rx.by_ref().collect());
    assert_eq!(rest, [4, 3]);
    assert_eq!(rx.try_recv(), Err(mpsc::TryRecvError::Closed));
}

#[test]
fn channels_are_sinks_and_streams() {
    block_on(async {
        // A bounded send's flush waits for the receiver: feed, then read.
        let (mut tx, rx) = mpsc::channel(0);
        let (utx, urx) = mpsc::unbounded();
        tx.feed(1u8).await.unwrap();
        utx.unbounded_send(2u8).unwrap();
        drop(tx);
        utx.close_channel();
        assert!(utx.is_closed());
        let got: Vec<u8> = samaritan_futures::stream::select(rx, urx).collect().await;
        let mut got = got;
        got.sort();
        assert_eq!(got, [1, 2]);
        let (mut tx, mut rx) = mpsc::channel::<u8>(4);
        rx.close();
        assert!(tx.send(9).await.unwrap_err().is_disconnected());
        assert_eq!(rx.next().await, None);
    });
}

#[test]
fn a_oneshot_sends_once_or_is_canceled() {
    let (tx, mut rx) = oneshot::channel::<u8>();
    assert_eq!(
        (format!("{tx:?}"), format!("{rx:?}")),
        ("Sender { complete: false }".into(), "Receiver { complete: false }".into())
    );
    assert_eq!(rx.try_recv(), Ok(None));
    tx.send(7).unwrap();
    assert_eq!(rx.try_recv(), Ok(Some(7)));
    let (tx, rx) = oneshot::channel::<u8>();
    drop(tx);
    assert_eq!(block_on(rx), Err(oneshot::Canceled));
    let (mut tx, rx) = oneshot::channel::<u8>();
    assert!(!tx.is_canceled());
    drop(rx);
    block_on(tx.cancellation());
    assert!(tx.is_canceled());
    assert_eq!(tx.send(1), Err(1));
}

#[test]
fn an_async_mutex_locks_borrowed_and_owned() {
    let m = Arc::new(Mutex::new(0));
    block_on(async {
        *m.lock().await += 1;
        let owned = m.clone().lock_owned().await;
        assert!(m.try_lock().is_none() && m.try_lock_owned().is_none());
        drop(owned);
        *m.try_lock_owned().unwrap() += 1;
    });
    assert_eq!(*m.try_lock().unwrap(), 2);
    let mut m = Arc::try_unwrap(m).unwrap();
    *m.get_mut() += 1;
    assert_eq!(m.into_inner(), 3);
}

#[test]
fn select_runs_the_branch_that_finished() {
    block_on(async {
        let mut ready = async { 1 }.boxed().fuse();
        let mut never = samaritan_futures::future::pending::<u32>().fuse();
        let got = select! {
            a = ready => a,
            b = never => b + 100,
        };
        assert_eq!(got, 1);
        let got = select! {
            b = never => b,
            default => 5,
        };
        assert_eq!(got, 5);
        let got = select! {
            a = ready => a,
            complete => 9,
        };
        assert_eq!(got, 9);
    });
    let (tx, rx) = mpsc::unbounded();
    for i in 0..3 {
        tx.unbounded_send(i).unwrap();
    }
    drop(tx);
    assert_eq!(block_on_stream(rx).collect::<Vec<_>>(), [0, 1, 2]);
}
