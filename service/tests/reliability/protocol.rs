//! Protocol hygiene: errors keep their code whatever the client sent, and idle connections
//! cannot starve new clients.

use super::*;

// ---------------------------------------------------------------------------------------------
// Protocol hygiene
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_keep_their_code_whatever_the_client_sent() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    // A huge match id: NOT_FOUND with a short message, not RESOURCE_EXHAUSTED.
    let err = c
        .get_view(authed(
            "t",
            pb::GetViewRequest {
                match_id: "x".repeat(200_000),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    assert!(err.message().len() <= 512);
    // A huge option value.
    let err = c
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: [("target_score".to_owned(), "9".repeat(100_000))].into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().len() <= 512);
    // An undecodable request: INVALID_ARGUMENT.
    #[derive(Clone, PartialEq, prost::Message)]
    struct NotAGetView {
        #[prost(uint64, tag = "1")]
        match_id: u64,
    }
    let mut grpc = tonic::client::Grpc::new(server.channel().await);
    grpc.ready().await.unwrap();
    let codec = tonic_prost::ProstCodec::<NotAGetView, pb::GetViewResponse>::default();
    let path =
        tonic::codegen::http::uri::PathAndQuery::from_static("/cardhouse.v1.Matches/GetView");
    let err = grpc
        .unary(
            tonic::Request::new(NotAGetView { match_id: 7 }),
            path,
            codec,
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
}

/// Hundreds of connections that never speak HTTP/2 neither starve new clients nor stay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_cannot_starve_new_clients() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(
        dir.path(),
        &["--max-connections", "64", "--handshake-timeout-secs", "1"],
    );
    let mut idle = Vec::new();
    for _ in 0..300 {
        if let Ok(s) = tokio::net::TcpStream::connect(server.addr).await {
            idle.push(s);
        }
    }
    // A real client gets through within a few seconds (bounded retries).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let attempt = async {
            let ch = Channel::from_shared(format!("http://{}", server.addr))
                .unwrap()
                .connect_timeout(Duration::from_secs(1))
                .timeout(Duration::from_secs(2))
                .connect()
                .await
                .map_err(|e| e.to_string())?;
            MatchesClient::new(ch)
                .create_match(pb::CreateMatchRequest {
                    game: "jass".into(),
                    ..Default::default()
                })
                .await
                .map_err(|e| e.to_string())
        };
        match attempt.await {
            Ok(_) => break,
            Err(e) => {
                assert!(Instant::now() < deadline, "starved: {e}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
    drop(idle);
}
