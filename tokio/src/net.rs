//! tokio's `net` module, its own types: under `sim` only [`lookup_host`]
//! is this crate's, refused inside an exploration.
//!
//! The types (`TcpListener`, `TcpStream`, `TcpSocket`, `UdpSocket`, Unix
//! sockets, ...) are tokio's own, so that they pass to any crate written
//! against tokio (`axum::serve` takes tokio's `TcpListener`, tokio-stream's
//! `TcpListenerStream` wraps it). Network I/O is not simulated: inside an
//! exploration tokio's `bind` and `connect` find no tokio runtime and
//! panic, and the exploration says the test cannot be checked as written
//! (a misuse, not a bug: see the crate's docs), naming the call.

use std::io;
use std::net::SocketAddr;

pub use tokio::net::*;

use crate::io_guard::refuse_inside_exploration;

/// Resolves `host` to socket addresses; same API as
/// [`tokio::net::lookup_host`]; refused inside an exploration.
pub async fn lookup_host<T: ToSocketAddrs>(host: T) -> io::Result<impl Iterator<Item = SocketAddr>> {
    refuse_inside_exploration("tokio::net::lookup_host")?;
    tokio::net::lookup_host(host).await
}
