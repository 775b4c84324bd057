//! The error of network and file I/O inside an exploration, and the
//! forwarding impls of the types that wrap tokio's I/O handles.

use std::io;

/// Returns the error `call` gives inside an exploration, where network and
/// file I/O are not simulated; `Ok` outside one.
pub(crate) fn refuse_inside_exploration(call: &str) -> io::Result<()> {
    if crate::exploring() {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "`{call}` inside a samaritan exploration: network and file I/O are not simulated; \
                 run it outside the exploration or give the code under test an in-memory stand-in"
            ),
        ));
    }
    Ok(())
}

/// Implements `Deref`/`DerefMut` to the wrapped tokio handle and forwards
/// `AsyncRead`/`AsyncWrite` to it, for a newtype `$wrapper($inner)`.
macro_rules! forwards_io {
    ($wrapper:ty, $inner:ty) => {
        impl std::ops::Deref for $wrapper {
            type Target = $inner;

            fn deref(&self) -> &$inner {
                &self.0
            }
        }

        impl std::ops::DerefMut for $wrapper {
            fn deref_mut(&mut self) -> &mut $inner {
                &mut self.0
            }
        }

        impl tokio::io::AsyncRead for $wrapper {
            fn poll_read(
                mut self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &mut tokio::io::ReadBuf<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                tokio::io::AsyncRead::poll_read(std::pin::Pin::new(&mut self.0), cx, buf)
            }
        }

        impl tokio::io::AsyncWrite for $wrapper {
            fn poll_write(
                mut self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
                buf: &[u8],
            ) -> std::task::Poll<std::io::Result<usize>> {
                tokio::io::AsyncWrite::poll_write(std::pin::Pin::new(&mut self.0), cx, buf)
            }

            fn poll_flush(
                mut self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                tokio::io::AsyncWrite::poll_flush(std::pin::Pin::new(&mut self.0), cx)
            }

            fn poll_shutdown(
                mut self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<std::io::Result<()>> {
                tokio::io::AsyncWrite::poll_shutdown(std::pin::Pin::new(&mut self.0), cx)
            }
        }
    };
}

pub(crate) use forwards_io;
