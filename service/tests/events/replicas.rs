//! Two PostgreSQL replicas (`--store`): the outbox is a table written in the transaction of
//! each change, relayed by one replica at a time; a replica killed between its commits and
//! their relay loses no event: the other relays them.

use super::*;
use common::nats::{Nats, binary};
use common::postgres::TestDb;
use common::process::Server;

/// `cardhouse serve --store <db> --events <url>`.
fn replica(db: &TestDb, url: &str) -> Server {
    Server::must_start(&["--store", db.url.as_str(), "--events", url])
}

/// Replica A starts first (it takes the relay) and B second; with `nats-server` down, moves
/// are made through both (their events can only wait in the outbox), then A is killed with
/// SIGKILL and `nats-server` started again: B takes the relay over and publishes every
/// event, A's included, once and in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_between_its_commits_and_their_relay_loses_no_event() {
    let Some(bin) = binary() else { return };
    let Some(db) = TestDb::create().await else {
        return;
    };
    let mut nats = Nats::start(&bin);
    let url = nats.url();
    let a = replica(&db, &url);
    let mut ca = a.matches().await;
    let mut games = Vec::new();
    for i in 0..4 {
        games.push(create(&mut ca, 500 + i).await);
    }
    // A relays (it started first): the creations reach the stream.
    drained(&url, &mut ca, &games).await;
    let b = replica(&db, &url);
    let mut cb = b.matches().await;
    nats.kill9();
    let until = Instant::now() + Duration::from_millis(1500);
    let acked = load(vec![ca.clone(), cb.clone()], &games, until).await;
    resign(&mut ca, &games[0]).await;
    abort(&mut cb, &games[1]).await;
    eprintln!("acknowledged moves with nats-server down: {acked}");
    assert!(acked > 0, "the load made no moves");
    a.kill9();
    nats.restart();
    drained(&url, &mut cb, &games).await;
    // B goes on relaying what it commits now.
    let more = vec![create(&mut cb, 600).await];
    let until = Instant::now() + Duration::from_millis(300);
    load(vec![cb.clone()], &more, until).await;
    let all: Vec<Game> = games.iter().chain(&more).cloned().collect();
    drained(&url, &mut cb, &all).await;
    drop(b);
}

/// With `--events`, a match abandoned on PostgreSQL is aborted by the match code of one
/// replica (not by the store's SQL sweep), so its `ended` event is written with the abort,
/// once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_match_ends_with_its_event_once() {
    let Some(bin) = binary() else { return };
    let Some(db) = TestDb::create().await else {
        return;
    };
    let nats = Nats::start(&bin);
    let url = nats.url();
    let args = [
        "--store",
        db.url.as_str(),
        "--events",
        &url,
        "--abandon-secs",
        "2",
    ];
    let (a, b) = (Server::must_start(&args), Server::must_start(&args));
    let mut ca = a.matches().await;
    let idle = vec![create(&mut ca, 700).await];
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let v = view(&mut ca, &idle[0].id, &idle[0].spectator)
            .await
            .expect("spectator view");
        if v.status == pb::MatchStatus::Aborted as i32 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the idle match was never aborted"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let stored = drained(&url, &mut ca, &idle).await;
    let last = pb::MatchStreamEvent::decode(stored[stored.len() - 1].payload.as_slice())
        .expect("an event");
    let Some(pb::match_stream_event::Kind::Ended(end)) = last.kind else {
        panic!("the last event is the end");
    };
    assert_eq!(end.status, pb::MatchStatus::Aborted as i32);
    assert_eq!(end.text, "the match was aborted");
    drop((a, b));
}
