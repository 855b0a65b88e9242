//! Streams that end promptly when the server shuts down.
//!
//! A server-streaming response (a `Watch`, a health `Watch`) would otherwise hold graceful
//! shutdown open for as long as its client keeps it, and a client that does not read would
//! keep it for the whole grace period. [`UntilShutdown`] ends such a stream when the
//! shutdown starts: after the items already waiting, it ends with `UNAVAILABLE`, so the
//! client learns why and may reconnect to another replica. (A client that reads nothing at
//! all stops the server from sending even that once its HTTP/2 window is full; the server
//! then stops without waiting for it, as soon as no unary request is in flight.)

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::sync::watch;
use tokio_stream::Stream;
use tonic::Status;

/// Resolves once `stopping` turns true (or its sender is gone).
pub fn stopping_future(
    mut stopping: watch::Receiver<bool>,
) -> Pin<Box<dyn Future<Output = ()> + Send>> {
    Box::pin(async move {
        let _ = stopping.wait_for(|&s| s).await;
    })
}

/// `inner`, until the shutdown; then one `UNAVAILABLE` and the end.
pub struct UntilShutdown<S> {
    inner: S,
    shutdown: Pin<Box<dyn Future<Output = ()> + Send>>,
    done: bool,
}

impl<S> std::fmt::Debug for UntilShutdown<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UntilShutdown")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl<S> UntilShutdown<S> {
    pub fn new(inner: S, stopping: watch::Receiver<bool>) -> Self {
        UntilShutdown {
            inner,
            shutdown: stopping_future(stopping),
            done: false,
        }
    }
}

impl<S, T> Stream for UntilShutdown<S>
where
    S: Stream<Item = Result<T, Status>> + Unpin,
{
    type Item = Result<T, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.done {
            return Poll::Ready(None);
        }
        // What is already waiting goes first (the NOT_SERVING of a health Watch, a Watch's
        // own shutdown error); then, if the shutdown started, the stream ends.
        match Pin::new(&mut self.inner).poll_next(cx) {
            Poll::Ready(Some(item)) => return Poll::Ready(Some(item)),
            Poll::Ready(None) => {
                self.done = true;
                return Poll::Ready(None);
            }
            Poll::Pending => {}
        }
        if self.shutdown.as_mut().poll(cx).is_ready() {
            self.done = true;
            return Poll::Ready(Some(Err(Status::unavailable(
                "the server is shutting down",
            ))));
        }
        Poll::Pending
    }
}
