//! The `/metrics` listener (`--metrics-listen`): HTTP/1.1, `GET /metrics` in Prometheus's
//! text format, on a port of its own so that it is never exposed with the gRPC port.
//!
//! Bounded like the gRPC listener: at most [`MAX_CONNECTIONS`] open at once (more are
//! closed at once), and a connection has [`HEADER_TIMEOUT`] to send its request's headers.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

use super::{MetricsError, install, render};

/// Most scrape connections open at once.
pub const MAX_CONNECTIONS: usize = 64;
/// Time a scrape connection has to send its request headers.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The content type of Prometheus's text format.
const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The running `/metrics` listener; stops when dropped.
#[derive(Debug)]
pub struct Exporter {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Exporter {
    /// Installs the metrics ([`install`]) and serves them on `listener` until the exporter
    /// is dropped. Must run inside a Tokio runtime.
    ///
    /// # Errors
    /// If the listener has no local address, or the metrics cannot be set up.
    pub fn start(listener: TcpListener) -> Result<Exporter, MetricsError> {
        install()?;
        let addr = listener.local_addr().map_err(|e| {
            MetricsError(prometheus::Error::Msg(format!(
                "the metrics listener has no address: {e}"
            )))
        })?;
        let task = tokio::spawn(accept(listener));
        tracing::info!(%addr, "serving metrics at /metrics");
        Ok(Exporter { addr, task })
    }

    /// The bound address.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn accept(listener: TcpListener) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(e) => {
                tracing::warn!(error = %e, "metrics listener: accept failed");
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            drop(stream);
            continue;
        };
        tokio::spawn(async move {
            let served = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .serve_connection(TokioIo::new(stream), hyper::service::service_fn(respond))
                .await;
            if let Err(e) = served {
                tracing::debug!(error = %e, "metrics connection ended with an error");
            }
            drop(slot);
        });
    }
}

async fn respond(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let reply = |status: StatusCode, body: String| {
        let mut res = Response::new(Full::new(Bytes::from(body)));
        *res.status_mut() = status;
        res
    };
    if req.uri().path() != "/metrics" {
        return Ok(reply(
            StatusCode::NOT_FOUND,
            "not found: the metrics are at /metrics\n".into(),
        ));
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut res = reply(
            StatusCode::METHOD_NOT_ALLOWED,
            "only GET and HEAD are allowed\n".into(),
        );
        res.headers_mut()
            .insert(hyper::header::ALLOW, "GET, HEAD".parse().expect("a header"));
        return Ok(res);
    }
    let mut res = reply(StatusCode::OK, render().await);
    res.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        TEXT_FORMAT.parse().expect("a header"),
    );
    Ok(res)
}
