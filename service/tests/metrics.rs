//! Prometheus metrics (`--metrics-listen`), scraped from the real `cardhouse` binary during a
//! small load: every counter the load must move moves, by exactly as much as the load did.
//!
//! Bounded: a few dozen requests per test.

mod common;

use std::time::{Duration, Instant};

use cardhouse_server::pb;
use cardhouse_server::pb::matches_client::MatchesClient;
use common::metrics::{Scrape, scrape};
use common::postgres::TestDb;
use common::process::Server;
use common::{authed, opts};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

type Client = MatchesClient<Channel>;

struct Game {
    id: String,
    token: String,
    spectator: String,
}

async fn create(
    c: &mut Client,
    game: &str,
    options: &[(&str, &str)],
    seats: &[pb::SeatKind],
) -> Game {
    let r = c
        .create_match(pb::CreateMatchRequest {
            game: game.into(),
            options: opts(options),
            seed: Some(7),
            seats: seats.iter().map(|&k| k as i32).collect(),
            ismcts_iterations: None,
            bots: Default::default(),
            time_control: None,
        })
        .await
        .unwrap_or_else(|s| panic!("create {game}: {s:?}"))
        .into_inner();
    Game {
        id: r.match_id,
        token: r.seat_tokens[0].token.clone(),
        spectator: r.spectator_token,
    }
}

async fn view(c: &mut Client, g: &Game) -> pb::MatchView {
    c.get_view(authed(
        &g.token,
        pb::GetViewRequest {
            match_id: g.id.clone(),
        },
    ))
    .await
    .expect("GetView")
    .into_inner()
    .view
    .expect("a view")
}

async fn act(c: &mut Client, g: &Game, v: &pb::MatchView) -> Result<pb::MatchView, tonic::Status> {
    c.act(authed(
        &g.token,
        pb::ActRequest {
            match_id: g.id.clone(),
            action: Some(pb::act_request::Action::ActionId(v.legal_actions[0].id())),
            expected_move_number: Some(v.move_number),
            include_view: false,
        },
    ))
    .await
    .map(|r| r.into_inner().view.expect("a view"))
}

/// Plays up to `n` moves of seat 0 (the first legal action each time); returns the moves made
/// and the views fetched.
async fn play(c: &mut Client, g: &Game, n: usize) -> (u64, u64) {
    let (mut made, mut views) = (0, 0);
    for _ in 0..n {
        let v = view(c, g).await;
        views += 1;
        if v.status != pb::MatchStatus::Active as i32 || v.legal_actions.is_empty() {
            break;
        }
        act(c, g, &v).await.expect("Act");
        made += 1;
    }
    (made, views)
}

const HUMAN: pb::SeatKind = pb::SeatKind::Human;
const HEURISTIC: pb::SeatKind = pb::SeatKind::HeuristicBot;

fn method(m: &'static str) -> [(&'static str, &'static str); 2] {
    [("grpc_service", "cardhouse.v1.Matches"), ("grpc_method", m)]
}

fn count(s: &Scrape, m: &'static str, code: &'static str) -> f64 {
    let [a, b] = method(m);
    s.sum("grpc_server_handled_total", &[a, b, ("grpc_code", code)])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_load_moves_every_counter_by_what_it_did() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::must_start(&[
        "--data-dir",
        data.to_str().unwrap(),
        "--metrics-listen",
        "127.0.0.1:0",
    ]);
    let metrics = server.metrics_addr();
    let before = scrape(metrics).await;
    assert_eq!(count(&before, "Act", "OK"), 0.0);
    assert_eq!(before.sum("cardhouse_connections_open", &[]), 0.0);

    let mut c = server.matches().await;
    let jass = [HUMAN, HEURISTIC, HEURISTIC, HEURISTIC];
    let a = create(&mut c, "jass", &[("target_score", "1000")], &jass).await;
    let b = create(&mut c, "jass", &[("target_score", "1000")], &jass).await;
    let k = create(
        &mut c,
        "klaberjass",
        &[("first_dealer", "1")],
        &[HUMAN, HEURISTIC],
    )
    .await;

    // A spectator's Watch of match a, open during the load.
    let mut watcher = server.matches().await;
    let mut stream = watcher
        .watch(authed(
            &a.spectator,
            pb::WatchRequest {
                match_id: a.id.clone(),
                ..Default::default()
            },
        ))
        .await
        .expect("Watch")
        .into_inner();
    let first = tokio::time::timeout(Duration::from_secs(5), stream.next()).await;
    assert!(matches!(first, Ok(Some(Ok(_)))), "the Watch's snapshot");

    let (mut acts, mut views) = (0, 0);
    for (g, n) in [(&a, 6), (&b, 6), (&k, 2)] {
        let (m, v) = play(&mut c, g, n).await;
        acts += m;
        views += v;
    }
    assert!(acts >= 10, "only {acts} moves");
    // A stale move (ABORTED) and a wrong token (UNAUTHENTICATED or PERMISSION_DENIED).
    let v = view(&mut c, &a).await;
    views += 1;
    let stale = pb::MatchView {
        move_number: v.move_number + 5,
        ..v.clone()
    };
    assert_eq!(
        act(&mut c, &a, &stale).await.unwrap_err().code(),
        Code::Aborted
    );
    let bad = c
        .get_view(authed(
            "not-a-token",
            pb::GetViewRequest {
                match_id: a.id.clone(),
            },
        ))
        .await
        .unwrap_err();
    let bad_code = match bad.code() {
        Code::Unauthenticated => "UNAUTHENTICATED",
        Code::PermissionDenied => "PERMISSION_DENIED",
        other => panic!("a wrong token: {other:?}"),
    };
    // Klaberjass ends by resignation.
    c.resign(authed(
        &k.token,
        pb::ResignRequest {
            match_id: k.id.clone(),
            seat: None,
        },
    ))
    .await
    .expect("Resign");

    let after = scrape(metrics).await;
    // Requests, per method and code, exactly.
    assert_eq!(count(&after, "CreateMatch", "OK"), 3.0);
    assert_eq!(count(&after, "Act", "OK"), acts as f64);
    assert_eq!(count(&after, "Act", "ABORTED"), 1.0);
    assert_eq!(count(&after, "GetView", bad_code), 1.0);
    assert_eq!(
        count(&after, "GetView", "OK"),
        views as f64,
        "{}",
        after.text
    );
    assert_eq!(count(&after, "Resign", "OK"), 1.0);
    let [s, m] = method("Act");
    assert_eq!(
        after.sum("grpc_server_started_total", &[s, m]),
        acts as f64 + 1.0
    );
    assert_eq!(
        after.sum(
            "grpc_server_handling_seconds_count",
            &[s, m, ("grpc_code", "OK")]
        ),
        acts as f64
    );
    assert!(after.sum("grpc_server_handling_seconds_sum", &[s, m]) > 0.0);
    // The Watch has started and not ended.
    let [s, m] = method("Watch");
    assert_eq!(after.sum("grpc_server_started_total", &[s, m]), 1.0);
    assert_eq!(after.sum("grpc_server_handled_total", &[s, m]), 0.0);

    // Matches: created, live, ended.
    let game = |g| [("game", g)];
    assert_eq!(
        after.sum("cardhouse_matches_created_total", &game("jass")),
        2.0
    );
    assert_eq!(
        after.sum("cardhouse_matches_created_total", &game("klaberjass")),
        1.0
    );
    assert_eq!(after.sum("cardhouse_matches_live", &game("jass")), 2.0);
    assert_eq!(
        after.sum("cardhouse_matches_live", &game("klaberjass")),
        0.0
    );
    assert_eq!(
        after.sum(
            "cardhouse_matches_ended_total",
            &[("game", "klaberjass"), ("status", "resigned")]
        ),
        1.0
    );
    // Bots: every move of seat 0 in Jass lets three heuristic bots think.
    assert!(
        after.sum(
            "cardhouse_bot_think_seconds_count",
            &[("game", "jass"), ("bot", "heuristic")]
        ) >= 3.0
    );
    // The store: each creation and each accepted change committed through the data directory.
    let store = |op| [("backend", "local"), ("op", op)];
    assert_eq!(
        after.sum("cardhouse_store_commit_seconds_count", &store("create")),
        3.0
    );
    assert_eq!(
        after.sum("cardhouse_store_commit_seconds_count", &store("change")),
        acts as f64 + 1.0
    );
    assert_eq!(after.sum("cardhouse_store_commit_failures_total", &[]), 0.0);
    // Connections: the two clients' are open.
    assert_eq!(after.sum("cardhouse_connections_open", &[]), 2.0);
    assert_eq!(
        after.sum("cardhouse_connections_total", &[("outcome", "accepted")]),
        2.0
    );

    // Every series served is documented, with its type.
    let docs = documented();
    for line in after.text.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap();
            assert!(
                docs.iter().any(|(n, t)| n == name && t == kind),
                "{name} ({kind}) is not in the README's Metrics table"
            );
        }
    }

    // The Watch ends when its client goes away: counted once, as CANCELLED.
    drop(stream);
    drop(watcher);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let now = scrape(metrics).await;
        let [s, m] = method("Watch");
        if now.sum("grpc_server_handled_total", &[s, m]) == 1.0
            && now.sum("cardhouse_connections_open", &[]) == 1.0
        {
            assert_eq!(count(&now, "Watch", "CANCELLED"), 1.0, "{}", now.text);
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the Watch's end was not counted: {}",
            now.text
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The series the service README documents ("Metrics"): name and type.
fn documented() -> Vec<(String, String)> {
    let readme = include_str!("../README.md");
    let section = readme
        .split("\n## Metrics\n")
        .nth(1)
        .expect("a Metrics section")
        .split("\n## ")
        .next()
        .unwrap();
    section
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let name = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((name.to_owned(), (*cells.get(2)?).to_owned()))
        })
        .collect()
}

/// The series the Grafana dashboard's queries use (histograms by their base name).
fn on_dashboard() -> std::collections::BTreeSet<String> {
    let dash: serde_json::Value =
        serde_json::from_str(include_str!("../../deploy/grafana-dashboard.json"))
            .expect("deploy/grafana-dashboard.json is JSON");
    let mut names = std::collections::BTreeSet::new();
    for panel in dash["panels"].as_array().expect("panels") {
        if panel["type"] == "row" {
            continue;
        }
        assert!(panel["title"].as_str().is_some_and(|t| !t.is_empty()));
        let targets = panel["targets"].as_array().expect("targets");
        assert!(!targets.is_empty(), "{}", panel["title"]);
        for t in targets {
            let expr = t["expr"].as_str().expect("a query");
            for word in expr.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                if word.starts_with("grpc_server_") || word.starts_with("cardhouse_") {
                    let base = ["_bucket", "_sum", "_count"]
                        .iter()
                        .find_map(|s| word.strip_suffix(s))
                        .unwrap_or(word);
                    names.insert(base.to_owned());
                }
            }
        }
    }
    names
}

#[test]
fn the_readme_documents_every_series_and_the_dashboard_draws_them() {
    let documented: std::collections::BTreeSet<String> =
        documented().into_iter().map(|(n, _)| n).collect();
    assert_eq!(documented.len(), 16, "{documented:?}");
    assert_eq!(on_dashboard(), documented);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_flag_there_is_no_metrics_listener() {
    let server = Server::must_start(&["--in-memory"]);
    // The listening line is the last thing printed at start; give stdout a moment anyway.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        server.stdout_lines().iter().all(|l| !l.contains("metrics")),
        "{:?}",
        server.stdout_lines()
    );
    assert!(
        !server.stderr().contains("serving metrics"),
        "{}",
        server.stderr()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgresql_store_shows_its_pool_and_commits() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let server = Server::must_start(&[
        "--store",
        &db.url,
        "--store-pool-size",
        "5",
        "--metrics-listen",
        "127.0.0.1:0",
    ]);
    let metrics = server.metrics_addr();
    let mut c = server.matches().await;
    let g = create(
        &mut c,
        "jass",
        &[],
        &[HUMAN, HEURISTIC, HEURISTIC, HEURISTIC],
    )
    .await;
    let (acts, _) = play(&mut c, &g, 4).await;
    let s = scrape(metrics).await;
    assert_eq!(
        s.sum("cardhouse_store_pool_max_connections", &[]),
        5.0,
        "{}",
        s.text
    );
    let open = s.sum("cardhouse_store_pool_connections", &[]);
    assert!(
        (1.0..=5.0).contains(&open),
        "{open} pool connections: {}",
        s.text
    );
    assert_eq!(s.sum("cardhouse_store_pool_waiting", &[]), 0.0);
    let store = |op| [("backend", "postgres"), ("op", op)];
    assert_eq!(
        s.sum("cardhouse_store_commit_seconds_count", &store("create")),
        1.0
    );
    assert_eq!(
        s.sum("cardhouse_store_commit_seconds_count", &store("change")),
        acts as f64
    );
    assert!(
        s.sum(
            "cardhouse_store_commit_seconds_sum",
            &[("backend", "postgres")]
        ) > 0.0
    );
    assert_eq!(s.sum("cardhouse_matches_live", &[("game", "jass")]), 1.0);
}
