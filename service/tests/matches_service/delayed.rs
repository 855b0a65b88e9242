//! Delayed spectators (ROLE_DELAYED_SPECTATOR): every hand, of the match as it stood `delay`
//! actions ago or at the end of its last ended deal, whole once it ended, in GetView and in
//! Watch; IssueSpectatorToken's permissions and limits; plain spectator tokens stay public.
//! (The leak test through the server, a seat holding a delayed token while the hidden cards
//! vary, and the tokens across restarts are in `tests/delayed_spectators.rs`.)

use super::*;

/// A created match and its delayed spectator tokens, `(delay, token)`.
async fn create_delayed(
    client: &mut MatchesClient<Channel>,
    options: &[(&str, &str)],
    seed: u64,
    delays: &[u32],
) -> (Created, Vec<(u32, String)>) {
    let r = client
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: opts(options),
            seed: Some(seed),
            spectator_delays: delays.to_vec(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let delayed: Vec<(u32, String)> = r
        .delayed_spectator_tokens
        .iter()
        .map(|t| (t.delay, t.token.clone()))
        .collect();
    assert_eq!(
        delayed.iter().map(|d| d.0).collect::<Vec<_>>(),
        delays,
        "one token per delay, in order"
    );
    let m = Created::from(r);
    (m, delayed)
}

/// The match's history as its record has it, and its game.
fn history_of(rec: &pb::GetRecordResponse) -> (cardhouse::AnyGame, Vec<u32>) {
    let state = check_record(rec);
    (
        state.game(),
        rec.steps.iter().map(pb::RecordStep::action).collect(),
    )
}

/// The prefix a viewer `delay` behind is shown of a match whose history is `history[..n]`
/// (still active): `max(n - delay, e)`, `e` the length at its last deal end (worked out
/// here from the API's rules, by replaying the record).
fn expected_prefix(game: &cardhouse::AnyGame, history: &[u32], n: usize, delay: u32) -> usize {
    let mut state = game.new_initial_state();
    let mut deal_end = 0;
    for (i, &a) in history[..n].iter().enumerate() {
        state.apply(a).unwrap();
        if state.deal_outcome().is_some() {
            deal_end = i + 1;
        }
    }
    n.saturating_sub(delay as usize).max(deal_end)
}

/// `v` is the view of the first `k` actions of `history`, every hand shown.
fn assert_prefix_view(game: &cardhouse::AnyGame, history: &[u32], k: usize, v: &pb::MatchView) {
    let prefix = game.replay(&history[..k]).unwrap();
    assert_eq!(v.move_number, k as u64);
    assert_eq!(
        struct_to_json(v.view.as_ref().expect("a view")),
        normalized(prefix.view(Viewer::Omniscient).unwrap()),
        "the omniscient view of the first {k} actions"
    );
    assert_eq!(
        v.current_player,
        Some(cardhouse_server::convert::player_to_pb(
            prefix.current_player()
        ))
    );
    assert_eq!(v.returns, prefix.returns().to_vec());
    assert!(v.legal_actions.is_empty());
    assert_eq!(v.role, pb::Role::DelayedSpectator as i32);
    assert_eq!(v.seat, None);
}

#[tokio::test]
async fn a_delayed_spectator_sees_every_hand_delay_actions_behind_or_at_a_deal_end() {
    let server = TestServer::memory().await;
    let mut client = server.matches().await;
    let delays = [1, 6, 90];
    let (m, delayed) = create_delayed(&mut client, &[("target_score", "1000")], 4, &delays).await;
    // Delay 6's stream, read as it comes (a stream left unread falls behind).
    let mut stream = common::watch(&mut client, &delayed[1].1, &m.id).await;
    let reader = tokio::spawn(async move {
        let mut got = Vec::new();
        while let Some(msg) = stream.next().await {
            got.push(msg.expect("a message").kind.expect("a kind"));
        }
        got
    });

    // Seeded random play by every seat; before each move (a seat to act: every chance
    // action before it is played), each delayed token's view.
    let mut rng = SeededRng::new(8);
    let mut seen: Vec<(usize, u32, pb::MatchView)> = Vec::new();
    let mut turn = 0;
    loop {
        let spectator = view(&mut client, &m, &m.spectator).await;
        if spectator.status != pb::MatchStatus::Active as i32 {
            break;
        }
        let seat = seat_of(spectator.current_player.as_ref().unwrap())
            .expect("a seat to act: chance is played inside Act");
        for (delay, token) in &delayed {
            seen.push((turn, *delay, view(&mut client, &m, token).await));
        }
        let v = view(&mut client, &m, &m.seats[&seat]).await;
        let a = v.legal_actions[rng.below(v.legal_actions.len() as u64) as usize].id();
        act(&mut client, &m, seat, a, v.move_number).await.unwrap();
        turn += 1;
    }
    let rec = record(&mut client, &m).await;
    let (game, history) = history_of(&rec);

    // Where each turn was taken: the history's length when the views were fetched.
    let mut turns_at = Vec::new();
    let mut state = game.new_initial_state();
    for (i, &a) in history.iter().enumerate() {
        if matches!(state.current_player(), Player::Seat(_)) {
            turns_at.push(i);
        }
        state.apply(a).unwrap();
    }
    assert_eq!(turns_at.len(), turn);
    let (mut by_delay, mut by_deal_end) = (0, 0);
    for (t, delay, v) in &seen {
        let n = turns_at[*t];
        let k = expected_prefix(&game, &history, n, *delay);
        if k > n.saturating_sub(*delay as usize) {
            by_deal_end += 1;
        } else if k > 0 {
            by_delay += 1;
        }
        assert_eq!(v.delay, Some(*delay));
        assert_eq!(
            v.status,
            pb::MatchStatus::Active as i32,
            "active until the end is shown"
        );
        assert_prefix_view(&game, &history, k, v);
    }
    assert!(by_delay > 0 && by_deal_end > 0, "{by_delay} {by_deal_end}");
    // Every hand is shown: some view names the cards of every seat.
    let hands_shown = seen.iter().any(|(_, _, v)| {
        let json = struct_to_json(v.view.as_ref().unwrap());
        json["hands"].as_array().is_some_and(|h| {
            h.iter()
                .all(|h| !h.is_null() && h != &serde_json::json!([]))
        })
    });
    assert!(hands_shown, "no view showed every hand");

    // Once the match has ended, everything.
    for (delay, token) in &delayed {
        let v = view(&mut client, &m, token).await;
        assert_eq!(v.status, pb::MatchStatus::Finished as i32, "delay {delay}");
        assert_eq!(v.delay, Some(*delay));
        assert_eq!(v.move_number, history.len() as u64);
        assert_eq!(
            struct_to_json(v.view.as_ref().unwrap()),
            struct_to_json(rec.final_view.as_ref().unwrap())
        );
    }

    // The stream: one event per action shown, in order, each with the omniscient text
    // and view of the prefix it completes, to the end.
    let mut got = reader.await.unwrap().into_iter();
    let Some(pb::watch_response::Kind::Snapshot(snapshot)) = got.next() else {
        panic!("a snapshot first");
    };
    let k0 = snapshot.move_number as usize;
    assert_eq!(k0, expected_prefix(&game, &history, turns_at[0], 6));
    assert_prefix_view(&game, &history, k0, &snapshot);
    let mut prefix = game.replay(&history[..k0]).unwrap();
    let mut events = 0;
    for kind in got {
        let pb::watch_response::Kind::Event(e) = kind else {
            panic!("one snapshot only");
        };
        let i = k0 + events;
        let v = e.view.as_ref().unwrap();
        assert_eq!(v.move_number as usize, i + 1, "one action an event");
        assert_eq!(e.text, prefix.action_to_string(history[i]));
        assert_eq!(
            e.actor,
            Some(cardhouse_server::convert::player_to_pb(
                prefix.current_player()
            ))
        );
        prefix.apply(history[i]).unwrap();
        assert_eq!(
            struct_to_json(v.view.as_ref().unwrap()),
            normalized(prefix.view(Viewer::Omniscient).unwrap())
        );
        events += 1;
    }
    assert_eq!(
        k0 + events,
        history.len(),
        "the stream shows the whole match"
    );
    server.stop().await;
}

async fn issue(
    client: &mut MatchesClient<Channel>,
    m: &Created,
    token: &str,
    delay: Option<u32>,
) -> Result<pb::IssueSpectatorTokenResponse, tonic::Status> {
    client
        .issue_spectator_token(authed(
            token,
            pb::IssueSpectatorTokenRequest {
                match_id: m.id.clone(),
                delay,
            },
        ))
        .await
        .map(tonic::Response::into_inner)
}

#[tokio::test]
async fn spectator_tokens_are_issued_by_the_owner_within_the_limits() {
    let server = TestServer::memory().await;
    let mut client = server.matches().await;
    let (m, delayed) = create_delayed(&mut client, &[], 2, &[3, 10_000]).await;

    // Only the owner issues; a bad delay is refused first.
    for token in [&m.seats[&0], &m.spectator, &delayed[0].1] {
        let err = issue(&mut client, &m, token, Some(4)).await.unwrap_err();
        assert_eq!(err.code(), Code::PermissionDenied, "{err:?}");
    }
    let err = issue(&mut client, &m, "not-a-token", None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated, "{err:?}");
    for delay in [0, 10_001] {
        let err = issue(&mut client, &m, &m.owner, Some(delay))
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
        assert!(err.message().contains("`delay`"), "{err:?}");
    }

    // A plain token: public information only, as the first spectator token.
    let plain = issue(&mut client, &m, &m.owner, None).await.unwrap();
    assert_eq!(plain.role, pb::Role::Spectator as i32);
    assert_eq!(plain.delay, None);
    let public = view(&mut client, &m, &plain.token).await;
    assert_eq!(public.delay, None);
    let first = view(&mut client, &m, &m.spectator).await;
    assert_eq!(public, first);
    let hands = struct_to_json(public.view.as_ref().unwrap())["hands"].clone();
    assert!(
        hands
            .as_array()
            .unwrap()
            .iter()
            .all(serde_json::Value::is_null)
    );

    // A delayed one: every hand, behind.
    let late = issue(&mut client, &m, &m.owner, Some(7)).await.unwrap();
    assert_eq!(late.role, pb::Role::DelayedSpectator as i32);
    assert_eq!(late.delay, Some(7));
    let v = view(&mut client, &m, &late.token).await;
    assert_eq!(
        (v.role, v.delay),
        (pb::Role::DelayedSpectator as i32, Some(7))
    );
    assert_ne!(plain.token, late.token);

    // A delayed token cannot act, resign or abort, nor see the record before the end.
    let seat = seat_of(first.current_player.as_ref().unwrap()).unwrap();
    let legal = view(&mut client, &m, &m.seats[&seat]).await;
    for token in [&late.token, &delayed[1].1] {
        let acted = client
            .act(authed(
                token,
                pb::ActRequest {
                    match_id: m.id.clone(),
                    action: Some(pb::act_request::Action::ActionId(
                        legal.legal_actions[0].id(),
                    )),
                    expected_move_number: Some(v.move_number),
                    include_view: false,
                },
            ))
            .await
            .unwrap_err();
        assert_eq!(acted.code(), Code::PermissionDenied, "{acted:?}");
        let resigned = client
            .resign(authed(
                token,
                pb::ResignRequest {
                    match_id: m.id.clone(),
                    seat: Some(0),
                },
            ))
            .await
            .unwrap_err();
        assert_eq!(resigned.code(), Code::PermissionDenied, "{resigned:?}");
        let aborted = client
            .abort_match(authed(
                token,
                pb::AbortMatchRequest {
                    match_id: m.id.clone(),
                },
            ))
            .await
            .unwrap_err();
        assert_eq!(aborted.code(), Code::PermissionDenied, "{aborted:?}");
        let recorded = client
            .get_record(authed(
                token,
                pb::GetRecordRequest {
                    match_id: m.id.clone(),
                    ..Default::default()
                },
            ))
            .await
            .unwrap_err();
        assert_eq!(recorded.code(), Code::FailedPrecondition, "{recorded:?}");
    }

    // 64 tokens beyond the first (the two of CreateMatch and the two above included).
    for i in 4..64 {
        issue(&mut client, &m, &m.owner, (i % 2 == 0).then_some(i))
            .await
            .unwrap_or_else(|s| panic!("token {i}: {s:?}"));
    }
    let err = issue(&mut client, &m, &m.owner, None).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    assert!(err.message().contains("64"), "{err:?}");

    // Once the match has ended, none.
    client
        .abort_match(authed(
            &m.owner,
            pb::AbortMatchRequest {
                match_id: m.id.clone(),
            },
        ))
        .await
        .unwrap();
    let err = issue(&mut client, &m, &m.owner, Some(5)).await.unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err:?}");
    // An aborted match is shown whole to a delayed token.
    let v = view(&mut client, &m, &late.token).await;
    assert_eq!(v.status, pb::MatchStatus::Aborted as i32);
    server.stop().await;
}

#[tokio::test]
async fn create_match_refuses_bad_spectator_delays() {
    let server = TestServer::memory().await;
    let mut client = server.matches().await;
    for (delays, words) in [
        (vec![0], "`spectator_delays` 0"),
        (vec![5, 10_001], "`spectator_delays` 10001"),
        (vec![1; 17], "17 entries"),
    ] {
        let err = client
            .create_match(pb::CreateMatchRequest {
                game: "jass".into(),
                spectator_delays: delays,
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
        assert!(err.message().contains(words), "{err:?} lacks {words}");
    }
    let ok = client
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            spectator_delays: vec![1; 16],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(ok.delayed_spectator_tokens.len(), 16);
    server.stop().await;
}

/// A delayed token's view tells nothing of the present: no clock, no away seats (a plain
/// spectator's shows both).
#[tokio::test]
async fn a_delayed_view_shows_no_clock() {
    let server = TestServer::memory().await;
    let mut client = server.matches().await;
    let r = client
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            seed: Some(3),
            time_control: Some(pb::TimeControl {
                move_ms: 60_000,
                ..Default::default()
            }),
            spectator_delays: vec![2],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let m = Created {
        id: r.match_id,
        seats: HashMap::new(),
        owner: r.owner_token,
        spectator: r.spectator_token,
    };
    let public = view(&mut client, &m, &m.spectator).await;
    assert!(public.clock.is_some(), "{public:?}");
    let delayed = view(&mut client, &m, &r.delayed_spectator_tokens[0].token).await;
    assert_eq!(delayed.delay, Some(2));
    assert_eq!(delayed.clock, None);
    assert!(delayed.away.is_empty());
    server.stop().await;
}
