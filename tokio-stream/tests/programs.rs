//! The programs the tests run: tokio and tokio-stream code, nothing of
//! samaritan's.

use tokio::sync::mpsc;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tokio_stream::StreamExt;

/// Two tasks each send their number into an unbounded channel; returns
/// what its receiver, as a stream, yielded before it ended.
pub(crate) async fn two_producers() -> Vec<u32> {
    let (tx, rx) = mpsc::unbounded_channel();
    for n in [1, 2] {
        let tx = tx.clone();
        tokio::spawn(async move { tx.send(n).unwrap() });
    }
    drop(tx);
    UnboundedReceiverStream::new(rx).collect().await
}
