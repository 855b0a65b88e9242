//! PostgreSQL rows edited to impossible states, against two real `cardhouse serve` replicas
//! on one database: every request for the damaged match is `DATA_LOSS` (never a panic,
//! never `INTERNAL` or `CANCELLED`), the replicas log the table and row, keep serving every
//! other match, and stop promptly on SIGTERM.
//!
//! Each test runs on a fresh database of its own (see `common/postgres.rs`); without a
//! reachable PostgreSQL the tests are skipped with a message, unless
//! `CARDHOUSE_REQUIRE_POSTGRES=1`. Every wait is bounded.

mod common;

use std::time::{Duration, Instant};

use cardhouse_server::auth::hash_token;
use cardhouse_server::pb;
use cardhouse_server::pb::matches_client::MatchesClient;
use cardhouse_server::store::StoredMatch;
use common::postgres::TestDb;
use common::process::Server;
use common::{assert_data_loss, authed};
use tonic::Status;
use tonic::transport::Channel;

type Client = MatchesClient<Channel>;

/// Starts `n` replicas on `db` together, then waits for each one's listening line.
fn replicas(db: &TestDb, n: usize) -> Vec<Server> {
    let starting: Vec<_> = (0..n)
        .map(|_| Server::spawn(&["--store", db.url.as_str()]))
        .collect();
    starting.into_iter().map(|s| s.must_wait()).collect()
}

/// A client whose every call has a deadline (a hung replica fails the test, not hangs it).
async fn client(s: &Server) -> Client {
    let channel = Channel::from_shared(format!("http://{}", s.addr))
        .unwrap()
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(10))
        .connect()
        .await
        .unwrap();
    MatchesClient::new(channel)
}

/// A created match: its id, seat 0's token and the owner's.
struct M {
    id: String,
    token: String,
    owner: String,
}

async fn create(c: &mut Client, game: &str, seats: &[pb::SeatKind], iterations: Option<u32>) -> M {
    let r = c
        .create_match(pb::CreateMatchRequest {
            game: game.into(),
            options: Default::default(),
            seed: Some(5),
            seats: seats.iter().map(|&k| k as i32).collect(),
            ismcts_iterations: iterations,
            bots: Default::default(),
            time_control: None,
        })
        .await
        .unwrap_or_else(|s| panic!("create {game}: {s:?}"))
        .into_inner();
    M {
        id: r.match_id,
        token: r.seat_tokens[0].token.clone(),
        owner: r.owner_token,
    }
}

async fn view(c: &mut Client, m: &M) -> Result<pb::MatchView, Status> {
    Ok(c.get_view(authed(
        &m.token,
        pb::GetViewRequest {
            match_id: m.id.clone(),
        },
    ))
    .await?
    .into_inner()
    .view
    .expect("a view"))
}

/// Seat 0's first legal action, at its move number.
async fn act(c: &mut Client, m: &M, v: &pb::MatchView) -> Result<pb::MatchView, Status> {
    c.act(authed(
        &m.token,
        pb::ActRequest {
            match_id: m.id.clone(),
            action: Some(pb::act_request::Action::ActionId(v.legal_actions[0].id())),
            expected_move_number: Some(v.move_number),
            include_view: false,
        },
    ))
    .await
    .map(|r| r.into_inner().view.expect("a view"))
}

/// Seat 0's first legal action and its move number, as `assert_data_loss` takes them.
async fn next_move(c: &mut Client, m: &M) -> (u32, u64) {
    let v = view(c, m).await.expect("a view");
    (
        v.legal_actions.first().map_or(0, pb::LegalAction::id),
        v.move_number,
    )
}

/// The stored row of match `id`: its header (decoded) and its whole state bytes (the
/// row's `state` with the actions of its `tail` appended, 4 bytes each).
async fn read_row(db: &TestDb, id: &str) -> (StoredMatch, Vec<u8>) {
    let client = db.client().await;
    let row = client
        .query_one(
            "SELECT header, state, tail FROM matches WHERE id = $1",
            &[&id],
        )
        .await
        .expect("the row");
    let header: Vec<u8> = row.get(0);
    let state: Vec<u8> = row.get(1);
    let tail: Vec<u8> = row.get(2);
    let mut record = cardhouse::codec::Record::from_bytes(&state).expect("a stored state");
    record.history.extend(
        tail.chunks_exact(4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]])),
    );
    (
        prost::Message::decode(header.as_slice()).expect("a header"),
        record.to_bytes(),
    )
}

/// Overwrites the header and state of match `id` (its tail emptied; with `stalled`, its bots
/// marked to move and untouched since 1970), bumping its version so that every replica reads
/// it again.
async fn write_row(db: &TestDb, id: &str, header: &[u8], state: &[u8], stalled: bool) {
    let client = db.client().await;
    let n = client
        .execute(
            "UPDATE matches SET header = $2, state = $3, tail = '', version = version + 1, \
             driving = driving OR $4, touched_ms = CASE WHEN $4 THEN 0 ELSE touched_ms END \
             WHERE id = $1",
            &[&id, &header, &state, &stalled],
        )
        .await
        .expect("edit the row");
    assert_eq!(n, 1);
}

/// The replica's log names the match, the table and what is wrong.
fn assert_logged(s: &Server, m: &M, what: &str) {
    let log = s.stderr();
    assert!(
        log.lines()
            .any(|l| l.contains(&m.id) && l.contains("table matches") && l.contains(what)),
        "the log should name match {}, the table and {what:?}:\n{log}",
        m.id
    );
}

/// A healthy match still plays through both replicas: a move through each.
async fn still_served(clients: &mut [Client], healthy: &M) {
    for (i, c) in clients.iter_mut().enumerate() {
        let v = view(c, healthy)
            .await
            .unwrap_or_else(|s| panic!("replica {i}: {s:?}"));
        act(c, healthy, &v)
            .await
            .unwrap_or_else(|s| panic!("replica {i}: {s:?}"));
    }
}

/// SIGTERM stops every replica promptly and cleanly.
fn stop_promptly(servers: Vec<Server>) {
    for s in servers {
        let (status, took) = s.term();
        assert!(status.success(), "{status:?}");
        assert!(took < Duration::from_secs(5), "SIGTERM took {took:?}");
    }
}

/// The length of the longest prefix of `record`'s history after which `seat` is to move.
fn last_turn_of(record: &cardhouse::codec::Record, seat: usize) -> Option<usize> {
    let game = cardhouse::new_game(&record.game, &record.options).expect("the game");
    let mut state = game.new_initial_state();
    let mut last = None;
    for (i, &a) in record.history.iter().enumerate() {
        if state.current_player() == cardhouse::Player::Seat(seat) {
            last = Some(i);
        }
        state.apply(a).expect("the stored history replays");
    }
    if state.current_player() == cardhouse::Player::Seat(seat) {
        last = Some(record.history.len());
    }
    last
}

const HUMAN: pb::SeatKind = pb::SeatKind::Human;
const RANDOM: pb::SeatKind = pb::SeatKind::RandomBot;

/// A 2-player Klaberjass row edited to a 4-seat header (this panicked in GetView and Act).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_four_seat_header_on_a_two_player_game_is_data_loss() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2);
    let mut clients = vec![client(&servers[0]).await, client(&servers[1]).await];
    let bad = create(&mut clients[0], "klaberjass", &[HUMAN, RANDOM], None).await;
    let healthy = create(
        &mut clients[1],
        "jass",
        &[HUMAN, RANDOM, RANDOM, RANDOM],
        None,
    )
    .await;
    // Replica 0 (its creator) holds the match in its cache, replica 1 reads it after the
    // edit for the first time.
    let move_ = next_move(&mut clients[0], &bad).await;
    let (mut header, state) = read_row(&db, &bad.id).await;
    header.seats.extend([HUMAN as i32, RANDOM as i32]);
    header
        .seat_tokens
        .extend([hash_token("a third seat"), String::new()]);
    write_row(
        &db,
        &bad.id,
        &prost::Message::encode_to_vec(&header),
        &state,
        false,
    )
    .await;
    for (i, c) in clients.iter_mut().enumerate().rev() {
        assert_data_loss(
            c,
            &bad.id,
            &bad.token,
            &bad.owner,
            move_,
            &format!("replica {i}"),
        )
        .await;
    }
    for s in &servers {
        assert_logged(s, &bad, "4 seats");
    }
    still_served(&mut clients, &healthy).await;
    stop_promptly(servers);
}

/// A header that does not decode, and a state whose history does not replay.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undecodable_header_and_a_state_that_does_not_replay_are_data_loss() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2);
    let mut clients = vec![client(&servers[0]).await, client(&servers[1]).await];
    let garbled = create(&mut clients[0], "klaberjass", &[HUMAN, RANDOM], None).await;
    let unplayable = create(
        &mut clients[0],
        "jass",
        &[HUMAN, RANDOM, RANDOM, RANDOM],
        None,
    )
    .await;
    let healthy = create(&mut clients[1], "klaberjass", &[HUMAN, RANDOM], None).await;
    let garbled_move = next_move(&mut clients[0], &garbled).await;
    let unplayable_move = next_move(&mut clients[0], &unplayable).await;
    let (_, state) = read_row(&db, &garbled.id).await;
    write_row(&db, &garbled.id, &[0xff, 0xff, 0xff, 0x07], &state, false).await;
    let (header, state) = read_row(&db, &unplayable.id).await;
    let mut record = cardhouse::codec::Record::from_bytes(&state).expect("a state");
    // An action no Jass state accepts.
    record.history.push(9_999);
    write_row(
        &db,
        &unplayable.id,
        &prost::Message::encode_to_vec(&header),
        &record.to_bytes(),
        false,
    )
    .await;
    for (i, c) in clients.iter_mut().enumerate() {
        let what = format!("replica {i}, garbled header");
        assert_data_loss(
            c,
            &garbled.id,
            &garbled.token,
            &garbled.owner,
            garbled_move,
            &what,
        )
        .await;
        let what = format!("replica {i}, unplayable state");
        assert_data_loss(
            c,
            &unplayable.id,
            &unplayable.token,
            &unplayable.owner,
            unplayable_move,
            &what,
        )
        .await;
    }
    assert_logged(&servers[0], &garbled, "header does not decode");
    assert_logged(&servers[1], &unplayable, "state");
    still_served(&mut clients, &healthy).await;
    stop_promptly(servers);
}

/// A match whose IS-MCTS bot is to move, edited to 4,000,000,000 iterations a move and
/// marked as stalled (no replica playing it): no replica takes its bots up; its requests
/// are DATA_LOSS at once; SIGTERM stops both replicas promptly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_billion_iterations_marked_driving_are_data_loss_and_never_played() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2);
    let mut clients = vec![client(&servers[0]).await, client(&servers[1]).await];
    let ismcts = pb::SeatKind::IsmctsBot;
    let bad = create(&mut clients[0], "klaberjass", &[HUMAN, ismcts], Some(8)).await;
    let healthy = create(&mut clients[1], "klaberjass", &[HUMAN, RANDOM], None).await;
    let (mut header, state) = read_row(&db, &bad.id).await;
    // The history cut back to the last point where the bot (seat 1) was to move.
    let mut record = cardhouse::codec::Record::from_bytes(&state).expect("a state");
    let cut = match last_turn_of(&record, 1) {
        Some(i) => i,
        None => {
            // The bot has not been to move yet: once seat 0 moved, it is.
            let v = view(&mut clients[0], &bad).await.expect("a view");
            act(&mut clients[0], &bad, &v).await.expect("a move");
            let (_, state) = read_row(&db, &bad.id).await;
            record = cardhouse::codec::Record::from_bytes(&state).expect("a state");
            last_turn_of(&record, 1).expect("the bot's turn came")
        }
    };
    record.history.truncate(cut);
    let move_ = next_move(&mut clients[0], &bad).await;
    header.ismcts_iterations = 4_000_000_000;
    write_row(
        &db,
        &bad.id,
        &prost::Message::encode_to_vec(&header),
        &record.to_bytes(),
        true,
    )
    .await;
    // The stalled-bots poll runs every second on each replica: give it a few rounds.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let t = Instant::now();
    for (i, c) in clients.iter_mut().enumerate() {
        assert_data_loss(
            c,
            &bad.id,
            &bad.token,
            &bad.owner,
            move_,
            &format!("replica {i}"),
        )
        .await;
    }
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "the answers took {:?}",
        t.elapsed()
    );
    for s in &servers {
        assert_logged(s, &bad, "ismcts_iterations");
        assert!(
            !s.stderr().contains("playing on the bots of a match"),
            "a replica took the damaged match's bots up:\n{}",
            s.stderr()
        );
    }
    still_served(&mut clients, &healthy).await;
    stop_promptly(servers);
}
