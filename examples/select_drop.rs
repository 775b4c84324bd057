//! A `select!` loop that drops a message it already took. A consumer task
//! races two branches: "the next message, once the rate limiter lets it
//! through" and "shutdown". The first branch receives a message and then
//! waits for a permit; if shutdown wins meanwhile, `select` drops the losing
//! branch's future and the message inside it with it. samaritan finds the
//! execution where the sent message is never processed, and its token
//! replays it. The fixed loop selects only on the receive itself (which
//! takes a message only when it returns it) and drains the channel at
//! shutdown.
//!
//! `select` here is a hand-written two-branch `select!` with its semantics:
//! the first branch to finish wins and the other is dropped.
//!
//! Run with `cargo run --example select_drop --features sim`.

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::task::Poll;

use samaritan::executor::{self, block_on};
use samaritan::sync::atomic::{AtomicUsize, Ordering};
use samaritan::sync::{async_mpsc, Arc, Notify, Semaphore};

/// Which branch of [`select`] finished first.
enum Either<L, R> {
    Left(L),
    Right(R),
}

/// A two-branch `select!`: polls `left`, then `right`, until one is ready;
/// the other is dropped unfinished, with whatever it holds.
async fn select<L: Future, R: Future>(left: L, right: R) -> Either<L::Output, R::Output> {
    let (mut left, mut right) = (pin!(left), pin!(right));
    poll_fn(|cx| {
        if let Poll::Ready(v) = left.as_mut().poll(cx) {
            return Poll::Ready(Either::Left(v));
        }
        right.as_mut().poll(cx).map(Either::Right)
    })
    .await
}

/// What the consumer shares with the producer.
struct Shared {
    /// A rate limiter: one permit per processed message.
    limiter: Semaphore,
    shutdown: Notify,
    processed: AtomicUsize,
}

impl Shared {
    /// Processes one message under a permit.
    async fn process(&self, _message: u32) {
        let _permit = self.limiter.acquire().await.unwrap();
        self.processed.fetch_add(1, Ordering::SeqCst);
    }
}

/// The buggy loop: the losing branch may hold a message already received.
async fn consume(shared: Arc<Shared>, mut rx: async_mpsc::Receiver<u32>) {
    loop {
        let next = async {
            let message = rx.recv().await?;
            // The bug: the message is out of the channel, and this await
            // may lose the race against shutdown, which drops it.
            let permit = shared.limiter.acquire().await.unwrap();
            Some((message, permit))
        };
        match select(next, shared.shutdown.notified()).await {
            Either::Left(Some((_message, _permit))) => {
                shared.processed.fetch_add(1, Ordering::SeqCst);
            }
            Either::Left(None) | Either::Right(()) => return,
        }
    }
}

/// The fixed loop: select on the cancel-safe receive only, and drain at shutdown.
async fn consume_fixed(shared: Arc<Shared>, mut rx: async_mpsc::Receiver<u32>) {
    loop {
        match select(rx.recv(), shared.shutdown.notified()).await {
            Either::Left(Some(message)) => shared.process(message).await,
            Either::Left(None) => return,
            Either::Right(()) => break,
        }
    }
    while let Ok(message) = rx.try_recv() {
        shared.process(message).await;
    }
}

/// The producer holds a permit while it sends one message and signals
/// shutdown; every message sent before shutdown must be processed.
fn producer_and_consumer(fixed: bool) {
    block_on(async move {
        let shared =
            Arc::new(Shared { limiter: Semaphore::new(1), shutdown: Notify::new(), processed: AtomicUsize::new(0) });
        let (tx, rx) = async_mpsc::unbounded_channel();
        let consumer = if fixed {
            executor::spawn(consume_fixed(shared.clone(), rx))
        } else {
            executor::spawn(consume(shared.clone(), rx))
        };
        {
            let _busy = shared.limiter.acquire().await.unwrap();
            tx.send(1).unwrap();
            shared.shutdown.notify_one();
        }
        consumer.await.unwrap();
        assert_eq!(shared.processed.load(Ordering::SeqCst), 1, "a sent message was never processed");
    });
}

/// The buggy loop: a message is lost in one interleaving.
pub(crate) fn select_drop() {
    producer_and_consumer(false);
}

/// The fixed loop: every message sent before shutdown is processed.
pub(crate) fn fixed() {
    producer_and_consumer(true);
}

#[cfg(feature = "sim")]
fn main() {
    let report = samaritan::Builder::new().explore(select_drop).expect("valid settings");
    println!("{report}");
    let Some(token) = report.token() else {
        println!("no bug found");
        std::process::exit(1);
    };
    let again = samaritan::Builder::new().replay(token, select_drop).expect("a token we just made");
    println!("replaying {token}: {}", again.outcome);
    let report = samaritan::Builder::new().explore(fixed).expect("valid settings");
    println!("{report}");
}
