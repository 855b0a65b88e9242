//! The web table's files (`web/dist`, built by `npm run build` in `web/` and committed, so
//! that `cargo build` needs no Node), embedded in the binary and served on GET and HEAD.

use tonic::body::Body;
use tonic::codegen::http::{HeaderValue, Method, Request, Response, StatusCode, header};

/// Path, content type, bytes.
const FILES: &[(&str, &str, &[u8])] = &[
    (
        "/index.html",
        "text/html; charset=utf-8",
        include_bytes!("../../../web/dist/index.html"),
    ),
    (
        "/app.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../../web/dist/app.js"),
    ),
    (
        "/app.css",
        "text/css; charset=utf-8",
        include_bytes!("../../../web/dist/app.css"),
    ),
];

/// The page talks to its own origin only; no inline script, no frames.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; \
    frame-ancestors 'none'";

/// The file of a GET or HEAD request (`/` is `/index.html`), or 404.
pub(super) fn respond<B>(req: &Request<B>) -> Response<Body> {
    let path = match req.uri().path() {
        "/" => "/index.html",
        p => p,
    };
    let Some(&(_, content_type, bytes)) = FILES.iter().find(|(p, _, _)| *p == path) else {
        let mut res = Response::new(Body::new("not found\n".to_owned()));
        *res.status_mut() = StatusCode::NOT_FOUND;
        set(&mut res, header::CONTENT_TYPE, "text/plain; charset=utf-8");
        return res;
    };
    let body = if req.method() == Method::HEAD {
        Body::empty()
    } else {
        Body::new(http_body_util::Full::new(bytes::Bytes::from_static(bytes)))
    };
    let mut res = Response::new(body);
    set(&mut res, header::CONTENT_TYPE, content_type);
    res.headers_mut()
        .insert(header::CONTENT_LENGTH, HeaderValue::from(bytes.len()));
    // Revalidated on every load: a new binary serves a new client at once.
    set(&mut res, header::CACHE_CONTROL, "no-cache");
    set(&mut res, header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(&mut res, header::REFERRER_POLICY, "no-referrer");
    set(&mut res, header::CONTENT_SECURITY_POLICY, CSP);
    res
}

fn set(res: &mut Response<Body>, name: header::HeaderName, value: &'static str) {
    res.headers_mut()
        .insert(name, HeaderValue::from_static(value));
}
