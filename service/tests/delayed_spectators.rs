//! Delayed spectator tokens against a real server: they survive a restart, stored only as
//! hashes, in the data directory and on PostgreSQL; and a seat that also holds one learns
//! nothing of the other hands before the delay passes (two matches that differ only in two
//! cards of other seats give that token the same bytes, in GetView and in Watch, until the
//! prefix it is shown reaches the first differing card).
//!
//! The PostgreSQL tests run on a fresh database each (see `common/postgres.rs`); without a
//! reachable server they are skipped with a message, unless `CARDHOUSE_REQUIRE_POSTGRES=1`.

mod common;

use std::time::Duration;

use cardhouse::{AnyGame, Rng, SeededRng, Viewer};
use cardhouse_server::auth::hash_token;
use cardhouse_server::pb;
use cardhouse_server::pb::matches_client::MatchesClient;
use cardhouse_server::{Config, PgConfig, StoreConfig};
use common::postgres::TestDb;
use common::{TestServer, authed, opts};
use prost::Message;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

type Client = MatchesClient<Channel>;

/// A created match: its id, seat tokens, owner token and delayed tokens `(delay, token)`.
struct Created {
    id: String,
    seats: Vec<String>,
    owner: String,
    delayed: Vec<(u32, String)>,
}

async fn create(c: &mut Client, seed: u64, delays: &[u32]) -> Created {
    let r = c
        .create_match(pb::CreateMatchRequest {
            game: "jass".into(),
            options: opts(&[("target_score", "1000")]),
            seed: Some(seed),
            spectator_delays: delays.to_vec(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut seats = r.seat_tokens;
    seats.sort_by_key(pb::SeatToken::seat);
    Created {
        id: r.match_id,
        seats: seats.into_iter().map(|t| t.token).collect(),
        owner: r.owner_token,
        delayed: r
            .delayed_spectator_tokens
            .into_iter()
            .map(|t| (t.delay, t.token))
            .collect(),
    }
}

async fn view(c: &mut Client, m: &Created, token: &str) -> pb::MatchView {
    c.get_view(authed(
        token,
        pb::GetViewRequest {
            match_id: m.id.clone(),
        },
    ))
    .await
    .unwrap_or_else(|s| panic!("GetView: {s:?}"))
    .into_inner()
    .view
    .unwrap()
}

async fn issue(c: &mut Client, m: &Created, delay: Option<u32>) -> String {
    c.issue_spectator_token(authed(
        &m.owner,
        pb::IssueSpectatorTokenRequest {
            match_id: m.id.clone(),
            delay,
        },
    ))
    .await
    .unwrap()
    .into_inner()
    .token
}

/// The seat to act (every seat is human).
async fn seat_to_act(c: &mut Client, m: &Created) -> usize {
    let v = view(c, m, &m.owner).await;
    let p = v.current_player.unwrap();
    assert_eq!(p.kind, pb::PlayerKind::Seat as i32, "a seat to act");
    p.seat() as usize
}

async fn act(c: &mut Client, m: &Created, seat: usize, action: u32, expected: u64) {
    c.act(authed(
        &m.seats[seat],
        pb::ActRequest {
            match_id: m.id.clone(),
            action: Some(pb::act_request::Action::ActionId(action)),
            expected_move_number: Some(expected),
            include_view: false,
        },
    ))
    .await
    .unwrap_or_else(|s| panic!("Act: {s:?}"));
}

/// `moves` seeded random moves of the seats to act.
async fn play(c: &mut Client, m: &Created, rng: &mut SeededRng, moves: usize) {
    for _ in 0..moves {
        let seat = seat_to_act(c, m).await;
        let v = view(c, m, &m.seats[seat]).await;
        let a = v.legal_actions[rng.below(v.legal_actions.len() as u64) as usize].id();
        act(c, m, seat, a, v.move_number).await;
    }
}

/// Every token of `m` and those issued: their views, to be the same after a restart.
async fn views(c: &mut Client, m: &Created, issued: &[String]) -> Vec<pb::MatchView> {
    let mut out = Vec::new();
    for (_, t) in &m.delayed {
        out.push(view(c, m, t).await);
    }
    for t in issued {
        out.push(view(c, m, t).await);
    }
    out
}

/// The tokens of `m` (delayed, issued, owner, seats), to look for at rest.
fn tokens(m: &Created, issued: &[String]) -> Vec<String> {
    let mut all: Vec<String> = m.delayed.iter().map(|(_, t)| t.clone()).collect();
    all.extend(issued.iter().cloned());
    all
}

/// Whether `needle` occurs in `hay`.
fn holds(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Before the restart: a match with delayed tokens from CreateMatch and IssueSpectatorToken
/// (and a plain one issued), some moves played; the views of each token and the tokens.
async fn before_restart(c: &mut Client) -> (Created, Vec<String>, Vec<pb::MatchView>) {
    let m = create(c, 6, &[4, 30]).await;
    let mut rng = SeededRng::new(1);
    play(c, &m, &mut rng, 3).await;
    let issued = vec![issue(c, &m, Some(2)).await, issue(c, &m, None).await];
    play(c, &m, &mut rng, 5).await;
    let seen = views(c, &m, &issued).await;
    assert_eq!(seen[0].delay, Some(4));
    assert_eq!(seen[2].delay, Some(2));
    assert_eq!(seen[3].role, pb::Role::Spectator as i32);
    (m, issued, seen)
}

/// After the restart: every token as before, and the match goes on for them.
async fn after_restart(c: &mut Client, m: &Created, issued: &[String], seen: &[pb::MatchView]) {
    assert_eq!(
        views(c, m, issued).await,
        seen,
        "the tokens after a restart"
    );
    let late = issue(c, m, Some(1)).await;
    play(c, m, &mut SeededRng::new(2), 4).await;
    let now = views(c, m, issued).await;
    assert!(now[0].move_number > seen[0].move_number);
    assert_eq!(view(c, m, &late).await.delay, Some(1));
}

#[tokio::test]
async fn delayed_tokens_survive_a_restart_as_hashes_in_the_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::on_disk(dir.path()).await;
    let mut c = server.matches().await;
    let (m, issued, seen) = before_restart(&mut c).await;
    server.stop().await;

    // At rest: each token's hash, never the token.
    let mut files = Vec::new();
    for entry in walk(dir.path()) {
        files.push(std::fs::read(&entry).unwrap());
    }
    for t in tokens(&m, &issued) {
        assert!(!files.iter().any(|f| holds(f, &t)), "a token in clear");
        assert!(
            files.iter().any(|f| holds(f, &hash_token(&t))),
            "no hash of a token"
        );
    }

    let server = TestServer::on_disk(dir.path()).await;
    let mut c = server.matches().await;
    after_restart(&mut c, &m, &issued, &seen).await;
    server.stop().await;
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn on_postgres(db: &TestDb) -> Config {
    Config {
        store: StoreConfig::Postgres(PgConfig::new(db.url.clone())),
        ..Config::default()
    }
}

#[tokio::test]
async fn delayed_tokens_survive_a_restart_as_hashes_on_postgres() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let server = TestServer::start(on_postgres(&db)).await;
    let mut c = server.matches().await;
    let (m, issued, seen) = before_restart(&mut c).await;
    server.stop().await;

    let row = db
        .client()
        .await
        .query_one(
            "SELECT header, state, tail FROM matches WHERE id = $1",
            &[&m.id],
        )
        .await
        .unwrap();
    let columns: Vec<Vec<u8>> = (0..3).map(|i| row.get(i)).collect();
    let header: cardhouse_server::store::StoredMatch =
        Message::decode(columns[0].as_slice()).unwrap();
    let stored: Vec<(u32, String)> = header
        .delayed_spectators
        .iter()
        .map(|t| (t.delay, t.token.clone()))
        .collect();
    let expected: Vec<(u32, String)> = [4, 30, 2, 0]
        .into_iter()
        .zip(tokens(&m, &issued))
        .map(|(d, t)| (d, hash_token(&t)))
        .collect();
    assert_eq!(
        stored, expected,
        "the header holds each token's hash and delay"
    );
    for t in tokens(&m, &issued) {
        assert!(
            !columns.iter().any(|col| holds(col, &t)),
            "a token in clear"
        );
    }

    let server = TestServer::start(on_postgres(&db)).await;
    let mut c = server.matches().await;
    after_restart(&mut c, &m, &issued, &seen).await;
    server.stop().await;
}

/// `history` with the actions at `i` and `j` swapped, if it is still a legal history after
/// which seat 0 knows exactly what it knew (the two cards went to other seats) and the
/// hands differ.
fn swapped(game: &AnyGame, history: &[u32], i: usize, j: usize) -> Option<Vec<u32>> {
    let mut other = history.to_vec();
    other.swap(i, j);
    let real = game.replay(history).ok()?;
    let changed = game.replay(&other).ok()?;
    let mut prefix = game.new_initial_state();
    for (a, b) in history.iter().zip(&other) {
        // Seat 0 is told the same of each action.
        if prefix.action_to_string_for(Viewer::Seat(0), *a)
            != prefix.action_to_string_for(Viewer::Seat(0), *b)
        {
            return None;
        }
        prefix.apply(*a).ok()?;
    }
    (changed.view(Viewer::Seat(0)).ok()? == real.view(Viewer::Seat(0)).ok()?
        && changed.view(Viewer::Omniscient).ok()? != real.view(Viewer::Omniscient).ok()?)
    .then_some(other)
}

/// What two matches' replies are compared by: the reply's bytes without its match id and
/// its `game` (a protobuf map, whose encoding order differs from one match's copy to
/// another's), and its `game` itself.
type Compared = (Option<pb::GameInfo>, Vec<u8>);

/// A view as [`Compared`].
fn view_bytes(v: &pb::MatchView) -> Compared {
    let mut v = v.clone();
    v.match_id.clear();
    let game = v.game.take();
    (game, v.encode_to_vec())
}

/// A Watch message as [`Compared`], with the number of actions its view shows.
fn bytes_of(kind: pb::watch_response::Kind) -> (u64, Compared) {
    let mut kind = kind;
    let v = match &mut kind {
        pb::watch_response::Kind::Snapshot(v) => v,
        pb::watch_response::Kind::Event(e) => e.view.as_mut().unwrap(),
    };
    v.match_id.clear();
    let game = v.game.take();
    let mn = v.move_number;
    (
        mn,
        (game, pb::WatchResponse { kind: Some(kind) }.encode_to_vec()),
    )
}

/// Reads a Watch stream until it shows more than `until` actions (or ends).
fn read_until(
    mut stream: tonic::codec::Streaming<pb::WatchResponse>,
    until: u64,
) -> tokio::task::JoinHandle<Vec<(u64, Compared)>> {
    tokio::spawn(async move {
        let mut got = Vec::new();
        while let Some(msg) = stream.next().await {
            let kind = msg.expect("a message").kind.expect("a kind");
            let (mn, b) = bytes_of(kind);
            got.push((mn, b));
            if mn > until {
                break;
            }
        }
        got
    })
}

#[tokio::test]
async fn a_seat_holding_a_delayed_token_learns_nothing_of_the_other_hands_before_the_delay() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    // Two matches, the same so far (same seed, every seat human, nothing played yet).
    let server = TestServer::start(on_postgres(&db)).await;
    let mut c = server.matches().await;
    let a = create(&mut c, 11, &[]).await;
    let b = create(&mut c, 11, &[]).await;
    server.stop().await;

    // In b, two dealt cards of other seats swapped: seat 0 knows the same of both matches.
    let client = db.client().await;
    let row = client
        .query_one("SELECT state, tail FROM matches WHERE id = $1", &[&b.id])
        .await
        .unwrap();
    let (state, tail): (Vec<u8>, Vec<u8>) = (row.get(0), row.get(1));
    assert!(tail.is_empty(), "a new match is a snapshot");
    let record = cardhouse::codec::Record::from_bytes(&state).unwrap();
    let game = cardhouse::new_game(&record.game, &record.options).unwrap();
    let history = record.history.clone();
    let n0 = history.len();
    let mut best: Option<(usize, Vec<u32>)> = None;
    'search: for j in (0..n0).rev() {
        for i in (0..j).rev() {
            if best.as_ref().is_some_and(|(p, _)| *p >= i) {
                continue 'search;
            }
            if let Some(other) = swapped(&game, &history, i, j) {
                best = Some((i, other));
            }
        }
    }
    let (p, other) = best.expect("two cards of other seats to swap");
    let mut changed = record.clone();
    changed.history = other;
    let n = client
        .execute(
            "UPDATE matches SET state = $2, version = version + 1 WHERE id = $1",
            &[&b.id, &changed.to_bytes()],
        )
        .await
        .unwrap();
    assert_eq!(n, 1);

    let server = TestServer::start(on_postgres(&db)).await;
    let mut c = server.matches().await;
    assert_eq!(
        view_bytes(&view(&mut c, &a, &a.seats[0]).await),
        view_bytes(&view(&mut c, &b, &b.seats[0]).await),
        "seat 0 knows the same of both matches"
    );
    let mut differ = 0;
    for s in 1..4 {
        if view(&mut c, &a, &a.seats[s]).await.view != view(&mut c, &b, &b.seats[s]).await.view {
            differ += 1;
        }
    }
    assert_eq!(differ, 2, "two other seats hold other cards");

    // Seat 0's holder gets a delayed token for each, shown `lead` actions before the swap.
    let lead = p.min(12);
    let delay = (n0 - p + lead) as u32;
    let (ta, tb) = (
        issue(&mut c, &a, Some(delay)).await,
        issue(&mut c, &b, Some(delay)).await,
    );
    let watch_a = read_until(common::watch(&mut c, &ta, &a.id).await, p as u64);
    let watch_b = read_until(common::watch(&mut c, &tb, &b.id).await, p as u64);

    // Both matches played on alike (each seat an action legal in both), every reply to the
    // delayed tokens compared while they show at most the first `p` actions.
    let mut same = 0;
    let mut passed = false;
    for _ in 0..40 {
        let (va, vb) = (view(&mut c, &a, &ta).await, view(&mut c, &b, &tb).await);
        if va.move_number <= p as u64 {
            assert_eq!(
                view_bytes(&va),
                view_bytes(&vb),
                "GetView at {} of {p}: the delayed token leaks",
                va.move_number
            );
            same += 1;
        } else {
            assert_ne!(va.view, vb.view, "past the swap the views differ");
            passed = true;
            break;
        }
        let seat = seat_to_act(&mut c, &a).await;
        assert_eq!(seat, seat_to_act(&mut c, &b).await);
        let (sa, sb) = (
            view(&mut c, &a, &a.seats[seat]).await,
            view(&mut c, &b, &b.seats[seat]).await,
        );
        let Some(action) = sa
            .legal_actions
            .iter()
            .map(pb::LegalAction::id)
            .find(|&x| sb.legal_actions.iter().any(|l| l.id() == x))
        else {
            panic!("no action legal in both matches for seat {seat}");
        };
        act(&mut c, &a, seat, action, sa.move_number).await;
        act(&mut c, &b, seat, action, sb.move_number).await;
        assert_eq!(
            view_bytes(&view(&mut c, &a, &a.seats[0]).await),
            view_bytes(&view(&mut c, &b, &b.seats[0]).await),
            "seat 0 still knows the same"
        );
    }
    assert!(passed, "the delay never passed");
    assert_eq!(
        same,
        lead + 1,
        "one GetView an action, from {} to {p}",
        p - lead
    );

    let patience = Duration::from_secs(10);
    let got_a = tokio::time::timeout(patience, watch_a)
        .await
        .unwrap()
        .unwrap();
    let got_b = tokio::time::timeout(patience, watch_b)
        .await
        .unwrap()
        .unwrap();
    let shown = |got: &[(u64, Compared)]| got.iter().filter(|(mn, _)| *mn <= p as u64).count();
    assert_eq!(
        shown(&got_a),
        lead + 1,
        "the snapshot, then an event an action"
    );
    assert_eq!(
        got_a[..lead + 1],
        got_b[..lead + 1],
        "Watch: the delayed token leaks"
    );
    assert_ne!(
        got_a.get(lead + 1),
        got_b.get(lead + 1),
        "the event of the swapped card differs"
    );
    server.stop().await;
}
