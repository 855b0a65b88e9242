//! Error codes and limits as on one node, no token in clear in the database, and
//! abandonment and retention across replicas (tests f and g).

use super::*;

// ---------------------------------------------------------------------------------------------
// f. Error codes and limits as on one node; no token in clear
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_and_error_codes_hold_across_replicas_and_no_token_is_stored_in_clear() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let limit = 5usize;
    let servers = replicas(&db, 2, &["--max-matches", &limit.to_string()]);
    // 3 × limit creations at once, alternating replicas: exactly `limit` succeed.
    let mut tasks = Vec::new();
    for i in 0..3 * limit {
        let mut c = client(&servers[i % 2]).await;
        tasks.push(tokio::spawn(async move {
            try_create(
                &mut c,
                "jass",
                &[("target_score", "1000")],
                i as u64,
                &[HUMAN; 4],
            )
            .await
        }));
    }
    let mut created = Vec::new();
    for t in tasks {
        match t.await.unwrap() {
            Ok(m) => created.push(m),
            Err(s) => assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}"),
        }
    }
    assert_eq!(created.len(), limit, "the match limit across two replicas");
    let mut clients = [client(&servers[0]).await, client(&servers[1]).await];
    for c in clients.iter_mut() {
        let err = try_create(c, "jass", &[], 1, &[HUMAN; 4])
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::ResourceExhausted);
    }

    let (m, other) = (&created[0], &created[1]);
    let spectator_view = view(&mut clients[0], m, &m.spectator).await;
    let seat = match spectator_view.current_player.as_ref().unwrap() {
        p if p.kind == pb::PlayerKind::Seat as i32 => p.seat() as usize,
        p => panic!("{p:?}"),
    };
    let v = view(&mut clients[1], m, &m.seats[&seat]).await;
    let legal = v.legal_actions[0].id();
    for (r, c) in clients.iter_mut().enumerate() {
        let get = |token: Option<&str>, id: &str| {
            let msg = pb::GetViewRequest {
                match_id: id.to_owned(),
            };
            match token {
                Some(t) => authed(t, msg),
                None => tonic::Request::new(msg),
            }
        };
        let code = |r: Result<tonic::Response<pb::GetViewResponse>, Status>| r.unwrap_err().code();
        assert_eq!(
            code(c.get_view(get(None, &m.id)).await),
            Code::Unauthenticated,
            "{r}"
        );
        assert_eq!(
            code(
                c.get_view(get(Some("0123456789abcdef0123456789abcdef"), &m.id))
                    .await
            ),
            Code::Unauthenticated,
            "replica {r}: a wrong token"
        );
        assert_eq!(
            code(c.get_view(get(Some(&other.seats[&0]), &m.id)).await),
            Code::Unauthenticated,
            "replica {r}: another match's token"
        );
        assert_eq!(
            code(c.get_view(get(Some(&m.owner), "no-such-match")).await),
            Code::NotFound,
            "replica {r}"
        );
        // Acting: a spectator, a stale move number, the wrong seat, an unknown action.
        let act_as = |token: &str, action: u32, expected: u64| {
            authed(
                token,
                pb::ActRequest {
                    match_id: m.id.clone(),
                    action: Some(pb::act_request::Action::ActionId(action)),
                    expected_move_number: Some(expected),
                    include_view: false,
                },
            )
        };
        let code = |r: Result<tonic::Response<pb::ActResponse>, Status>| r.unwrap_err().code();
        assert_eq!(
            code(
                c.act(act_as(&m.spectator, legal, spectator_view.move_number))
                    .await
            ),
            Code::PermissionDenied,
            "replica {r}"
        );
        assert_eq!(
            code(
                c.act(act_as(&m.seats[&seat], legal, v.move_number + 1))
                    .await
            ),
            Code::Aborted,
            "replica {r}"
        );
        let wrong = (seat + 1) % 4;
        let wrong_v = view(c, m, &m.seats[&wrong]).await;
        assert_eq!(
            code(
                c.act(act_as(&m.seats[&wrong], legal, wrong_v.move_number))
                    .await
            ),
            Code::FailedPrecondition,
            "replica {r}: not its turn"
        );
        assert_eq!(
            code(c.act(act_as(&m.seats[&seat], 100_000, v.move_number)).await),
            Code::InvalidArgument,
            "replica {r}"
        );
        let err = try_record(c, m).await.unwrap_err();
        assert_eq!(err.code(), Code::FailedPrecondition, "replica {r}: running");
        let err = c
            .abort_match(authed(
                &m.seats[&0],
                pb::AbortMatchRequest {
                    match_id: m.id.clone(),
                },
            ))
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::PermissionDenied, "replica {r}");
    }
    // Nothing of that changed the match.
    for c in clients.iter_mut() {
        assert_eq!(view(c, m, &m.seats[&seat]).await, v);
    }
    // The owner resigns seat 1 through A; B knows at once, and a Watch on B ends with it.
    let mut watch_b =
        common::watch(&mut stream_client(&servers[1]).await, &m.spectator, &m.id).await;
    let first = tokio::time::timeout(PATIENCE, watch_b.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(matches!(
        first.kind,
        Some(pb::watch_response::Kind::Snapshot(_))
    ));
    let ended = clients[0]
        .resign(authed(
            &m.owner,
            pb::ResignRequest {
                match_id: m.id.clone(),
                seat: Some(1),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .view
        .unwrap();
    assert_eq!(ended.status, pb::MatchStatus::Resigned as i32);
    let event = tokio::time::timeout(PATIENCE, watch_b.next())
        .await
        .expect("B's watcher learns of the resignation in time")
        .unwrap()
        .unwrap();
    match event.kind.unwrap() {
        pb::watch_response::Kind::Event(e) => {
            assert_eq!(e.text, "seat 1 resigned");
            assert_eq!(e.view.unwrap().status, pb::MatchStatus::Resigned as i32);
        }
        other => panic!("{other:?}"),
    }
    let end = tokio::time::timeout(PATIENCE, watch_b.next())
        .await
        .unwrap();
    assert!(end.is_none(), "{end:?}");
    let err = act(&mut clients[1], m, seat, legal, v.move_number)
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Code::FailedPrecondition,
        "B acts on an ended match: {err:?}"
    );
    let rec = try_record(&mut clients[1], m).await.unwrap();
    assert_eq!(rec.status, pb::MatchStatus::Resigned as i32);
    assert_eq!(rec.resigned_seat, Some(1));
    // A second resignation through B: the match is over.
    let err = clients[1]
        .resign(authed(
            &m.owner,
            pb::ResignRequest {
                match_id: m.id.clone(),
                seat: Some(2),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err:?}");

    // No token in clear anywhere in the database (text, or bytes shown as hex).
    let pg = db.client().await;
    let tables = pg
        .query(
            "SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) \
             FROM information_schema.tables \
             WHERE table_schema NOT IN ('pg_catalog', 'information_schema') \
             AND table_type = 'BASE TABLE'",
            &[],
        )
        .await
        .unwrap();
    let tokens: Vec<String> = created.iter().flat_map(M::tokens).collect();
    assert_eq!(tokens.len(), limit * 6);
    let hex = |s: &str| s.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    let mut rows = 0;
    let mut ids_seen = 0;
    for t in &tables {
        let table: String = t.get(0);
        for row in pg
            .query(&format!("SELECT t::text FROM {table} t"), &[])
            .await
            .unwrap()
        {
            let text: String = row.get(0);
            let lower = text.to_ascii_lowercase();
            rows += 1;
            for token in &tokens {
                assert!(
                    !lower.contains(token.as_str()) && !lower.contains(&hex(token)),
                    "a token in clear in table {table}"
                );
            }
            ids_seen += created
                .iter()
                .filter(|m| lower.contains(&m.id) || lower.contains(&hex(&m.id)))
                .count();
        }
    }
    eprintln!(
        "scanned {} tables, {rows} rows: no token in clear",
        tables.len()
    );
    assert!(ids_seen >= limit, "the scan did not see the matches");
}

// ---------------------------------------------------------------------------------------------
// g. Retention and abandonment across replicas
// ---------------------------------------------------------------------------------------------

/// Any replica's sweep aborts an abandoned match (a Watch on another replica sees it end)
/// and deletes ended matches after their retention: every replica then answers NOT_FOUND,
/// and their slots under the match limit are free again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandonment_and_retention_hold_across_replicas() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(
        &db,
        2,
        &[
            "--max-matches",
            "2",
            "--retention-secs",
            "1",
            "--abandon-secs",
            "2",
        ],
    );
    let mut clients = [client(&servers[0]).await, client(&servers[1]).await];
    let bots = create(
        &mut clients[0],
        "jass",
        &[("scope", "deal")],
        3,
        &[pb::SeatKind::RandomBot; 4],
    )
    .await;
    let idle = create(&mut clients[1], "jass", &[], 4, &[HUMAN; 4]).await;
    let mut watch_a = common::watch(
        &mut stream_client(&servers[0]).await,
        &idle.spectator,
        &idle.id,
    )
    .await;
    // Both replicas hold the finished match (B caches it).
    record_when_over(&mut clients[1], &bots).await;
    for c in clients.iter_mut() {
        let err = try_create(c, "jass", &[], 5, &[HUMAN; 4])
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::ResourceExhausted);
    }
    // The idle match is aborted as abandoned (after 2 s); A's watcher sees it end.
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut ended = None;
    while ended.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = tokio::time::timeout(left, watch_a.next())
            .await
            .expect("the abandoned match ends in time")
            .expect("an event before the end")
            .unwrap();
        if let Some(pb::watch_response::Kind::Event(e)) = msg.kind {
            ended = Some(e);
        }
    }
    let ended = ended.unwrap();
    assert_eq!(ended.text, "the match was aborted");
    assert_eq!(ended.view.unwrap().status, pb::MatchStatus::Aborted as i32);
    // Both leave after their retention (1 s): NOT_FOUND through either replica.
    for m in [&bots, &idle] {
        for (r, c) in clients.iter_mut().enumerate() {
            loop {
                match try_record(c, m).await {
                    Err(s) if s.code() == Code::NotFound => break,
                    other => {
                        assert!(
                            Instant::now() < deadline,
                            "replica {r} still has the match: {other:?}"
                        );
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            }
            let err = try_view(c, m, &m.owner).await.unwrap_err();
            assert_eq!(err.code(), Code::NotFound, "replica {r}");
        }
    }
    // Their slots are free: exactly two new matches fit.
    create(&mut clients[0], "jass", &[], 6, &[HUMAN; 4]).await;
    create(&mut clients[1], "jass", &[], 7, &[HUMAN; 4]).await;
    for c in clients.iter_mut() {
        let err = try_create(c, "jass", &[], 8, &[HUMAN; 4])
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::ResourceExhausted);
    }
}
