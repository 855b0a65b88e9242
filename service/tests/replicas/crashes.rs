//! A replica killed with SIGKILL under load loses no acknowledged move; every replica
//! restarted, matches continue exactly, and a dead replica's bots are played on by another
//! (tests c and e).

use super::*;

// ---------------------------------------------------------------------------------------------
// c. SIGKILL of one replica under concurrent load
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_of_one_replica_under_load_loses_no_acknowledged_move() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let mut servers = replicas(&db, 2, &[]);
    let survivor = servers.pop().unwrap();
    let victim = servers.pop().unwrap();
    let seats = [
        HUMAN,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
    ];
    let clients_n = 6;
    let mut games = Vec::new();
    for i in 0..clients_n {
        let mut c = if i % 2 == 0 {
            client(&victim).await
        } else {
            client(&survivor).await
        };
        games.push(create(&mut c, "jass", &[("wys", "auto")], 500 + i, &seats).await);
    }
    let acked = Arc::new(Mutex::new(vec![Acked::default(); games.len()]));
    let start = Instant::now();
    let stop_at = start + Duration::from_secs(3);
    let killed_at = Arc::new(Mutex::new(None::<Instant>));
    let mut tasks = Vec::new();
    for (i, g) in games.iter().cloned().enumerate() {
        let acked = Arc::clone(&acked);
        let killed_at = Arc::clone(&killed_at);
        let mut on_victim = client(&victim).await;
        let mut on_survivor = client(&survivor).await;
        tasks.push(tokio::spawn(async move {
            let token = g.seats[&0].clone();
            let (mut acks, mut after_kill) = (0u64, 0u64);
            let mut victim_dead = false;
            let mut in_doubt_landed = false;
            // Bounded: 10,000 steps or the time limit.
            for step in 0..10_000usize {
                if Instant::now() >= stop_at {
                    break;
                }
                let through_victim = !victim_dead && step % 2 == 0;
                let c = if through_victim {
                    &mut on_victim
                } else {
                    &mut on_survivor
                };
                let v = match try_view(c, &g, &token).await {
                    Ok(v) => v,
                    Err(_) if through_victim => {
                        victim_dead = true;
                        continue;
                    }
                    Err(e) => panic!("match {i}: the survivor failed a GetView: {e:?}"),
                };
                if v.status != pb::MatchStatus::Active as i32 {
                    break;
                }
                let pick = v.legal_actions[step % v.legal_actions.len()].id();
                let r = c
                    .act(authed(
                        &token,
                        pb::ActRequest {
                            match_id: g.id.clone(),
                            action: Some(pb::act_request::Action::ActionId(pick)),
                            expected_move_number: Some(v.move_number),
                            include_view: false,
                        },
                    ))
                    .await;
                match r {
                    Ok(r) => {
                        let mn = r.into_inner().view.unwrap().move_number;
                        let mut a = acked.lock().unwrap();
                        assert!(mn > a[i].move_number || a[i].unknown, "match {i}");
                        a[i] = Acked {
                            move_number: mn,
                            unknown: false,
                        };
                        acks += 1;
                        if killed_at.lock().unwrap().is_some() && !through_victim {
                            after_kill += 1;
                        }
                    }
                    Err(_) if through_victim => {
                        // Its outcome is unknown; the survivor tells.
                        victim_dead = true;
                        acked.lock().unwrap()[i].unknown = true;
                    }
                    // The victim's last Act (its outcome unknown to this client) may have
                    // been committed by PostgreSQL after the survivor was read: the move
                    // number read is then stale, and nothing is applied. Read again.
                    Err(e)
                        if e.code() == Code::Aborted
                            && acked.lock().unwrap()[i].unknown
                            && !in_doubt_landed =>
                    {
                        in_doubt_landed = true;
                        eprintln!("match {i}: the in-doubt move landed after a read: {e:?}");
                    }
                    Err(e) => panic!("match {i}: the survivor failed an Act: {e:?}"),
                }
            }
            (acks, after_kill)
        }));
    }
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let pid = victim.child.id();
    victim.kill9();
    *killed_at.lock().unwrap() = Some(Instant::now());
    eprintln!("killed replica (pid {pid}) after {:?}", start.elapsed());
    let (mut total, mut after_kill) = (0, 0);
    for t in tasks {
        let (n, k) = t.await.unwrap();
        total += n;
        after_kill += k;
    }
    let acked = acked.lock().unwrap().clone();

    // Every acknowledged move is there: on the survivor, on a restarted victim, and on two
    // fresh replicas after the survivor was killed too.
    let mut lost = 0;
    let mut check = |c_views: &[pb::MatchView], when: &str| {
        for (i, v) in c_views.iter().enumerate() {
            let a = acked[i];
            if v.move_number < a.move_number {
                lost += 1;
                eprintln!(
                    "{when}: match {i} lost moves: at {}, acknowledged {}",
                    v.move_number, a.move_number
                );
            } else if !a.unknown && v.status == pb::MatchStatus::Active as i32 {
                assert_eq!(
                    v.move_number, a.move_number,
                    "{when}, match {i}: a move nobody was told of"
                );
            }
        }
    };
    let mut c = client(&survivor).await;
    let mut on_survivor = Vec::new();
    for g in &games {
        on_survivor.push(view(&mut c, g, &g.seats[&0]).await);
    }
    check(&on_survivor, "on the survivor");
    let restarted = replicas(&db, 1, &[]).pop().unwrap();
    let mut c = client(&restarted).await;
    for (g, before) in games.iter().zip(&on_survivor) {
        assert_eq!(&view(&mut c, g, &g.seats[&0]).await, before, "restarted");
    }
    survivor.kill9();
    restarted.kill9();
    let fresh = replicas(&db, 2, &[]);
    for s in &fresh {
        let mut c = client(s).await;
        for (g, before) in games.iter().zip(&on_survivor) {
            assert_eq!(
                &view(&mut c, g, &g.seats[&0]).await,
                before,
                "all restarted"
            );
        }
    }
    eprintln!(
        "acknowledged moves: {total} ({after_kill} through the survivor after the kill), lost: {lost}"
    );
    assert!(total > 0, "the load made no moves");
    assert!(after_kill > 0, "the survivor did not carry on");
    assert_eq!(lost, 0);
}

// ---------------------------------------------------------------------------------------------
// e. Every replica restarted; bots of a dead replica played on by another
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn matches_continue_exactly_after_every_replica_restarted() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let servers = replicas(&db, 2, &[]);
    let mut clients = vec![client(&servers[0]).await, client(&servers[1]).await];
    let options = [("target_score", "300")];
    // All human.
    let humans = create(&mut clients[0], "jass", &options, 8, &[HUMAN; 4]).await;
    let mut humans_sim = Sim::new("jass", &options, 8, &[HUMAN; 4]);
    let mut humans_rng = SeededRng::new(12);
    // One human seat and random and heuristic bots.
    let mixed_seats = [
        HUMAN,
        pb::SeatKind::RandomBot,
        pb::SeatKind::HeuristicBot,
        pb::SeatKind::RandomBot,
    ];
    let mixed = create(&mut clients[1], "jass", &options, 9, &mixed_seats).await;
    let mut mixed_sim = Sim::new("jass", &options, 9, &mixed_seats);
    let mut mixed_rng = SeededRng::new(13);
    assert_eq!(
        play(
            &mut clients,
            &humans,
            &mut humans_sim,
            &mut humans_rng,
            25,
            deadline
        )
        .await,
        25
    );
    assert_eq!(
        play(
            &mut clients,
            &mixed,
            &mut mixed_sim,
            &mut mixed_rng,
            8,
            deadline
        )
        .await,
        8
    );
    // All bots (heuristic and random), playing in the background when the replicas stop.
    let bot_seats = [
        pb::SeatKind::HeuristicBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::HeuristicBot,
        pb::SeatKind::RandomBot,
    ];
    let bot_options = [("target_score", "1500")];
    let bots = create(&mut clients[0], "jass", &bot_options, 10, &bot_seats).await;
    let bots_sim = Sim::new("jass", &bot_options, 10, &bot_seats);
    assert!(bots_sim.state.is_terminal());

    // Every view of the two human matches, as acknowledged.
    let mut before = Vec::new();
    for m in [&humans, &mixed] {
        for token in m.tokens() {
            let va = view(&mut clients[0], m, &token).await;
            let vb = view(&mut clients[1], m, &token).await;
            assert_eq!(va, vb, "the replicas disagree before the restart");
            before.push(va);
        }
    }
    drop(clients);
    // Stop both: one cleanly, one with SIGKILL.
    let mut servers = servers;
    let b = servers.pop().unwrap();
    let a = servers.pop().unwrap();
    let (status, _) = a.term();
    assert!(status.success(), "SIGTERM: {status:?}");
    b.kill9();

    let servers = replicas(&db, 2, &[]);
    let mut clients = vec![client(&servers[0]).await, client(&servers[1]).await];
    let mut i = 0;
    for m in [&humans, &mixed] {
        for token in m.tokens() {
            for c in clients.iter_mut() {
                assert_eq!(view(c, m, &token).await, before[i], "after the restart");
            }
            i += 1;
        }
    }
    // They continue exactly where they were: to the end the engine computes.
    play(
        &mut clients,
        &humans,
        &mut humans_sim,
        &mut humans_rng,
        2_000,
        deadline,
    )
    .await;
    play(
        &mut clients,
        &mixed,
        &mut mixed_sim,
        &mut mixed_rng,
        2_000,
        deadline,
    )
    .await;
    for (m, sim, what) in [
        (&humans, &humans_sim, "all human"),
        (&mixed, &mixed_sim, "with bots"),
        (&bots, &bots_sim, "all bots"),
    ] {
        let ra = record_when_over(&mut clients[0], m).await;
        let rb = record_when_over(&mut clients[1], m).await;
        assert_eq!(ra.status, pb::MatchStatus::Finished as i32, "{what}");
        assert_record(&ra, sim, what);
        assert_eq!(ra, rb, "{what}: the replicas' records differ");
    }
}

/// An all-bot match played in the background by a replica killed with SIGKILL is played on
/// by the survivor (after its stalled-bots delay) to the end the engine computes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_whose_replica_died_are_played_on_by_another() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let mut servers = replicas(&db, 2, &[]);
    let survivor = servers.pop().unwrap();
    let victim = servers.pop().unwrap();
    // IS-MCTS seats play only in the background; all are seeded from the match.
    let seats = [
        pb::SeatKind::IsmctsBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::HeuristicBot,
        pb::SeatKind::RandomBot,
    ];
    let options = [("target_score", "1000")];
    let t = Instant::now();
    let sim = Sim::new("jass", &options, 77, &seats);
    eprintln!("the engine played the bots' match in {:?}", t.elapsed());
    assert!(sim.state.is_terminal());
    let m = create(&mut client(&victim).await, "jass", &options, 77, &seats).await;
    victim.kill9();
    let killed = Instant::now();
    let mut c = client(&survivor).await;
    let at_kill = view(&mut c, &m, &m.spectator).await;
    assert_eq!(
        at_kill.status,
        pb::MatchStatus::Active as i32,
        "the match ended before the kill: lengthen it"
    );
    let rec = record_when_over(&mut c, &m).await;
    eprintln!(
        "bots played on after the kill: from {} to {} steps, ended {:?} after the kill",
        at_kill.move_number,
        rec.total_steps,
        killed.elapsed()
    );
    assert_eq!(rec.status, pb::MatchStatus::Finished as i32);
    assert_record(&rec, &sim, "bots played on by the survivor");
}
