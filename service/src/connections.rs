//! Accepting connections with bounds: at most `max_connections` open at once (so a flood
//! cannot grow the server without limit), and a connection that sends nothing within
//! `handshake_timeout` of being accepted is closed (so idle or half-open sockets that never
//! speak HTTP/2 cannot hold slots for long). At the limit, a new connection takes the slot
//! of the oldest one that has sent nothing yet (a client sends its first bytes at once, an
//! idle socket never does), so a flood of silent connections cannot keep a new client out
//! even for the handshake timeout; only when every slot holds a connection that spoke is a
//! new one closed at once. Connections that did speak are watched by HTTP/2 keepalive pings
//! (see `server.rs`).

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc, oneshot};
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

/// How long the accept loop waits for the slot of a silent connection it closed.
const EVICTION_WAIT: Duration = Duration::from_secs(1);

/// An accepted connection holding its slot until it is dropped.
pub struct Conn {
    stream: TcpStream,
    _slot: OwnedSemaphorePermit,
    /// Until the first byte arrives: when to give up on it.
    first_byte: Option<Pin<Box<Sleep>>>,
    /// Until the first byte arrives: fires when a newer connection needs the slot.
    evicted: Option<oneshot::Receiver<()>>,
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
                    // It spoke: no longer closed for silence (the accept loop sees the
                    // receiver gone).
                    this.first_byte = None;
                    this.evicted = None;
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
                if let Some(evicted) = this.evicted.as_mut()
                    && let Poll::Ready(outcome) = Pin::new(evicted).poll(cx)
                {
                    this.evicted = None;
                    if outcome.is_ok() {
                        return Poll::Ready(Err(io::Error::new(
                            io::ErrorKind::ConnectionAborted,
                            "closed without a byte sent, its slot taken by a newer connection",
                        )));
                    }
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
    let max = limits.max_connections.max(1);
    let slots = Arc::new(Semaphore::new(max));
    tokio::spawn(async move {
        let (mut refused, mut evicted): (u64, u64) = (0, 0);
        // The connections that have not sent a byte yet, oldest first (senders whose
        // connection spoke or ended are closed, and skipped).
        let mut silent: VecDeque<oneshot::Sender<()>> = VecDeque::new();
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
            let slot = match Arc::clone(&slots).try_acquire_owned() {
                Ok(slot) => Some(slot),
                Err(_) => {
                    let slot = make_room(&mut silent, &slots).await;
                    if slot.is_some() {
                        evicted += 1;
                        if evicted.is_power_of_two() {
                            tracing::warn!(
                                evicted,
                                max,
                                "connection limit reached; closing the oldest connections \
                                 that have sent nothing yet"
                            );
                        }
                    }
                    slot
                }
            };
            let Some(slot) = slot else {
                refused += 1;
                if refused.is_power_of_two() {
                    tracing::warn!(
                        refused,
                        max,
                        "connection limit reached by connections in use; closing new connections"
                    );
                }
                drop(stream);
                continue;
            };
            let _ = stream.set_nodelay(true);
            let (evict, evicted_rx) = oneshot::channel();
            silent.push_back(evict);
            if silent.len() > 2 * max {
                silent.retain(|s| !s.is_closed());
            }
            let conn = Conn {
                stream,
                _slot: slot,
                first_byte: Some(Box::pin(tokio::time::sleep(limits.handshake_timeout))),
                evicted: Some(evicted_rx),
            };
            if tx.send(Ok(conn)).await.is_err() {
                return;
            }
        }
    });
    ReceiverStream::new(rx)
}

/// Closes the oldest connection that has sent nothing yet (if there is one) and waits for
/// its slot (at most [`EVICTION_WAIT`]).
async fn make_room(
    silent: &mut VecDeque<oneshot::Sender<()>>,
    slots: &Arc<Semaphore>,
) -> Option<OwnedSemaphorePermit> {
    while let Some(oldest) = silent.pop_front() {
        // Fails if the connection spoke or ended meanwhile: then the next one.
        if oldest.send(()).is_ok() {
            let slot = tokio::time::timeout(EVICTION_WAIT, Arc::clone(slots).acquire_owned());
            return slot.await.ok()?.ok();
        }
    }
    None
}
