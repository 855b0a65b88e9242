//! Start and stop, secrets at rest: SIGTERM is clean at once, and the data files are
//! owner-only and hold no token.

use super::*;

// ---------------------------------------------------------------------------------------------
// Start and stop, secrets at rest
// ---------------------------------------------------------------------------------------------

/// SIGTERM right after the listening line is a clean shutdown; open Watch streams (one
/// never read) and a health Watch do not hold it for the grace period (30 s here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_is_clean_at_once_and_streams_do_not_hold_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &[]);
    let (status, _) = server.term();
    assert!(status.success(), "SIGTERM right after start: {status:?}");

    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    let g = create(&mut c, 5).await;
    let mut read = common::watch(&mut c, &g.token, &g.id).await;
    read.next().await.unwrap().unwrap();
    let _unread = common::watch(&mut c, &g.owner, &g.id).await;
    let mut health = tonic_health::pb::health_client::HealthClient::new(server.channel().await);
    let _health_stream = health
        .watch(tonic_health::pb::HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    let (status, took) = server.term();
    assert!(status.success());
    assert!(took < Duration::from_secs(10), "shutdown took {took:?}");
    let end = read.next().await;
    assert!(
        matches!(&end, Some(Err(s)) if s.code() == Code::Unavailable) || end.is_none(),
        "{end:?}"
    );
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_files_are_owner_only_and_hold_no_token() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = must_start(&data, &[]);
    let mut c = server.matches().await;
    let g = create(&mut c, 4).await;
    let (status, _) = server.term();
    assert!(status.success());
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data), 0o700);
    for entry in std::fs::read_dir(&data).unwrap() {
        let path = entry.unwrap().path();
        assert_eq!(mode(&path), 0o600, "{}", path.display());
        let bytes = std::fs::read(&path).unwrap();
        for token in [&g.token, &g.owner] {
            assert!(
                !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
                "a token in clear in {}",
                path.display()
            );
        }
    }
}

/// A response over the message limit is RESOURCE_EXHAUSTED (tonic alone says OUT_OF_RANGE).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_response_is_resource_exhausted() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &["--max-message-bytes", "1500"]);
    let mut e = EngineClient::new(server.channel().await);
    let state = e
        .new_initial_state(pb::NewInitialStateRequest {
            game: "jass".into(),
            options: Default::default(),
        })
        .await
        .unwrap()
        .into_inner()
        .state
        .unwrap()
        .state;
    let dealt = e
        .apply_chance(pb::ApplyChanceRequest {
            state,
            source: Some(pb::apply_chance_request::Source::Seed(1)),
        })
        .await
        .unwrap()
        .into_inner()
        .state
        .unwrap()
        .state;
    // 518 floats alone are over 2 KB.
    let err = e
        .observe(pb::ObserveRequest {
            state: dealt,
            viewer: pb::ViewerKind::Seat as i32,
            seat: 0,
            include_observation: true,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
}

/// The same for the Matches service (unary replies and a Watch update), and for a request
/// over the limit, refused before it is decoded (tonic alone says OUT_OF_RANGE for all).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_matches_messages_are_resource_exhausted() {
    let dir = tempfile::tempdir().unwrap();
    let g = {
        let roomy = must_start(dir.path(), &[]);
        create(&mut roomy.matches().await, 1).await
    };
    let server = must_start(dir.path(), &["--max-message-bytes", "1500"]);
    let mut c = server.matches().await;
    let err = c
        .get_view(authed(
            "t",
            pb::GetViewRequest {
                match_id: "x".repeat(2000),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    // A seat's view of a dealt Jass hand, with its structured view, is over 1500 bytes.
    let err = c
        .get_view(authed(
            &g.token,
            pb::GetViewRequest {
                match_id: g.id.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    assert!(err.message().contains("limit of 1500 bytes"), "{err:?}");
    let mut updates = common::watch(&mut c, &g.token, &g.id).await;
    let err = updates.next().await.unwrap().unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    // Errors keep their own code.
    let err = c
        .get_view(authed(
            &g.token,
            pb::GetViewRequest {
                match_id: "nope".into(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound, "{err:?}");
}
