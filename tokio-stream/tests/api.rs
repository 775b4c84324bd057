//! The wrappers' API, as `#[tokio::test]`s: on tokio-stream without
//! `sim`, explored (every schedule, each asserting the same values) under
//! it.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio_stream::wrappers::{IntervalStream, ReceiverStream, UnboundedReceiverStream};
use tokio_stream::{Stream, StreamExt};

use crate::programs;

#[tokio::test]
async fn a_receiver_stream_yields_every_item_sent() {
    let mut got = programs::two_producers().await;
    got.sort_unstable();
    assert_eq!(got, [1, 2]);
}

#[tokio::test]
async fn a_closed_receiver_stream_still_yields_what_was_queued() {
    let (tx, rx) = mpsc::channel(2);
    tx.send(1).await.unwrap();
    let mut rx = ReceiverStream::from(rx);
    rx.close();
    assert!(tx.send(2).await.is_err());
    assert!(rx.as_ref().is_closed());
    assert_eq!(rx.next().await, Some(1));
    assert_eq!(rx.next().await, None);
    let mut inner = rx.into_inner();
    assert_eq!(inner.recv().await, None);
}

#[tokio::test]
async fn an_unbounded_receiver_stream_gives_its_receiver_back() {
    let (tx, rx) = mpsc::unbounded_channel();
    let mut rx = UnboundedReceiverStream::new(rx);
    tx.send("a").unwrap();
    assert_eq!(rx.as_mut().recv().await, Some("a"));
    tx.send("b").unwrap();
    let mut inner = rx.into_inner();
    assert_eq!(inner.try_recv(), Ok("b"));
}

#[tokio::test]
async fn an_interval_stream_ticks_at_its_period() {
    let start = tokio::time::Instant::now();
    let ticks = IntervalStream::new(tokio::time::interval(Duration::from_millis(5)));
    assert_eq!(ticks.size_hint(), (usize::MAX, None));
    let ticks: Vec<_> = ticks.take(3).collect().await;
    let since: Vec<_> = ticks.iter().map(|t| t.duration_since(start)).collect();
    if cfg!(feature = "sim") {
        // Virtual time: the first tick at once, then one per period.
        assert_eq!(since, [Duration::ZERO, Duration::from_millis(5), Duration::from_millis(10)]);
    } else {
        assert!(since[2] >= Duration::from_millis(10), "{since:?}");
    }
}
