//! Whole matches over gRPC equal the engine; bot seats (random, heuristic, IS-MCTS) play
//! in the background and a seed reproduces the match.

use super::*;

#[tokio::test]
async fn whole_match_over_grpc_equals_the_engine() {
    let server = TestServer::memory().await;
    let mut client = server.matches().await;
    let m = create(
        &mut client,
        &[("target_score", "300")],
        3,
        ALL_HUMAN.to_vec(),
    )
    .await;
    assert_eq!(m.seats.len(), 4);
    let mut rng = SeededRng::new(4);
    play(&mut client, &m, &mut rng, usize::MAX).await;
    let rec = record(&mut client, &m).await;
    assert_eq!(rec.status, pb::MatchStatus::Finished as i32);
    let state = check_record(&rec);
    assert!(state.is_terminal());
    // Each seat's final view equals the engine's view for that seat.
    for (seat, token) in &m.seats {
        let v = view(&mut client, &m, token).await;
        assert_eq!(
            struct_to_json(v.view.as_ref().unwrap()),
            normalized(state.view(Viewer::Seat(*seat)).unwrap())
        );
        assert_eq!(v.returns, state.returns().to_vec());
    }
    server.stop().await;
}

#[tokio::test]
async fn bots_play_their_seats_and_the_match_is_reproducible_from_its_seed() {
    let server = TestServer::memory().await;
    let mut client = server.matches().await;
    let seats = vec![
        pb::SeatKind::Human,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
    ];
    let a = create(&mut client, &[("scope", "deal")], 77, seats.clone()).await;
    let b = create(&mut client, &[("scope", "deal")], 77, seats).await;
    assert_eq!(a.seats.keys().copied().collect::<Vec<_>>(), vec![0]);
    play(&mut client, &a, &mut SeededRng::new(1), usize::MAX).await;
    play(&mut client, &b, &mut SeededRng::new(1), usize::MAX).await;
    let (ra, rb) = (record(&mut client, &a).await, record(&mut client, &b).await);
    assert_eq!(ra.steps, rb.steps);
    check_record(&ra);
    server.stop().await;
}

/// Heuristic and IS-MCTS bot seats: they play in the background, their matches reach the
/// end, and the same seed gives the same match.
#[tokio::test]
async fn heuristic_and_ismcts_bot_seats_play_deterministically() {
    let server = TestServer::memory().await;
    let mut client = server.matches().await;
    let mut records = Vec::new();
    for _ in 0..2 {
        let r = client
            .create_match(pb::CreateMatchRequest {
                game: "jass".into(),
                options: opts(&[("scope", "deal"), ("wys", "auto")]),
                seed: Some(21),
                seats: vec![
                    pb::SeatKind::IsmctsBot as i32,
                    pb::SeatKind::HeuristicBot as i32,
                    pb::SeatKind::IsmctsBot as i32,
                    pb::SeatKind::HeuristicBot as i32,
                ],
                ismcts_iterations: Some(10),
                bots: Default::default(),
                time_control: None,
            })
            .await
            .unwrap()
            .into_inner();
        // Bounded wait: 2,000 polls.
        let mut record = None;
        for _ in 0..2000 {
            match client
                .get_record(authed(
                    &r.owner_token,
                    pb::GetRecordRequest {
                        match_id: r.match_id.clone(),
                        ..Default::default()
                    },
                ))
                .await
            {
                Ok(rec) => {
                    record = Some(rec.into_inner());
                    break;
                }
                Err(s) if s.code() == Code::FailedPrecondition => {
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                }
                Err(s) => panic!("{s:?}"),
            }
        }
        let record = record.expect("the bots finish the deal");
        assert_eq!(record.status, pb::MatchStatus::Finished as i32);
        records.push(record.steps.iter().map(|s| s.action).collect::<Vec<_>>());
    }
    assert_eq!(records[0], records[1]);
    let err = client
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            seats: vec![pb::SeatKind::IsmctsBot as i32; 4],
            ismcts_iterations: Some(0),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("ismcts_iterations"));
    server.stop().await;
}
