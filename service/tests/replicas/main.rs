//! Several `cardhouse serve` replicas sharing one PostgreSQL store (`--store postgres://…`),
//! proved against the real binary on `127.0.0.1:0`: any replica serves any match, a change
//! is one transaction checked against the stored move number, a Watch on one replica sees
//! the moves made through another, a replica killed with SIGKILL loses no acknowledged move,
//! and matches continue exactly after every replica restarted.
//!
//! Each test runs on a fresh database of its own (see `common/postgres.rs`: the server is
//! `CARDHOUSE_TEST_POSTGRES`, default `postgres://postgres@127.0.0.1:5432/postgres`), dropped
//! afterwards. Without a reachable server the tests are skipped with a message, unless
//! `CARDHOUSE_REQUIRE_POSTGRES=1` (as in `scripts/test-all.sh`): then they fail.
//!
//! Expected matches are computed here with the engine, exactly as the server plays chance
//! and bots (seeded from the match seed and the move number), so "the same as one node"
//! means "the same as the engine".
//!
//! The tests: (a) whole matches of every game, each move through the other replica, equal
//! the engine, and no replica ever shows a stale view; (b) concurrent Acts for one turn
//! through two replicas: one wins, the other is ABORTED (and an Act racing a resignation);
//! (c) SIGKILL of one replica under concurrent load: no acknowledged move lost; (d) a Watch
//! on one replica sees the moves made through another, in order and redacted; (e) matches
//! continue exactly after every replica restarted, and the bots of a killed replica are
//! played on by another; (f) limits and error codes as on one node, no token in clear in
//! the database; (g) abandonment and retention across replicas; (h) PostgreSQL dropping
//! every connection, between moves and under load; (i) a paused replica that resumes
//! cannot apply out-of-date work; (j) a Watch of an all-bot match played in the background
//! by another replica gets every action, in order.
//!
//! Every load loop is bounded in count and in time.
//!
//! One test binary, a module per group of tests; the shared clients, the engine's
//! simulation of a match and the gRPC helpers are here.

mod clocks;
#[path = "../common/mod.rs"]
mod common;
mod crashes;
mod limits;
mod outages;
mod play;
mod watch;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cardhouse::bots::{BotKind, IsmctsConfig};
use cardhouse::seeds;
use cardhouse::{Action, AnyState, OptionValue, Player, Rng, SeededRng, Viewer};
use cardhouse_server::convert::{json_to_struct, player_legal_actions, struct_to_json};
use cardhouse_server::pb;
use cardhouse_server::pb::matches_client::MatchesClient;
use common::authed;
use common::postgres::TestDb;
use common::process::Server;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Status};

type Client = MatchesClient<Channel>;

/// IS-MCTS iterations per move of every match created here (few: the tests run in debug).
const ISMCTS_ITERATIONS: u32 = 8;

/// Bound of every wait for another replica (a Watch event, a background bot).
const PATIENCE: Duration = Duration::from_secs(5);
// ---------------------------------------------------------------------------------------------
// Replicas
// ---------------------------------------------------------------------------------------------

/// Starts `n` replicas on `db`, spawned together (so they open an empty database at once),
/// then waits for each one's listening line.
fn replicas(db: &TestDb, n: usize, extra: &[&str]) -> Vec<Server> {
    let mut args = vec!["--store", db.url.as_str()];
    args.extend_from_slice(extra);
    let starting: Vec<_> = (0..n).map(|_| Server::spawn(&args)).collect();
    starting.into_iter().map(|s| s.must_wait()).collect()
}

/// A client with a per-call deadline (a hung replica fails the test instead of hanging it).
async fn client(s: &Server) -> Client {
    let channel = Channel::from_shared(format!("http://{}", s.addr))
        .unwrap()
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(30))
        .connect()
        .await
        .unwrap();
    MatchesClient::new(channel).max_decoding_message_size(64 << 20)
}

/// A client without a call deadline, for Watch streams.
async fn stream_client(s: &Server) -> Client {
    s.matches().await
}

// ---------------------------------------------------------------------------------------------
// The engine's version of a match
// ---------------------------------------------------------------------------------------------

/// A match as the engine plays it: chance and bot seats exactly as the server plays them,
/// and every viewer's move number (seats, then the spectator) as the server counts it.
struct Sim {
    state: AnyState,
    seed: u64,
    bots: Vec<Option<BotKind>>,
    known: Vec<u64>,
    history: Vec<Action>,
}

fn engine_options(options: &[(&str, &str)]) -> cardhouse::Options {
    options
        .iter()
        .map(|(k, v)| ((*k).to_owned(), OptionValue::Str((*v).to_owned())))
        .collect()
}

/// Draws an outcome with the given probabilities, as the server does.
fn sample(outcomes: &[(Action, f64)], rng: &mut SeededRng) -> Action {
    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let mut acc = 0.0;
    for &(a, p) in outcomes {
        acc += p;
        if u < acc {
            return a;
        }
    }
    outcomes.last().expect("a chance outcome").0
}

impl Sim {
    fn new(game: &str, options: &[(&str, &str)], seed: u64, seats: &[pb::SeatKind]) -> Sim {
        let game = cardhouse::new_game(game, &engine_options(options)).unwrap();
        let n = game.num_players();
        assert_eq!(seats.len(), n);
        let mut sim = Sim {
            state: game.new_initial_state(),
            seed,
            bots: seats
                .iter()
                .map(|k| match k {
                    pb::SeatKind::Human => None,
                    pb::SeatKind::RandomBot => Some(BotKind::Random),
                    pb::SeatKind::HeuristicBot => Some(BotKind::Heuristic),
                    pb::SeatKind::IsmctsBot => Some(BotKind::Ismcts(IsmctsConfig {
                        iterations: ISMCTS_ITERATIONS,
                        ..IsmctsConfig::default()
                    })),
                    other => panic!("no engine version of {other:?} here"),
                })
                .collect(),
            known: vec![0; n + 1],
            history: Vec::new(),
        };
        sim.advance();
        sim
    }

    fn apply(&mut self, action: Action) {
        let actor = self.state.current_player();
        let n = self.known.len() - 1;
        for (v, k) in self.known.iter_mut().enumerate() {
            let viewer = if v == n {
                Viewer::Spectator
            } else {
                Viewer::Seat(v)
            };
            if actor == Player::Seat(v) || self.state.action_visible_to(viewer, action) {
                *k += 1;
            }
        }
        self.state.apply(action).unwrap();
        self.history.push(action);
    }

    /// Chance and bots until a human seat is to move or the match ends.
    fn advance(&mut self) {
        loop {
            let mn = self.state.move_number() as u64;
            let action = match self.state.current_player() {
                Player::Terminal => return,
                Player::Chance => {
                    let mut rng = SeededRng::new(seeds::move_chance(self.seed, mn));
                    sample(&self.state.chance_outcomes().unwrap(), &mut rng)
                }
                Player::Seat(s) => {
                    let Some(bot) = &self.bots[s] else { return };
                    let mut rng = SeededRng::new(seeds::move_bot(self.seed, mn));
                    match bot {
                        BotKind::Random => self.state.legal_actions().choose(&mut rng).unwrap(),
                        bot => self
                            .state
                            .bot_action(bot, s, &mut rng, &mut || false)
                            .unwrap(),
                    }
                }
            };
            self.apply(action);
        }
    }

    /// A human seat's action, then chance and bots.
    fn act(&mut self, action: Action) {
        self.apply(action);
        self.advance();
    }

    /// The human seat to move (None once the match is over).
    fn to_move(&self) -> Option<usize> {
        match self.state.current_player() {
            Player::Seat(s) => Some(s),
            _ => None,
        }
    }

    fn spectator(&self) -> usize {
        self.known.len() - 1
    }
}

fn normalized(v: serde_json::Value) -> serde_json::Value {
    struct_to_json(&json_to_struct(v))
}

/// A seat's view (from some replica) is exactly the engine's now: never stale.
fn assert_seat_view(v: &pb::MatchView, sim: &Sim, seat: usize, what: &str) {
    assert_eq!(v.seat, Some(seat as u32), "{what}");
    assert_eq!(v.move_number, sim.known[seat], "{what}: stale move number");
    let over = sim.state.is_terminal();
    let expected_status = if over {
        pb::MatchStatus::Finished
    } else {
        pb::MatchStatus::Active
    };
    assert_eq!(v.status, expected_status as i32, "{what}");
    if sim.to_move() == Some(seat) {
        assert_eq!(v.legal_actions, player_legal_actions(&sim.state), "{what}");
    } else {
        assert!(v.legal_actions.is_empty(), "{what}");
    }
    if let Some(view) = &v.view {
        assert_eq!(
            struct_to_json(view),
            normalized(sim.state.view(Viewer::Seat(seat)).unwrap()),
            "{what}: the structured view"
        );
    }
    assert_eq!(v.returns, sim.state.returns().to_vec(), "{what}");
}

/// A record (from some replica) is exactly the engine's match: same steps, final state,
/// returns and omniscient final view.
fn assert_record(rec: &pb::GetRecordResponse, sim: &Sim, what: &str) {
    let actions: Vec<Action> = rec.steps.iter().map(|s| s.action()).collect();
    assert_eq!(actions, sim.history, "{what}: the record's steps");
    assert!(rec.next_step.is_none(), "{what}: one page");
    assert_eq!(rec.total_steps, sim.history.len() as u64, "{what}");
    assert_eq!(rec.state, sim.state.to_bytes(), "{what}: the final state");
    assert_eq!(rec.returns, sim.state.returns().to_vec(), "{what}");
    assert_eq!(
        struct_to_json(rec.final_view.as_ref().unwrap()),
        normalized(sim.state.view(Viewer::Omniscient).unwrap()),
        "{what}: the final view"
    );
    let replay = cardhouse::state_from_bytes(&rec.state).unwrap();
    assert_eq!(replay.history(), sim.history, "{what}");
}

// ---------------------------------------------------------------------------------------------
// Matches through gRPC
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct M {
    id: String,
    seats: HashMap<usize, String>,
    owner: String,
    spectator: String,
}

impl M {
    fn tokens(&self) -> Vec<String> {
        let mut t: Vec<String> = self.seats.values().cloned().collect();
        t.push(self.owner.clone());
        t.push(self.spectator.clone());
        t
    }
}

async fn try_create(
    c: &mut Client,
    game: &str,
    options: &[(&str, &str)],
    seed: u64,
    seats: &[pb::SeatKind],
) -> Result<M, Status> {
    let r = c
        .create_match(pb::CreateMatchRequest {
            game: game.into(),
            options: common::opts(options),
            seed: Some(seed),
            seats: seats.iter().map(|&k| k as i32).collect(),
            ismcts_iterations: Some(ISMCTS_ITERATIONS),
            bots: Default::default(),
            time_control: None,
        })
        .await?
        .into_inner();
    assert_eq!(r.seed, seed);
    Ok(M {
        id: r.match_id,
        seats: r
            .seat_tokens
            .into_iter()
            .map(|t| (t.seat() as usize, t.token))
            .collect(),
        owner: r.owner_token,
        spectator: r.spectator_token,
    })
}

async fn create(
    c: &mut Client,
    game: &str,
    options: &[(&str, &str)],
    seed: u64,
    seats: &[pb::SeatKind],
) -> M {
    try_create(c, game, options, seed, seats)
        .await
        .unwrap_or_else(|s| panic!("create {game}: {s:?}"))
}

async fn try_view(c: &mut Client, m: &M, token: &str) -> Result<pb::MatchView, Status> {
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

async fn view(c: &mut Client, m: &M, token: &str) -> pb::MatchView {
    try_view(c, m, token)
        .await
        .unwrap_or_else(|s| panic!("GetView: {s:?}"))
}

async fn act(
    c: &mut Client,
    m: &M,
    seat: usize,
    action: Action,
    expected: u64,
) -> Result<pb::MatchView, Status> {
    c.act(authed(
        &m.seats[&seat],
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

async fn try_record(c: &mut Client, m: &M) -> Result<pb::GetRecordResponse, Status> {
    Ok(c.get_record(authed(
        &m.owner,
        pb::GetRecordRequest {
            match_id: m.id.clone(),
            ..Default::default()
        },
    ))
    .await?
    .into_inner())
}

/// The record of a match that ends in the background: polled, at most [`PATIENCE`] times 4.
async fn record_when_over(c: &mut Client, m: &M) -> pb::GetRecordResponse {
    let deadline = Instant::now() + PATIENCE * 4;
    loop {
        match try_record(c, m).await {
            Ok(r) => return r,
            Err(s) if s.code() == Code::FailedPrecondition && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(s) => panic!("GetRecord: {s:?}"),
        }
    }
}

/// Plays `m` (its engine version `sim`) with seeded random choices for at most `max_moves`
/// human moves, each Act through the replica after the previous one's (`clients` in
/// turn), and checks the other replicas never show a stale view: before each move the
/// seat to move fetches its view from the next replica, after it the same seat's view from
/// there must already count the move. Returns the moves made.
async fn play(
    clients: &mut [Client],
    m: &M,
    sim: &mut Sim,
    rng: &mut SeededRng,
    max_moves: usize,
    deadline: Instant,
) -> usize {
    let n = clients.len();
    let mut moves = 0;
    while moves < max_moves {
        let Some(seat) = sim.to_move() else { break };
        assert!(Instant::now() < deadline, "out of time after {moves} moves");
        let (by, other) = (moves % n, (moves + 1) % n);
        let token = &m.seats[&seat];
        let v = view(&mut clients[other], m, token).await;
        assert_seat_view(
            &v,
            sim,
            seat,
            &format!("move {moves}, before, replica {other}"),
        );
        let a = v.legal_actions[rng.below(v.legal_actions.len() as u64) as usize].id();
        let after = act(&mut clients[by], m, seat, a, v.move_number)
            .await
            .unwrap_or_else(|s| panic!("move {moves} through replica {by}: {s:?}"));
        sim.act(a);
        assert_eq!(after.move_number, sim.known[seat], "move {moves}: the ack");
        let again = view(&mut clients[other], m, token).await;
        assert_seat_view(
            &again,
            sim,
            seat,
            &format!("move {moves}, after, replica {other}"),
        );
        moves += 1;
    }
    moves
}

const HUMAN: pb::SeatKind = pb::SeatKind::Human;

// ---------------------------------------------------------------------------------------------
// Shared by the crash, watch and outage tests
// ---------------------------------------------------------------------------------------------

/// Per match: the last acknowledged move number of seat 0, and whether its client's last
/// request failed (its outcome unknown).
#[derive(Clone, Copy, Debug, Default)]
struct Acked {
    move_number: u64,
    unknown: bool,
}

/// Reads `stream` until an event whose view has move number `target` (or the end), within
/// [`PATIENCE`]. Returns the events read and whether the stream ended.
async fn events_until(
    stream: &mut tonic::Streaming<pb::WatchResponse>,
    target: u64,
    out: &mut Vec<pb::MatchEvent>,
) -> Duration {
    let t = Instant::now();
    if out
        .last()
        .is_some_and(|e| e.view.as_ref().unwrap().move_number >= target)
    {
        return Duration::ZERO;
    }
    loop {
        let left = PATIENCE.saturating_sub(t.elapsed());
        let msg = tokio::time::timeout(left, stream.next())
            .await
            .unwrap_or_else(|_| panic!("no event with move number {target} within {PATIENCE:?}"))
            .unwrap_or_else(|| panic!("the stream ended before move number {target}"))
            .unwrap_or_else(|s| panic!("the stream failed: {s:?}"));
        match msg.kind.unwrap() {
            pb::watch_response::Kind::Event(e) => {
                let mn = e.view.as_ref().unwrap().move_number;
                out.push(e);
                if mn >= target {
                    return t.elapsed();
                }
            }
            pb::watch_response::Kind::Snapshot(_) => panic!("one snapshot only"),
        }
    }
}

/// The URL of a test database keeps the server's address and options.
#[test]
fn test_database_urls_name_the_test_database() {
    use common::postgres::with_database;
    assert_eq!(
        with_database("postgres://postgres@127.0.0.1:5432/postgres", "x"),
        "postgres://postgres@127.0.0.1:5432/x"
    );
    assert_eq!(
        with_database("postgres://u:p@h/db?sslmode=disable", "x"),
        "postgres://u:p@h/x?sslmode=disable"
    );
    assert_eq!(
        with_database("postgres://h:5432", "x"),
        "postgres://h:5432/x"
    );
}
