//! Watch never skips an event: many streams opened and dropped while bots move in the
//! background, in every game, each checked to count the viewer's move numbers one by one
//! from its snapshot on.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::*;

/// A match of `game` with a human at seat 0 and IS-MCTS bots (which always move in the
/// background) and heuristic bots elsewhere; returns its id and tokens.
async fn create_mixed(
    client: &mut MatchesClient<Channel>,
    game: &str,
    options: &[(&str, &str)],
    seats: usize,
    seed: u64,
) -> Created {
    let kinds = (0..seats)
        .map(|s| match s {
            0 => pb::SeatKind::Human,
            s if s % 2 == 1 => pb::SeatKind::IsmctsBot,
            _ => pb::SeatKind::HeuristicBot,
        } as i32)
        .collect();
    let r = client
        .create_match(pb::CreateMatchRequest {
            game: game.into(),
            options: opts(options),
            seed: Some(seed),
            seats: kinds,
            ismcts_iterations: Some(12),
            bots: Default::default(),
            time_control: None,
        })
        .await
        .unwrap()
        .into_inner();
    Created {
        id: r.match_id,
        seats: r
            .seat_tokens
            .into_iter()
            .map(|t| (t.seat() as usize, t.token))
            .collect(),
        owner: r.owner_token,
        spectator: r.spectator_token,
    }
}

/// Reads a stream's snapshot and then up to `events` events (all of them if the match ends
/// first); checks that the move numbers of the events with an actor count up by one from the
/// snapshot's, and returns the last move number seen.
async fn read_consecutive(
    mut stream: tonic::codec::Streaming<pb::WatchResponse>,
    events: usize,
    what: &str,
) -> u64 {
    let first = stream.next().await.unwrap().unwrap();
    let Some(pb::watch_response::Kind::Snapshot(snapshot)) = first.kind else {
        panic!("{what}: the first message is not a snapshot");
    };
    let mut last = snapshot.move_number;
    let mut seen = 0;
    while seen < events {
        let Some(msg) = stream.next().await else {
            break;
        };
        let msg = msg.unwrap_or_else(|e| panic!("{what}: {e}"));
        let Some(pb::watch_response::Kind::Event(e)) = msg.kind else {
            panic!("{what}: a second snapshot");
        };
        let number = e.view.as_ref().unwrap().move_number;
        if e.actor.is_some() {
            assert_eq!(
                number,
                last + 1,
                "{what}: snapshot at move {}, then event {:?} at move {number} after move {last}",
                snapshot.move_number,
                e.text
            );
        } else {
            assert_eq!(number, last, "{what}: the end of the match counts no move");
        }
        last = number;
        seen += 1;
    }
    last
}

/// Plays seat 0 of `m` with seeded random moves (polling its view, so that no stream of
/// its own is open) until the match ends or `stop` is set.
async fn play_seat0(mut client: MatchesClient<Channel>, m: Arc<Created>, stop: Arc<AtomicBool>) {
    let mut rng = SeededRng::new(5);
    while !stop.load(Ordering::Acquire) {
        let v = view(&mut client, &m, &m.seats[&0]).await;
        if v.status != pb::MatchStatus::Active as i32 {
            return;
        }
        if v.legal_actions.is_empty() {
            tokio::task::yield_now().await;
            continue;
        }
        let a = v.legal_actions[rng.below(v.legal_actions.len() as u64) as usize].id();
        let _ = act(&mut client, &m, 0, a, v.move_number).await;
    }
}

/// Rounds of watchers, every token of the match at once and each role several times, each
/// reading a few events and leaving (so that between rounds nobody watches), while seat 0
/// plays and the bots move in the background; then the match is aborted and a last round
/// reads every stream to its end.
async fn watchers_count_every_move(game: &str, options: &[(&str, &str)], seats: usize) {
    let server = TestServer::memory().await;
    let mut client = server.matches().await;
    let m = Arc::new(create_mixed(&mut client, game, options, seats, 31).await);
    let stop = Arc::new(AtomicBool::new(false));
    let player = tokio::spawn(play_seat0(
        server.matches().await,
        Arc::clone(&m),
        Arc::clone(&stop),
    ));
    let mut tokens: Vec<(String, String)> = m
        .seats
        .iter()
        .map(|(s, t)| (format!("{game} seat {s}"), t.clone()))
        .collect();
    tokens.push((format!("{game} spectator"), m.spectator.clone()));
    tokens.push((format!("{game} owner"), m.owner.clone()));
    let mut rng = SeededRng::new(17);
    for round in 0..12 {
        let mut readers = Vec::new();
        for copy in 0..3 {
            for (what, token) in &tokens {
                let stream = common::watch(&mut client, token, &m.id).await;
                let events = 1 + rng.below(6) as usize;
                let what = format!("{what} (round {round}, copy {copy})");
                readers.push(tokio::spawn(async move {
                    read_consecutive(stream, events, &what).await
                }));
            }
        }
        for r in readers {
            r.await.unwrap();
        }
        let spectator = view(&mut client, &m, &m.spectator).await;
        if spectator.status != pb::MatchStatus::Active as i32 {
            break;
        }
    }
    // The tail: streams opened now and read to the end of the match see its last move.
    let streams: Vec<_> = {
        let mut v = Vec::new();
        for (what, token) in &tokens {
            v.push((
                what.clone(),
                token.clone(),
                common::watch(&mut client, token, &m.id).await,
            ));
        }
        v
    };
    stop.store(true, Ordering::Release);
    player.await.unwrap();
    let _ = client
        .abort_match(authed(
            &m.owner,
            pb::AbortMatchRequest {
                match_id: m.id.clone(),
            },
        ))
        .await;
    for (what, token, stream) in streams {
        let last = read_consecutive(stream, usize::MAX, &what).await;
        assert_eq!(
            last,
            view(&mut client, &m, &token).await.move_number,
            "{what}: the tail"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jass_watchers_never_skip_an_event() {
    watchers_count_every_move("jass", &[], 4).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn klaberjass_watchers_never_skip_an_event() {
    watchers_count_every_move("klaberjass", &[], 2).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cribbage_watchers_never_skip_an_event() {
    for players in ["2", "3", "4"] {
        let n = players.parse().unwrap();
        watchers_count_every_move("cribbage", &[("players", players)], n).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn avinas_watchers_never_skip_an_event() {
    watchers_count_every_move("avinas", &[], 4).await;
}
