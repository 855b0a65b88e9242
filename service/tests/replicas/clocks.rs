//! Clocks across replicas: a clock runs out on time on another replica after the replica
//! that served the match was killed with SIGKILL, and is applied once, whichever replicas
//! see it.

use super::*;

/// Jass, one deal: humans at seats 0 and 2, heuristic bots at 1 and 3, a second a move.
async fn create_clocked(c: &mut Client, seed: u64) -> M {
    let r = c
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: common::opts(&[("scope", "deal"), ("wys", "auto")]),
            seed: Some(seed),
            seats: [
                pb::SeatKind::Human,
                pb::SeatKind::HeuristicBot,
                pb::SeatKind::Human,
                pb::SeatKind::HeuristicBot,
            ]
            .iter()
            .map(|&k| k as i32)
            .collect(),
            ismcts_iterations: None,
            bots: Default::default(),
            time_control: Some(pb::TimeControl {
                move_ms: 1_000,
                ..Default::default()
            }),
        })
        .await
        .unwrap()
        .into_inner();
    M {
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

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clock_runs_out_on_another_replica_after_a_sigkill_and_once() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let mut servers = replicas(&db, 3, &[]);
    let survivor = servers.pop().unwrap();
    let other = servers.pop().unwrap();
    let victim = servers.pop().unwrap();
    let mut c = client(&victim).await;
    let m = create_clocked(&mut c, 21).await;
    let before = view(&mut c, &m, &m.spectator).await;
    let clock = before.clock.clone().expect("a clock");
    let seat = clock.seat.expect("a human to move") as usize;
    victim.kill9();
    let mut c = client(&survivor).await;
    let mut o = client(&other).await;
    let seen = loop {
        let v = view(&mut c, &m, &m.spectator).await;
        if v.move_number > before.move_number {
            break now_ms();
        }
        assert!(
            now_ms() < clock.deadline_ms + 5_000,
            "no replica played the timeout: {v:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let late = seen.saturating_sub(clock.deadline_ms);
    eprintln!("the timeout was played {late} ms after its deadline, on a surviving replica");
    assert!(
        late < 1_500,
        "the timeout came {late} ms after the deadline"
    );
    // Both survivors polled the expired clock: the timeout bot's move was played once.
    let v = view(&mut o, &m, &m.spectator).await;
    assert!(v.move_number > before.move_number);
    c.abort_match(authed(
        &m.owner,
        pb::AbortMatchRequest {
            match_id: m.id.clone(),
        },
    ))
    .await
    .unwrap();
    let rec = try_record(&mut o, &m).await.unwrap();
    let timed_out: Vec<&pb::RecordStep> = rec
        .steps
        .iter()
        .filter(|s| {
            s.stand_in
                .as_ref()
                .is_some_and(|i| i.reason == pb::stand_in::Reason::TimedOut as i32)
        })
        .collect();
    assert!(
        !timed_out.is_empty() && timed_out.len() <= 2,
        "{timed_out:?}"
    );
    assert_eq!(
        timed_out[0].actor.as_ref().map(|p| p.seat()),
        Some(seat as u32),
        "the first move played for a human is the timed-out seat's"
    );
    // Every move the bot played for a human is a different turn (none played twice).
    let mut idx: Vec<u64> = timed_out.iter().map(|s| s.index()).collect();
    idx.dedup();
    assert_eq!(idx.len(), timed_out.len());
    drop((survivor, other));
}
