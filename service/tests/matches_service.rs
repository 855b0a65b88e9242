//! The Matches service against a real server: whole matches equal the engine, per-seat
//! isolation of views and streams, optimistic concurrency, restart persistence, concurrency,
//! and every error code.

mod common;

use std::collections::HashMap;

use cardhouse::{AnyState, Player, Rng, SeededRng, Viewer};
use cardhouse_server::convert::{json_to_struct, struct_to_json};
use cardhouse_server::pb;
use cardhouse_server::pb::matches_client::MatchesClient;
use common::{TestServer, authed, opts};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

fn normalized(v: serde_json::Value) -> serde_json::Value {
    struct_to_json(&json_to_struct(v))
}

fn seat_of(p: &pb::Player) -> Option<usize> {
    (p.kind == pb::PlayerKind::Seat as i32).then_some(p.seat() as usize)
}

struct Created {
    id: String,
    seats: HashMap<usize, String>,
    owner: String,
    spectator: String,
}

async fn create(
    client: &mut MatchesClient<Channel>,
    options: &[(&str, &str)],
    seed: u64,
    seats: Vec<pb::SeatKind>,
) -> Created {
    let r = client
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: opts(options),
            seed: Some(seed),
            seats: seats.into_iter().map(|k| k as i32).collect(),
            ismcts_iterations: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.seed, seed);
    Created {
        id: r.match_id,
        seats: r
            .seat_tokens
            .into_iter()
            .map(|t| (t.seat() as usize, t.token))
            .collect(),
        owner: r.owner_token,
        spectator: r.spectator_token,
    }
}

async fn view(client: &mut MatchesClient<Channel>, m: &Created, token: &str) -> pb::MatchView {
    client
        .get_view(authed(
            token,
            pb::GetViewRequest {
                match_id: m.id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .view
        .unwrap()
}

async fn act(
    client: &mut MatchesClient<Channel>,
    m: &Created,
    seat: usize,
    action: u32,
    expected: u64,
) -> Result<pb::MatchView, tonic::Status> {
    client
        .act(authed(
            &m.seats[&seat],
            pb::ActRequest {
                match_id: m.id.clone(),
                action: Some(pb::act_request::Action::ActionId(action)),
                expected_move_number: Some(expected),
                include_view: false,
            },
        ))
        .await
        .map(|r| r.into_inner().view.unwrap())
}

/// Plays seeded random moves until the match ends or `max_moves` human moves were made.
/// Checks every seat view it fetches against the engine replay of the record so far.
async fn play(
    client: &mut MatchesClient<Channel>,
    m: &Created,
    rng: &mut SeededRng,
    max_moves: usize,
) -> usize {
    let mut moves = 0;
    while moves < max_moves {
        let spectator = view(client, m, &m.spectator).await;
        if spectator.status != pb::MatchStatus::Active as i32 {
            break;
        }
        let seat = seat_of(spectator.current_player.as_ref().unwrap()).unwrap();
        let v = view(client, m, &m.seats[&seat]).await;
        assert_eq!(v.role, pb::Role::Seat as i32);
        assert_eq!(v.seat() as usize, seat);
        assert!(!v.legal_actions.is_empty());
        let a = v.legal_actions[rng.below(v.legal_actions.len() as u64) as usize].id();
        let after = act(client, m, seat, a, v.move_number).await.unwrap();
        assert!(after.move_number > v.move_number);
        moves += 1;
    }
    moves
}

async fn record(client: &mut MatchesClient<Channel>, m: &Created) -> pb::GetRecordResponse {
    client
        .get_record(authed(
            &m.owner,
            pb::GetRecordRequest {
                match_id: m.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner()
}

/// Replays a record on the engine and checks it: every step legal, the final state, returns
/// and the omniscient final view equal.
fn check_record(rec: &pb::GetRecordResponse) -> AnyState {
    let info = rec.game.as_ref().unwrap();
    let options = info
        .options
        .iter()
        .map(|(k, v)| (k.clone(), cardhouse::OptionValue::Str(v.clone())))
        .collect();
    let game = cardhouse::new_game(&info.name, &options).unwrap();
    let mut state = game.new_initial_state();
    for (i, step) in rec.steps.iter().enumerate() {
        assert_eq!(step.index() as usize, i);
        assert_eq!(step.text, state.action_to_string(step.action()));
        state.apply(step.action()).unwrap();
    }
    assert_eq!(state.to_bytes(), rec.state);
    assert_eq!(state.returns().to_vec(), rec.returns);
    assert_eq!(
        struct_to_json(rec.final_view.as_ref().unwrap()),
        normalized(state.view(Viewer::Omniscient).unwrap())
    );
    state
}

const ALL_HUMAN: [pb::SeatKind; 4] = [pb::SeatKind::Human; 4];

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
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted);
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
