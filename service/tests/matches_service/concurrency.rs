//! Optimistic concurrency (stale or retried moves apply nothing), persistence across a
//! restart, concurrent clients, and shutdown ending streams.

use super::*;

#[tokio::test]
async fn stale_or_retried_moves_are_aborted_and_apply_nothing() {
    let server = TestServer::memory().await;
    let mut client = server.matches().await;
    let m = create(&mut client, &[("scope", "deal")], 5, ALL_HUMAN.to_vec()).await;
    let spectator = view(&mut client, &m, &m.spectator).await;
    let seat = seat_of(spectator.current_player.as_ref().unwrap()).unwrap();
    let v = view(&mut client, &m, &m.seats[&seat]).await;
    let a = v.legal_actions[0].id();
    let err = act(&mut client, &m, seat, a, v.move_number + 1)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Aborted);
    assert_eq!(view(&mut client, &m, &m.seats[&seat]).await, v);
    act(&mut client, &m, seat, a, v.move_number).await.unwrap();
    // The same request again (a retry) must not apply twice.
    let err = act(&mut client, &m, seat, a, v.move_number)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Aborted, "{}", err.message());
    // Without a move number the request says what is missing (and applies nothing).
    let now = view(&mut client, &m, &m.spectator).await;
    let seat = seat_of(now.current_player.as_ref().unwrap()).unwrap();
    let v = view(&mut client, &m, &m.seats[&seat]).await;
    let err = client
        .act(authed(
            &m.seats[&seat],
            pb::ActRequest {
                match_id: m.id.clone(),
                action: Some(pb::act_request::Action::ActionId(v.legal_actions[0].id())),
                expected_move_number: None,
                include_view: false,
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(
        err.message().contains("`expected_move_number` is missing")
            && err.message().contains(&format!("now {}", v.move_number)),
        "{}",
        err.message()
    );
    assert_eq!(view(&mut client, &m, &m.seats[&seat]).await, v);
    server.stop().await;
}

#[tokio::test]
async fn matches_survive_a_restart_and_continue_identically() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::on_disk(dir.path()).await;
    let mut client = server.matches().await;
    let opts = [("target_score", "300")];
    let m = create(&mut client, &opts, 8, ALL_HUMAN.to_vec()).await;
    let mut rng = SeededRng::new(12);
    assert_eq!(play(&mut client, &m, &mut rng, 30).await, 30);
    let before: Vec<_> = {
        let mut v = Vec::new();
        for s in 0..4 {
            v.push(view(&mut client, &m, &m.seats[&s]).await);
        }
        v
    };
    drop(client);
    server.stop().await;

    let server = TestServer::on_disk(dir.path()).await;
    let mut client = server.matches().await;
    for (s, seen) in before.iter().enumerate() {
        assert_eq!(&view(&mut client, &m, &m.seats[&s]).await, seen);
    }
    play(&mut client, &m, &mut rng, usize::MAX).await;
    let rec = record(&mut client, &m).await;
    check_record(&rec);

    // The same match (seed and moves) on a server that never stopped ends identically.
    let reference = TestServer::memory().await;
    let mut rclient = reference.matches().await;
    let r = create(&mut rclient, &opts, 8, ALL_HUMAN.to_vec()).await;
    play(&mut rclient, &r, &mut SeededRng::new(12), usize::MAX).await;
    let rrec = record(&mut rclient, &r).await;
    assert_eq!(rec.steps, rrec.steps);
    assert_eq!(rec.returns, rrec.returns);
    reference.stop().await;
    server.stop().await;
}

#[tokio::test]
async fn many_clients_play_concurrent_matches() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::on_disk(dir.path()).await;
    let mut tasks = Vec::new();
    for i in 0..16u64 {
        let mut client = server.matches().await;
        tasks.push(tokio::spawn(async move {
            let seats = vec![
                pb::SeatKind::Human,
                pb::SeatKind::RandomBot,
                pb::SeatKind::Human,
                pb::SeatKind::RandomBot,
            ];
            let m = create(&mut client, &[("scope", "deal")], i, seats).await;
            play(&mut client, &m, &mut SeededRng::new(i), usize::MAX).await;
            let rec = record(&mut client, &m).await;
            check_record(&rec);
            rec.steps.len()
        }));
    }
    for t in tasks {
        assert!(t.await.unwrap() > 36);
    }
    server.stop().await;
}

#[tokio::test]
async fn shutdown_turns_health_not_serving_and_ends_watch_streams() {
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;

    let mut server = TestServer::memory().await;
    let mut client = server.matches().await;
    let mut health = HealthClient::new(server.channel().await);
    let check = |service: &str| tonic_health::pb::HealthCheckRequest {
        service: service.to_owned(),
    };
    for service in ["", "cardhouse.v1.Engine", "cardhouse.v1.Matches"] {
        let r = health.check(check(service)).await.unwrap().into_inner();
        assert_eq!(r.status, ServingStatus::Serving as i32, "{service}");
    }
    let m = create(&mut client, &[], 1, ALL_HUMAN.to_vec()).await;
    let mut stream = common::watch(&mut client, &m.spectator, &m.id).await;
    stream.next().await.unwrap().unwrap();
    let mut health_stream = health
        .watch(check("cardhouse.v1.Matches"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        health_stream.next().await.unwrap().unwrap().status,
        ServingStatus::Serving as i32
    );
    server.signal_stop();
    assert_eq!(
        health_stream.next().await.unwrap().unwrap().status,
        ServingStatus::NotServing as i32
    );
    drop(health_stream);
    let end = stream.next().await.unwrap().unwrap_err();
    assert_eq!(end.code(), Code::Unavailable);
    drop(stream);
    server.stop().await;
}
