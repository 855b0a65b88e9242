//! Every bot the engine knows can sit (`SEAT_KIND_BOT` with its name in `bots`): in every
//! game, deterministically, within the server's limits, across a restart.

use super::*;

/// Polls `GetRecord` until the match has ended (bounded), and returns the record.
async fn finished(
    client: &mut MatchesClient<Channel>,
    id: &str,
    owner: &str,
) -> pb::GetRecordResponse {
    for _ in 0..4000 {
        let asked = client
            .get_record(authed(
                owner,
                pb::GetRecordRequest {
                    match_id: id.to_owned(),
                    ..Default::default()
                },
            ))
            .await;
        match asked {
            Ok(rec) => return rec.into_inner(),
            Err(s) if s.code() == Code::FailedPrecondition => {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
            Err(s) => panic!("{s:?}"),
        }
    }
    panic!("the bots did not finish the deal");
}

fn named(game: &str, seats: usize, names: &[&str]) -> pb::CreateMatchRequest {
    pb::CreateMatchRequest {
        game: game.into(),
        options: if game == "cribbage" {
            opts(&[("scope", "deal"), ("players", &seats.to_string())])
        } else {
            opts(&[("scope", "deal")])
        },
        seed: Some(5),
        seats: vec![pb::SeatKind::Bot as i32; seats],
        ismcts_iterations: None,
        bots: (0..seats)
            .map(|s| (s as u32, names[s % names.len()].to_owned()))
            .collect(),
        ..Default::default()
    }
}

#[tokio::test]
async fn every_bot_kind_sits_in_every_game_and_plays_the_same_from_the_same_seed() {
    let server = TestServer::memory().await;
    let mut client = server.matches().await;
    for (game, seats) in [
        ("jass", 4),
        ("klaberjass", 2),
        ("cribbage", 3),
        ("avinas", 4),
    ] {
        let policy = format!("policy:{game}");
        let names = ["rollout:3", policy.as_str(), "ismcts:8", "heuristic"];
        let mut played = Vec::new();
        for _ in 0..2 {
            let r = client
                .create_match(named(game, seats, &names))
                .await
                .unwrap()
                .into_inner();
            let view = r.view.as_ref().unwrap();
            assert_eq!(view.seats, vec![pb::SeatKind::Bot as i32; seats], "{game}");
            for s in 0..seats {
                assert_eq!(
                    view.bots[&(s as u32)],
                    names[s % names.len()],
                    "{game} seat {s}"
                );
            }
            let rec = finished(&mut client, &r.match_id, &r.owner_token).await;
            assert_eq!(rec.status, pb::MatchStatus::Finished as i32, "{game}");
            check_record(&rec);
            played.push(rec.steps.iter().map(|s| s.action()).collect::<Vec<_>>());
        }
        assert_eq!(
            played[0], played[1],
            "{game}: the same seed, the same match"
        );
    }
    server.stop().await;
}

/// The pimc bot sits like the others (a slow bot: on the bot workers), in a game with tricks
/// to solve, and plays the same match from the same seed.
#[tokio::test]
async fn the_pimc_bot_sits_and_plays_the_same_from_the_same_seed() {
    let server = TestServer::memory().await;
    let mut client = server.matches().await;
    let mut played = Vec::new();
    for _ in 0..2 {
        let r = client
            .create_match(named("klaberjass", 2, &["pimc:2", "heuristic"]))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(r.view.as_ref().unwrap().bots[&0], "pimc:2");
        let rec = finished(&mut client, &r.match_id, &r.owner_token).await;
        assert_eq!(rec.status, pb::MatchStatus::Finished as i32);
        check_record(&rec);
        played.push(rec.steps.iter().map(|s| s.action()).collect::<Vec<_>>());
    }
    assert_eq!(played[0], played[1], "the same seed, the same match");
    server.stop().await;
}

#[tokio::test]
async fn a_bot_over_the_servers_limits_or_of_another_game_is_refused_by_name() {
    let limits = cardhouse_server::matches::MatchLimits {
        max_ismcts_iterations: 50,
        max_rollout_samples: 20,
        max_pimc_worlds: 10,
        ..Default::default()
    };
    let server = TestServer::start(cardhouse_server::Config {
        matches: limits,
        ..Default::default()
    })
    .await;
    let mut client = server.matches().await;
    let refused = |req: pb::CreateMatchRequest| {
        let mut client = client.clone();
        async move { client.create_match(req).await.unwrap_err() }
    };
    for (names, says) in [
        (["ismcts:51", "random"], "--max-ismcts-iterations"),
        // Jass's default search (200 iterations a move) is over this server's 50.
        (["ismcts", "random"], "--max-ismcts-iterations"),
        (["rollout:21", "random"], "--max-rollout-samples"),
        (["rollout", "random"], "--max-rollout-samples"),
        (["pimc:11", "random"], "--max-pimc-worlds"),
        (["pimc", "random"], "--max-pimc-worlds"),
        (["policy:cribbage", "random"], "cribbage"),
        (["alphazero", "random"], "rollout:N"),
    ] {
        let err = refused(named("jass", 4, &names)).await;
        assert_eq!(err.code(), Code::InvalidArgument, "{names:?}");
        assert!(err.message().contains(says), "{names:?}: {}", err.message());
    }
    // A bot seat without its name, a name for a seat of another kind, a seat out of range.
    let mut no_name = named("jass", 4, &["random"]);
    no_name.bots.remove(&2);
    let err = refused(no_name).await;
    assert!(
        err.message().contains("seat 2 is SEAT_KIND_BOT"),
        "{}",
        err.message()
    );
    let mut stray = named("jass", 4, &["random"]);
    stray.seats[1] = pb::SeatKind::Human as i32;
    let err = refused(stray).await;
    assert!(
        err.message().contains("not SEAT_KIND_BOT"),
        "{}",
        err.message()
    );
    let mut beyond = named("jass", 4, &["random"]);
    beyond.bots.insert(7, "random".into());
    let err = refused(beyond).await;
    assert!(err.message().contains("seat 7"), "{}", err.message());
    // Within the limits, and the old seat kinds, still create.
    let ok = named(
        "jass",
        4,
        &["ismcts:50", "rollout:20", "policy:jass", "random"],
    );
    client.create_match(ok).await.unwrap();
    let old = pb::CreateMatchRequest {
        game: "jass".into(),
        seats: vec![
            pb::SeatKind::Human as i32,
            pb::SeatKind::RandomBot as i32,
            pb::SeatKind::HeuristicBot as i32,
            pb::SeatKind::IsmctsBot as i32,
        ],
        ismcts_iterations: Some(10),
        ..Default::default()
    };
    let view = client
        .create_match(old)
        .await
        .unwrap()
        .into_inner()
        .view
        .unwrap();
    assert_eq!(view.bots[&1], "random");
    assert_eq!(view.bots[&2], "heuristic");
    assert_eq!(view.bots[&3], "ismcts:10");
    server.stop().await;
}

#[tokio::test]
async fn named_bots_are_kept_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (id, token, spectator, before) = {
        let server = TestServer::on_disk(dir.path()).await;
        let mut client = server.matches().await;
        let mut req = named("klaberjass", 2, &["", "policy:klaberjass"]);
        req.seats[0] = pb::SeatKind::Human as i32;
        req.bots.remove(&0);
        let r = client.create_match(req).await.unwrap().into_inner();
        let token = r.seat_tokens[0].token.clone();
        let m = Created {
            id: r.match_id.clone(),
            seats: [(0, token.clone())].into(),
            owner: r.owner_token.clone(),
            spectator: r.spectator_token.clone(),
        };
        play(&mut client, &m, &mut SeededRng::new(3), 2).await;
        let before = view(&mut client, &m, &token).await;
        server.stop().await;
        (r.match_id, token, r.spectator_token, before)
    };
    let server = TestServer::on_disk(dir.path()).await;
    let mut client = server.matches().await;
    let m = Created {
        id: id.clone(),
        seats: [(0, token.clone())].into(),
        owner: String::new(),
        spectator,
    };
    let after = view(&mut client, &m, &token).await;
    assert_eq!(after, before);
    assert_eq!(after.bots[&1], "policy:klaberjass");
    assert_eq!(after.seats[1], pb::SeatKind::Bot as i32);
    // It plays on.
    play(&mut client, &m, &mut SeededRng::new(4), 3).await;
    server.stop().await;
}
