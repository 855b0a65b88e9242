//! Per-seat isolation: a seat sees only its own cards and acts only for itself; Watch
//! streams are redacted per seat, in full and in the light detail.

use super::*;

#[tokio::test]
async fn a_seat_sees_only_its_own_cards_and_acts_only_for_itself() {
    let server = TestServer::memory().await;
    let mut client = server.matches().await;
    let m = create(&mut client, &[("scope", "deal")], 9, ALL_HUMAN.to_vec()).await;
    let spectator = view(&mut client, &m, &m.spectator).await;
    let to_move = seat_of(spectator.current_player.as_ref().unwrap()).unwrap();
    let other = (to_move + 1) % 4;

    // A seat's view shows its own hand only, and differs from another seat's.
    let rec_state = {
        let v = view(&mut client, &m, &m.seats[&to_move]).await;
        struct_to_json(v.view.as_ref().unwrap())
    };
    let other_view = view(&mut client, &m, &m.seats[&other]).await;
    assert_ne!(rec_state, struct_to_json(other_view.view.as_ref().unwrap()));
    assert_eq!(
        other_view.legal_actions,
        vec![],
        "not its turn: no legal actions"
    );
    let hands = &rec_state["hands"];
    for s in 0..4 {
        assert_eq!(
            hands[s].is_null(),
            s != to_move,
            "seat {to_move} sees hand {s}?"
        );
    }
    let spectator_json = struct_to_json(spectator.view.as_ref().unwrap());
    assert!(
        spectator_json["hands"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h.is_null())
    );

    // Seat `other` cannot act on `to_move`'s turn, even with the right move number.
    let mover = view(&mut client, &m, &m.seats[&to_move]).await;
    let err = act(
        &mut client,
        &m,
        other,
        mover.legal_actions[0].id(),
        other_view.move_number,
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{}", err.message());
    // Nothing changed.
    let again = view(&mut client, &m, &m.seats[&to_move]).await;
    assert_eq!(again, mover);
    server.stop().await;
}

/// The Watch stream of a seat equals the engine's redaction for that seat, action by action,
/// and never names a card dealt to another seat; the spectator stream shows no hand at all.
#[tokio::test]
async fn watch_streams_are_redacted_per_seat() {
    let server = TestServer::memory().await;
    let mut client = server.matches().await;
    // All bots but seat 0, a short match: the first deal happens inside CreateMatch, the
    // later ones while the streams are open.
    let seats = vec![
        pb::SeatKind::Human,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
    ];
    let m = create(&mut client, &[("target_score", "1000")], 21, seats).await;
    let start = view(&mut client, &m, &m.seats[&0]).await;
    let mut seat_stream = common::watch(&mut client, &m.seats[&0], &m.id).await;
    let mut spectator_stream = common::watch(&mut client, &m.spectator, &m.id).await;
    let first = seat_stream.next().await.unwrap().unwrap();
    assert_eq!(
        first.kind,
        Some(pb::watch_response::Kind::Snapshot(start.clone()))
    );
    spectator_stream.next().await.unwrap().unwrap();

    play(&mut client, &m, &mut SeededRng::new(2), usize::MAX).await;
    let rec = record(&mut client, &m).await;
    check_record(&rec);

    let mut seat_events = Vec::new();
    while let Some(msg) = seat_stream.next().await {
        match msg.unwrap().kind.unwrap() {
            pb::watch_response::Kind::Event(e) => seat_events.push(e),
            pb::watch_response::Kind::Snapshot(_) => panic!("one snapshot only"),
        }
    }
    let mut spectator_events = Vec::new();
    while let Some(msg) = spectator_stream.next().await {
        if let pb::watch_response::Kind::Event(e) = msg.unwrap().kind.unwrap() {
            spectator_events.push(e);
        }
    }

    // Expected events: replay the record from where the stream started.
    let info = rec.game.as_ref().unwrap();
    let options = info
        .options
        .iter()
        .map(|(k, v)| (k.clone(), cardhouse::OptionValue::Str(v.clone())))
        .collect();
    let game = cardhouse::new_game(&info.name, &options).unwrap();
    let mut state = game.new_initial_state();
    let mut expected_seat = Vec::new();
    let mut expected_spectator = Vec::new();
    let mut seat_known = 0u64;
    let mut leaks = Vec::new();
    for step in &rec.steps {
        let actor = state.current_player();
        let own = actor == Player::Seat(0);
        let seat_text = if own {
            Some(state.action_to_string(step.action()))
        } else {
            state.action_to_string_for(Viewer::Seat(0), step.action())
        };
        let spectator_text = state.action_to_string_for(Viewer::Spectator, step.action());
        if actor == Player::Chance && !state.action_to_string(step.action()).ends_with(" 0") {
            leaks.push(state.action_to_string(step.action()));
        }
        state.apply(step.action()).unwrap();
        if let Some(t) = seat_text {
            seat_known += 1;
            if seat_known > start.move_number {
                expected_seat.push((t, normalized(state.view(Viewer::Seat(0)).unwrap())));
            }
        }
        if let Some(t) = spectator_text
            && seat_known > start.move_number
        {
            expected_spectator.push((t, normalized(state.view(Viewer::Spectator).unwrap())));
        }
    }
    let got_seat: Vec<_> = seat_events
        .iter()
        .map(|e| {
            (
                e.text.clone(),
                struct_to_json(e.view.as_ref().unwrap().view.as_ref().unwrap()),
            )
        })
        .collect();
    assert_eq!(got_seat, expected_seat);
    assert!(!got_seat.is_empty());
    // The last seat event carries the seat's final move number.
    assert_eq!(
        seat_events
            .last()
            .unwrap()
            .view
            .as_ref()
            .unwrap()
            .move_number,
        seat_known
    );
    let got_spectator: Vec<_> = spectator_events
        .iter()
        .map(|e| {
            (
                e.text.clone(),
                struct_to_json(e.view.as_ref().unwrap().view.as_ref().unwrap()),
            )
        })
        .collect();
    assert_eq!(got_spectator, expected_spectator);
    // No event of seat 0 names a card dealt to another seat.
    assert!(seat_events.iter().any(|e| e.text.starts_with("deal")));
    assert!(!leaks.is_empty());
    for e in &seat_events {
        assert!(!leaks.contains(&e.text), "leaked {}", e.text);
    }
    for (_, v) in &got_spectator {
        assert!(v["hands"].as_array().unwrap().iter().all(|h| h.is_null()));
    }
    server.stop().await;
}

/// `WATCH_DETAIL_EVENTS`: every event as in a full stream, its view without the structured
/// part except at the end of each deal and of the match; the snapshot whole.
#[tokio::test]
async fn a_light_watch_stream_carries_whole_views_only_at_deal_ends() {
    let server = TestServer::memory().await;
    let mut client = server.matches().await;
    let m = create(
        &mut client,
        &[("target_score", "1000")],
        11,
        vec![
            pb::SeatKind::Human,
            pb::SeatKind::RandomBot,
            pb::SeatKind::RandomBot,
            pb::SeatKind::RandomBot,
        ],
    )
    .await;
    let stream = |detail: pb::WatchDetail| {
        let mut client = client.clone();
        let (token, id) = (m.spectator.clone(), m.id.clone());
        async move {
            client
                .watch(authed(
                    &token,
                    pb::WatchRequest {
                        match_id: id,
                        detail: detail as i32,
                    },
                ))
                .await
                .unwrap()
                .into_inner()
        }
    };
    let full = stream(pb::WatchDetail::Unspecified).await;
    let light = stream(pb::WatchDetail::Events).await;
    let collect = |mut s: tonic::Streaming<pb::WatchResponse>| {
        tokio::spawn(async move {
            let mut out = Vec::new();
            while let Some(Ok(r)) = s.next().await {
                out.push(r);
            }
            out
        })
    };
    let (full_events, light_events) = (collect(full), collect(light));
    let mut rng = SeededRng::new(3);
    play(&mut client, &m, &mut rng, 10_000).await;
    let (full_events, light_events) = (full_events.await.unwrap(), light_events.await.unwrap());
    assert_eq!(full_events.len(), light_events.len());
    let mut whole = 0;
    for (f, l) in full_events.iter().zip(&light_events) {
        match (&f.kind, &l.kind) {
            (
                Some(pb::watch_response::Kind::Snapshot(f)),
                Some(pb::watch_response::Kind::Snapshot(l)),
            ) => assert_eq!(f, l, "the snapshot is whole"),
            (
                Some(pb::watch_response::Kind::Event(f)),
                Some(pb::watch_response::Kind::Event(l)),
            ) => {
                assert_eq!((&f.actor, &f.text), (&l.actor, &l.text));
                let (fv, lv) = (f.view.as_ref().unwrap(), l.view.as_ref().unwrap());
                assert!(fv.view.is_some());
                if lv.view.is_some() {
                    whole += 1;
                    assert_eq!(fv, lv);
                } else {
                    let bare = pb::MatchView {
                        view: None,
                        game: None,
                        ..fv.clone()
                    };
                    assert_eq!(
                        &bare, lv,
                        "the light view is the full one less its structure"
                    );
                }
            }
            other => panic!("streams differ: {other:?}"),
        }
    }
    // The whole views: one at the end of each deal (the match has at least two), and the
    // match's end.
    assert!(whole >= 2, "{whole} whole views of {}", light_events.len());
    assert!(
        whole * 20 < light_events.len(),
        "{whole} whole views of {}",
        light_events.len()
    );
    // An unknown detail is refused.
    let err = client
        .watch(authed(
            &m.spectator,
            pb::WatchRequest {
                match_id: m.id.clone(),
                detail: 99,
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    server.stop().await;
}
