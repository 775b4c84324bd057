//! tokio's `net` module; under `sim`, the entry points of network I/O
//! refuse to run inside an exploration, where it is not simulated.
//!
//! [`TcpListener::bind`], [`TcpStream::connect`], [`UdpSocket::bind`] and
//! [`lookup_host`] return an `io::Error` of kind `Unsupported` naming the
//! call inside an exploration; outside one they are tokio's, and so are
//! [`TcpSocket::connect`] and [`TcpSocket::listen`]. The four types wrap
//! tokio's and dereference to them, so every other method is tokio's;
//! [`TcpStream`] is `AsyncRead` and `AsyncWrite`.
//!
//! Invariant: every method of these types that gives a listener, a stream
//! or a socket gives this module's wrapper, never tokio's own type
//! (`accept`, `poll_accept`, `TcpSocket::{connect, listen}`, the
//! `TryFrom` conversions), so that code written against tokio's signatures
//! type-checks with the rename. The rest of the module (Unix sockets, the
//! split halves, ...) is tokio's, unchecked: inside an exploration it fails
//! as tokio fails without a runtime.

use std::io;
use std::net::SocketAddr;
use std::ops::Deref;
use std::task::{Context, Poll};

pub use tokio::net::*;

use crate::io_guard::{forwards_io, refuse_inside_exploration};

/// Resolves `host` to socket addresses; same API as
/// [`tokio::net::lookup_host`]; refused inside an exploration.
pub async fn lookup_host<T: ToSocketAddrs>(host: T) -> io::Result<impl Iterator<Item = SocketAddr>> {
    refuse_inside_exploration("tokio::net::lookup_host")?;
    tokio::net::lookup_host(host).await
}

/// A TCP listener; tokio's, refused inside an exploration.
#[derive(Debug)]
pub struct TcpListener(tokio::net::TcpListener);

impl TcpListener {
    /// Binds to `addr`; same API as tokio's `TcpListener::bind`.
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<TcpListener> {
        refuse_inside_exploration("tokio::net::TcpListener::bind")?;
        tokio::net::TcpListener::bind(addr).await.map(TcpListener)
    }

    /// Accepts a connection; same API as tokio's `TcpListener::accept`.
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddr)> {
        let (stream, addr) = self.0.accept().await?;
        Ok((TcpStream(stream), addr))
    }

    /// Polls for a connection; same API as tokio's
    /// `TcpListener::poll_accept`.
    pub fn poll_accept(&self, cx: &mut Context<'_>) -> Poll<io::Result<(TcpStream, SocketAddr)>> {
        self.0.poll_accept(cx).map_ok(|(stream, addr)| (TcpStream(stream), addr))
    }

    /// Wraps a std listener; same API as tokio's `TcpListener::from_std`.
    pub fn from_std(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        tokio::net::TcpListener::from_std(listener).map(TcpListener)
    }

    /// Returns tokio's listener.
    pub fn into_inner(self) -> tokio::net::TcpListener {
        self.0
    }
}

impl Deref for TcpListener {
    type Target = tokio::net::TcpListener;

    fn deref(&self) -> &tokio::net::TcpListener {
        &self.0
    }
}

impl TryFrom<std::net::TcpListener> for TcpListener {
    type Error = io::Error;

    /// Same as [`TcpListener::from_std`].
    fn try_from(listener: std::net::TcpListener) -> io::Result<TcpListener> {
        TcpListener::from_std(listener)
    }
}

/// A TCP connection; tokio's, refused inside an exploration.
#[derive(Debug)]
pub struct TcpStream(tokio::net::TcpStream);

impl TcpStream {
    /// Connects to `addr`; same API as tokio's `TcpStream::connect`.
    pub async fn connect<A: ToSocketAddrs>(addr: A) -> io::Result<TcpStream> {
        refuse_inside_exploration("tokio::net::TcpStream::connect")?;
        tokio::net::TcpStream::connect(addr).await.map(TcpStream)
    }

    /// Wraps a std stream; same API as tokio's `TcpStream::from_std`.
    pub fn from_std(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        tokio::net::TcpStream::from_std(stream).map(TcpStream)
    }

    /// Splits the stream into owned halves; same API as tokio's.
    pub fn into_split(self) -> (tcp::OwnedReadHalf, tcp::OwnedWriteHalf) {
        self.0.into_split()
    }

    /// Returns tokio's stream.
    pub fn into_inner(self) -> tokio::net::TcpStream {
        self.0
    }
}

forwards_io!(TcpStream, tokio::net::TcpStream);

impl TryFrom<std::net::TcpStream> for TcpStream {
    type Error = io::Error;

    /// Same as [`TcpStream::from_std`].
    fn try_from(stream: std::net::TcpStream) -> io::Result<TcpStream> {
        TcpStream::from_std(stream)
    }
}

/// A TCP socket not yet connected or listening; tokio's, whose `connect`
/// and `listen` give this module's [`TcpStream`] and [`TcpListener`] and
/// are refused inside an exploration.
#[derive(Debug)]
pub struct TcpSocket(tokio::net::TcpSocket);

impl TcpSocket {
    /// An IPv4 socket; same API as tokio's `TcpSocket::new_v4`.
    pub fn new_v4() -> io::Result<TcpSocket> {
        tokio::net::TcpSocket::new_v4().map(TcpSocket)
    }

    /// An IPv6 socket; same API as tokio's `TcpSocket::new_v6`.
    pub fn new_v6() -> io::Result<TcpSocket> {
        tokio::net::TcpSocket::new_v6().map(TcpSocket)
    }

    /// Wraps a std stream; same API as tokio's `TcpSocket::from_std_stream`.
    pub fn from_std_stream(stream: std::net::TcpStream) -> TcpSocket {
        TcpSocket(tokio::net::TcpSocket::from_std_stream(stream))
    }

    /// Connects to `addr`; same API as tokio's `TcpSocket::connect`.
    pub async fn connect(self, addr: SocketAddr) -> io::Result<TcpStream> {
        refuse_inside_exploration("tokio::net::TcpSocket::connect")?;
        self.0.connect(addr).await.map(TcpStream)
    }

    /// Listens with a queue of `backlog`; same API as tokio's
    /// `TcpSocket::listen`.
    pub fn listen(self, backlog: u32) -> io::Result<TcpListener> {
        refuse_inside_exploration("tokio::net::TcpSocket::listen")?;
        self.0.listen(backlog).map(TcpListener)
    }

    /// Returns tokio's socket.
    pub fn into_inner(self) -> tokio::net::TcpSocket {
        self.0
    }
}

impl Deref for TcpSocket {
    type Target = tokio::net::TcpSocket;

    fn deref(&self) -> &tokio::net::TcpSocket {
        &self.0
    }
}

/// A UDP socket; tokio's, refused inside an exploration.
#[derive(Debug)]
pub struct UdpSocket(tokio::net::UdpSocket);

impl UdpSocket {
    /// Binds to `addr`; same API as tokio's `UdpSocket::bind`.
    pub async fn bind<A: ToSocketAddrs>(addr: A) -> io::Result<UdpSocket> {
        refuse_inside_exploration("tokio::net::UdpSocket::bind")?;
        tokio::net::UdpSocket::bind(addr).await.map(UdpSocket)
    }

    /// Wraps a std socket; same API as tokio's `UdpSocket::from_std`.
    pub fn from_std(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        tokio::net::UdpSocket::from_std(socket).map(UdpSocket)
    }

    /// Returns tokio's socket.
    pub fn into_inner(self) -> tokio::net::UdpSocket {
        self.0
    }
}

impl Deref for UdpSocket {
    type Target = tokio::net::UdpSocket;

    fn deref(&self) -> &tokio::net::UdpSocket {
        &self.0
    }
}

impl TryFrom<std::net::UdpSocket> for UdpSocket {
    type Error = io::Error;

    /// Same as [`UdpSocket::from_std`].
    fn try_from(socket: std::net::UdpSocket) -> io::Result<UdpSocket> {
        UdpSocket::from_std(socket)
    }
}

/// The file descriptors of the wrappers are tokio's, for code that is
/// generic over `AsRawFd`/`AsFd` (a `Deref` does not satisfy a bound).
#[cfg(unix)]
mod fds {
    use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};

    macro_rules! fds {
        ($($wrapper:ty),*) => {$(
            impl AsRawFd for $wrapper {
                fn as_raw_fd(&self) -> RawFd {
                    self.0.as_raw_fd()
                }
            }

            impl AsFd for $wrapper {
                fn as_fd(&self) -> BorrowedFd<'_> {
                    self.0.as_fd()
                }
            }
        )*};
    }

    fds!(super::TcpListener, super::TcpStream, super::TcpSocket, super::UdpSocket);
}
