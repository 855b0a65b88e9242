//! Accepting connections with bounds: at most `max_connections` open at once (more are
//! closed at once, so a flood cannot grow the server without limit), and a connection that
//! sends nothing within `handshake_timeout` of being accepted is closed (so idle or
//! half-open sockets that never speak HTTP/2 cannot hold slots). Connections that did speak
//! are watched by HTTP/2 keepalive pings (see `server.rs`).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::time::Sleep;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// Connection bounds.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    /// Most connections open at once.
    pub max_connections: usize,
    /// Time a new connection has to send its first bytes.
    pub handshake_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_connections: 4096,
            handshake_timeout: Duration::from_secs(10),
        }
    }
}

/// An accepted connection holding its slot until it is dropped.
pub struct Conn {
    stream: TcpStream,
    _slot: OwnedSemaphorePermit,
    /// Counted open (metrics) while the connection lives.
    _open: crate::metrics::ConnectionGuard,
    /// Until the first byte arrives: when to give up on it.
    first_byte: Option<Pin<Box<Sleep>>>,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("stream", &self.stream)
            .finish_non_exhaustive()
    }
}

impl Connected for Conn {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.stream.connect_info()
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(r) => {
                if buf.filled().len() > before {
                    this.first_byte = None;
                }
                Poll::Ready(r)
            }
            Poll::Pending => {
                if let Some(timer) = this.first_byte.as_mut()
                    && timer.as_mut().poll(cx).is_ready()
                {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "no bytes within the handshake timeout",
                    )));
                }
                Poll::Pending
            }
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

use std::future::Future as _;

/// The accepted connections of `listener`, within `limits`. The accept loop ends when the
/// stream is dropped.
pub fn incoming(
    listener: TcpListener,
    limits: ConnectionLimits,
) -> ReceiverStream<io::Result<Conn>> {
    let (tx, rx) = mpsc::channel(16);
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    tokio::spawn(async move {
        let mut refused: u64 = 0;
        loop {
            let accepted = tokio::select! {
                () = tx.closed() => return,
                a = listener.accept() => a,
            };
            let stream = match accepted {
                Ok((s, _)) => s,
                Err(e) => {
                    // Out of descriptors and the like: back off a little instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            };
            let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
                refused += 1;
                crate::metrics::connection_refused();
                if refused.is_power_of_two() {
                    tracing::warn!(
                        refused,
                        max = limits.max_connections,
                        "connection limit reached; closing new connections"
                    );
                }
                drop(stream);
                continue;
            };
            let _ = stream.set_nodelay(true);
            let conn = Conn {
                stream,
                _slot: slot,
                _open: crate::metrics::connection_opened(),
                first_byte: Some(Box::pin(tokio::time::sleep(limits.handshake_timeout))),
            };
            if tx.send(Ok(conn)).await.is_err() {
                return;
            }
        }
    });
    ReceiverStream::new(rx)
}
