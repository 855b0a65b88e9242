//! The server's promises under crashes, cancellation, corruption and abuse, proved against
//! the real `cardhouse` binary on `127.0.0.1:0`.
//!
//! Every load loop here is bounded in count and in time, and talks only to the server the
//! test started on the loopback interface.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cardhouse_server::pb;
use cardhouse_server::pb::engine_client::EngineClient;
use cardhouse_server::pb::matches_client::MatchesClient;
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

use common::process::{Failed, Server};

/// `cardhouse serve --data-dir <data> <extra>` on `127.0.0.1:0`.
fn start(data: &Path, extra: &[&str]) -> Result<Server, Failed> {
    let data = data.to_str().expect("a UTF-8 temporary path");
    let mut args = vec!["--data-dir", data];
    args.extend_from_slice(extra);
    Server::start(&args)
}

fn must_start(data: &Path, extra: &[&str]) -> Server {
    start(data, extra).unwrap_or_else(|f| panic!("server did not start: {f:?}"))
}

fn authed<T>(token: &str, msg: T) -> tonic::Request<T> {
    let mut req = tonic::Request::new(msg);
    req.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    req
}

/// A match with seat 0 human and three random bots: every Act of seat 0 lets the bots play
/// until seat 0 is to move again.
struct Game {
    id: String,
    token: String,
    owner: String,
}

async fn create(client: &mut MatchesClient<Channel>, seed: u64) -> Game {
    let r = client
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: [("wys".to_owned(), "auto".to_owned())].into(),
            seed: Some(seed),
            seats: vec![
                pb::SeatKind::Human as i32,
                pb::SeatKind::RandomBot as i32,
                pb::SeatKind::RandomBot as i32,
                pb::SeatKind::RandomBot as i32,
            ],
            ismcts_iterations: None,
        })
        .await
        .expect("create")
        .into_inner();
    Game {
        id: r.match_id,
        token: r.seat_tokens[0].token.clone(),
        owner: r.owner_token,
    }
}

async fn view(client: &mut MatchesClient<Channel>, g: &Game) -> pb::MatchView {
    client
        .get_view(authed(
            &g.token,
            pb::GetViewRequest {
                match_id: g.id.clone(),
            },
        ))
        .await
        .expect("view")
        .into_inner()
        .view
        .expect("view")
}

fn act_request(g: &Game, v: &pb::MatchView, pick: usize) -> pb::ActRequest {
    let legal = &v.legal_actions;
    pb::ActRequest {
        match_id: g.id.clone(),
        action: Some(pb::act_request::Action::ActionId(
            legal[pick % legal.len()].id(),
        )),
        expected_move_number: Some(v.move_number),
        include_view: false,
    }
}

fn active(v: &pb::MatchView) -> bool {
    v.status == pb::MatchStatus::Active as i32
}

/// Views compared as a client sees them (the structured view included).
fn same_view(a: &pb::MatchView, b: &pb::MatchView) -> bool {
    a == b
}

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

// ---------------------------------------------------------------------------------------------
// Corruption
// ---------------------------------------------------------------------------------------------

/// A data directory with two matches and some moves; the server stopped by SIGKILL, so the
/// moves are still in the log (not folded).
async fn played_dir(dir: &Path) -> Vec<(String, String)> {
    let server = must_start(dir, &[]);
    let mut c = server.matches().await;
    let mut out = Vec::new();
    for seed in [1, 2] {
        let g = create(&mut c, seed).await;
        for step in 0..6 {
            let v = view(&mut c, &g).await;
            c.act(authed(&g.token, act_request(&g, &v, step)))
                .await
                .unwrap();
        }
        out.push((g.id.clone(), g.token.clone()));
    }
    server.kill9();
    out
}

fn log_path(dir: &Path) -> PathBuf {
    dir.join("moves.log")
}

fn db_path(dir: &Path) -> PathBuf {
    dir.join("matches.redb")
}

fn refused(dir: &Path, extra: &[&str]) -> Failed {
    match start(dir, extra) {
        Ok(s) => panic!("the server started on a corrupt store: {}", s.stderr()),
        Err(f) => f,
    }
}

fn assert_refused(f: &Failed, file: &str, what: &str) {
    assert!(!f.status.success(), "{f:?}");
    assert!(f.stdout.is_empty(), "announced an address: {f:?}");
    assert!(
        f.stderr.contains(file) && f.stderr.contains(what),
        "the error should name {file} and say {what:?}: {}",
        f.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flipped_bit_in_the_middle_of_the_log_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    played_dir(dir.path()).await;
    let mut bytes = std::fs::read(log_path(dir.path())).unwrap();
    let len = bytes.len();
    // Well inside: past the magic and the first records, far from the end.
    bytes[len / 3] ^= 0x04;
    std::fs::write(log_path(dir.path()), &bytes).unwrap();
    let addr_file = dir.path().join("addr");
    let f = refused(dir.path(), &["--addr-file", addr_file.to_str().unwrap()]);
    assert_refused(&f, "moves.log", "corrupt at offset");
    assert!(
        !addr_file.exists(),
        "--addr-file written by a server that cannot start"
    );
    // Nothing was changed by the refusal.
    assert_eq!(std::fs::read(log_path(dir.path())).unwrap(), bytes);
    // The documented recovery flag keeps what is consistent and says what it dropped.
    let server = must_start(dir.path(), &["--salvage"]);
    assert!(server.stderr().contains("salvage"), "{}", server.stderr());
    server.kill9();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_length_in_the_middle_of_the_log_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    played_dir(dir.path()).await;
    let mut bytes = std::fs::read(log_path(dir.path())).unwrap();
    // The first record after the magic: make its length huge.
    bytes[8 + 2] = 0x7f;
    std::fs::write(log_path(dir.path()), &bytes).unwrap();
    let f = refused(dir.path(), &[]);
    assert_refused(&f, "moves.log", "corrupt at offset");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_torn_tail_is_dropped_with_a_warning_and_every_acknowledged_move_kept() {
    let dir = tempfile::tempdir().unwrap();
    let games = played_dir(dir.path()).await;
    // What the matches look like with the whole log.
    let views = {
        let server = must_start(dir.path(), &[]);
        let mut c = server.matches().await;
        let mut v = Vec::new();
        for (id, token) in &games {
            v.push(
                view(
                    &mut c,
                    &Game {
                        id: id.clone(),
                        token: token.clone(),
                        owner: String::new(),
                    },
                )
                .await,
            );
        }
        server.kill9();
        v
    };
    // A new log was started by that open; append a record cut short, as a crash would.
    let mut bytes = std::fs::read(log_path(dir.path())).unwrap();
    bytes.extend_from_slice(&[9, 0, 0, 0, 1, 2]);
    std::fs::write(log_path(dir.path()), &bytes).unwrap();
    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    for ((id, token), before) in games.iter().zip(&views) {
        let g = Game {
            id: id.clone(),
            token: token.clone(),
            owner: String::new(),
        };
        assert!(same_view(before, &view(&mut c, &g).await));
    }
    let log = server.stderr();
    assert!(
        log.contains("torn tail") && log.contains("moves.log"),
        "{log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zero_length_database_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    played_dir(dir.path()).await;
    std::fs::write(db_path(dir.path()), b"").unwrap();
    let f = refused(dir.path(), &[]);
    assert_refused(&f, "matches.redb", "empty");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_database_beside_a_log_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    played_dir(dir.path()).await;
    std::fs::remove_file(db_path(dir.path())).unwrap();
    let f = refused(dir.path(), &[]);
    assert_refused(&f, "matches.redb", "missing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_log_beside_a_database_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    played_dir(dir.path()).await;
    std::fs::remove_file(log_path(dir.path())).unwrap();
    let f = refused(dir.path(), &[]);
    assert_refused(&f, "moves.log", "missing");
}

/// The database falls back to an earlier commit (here: an older copy of the file is put
/// back), while the log holds what came after: refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_behind_the_log_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    played_dir(dir.path()).await;
    // Open once (folds), keep a copy of the database, then create and play more.
    let server = must_start(dir.path(), &[]);
    server.kill9();
    let old = std::fs::read(db_path(dir.path())).unwrap();
    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    let g = create(&mut c, 9).await;
    let v = view(&mut c, &g).await;
    c.act(authed(&g.token, act_request(&g, &v, 0)))
        .await
        .unwrap();
    server.kill9();
    std::fs::write(db_path(dir.path()), &old).unwrap();
    let f = refused(dir.path(), &[]);
    assert_refused(&f, "", "behind the");
}

// ---------------------------------------------------------------------------------------------
// Admission, limits, retention
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_match_limit_is_exact_under_concurrent_creation() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &["--max-matches", "10"]);
    let mut tasks = Vec::new();
    for i in 0..40 {
        let mut c = server.matches().await;
        tasks.push(tokio::spawn(async move {
            c.create_match(pb::CreateMatchRequest {
                game: "jass".into(),
                seed: Some(i),
                ..Default::default()
            })
            .await
            .map_err(|s| s.code())
        }));
    }
    let mut created = 0;
    for t in tasks {
        match t.await.unwrap() {
            Ok(_) => created += 1,
            Err(code) => assert_eq!(code, Code::ResourceExhausted),
        }
    }
    assert_eq!(created, 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn creating_matches_can_require_a_credential() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &["--create-token", "s3cret"]);
    let mut c = server.matches().await;
    let req = || pb::CreateMatchRequest {
        game: "jass".into(),
        ..Default::default()
    };
    let err = c.create_match(req()).await.unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    let err = c.create_match(authed("wrong", req())).await.unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    c.create_match(authed("s3cret", req())).await.unwrap();
}

/// Ended matches leave after the retention period (memory and store), freeing their slot;
/// their record is fetchable until then.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ended_matches_leave_after_their_retention_period() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &["--max-matches", "1", "--retention-secs", "1"]);
    let mut c = server.matches().await;
    let all_bots = || pb::CreateMatchRequest {
        game: "jass".into(),
        options: [("scope".to_owned(), "deal".to_owned())].into(),
        seed: Some(3),
        seats: vec![pb::SeatKind::RandomBot as i32; 4],
        ismcts_iterations: None,
    };
    let r = c.create_match(all_bots()).await.unwrap().into_inner();
    let record = |id: String| pb::GetRecordRequest {
        match_id: id,
        ..Default::default()
    };
    // Bots finish it in the background; then its record is there.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match c
            .get_record(authed(&r.owner_token, record(r.match_id.clone())))
            .await
        {
            Ok(_) => break,
            Err(s) if s.code() == Code::FailedPrecondition && Instant::now() < deadline => {
                tokio::task::yield_now().await;
            }
            Err(s) => panic!("{s:?}"),
        }
    }
    let err = c.create_match(all_bots()).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted);
    // Bounded wait for the sweep (every half second with this retention).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let err = c
            .get_record(authed(&r.owner_token, record(r.match_id.clone())))
            .await;
        if matches!(&err, Err(s) if s.code() == Code::NotFound) {
            break;
        }
        assert!(Instant::now() < deadline, "still there: {err:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    c.create_match(all_bots()).await.unwrap();
    // Gone from the store too.
    server.kill9();
    let server = must_start(dir.path(), &["--max-matches", "1"]);
    let mut c = server.matches().await;
    let err = c
        .get_record(authed(&r.owner_token, record(r.match_id.clone())))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
}

/// A long all-bot match is played in the background, not inside CreateMatch; its long
/// record comes in pages that fit the message limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_all_bot_matches_run_in_the_background_and_their_record_comes_in_pages() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &["--max-message-bytes", "65536"]);
    let mut c = server.matches().await;
    let t = Instant::now();
    let r = c
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: [("target_score".to_owned(), "20000".to_owned())].into(),
            seed: Some(11),
            seats: vec![pb::SeatKind::RandomBot as i32; 4],
            ismcts_iterations: None,
        })
        .await
        .unwrap()
        .into_inner();
    eprintln!("CreateMatch of a long all-bot match took {:?}", t.elapsed());
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut steps = Vec::new();
    let mut from = 0;
    let mut total;
    loop {
        match c
            .get_record(authed(
                &r.owner_token,
                pb::GetRecordRequest {
                    match_id: r.match_id.clone(),
                    from_step: from,
                    max_steps: 0,
                },
            ))
            .await
        {
            Ok(page) => {
                let page = page.into_inner();
                assert!(prost::Message::encoded_len(&page) <= 65536);
                total = Some(page.total_steps);
                steps.extend(page.steps);
                match page.next_step {
                    Some(n) => from = n,
                    None => break,
                }
            }
            Err(s) if s.code() == Code::FailedPrecondition && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(s) => panic!("{s:?}"),
        }
    }
    let total = total.unwrap();
    assert!(total > 2000, "a long match: {total} steps");
    assert_eq!(steps.len() as u64, total);
    assert!(steps.iter().enumerate().all(|(i, s)| s.index() == i as u64));
}

// ---------------------------------------------------------------------------------------------
// Engine service bounds
// ---------------------------------------------------------------------------------------------

fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, r)| r.split_whitespace().collect())
        .unwrap_or_default();
    let f = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
    f(11) + f(12)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_step_is_bounded_and_stops_when_its_client_goes() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &["--max-batch-actions", "2000000"]);
    let mut e = EngineClient::new(server.channel().await);
    let heavy = || pb::BatchStepRequest {
        start: Some(pb::batch_step_request::Start::Fresh(pb::FreshStates {
            game: "jass".into(),
            options: [("target_score".to_owned(), "1000000".to_owned())].into(),
            count: 100_000,
        })),
        policy: Some(pb::batch_step_request::Policy::Random(pb::RandomPolicy {
            seed: 1,
        })),
        max_steps: 0,
        return_states: true,
    };
    // Work bound: refused once the actions would exceed the limit.
    let err = e.batch_step(heavy()).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    assert!(err.message().contains("2000000"), "{}", err.message());
    // A client that goes away: its work stops (the server's CPU time stops growing).
    let server2 = must_start(
        &dir.path().join("second"),
        &["--max-batch-actions", "100000000000"],
    );
    let mut e2 = EngineClient::new(server2.channel().await);
    let mut req = tonic::Request::new(heavy());
    req.set_timeout(Duration::from_millis(300));
    let err = e2.batch_step(req).await.unwrap_err();
    assert!(
        matches!(err.code(), Code::DeadlineExceeded | Code::Cancelled),
        "{err:?}"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pid = server2.child.id();
    let before = cpu_ticks(pid);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let used = cpu_ticks(pid) - before;
    // 100 ticks = one core-second: a runaway batch would use about that.
    assert!(used < 30, "the batch kept running: {used} ticks in 1 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_service_can_be_switched_off_or_put_behind_a_credential() {
    let dir = tempfile::tempdir().unwrap();
    let list = || pb::ListGamesRequest {};
    let off = must_start(&dir.path().join("off"), &["--engine", "off"]);
    let mut e = EngineClient::new(off.channel().await);
    assert_eq!(
        e.list_games(list()).await.unwrap_err().code(),
        Code::Unimplemented
    );
    let locked = must_start(
        &dir.path().join("token"),
        &["--engine", "token", "--engine-token", "k3y"],
    );
    let mut e = EngineClient::new(locked.channel().await);
    assert_eq!(
        e.list_games(list()).await.unwrap_err().code(),
        Code::Unauthenticated
    );
    e.list_games(authed("k3y", list())).await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// Protocol hygiene
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_keep_their_code_whatever_the_client_sent() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    // A huge match id: NOT_FOUND with a short message, not RESOURCE_EXHAUSTED.
    let err = c
        .get_view(authed(
            "t",
            pb::GetViewRequest {
                match_id: "x".repeat(200_000),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    assert!(err.message().len() <= 512);
    // A huge option value.
    let err = c
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: [("target_score".to_owned(), "9".repeat(100_000))].into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().len() <= 512);
    // An undecodable request: INVALID_ARGUMENT.
    #[derive(Clone, PartialEq, prost::Message)]
    struct NotAGetView {
        #[prost(uint64, tag = "1")]
        match_id: u64,
    }
    let mut grpc = tonic::client::Grpc::new(server.channel().await);
    grpc.ready().await.unwrap();
    let codec = tonic_prost::ProstCodec::<NotAGetView, pb::GetViewResponse>::default();
    let path =
        tonic::codegen::http::uri::PathAndQuery::from_static("/cardhouse.v1.Matches/GetView");
    let err = grpc
        .unary(
            tonic::Request::new(NotAGetView { match_id: 7 }),
            path,
            codec,
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
}

/// Hundreds of connections that never speak HTTP/2 neither starve new clients nor stay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_cannot_starve_new_clients() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(
        dir.path(),
        &["--max-connections", "64", "--handshake-timeout-secs", "1"],
    );
    let mut idle = Vec::new();
    for _ in 0..300 {
        if let Ok(s) = tokio::net::TcpStream::connect(server.addr).await {
            idle.push(s);
        }
    }
    // A real client gets through within a few seconds (bounded retries).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let attempt = async {
            let ch = Channel::from_shared(format!("http://{}", server.addr))
                .unwrap()
                .connect_timeout(Duration::from_secs(1))
                .timeout(Duration::from_secs(2))
                .connect()
                .await
                .map_err(|e| e.to_string())?;
            MatchesClient::new(ch)
                .create_match(pb::CreateMatchRequest {
                    game: "jass".into(),
                    ..Default::default()
                })
                .await
                .map_err(|e| e.to_string())
        };
        match attempt.await {
            Ok(_) => break,
            Err(e) => {
                assert!(Instant::now() < deadline, "starved: {e}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
    drop(idle);
}

// ---------------------------------------------------------------------------------------------
// Start and stop, secrets at rest
// ---------------------------------------------------------------------------------------------

/// SIGTERM right after the listening line is a clean shutdown; open Watch streams (one
/// never read) and a health Watch do not hold it for the grace period (30 s here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_is_clean_at_once_and_streams_do_not_hold_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &[]);
    let (status, _) = server.term();
    assert!(status.success(), "SIGTERM right after start: {status:?}");

    let server = must_start(dir.path(), &[]);
    let mut c = server.matches().await;
    let g = create(&mut c, 5).await;
    let mut read = common::watch(&mut c, &g.token, &g.id).await;
    read.next().await.unwrap().unwrap();
    let _unread = common::watch(&mut c, &g.owner, &g.id).await;
    let mut health = tonic_health::pb::health_client::HealthClient::new(server.channel().await);
    let _health_stream = health
        .watch(tonic_health::pb::HealthCheckRequest {
            service: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    let (status, took) = server.term();
    assert!(status.success());
    assert!(took < Duration::from_secs(10), "shutdown took {took:?}");
    let end = read.next().await;
    assert!(
        matches!(&end, Some(Err(s)) if s.code() == Code::Unavailable) || end.is_none(),
        "{end:?}"
    );
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_files_are_owner_only_and_hold_no_token() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = must_start(&data, &[]);
    let mut c = server.matches().await;
    let g = create(&mut c, 4).await;
    let (status, _) = server.term();
    assert!(status.success());
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data), 0o700);
    for entry in std::fs::read_dir(&data).unwrap() {
        let path = entry.unwrap().path();
        assert_eq!(mode(&path), 0o600, "{}", path.display());
        let bytes = std::fs::read(&path).unwrap();
        for token in [&g.token, &g.owner] {
            assert!(
                !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
                "a token in clear in {}",
                path.display()
            );
        }
    }
}

/// A response over the message limit is RESOURCE_EXHAUSTED (tonic alone says OUT_OF_RANGE).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_response_is_resource_exhausted() {
    let dir = tempfile::tempdir().unwrap();
    let server = must_start(dir.path(), &["--max-message-bytes", "1500"]);
    let mut e = EngineClient::new(server.channel().await);
    let state = e
        .new_initial_state(pb::NewInitialStateRequest {
            game: "jass".into(),
            options: Default::default(),
        })
        .await
        .unwrap()
        .into_inner()
        .state
        .unwrap()
        .state;
    let dealt = e
        .apply_chance(pb::ApplyChanceRequest {
            state,
            source: Some(pb::apply_chance_request::Source::Seed(1)),
        })
        .await
        .unwrap()
        .into_inner()
        .state
        .unwrap()
        .state;
    // 518 floats alone are over 2 KB.
    let err = e
        .observe(pb::ObserveRequest {
            state: dealt,
            viewer: pb::ViewerKind::Seat as i32,
            seat: 0,
            include_observation: true,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
}

/// The same for the Matches service (unary replies and a Watch update), and for a request
/// over the limit, refused before it is decoded (tonic alone says OUT_OF_RANGE for all).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_matches_messages_are_resource_exhausted() {
    let dir = tempfile::tempdir().unwrap();
    let g = {
        let roomy = must_start(dir.path(), &[]);
        create(&mut roomy.matches().await, 1).await
    };
    let server = must_start(dir.path(), &["--max-message-bytes", "1500"]);
    let mut c = server.matches().await;
    let err = c
        .get_view(authed(
            "t",
            pb::GetViewRequest {
                match_id: "x".repeat(2000),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    // A seat's view of a dealt Jass hand, with its structured view, is over 1500 bytes.
    let err = c
        .get_view(authed(
            &g.token,
            pb::GetViewRequest {
                match_id: g.id.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    assert!(err.message().contains("limit of 1500 bytes"), "{err:?}");
    let mut updates = common::watch(&mut c, &g.token, &g.id).await;
    let err = updates.next().await.unwrap().unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    // Errors keep their own code.
    let err = c
        .get_view(authed(
            &g.token,
            pb::GetViewRequest {
                match_id: "nope".into(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound, "{err:?}");
}
