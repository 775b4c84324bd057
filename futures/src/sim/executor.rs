//! `futures::executor` under `sim`: `block_on` and `block_on_stream` run
//! on samaritan's executor (inside an exploration its tasks are
//! scheduled); the rest is futures'.

use std::future::Future;

pub use futures::executor::*;

use futures::{Stream, StreamExt};

/// Runs `future` to its end on samaritan's executor.
///
/// ```
/// extern crate samaritan_futures as futures;
/// assert_eq!(futures::executor::block_on(async { 1 + 1 }), 2);
/// ```
#[track_caller]
pub fn block_on<F: Future>(future: F) -> F::Output {
    samaritan::executor::block_on(future)
}

/// The items of `stream`, each waited for with [`block_on`].
pub fn block_on_stream<S: Stream + Unpin>(stream: S) -> BlockingStream<S> {
    BlockingStream { stream }
}

/// An iterator over a stream's items ([`block_on_stream`]).
#[derive(Debug)]
pub struct BlockingStream<S> {
    stream: S,
}

impl<S: Stream + Unpin> Iterator for BlockingStream<S> {
    type Item = S::Item;

    fn next(&mut self) -> Option<S::Item> {
        block_on(self.stream.next())
    }
}

impl<S: Stream + Unpin> BlockingStream<S> {
    /// The stream back.
    pub fn into_inner(self) -> S {
        self.stream
    }
}
