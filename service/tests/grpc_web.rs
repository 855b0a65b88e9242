//! gRPC-Web on the gRPC port (`--grpc-web`), its CORS origins (`--cors-origin`) and the web
//! table's files (`--web`), against the real binary, with a plain HTTP/1.1 client: what a
//! browser sends, byte for byte (frames of a flag byte and a big-endian length; the status
//! in a trailer frame).

mod common;

use std::net::SocketAddr;

use bytes::Bytes;
use cardhouse_server::pb;
use common::process::Server;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode, header::HeaderMap};
use hyper_util::rt::TokioIo;
use prost::Message;

/// One HTTP/1.1 exchange on a new connection: status, headers and the whole body (or, with
/// `first_frame`, the body until its first gRPC-Web frame is complete: for streams).
async fn http1(
    addr: SocketAddr,
    req: Request<Full<Bytes>>,
    first_frame: bool,
) -> Result<(StatusCode, HeaderMap, Vec<u8>), String> {
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| e.to_string())?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(conn);
    let res = sender.send_request(req).await.map_err(|e| e.to_string())?;
    let (parts, mut body) = res.into_parts();
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| e.to_string())?;
        if let Ok(data) = frame.into_data() {
            bytes.extend_from_slice(&data);
        }
        if first_frame
            && bytes.len() >= 5
            && bytes.len() >= 5 + u32::from_be_bytes(bytes[1..5].try_into().unwrap()) as usize
        {
            break;
        }
    }
    Ok((parts.status, parts.headers, bytes))
}

/// A gRPC-Web request of `path` with message `msg`.
fn grpc_web<M: Message>(
    path: &str,
    msg: &M,
    token: Option<&str>,
    origin: Option<&str>,
) -> Request<Full<Bytes>> {
    let body = msg.encode_to_vec();
    let mut framed = vec![0u8];
    framed.extend((body.len() as u32).to_be_bytes());
    framed.extend(body);
    let mut req = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header("host", "localhost")
        .header("content-type", "application/grpc-web+proto")
        .header("x-grpc-web", "1");
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    if let Some(o) = origin {
        req = req.header("origin", o);
    }
    req.body(Full::new(Bytes::from(framed))).unwrap()
}

/// The messages and the trailers (`grpc-status`, `grpc-message`) of a gRPC-Web body; a
/// trailers-only answer has its status in the headers instead.
fn frames(headers: &HeaderMap, body: &[u8]) -> (Vec<Vec<u8>>, Vec<(String, String)>) {
    let mut messages = Vec::new();
    let mut trailers = Vec::new();
    for name in ["grpc-status", "grpc-message"] {
        if let Some(v) = headers.get(name) {
            trailers.push((name.to_owned(), v.to_str().unwrap().to_owned()));
        }
    }
    let mut rest = body;
    while rest.len() >= 5 {
        let len = u32::from_be_bytes(rest[1..5].try_into().unwrap()) as usize;
        let payload = &rest[5..5 + len];
        if rest[0] & 0x80 != 0 {
            for line in String::from_utf8_lossy(payload).split("\r\n") {
                if let Some((k, v)) = line.split_once(':') {
                    trailers.push((k.trim().to_lowercase(), v.trim().to_owned()));
                }
            }
        } else {
            messages.push(payload.to_vec());
        }
        rest = &rest[5 + len..];
    }
    (messages, trailers)
}

fn trailer<'a>(trailers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    trailers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

async fn create(addr: SocketAddr, origin: Option<&str>) -> (HeaderMap, pb::CreateMatchResponse) {
    let req = pb::CreateMatchRequest {
        game: "klaberjass".into(),
        seats: vec![
            pb::SeatKind::Human as i32,
            pb::SeatKind::HeuristicBot as i32,
        ],
        seed: Some(7),
        ..Default::default()
    };
    let (status, headers, body) = http1(
        addr,
        grpc_web("/cardhouse.v1.Matches/CreateMatch", &req, None, origin),
        false,
    )
    .await
    .unwrap();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        headers.get("content-type").unwrap(),
        "application/grpc-web+proto"
    );
    let (messages, trailers) = frames(&headers, &body);
    assert_eq!(trailer(&trailers, "grpc-status"), Some("0"), "{trailers:?}");
    assert_eq!(messages.len(), 1);
    (
        headers,
        pb::CreateMatchResponse::decode(messages[0].as_slice()).unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_web_over_http1_plays_watches_and_reports_errors_as_grpc_does() {
    let server = Server::must_start(&["--in-memory", "--grpc-web"]);
    let (_, created) = create(server.addr, None).await;
    let token = created.seat_tokens[0].token.clone();
    let view_req = pb::GetViewRequest {
        match_id: created.match_id.clone(),
    };

    // The seat's view, with its legal actions.
    let (_, headers, body) = http1(
        server.addr,
        grpc_web(
            "/cardhouse.v1.Matches/GetView",
            &view_req,
            Some(&token),
            None,
        ),
        false,
    )
    .await
    .unwrap();
    let (messages, trailers) = frames(&headers, &body);
    assert_eq!(trailer(&trailers, "grpc-status"), Some("0"));
    let view = pb::GetViewResponse::decode(messages[0].as_slice())
        .unwrap()
        .view
        .unwrap();
    assert_eq!(view.seat, Some(0));
    assert!(!view.legal_actions.is_empty(), "{view:?}");

    // A stale move number: ABORTED with the server's words, as over gRPC.
    let act = pb::ActRequest {
        match_id: created.match_id.clone(),
        action: Some(pb::act_request::Action::ActionId(
            view.legal_actions[0].id.unwrap(),
        )),
        expected_move_number: Some(view.move_number + 5),
        include_view: false,
    };
    let (_, headers, body) = http1(
        server.addr,
        grpc_web("/cardhouse.v1.Matches/Act", &act, Some(&token), None),
        false,
    )
    .await
    .unwrap();
    let (messages, trailers) = frames(&headers, &body);
    assert!(messages.is_empty());
    assert_eq!(
        trailer(&trailers, "grpc-status"),
        Some("10"),
        "{trailers:?}"
    );
    assert!(
        trailer(&trailers, "grpc-message").is_some_and(|m| m.contains("move")),
        "{trailers:?}"
    );
    // The right one is applied.
    let act = pb::ActRequest {
        expected_move_number: Some(view.move_number),
        ..act
    };
    let (_, headers, body) = http1(
        server.addr,
        grpc_web("/cardhouse.v1.Matches/Act", &act, Some(&token), None),
        false,
    )
    .await
    .unwrap();
    let (messages, trailers) = frames(&headers, &body);
    assert_eq!(trailer(&trailers, "grpc-status"), Some("0"), "{trailers:?}");
    let after = pb::ActResponse::decode(messages[0].as_slice())
        .unwrap()
        .view
        .unwrap();
    assert!(after.move_number > view.move_number);

    // Watch, a server stream: its first message is the snapshot of the current view.
    let (_, headers, body) = http1(
        server.addr,
        grpc_web(
            "/cardhouse.v1.Matches/Watch",
            &pb::WatchRequest {
                match_id: created.match_id.clone(),
                ..Default::default()
            },
            Some(&created.spectator_token),
            None,
        ),
        true,
    )
    .await
    .unwrap();
    let (messages, _) = frames(&headers, &body);
    let first = pb::WatchResponse::decode(messages[0].as_slice()).unwrap();
    assert!(
        matches!(first.kind, Some(pb::watch_response::Kind::Snapshot(ref v)) if v.role == pb::Role::Spectator as i32),
        "{first:?}"
    );

    // Plain gRPC over HTTP/2 is served beside it.
    let mut client = server.matches().await;
    let v = client
        .get_view(common::authed(&token, view_req))
        .await
        .unwrap()
        .into_inner()
        .view
        .unwrap();
    assert_eq!(v.move_number, after.move_number);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cors_allows_the_listed_origins_only() {
    let allowed = "https://play.example.com";
    let server = Server::must_start(&[
        "--in-memory",
        "--grpc-web",
        "--cors-origin",
        "https://play.example.com,http://localhost:5173",
    ]);
    let preflight = |origin: &str| {
        Request::builder()
            .method(Method::OPTIONS)
            .uri("/cardhouse.v1.Matches/CreateMatch")
            .header("host", "localhost")
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "authorization,content-type,x-grpc-web,x-user-agent",
            )
            .body(Full::new(Bytes::new()))
            .unwrap()
    };
    let (status, headers, _) = http1(server.addr, preflight(allowed), false).await.unwrap();
    assert!(status.is_success(), "{status}");
    assert_eq!(headers.get("access-control-allow-origin").unwrap(), allowed);
    let allow_headers = headers
        .get("access-control-allow-headers")
        .unwrap()
        .to_str()
        .unwrap();
    for h in [
        "authorization",
        "content-type",
        "x-grpc-web",
        "x-user-agent",
    ] {
        assert!(allow_headers.contains(h), "{allow_headers}");
    }
    let (_, headers, _) = http1(server.addr, preflight("https://evil.example.com"), false)
        .await
        .unwrap();
    assert!(
        headers.get("access-control-allow-origin").is_none(),
        "{headers:?}"
    );

    // The calls themselves: the allowance (and the status headers exposed) for the listed
    // origin only.
    let (headers, _) = create(server.addr, Some(allowed)).await;
    assert_eq!(headers.get("access-control-allow-origin").unwrap(), allowed);
    let exposed = headers
        .get("access-control-expose-headers")
        .unwrap()
        .to_str()
        .unwrap();
    assert!(exposed.contains("grpc-status") && exposed.contains("grpc-message"));
    let (headers, _) = create(server.addr, Some("https://evil.example.com")).await;
    assert!(headers.get("access-control-allow-origin").is_none());
    let (headers, _) = create(server.addr, Some("http://localhost:5173")).await;
    assert_eq!(
        headers.get("access-control-allow-origin").unwrap(),
        "http://localhost:5173"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn by_default_no_origin_is_allowed_and_grpc_web_and_the_table_are_off() {
    // gRPC-Web on, no --cors-origin: no page of another origin may read an answer.
    let server = Server::must_start(&["--in-memory", "--grpc-web"]);
    let (headers, _) = create(server.addr, Some("https://play.example.com")).await;
    assert!(headers.get("access-control-allow-origin").is_none());

    // Nothing asked: HTTP/1.1 is not spoken at all, so neither gRPC-Web nor the page.
    let server = Server::must_start(&["--in-memory"]);
    let req = pb::CreateMatchRequest {
        game: "jass".into(),
        ..Default::default()
    };
    let r = http1(
        server.addr,
        grpc_web("/cardhouse.v1.Matches/CreateMatch", &req, None, None),
        false,
    )
    .await;
    assert!(r.is_err(), "gRPC-Web was served without --grpc-web: {r:?}");

    // And the flag checks.
    let failed = Server::start(&["--in-memory", "--cors-origin", "https://a.example"])
        .map(|_| ())
        .unwrap_err();
    assert!(
        failed.stderr.contains("--cors-origin needs --grpc-web"),
        "{}",
        failed.stderr
    );
    let failed = Server::start(&[
        "--in-memory",
        "--grpc-web",
        "--cors-origin",
        "https://a.example/",
    ])
    .map(|_| ())
    .unwrap_err();
    assert!(failed.stderr.contains("not an origin"), "{}", failed.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_table_is_served_with_web_and_talks_grpc_web() {
    let server = Server::must_start(&["--in-memory", "--web"]);
    let get = |path: &str, method: Method| {
        Request::builder()
            .method(method)
            .uri(path)
            .header("host", "localhost")
            .body(Full::new(Bytes::new()))
            .unwrap()
    };
    let (status, headers, body) = http1(server.addr, get("/", Method::GET), false)
        .await
        .unwrap();
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        headers.get("content-type").unwrap(),
        "text/html; charset=utf-8"
    );
    assert!(headers.get("content-security-policy").is_some());
    let html = String::from_utf8(body).unwrap();
    assert!(
        html.contains("/app.js") && html.contains("/app.css"),
        "{html}"
    );
    // What it embeds is the committed build.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/dist");
    for (path, file, ty) in [
        ("/app.js", "app.js", "text/javascript; charset=utf-8"),
        ("/app.css", "app.css", "text/css; charset=utf-8"),
        ("/index.html", "index.html", "text/html; charset=utf-8"),
    ] {
        let (status, headers, body) = http1(server.addr, get(path, Method::GET), false)
            .await
            .unwrap();
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(headers.get("content-type").unwrap(), ty);
        assert_eq!(body, std::fs::read(root.join(file)).unwrap(), "{path}");
        let (status, headers, body) = http1(server.addr, get(path, Method::HEAD), false)
            .await
            .unwrap();
        assert_eq!(status, StatusCode::OK);
        assert!(body.is_empty());
        assert_eq!(
            headers.get("content-length").unwrap().to_str().unwrap(),
            std::fs::metadata(root.join(file))
                .unwrap()
                .len()
                .to_string()
        );
    }
    let (status, _, _) = http1(server.addr, get("/missing.js", Method::GET), false)
        .await
        .unwrap();
    assert_eq!(status, StatusCode::NOT_FOUND);
    // --web turns gRPC-Web on.
    create(server.addr, None).await;
    // Without --web there is no page (gRPC-Web alone answers no GET).
    let server = Server::must_start(&["--in-memory", "--grpc-web"]);
    let (status, _, _) = http1(server.addr, get("/", Method::GET), false)
        .await
        .unwrap();
    assert_ne!(status, StatusCode::OK);
}

/// SIGTERM ends a gRPC-Web `Watch` over HTTP/1.1 as it ends a gRPC one (UNAVAILABLE in the
/// trailer frame), and the server stops at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_ends_grpc_web_streams() {
    let server = Server::must_start(&["--in-memory", "--grpc-web"]);
    let (_, created) = create(server.addr, None).await;
    // The Watch on a connection of its own, read frame by frame: `opened` fires with the
    // first message (the snapshot), so the stop comes while the stream is open.
    let stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(conn);
    let res = sender
        .send_request(grpc_web(
            "/cardhouse.v1.Matches/Watch",
            &pb::WatchRequest {
                match_id: created.match_id.clone(),
                ..Default::default()
            },
            Some(&created.spectator_token),
            None,
        ))
        .await
        .unwrap();
    let (opened_tx, opened) = tokio::sync::oneshot::channel::<()>();
    let watch = tokio::spawn(async move {
        let (parts, mut body) = res.into_parts();
        let mut bytes = Vec::new();
        let mut opened_tx = Some(opened_tx);
        while let Some(frame) = body.frame().await {
            if let Ok(data) = frame.unwrap().into_data() {
                bytes.extend_from_slice(&data);
            }
            if bytes.len() > 5
                && let Some(tx) = opened_tx.take()
            {
                let _ = tx.send(());
            }
        }
        (parts.headers, bytes)
    });
    opened.await.expect("the snapshot came");
    let (status, took) = server.term();
    assert!(status.success(), "{status:?}");
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    let (headers, body) = tokio::time::timeout(std::time::Duration::from_secs(10), watch)
        .await
        .expect("the stream ended")
        .unwrap();
    let (messages, trailers) = frames(&headers, &body);
    assert!(!messages.is_empty(), "the snapshot came first");
    assert_eq!(
        trailer(&trailers, "grpc-status"),
        Some("14"),
        "{trailers:?}"
    );
}
