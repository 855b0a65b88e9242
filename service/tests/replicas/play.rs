//! Whole matches of every game through alternating replicas, equal to the engine, and
//! concurrent Acts for one turn through two replicas (tests a and b).

use super::*;

// ---------------------------------------------------------------------------------------------
// a. Whole matches of every game, alternating replicas
// ---------------------------------------------------------------------------------------------

/// Short whole matches of every registered game (Cribbage with 2, 3 and 4 players).
const GAMES: &[(&str, &[(&str, &str)])] = &[
    ("jass", &[("target_score", "400")]),
    ("klaberjass", &[("target_score", "120")]),
    ("cribbage", &[("players", "2"), ("target_score", "31")]),
    ("cribbage", &[("players", "3"), ("target_score", "31")]),
    ("cribbage", &[("players", "4"), ("target_score", "31")]),
    ("avinas", &[("pip_limit", "2")]),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whole_matches_of_every_game_through_alternating_replicas_equal_the_engine() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2, &[]);
    let mut clients = vec![client(&servers[0]).await, client(&servers[1]).await];
    // Every registered game is covered.
    for name in cardhouse::GAME_NAMES {
        assert!(GAMES.iter().any(|(g, _)| g == name), "{name} is not played");
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut total = 0;
    for (i, (game, options)) in GAMES.iter().enumerate() {
        let seed = 1000 + i as u64;
        let n = cardhouse::new_game(game, &engine_options(options))
            .unwrap()
            .num_players();
        let seats = vec![HUMAN; n];
        let m = create(&mut clients[i % 2], game, options, seed, &seats).await;
        let mut sim = Sim::new(game, options, seed, &seats);
        let moves = play(
            &mut clients,
            &m,
            &mut sim,
            &mut SeededRng::new(seed),
            2_000,
            deadline,
        )
        .await;
        assert!(
            sim.state.is_terminal(),
            "{game}: not over after {moves} moves"
        );
        total += moves;
        // The record, through either replica, is the engine's match.
        let ra = try_record(&mut clients[0], &m).await.unwrap();
        let rb = try_record(&mut clients[1], &m).await.unwrap();
        assert_eq!(ra.status, pb::MatchStatus::Finished as i32);
        assert_record(&ra, &sim, &format!("{game} {options:?} via A"));
        assert_eq!(ra, rb, "{game}: the replicas' records differ");
        // Every seat's final view, through either replica.
        for (seat, token) in &m.seats {
            for c in clients.iter_mut() {
                assert_seat_view(&view(c, &m, token).await, &sim, *seat, "final");
            }
        }
        for c in clients.iter_mut() {
            let v = view(c, &m, &m.spectator).await;
            assert_eq!(
                v.move_number,
                sim.known[sim.spectator()],
                "{game}: spectator"
            );
        }
        // Ended is ended through either replica: no resignation or abort afterwards.
        for c in clients.iter_mut() {
            let err = c
                .resign(authed(
                    &m.owner,
                    pb::ResignRequest {
                        match_id: m.id.clone(),
                        seat: Some(0),
                    },
                ))
                .await
                .unwrap_err();
            assert_eq!(err.code(), Code::FailedPrecondition, "{game}: {err:?}");
            let err = c
                .abort_match(authed(
                    &m.owner,
                    pb::AbortMatchRequest {
                        match_id: m.id.clone(),
                    },
                ))
                .await
                .unwrap_err();
            assert_eq!(err.code(), Code::FailedPrecondition, "{game}: {err:?}");
        }
        assert_eq!(try_record(&mut clients[1], &m).await.unwrap(), ra);
    }
    eprintln!("whole matches: {total} human moves through alternating replicas");
}

// ---------------------------------------------------------------------------------------------
// b. Concurrent Acts through different replicas
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_acts_for_one_turn_through_two_replicas_one_wins_one_is_aborted() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2, &[]);
    let (mut a, mut b) = (client(&servers[0]).await, client(&servers[1]).await);
    let options = [("target_score", "1000")];
    let m = create(&mut a, "jass", &options, 31, &[HUMAN; 4]).await;
    let mut sim = Sim::new("jass", &options, 31, &[HUMAN; 4]);
    let mut rng = SeededRng::new(5);
    let (mut wins_a, mut wins_b) = (0, 0);
    // Bounded: 30 rounds.
    for round in 0..30 {
        let seat = sim.to_move().expect("a long match");
        // Alternate which replica the state is read from (and so which one is warm).
        let v = if round % 2 == 0 {
            view(&mut a, &m, &m.seats[&seat]).await
        } else {
            view(&mut b, &m, &m.seats[&seat]).await
        };
        assert_seat_view(&v, &sim, seat, &format!("round {round}"));
        let legal = &v.legal_actions;
        let x = legal[rng.below(legal.len() as u64) as usize].id();
        let y = legal[rng.below(legal.len() as u64) as usize].id();
        let (ra, rb) = tokio::join!(
            act(&mut a, &m, seat, x, v.move_number),
            act(&mut b, &m, seat, y, v.move_number)
        );
        let won = match (&ra, &rb) {
            (Ok(_), Err(e)) => {
                assert_eq!(e.code(), Code::Aborted, "round {round}, loser B: {e:?}");
                wins_a += 1;
                x
            }
            (Err(e), Ok(_)) => {
                assert_eq!(e.code(), Code::Aborted, "round {round}, loser A: {e:?}");
                wins_b += 1;
                y
            }
            _ => panic!("round {round}: exactly one must succeed: {ra:?} / {rb:?}"),
        };
        sim.act(won);
        let acked = ra.as_ref().or(rb.as_ref()).unwrap();
        assert_eq!(acked.move_number, sim.known[seat], "round {round}");
        // Both replicas agree on the winner.
        for c in [&mut a, &mut b] {
            let v = view(c, &m, &m.seats[&seat]).await;
            assert_seat_view(&v, &sim, seat, &format!("round {round}, after"));
        }
    }
    eprintln!("concurrent acts: A won {wins_a}, B won {wins_b} of 30");
    // The loser applied nothing: the record holds the winners' moves only.
    b.abort_match(authed(
        &m.owner,
        pb::AbortMatchRequest {
            match_id: m.id.clone(),
        },
    ))
    .await
    .unwrap();
    let rec = try_record(&mut a, &m).await.unwrap();
    assert_eq!(rec.status, pb::MatchStatus::Aborted as i32);
    let actions: Vec<Action> = rec.steps.iter().map(|s| s.action()).collect();
    assert_eq!(actions, sim.history);

    // An Act racing a resignation through the other replica (10 fresh matches, the replicas
    // swapping roles): the resignation always succeeds; the Act either came first (its move is in the record) or fails
    // having applied nothing.
    let (mut acts_first, mut resigns_first) = (0, 0);
    for round in 0..10u64 {
        let m = create(&mut a, "jass", &options, 200 + round, &[HUMAN; 4]).await;
        let mut sim = Sim::new("jass", &options, 200 + round, &[HUMAN; 4]);
        let seat = sim.to_move().unwrap();
        let (resigner, actor) = if round % 2 == 0 {
            (&mut a, &mut b)
        } else {
            (&mut b, &mut a)
        };
        let v = view(actor, &m, &m.seats[&seat]).await;
        let x = v.legal_actions[0].id();
        let (resigned, acted) = tokio::join!(
            resigner.resign(authed(
                &m.owner,
                pb::ResignRequest {
                    match_id: m.id.clone(),
                    seat: Some(((seat + 1) % 4) as u32),
                },
            )),
            act(actor, &m, seat, x, v.move_number)
        );
        let resigned = resigned
            .unwrap_or_else(|s| panic!("round {round}: the resignation failed: {s:?}"))
            .into_inner()
            .view
            .unwrap();
        assert_eq!(resigned.status, pb::MatchStatus::Resigned as i32);
        match acted {
            Ok(_) => {
                acts_first += 1;
                sim.act(x);
            }
            Err(s) => {
                assert!(
                    matches!(s.code(), Code::FailedPrecondition | Code::Aborted),
                    "round {round}: {s:?}"
                );
                resigns_first += 1;
            }
        }
        for c in [&mut a, &mut b] {
            let rec = try_record(c, &m).await.unwrap();
            assert_eq!(
                rec.status,
                pb::MatchStatus::Resigned as i32,
                "round {round}"
            );
            let actions: Vec<Action> = rec.steps.iter().map(|s| s.action()).collect();
            assert_eq!(actions, sim.history, "round {round}");
        }
    }
    eprintln!(
        "act against resignation: the act first {acts_first}, the resignation first {resigns_first}"
    );
}
