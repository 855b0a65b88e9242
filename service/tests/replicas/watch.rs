//! A Watch on one replica sees the moves made through another, redacted, and a watched
//! all-bot match played by another replica streams every action (tests d and j).

use super::*;

// ---------------------------------------------------------------------------------------------
// d. Watch on one replica, moves through another
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_on_one_replica_sees_the_moves_made_through_another_redacted() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2, &[]);
    let (watched, played) = (&servers[0], &servers[1]);
    let (mut a, mut b) = (client(watched).await, client(played).await);
    let seats = [
        HUMAN,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
    ];
    let options = [("target_score", "1000")];
    let m = create(&mut b, "jass", &options, 21, &seats).await;
    let mut sim = Sim::new("jass", &options, 21, &seats);
    let start = view(&mut b, &m, &m.seats[&0]).await;
    assert_seat_view(&start, &sim, 0, "start");
    let mut w = stream_client(watched).await;
    let mut seat_stream = common::watch(&mut w, &m.seats[&0], &m.id).await;
    let mut spectator_stream = common::watch(&mut w, &m.spectator, &m.id).await;
    let first = tokio::time::timeout(PATIENCE, seat_stream.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    // The snapshot on A is the view B gave: no stale snapshot.
    assert_eq!(
        first.kind,
        Some(pb::watch_response::Kind::Snapshot(start.clone()))
    );
    // The spectator's stream is read all along, in a task of its own (bounded in time).
    let spectator_events = tokio::spawn(async move {
        let mut events = Vec::new();
        let mut snapshots = 0;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, spectator_stream.next()).await {
                Ok(Some(Ok(msg))) => match msg.kind.unwrap() {
                    pb::watch_response::Kind::Event(e) => {
                        assert_eq!(snapshots, 1, "the snapshot comes first");
                        events.push(e);
                    }
                    pb::watch_response::Kind::Snapshot(_) => {
                        snapshots += 1;
                        assert_eq!(snapshots, 1, "one snapshot only");
                    }
                },
                Ok(Some(Err(s))) => panic!("the spectator stream failed: {s:?}"),
                Ok(None) => return events,
                Err(_) => panic!("the spectator stream did not end"),
            }
        }
    });

    // Play through B; after each Act, A's seat stream must deliver it within PATIENCE.
    let mut rng = SeededRng::new(2);
    let mut seat_events = Vec::new();
    let mut worst = Duration::ZERO;
    let mut moves = 0;
    // Bounded: 1,000 moves.
    while let Some(seat) = sim.to_move() {
        assert!(moves < 1000);
        assert_eq!(seat, 0);
        let v = view(&mut b, &m, &m.seats[&0]).await;
        let a_id = v.legal_actions[rng.below(v.legal_actions.len() as u64) as usize].id();
        let after = act(&mut b, &m, 0, a_id, v.move_number).await.unwrap();
        sim.act(a_id);
        assert_eq!(after.move_number, sim.known[0]);
        worst =
            worst.max(events_until(&mut seat_stream, after.move_number, &mut seat_events).await);
        moves += 1;
    }
    // The seat's stream ends with the match.
    let end = tokio::time::timeout(PATIENCE, seat_stream.next())
        .await
        .expect("the seat stream ends with the match");
    assert!(end.is_none(), "after the end: {end:?}");
    let spectator_events = spectator_events.await.unwrap();
    eprintln!(
        "watch across replicas: {moves} moves, {} seat events, worst latency {worst:?}",
        seat_events.len()
    );

    // Expected events: the engine's redaction for seat 0 and for a spectator, action by
    // action from where the stream started.
    let rec = try_record(&mut a, &m).await.unwrap();
    assert_record(&rec, &sim, "the watched match");
    let game = cardhouse::new_game("jass", &engine_options(&options)).unwrap();
    let mut state = game.new_initial_state();
    let (mut expected_seat, mut expected_spectator) = (Vec::new(), Vec::new());
    let (mut seat_known, mut spectator_known) = (0u64, 0u64);
    let mut leaks = Vec::new();
    for &action in &sim.history {
        let actor = state.current_player();
        let seat_text = if actor == Player::Seat(0) {
            Some(state.action_to_string(action))
        } else {
            state.action_to_string_for(Viewer::Seat(0), action)
        };
        let spectator_text = state.action_to_string_for(Viewer::Spectator, action);
        if actor == Player::Chance && seat_text.as_deref() != Some(&state.action_to_string(action))
        {
            leaks.push(state.action_to_string(action));
        }
        state.apply(action).unwrap();
        if let Some(t) = seat_text {
            seat_known += 1;
            if seat_known > start.move_number {
                expected_seat.push((
                    t,
                    seat_known,
                    normalized(state.view(Viewer::Seat(0)).unwrap()),
                ));
            }
        }
        if let Some(t) = spectator_text {
            spectator_known += 1;
            if seat_known > start.move_number {
                expected_spectator.push((
                    t,
                    spectator_known,
                    normalized(state.view(Viewer::Spectator).unwrap()),
                ));
            }
        }
    }
    let got = |events: &[pb::MatchEvent]| -> Vec<(String, u64, serde_json::Value)> {
        events
            .iter()
            .map(|e| {
                let v = e.view.as_ref().unwrap();
                (
                    e.text.clone(),
                    v.move_number,
                    struct_to_json(v.view.as_ref().unwrap()),
                )
            })
            .collect()
    };
    let got_seat = got(&seat_events);
    assert!(!got_seat.is_empty());
    assert_eq!(got_seat.len(), expected_seat.len(), "seat events");
    for (i, (g, e)) in got_seat.iter().zip(&expected_seat).enumerate() {
        assert_eq!(g, e, "seat event {i}");
    }
    let got_spectator = got(&spectator_events);
    assert_eq!(
        got_spectator.len(),
        expected_spectator.len(),
        "spectator events"
    );
    for (i, (g, e)) in got_spectator.iter().zip(&expected_spectator).enumerate() {
        assert_eq!(g, e, "spectator event {i}");
    }
    // Redaction: no event of seat 0 names a card dealt to another seat; no spectator view
    // shows a hand.
    assert!(!leaks.is_empty());
    for e in &seat_events {
        assert!(!leaks.contains(&e.text), "leaked {}", e.text);
    }
    for (_, _, v) in &got_spectator {
        assert!(v["hands"].as_array().unwrap().iter().all(|h| h.is_null()));
    }
}

// ---------------------------------------------------------------------------------------------
// j. A watched all-bot match played in the background by another replica
// ---------------------------------------------------------------------------------------------

/// A spectator watching an all-bot match (played in the background by another replica)
/// sees every action once, in order, to the end.
///
/// A background chunk of bot moves (up to 1,024), or a refresh that adopts another
/// replica's chunk, is one entry of the match's broadcast (capacity 128), which each stream
/// replays; it once sent one entry per action, and a prompt reader got RESOURCE_EXHAUSTED
/// ("this stream fell N events behind").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watched_all_bot_match_streams_every_action_without_a_gap() {
    watched_all_bot_match(&[]).await;
}

/// The same without change notices (`--store-notices off`, for databases without
/// LISTEN/NOTIFY): the watchers' once-a-second poll brings every move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_notices_a_watch_still_gets_every_move_from_its_poll() {
    watched_all_bot_match(&["--store-notices", "off"]).await;
}

async fn watched_all_bot_match(extra: &[&str]) {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2, extra);
    // IS-MCTS seats take long enough (a background chunk is 50 ms of their moves) that the
    // Watch starts well before the end and gets bursts of many moves per commit.
    let seats = [
        pb::SeatKind::IsmctsBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::IsmctsBot,
        pb::SeatKind::RandomBot,
    ];
    let options = [("target_score", "1500")];
    let sim = Sim::new("jass", &options, 77, &seats);
    let m = create(&mut client(&servers[0]).await, "jass", &options, 77, &seats).await;
    let mut w = stream_client(&servers[1]).await;
    let mut stream = common::watch(&mut w, &m.spectator, &m.id).await;
    let (mut snapshot, mut last, mut events) = (false, 0, 0);
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = match tokio::time::timeout(left, stream.next()).await {
            Ok(Some(msg)) => msg.unwrap_or_else(|s| {
                panic!("the stream failed after {events} events (at {last}): {s:?}")
            }),
            Ok(None) => break,
            Err(_) => panic!("the match did not end in time: at {last} after {events} events"),
        };
        match msg.kind.unwrap() {
            pb::watch_response::Kind::Snapshot(v) => {
                assert!(!snapshot, "one snapshot only");
                snapshot = true;
                last = v.move_number;
            }
            pb::watch_response::Kind::Event(e) => {
                assert!(snapshot, "the snapshot comes first");
                let mn = e.view.as_ref().unwrap().move_number;
                assert_eq!(mn, last + 1, "an event skipped or repeated");
                last = mn;
                events += 1;
            }
        }
    }
    eprintln!("the watch got {events} events after its snapshot");
    assert!(
        events > 100,
        "the match ended too soon to test the stream: {events} events"
    );
    assert_eq!(
        last,
        sim.known[sim.spectator()],
        "the stream's last move number"
    );
}
