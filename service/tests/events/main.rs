//! Match events out (`cardhouse serve --events nats://…`), proved against the real binary and
//! a real `nats-server` with JetStream of the test's own (`common/nats.rs`: Debian's
//! `nats-server`; skipped without it unless `CARDHOUSE_REQUIRE_NATS=1`).
//!
//! What every test checks at its end ([`check`]): each match's events in the stream are
//! numbered 1, 2, 3, ... in stream order (none missing, none twice, none out of order), each
//! with its stable id as `Nats-Msg-Id` and its match's subject; the first says the match was
//! created; the action events' spectator move numbers run 1, 2, 3, ... up to the spectator's
//! move number now (so every action the store holds, every acknowledged move among them, is
//! there); and an ended match's last event says how it ended.
//!
//! The tests: (a) the data directory, under concurrent load, with `nats-server` killed and
//! restarted and the cardhouse server killed with SIGKILL twice; (b) without `--events`
//! nothing goes to the outbox (a later start with `--events` publishes none of those
//! matches' events); (c) the JSON payload; (d) two PostgreSQL replicas, one killed with
//! SIGKILL while its events could not be relayed: the other relays them. That no event
//! depends on a hidden card is proved in the crate (`matches/events.rs`).
//!
//! Every load loop is bounded in count and in time.

#[path = "../common/mod.rs"]
mod common;
mod local;
mod replicas;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use cardhouse_server::pb;
use cardhouse_server::pb::matches_client::MatchesClient;
use common::authed;
use common::nats::{Stored, read_stream};
use prost::Message;
use tonic::transport::Channel;

type Client = MatchesClient<Channel>;

/// The stream the server publishes to.
const STREAM: &str = "CARDHOUSE_MATCHES";

/// A Jass match: seat 0 human, three random bots.
#[derive(Clone, Debug)]
struct Game {
    id: String,
    token: String,
    owner: String,
    spectator: String,
}

async fn create(client: &mut Client, seed: u64) -> Game {
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
            bots: HashMap::new(),
            time_control: None,
        })
        .await
        .expect("create")
        .into_inner();
    Game {
        id: r.match_id,
        token: r.seat_tokens[0].token.clone(),
        owner: r.owner_token,
        spectator: r.spectator_token,
    }
}

/// The view of `token` now.
async fn view(client: &mut Client, id: &str, token: &str) -> Result<pb::MatchView, tonic::Status> {
    Ok(client
        .get_view(authed(
            token,
            pb::GetViewRequest {
                match_id: id.to_owned(),
            },
        ))
        .await?
        .into_inner()
        .view
        .expect("view"))
}

/// Plays seat 0 of every game, each in a task of its own, through `clients` in turn (a
/// move through each replica in turn), until `until` or a request fails (the server died).
/// Returns the moves acknowledged.
async fn load(clients: Vec<Client>, games: &[Game], until: Instant) -> u64 {
    let mut tasks = Vec::new();
    for (i, g) in games.iter().cloned().enumerate() {
        let mut clients = clients.clone();
        tasks.push(tokio::spawn(async move {
            let mut n = 0u64;
            // Bounded: 10,000 moves or the deadline, whichever comes first.
            for step in 0..10_000usize {
                if Instant::now() >= until {
                    break;
                }
                let width = clients.len();
                let c = &mut clients[(step + i) % width];
                let Ok(v) = view(c, &g.id, &g.token).await else {
                    break;
                };
                if v.status != pb::MatchStatus::Active as i32 {
                    break;
                }
                if v.legal_actions.is_empty() {
                    // Bots of another replica still to move: ask again.
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                }
                let pick = &v.legal_actions[(step * 7 + i) % v.legal_actions.len()];
                let req = pb::ActRequest {
                    match_id: g.id.clone(),
                    action: Some(pb::act_request::Action::ActionId(pick.id())),
                    expected_move_number: Some(v.move_number),
                    include_view: false,
                };
                match c.act(authed(&g.token, req)).await {
                    Ok(_) => n += 1,
                    Err(s) if s.code() == tonic::Code::Aborted => {}
                    Err(_) => break,
                }
            }
            n
        }));
    }
    let mut total = 0;
    for t in tasks {
        total += t.await.expect("load task");
    }
    total
}

/// Checks the stream against each game's spectator view now (see the crate docs); the
/// number of events checked.
fn check(stored: &[Stored], now: &[(Game, pb::MatchView)]) -> Result<usize, String> {
    use pb::match_stream_event::Kind;
    let mut by_match: HashMap<String, Vec<pb::MatchStreamEvent>> = HashMap::new();
    for s in stored {
        let e = pb::MatchStreamEvent::decode(s.payload.as_slice())
            .map_err(|e| format!("a payload that does not decode: {e}"))?;
        let id = format!("{}:{}", e.match_id, e.sequence);
        if s.msg_id != id {
            return Err(format!("event {id} has Nats-Msg-Id {:?}", s.msg_id));
        }
        let subject = format!("cardhouse.match.{}.{}", e.game, e.match_id);
        if s.subject != subject {
            return Err(format!("event {id} on subject {}", s.subject));
        }
        by_match.entry(e.match_id.clone()).or_default().push(e);
    }
    let mut checked = 0;
    for (g, v) in now {
        let id = &g.id;
        let events = by_match
            .get(id)
            .ok_or_else(|| format!("match {id}: no events"))?;
        let mut moves = 0u64;
        for (i, e) in events.iter().enumerate() {
            if e.sequence != i as u64 + 1 {
                return Err(format!(
                    "match {id}: event {} of the stream is numbered {}",
                    i + 1,
                    e.sequence
                ));
            }
            match &e.kind {
                Some(Kind::Created(_)) if i == 0 => {}
                _ if i == 0 => return Err(format!("match {id}: the first event is not created")),
                Some(Kind::Action(a)) => {
                    let n = a.view.as_ref().map_or(0, |v| v.move_number);
                    if n != moves + 1 {
                        return Err(format!(
                            "match {id}: event {} is the spectator's move {n} after {moves}",
                            e.sequence
                        ));
                    }
                    moves = n;
                }
                Some(Kind::Ended(end)) => {
                    if i + 1 != events.len() {
                        return Err(format!("match {id}: events after its end"));
                    }
                    if end.status != v.status {
                        return Err(format!(
                            "match {id}: ended with status {}, the match says {}",
                            end.status, v.status
                        ));
                    }
                }
                Some(Kind::DealEnded(_) | Kind::Notice(_)) => {}
                Some(Kind::Created(_)) | None => {
                    return Err(format!("match {id}: event {} is not one", e.sequence));
                }
            }
        }
        if moves != v.move_number {
            return Err(format!(
                "match {id}: events up to the spectator's move {moves}, the match is at {}",
                v.move_number
            ));
        }
        let ended = matches!(
            events.last().and_then(|e| e.kind.as_ref()),
            Some(Kind::Ended(_))
        );
        if ended != (v.status != pb::MatchStatus::Active as i32) {
            return Err(format!(
                "match {id}: an end event {ended}, status {}",
                v.status
            ));
        }
        checked += events.len();
    }
    Ok(checked)
}

/// Waits (up to 60 s) until the stream at `url` passes [`check`] for `games` as `client`
/// (the spectator) sees them (read again each time: bots may still be playing); returns the
/// stream.
async fn drained(url: &str, client: &mut Client, games: &[Game]) -> Vec<Stored> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let mut now = Vec::new();
        for g in games {
            let v = view(client, &g.id, &g.spectator)
                .await
                .expect("spectator view");
            now.push((g.clone(), v));
        }
        let stored = read_stream(url, STREAM).await;
        match check(&stored, &now) {
            Ok(n) => {
                eprintln!("{n} events of {} matches checked", games.len());
                return stored;
            }
            Err(why) => {
                assert!(
                    Instant::now() < deadline,
                    "the stream never caught up: {why}"
                );
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Resigns seat 0 of `g` (unless the match is over already).
async fn resign(client: &mut Client, g: &Game) {
    let r = client
        .resign(authed(
            &g.token,
            pb::ResignRequest {
                match_id: g.id.clone(),
                seat: None,
            },
        ))
        .await;
    assert!(ok_or_over(&r), "resign: {r:?}");
}

/// Aborts `g` (owner; unless the match is over already).
async fn abort(client: &mut Client, g: &Game) {
    let r = client
        .abort_match(authed(
            &g.owner,
            pb::AbortMatchRequest {
                match_id: g.id.clone(),
            },
        ))
        .await;
    assert!(ok_or_over(&r), "abort: {r:?}");
}

/// Says seat 0 of `g` is away (`away`) or back (unless the match is over already).
async fn set_away(client: &mut Client, g: &Game, away: bool) {
    let r = client
        .set_away(authed(
            &g.token,
            pb::SetAwayRequest {
                match_id: g.id.clone(),
                away,
            },
        ))
        .await;
    assert!(ok_or_over(&r), "set_away: {r:?}");
}

/// The notices about seats among the events of match `id` in `stored`.
fn notices(stored: &[Stored], id: &str) -> Vec<pb::SeatNotice> {
    stored
        .iter()
        .filter(|s| s.subject.ends_with(id))
        .filter_map(|s| pb::MatchStreamEvent::decode(s.payload.as_slice()).ok())
        .filter_map(|e| match e.kind {
            Some(pb::match_stream_event::Kind::Notice(n)) => n.notice,
            _ => None,
        })
        .collect()
}

/// Done, or refused because the match had ended (the load may finish a match).
fn ok_or_over<T>(r: &Result<T, tonic::Status>) -> bool {
    match r {
        Ok(_) => true,
        Err(s) => s.code() == tonic::Code::FailedPrecondition,
    }
}
