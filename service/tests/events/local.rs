//! The data directory (and the in-memory store): events through crashes of both servers,
//! none without `--events`, and the JSON payload.

use super::*;
use common::nats::{Nats, binary};
use common::process::Server;

/// `cardhouse serve --data-dir <dir> --events <url> <extra>`.
fn start(dir: &std::path::Path, url: &str, extra: &[&str]) -> Server {
    let dir = dir.to_str().expect("a UTF-8 temporary path");
    let mut args = vec!["--data-dir", dir, "--events", url];
    args.extend_from_slice(extra);
    Server::must_start(&args)
}

/// Clients play concurrently while `nats-server` is killed and started again, and the
/// cardhouse server is killed with SIGKILL (events committed and not yet relayed, or
/// relayed and not yet marked, are in the outbox then); after the last restart every
/// event is in the stream once, in order, none missing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_event_is_published_once_in_order_through_sigkills_and_nats_restarts() {
    let Some(bin) = binary() else { return };
    let mut nats = Nats::start(&bin);
    let url = nats.url();
    let dir = tempfile::tempdir().unwrap();
    let mut games = Vec::new();
    let mut acked = 0;
    {
        let server = start(dir.path(), &url, &[]);
        let mut c = server.matches().await;
        for i in 0..6 {
            games.push(create(&mut c, 300 + i).await);
        }
        let until = Instant::now() + Duration::from_millis(2500);
        let clients = vec![server.matches().await, server.matches().await];
        let work = load(clients, &games, until);
        let chaos = async {
            tokio::time::sleep(Duration::from_millis(600)).await;
            nats.kill9();
            tokio::time::sleep(Duration::from_millis(600)).await;
            nats.restart();
            tokio::time::sleep(Duration::from_millis(700)).await;
            server.kill9();
        };
        let (n, ()) = tokio::join!(work, chaos);
        acked += n;
    }
    {
        let server = start(dir.path(), &url, &[]);
        let until = Instant::now() + Duration::from_millis(1500);
        let clients = vec![server.matches().await];
        let work = load(clients, &games, until);
        let kill = async {
            tokio::time::sleep(Duration::from_millis(800)).await;
            server.kill9();
        };
        let (n, ()) = tokio::join!(work, kill);
        acked += n;
    }
    let server = start(dir.path(), &url, &[]);
    let mut c = server.matches().await;
    resign(&mut c, &games[0]).await;
    abort(&mut c, &games[1]).await;
    // Seat 0 away (its stand-in plays at once) and back: notices, as a spectator sees them.
    let away = create(&mut c, 399).await;
    set_away(&mut c, &away, true).await;
    set_away(&mut c, &away, false).await;
    games.push(away);
    eprintln!("acknowledged moves: {acked}");
    assert!(acked > 0, "the load made no moves");
    let stored = drained(&url, &mut c, &games).await;
    let told = notices(&stored, &games[6].id);
    assert!(
        told.first()
            .is_some_and(|n| n.seat == Some(0) && n.kind == pb::SeatNoticeKind::Away as i32),
        "the seat away is told: {told:?}"
    );
    // Exactly the events of these matches, nothing else.
    assert!(
        stored
            .iter()
            .all(|s| games.iter().any(|g| s.subject.ends_with(&g.id)))
    );
    server.kill9();
}

/// Without `--events` the store writes no event: a later start with `--events` (which
/// relays whatever the outbox holds) publishes none of the matches played before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_events_nothing_goes_to_the_outbox() {
    let Some(bin) = binary() else { return };
    let nats = Nats::start(&bin);
    let url = nats.url();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    let before = {
        let server = Server::must_start(&["--data-dir", &data]);
        let mut c = server.matches().await;
        let games = vec![create(&mut c, 1).await, create(&mut c, 2).await];
        let until = Instant::now() + Duration::from_millis(500);
        assert!(load(vec![c.clone()], &games, until).await > 0);
        resign(&mut c, &games[0]).await;
        // Killed: its log is read (and folded) by the next start.
        server.kill9();
        games
    };
    let server = start(dir.path(), &url, &[]);
    let mut c = server.matches().await;
    let after = vec![create(&mut c, 3).await];
    let until = Instant::now() + Duration::from_millis(300);
    load(vec![c.clone()], &after, until).await;
    let stored = drained(&url, &mut c, &after).await;
    for g in &before {
        assert!(
            !stored.iter().any(|s| s.subject.ends_with(&g.id)),
            "match {} was played without --events, yet has events",
            g.id
        );
    }
    assert!(stored.iter().all(|s| s.subject.ends_with(&after[0].id)));
}

/// `--events-format json`: each payload is the event's proto3 JSON form (here from the
/// in-memory store, which relays at once).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_json_payload_is_the_events_proto3_json() {
    let Some(bin) = binary() else { return };
    let nats = Nats::start(&bin);
    let url = nats.url();
    let server = Server::must_start(&["--in-memory", "--events", &url, "--events-format", "json"]);
    let mut c = server.matches().await;
    let g = create(&mut c, 9).await;
    resign(&mut c, &g).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    let events = loop {
        let stored = read_stream(&url, STREAM).await;
        let events: Vec<serde_json::Value> = stored
            .iter()
            .map(|s| serde_json::from_slice(&s.payload).expect("a JSON payload"))
            .collect();
        if events.last().is_some_and(|e| e.get("ended").is_some()) {
            break events;
        }
        assert!(Instant::now() < deadline, "no end event: {events:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(events[0]["matchId"], g.id.as_str());
    // 64-bit integers are strings in proto3 JSON.
    assert_eq!(events[0]["sequence"], "1");
    assert_eq!(events[0]["created"]["game"]["name"], "jass");
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["sequence"], (i + 1).to_string());
    }
    let end = &events[events.len() - 1]["ended"];
    assert_eq!(end["status"], "MATCH_STATUS_RESIGNED");
    assert_eq!(end["text"], "seat 0 resigned");
}
