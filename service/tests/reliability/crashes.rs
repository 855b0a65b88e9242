//! SIGKILL under concurrent load loses no acknowledged move, and a cancelled `Act` never
//! splits memory and disk.

use super::*;

// ---------------------------------------------------------------------------------------------
// Crashes and cancellation
// ---------------------------------------------------------------------------------------------

/// Clients play concurrently; the server is killed with SIGKILL at several moments. After
/// each restart every match is exactly where its last acknowledgement put it, or (if an Act
/// was in flight at the kill) possibly past it by that one move; never behind it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_under_concurrent_load_loses_no_acknowledged_move() {
    let dir = tempfile::tempdir().unwrap();
    let clients = 8;
    let mut games = Vec::new();
    // Per game: the move number of the last acknowledged request, and whether an Act was
    // in flight when the server died.
    let mut acked: Vec<(u64, bool)> = Vec::new();
    {
        let server = must_start(dir.path(), &[]);
        let mut c = server.matches().await;
        for i in 0..clients {
            let g = create(&mut c, 100 + i).await;
            acked.push((view(&mut c, &g).await.move_number, false));
            games.push(g);
        }
        server.kill9();
    }
    let games = std::sync::Arc::new(games);
    let (mut total_acked, mut lost) = (0u64, 0u64);
    for (round, kill_after_ms) in [300u64, 80, 600, 150, 0].into_iter().enumerate() {
        let server = must_start(dir.path(), &[]);
        let mut c = server.matches().await;
        for (i, g) in games.iter().enumerate() {
            let v = view(&mut c, g).await;
            let (ack, in_flight) = acked[i];
            if v.move_number < ack {
                lost += 1;
            } else if !in_flight {
                assert_eq!(
                    v.move_number, ack,
                    "round {round}, game {i}: a move nobody was told of"
                );
            }
            acked[i] = (v.move_number, false);
        }
        if kill_after_ms == 0 {
            break;
        }
        let stop_at = Instant::now() + Duration::from_secs(5);
        let mut tasks = Vec::new();
        for i in 0..games.len() {
            let games = std::sync::Arc::clone(&games);
            let mut c = server.matches().await;
            tasks.push(tokio::spawn(async move {
                let g = &games[i];
                let mut last = None;
                let mut n = 0u64;
                // Bounded: 10,000 moves or 5 s, whichever comes first (the kill comes first).
                for step in 0..10_000usize {
                    if Instant::now() >= stop_at {
                        return (last, false, n);
                    }
                    let Ok(r) = c
                        .get_view(authed(
                            &g.token,
                            pb::GetViewRequest {
                                match_id: g.id.clone(),
                            },
                        ))
                        .await
                    else {
                        return (last, false, n);
                    };
                    let v = r.into_inner().view.unwrap();
                    if !active(&v) {
                        return (last, false, n);
                    }
                    match c.act(authed(&g.token, act_request(g, &v, step))).await {
                        Ok(r) => {
                            last = Some(r.into_inner().view.unwrap().move_number);
                            n += 1;
                        }
                        Err(_) => return (last, true, n),
                    }
                }
                (last, false, n)
            }));
        }
        tokio::time::sleep(Duration::from_millis(kill_after_ms)).await;
        server.kill9();
        for (i, t) in tasks.into_iter().enumerate() {
            let (last, in_flight, n) = t.await.unwrap();
            total_acked += n;
            if let Some(last) = last {
                acked[i].0 = last;
            }
            acked[i].1 = in_flight;
        }
    }
    eprintln!("acknowledged moves: {total_acked}, lost: {lost}");
    assert!(total_acked > 0, "the load made no moves");
    assert_eq!(lost, 0);
}

/// Acts whose client gives up mid-request (a deadline of a millisecond or less) are applied
/// whole or not at all: the server's answers before and after a restart always agree.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_act_never_splits_memory_and_disk() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    let g = create(&mut c, 7).await;
    let mut cancelled = 0;
    // Bounded: 400 attempts.
    for step in 0..400usize {
        let v = view(&mut c, &g).await;
        if !active(&v) {
            break;
        }
        let mut req = authed(&g.token, act_request(&g, &v, step));
        req.set_timeout(Duration::from_micros(
            [1, 20, 50, 100, 200, 400, 1000][step % 7],
        ));
        if c.act(req).await.is_err() {
            cancelled += 1;
        }
        // Whatever happened, the same turn can never be acknowledged for two moves: a retry
        // with the old move number is stale if the cancelled move landed.
        let after = view(&mut c, &g).await;
        if after.move_number != v.move_number && active(&after) {
            let retry = c.act(authed(&g.token, act_request(&g, &v, step + 1))).await;
            assert_eq!(retry.unwrap_err().code(), Code::Aborted);
        }
    }
    let before = view(&mut c, &g).await;
    let (status, _) = server.term();
    assert!(status.success());
    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    let after = view(&mut c, &g).await;
    assert!(same_view(&before, &after), "the restart changed the match");
    eprintln!("cancelled or timed out: {cancelled} of 400");
    // Resign and abort under cancellation: the outcome is the same before and after a kill.
    let mut req = authed(
        &g.owner,
        pb::AbortMatchRequest {
            match_id: g.id.clone(),
        },
    );
    req.set_timeout(Duration::from_micros(1));
    let _ = c.abort_match(req).await;
    let before = view(&mut c, &g).await;
    server.kill9();
    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    assert!(same_view(&before, &view(&mut c, &g).await));
}
