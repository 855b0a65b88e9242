//! A real load balancer in front of two replicas: nginx (Debian's package, `grpc_pass`) run
//! from `deploy/nginx.conf` itself (only the replica and listening addresses changed, see
//! `common/nginx.rs`), in front of two `cardhouse serve --store postgres://…` replicas on a
//! database of the test's own.
//!
//! (a) A whole match played through nginx equals the engine's replay of its record, its
//! requests spread over both replicas (each replica's metrics and nginx's access log say
//! which served what), and a `Watch` opened through nginx sees every move made through it.
//! (b) One replica killed (SIGKILL) under load through nginx: no acknowledged move lost, and
//! nginx's passive health check (`max_fails`/`fail_timeout`: open-source nginx has no active
//! checks) takes the dead replica out: once the requests in flight at the kill have failed
//! (with UNAVAILABLE, from the deploy file's gRPC error pages, or with the stream reset when the
//! replica died after its answer had begun), every request succeeds on the
//! survivor, and the access log names the dead replica only for those first few.
//!
//! Without nginx or PostgreSQL the tests skip with a message, unless
//! `CARDHOUSE_REQUIRE_NGINX=1` / `CARDHOUSE_REQUIRE_POSTGRES=1` (CI sets both). Every loop is
//! bounded in count and time.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cardhouse::{Rng, SeededRng};
use cardhouse_server::pb;
use cardhouse_server::pb::matches_client::MatchesClient;
use common::metrics::scrape;
use common::nginx::{Nginx, binary};
use common::postgres::TestDb;
use common::process::Server;
use common::{authed, opts};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

type Client = MatchesClient<Channel>;

/// Bound of every wait for an event.
const PATIENCE: Duration = Duration::from_secs(10);

/// A client of `addr` with a deadline per call.
async fn client(addr: std::net::SocketAddr) -> Client {
    let channel = Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(30))
        .connect()
        .await
        .unwrap();
    MatchesClient::new(channel).max_decoding_message_size(64 << 20)
}

/// A client without a call deadline, for Watch streams.
async fn stream_client(addr: std::net::SocketAddr) -> Client {
    let channel = Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect_timeout(Duration::from_secs(5))
        .connect()
        .await
        .unwrap();
    MatchesClient::new(channel).max_decoding_message_size(64 << 20)
}

/// Two replicas on `db` (with metrics), and nginx in front of them.
fn cluster(bin: &std::path::Path, db: &TestDb) -> (Vec<Server>, Nginx) {
    let args = [
        "--store",
        db.url.as_str(),
        "--metrics-listen",
        "127.0.0.1:0",
    ];
    let starting: Vec<_> = (0..2).map(|_| Server::spawn(&args)).collect();
    let replicas: Vec<Server> = starting.into_iter().map(|s| s.must_wait()).collect();
    let nginx = Nginx::start(bin, &[replicas[0].addr, replicas[1].addr]);
    (replicas, nginx)
}

struct M {
    id: String,
    seats: Vec<String>,
    owner: String,
    spectator: String,
}

async fn create(
    c: &mut Client,
    game: &str,
    options: &[(&str, &str)],
    seed: u64,
    seats: &[pb::SeatKind],
) -> M {
    let r = c
        .create_match(pb::CreateMatchRequest {
            game: game.into(),
            options: opts(options),
            seed: Some(seed),
            seats: seats.iter().map(|&k| k as i32).collect(),
            ismcts_iterations: None,
            bots: Default::default(),
            time_control: None,
        })
        .await
        .unwrap_or_else(|s| panic!("create {game}: {s:?}"))
        .into_inner();
    M {
        id: r.match_id,
        seats: r.seat_tokens.into_iter().map(|t| t.token).collect(),
        owner: r.owner_token,
        spectator: r.spectator_token,
    }
}

async fn try_view(c: &mut Client, m: &M, token: &str) -> Result<pb::MatchView, tonic::Status> {
    Ok(c.get_view(authed(
        token,
        pb::GetViewRequest {
            match_id: m.id.clone(),
        },
    ))
    .await?
    .into_inner()
    .view
    .expect("a view"))
}

async fn try_act(
    c: &mut Client,
    m: &M,
    token: &str,
    action: u32,
    expected: u64,
) -> Result<pb::MatchView, tonic::Status> {
    c.act(authed(
        token,
        pb::ActRequest {
            match_id: m.id.clone(),
            action: Some(pb::act_request::Action::ActionId(action)),
            expected_move_number: Some(expected),
            include_view: false,
        },
    ))
    .await
    .map(|r| r.into_inner().view.expect("a view"))
}

fn method(m: &'static str) -> [(&'static str, &'static str); 3] {
    [
        ("grpc_service", "cardhouse.v1.Matches"),
        ("grpc_method", m),
        ("grpc_code", "OK"),
    ]
}

/// The access log's lines for `/cardhouse.v1.Matches/<method>`, with the replicas each was
/// sent to (`upstream=a, b` when nginx tried a, then b).
fn upstreams(log: &str, method: &str) -> Vec<Vec<String>> {
    let path = format!("/cardhouse.v1.Matches/{method} ");
    log.lines()
        .filter(|l| l.contains(&path))
        .map(|l| {
            let rest = l.split_once("upstream=").map_or("", |(_, r)| r);
            let list = rest.split(" upstream_status=").next().unwrap_or("");
            list.split(", ").map(str::to_owned).collect()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_match_through_nginx_is_spread_over_both_replicas_and_watched_through_it() {
    let Some(bin) = binary() else { return };
    let Some(db) = TestDb::create().await else {
        return;
    };
    let (replicas, nginx) = cluster(&bin, &db);
    let options = [("target_score", "120")];
    let mut c = client(nginx.addr).await;
    let m = create(
        &mut c,
        "klaberjass",
        &options,
        41,
        &[pb::SeatKind::Human; 2],
    )
    .await;

    // A spectator watches through nginx, on a connection of its own.
    let mut w = stream_client(nginx.addr).await;
    let mut stream = w
        .watch(authed(
            &m.spectator,
            pb::WatchRequest {
                match_id: m.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .expect("Watch through nginx")
        .into_inner();
    let first = tokio::time::timeout(PATIENCE, stream.next())
        .await
        .expect("a snapshot")
        .expect("a snapshot")
        .expect("a snapshot");
    assert!(matches!(
        first.kind,
        Some(pb::watch_response::Kind::Snapshot(_))
    ));

    // The whole match, both seats through nginx, seeded random choices.
    let mut rng = SeededRng::new(7);
    let mut chosen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    'game: for _ in 0..2000 {
        assert!(
            Instant::now() < deadline,
            "out of time after {} moves",
            chosen.len()
        );
        for seat in 0..2 {
            let v = try_view(&mut c, &m, &m.seats[seat])
                .await
                .expect("GetView through nginx");
            if v.status != pb::MatchStatus::Active as i32 {
                break 'game;
            }
            if v.legal_actions.is_empty() {
                continue;
            }
            let a = v.legal_actions[rng.below(v.legal_actions.len() as u64) as usize].id();
            try_act(&mut c, &m, &m.seats[seat], a, v.move_number)
                .await
                .unwrap_or_else(|s| panic!("move {} through nginx: {s:?}", chosen.len()));
            chosen.push(a);
            continue 'game;
        }
        panic!("nobody is to move in an active match");
    }
    let moves = chosen.len();
    assert!(moves >= 10, "{moves} moves");

    // The record is the engine's match: replayed step by step it reaches the same state and
    // returns, and the moves made through nginx are its seats' moves, in order.
    let rec = c
        .get_record(authed(
            &m.owner,
            pb::GetRecordRequest {
                match_id: m.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .expect("GetRecord through nginx")
        .into_inner();
    assert_eq!(rec.status, pb::MatchStatus::Finished as i32);
    assert!(rec.next_step.is_none());
    let engine_options = options
        .iter()
        .map(|(k, v)| {
            (
                (*k).to_owned(),
                cardhouse::OptionValue::Str((*v).to_owned()),
            )
        })
        .collect();
    let mut state = cardhouse::new_game("klaberjass", &engine_options)
        .unwrap()
        .new_initial_state();
    let mut mine = chosen.iter().peekable();
    for step in &rec.steps {
        if step.actor.as_ref().is_some_and(|p| p.seat.is_some()) {
            assert_eq!(mine.next(), Some(&step.action()), "step {}", step.index());
        }
        state.apply(step.action()).unwrap();
    }
    assert!(mine.next().is_none(), "moves missing from the record");
    assert!(state.is_terminal());
    assert_eq!(rec.state, state.to_bytes());
    assert_eq!(rec.returns, state.returns().to_vec());

    // The Watch through nginx saw the match to its end.
    let end = try_view(&mut c, &m, &m.spectator).await.unwrap();
    let mut events = 0;
    loop {
        let msg = tokio::time::timeout(PATIENCE, stream.next())
            .await
            .unwrap_or_else(|_| panic!("no event within {PATIENCE:?} after {events}"))
            .expect("the stream ended early")
            .expect("the stream failed");
        let Some(pb::watch_response::Kind::Event(e)) = msg.kind else {
            panic!("one snapshot only");
        };
        events += 1;
        let v = e.view.unwrap();
        if v.move_number == end.move_number {
            assert_eq!(v.status, pb::MatchStatus::Finished as i32);
            break;
        }
        assert!(v.move_number < end.move_number);
    }
    assert!(events >= moves, "{events} events for {moves} moves");

    // Spread: both replicas served Acts, and between them every one.
    let mut acts = Vec::new();
    for r in &replicas {
        acts.push(
            scrape(r.metrics_addr())
                .await
                .sum("grpc_server_handled_total", &method("Act")),
        );
    }
    eprintln!("Acts per replica: {acts:?} of {moves}");
    assert!(acts.iter().all(|&n| n > 0.0), "not spread: {acts:?}");
    assert_eq!(acts.iter().sum::<f64>(), moves as f64);
    // nginx's access log says the same.
    let log = nginx.access_log();
    let sent = upstreams(&log, "Act");
    assert_eq!(sent.len(), moves, "{log}");
    for r in &replicas {
        let addr = r.addr.to_string();
        let n = sent.iter().filter(|u| u == &&vec![addr.clone()]).count();
        assert!(n > 0, "no Act went to {addr}:\n{log}");
    }
}

/// What a client was told of its match.
#[derive(Clone, Copy, Debug, Default)]
struct Acked {
    move_number: u64,
    /// An Act failed without an answer: it may or may not have landed.
    unknown: bool,
}

/// How a request in flight to a replica that dies fails through nginx: UNAVAILABLE (the
/// deploy file's error page) when nginx had not started the answer, or the stream reset by
/// nginx when the replica died after its answer had begun (tonic: INTERNAL, "h2 protocol
/// error"). Either way the client does not know whether an `Act` landed.
fn cut_off(e: &tonic::Status) -> bool {
    e.code() == Code::Unavailable
        || (e.code() == Code::Internal && e.message().contains("h2 protocol error"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_under_load_behind_nginx_loses_no_acknowledged_move_and_is_taken_out() {
    let Some(bin) = binary() else { return };
    let Some(db) = TestDb::create().await else {
        return;
    };
    let (mut replicas, nginx) = cluster(&bin, &db);
    let survivor = replicas.pop().unwrap();
    let victim = replicas.pop().unwrap();
    let seats = [
        pb::SeatKind::Human,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
    ];
    let n = 4;
    let mut c = client(nginx.addr).await;
    let mut games = Vec::new();
    for i in 0..n {
        games.push(Arc::new(
            // A target no match reaches in the few seconds of load, however fast the machine.
            create(
                &mut c,
                "jass",
                &[("wys", "auto"), ("target_score", "1000000")],
                900 + i,
                &seats,
            )
            .await,
        ));
    }

    let start = Instant::now();
    let kill_at = start + Duration::from_millis(1200);
    // Requests in flight to the victim at the kill fail; after this, none may.
    let settled_at = kill_at + Duration::from_millis(1500);
    let stop_at = kill_at + Duration::from_secs(3);
    let acked = Arc::new(Mutex::new(vec![Acked::default(); games.len()]));
    let mut tasks = Vec::new();
    for (i, g) in games.iter().cloned().enumerate() {
        let acked = Arc::clone(&acked);
        let mut c = client(nginx.addr).await;
        tasks.push(tokio::spawn(async move {
            let token = g.seats[0].clone();
            let (mut acks, mut after, mut failures) = (0u64, 0u64, 0u64);
            let mut in_doubt_landed = false;
            for step in 0..10_000usize {
                let now = Instant::now();
                if now >= stop_at {
                    break;
                }
                let v = match try_view(&mut c, &g, &token).await {
                    Ok(v) => v,
                    // nginx's error pages of the deploy file (UNAVAILABLE, not HTML), or a reset.
                    Err(e) if Instant::now() < settled_at && cut_off(&e) => {
                        eprintln!("match {i}: a GetView failed around the kill: {e:?}");
                        failures += 1;
                        continue;
                    }
                    Err(e) => panic!(
                        "match {i}: GetView failed (after the kill settled, or not cut off): {e:?}"
                    ),
                };
                if v.status != pb::MatchStatus::Active as i32 {
                    // (The target is far: a match ending here leaves its task idle.)
                    eprintln!(
                        "match {i} ended (status {}) at move {}",
                        v.status, v.move_number
                    );
                    break;
                }
                let pick = v.legal_actions[step % v.legal_actions.len()].id();
                match try_act(&mut c, &g, &token, pick, v.move_number).await {
                    Ok(after_view) => {
                        let mut a = acked.lock().unwrap();
                        assert!(after_view.move_number > a[i].move_number || a[i].unknown);
                        a[i] = Acked {
                            move_number: after_view.move_number,
                            unknown: false,
                        };
                        acks += 1;
                        if Instant::now() > settled_at {
                            after += 1;
                        }
                    }
                    // The move in doubt landed after the view was read: read again.
                    Err(e)
                        if e.code() == Code::Aborted
                            && acked.lock().unwrap()[i].unknown
                            && !in_doubt_landed =>
                    {
                        in_doubt_landed = true;
                    }
                    Err(e) if Instant::now() < settled_at && cut_off(&e) => {
                        eprintln!("match {i}: an Act failed around the kill: {e:?}");
                        acked.lock().unwrap()[i].unknown = true;
                        failures += 1;
                    }
                    Err(e) => panic!(
                        "match {i}: an Act failed (after the kill settled, or not cut off): {e:?}"
                    ),
                }
            }
            (acks, after, failures)
        }));
    }
    tokio::time::sleep(kill_at.saturating_duration_since(Instant::now())).await;
    let log_before_kill = nginx.access_log().len();
    let victim_addr = victim.addr.to_string();
    victim.kill9();
    eprintln!("killed replica {victim_addr} after {:?}", start.elapsed());
    let (mut total, mut after, mut failures) = (0, 0, 0);
    for t in tasks {
        let (a, b, f) = t.await.unwrap();
        total += a;
        after += b;
        failures += f;
    }
    let acked = acked.lock().unwrap().clone();

    // No acknowledged move lost: the survivor (asked directly) has every one.
    let mut direct = client(survivor.addr).await;
    let mut lost = 0;
    for (i, g) in games.iter().enumerate() {
        let v = try_view(&mut direct, g, &g.seats[0]).await.unwrap();
        let a = acked[i];
        if v.move_number < a.move_number {
            lost += 1;
            eprintln!(
                "match {i} lost moves: at {}, acknowledged {}",
                v.move_number, a.move_number
            );
        } else if !a.unknown && v.status == pb::MatchStatus::Active as i32 {
            assert_eq!(
                v.move_number, a.move_number,
                "match {i}: a move nobody was told of"
            );
        }
    }
    eprintln!(
        "acknowledged moves: {total} ({after} after the kill settled), failed requests around \
         the kill: {failures}, lost: {lost}"
    );
    assert_eq!(lost, 0);
    assert!(total > 0, "the load made no moves");
    assert!(after > 0, "the survivor did not carry on through nginx");

    // Taken out: after the kill, nginx sent only the first few requests (those in flight,
    // one per client at most, and the attempt that found the port closed) to the dead
    // replica; every later one went to the survivor alone.
    let log = nginx.access_log();
    let since_kill = &log[log_before_kill..];
    let requests: Vec<Vec<String>> = ["GetView", "Act"]
        .iter()
        .flat_map(|m| upstreams(since_kill, m))
        .collect();
    let to_victim = requests.iter().filter(|u| u.contains(&victim_addr)).count();
    eprintln!(
        "after the kill: {} requests through nginx, {to_victim} of them tried on the dead replica",
        requests.len()
    );
    assert!(requests.len() >= 20, "{since_kill}");
    assert!(
        to_victim <= n as usize + 1,
        "the dead replica kept getting requests:\n{since_kill}"
    );
    let errors = nginx.error_log();
    assert!(
        errors.contains("upstream server temporarily disabled"),
        "nginx did not take the dead replica out:\n{errors}"
    );
}
