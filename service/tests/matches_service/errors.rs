//! Every error maps to its status code.

use super::*;

#[tokio::test]
async fn errors_map_to_status_codes() {
    let server = TestServer::start(cardhouse_server::Config {
        matches: cardhouse_server::matches::MatchLimits {
            max_matches: 3,
            max_watchers_per_match: 1,
            ..Default::default()
        },
        ..Default::default()
    })
    .await;
    let mut client = server.matches().await;
    let m = create(&mut client, &[("scope", "deal")], 1, ALL_HUMAN.to_vec()).await;
    let get = |token: Option<&str>, id: &str| {
        let msg = pb::GetViewRequest {
            match_id: id.to_owned(),
        };
        match token {
            Some(t) => authed(t, msg),
            None => tonic::Request::new(msg),
        }
    };
    // Authentication and authorization.
    let err = client.get_view(get(None, &m.id)).await.unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    let err = client
        .get_view(get(Some("0123456789abcdef0123456789abcdef"), &m.id))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    let mut bad_scheme = get(None, &m.id);
    bad_scheme
        .metadata_mut()
        .insert("authorization", m.owner.parse().unwrap());
    assert_eq!(
        client.get_view(bad_scheme).await.unwrap_err().code(),
        Code::Unauthenticated
    );
    let err = client
        .get_view(get(Some(&m.owner), "no-such-match"))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    // A token of another match is not valid here.
    let other = create(&mut client, &[("scope", "deal")], 2, ALL_HUMAN.to_vec()).await;
    let err = client
        .get_view(get(Some(&other.seats[&0]), &m.id))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);

    let act_as = |token: &str, action: pb::act_request::Action, expected: u64| {
        authed(
            token,
            pb::ActRequest {
                match_id: m.id.clone(),
                action: Some(action),
                expected_move_number: Some(expected),
                include_view: false,
            },
        )
    };
    let spectator = view(&mut client, &m, &m.spectator).await;
    let seat = seat_of(spectator.current_player.as_ref().unwrap()).unwrap();
    let v = view(&mut client, &m, &m.seats[&seat]).await;
    let err = client
        .act(act_as(
            &m.spectator,
            pb::act_request::Action::ActionId(v.legal_actions[0].id()),
            spectator.move_number,
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    let err = client
        .act(act_as(
            &m.seats[&seat],
            pb::act_request::Action::ActionId(100_000),
            v.move_number,
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    let err = client
        .act(act_as(
            &m.seats[&seat],
            pb::act_request::Action::ActionText("fold".into()),
            v.move_number,
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    // Playing a card before the mode is chosen is illegal.
    let err = client
        .act(act_as(
            &m.seats[&seat],
            pb::act_request::Action::ActionId(0),
            v.move_number,
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    // The record is for ended matches only.
    let err = client
        .get_record(authed(
            &m.seats[&seat],
            pb::GetRecordRequest {
                match_id: m.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    // Resign and abort rights.
    let resign = |token: &str, seat: Option<u32>| {
        authed(
            token,
            pb::ResignRequest {
                match_id: m.id.clone(),
                seat,
            },
        )
    };
    let err = client
        .resign(resign(&m.seats[&0], Some(1)))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    let err = client
        .resign(resign(&m.spectator, Some(1)))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    let err = client
        .abort_match(authed(
            &m.seats[&0],
            pb::AbortMatchRequest {
                match_id: m.id.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied);
    // Watcher limit.
    let _w = client
        .watch(authed(
            &m.spectator,
            pb::WatchRequest {
                match_id: m.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap();
    let err = client
        .watch(authed(
            &m.spectator,
            pb::WatchRequest {
                match_id: m.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted);
    // Bad create requests.
    let err = client
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: opts(&[("target_score", "-5")]),
            seed: None,
            seats: vec![],
            ismcts_iterations: None,
            bots: Default::default(),
            time_control: None,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    let err = client
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: Default::default(),
            seed: None,
            seats: vec![pb::SeatKind::Human as i32; 3],
            ismcts_iterations: None,
            bots: Default::default(),
            time_control: None,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);

    // The owner resigns seat 1: the match is over, the record is available, acting fails.
    let ended = client
        .resign(resign(&m.owner, Some(1)))
        .await
        .unwrap()
        .into_inner()
        .view
        .unwrap();
    assert_eq!(ended.status, pb::MatchStatus::Resigned as i32);
    assert_eq!(ended.resigned_seat, Some(1));
    let err = client
        .act(act_as(
            &m.seats[&seat],
            pb::act_request::Action::ActionId(v.legal_actions[0].id()),
            v.move_number,
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    let rec = record(&mut client, &m).await;
    assert_eq!(rec.status, pb::MatchStatus::Resigned as i32);
    check_record(&rec);

    // Match limit (3): two exist, one more fits, then RESOURCE_EXHAUSTED.
    create(&mut client, &[], 3, ALL_HUMAN.to_vec()).await;
    let err = client
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: Default::default(),
            seed: None,
            seats: vec![],
            ismcts_iterations: None,
            bots: Default::default(),
            time_control: None,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted);
    server.stop().await;
}
