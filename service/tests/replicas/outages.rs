//! PostgreSQL dropping every connection, between moves and under load, and a paused
//! replica that resumes (tests h and i).

use super::*;

// ---------------------------------------------------------------------------------------------
// h. PostgreSQL drops every connection
// ---------------------------------------------------------------------------------------------

/// Every connection of the replicas to PostgreSQL is terminated (as a database restart
/// does): the replicas carry on (a request may fail once with UNAVAILABLE, never with a
/// wrong answer), and a Watch still receives the moves made through the other replica
/// (its listener reconnects).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_carry_on_after_postgresql_dropped_their_connections() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2, &[]);
    let mut clients = [client(&servers[0]).await, client(&servers[1]).await];
    let options = [("target_score", "1000")];
    let m = create(&mut clients[0], "jass", &options, 41, &[HUMAN; 4]).await;
    let mut sim = Sim::new("jass", &options, 41, &[HUMAN; 4]);
    let mut watch_a =
        common::watch(&mut stream_client(&servers[0]).await, &m.seats[&0], &m.id).await;
    tokio::time::timeout(PATIENCE, watch_a.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let pg = db.client().await;
    let mut rng = SeededRng::new(3);
    let mut seen = Vec::new();
    let (mut unavailable, mut worst) = (0, Duration::ZERO);
    // Bounded: 16 moves, at most 2 UNAVAILABLE answers each.
    for mv in 0..16 {
        if mv == 6 || mv == 11 {
            let killed = pg
                .query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                     WHERE datname = current_database() AND pid <> pg_backend_pid()",
                    &[],
                )
                .await
                .unwrap();
            eprintln!("move {mv}: terminated {} connections", killed.len());
            assert!(!killed.is_empty());
        }
        let seat = sim.to_move().unwrap();
        let token = &m.seats[&seat];
        let mut tries = 0;
        let after = loop {
            tries += 1;
            assert!(tries <= 3, "move {mv}: UNAVAILABLE again and again");
            let (by, other) = if mv % 2 == 0 { (1, 0) } else { (0, 1) };
            let v = match try_view(&mut clients[other], &m, token).await {
                Ok(v) => v,
                Err(s) if s.code() == Code::Unavailable => {
                    unavailable += 1;
                    continue;
                }
                Err(s) => panic!("move {mv}: GetView: {s:?}"),
            };
            assert_seat_view(&v, &sim, seat, &format!("move {mv}"));
            let a = v.legal_actions[rng.below(v.legal_actions.len() as u64) as usize].id();
            match act(&mut clients[by], &m, seat, a, v.move_number).await {
                Ok(after) => {
                    sim.act(a);
                    break after;
                }
                Err(s) if s.code() == Code::Unavailable => {
                    // Its outcome is unknown: the next read tells (and the retry of a move
                    // that landed is ABORTED, so it is read again first).
                    unavailable += 1;
                    let v = loop {
                        match try_view(&mut clients[other], &m, token).await {
                            Ok(v) => break v,
                            Err(s) if s.code() == Code::Unavailable => unavailable += 1,
                            Err(s) => panic!("move {mv}: GetView: {s:?}"),
                        }
                    };
                    if v.move_number > sim.known[seat] {
                        sim.act(a);
                        assert_seat_view(&v, &sim, seat, &format!("move {mv}, landed"));
                        break v;
                    }
                }
                Err(s) => panic!("move {mv}: Act: {s:?}"),
            }
        };
        assert_eq!(after.move_number, sim.known[seat], "move {mv}");
        worst = worst.max(events_until(&mut watch_a, sim.known[0], &mut seen).await);
    }
    eprintln!(
        "after dropped connections: {unavailable} UNAVAILABLE answers, worst watch latency {worst:?}"
    );
    let last = seen.last().unwrap().view.as_ref().unwrap();
    assert_eq!(last.move_number, sim.known[0]);
    for c in clients.iter_mut() {
        assert_seat_view(&view(c, &m, &m.seats[&0]).await, &sim, 0, "at the end");
    }
}

/// PostgreSQL terminates every connection of the replicas several times while clients play
/// through both: requests may fail with UNAVAILABLE (a change then has an unknown outcome,
/// and a retry of one that landed is ABORTED), but no acknowledged move is lost, the
/// replicas agree, and both take changes afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_acknowledged_move_is_lost_when_postgresql_drops_connections_under_load() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2, &[]);
    let seats = [
        HUMAN,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
    ];
    let mut games = Vec::new();
    for i in 0..6u64 {
        let mut c = client(&servers[(i % 2) as usize]).await;
        games.push(create(&mut c, "jass", &[("wys", "auto")], 700 + i, &seats).await);
    }
    let acked = Arc::new(Mutex::new(vec![Acked::default(); games.len()]));
    let stop_at = Instant::now() + Duration::from_secs(3);
    let mut tasks = Vec::new();
    for (i, g) in games.iter().cloned().enumerate() {
        let acked = Arc::clone(&acked);
        let mut clients = [client(&servers[0]).await, client(&servers[1]).await];
        tasks.push(tokio::spawn(async move {
            let token = g.seats[&0].clone();
            let (mut acks, mut unavailable) = (0u64, 0u64);
            // Bounded: 10,000 steps or the time limit.
            for step in 0..10_000usize {
                if Instant::now() >= stop_at {
                    break;
                }
                let c = &mut clients[step % 2];
                let v = match try_view(c, &g, &token).await {
                    Ok(v) => v,
                    Err(e) if e.code() == Code::Unavailable => {
                        unavailable += 1;
                        continue;
                    }
                    Err(e) => panic!("match {i}: GetView: {e:?}"),
                };
                if v.status != pb::MatchStatus::Active as i32 {
                    break;
                }
                let pick = v.legal_actions[step % v.legal_actions.len()].id();
                match act(c, &g, 0, pick, v.move_number).await {
                    Ok(after) => {
                        let mut a = acked.lock().unwrap();
                        assert!(after.move_number > a[i].move_number, "match {i}");
                        a[i] = Acked {
                            move_number: after.move_number,
                            unknown: false,
                        };
                        acks += 1;
                    }
                    Err(e) if e.code() == Code::Unavailable => {
                        unavailable += 1;
                        acked.lock().unwrap()[i].unknown = true;
                    }
                    // A change with an unknown outcome landed after all: the move number
                    // read was stale. Read again.
                    Err(e) if e.code() == Code::Aborted && acked.lock().unwrap()[i].unknown => {}
                    Err(e) => panic!("match {i}: Act: {e:?}"),
                }
            }
            (acks, unavailable)
        }));
    }
    let pg = db.client().await;
    let mut terminated = 0;
    for _ in 0..5 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        terminated += pg
            .query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE datname = current_database() AND pid <> pg_backend_pid()",
                &[],
            )
            .await
            .unwrap()
            .len();
    }
    let (mut total, mut unavailable) = (0, 0);
    for t in tasks {
        let (a, u) = t.await.unwrap();
        total += a;
        unavailable += u;
    }
    let acked = acked.lock().unwrap().clone();
    let mut clients = [client(&servers[0]).await, client(&servers[1]).await];
    let mut lost = 0;
    for (i, g) in games.iter().enumerate() {
        let mut views = Vec::new();
        for c in clients.iter_mut() {
            // Bounded: a read may meet a connection that is still being replaced.
            let mut tries = 0;
            views.push(loop {
                tries += 1;
                match try_view(c, g, &g.seats[&0]).await {
                    Ok(v) => break v,
                    Err(e) if e.code() == Code::Unavailable && tries < 5 => {}
                    Err(e) => panic!("match {i}: GetView after the load: {e:?}"),
                }
            });
        }
        assert_eq!(views[0], views[1], "match {i}: the replicas disagree");
        let (v, a) = (&views[0], acked[i]);
        if v.move_number < a.move_number {
            lost += 1;
        } else if !a.unknown && v.status == pb::MatchStatus::Active as i32 {
            assert_eq!(
                v.move_number, a.move_number,
                "match {i}: a move nobody was told of"
            );
        }
        // Both replicas take changes.
        let mut v = v.clone();
        for c in clients.iter_mut() {
            if v.status != pb::MatchStatus::Active as i32 {
                break;
            }
            v = act(c, g, 0, v.legal_actions[0].id(), v.move_number)
                .await
                .unwrap_or_else(|e| panic!("match {i}: an Act after the load: {e:?}"));
        }
    }
    eprintln!(
        "dropped connections under load: {terminated} terminated, {total} moves acknowledged, \
         {unavailable} UNAVAILABLE, lost: {lost}"
    );
    assert!(total > 0);
    assert_eq!(lost, 0);
}

// ---------------------------------------------------------------------------------------------
// i. A replica paused past the stalled-bots delay, then resumed (split brain)
// ---------------------------------------------------------------------------------------------

fn signal(s: &Server, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([sig, &s.child.id().to_string()])
        .status()
        .expect("kill");
    assert!(ok.success(), "kill {sig}");
}

/// Waits until every thread of `s` is stopped (a group stop completes asynchronously: a
/// thread running on another core stops at its next entry into the kernel).
fn wait_stopped(s: &Server) {
    let tasks = format!("/proc/{}/task", s.child.id());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let all_stopped = std::fs::read_dir(&tasks)
            .expect("the server's threads")
            .filter_map(Result::ok)
            .all(|t| {
                std::fs::read_to_string(t.path().join("stat")).is_ok_and(|stat| {
                    // The state follows the command name, which is in parentheses.
                    stat.rsplit_once(") ")
                        .is_some_and(|(_, rest)| rest.starts_with('T') || rest.starts_with('t'))
                })
            });
        if all_stopped {
            return;
        }
        assert!(Instant::now() < deadline, "the server did not stop");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A replica is paused (SIGSTOP) with an Act sent to it and bots it was playing; the other
/// replica plays the same turn and, after the stalled-bots delay, the bots. When the paused
/// replica resumes, its out-of-date work is refused by the store (its Act is ABORTED, its
/// bot moves are dropped), and every match is exactly the engine's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_replica_that_resumes_cannot_apply_out_of_date_work() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2, &[]);
    let (paused, other) = (&servers[0], &servers[1]);
    let (mut p, mut o) = (client(paused).await, client(other).await);
    let options = [("target_score", "1000")];
    let humans = create(&mut p, "jass", &options, 61, &[HUMAN; 4]).await;
    let mut humans_sim = Sim::new("jass", &options, 61, &[HUMAN; 4]);
    let bot_seats = [
        pb::SeatKind::IsmctsBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::HeuristicBot,
        pb::SeatKind::RandomBot,
    ];
    let bots_sim = Sim::new("jass", &options, 62, &bot_seats);
    let seat = humans_sim.to_move().unwrap();
    let v = view(&mut p, &humans, &humans.seats[&seat]).await;
    let (x, y) = (
        v.legal_actions[0].id(),
        v.legal_actions[v.legal_actions.len() - 1].id(),
    );
    let bots = create(&mut p, "jass", &options, 62, &bot_seats).await;
    signal(paused, "-STOP");
    wait_stopped(paused);
    let paused_at = Instant::now();
    // An Act sent to the paused replica waits in its socket.
    let late = {
        let humans = humans.clone();
        let mut p = p.clone();
        let expected = v.move_number;
        tokio::spawn(async move { act(&mut p, &humans, seat, x, expected).await })
    };
    // The other replica plays the same turn (another action, if there is one).
    let after = act(&mut o, &humans, seat, y, v.move_number).await.unwrap();
    humans_sim.act(y);
    assert_eq!(after.move_number, humans_sim.known[seat]);
    // And, once the paused replica's bots are stalled, plays them to the end.
    let rec = record_when_over(&mut o, &bots).await;
    assert_record(
        &rec,
        &bots_sim,
        "bots played on while their replica was paused",
    );
    eprintln!("bots finished {:?} after the pause", paused_at.elapsed());
    signal(paused, "-CONT");
    let late = late.await.unwrap();
    let err = late.expect_err("an out-of-date Act was acknowledged");
    assert_eq!(err.code(), Code::Aborted, "{err:?}");
    // Both replicas agree with the engine on both matches.
    for c in [&mut p, &mut o] {
        for (s, token) in &humans.seats {
            assert_seat_view(&view(c, &humans, token).await, &humans_sim, *s, "after");
        }
        let r = record_when_over(c, &bots).await;
        assert_record(&r, &bots_sim, "after the resumption");
    }
    // The resumed replica plays on correctly.
    let mut clients = [p, o];
    play(
        &mut clients,
        &humans,
        &mut humans_sim,
        &mut SeededRng::new(9),
        6,
        Instant::now() + Duration::from_secs(30),
    )
    .await;
}
