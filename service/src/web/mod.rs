//! The browser side of the listener, all off unless asked: gRPC-Web (`--grpc-web`) on the
//! gRPC port, the origins other pages may call it from (`--cors-origin`), and the web table
//! (`--web`, the built client of `web/`, embedded in the binary).
//!
//! One tower layer in front of every service, added only when one of them is on:
//!
//! 1. GET and HEAD requests go to the embedded files (`--web`; gRPC is always POST);
//! 2. CORS: preflights are answered here, and a response carries
//!    `access-control-allow-origin` only for a listed origin (none by default: pages of
//!    other origins cannot read answers);
//! 3. gRPC-Web requests (HTTP/1.1 or HTTP/2) are translated to gRPC by `tonic-web`; plain
//!    gRPC over HTTP/2 passes through unchanged.
//!
//! | file | owns | may call |
//! |---|---|---|
//! | `mod.rs` | the layer and its configuration ([`WebConfig`]) | `assets`, `origin` |
//! | `assets.rs` | the web table's files, embedded, served on GET and HEAD | — |
//! | `origin.rs` | an origin allowed to call the server (`--cors-origin`) | — |

mod assets;
mod origin;

use std::task::{Context, Poll};

use futures_util::future::{Either, Ready, ready};
use tonic::body::Body;
use tonic::codegen::http::{self, HeaderName, Method, Request, Response};
use tonic_web::{GrpcWebLayer, GrpcWebService};
use tower::Layer;
use tower_http::cors::{AllowOrigin, Cors, CorsLayer};

pub use origin::{Origin, OriginError};

/// What the listener serves to browsers.
#[derive(Clone, Debug, Default)]
pub struct WebConfig {
    /// gRPC-Web (`application/grpc-web*`, over HTTP/1.1 or HTTP/2) beside gRPC.
    pub grpc_web: bool,
    /// Origins whose pages may call the server (CORS); empty: none but the server's own.
    pub cors_origins: Vec<Origin>,
    /// The web table on `GET /` (needs gRPC-Web, which it turns on).
    pub table: bool,
}

impl WebConfig {
    /// Whether the listener must accept HTTP/1.1 (browsers speak it over plain TCP).
    #[must_use]
    pub fn http1(&self) -> bool {
        self.grpc_web || self.table
    }

    /// The layer, when anything is on (`None`: requests reach the services untouched).
    #[must_use]
    pub fn layer(&self) -> Option<WebLayer> {
        if !self.http1() {
            return None;
        }
        let header = |h: &'static str| HeaderName::from_static(h);
        let cors = CorsLayer::new()
            .allow_origin(AllowOrigin::list(
                self.cors_origins.iter().map(Origin::header_value),
            ))
            .allow_methods([Method::POST])
            .allow_headers([
                http::header::CONTENT_TYPE,
                http::header::AUTHORIZATION,
                header("x-grpc-web"),
                header("x-user-agent"),
                header("grpc-timeout"),
            ])
            .expose_headers([
                header("grpc-status"),
                header("grpc-message"),
                header("grpc-status-details-bin"),
            ])
            .max_age(std::time::Duration::from_secs(24 * 3600));
        Some(WebLayer {
            table: self.table,
            cors,
        })
    }
}

/// See the module docs.
#[derive(Clone, Debug)]
pub struct WebLayer {
    table: bool,
    cors: CorsLayer,
}

impl<S> Layer<S> for WebLayer {
    type Service = WebService<S>;

    fn layer(&self, inner: S) -> WebService<S> {
        WebService {
            table: self.table,
            inner: self.cors.layer(GrpcWebLayer::new().layer(inner)),
        }
    }
}

/// See the module docs.
#[derive(Clone, Debug)]
pub struct WebService<S> {
    table: bool,
    inner: Cors<GrpcWebService<S>>,
}

impl<S> tower::Service<Request<Body>> for WebService<S>
where
    Cors<GrpcWebService<S>>: tower::Service<Request<Body>, Response = Response<Body>>,
{
    type Response = Response<Body>;
    type Error = <Cors<GrpcWebService<S>> as tower::Service<Request<Body>>>::Error;
    type Future = Either<
        Ready<Result<Response<Body>, Self::Error>>,
        <Cors<GrpcWebService<S>> as tower::Service<Request<Body>>>::Future,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<Body>) -> Self::Future {
        if self.table && (req.method() == Method::GET || req.method() == Method::HEAD) {
            return Either::Left(ready(Ok(assets::respond(&req))));
        }
        Either::Right(self.inner.call(req))
    }
}
