//! Requests per gRPC method and status code, and their latency: [`MetricsLayer`], a tower
//! layer on the gRPC server.
//!
//! A request's status is read where gRPC puts it: the `grpc-status` response header of a
//! trailers-only response (every error tonic or a handler returns before the body), else the
//! `grpc-status` trailer at the end of the body. Its latency runs from the request's arrival
//! until that status, so for a server stream (`Watch`) it is the stream's whole life. A
//! request whose response is dropped before its status (the client cancelled, the
//! connection broke) counts as `CANCELLED`; a body that ends without a status as `UNKNOWN`.
//!
//! Method labels come from the served services' descriptors (`cardhouse.v1`, health,
//! reflection): any other path counts as `grpc_service="unknown", grpc_method="unknown"`, so
//! a client cannot grow the label set.
//!
//! The layer must sit where requests and responses are plain gRPC: outside `fix_status`
//! (so it sees the status the client sees) and inside any protocol translation such as
//! gRPC-Web (whose responses carry their trailers in the body).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::Instant;

use http_body::{Body, Frame, SizeHint};
use prometheus::{Histogram, HistogramVec, IntCounter, IntCounterVec, Registry};
use tonic::codegen::http;

use super::{LATENCY_BUCKETS, counter, get, histogram};

/// The gRPC status codes by number, as labels.
const CODES: [&str; 17] = [
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
];
const CANCELLED: usize = 1;
const UNKNOWN: usize = 2;

/// The gRPC series and the method table.
pub(crate) struct GrpcSeries {
    methods: HashMap<String, Arc<Method>>,
    unknown: Arc<Method>,
}

/// One method's series: `started` at once, the others per code on first use.
struct Method {
    labels: [String; 3],
    started: IntCounter,
    handled: IntCounterVec,
    handling: HistogramVec,
    by_code: [OnceLock<(IntCounter, Histogram)>; 17],
}

impl Method {
    fn new(
        labels: [String; 3],
        started: &IntCounterVec,
        handled: &IntCounterVec,
        handling: &HistogramVec,
    ) -> Method {
        let l = [labels[0].as_str(), labels[1].as_str(), labels[2].as_str()];
        Method {
            started: started.with_label_values(&l),
            handled: handled.clone(),
            handling: handling.clone(),
            by_code: std::array::from_fn(|_| OnceLock::new()),
            labels,
        }
    }

    fn record(&self, code: usize, seconds: f64) {
        let code = code.min(CODES.len() - 1);
        let (handled, handling) = self.by_code[code].get_or_init(|| {
            let l = [
                self.labels[0].as_str(),
                self.labels[1].as_str(),
                self.labels[2].as_str(),
                CODES[code],
            ];
            (
                self.handled.with_label_values(&l),
                self.handling.with_label_values(&l),
            )
        });
        handled.inc();
        handling.observe(seconds);
    }
}

/// `(package.Service, Method, type)` of every method in an encoded descriptor set.
fn methods_of(descriptors: &[u8]) -> Vec<(String, String, &'static str)> {
    let Ok(set) = <prost_types::FileDescriptorSet as prost::Message>::decode(descriptors) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for file in &set.file {
        let package = file.package();
        for service in &file.service {
            for method in &service.method {
                let kind = match (method.client_streaming(), method.server_streaming()) {
                    (false, false) => "unary",
                    (false, true) => "server_stream",
                    (true, false) => "client_stream",
                    (true, true) => "bidi_stream",
                };
                let service = if package.is_empty() {
                    service.name().to_owned()
                } else {
                    format!("{package}.{}", service.name())
                };
                out.push((service, method.name().to_owned(), kind));
            }
        }
    }
    out
}

impl GrpcSeries {
    pub(crate) fn new(r: &Registry) -> prometheus::Result<GrpcSeries> {
        let labels = ["grpc_service", "grpc_method", "grpc_type"];
        let with_code = ["grpc_service", "grpc_method", "grpc_type", "grpc_code"];
        let started = counter(
            r,
            "grpc_server_started_total",
            "gRPC requests received, per method.",
            &labels,
        )?;
        let handled = counter(
            r,
            "grpc_server_handled_total",
            "gRPC requests completed, per method and status code.",
            &with_code,
        )?;
        let handling = histogram(
            r,
            "grpc_server_handling_seconds",
            "Time from a gRPC request's arrival to its status, per method and code (for a \
             server stream: its whole life).",
            &with_code,
            LATENCY_BUCKETS,
        )?;
        let mut all = methods_of(crate::pb::FILE_DESCRIPTOR_SET);
        all.extend(methods_of(tonic_health::pb::FILE_DESCRIPTOR_SET));
        for package in ["grpc.reflection.v1", "grpc.reflection.v1alpha"] {
            all.push((
                format!("{package}.ServerReflection"),
                "ServerReflectionInfo".to_owned(),
                "bidi_stream",
            ));
        }
        let methods = all
            .into_iter()
            .map(|(service, method, kind)| {
                let path = format!("/{service}/{method}");
                let m = Method::new(
                    [service, method, kind.to_owned()],
                    &started,
                    &handled,
                    &handling,
                );
                (path, Arc::new(m))
            })
            .collect();
        let unknown = Arc::new(Method::new(
            ["unknown".into(), "unknown".into(), "unknown".into()],
            &started,
            &handled,
            &handling,
        ));
        Ok(GrpcSeries { methods, unknown })
    }

    fn method(&self, path: &str) -> Arc<Method> {
        Arc::clone(self.methods.get(path).unwrap_or(&self.unknown))
    }
}

/// One request being counted; counted `CANCELLED` if dropped before its status.
struct Call {
    method: Arc<Method>,
    start: Instant,
    done: bool,
}

impl Call {
    fn finish(mut self, code: usize) {
        self.done = true;
        self.method.record(code, self.start.elapsed().as_secs_f64());
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if !self.done {
            self.method
                .record(CANCELLED, self.start.elapsed().as_secs_f64());
        }
    }
}

fn code_of(value: Option<&http::HeaderValue>) -> usize {
    value
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&c| c < CODES.len())
        .unwrap_or(UNKNOWN)
}

/// Counts every request of the service it wraps (see the module docs). Costs one atomic
/// load a request while metrics are off.
#[derive(Clone, Copy, Debug, Default)]
pub struct MetricsLayer;

impl<S> tower::Layer<S> for MetricsLayer {
    type Service = Metered<S>;
    fn layer(&self, inner: S) -> Metered<S> {
        Metered { inner }
    }
}

/// The service [`MetricsLayer`] makes.
#[derive(Clone, Debug)]
pub struct Metered<S> {
    inner: S,
}

impl<S, B, RB> tower::Service<http::Request<B>> for Metered<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<RB>>,
    S::Future: Unpin,
    RB: Body<Data = bytes::Bytes> + Unpin + Send + 'static,
    RB::Error: Into<tonic::codegen::StdError>,
{
    // tonic's body type, so that gRPC-Web's layer (outside this one) can take it.
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = MeteredFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let call = get().map(|m| {
            let method = m.grpc.method(req.uri().path());
            method.started.inc();
            Call {
                method,
                start: Instant::now(),
                done: false,
            }
        });
        MeteredFuture {
            inner: self.inner.call(req),
            call,
        }
    }
}

/// A request's response future (see [`Metered`]).
pub struct MeteredFuture<F> {
    inner: F,
    call: Option<Call>,
}

impl<F> std::fmt::Debug for MeteredFuture<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeteredFuture").finish_non_exhaustive()
    }
}

impl<F, RB, E> Future for MeteredFuture<F>
where
    F: Future<Output = Result<http::Response<RB>, E>> + Unpin,
    RB: Body<Data = bytes::Bytes> + Unpin + Send + 'static,
    RB::Error: Into<tonic::codegen::StdError>,
{
    type Output = Result<http::Response<tonic::body::Body>, E>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let res = match Pin::new(&mut self.inner).poll(cx) {
            Poll::Ready(r) => r,
            Poll::Pending => return Poll::Pending,
        };
        let call = self.call.take();
        Poll::Ready(match res {
            Ok(res) => {
                let (parts, body) = res.into_parts();
                // A trailers-only response: the status is in the headers.
                let call = match (call, parts.headers.get("grpc-status")) {
                    (Some(c), Some(status)) => {
                        c.finish(code_of(Some(status)));
                        None
                    }
                    (c, _) => c,
                };
                let body = match call {
                    Some(call) => tonic::body::Body::new(MeteredBody {
                        inner: body,
                        call: Some(call),
                    }),
                    None => tonic::body::Body::new(body),
                };
                Ok(http::Response::from_parts(parts, body))
            }
            Err(e) => {
                if let Some(c) = call {
                    c.finish(UNKNOWN);
                }
                Err(e)
            }
        })
    }
}

/// A response body whose trailers end its request's count.
pub struct MeteredBody<B> {
    inner: B,
    call: Option<Call>,
}

impl<B> std::fmt::Debug for MeteredBody<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeteredBody").finish_non_exhaustive()
    }
}

impl<B: Body + Unpin> Body for MeteredBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let frame = match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(f) => f,
            Poll::Pending => return Poll::Pending,
        };
        match &frame {
            Some(Ok(f)) => {
                if let Some(trailers) = f.trailers_ref()
                    && let Some(c) = self.call.take()
                {
                    c.finish(code_of(trailers.get("grpc-status")));
                }
            }
            Some(Err(_)) => {
                if let Some(c) = self.call.take() {
                    c.finish(CANCELLED);
                }
            }
            None => {
                if let Some(c) = self.call.take() {
                    c.finish(UNKNOWN);
                }
            }
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_served_method_has_its_labels() {
        let all = methods_of(crate::pb::FILE_DESCRIPTOR_SET);
        assert!(all.contains(&("cardhouse.v1.Matches".to_owned(), "Act".to_owned(), "unary")));
        assert!(all.contains(&(
            "cardhouse.v1.Matches".to_owned(),
            "Watch".to_owned(),
            "server_stream"
        )));
        assert!(all.iter().any(|(s, _, _)| s == "cardhouse.v1.Engine"));
        let health = methods_of(tonic_health::pb::FILE_DESCRIPTOR_SET);
        assert!(health.contains(&(
            "grpc.health.v1.Health".to_owned(),
            "Check".to_owned(),
            "unary"
        )));
    }

    #[test]
    fn status_codes_parse() {
        let v = |s: &'static str| http::HeaderValue::from_static(s);
        assert_eq!(code_of(Some(&v("0"))), 0);
        assert_eq!(code_of(Some(&v("10"))), 10);
        assert_eq!(code_of(Some(&v("16"))), 16);
        assert_eq!(code_of(Some(&v("17"))), UNKNOWN);
        assert_eq!(code_of(Some(&v("x"))), UNKNOWN);
        assert_eq!(code_of(None), UNKNOWN);
        assert_eq!(CODES[CANCELLED], "CANCELLED");
    }
}
