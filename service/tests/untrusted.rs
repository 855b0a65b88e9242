//! What the server bounds for untrusted clients, proved against the real `cardhouse` binary
//! on `127.0.0.1:0`: bot work (a shared pool, per-move and per-match caps, all-bot matches),
//! reads that never wait for a thinking bot, memory that ended matches give back, and the
//! operator's admin surface. Every loop is bounded in count and in time.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use cardhouse_server::pb;
use cardhouse_server::pb::admin_client::AdminClient;
use cardhouse_server::pb::matches_client::MatchesClient;
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

use common::process::Server;

const OPERATOR: &str = "operator-secret-for-tests";

/// The tests of this file run one at a time: two of them measure latency and memory, which
/// another server busy on the same cores would distort.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn serve(data: &Path, extra: &[&str]) -> Server {
    let data = data.to_str().expect("a UTF-8 temporary path");
    let mut args = vec!["--data-dir", data, "--operator-token", OPERATOR];
    args.extend_from_slice(extra);
    Server::must_start(&args)
}

fn authed<T>(token: &str, msg: T) -> tonic::Request<T> {
    let mut req = tonic::Request::new(msg);
    req.metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    req
}

async fn admin(server: &Server) -> AdminClient<Channel> {
    AdminClient::new(server.channel().await)
}

fn seats(kinds: &[pb::SeatKind]) -> Vec<i32> {
    kinds.iter().map(|&k| k as i32).collect()
}

fn jass(seats_: &[pb::SeatKind], target: &str, iterations: Option<u32>) -> pb::CreateMatchRequest {
    pb::CreateMatchRequest {
        game: "jass".into(),
        options: [
            ("wys".to_owned(), "auto".to_owned()),
            ("target_score".to_owned(), target.to_owned()),
        ]
        .into(),
        seed: Some(7),
        seats: seats(seats_),
        ismcts_iterations: iterations,
        bots: Default::default(),
        time_control: None,
    }
}

async fn get_view(c: &mut MatchesClient<Channel>, token: &str, id: &str) -> pb::MatchView {
    c.get_view(authed(
        token,
        pb::GetViewRequest {
            match_id: id.to_owned(),
        },
    ))
    .await
    .expect("view")
    .into_inner()
    .view
    .expect("view")
}

async fn list(a: &mut AdminClient<Channel>, ended: bool) -> pb::ListMatchesResponse {
    a.list_matches(authed(
        OPERATOR,
        pb::ListMatchesRequest {
            include_ended: ended,
            page_size: 0,
            page_token: String::new(),
        },
    ))
    .await
    .expect("list")
    .into_inner()
}

/// Waits (bounded) until `done` holds for the operator's listing.
async fn until(
    a: &mut AdminClient<Channel>,
    what: &str,
    mut done: impl FnMut(&pb::ListMatchesResponse) -> bool,
) -> pb::ListMatchesResponse {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let l = list(a, true).await;
        if done(&l) {
            return l;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}: {l:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

const HUMAN: pb::SeatKind = pb::SeatKind::Human;
const RANDOM: pb::SeatKind = pb::SeatKind::RandomBot;
const ISMCTS: pb::SeatKind = pb::SeatKind::IsmctsBot;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bot_budgets_and_all_bot_matches_are_the_servers_to_set() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let server = serve(
        dir.path(),
        &[
            "--max-ismcts-iterations",
            "500",
            "--all-bot-matches",
            "operator",
        ],
    );
    let mut c = server.matches().await;
    // More iterations than the server allows: refused, naming the limit.
    let e = c
        .create_match(jass(&[HUMAN, ISMCTS, HUMAN, ISMCTS], "1000", Some(501)))
        .await
        .expect_err("above the cap");
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("1 to 500"), "{}", e.message());
    c.create_match(jass(&[HUMAN, ISMCTS, HUMAN, ISMCTS], "1000", Some(500)))
        .await
        .expect("at the cap");
    // An all-bot match needs the operator credential.
    let all_bots = jass(&[RANDOM, RANDOM, RANDOM, RANDOM], "1000", None);
    let e = c
        .create_match(all_bots.clone())
        .await
        .expect_err("anonymous all-bot match");
    assert_eq!(e.code(), Code::PermissionDenied);
    assert!(e.message().contains("operator"), "{}", e.message());
    c.create_match(authed(OPERATOR, all_bots))
        .await
        .expect("the operator may");

    let dir = tempfile::tempdir().unwrap();
    let server = serve(dir.path(), &["--all-bot-matches", "deny"]);
    let mut c = server.matches().await;
    let e = c
        .create_match(authed(OPERATOR, jass(&[RANDOM; 4], "1000", None)))
        .await
        .expect_err("denied");
    assert_eq!(e.code(), Code::PermissionDenied);
    c.create_match(jass(&[HUMAN, RANDOM, RANDOM, RANDOM], "1000", None))
        .await
        .expect("a human seat is fine");
}

/// A match that reaches `--max-match-actions` is aborted, and its watchers are told why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_is_aborted_at_the_length_limit() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let server = serve(dir.path(), &["--max-match-actions", "700"]);
    let mut c = server.matches().await;
    let r = c
        .create_match(jass(&[HUMAN, RANDOM, RANDOM, RANDOM], "100000", None))
        .await
        .expect("create")
        .into_inner();
    let token = r.seat_tokens[0].token.clone();
    // The spectator's stream, read as it comes (on a connection of its own).
    let mut events = server
        .matches()
        .await
        .watch(authed(
            &r.spectator_token,
            pb::WatchRequest {
                match_id: r.match_id.clone(),
                ..Default::default()
            },
        ))
        .await
        .expect("watch")
        .into_inner();
    let last = tokio::spawn(async move {
        let mut last = None;
        let deadline = Instant::now() + Duration::from_secs(120);
        while let Ok(Some(e)) = tokio::time::timeout_at(deadline.into(), events.next()).await {
            last = Some(e.expect("event"));
        }
        last
    });
    // Seat 0 plays its first legal action until the match ends.
    let mut acts = 0;
    loop {
        let v = get_view(&mut c, &token, &r.match_id).await;
        if v.status != pb::MatchStatus::Active as i32 {
            break;
        }
        if v.legal_actions.is_empty() {
            // The bots are playing on in the background.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        }
        assert!(acts < 700, "the match outlived its limit");
        acts += 1;
        let act = pb::ActRequest {
            match_id: r.match_id.clone(),
            action: Some(pb::act_request::Action::ActionId(v.legal_actions[0].id())),
            expected_move_number: Some(v.move_number),
            include_view: false,
        };
        c.act(authed(&token, act)).await.expect("act");
    }
    let last = last.await.expect("watcher");
    let Some(pb::watch_response::Kind::Event(event)) = last.and_then(|l| l.kind) else {
        panic!("no final event");
    };
    assert!(
        event.text.contains("limit of 700 actions"),
        "{}",
        event.text
    );
    let view = get_view(&mut c, &r.spectator_token, &r.match_id).await;
    assert_eq!(view.status, pb::MatchStatus::Aborted as i32);
    let mut a = admin(&server).await;
    let l = list(&mut a, true).await;
    let m = l.matches.iter().find(|m| m.match_id == r.match_id).unwrap();
    assert_eq!(m.status, pb::MatchStatus::Aborted as i32);
    assert_eq!(m.actions, 700);
}

/// While a bot thinks about a move for a long time, reads answer at once, an abort stops
/// the thinking, and the bot's move is never committed after the abort.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_never_wait_for_a_thinking_bot_and_an_abort_stops_it() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let server = serve(
        dir.path(),
        &["--bot-move-ms", "600000", "--bot-workers", "1"],
    );
    let mut c = server.matches().await;
    let mut a = admin(&server).await;
    // Seat 3 deals first, so seat 0 (the IS-MCTS bot) chooses the mode as soon as the deal
    // is done: it thinks at once, for minutes at 100,000 iterations.
    let mut req = jass(&[ISMCTS, HUMAN, HUMAN, HUMAN], "1000", Some(100_000));
    req.options.insert("first_dealer".into(), "3".into());
    let r = c.create_match(req).await.expect("create").into_inner();
    until(&mut a, "the bot to think", |l| l.bot_workers_busy == 1).await;
    let before = get_view(&mut c, &r.owner_token, &r.match_id).await;
    let mut slowest = Duration::ZERO;
    for _ in 0..20 {
        let t = Instant::now();
        let v = get_view(&mut c, &r.seat_tokens[0].token, &r.match_id).await;
        assert_eq!(v.move_number, before.move_number, "the bot has not moved");
        let mut w = c
            .watch(authed(
                &r.spectator_token,
                pb::WatchRequest {
                    match_id: r.match_id.clone(),
                    ..Default::default()
                },
            ))
            .await
            .expect("watch")
            .into_inner();
        w.next().await.expect("snapshot").expect("snapshot");
        let e = c
            .get_record(authed(
                &r.owner_token,
                pb::GetRecordRequest {
                    match_id: r.match_id.clone(),
                    ..Default::default()
                },
            ))
            .await
            .expect_err("running");
        assert_eq!(e.code(), Code::FailedPrecondition);
        slowest = slowest.max(t.elapsed());
    }
    assert!(
        slowest < Duration::from_secs(1),
        "a read waited for the bot: {slowest:?}"
    );
    let t = Instant::now();
    let aborted = c
        .abort_match(authed(
            &r.owner_token,
            pb::AbortMatchRequest {
                match_id: r.match_id.clone(),
            },
        ))
        .await
        .expect("abort")
        .into_inner()
        .view
        .unwrap();
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    assert_eq!(aborted.status, pb::MatchStatus::Aborted as i32);
    // The thinking stops: the worker is free again and nothing was added to the match.
    until(&mut a, "the worker to be free", |l| l.bot_workers_busy == 0).await;
    let after = get_view(&mut c, &r.owner_token, &r.match_id).await;
    assert_eq!(after.move_number, before.move_number);
    // SIGTERM does not wait for a thinking bot either.
    let r2 = c
        .create_match({
            let mut req = jass(&[ISMCTS, HUMAN, HUMAN, HUMAN], "1000", Some(100_000));
            req.options.insert("first_dealer".into(), "3".into());
            req
        })
        .await
        .expect("create");
    drop(r2);
    until(&mut a, "the bot to think", |l| l.bot_workers_busy == 1).await;
    let (status, took) = server.term();
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_secs(10), "SIGTERM took {took:?}");
}

/// p99 of `n` Acts of seat 0 against three random bots, in one match after another.
async fn act_p99(c: &mut MatchesClient<Channel>, n: usize, seed: u64) -> Duration {
    let mut times = Vec::with_capacity(n);
    let mut game = None;
    while times.len() < n {
        let (id, token) = match &game {
            Some(g) => g,
            None => {
                let mut req = jass(&[HUMAN, RANDOM, RANDOM, RANDOM], "1000", None);
                req.seed = Some(seed + times.len() as u64);
                let r = c.create_match(req).await.expect("create").into_inner();
                game.insert((r.match_id, r.seat_tokens[0].token.clone()))
            }
        };
        let v = get_view(c, token, id).await;
        if v.status != pb::MatchStatus::Active as i32 {
            game = None;
            continue;
        }
        let act = pb::ActRequest {
            match_id: id.clone(),
            action: Some(pb::act_request::Action::ActionId(v.legal_actions[0].id())),
            expected_move_number: Some(v.move_number),
            include_view: false,
        };
        let t = Instant::now();
        c.act(authed(token, act)).await.expect("act");
        times.push(t.elapsed());
    }
    times.sort();
    times[(n * 99).div_ceil(100) - 1]
}

/// Sixteen all-IS-MCTS matches keep both bot workers busy; a human's Act on another match
/// is never queued behind their work: its p99 stays within twice its idle p99, or within
/// its idle p99 plus 6 ms. That allowance is the scheduler's: on a quiet two-core machine
/// (Linux 6.18) a request thread woken while both cores run bot threads (batch class,
/// nice 19) waited up to a few milliseconds for a core at the 99th percentile (loaded p99
/// 1.5-5.7 ms against 0.8 ms idle), still far below one chunk of bot work (about 50 ms) or
/// one IS-MCTS move, which a request queued behind them would wait for. The machine may be
/// busy with other work, so each attempt measures idle before and after the load and
/// compares with the worse of the two; up to three attempts.
///
/// The server keeps its matches in memory: what is measured is the bots' claim on the
/// cores and the runtime. On a data directory every commit shares the move log's
/// `fdatasync` with the bots' moves (16 busy matches commit about 150 times a second), and
/// on this kind of disk that alone raised the Act p99 from 3 to 10-30 ms: the cost of the
/// write load, whoever makes it (the service README says so), not of bot work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_humans_act_is_not_slowed_by_bot_matches() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let server = serve(dir.path(), &["--bot-workers", "2", "--in-memory"]);
    let mut c = server.matches().await;
    let mut a = admin(&server).await;
    act_p99(&mut c, 50, 1).await;
    let mut tried = Vec::new();
    for attempt in 0..3u64 {
        let idle_before = act_p99(&mut c, 200, 100 + attempt * 1000).await;
        let mut bots = Vec::new();
        for i in 0..16 {
            let mut req = jass(&[ISMCTS; 4], "100000", None);
            req.seed = Some(10_000 + attempt * 100 + i);
            bots.push(
                c.create_match(req)
                    .await
                    .expect("create")
                    .into_inner()
                    .match_id,
            );
        }
        until(&mut a, "both workers busy", |l| l.bot_workers_busy == 2).await;
        if attempt == 0 {
            assert_bot_threads_yield(server.child.id());
        }
        let loaded = act_p99(&mut c, 200, 300 + attempt * 1000).await;
        let l = list(&mut a, false).await;
        assert_eq!(
            l.bot_workers_busy, 2,
            "the bots kept the workers busy throughout"
        );
        assert!(l.bot_jobs_queued >= 10, "{l:?}");
        for id in bots {
            a.abort_match(authed(
                OPERATOR,
                pb::AdminAbortMatchRequest { match_id: id },
            ))
            .await
            .expect("abort");
        }
        until(&mut a, "the workers to be free", |l| {
            l.bot_workers_busy == 0
        })
        .await;
        let idle_after = act_p99(&mut c, 200, 600 + attempt * 1000).await;
        let idle = idle_before.max(idle_after);
        // Twice the idle p99, or the idle p99 and the scheduler's few milliseconds.
        let bound = (idle * 2).max(idle + Duration::from_millis(6));
        tried.push(format!(
            "{loaded:?} loaded, {idle_before:?}/{idle_after:?} idle"
        ));
        eprintln!("attempt {attempt}: {}", tried.last().unwrap());
        if loaded <= bound {
            return;
        }
    }
    panic!("Act p99 with 16 IS-MCTS matches above its bound: {tried:?}");
}

/// The bot workers run in the batch scheduling class (`SCHED_BATCH` = 3) at nice 19.
fn assert_bot_threads_yield(pid: u32) {
    let mut found = 0;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let task = task.unwrap().path();
        let name = std::fs::read_to_string(task.join("comm")).unwrap_or_default();
        let stat = std::fs::read_to_string(task.join("stat")).unwrap_or_default();
        // Fields 19 and 41 (the 17th and 39th after the parenthesised name): the nice
        // value and the scheduling policy.
        let fields: Vec<i64> = stat
            .rsplit_once(')')
            .map(|(_, rest)| {
                rest.split_whitespace()
                    .map(|f| f.parse().unwrap_or(-1))
                    .collect()
            })
            .unwrap_or_default();
        if name.starts_with("cardhouse-bot") {
            assert_eq!((fields[16], fields[38]), (19, 3), "{name}: nice and policy");
            found += 1;
        }
    }
    assert_eq!(found, 2);
}

/// The resident memory of `pid` in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// Runs a wave of `n` long all-bot matches to their end; returns the resident memory at its
/// peak and after the end, and the matches.
async fn wave(
    server: &Server,
    c: &mut MatchesClient<Channel>,
    a: &mut AdminClient<Channel>,
    seeds: std::ops::Range<u64>,
) -> (u64, u64, Vec<pb::CreateMatchResponse>) {
    let pid = server.child.id();
    let mut ids = Vec::new();
    for seed in seeds {
        let mut req = jass(&[RANDOM; 4], "1000000", None);
        req.seed = Some(seed);
        ids.push(c.create_match(req).await.expect("create").into_inner());
    }
    let mut peak = 0;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        peak = peak.max(rss_kib(pid));
        let l = list(a, false).await;
        if l.matches.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "matches still running: {}",
            l.matches.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (peak, rss_kib(pid), ids)
}

/// Long all-bot matches cost memory while they play; once they ended, they leave it (their
/// records stay readable from the store), so wave after wave of them does not add up: the
/// memory is bounded by the matches live at once. (The allocator, mimalloc, keeps freed memory
/// for reuse, so the resident size stays near the high-water mark of the live matches.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ended_matches_leave_memory() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let server = serve(
        dir.path(),
        &["--max-match-actions", "1000000", "--store-cache-mb", "1"],
    );
    let mut c = server.matches().await;
    let mut a = admin(&server).await;
    let baseline = rss_kib(server.child.id());
    // The first waves warm the allocator's arenas up; from then on, three more waves of
    // ended matches must add less than what one wave costs while it plays (holding ended
    // matches would add about that much per wave).
    let (peak1, _, first) = wave(&server, &mut c, &mut a, 0..4).await;
    let (_, warm, _) = wave(&server, &mut c, &mut a, 10..14).await;
    let mut after = warm;
    for start in [20, 30, 40] {
        after = wave(&server, &mut c, &mut a, start..start + 4).await.1;
    }
    let one_wave = peak1.saturating_sub(baseline);
    let grown = after.saturating_sub(warm);
    assert!(
        grown < one_wave,
        "RSS {baseline} KiB at the start, {peak1} KiB at the first wave's peak, {warm} KiB \
         after the second, {after} KiB after three more: ended matches are kept"
    );
    // No ended match is held in memory: the listing knows them from the retention index.
    let l = list(&mut a, true).await;
    assert_eq!(l.matches.len(), 20);
    assert!(l.matches.iter().all(|m| m.seats.is_empty()), "{l:?}");
    // Every record is still there, from the store.
    for r in &first {
        let rec = c
            .get_record(authed(
                &r.spectator_token,
                pb::GetRecordRequest {
                    match_id: r.match_id.clone(),
                    max_steps: 10,
                    ..Default::default()
                },
            ))
            .await
            .expect("record")
            .into_inner();
        assert!(rec.total_steps > 10_000, "{}", rec.total_steps);
    }
}

/// The operator lists matches with their bot work, aborts any match and exports any record;
/// without the credential the Admin service refuses, and without an operator token
/// configured it is not served at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_operator_lists_aborts_and_exports() {
    let _serial = SERIAL.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let server = serve(dir.path(), &[]);
    let mut c = server.matches().await;
    let mut a = admin(&server).await;
    let human = c
        .create_match(jass(&[HUMAN, RANDOM, RANDOM, RANDOM], "1000", None))
        .await
        .expect("create")
        .into_inner();
    let bots = c
        .create_match(jass(&[RANDOM; 4], "3000", None))
        .await
        .expect("create")
        .into_inner();
    let l = until(&mut a, "the bot match to spend bot work", |l| {
        l.matches
            .iter()
            .any(|m| m.match_id == bots.match_id && m.bot_actions > 0)
    })
    .await;
    assert!(l.bot_workers >= 1);
    let h = l
        .matches
        .iter()
        .find(|m| m.match_id == human.match_id)
        .unwrap();
    assert_eq!(h.game, "jass");
    assert_eq!(h.seats, seats(&[HUMAN, RANDOM, RANDOM, RANDOM]));
    assert_eq!(h.status, pb::MatchStatus::Active as i32);
    assert!(h.actions > 36);
    // Abort the human's match: its players see it aborted.
    a.abort_match(authed(
        OPERATOR,
        pb::AdminAbortMatchRequest {
            match_id: human.match_id.clone(),
        },
    ))
    .await
    .expect("abort");
    let v = get_view(&mut c, &human.seat_tokens[0].token, &human.match_id).await;
    assert_eq!(v.status, pb::MatchStatus::Aborted as i32);
    // Active matches only by default; ended ones on request.
    let l = list(&mut a, false).await;
    assert!(l.matches.iter().all(|m| m.match_id != human.match_id));
    let l = list(&mut a, true).await;
    let ended = l
        .matches
        .iter()
        .find(|m| m.match_id == human.match_id)
        .unwrap();
    assert_eq!(ended.status, pb::MatchStatus::Aborted as i32);
    // The export through the CLI: every step, with its cards.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cardhouse"))
        .args(["admin", "--server", &format!("http://{}", server.addr)])
        .args(["--token", OPERATOR, "export", &human.match_id])
        .output()
        .expect("cardhouse admin");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(record["status"], "aborted");
    assert_eq!(
        record["steps"].as_array().unwrap().len() as u64,
        ended.actions
    );
    assert!(
        record["steps"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("deal")
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cardhouse"))
        .args(["admin", "--server", &format!("http://{}", server.addr)])
        .args(["--token", OPERATOR, "list", "--ended"])
        .output()
        .expect("cardhouse admin");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(&bots.match_id));
    // The wrong credential, or a seat token: refused.
    for token in ["not-the-operator", human.seat_tokens[0].token.as_str()] {
        let e = a
            .list_matches(authed(token, pb::ListMatchesRequest::default()))
            .await
            .expect_err("refused");
        assert_eq!(e.code(), Code::Unauthenticated, "{token}");
    }
    // No operator credential: no Admin service.
    let dir = tempfile::tempdir().unwrap();
    let plain = Server::must_start(&["--data-dir", dir.path().to_str().unwrap()]);
    let e = AdminClient::new(plain.channel().await)
        .list_matches(authed(OPERATOR, pb::ListMatchesRequest::default()))
        .await
        .expect_err("not served");
    assert_eq!(e.code(), Code::Unimplemented);
}
