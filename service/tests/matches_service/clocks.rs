//! Clocks, timeouts and away seats: each timeout policy, banks with increments, a move that
//! races its deadline, away and back, the clock through a restart, and what Watch and the
//! record tell of it.

use std::time::{Duration, Instant};

use super::*;

/// Jass, one deal, humans at seats 0 and 2 and heuristic bots at 1 and 3.
const PAIRS: [pb::SeatKind; 4] = [
    pb::SeatKind::Human,
    pb::SeatKind::HeuristicBot,
    pb::SeatKind::Human,
    pb::SeatKind::HeuristicBot,
];

fn control(move_ms: u64, policy: pb::TimeoutPolicy) -> pb::TimeControl {
    pb::TimeControl {
        move_ms,
        on_timeout: policy as i32,
        ..Default::default()
    }
}

async fn create_clocked(
    client: &mut MatchesClient<Channel>,
    seed: u64,
    seats: &[pb::SeatKind],
    time: pb::TimeControl,
) -> Created {
    let r = client
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: opts(&[("scope", "deal"), ("wys", "auto")]),
            seed: Some(seed),
            seats: seats.iter().map(|&k| k as i32).collect(),
            ismcts_iterations: None,
            bots: Default::default(),
            time_control: Some(time),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    Created::from(r)
}

/// The spectator's view once `done` holds of it (polled; at most `within`).
async fn wait_for(
    client: &mut MatchesClient<Channel>,
    m: &Created,
    within: Duration,
    what: &str,
    done: impl Fn(&pb::MatchView) -> bool,
) -> pb::MatchView {
    let start = Instant::now();
    loop {
        let v = view(client, m, &m.spectator).await;
        if done(&v) {
            return v;
        }
        assert!(
            start.elapsed() < within,
            "{what}: not within {within:?}: {v:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn clock(v: &pb::MatchView) -> &pb::ClockView {
    v.clock
        .as_ref()
        .expect("a clocked match's view shows its clock")
}

async fn abort(client: &mut MatchesClient<Channel>, m: &Created) {
    client
        .abort_match(authed(
            &m.owner,
            pb::AbortMatchRequest {
                match_id: m.id.clone(),
            },
        ))
        .await
        .unwrap();
}

#[tokio::test]
async fn a_timed_out_move_is_played_by_the_timeout_bot_and_the_late_act_is_refused() {
    let server = TestServer::memory().await;
    let mut c = server.matches().await;
    let m = create_clocked(
        &mut c,
        5,
        &PAIRS,
        control(1_000, pb::TimeoutPolicy::Unspecified),
    )
    .await;
    let v = view(&mut c, &m, &m.spectator).await;
    let seat = seat_of(v.current_player.as_ref().unwrap()).unwrap();
    let ck = clock(&v);
    assert_eq!(ck.seat, Some(seat as u32));
    let left = ck.deadline_ms.saturating_sub(ck.server_now_ms);
    assert!((1..=1_000).contains(&left), "time left {left} ms");
    assert_eq!(ck.control.as_ref().unwrap().timeout_bot, "heuristic");
    let mine = view(&mut c, &m, &m.seats[&seat]).await;
    let mut stream = common::watch(&mut c, &m.spectator, &m.id).await;
    let _snapshot = stream.next().await.unwrap().unwrap();

    let started = Instant::now();
    let after = wait_for(&mut c, &m, Duration::from_secs(5), "the timeout", |v| {
        v.move_number > mine.move_number
    })
    .await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_millis(2_500),
        "the timeout came {took:?} after the view (deadline 1 s)"
    );
    assert_eq!(after.status, pb::MatchStatus::Active as i32);

    // Watch: the notice first, then the bot's move for the seat.
    let first = stream.next().await.unwrap().unwrap();
    let Some(pb::watch_response::Kind::Event(e)) = first.kind else {
        panic!("an event");
    };
    let notice = e
        .notice
        .expect("the first event after the timeout is its notice");
    assert_eq!(notice.seat, Some(seat as u32));
    assert_eq!(notice.kind, pb::SeatNoticeKind::TimedOut as i32);
    assert!(e.actor.is_none());
    let second = stream.next().await.unwrap().unwrap();
    let Some(pb::watch_response::Kind::Event(e)) = second.kind else {
        panic!("an event");
    };
    assert_eq!(seat_of(e.actor.as_ref().unwrap()), Some(seat));

    // The seat's late move: refused, saying why.
    let late = act(
        &mut c,
        &m,
        seat,
        mine.legal_actions[0].id(),
        mine.move_number,
    )
    .await
    .unwrap_err();
    assert_eq!(late.code(), Code::FailedPrecondition, "{late:?}");
    assert!(
        late.message().contains("clock ran out"),
        "{}",
        late.message()
    );

    // The record says which move a bot played for the human seat, and why.
    abort(&mut c, &m).await;
    let rec = record(&mut c, &m).await;
    let stood_in: Vec<&pb::RecordStep> =
        rec.steps.iter().filter(|s| s.stand_in.is_some()).collect();
    assert_eq!(stood_in.len(), 1, "one move played for the seat");
    let s = stood_in[0];
    assert_eq!(seat_of(s.actor.as_ref().unwrap()), Some(seat));
    let si = s.stand_in.as_ref().unwrap();
    assert_eq!(si.reason, pb::stand_in::Reason::TimedOut as i32);
    assert_eq!(si.bot, "heuristic");
    check_record(&rec);
}

#[tokio::test]
async fn the_resign_and_abort_policies_end_the_match_on_time() {
    let server = TestServer::memory().await;
    let mut c = server.matches().await;
    let resign = create_clocked(&mut c, 6, &PAIRS, control(1_000, pb::TimeoutPolicy::Resign)).await;
    let abort_ = create_clocked(&mut c, 6, &PAIRS, control(1_000, pb::TimeoutPolicy::Abort)).await;
    let v = view(&mut c, &resign, &resign.spectator).await;
    let seat = seat_of(v.current_player.as_ref().unwrap()).unwrap();
    let ended = wait_for(
        &mut c,
        &resign,
        Duration::from_secs(5),
        "lost on time",
        |v| v.status != pb::MatchStatus::Active as i32,
    )
    .await;
    assert_eq!(ended.status, pb::MatchStatus::TimedOut as i32);
    assert_eq!(ended.resigned_seat, Some(seat as u32));
    assert_eq!(
        clock(&ended).seat,
        None,
        "no clock runs once the match is over"
    );
    let aborted = wait_for(&mut c, &abort_, Duration::from_secs(5), "aborted", |v| {
        v.status != pb::MatchStatus::Active as i32
    })
    .await;
    assert_eq!(aborted.status, pb::MatchStatus::Aborted as i32);
    let late = act(
        &mut c,
        &resign,
        seat,
        v.legal_actions.first().map_or(0, |a| a.id()),
        0,
    )
    .await
    .unwrap_err();
    assert_eq!(late.code(), Code::FailedPrecondition);
}

#[tokio::test]
async fn a_bank_is_spent_by_the_seat_to_move_and_grows_by_the_increment() {
    let server = TestServer::memory().await;
    let mut c = server.matches().await;
    let time = pb::TimeControl {
        bank_ms: 20_000,
        increment_ms: 3_000,
        ..Default::default()
    };
    let m = create_clocked(&mut c, 7, &PAIRS, time).await;
    let v = view(&mut c, &m, &m.spectator).await;
    let seat = seat_of(v.current_player.as_ref().unwrap()).unwrap();
    let banks = &clock(&v).bank_ms;
    assert_eq!(banks.len(), 4);
    for (s, &b) in banks.iter().enumerate() {
        // Only the seat to move spends its bank (the time since its turn started).
        assert!(b == 20_000 || (s == seat && b > 19_000), "banks {banks:?}");
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mine = view(&mut c, &m, &m.seats[&seat]).await;
    let running = clock(&mine).bank_ms[seat];
    assert!(running <= 19_700, "the running bank counts down: {running}");
    let asked = Instant::now();
    let after = act(
        &mut c,
        &m,
        seat,
        mine.legal_actions[0].id(),
        mine.move_number,
    )
    .await
    .unwrap();
    let took = asked.elapsed().as_millis() as u64;
    let bank = clock(&after).bank_ms[seat];
    // 20 s, less at least the 300 ms waited and at most that plus the round trips, plus 3 s.
    assert!(
        bank <= 22_700 && bank >= 22_700 - took - 1_000,
        "bank {bank} after the move"
    );
    // The deadline of a bank without a time per move is the bank itself.
    let v = view(&mut c, &m, &m.spectator).await;
    if let Some(next) = clock(&v).seat {
        let ck = clock(&v);
        let left = ck.deadline_ms - ck.server_now_ms;
        assert!(
            left <= ck.bank_ms[next as usize] + 50,
            "{left} ms left, bank {:?}",
            ck.bank_ms
        );
    }
}

#[tokio::test]
async fn a_move_racing_its_deadline_either_lands_or_is_refused_never_both() {
    let server = TestServer::memory().await;
    let mut c = server.matches().await;
    let mut matches = Vec::new();
    for seed in 0..24 {
        let m = create_clocked(
            &mut c,
            100 + seed,
            &PAIRS,
            control(1_000, pb::TimeoutPolicy::Bot),
        )
        .await;
        let v = view(&mut c, &m, &m.spectator).await;
        let seat = seat_of(v.current_player.as_ref().unwrap()).unwrap();
        let mine = view(&mut c, &m, &m.seats[&seat]).await;
        matches.push((m, seat, mine));
    }
    // Each move is sent at a different point around its deadline.
    let mut tasks = Vec::new();
    for (i, (m, seat, mine)) in matches.into_iter().enumerate() {
        let mut c = c.clone();
        let deadline = clock(&mine).deadline_ms;
        let now = clock(&mine).server_now_ms;
        let at = (deadline - now) as i64 - 60 + (i as i64 * 5);
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(at.max(0) as u64)).await;
            let outcome = act(
                &mut c,
                &m,
                seat,
                mine.legal_actions[0].id(),
                mine.move_number,
            )
            .await;
            (m, seat, mine, outcome)
        }));
    }
    let (mut landed, mut refused) = (0, 0);
    for t in tasks {
        let (m, seat, mine, outcome) = t.await.unwrap();
        // Let the timeout (if it won) finish, then end the match to read its record.
        wait_for(
            &mut c,
            &m,
            Duration::from_secs(5),
            "the turn is over",
            |v| {
                v.clock.as_ref().is_none_or(|k| k.seat != Some(seat as u32))
                    || v.move_number > mine.move_number
            },
        )
        .await;
        abort(&mut c, &m).await;
        let rec = record(&mut c, &m).await;
        check_record(&rec);
        let stood_in = rec.steps.iter().filter(|s| s.stand_in.is_some()).count();
        match outcome {
            Ok(_) => {
                landed += 1;
                assert_eq!(stood_in, 0, "the move landed, and yet a bot played it");
            }
            Err(e) => {
                refused += 1;
                assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
                assert!(e.message().contains("clock ran out"), "{}", e.message());
                assert_eq!(
                    stood_in, 1,
                    "the move was refused: the timeout bot played it"
                );
            }
        }
    }
    assert_eq!(landed + refused, 24);
}

#[tokio::test]
async fn a_seat_away_is_played_at_once_and_comes_back() {
    let server = TestServer::memory().await;
    let mut c = server.matches().await;
    // Two timeouts in a row make a seat away (the default).
    let m = create_clocked(&mut c, 8, &PAIRS, control(1_000, pb::TimeoutPolicy::Bot)).await;
    let v = view(&mut c, &m, &m.spectator).await;
    let first = seat_of(v.current_player.as_ref().unwrap()).unwrap();
    let other = 2 - first;
    let mut stream = common::watch(&mut c, &m.spectator, &m.id).await;
    let _snapshot = stream.next().await.unwrap().unwrap();
    // Seat `first` times out until it is away; seat `other` plays its turns at once.
    let start = Instant::now();
    loop {
        let v = view(&mut c, &m, &m.spectator).await;
        if v.away.get(first).copied().unwrap_or(false) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "never away: {v:?}"
        );
        if seat_of(v.current_player.as_ref().unwrap()) == Some(other) {
            let mine = view(&mut c, &m, &m.seats[&other]).await;
            let _ = act(
                &mut c,
                &m,
                other,
                mine.legal_actions[0].id(),
                mine.move_number,
            )
            .await;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Away: the seat's turns no longer wait for its clock.
    let v = wait_for(
        &mut c,
        &m,
        Duration::from_secs(2),
        "its turn played at once",
        |v| {
            v.status != pb::MatchStatus::Active as i32
                || seat_of(v.current_player.as_ref().unwrap()) == Some(other)
        },
    )
    .await;
    if v.status == pb::MatchStatus::Active as i32 {
        assert_eq!(clock(&v).seat, Some(other as u32));
        // Back: its next turn is its own again.
        let back = c
            .set_away(authed(
                &m.seats[&first],
                pb::SetAwayRequest {
                    match_id: m.id.clone(),
                    away: false,
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .view
            .unwrap();
        assert!(!back.away[first]);
    }
    // Watch told of both timeouts, then of the seat away (and back).
    let mut kinds = Vec::new();
    while kinds.len() < 3 || (v.status == pb::MatchStatus::Active as i32 && kinds.len() < 4) {
        let msg = tokio::time::timeout(Duration::from_secs(5), stream.next())
            .await
            .expect("the notices come")
            .unwrap()
            .unwrap();
        // The other seat's clock may run out too on a slow machine: only `first`'s count.
        if let Some(pb::watch_response::Kind::Event(e)) = msg.kind
            && let Some(n) = e.notice
            && n.seat == Some(first as u32)
        {
            kinds.push(n.kind);
        }
    }
    let mut want = vec![
        pb::SeatNoticeKind::TimedOut as i32,
        pb::SeatNoticeKind::TimedOut as i32,
        pb::SeatNoticeKind::Away as i32,
    ];
    if v.status == pb::MatchStatus::Active as i32 {
        want.push(pb::SeatNoticeKind::Back as i32);
    }
    assert_eq!(kinds, want);
    // A token of another seat, or the owner, cannot say a seat is away.
    let denied = c
        .set_away(authed(
            &m.owner,
            pb::SetAwayRequest {
                match_id: m.id.clone(),
                away: true,
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(denied.code(), Code::PermissionDenied);
}

#[tokio::test]
async fn a_seat_says_it_is_away_without_a_clock_and_its_turns_are_played_for_it() {
    let server = TestServer::memory().await;
    let mut c = server.matches().await;
    let m = create(
        &mut c,
        &[("scope", "deal"), ("wys", "auto")],
        9,
        PAIRS.to_vec(),
    )
    .await;
    let v = view(&mut c, &m, &m.spectator).await;
    assert!(v.clock.is_none(), "no time control: no clock");
    assert!(v.away.is_empty());
    for seat in [0, 2] {
        c.set_away(authed(
            &m.seats[&seat],
            pb::SetAwayRequest {
                match_id: m.id.clone(),
                away: true,
            },
        ))
        .await
        .unwrap();
    }
    let end = wait_for(
        &mut c,
        &m,
        Duration::from_secs(10),
        "the deal played out",
        |v| v.status == pb::MatchStatus::Finished as i32,
    )
    .await;
    assert_eq!(end.away, vec![true, false, true, false]);
    let rec = record(&mut c, &m).await;
    check_record(&rec);
    let human_moves = rec
        .steps
        .iter()
        .filter(|s| matches!(seat_of(s.actor.as_ref().unwrap()), Some(0 | 2)))
        .count();
    let stood_in: Vec<_> = rec
        .steps
        .iter()
        .filter_map(|s| s.stand_in.as_ref())
        .collect();
    assert_eq!(
        stood_in.len(),
        human_moves,
        "every human move was played by the stand-in"
    );
    assert!(
        stood_in
            .iter()
            .all(|s| s.reason == pb::stand_in::Reason::Away as i32 && s.bot == "heuristic")
    );
}

#[tokio::test]
async fn a_clock_that_ran_out_while_the_server_was_down_times_out_on_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::on_disk(dir.path()).await;
    let mut c = server.matches().await;
    let time = pb::TimeControl {
        move_ms: 1_000,
        timeout_bot: "random".into(),
        ..Default::default()
    };
    let m = create_clocked(&mut c, 10, &PAIRS, time).await;
    let before = view(&mut c, &m, &m.spectator).await;
    let deadline = clock(&before).deadline_ms;
    server.stop().await;
    tokio::time::sleep(Duration::from_millis(1_300)).await;
    let server = TestServer::on_disk(dir.path()).await;
    let mut c = server.matches().await;
    let restarted = Instant::now();
    let after = wait_for(
        &mut c,
        &m,
        Duration::from_secs(3),
        "the timeout after a restart",
        |v| v.move_number > before.move_number,
    )
    .await;
    assert!(
        restarted.elapsed() < Duration::from_millis(1_500),
        "{:?}",
        restarted.elapsed()
    );
    assert_eq!(
        clock(&after).control.as_ref().unwrap().timeout_bot,
        "random"
    );
    // A clock that had not run out when the server stopped keeps its deadline.
    let v = view(&mut c, &m, &m.spectator).await;
    if let Some(seat) = clock(&v).seat {
        let d = clock(&v).deadline_ms;
        assert!(d > deadline, "a new turn, a new deadline");
        server.stop().await;
        let server = TestServer::on_disk(dir.path()).await;
        let mut c = server.matches().await;
        let v = view(&mut c, &m, &m.spectator).await;
        assert_eq!(clock(&v).seat, Some(seat));
        assert_eq!(
            clock(&v).deadline_ms,
            d,
            "the deadline is stored, not restarted"
        );
    }
}

#[tokio::test]
async fn a_bad_time_control_is_refused_naming_the_field() {
    let server = TestServer::memory().await;
    let mut c = server.matches().await;
    let cases = [
        (control(10, pb::TimeoutPolicy::Bot), "time_control.move_ms"),
        (pb::TimeControl::default(), "`time_control` needs"),
        (
            pb::TimeControl {
                move_ms: 5_000,
                increment_ms: 1_000,
                ..Default::default()
            },
            "needs a bank",
        ),
        (
            pb::TimeControl {
                move_ms: 5_000,
                timeout_bot: "grandmaster".into(),
                ..Default::default()
            },
            "time_control.timeout_bot",
        ),
        (
            pb::TimeControl {
                move_ms: 5_000,
                on_timeout: 9,
                ..Default::default()
            },
            "time_control.on_timeout",
        ),
        (
            pb::TimeControl {
                move_ms: 5_000,
                timeout_bot: "ismcts:1000000".into(),
                ..Default::default()
            },
            "--max-ismcts-iterations",
        ),
    ];
    for (time, says) in cases {
        let e = c
            .create_match(pb::CreateMatchRequest {
                game: "jass".into(),
                seats: PAIRS.iter().map(|&k| k as i32).collect(),
                time_control: Some(time.clone()),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{time:?}");
        assert!(e.message().contains(says), "{time:?}: {}", e.message());
    }
}
