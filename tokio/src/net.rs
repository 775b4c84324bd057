//! tokio's `net` module; under `sim`, the entry points of network I/O
//! refuse to run inside an exploration, where it is not simulated.
//!
//! [`TcpListener::bind`], [`TcpStream::connect`], [`UdpSocket::bind`] and
//! [`lookup_host`] return an `io::Error` of kind `Unsupported` naming the
//! call inside an exploration; outside one they are tokio's. The three
//! types wrap tokio's and dereference to them, so every other method is
//! tokio's; [`TcpStream`] is `AsyncRead` and `AsyncWrite`. The rest of the
//! module (`TcpSocket`, whose `connect` gives tokio's `TcpStream`, Unix
//! sockets, ...) is tokio's, unchecked: inside an exploration it fails as
//! tokio fails without a runtime.

use std::io;
use std::net::SocketAddr;
use std::ops::Deref;

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
