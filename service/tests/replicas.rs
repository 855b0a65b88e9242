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

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cardhouse::bots::{BotKind, IsmctsConfig};
use cardhouse::{Action, AnyState, OptionValue, Player, Rng, SeededRng, Viewer};
use cardhouse_server::convert::{json_to_struct, player_legal_actions, struct_to_json};
use cardhouse_server::engine_service::mix;
use cardhouse_server::pb;
use cardhouse_server::pb::matches_client::MatchesClient;
use common::authed;
use common::postgres::TestDb;
use common::process::Server;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Status};

type Client = MatchesClient<Channel>;

/// Salt of bot choices, as in `service/src/matches/bots.rs` (fixed: stored matches depend on it).
const BOT_SALT: u64 = 0xB07B_07B0_7B07_B07B;

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
                    let mut rng = SeededRng::new(mix(self.seed, mn));
                    sample(&self.state.chance_outcomes().unwrap(), &mut rng)
                }
                Player::Seat(s) => {
                    let Some(bot) = &self.bots[s] else { return };
                    let mut rng = SeededRng::new(mix(self.seed ^ BOT_SALT, mn));
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
            expected_move_number: expected,
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
// a. Whole matches of every game, alternating replicas
// ---------------------------------------------------------------------------------------------

/// Short whole matches of every registered game (Cribbage with 2, 3 and 4 players).
const GAMES: &[(&str, &[(&str, &str)])] = &[
    ("jass", &[("target_score", "400")]),
    ("klaberjass", &[("target_score", "120")]),
    ("cribbage", &[("players", "2"), ("target_score", "31")]),
    ("cribbage", &[("players", "3"), ("target_score", "31")]),
    ("cribbage", &[("players", "4"), ("target_score", "31")]),
    ("avinas", &[("pip_limit", "2")]),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whole_matches_of_every_game_through_alternating_replicas_equal_the_engine() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2, &[]);
    let mut clients = vec![client(&servers[0]).await, client(&servers[1]).await];
    // Every registered game is covered.
    for name in cardhouse::GAME_NAMES {
        assert!(GAMES.iter().any(|(g, _)| g == name), "{name} is not played");
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut total = 0;
    for (i, (game, options)) in GAMES.iter().enumerate() {
        let seed = 1000 + i as u64;
        let n = cardhouse::new_game(game, &engine_options(options))
            .unwrap()
            .num_players();
        let seats = vec![HUMAN; n];
        let m = create(&mut clients[i % 2], game, options, seed, &seats).await;
        let mut sim = Sim::new(game, options, seed, &seats);
        let moves = play(
            &mut clients,
            &m,
            &mut sim,
            &mut SeededRng::new(seed),
            2_000,
            deadline,
        )
        .await;
        assert!(
            sim.state.is_terminal(),
            "{game}: not over after {moves} moves"
        );
        total += moves;
        // The record, through either replica, is the engine's match.
        let ra = try_record(&mut clients[0], &m).await.unwrap();
        let rb = try_record(&mut clients[1], &m).await.unwrap();
        assert_eq!(ra.status, pb::MatchStatus::Finished as i32);
        assert_record(&ra, &sim, &format!("{game} {options:?} via A"));
        assert_eq!(ra, rb, "{game}: the replicas' records differ");
        // Every seat's final view, through either replica.
        for (seat, token) in &m.seats {
            for c in clients.iter_mut() {
                assert_seat_view(&view(c, &m, token).await, &sim, *seat, "final");
            }
        }
        for c in clients.iter_mut() {
            let v = view(c, &m, &m.spectator).await;
            assert_eq!(
                v.move_number,
                sim.known[sim.spectator()],
                "{game}: spectator"
            );
        }
        // Ended is ended through either replica: no resignation or abort afterwards.
        for c in clients.iter_mut() {
            let err = c
                .resign(authed(
                    &m.owner,
                    pb::ResignRequest {
                        match_id: m.id.clone(),
                        seat: Some(0),
                    },
                ))
                .await
                .unwrap_err();
            assert_eq!(err.code(), Code::FailedPrecondition, "{game}: {err:?}");
            let err = c
                .abort_match(authed(
                    &m.owner,
                    pb::AbortMatchRequest {
                        match_id: m.id.clone(),
                    },
                ))
                .await
                .unwrap_err();
            assert_eq!(err.code(), Code::FailedPrecondition, "{game}: {err:?}");
        }
        assert_eq!(try_record(&mut clients[1], &m).await.unwrap(), ra);
    }
    eprintln!("whole matches: {total} human moves through alternating replicas");
}

// ---------------------------------------------------------------------------------------------
// b. Concurrent Acts through different replicas
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_acts_for_one_turn_through_two_replicas_one_wins_one_is_aborted() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2, &[]);
    let (mut a, mut b) = (client(&servers[0]).await, client(&servers[1]).await);
    let options = [("target_score", "1000")];
    let m = create(&mut a, "jass", &options, 31, &[HUMAN; 4]).await;
    let mut sim = Sim::new("jass", &options, 31, &[HUMAN; 4]);
    let mut rng = SeededRng::new(5);
    let (mut wins_a, mut wins_b) = (0, 0);
    // Bounded: 30 rounds.
    for round in 0..30 {
        let seat = sim.to_move().expect("a long match");
        // Alternate which replica the state is read from (and so which one is warm).
        let v = if round % 2 == 0 {
            view(&mut a, &m, &m.seats[&seat]).await
        } else {
            view(&mut b, &m, &m.seats[&seat]).await
        };
        assert_seat_view(&v, &sim, seat, &format!("round {round}"));
        let legal = &v.legal_actions;
        let x = legal[rng.below(legal.len() as u64) as usize].id();
        let y = legal[rng.below(legal.len() as u64) as usize].id();
        let (ra, rb) = tokio::join!(
            act(&mut a, &m, seat, x, v.move_number),
            act(&mut b, &m, seat, y, v.move_number)
        );
        let won = match (&ra, &rb) {
            (Ok(_), Err(e)) => {
                assert_eq!(e.code(), Code::Aborted, "round {round}, loser B: {e:?}");
                wins_a += 1;
                x
            }
            (Err(e), Ok(_)) => {
                assert_eq!(e.code(), Code::Aborted, "round {round}, loser A: {e:?}");
                wins_b += 1;
                y
            }
            _ => panic!("round {round}: exactly one must succeed: {ra:?} / {rb:?}"),
        };
        sim.act(won);
        let acked = ra.as_ref().or(rb.as_ref()).unwrap();
        assert_eq!(acked.move_number, sim.known[seat], "round {round}");
        // Both replicas agree on the winner.
        for c in [&mut a, &mut b] {
            let v = view(c, &m, &m.seats[&seat]).await;
            assert_seat_view(&v, &sim, seat, &format!("round {round}, after"));
        }
    }
    eprintln!("concurrent acts: A won {wins_a}, B won {wins_b} of 30");
    // The loser applied nothing: the record holds the winners' moves only.
    b.abort_match(authed(
        &m.owner,
        pb::AbortMatchRequest {
            match_id: m.id.clone(),
        },
    ))
    .await
    .unwrap();
    let rec = try_record(&mut a, &m).await.unwrap();
    assert_eq!(rec.status, pb::MatchStatus::Aborted as i32);
    let actions: Vec<Action> = rec.steps.iter().map(|s| s.action()).collect();
    assert_eq!(actions, sim.history);

    // An Act racing a resignation through the other replica (10 fresh matches, the replicas
    // swapping roles): the resignation always succeeds; the Act either came first (its move is in the record) or fails
    // having applied nothing.
    let (mut acts_first, mut resigns_first) = (0, 0);
    for round in 0..10u64 {
        let m = create(&mut a, "jass", &options, 200 + round, &[HUMAN; 4]).await;
        let mut sim = Sim::new("jass", &options, 200 + round, &[HUMAN; 4]);
        let seat = sim.to_move().unwrap();
        let (resigner, actor) = if round % 2 == 0 {
            (&mut a, &mut b)
        } else {
            (&mut b, &mut a)
        };
        let v = view(actor, &m, &m.seats[&seat]).await;
        let x = v.legal_actions[0].id();
        let (resigned, acted) = tokio::join!(
            resigner.resign(authed(
                &m.owner,
                pb::ResignRequest {
                    match_id: m.id.clone(),
                    seat: Some(((seat + 1) % 4) as u32),
                },
            )),
            act(actor, &m, seat, x, v.move_number)
        );
        let resigned = resigned
            .unwrap_or_else(|s| panic!("round {round}: the resignation failed: {s:?}"))
            .into_inner()
            .view
            .unwrap();
        assert_eq!(resigned.status, pb::MatchStatus::Resigned as i32);
        match acted {
            Ok(_) => {
                acts_first += 1;
                sim.act(x);
            }
            Err(s) => {
                assert!(
                    matches!(s.code(), Code::FailedPrecondition | Code::Aborted),
                    "round {round}: {s:?}"
                );
                resigns_first += 1;
            }
        }
        for c in [&mut a, &mut b] {
            let rec = try_record(c, &m).await.unwrap();
            assert_eq!(
                rec.status,
                pb::MatchStatus::Resigned as i32,
                "round {round}"
            );
            let actions: Vec<Action> = rec.steps.iter().map(|s| s.action()).collect();
            assert_eq!(actions, sim.history, "round {round}");
        }
    }
    eprintln!(
        "act against resignation: the act first {acts_first}, the resignation first {resigns_first}"
    );
}

// ---------------------------------------------------------------------------------------------
// c. SIGKILL of one replica under concurrent load
// ---------------------------------------------------------------------------------------------

/// Per match: the last acknowledged move number of seat 0, and whether its client's last
/// request failed (its outcome unknown).
#[derive(Clone, Copy, Debug, Default)]
struct Acked {
    move_number: u64,
    unknown: bool,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_of_one_replica_under_load_loses_no_acknowledged_move() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let mut servers = replicas(&db, 2, &[]);
    let survivor = servers.pop().unwrap();
    let victim = servers.pop().unwrap();
    let seats = [
        HUMAN,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
    ];
    let clients_n = 6;
    let mut games = Vec::new();
    for i in 0..clients_n {
        let mut c = if i % 2 == 0 {
            client(&victim).await
        } else {
            client(&survivor).await
        };
        games.push(create(&mut c, "jass", &[("wys", "auto")], 500 + i, &seats).await);
    }
    let acked = Arc::new(Mutex::new(vec![Acked::default(); games.len()]));
    let start = Instant::now();
    let stop_at = start + Duration::from_secs(3);
    let killed_at = Arc::new(Mutex::new(None::<Instant>));
    let mut tasks = Vec::new();
    for (i, g) in games.iter().cloned().enumerate() {
        let acked = Arc::clone(&acked);
        let killed_at = Arc::clone(&killed_at);
        let mut on_victim = client(&victim).await;
        let mut on_survivor = client(&survivor).await;
        tasks.push(tokio::spawn(async move {
            let token = g.seats[&0].clone();
            let (mut acks, mut after_kill) = (0u64, 0u64);
            let mut victim_dead = false;
            let mut in_doubt_landed = false;
            // Bounded: 10,000 steps or the time limit.
            for step in 0..10_000usize {
                if Instant::now() >= stop_at {
                    break;
                }
                let through_victim = !victim_dead && step % 2 == 0;
                let c = if through_victim {
                    &mut on_victim
                } else {
                    &mut on_survivor
                };
                let v = match try_view(c, &g, &token).await {
                    Ok(v) => v,
                    Err(_) if through_victim => {
                        victim_dead = true;
                        continue;
                    }
                    Err(e) => panic!("match {i}: the survivor failed a GetView: {e:?}"),
                };
                if v.status != pb::MatchStatus::Active as i32 {
                    break;
                }
                let pick = v.legal_actions[step % v.legal_actions.len()].id();
                let r = c
                    .act(authed(
                        &token,
                        pb::ActRequest {
                            match_id: g.id.clone(),
                            action: Some(pb::act_request::Action::ActionId(pick)),
                            expected_move_number: v.move_number,
                            include_view: false,
                        },
                    ))
                    .await;
                match r {
                    Ok(r) => {
                        let mn = r.into_inner().view.unwrap().move_number;
                        let mut a = acked.lock().unwrap();
                        assert!(mn > a[i].move_number || a[i].unknown, "match {i}");
                        a[i] = Acked {
                            move_number: mn,
                            unknown: false,
                        };
                        acks += 1;
                        if killed_at.lock().unwrap().is_some() && !through_victim {
                            after_kill += 1;
                        }
                    }
                    Err(_) if through_victim => {
                        // Its outcome is unknown; the survivor tells.
                        victim_dead = true;
                        acked.lock().unwrap()[i].unknown = true;
                    }
                    // The victim's last Act (its outcome unknown to this client) may have
                    // been committed by PostgreSQL after the survivor was read: the move
                    // number read is then stale, and nothing is applied. Read again.
                    Err(e)
                        if e.code() == Code::Aborted
                            && acked.lock().unwrap()[i].unknown
                            && !in_doubt_landed =>
                    {
                        in_doubt_landed = true;
                        eprintln!("match {i}: the in-doubt move landed after a read: {e:?}");
                    }
                    Err(e) => panic!("match {i}: the survivor failed an Act: {e:?}"),
                }
            }
            (acks, after_kill)
        }));
    }
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let pid = victim.child.id();
    victim.kill9();
    *killed_at.lock().unwrap() = Some(Instant::now());
    eprintln!("killed replica (pid {pid}) after {:?}", start.elapsed());
    let (mut total, mut after_kill) = (0, 0);
    for t in tasks {
        let (n, k) = t.await.unwrap();
        total += n;
        after_kill += k;
    }
    let acked = acked.lock().unwrap().clone();

    // Every acknowledged move is there: on the survivor, on a restarted victim, and on two
    // fresh replicas after the survivor was killed too.
    let mut lost = 0;
    let mut check = |c_views: &[pb::MatchView], when: &str| {
        for (i, v) in c_views.iter().enumerate() {
            let a = acked[i];
            if v.move_number < a.move_number {
                lost += 1;
                eprintln!(
                    "{when}: match {i} lost moves: at {}, acknowledged {}",
                    v.move_number, a.move_number
                );
            } else if !a.unknown && v.status == pb::MatchStatus::Active as i32 {
                assert_eq!(
                    v.move_number, a.move_number,
                    "{when}, match {i}: a move nobody was told of"
                );
            }
        }
    };
    let mut c = client(&survivor).await;
    let mut on_survivor = Vec::new();
    for g in &games {
        on_survivor.push(view(&mut c, g, &g.seats[&0]).await);
    }
    check(&on_survivor, "on the survivor");
    let restarted = replicas(&db, 1, &[]).pop().unwrap();
    let mut c = client(&restarted).await;
    for (g, before) in games.iter().zip(&on_survivor) {
        assert_eq!(&view(&mut c, g, &g.seats[&0]).await, before, "restarted");
    }
    survivor.kill9();
    restarted.kill9();
    let fresh = replicas(&db, 2, &[]);
    for s in &fresh {
        let mut c = client(s).await;
        for (g, before) in games.iter().zip(&on_survivor) {
            assert_eq!(
                &view(&mut c, g, &g.seats[&0]).await,
                before,
                "all restarted"
            );
        }
    }
    eprintln!(
        "acknowledged moves: {total} ({after_kill} through the survivor after the kill), lost: {lost}"
    );
    assert!(total > 0, "the load made no moves");
    assert!(after_kill > 0, "the survivor did not carry on");
    assert_eq!(lost, 0);
}

// ---------------------------------------------------------------------------------------------
// d. Watch on one replica, moves through another
// ---------------------------------------------------------------------------------------------

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_on_one_replica_sees_the_moves_made_through_another_redacted() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2, &[]);
    let (watched, played) = (&servers[0], &servers[1]);
    let (mut a, mut b) = (client(watched).await, client(played).await);
    let seats = [
        HUMAN,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
    ];
    let options = [("target_score", "1000")];
    let m = create(&mut b, "jass", &options, 21, &seats).await;
    let mut sim = Sim::new("jass", &options, 21, &seats);
    let start = view(&mut b, &m, &m.seats[&0]).await;
    assert_seat_view(&start, &sim, 0, "start");
    let mut w = stream_client(watched).await;
    let mut seat_stream = common::watch(&mut w, &m.seats[&0], &m.id).await;
    let mut spectator_stream = common::watch(&mut w, &m.spectator, &m.id).await;
    let first = tokio::time::timeout(PATIENCE, seat_stream.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    // The snapshot on A is the view B gave: no stale snapshot.
    assert_eq!(
        first.kind,
        Some(pb::watch_response::Kind::Snapshot(start.clone()))
    );
    // The spectator's stream is read all along, in a task of its own (bounded in time).
    let spectator_events = tokio::spawn(async move {
        let mut events = Vec::new();
        let mut snapshots = 0;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, spectator_stream.next()).await {
                Ok(Some(Ok(msg))) => match msg.kind.unwrap() {
                    pb::watch_response::Kind::Event(e) => {
                        assert_eq!(snapshots, 1, "the snapshot comes first");
                        events.push(e);
                    }
                    pb::watch_response::Kind::Snapshot(_) => {
                        snapshots += 1;
                        assert_eq!(snapshots, 1, "one snapshot only");
                    }
                },
                Ok(Some(Err(s))) => panic!("the spectator stream failed: {s:?}"),
                Ok(None) => return events,
                Err(_) => panic!("the spectator stream did not end"),
            }
        }
    });

    // Play through B; after each Act, A's seat stream must deliver it within PATIENCE.
    let mut rng = SeededRng::new(2);
    let mut seat_events = Vec::new();
    let mut worst = Duration::ZERO;
    let mut moves = 0;
    // Bounded: 1,000 moves.
    while let Some(seat) = sim.to_move() {
        assert!(moves < 1000);
        assert_eq!(seat, 0);
        let v = view(&mut b, &m, &m.seats[&0]).await;
        let a_id = v.legal_actions[rng.below(v.legal_actions.len() as u64) as usize].id();
        let after = act(&mut b, &m, 0, a_id, v.move_number).await.unwrap();
        sim.act(a_id);
        assert_eq!(after.move_number, sim.known[0]);
        worst =
            worst.max(events_until(&mut seat_stream, after.move_number, &mut seat_events).await);
        moves += 1;
    }
    // The seat's stream ends with the match.
    let end = tokio::time::timeout(PATIENCE, seat_stream.next())
        .await
        .expect("the seat stream ends with the match");
    assert!(end.is_none(), "after the end: {end:?}");
    let spectator_events = spectator_events.await.unwrap();
    eprintln!(
        "watch across replicas: {moves} moves, {} seat events, worst latency {worst:?}",
        seat_events.len()
    );

    // Expected events: the engine's redaction for seat 0 and for a spectator, action by
    // action from where the stream started.
    let rec = try_record(&mut a, &m).await.unwrap();
    assert_record(&rec, &sim, "the watched match");
    let game = cardhouse::new_game("jass", &engine_options(&options)).unwrap();
    let mut state = game.new_initial_state();
    let (mut expected_seat, mut expected_spectator) = (Vec::new(), Vec::new());
    let (mut seat_known, mut spectator_known) = (0u64, 0u64);
    let mut leaks = Vec::new();
    for &action in &sim.history {
        let actor = state.current_player();
        let seat_text = if actor == Player::Seat(0) {
            Some(state.action_to_string(action))
        } else {
            state.action_to_string_for(Viewer::Seat(0), action)
        };
        let spectator_text = state.action_to_string_for(Viewer::Spectator, action);
        if actor == Player::Chance && seat_text.as_deref() != Some(&state.action_to_string(action))
        {
            leaks.push(state.action_to_string(action));
        }
        state.apply(action).unwrap();
        if let Some(t) = seat_text {
            seat_known += 1;
            if seat_known > start.move_number {
                expected_seat.push((
                    t,
                    seat_known,
                    normalized(state.view(Viewer::Seat(0)).unwrap()),
                ));
            }
        }
        if let Some(t) = spectator_text {
            spectator_known += 1;
            if seat_known > start.move_number {
                expected_spectator.push((
                    t,
                    spectator_known,
                    normalized(state.view(Viewer::Spectator).unwrap()),
                ));
            }
        }
    }
    let got = |events: &[pb::MatchEvent]| -> Vec<(String, u64, serde_json::Value)> {
        events
            .iter()
            .map(|e| {
                let v = e.view.as_ref().unwrap();
                (
                    e.text.clone(),
                    v.move_number,
                    struct_to_json(v.view.as_ref().unwrap()),
                )
            })
            .collect()
    };
    let got_seat = got(&seat_events);
    assert!(!got_seat.is_empty());
    assert_eq!(got_seat.len(), expected_seat.len(), "seat events");
    for (i, (g, e)) in got_seat.iter().zip(&expected_seat).enumerate() {
        assert_eq!(g, e, "seat event {i}");
    }
    let got_spectator = got(&spectator_events);
    assert_eq!(
        got_spectator.len(),
        expected_spectator.len(),
        "spectator events"
    );
    for (i, (g, e)) in got_spectator.iter().zip(&expected_spectator).enumerate() {
        assert_eq!(g, e, "spectator event {i}");
    }
    // Redaction: no event of seat 0 names a card dealt to another seat; no spectator view
    // shows a hand.
    assert!(!leaks.is_empty());
    for e in &seat_events {
        assert!(!leaks.contains(&e.text), "leaked {}", e.text);
    }
    for (_, _, v) in &got_spectator {
        assert!(v["hands"].as_array().unwrap().iter().all(|h| h.is_null()));
    }
}

// ---------------------------------------------------------------------------------------------
// e. Every replica restarted; bots of a dead replica played on by another
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn matches_continue_exactly_after_every_replica_restarted() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let servers = replicas(&db, 2, &[]);
    let mut clients = vec![client(&servers[0]).await, client(&servers[1]).await];
    let options = [("target_score", "300")];
    // All human.
    let humans = create(&mut clients[0], "jass", &options, 8, &[HUMAN; 4]).await;
    let mut humans_sim = Sim::new("jass", &options, 8, &[HUMAN; 4]);
    let mut humans_rng = SeededRng::new(12);
    // One human seat and random and heuristic bots.
    let mixed_seats = [
        HUMAN,
        pb::SeatKind::RandomBot,
        pb::SeatKind::HeuristicBot,
        pb::SeatKind::RandomBot,
    ];
    let mixed = create(&mut clients[1], "jass", &options, 9, &mixed_seats).await;
    let mut mixed_sim = Sim::new("jass", &options, 9, &mixed_seats);
    let mut mixed_rng = SeededRng::new(13);
    assert_eq!(
        play(
            &mut clients,
            &humans,
            &mut humans_sim,
            &mut humans_rng,
            25,
            deadline
        )
        .await,
        25
    );
    assert_eq!(
        play(
            &mut clients,
            &mixed,
            &mut mixed_sim,
            &mut mixed_rng,
            8,
            deadline
        )
        .await,
        8
    );
    // All bots (heuristic and random), playing in the background when the replicas stop.
    let bot_seats = [
        pb::SeatKind::HeuristicBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::HeuristicBot,
        pb::SeatKind::RandomBot,
    ];
    let bot_options = [("target_score", "1500")];
    let bots = create(&mut clients[0], "jass", &bot_options, 10, &bot_seats).await;
    let bots_sim = Sim::new("jass", &bot_options, 10, &bot_seats);
    assert!(bots_sim.state.is_terminal());

    // Every view of the two human matches, as acknowledged.
    let mut before = Vec::new();
    for m in [&humans, &mixed] {
        for token in m.tokens() {
            let va = view(&mut clients[0], m, &token).await;
            let vb = view(&mut clients[1], m, &token).await;
            assert_eq!(va, vb, "the replicas disagree before the restart");
            before.push(va);
        }
    }
    drop(clients);
    // Stop both: one cleanly, one with SIGKILL.
    let mut servers = servers;
    let b = servers.pop().unwrap();
    let a = servers.pop().unwrap();
    let (status, _) = a.term();
    assert!(status.success(), "SIGTERM: {status:?}");
    b.kill9();

    let servers = replicas(&db, 2, &[]);
    let mut clients = vec![client(&servers[0]).await, client(&servers[1]).await];
    let mut i = 0;
    for m in [&humans, &mixed] {
        for token in m.tokens() {
            for c in clients.iter_mut() {
                assert_eq!(view(c, m, &token).await, before[i], "after the restart");
            }
            i += 1;
        }
    }
    // They continue exactly where they were: to the end the engine computes.
    play(
        &mut clients,
        &humans,
        &mut humans_sim,
        &mut humans_rng,
        2_000,
        deadline,
    )
    .await;
    play(
        &mut clients,
        &mixed,
        &mut mixed_sim,
        &mut mixed_rng,
        2_000,
        deadline,
    )
    .await;
    for (m, sim, what) in [
        (&humans, &humans_sim, "all human"),
        (&mixed, &mixed_sim, "with bots"),
        (&bots, &bots_sim, "all bots"),
    ] {
        let ra = record_when_over(&mut clients[0], m).await;
        let rb = record_when_over(&mut clients[1], m).await;
        assert_eq!(ra.status, pb::MatchStatus::Finished as i32, "{what}");
        assert_record(&ra, sim, what);
        assert_eq!(ra, rb, "{what}: the replicas' records differ");
    }
}

/// An all-bot match played in the background by a replica killed with SIGKILL is played on
/// by the survivor (after its stalled-bots delay) to the end the engine computes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_whose_replica_died_are_played_on_by_another() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let mut servers = replicas(&db, 2, &[]);
    let survivor = servers.pop().unwrap();
    let victim = servers.pop().unwrap();
    // IS-MCTS seats play only in the background; all are seeded from the match.
    let seats = [
        pb::SeatKind::IsmctsBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::HeuristicBot,
        pb::SeatKind::RandomBot,
    ];
    let options = [("target_score", "1000")];
    let t = Instant::now();
    let sim = Sim::new("jass", &options, 77, &seats);
    eprintln!("the engine played the bots' match in {:?}", t.elapsed());
    assert!(sim.state.is_terminal());
    let m = create(&mut client(&victim).await, "jass", &options, 77, &seats).await;
    victim.kill9();
    let killed = Instant::now();
    let mut c = client(&survivor).await;
    let at_kill = view(&mut c, &m, &m.spectator).await;
    assert_eq!(
        at_kill.status,
        pb::MatchStatus::Active as i32,
        "the match ended before the kill: lengthen it"
    );
    let rec = record_when_over(&mut c, &m).await;
    eprintln!(
        "bots played on after the kill: from {} to {} steps, ended {:?} after the kill",
        at_kill.move_number,
        rec.total_steps,
        killed.elapsed()
    );
    assert_eq!(rec.status, pb::MatchStatus::Finished as i32);
    assert_record(&rec, &sim, "bots played on by the survivor");
}

/// A spectator watching an all-bot match (played in the background by another replica)
/// sees every action once, in order, to the end.
///
/// A background chunk of bot moves (up to 1,024), or a refresh that adopts another
/// replica's chunk, is one entry of the match's broadcast (capacity 128), which each stream
/// replays; it once sent one entry per action, and a prompt reader got RESOURCE_EXHAUSTED
/// ("this stream fell N events behind").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watched_all_bot_match_streams_every_action_without_a_gap() {
    watched_all_bot_match(&[]).await;
}

/// The same without change notices (`--store-notices off`, for databases without
/// LISTEN/NOTIFY): the watchers' once-a-second poll brings every move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_notices_a_watch_still_gets_every_move_from_its_poll() {
    watched_all_bot_match(&["--store-notices", "off"]).await;
}

async fn watched_all_bot_match(extra: &[&str]) {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2, extra);
    // IS-MCTS seats take long enough (a background chunk is 50 ms of their moves) that the
    // Watch starts well before the end and gets bursts of many moves per commit.
    let seats = [
        pb::SeatKind::IsmctsBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::IsmctsBot,
        pb::SeatKind::RandomBot,
    ];
    let options = [("target_score", "1500")];
    let sim = Sim::new("jass", &options, 77, &seats);
    let m = create(&mut client(&servers[0]).await, "jass", &options, 77, &seats).await;
    let mut w = stream_client(&servers[1]).await;
    let mut stream = common::watch(&mut w, &m.spectator, &m.id).await;
    let (mut snapshot, mut last, mut events) = (false, 0, 0);
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = match tokio::time::timeout(left, stream.next()).await {
            Ok(Some(msg)) => msg.unwrap_or_else(|s| {
                panic!("the stream failed after {events} events (at {last}): {s:?}")
            }),
            Ok(None) => break,
            Err(_) => panic!("the match did not end in time: at {last} after {events} events"),
        };
        match msg.kind.unwrap() {
            pb::watch_response::Kind::Snapshot(v) => {
                assert!(!snapshot, "one snapshot only");
                snapshot = true;
                last = v.move_number;
            }
            pb::watch_response::Kind::Event(e) => {
                assert!(snapshot, "the snapshot comes first");
                let mn = e.view.as_ref().unwrap().move_number;
                assert_eq!(mn, last + 1, "an event skipped or repeated");
                last = mn;
                events += 1;
            }
        }
    }
    eprintln!("the watch got {events} events after its snapshot");
    assert!(
        events > 100,
        "the match ended too soon to test the stream: {events} events"
    );
    assert_eq!(
        last,
        sim.known[sim.spectator()],
        "the stream's last move number"
    );
}

// ---------------------------------------------------------------------------------------------
// f. Error codes and limits as on one node; no token in clear
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn limits_and_error_codes_hold_across_replicas_and_no_token_is_stored_in_clear() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let limit = 5usize;
    let servers = replicas(&db, 2, &["--max-matches", &limit.to_string()]);
    // 3 × limit creations at once, alternating replicas: exactly `limit` succeed.
    let mut tasks = Vec::new();
    for i in 0..3 * limit {
        let mut c = client(&servers[i % 2]).await;
        tasks.push(tokio::spawn(async move {
            try_create(
                &mut c,
                "jass",
                &[("target_score", "1000")],
                i as u64,
                &[HUMAN; 4],
            )
            .await
        }));
    }
    let mut created = Vec::new();
    for t in tasks {
        match t.await.unwrap() {
            Ok(m) => created.push(m),
            Err(s) => assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}"),
        }
    }
    assert_eq!(created.len(), limit, "the match limit across two replicas");
    let mut clients = [client(&servers[0]).await, client(&servers[1]).await];
    for c in clients.iter_mut() {
        let err = try_create(c, "jass", &[], 1, &[HUMAN; 4])
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::ResourceExhausted);
    }

    let (m, other) = (&created[0], &created[1]);
    let spectator_view = view(&mut clients[0], m, &m.spectator).await;
    let seat = match spectator_view.current_player.as_ref().unwrap() {
        p if p.kind == pb::PlayerKind::Seat as i32 => p.seat() as usize,
        p => panic!("{p:?}"),
    };
    let v = view(&mut clients[1], m, &m.seats[&seat]).await;
    let legal = v.legal_actions[0].id();
    for (r, c) in clients.iter_mut().enumerate() {
        let get = |token: Option<&str>, id: &str| {
            let msg = pb::GetViewRequest {
                match_id: id.to_owned(),
            };
            match token {
                Some(t) => authed(t, msg),
                None => tonic::Request::new(msg),
            }
        };
        let code = |r: Result<tonic::Response<pb::GetViewResponse>, Status>| r.unwrap_err().code();
        assert_eq!(
            code(c.get_view(get(None, &m.id)).await),
            Code::Unauthenticated,
            "{r}"
        );
        assert_eq!(
            code(
                c.get_view(get(Some("0123456789abcdef0123456789abcdef"), &m.id))
                    .await
            ),
            Code::Unauthenticated,
            "replica {r}: a wrong token"
        );
        assert_eq!(
            code(c.get_view(get(Some(&other.seats[&0]), &m.id)).await),
            Code::Unauthenticated,
            "replica {r}: another match's token"
        );
        assert_eq!(
            code(c.get_view(get(Some(&m.owner), "no-such-match")).await),
            Code::NotFound,
            "replica {r}"
        );
        // Acting: a spectator, a stale move number, the wrong seat, an unknown action.
        let act_as = |token: &str, action: u32, expected: u64| {
            authed(
                token,
                pb::ActRequest {
                    match_id: m.id.clone(),
                    action: Some(pb::act_request::Action::ActionId(action)),
                    expected_move_number: expected,
                    include_view: false,
                },
            )
        };
        let code = |r: Result<tonic::Response<pb::ActResponse>, Status>| r.unwrap_err().code();
        assert_eq!(
            code(
                c.act(act_as(&m.spectator, legal, spectator_view.move_number))
                    .await
            ),
            Code::PermissionDenied,
            "replica {r}"
        );
        assert_eq!(
            code(
                c.act(act_as(&m.seats[&seat], legal, v.move_number + 1))
                    .await
            ),
            Code::Aborted,
            "replica {r}"
        );
        let wrong = (seat + 1) % 4;
        let wrong_v = view(c, m, &m.seats[&wrong]).await;
        assert_eq!(
            code(
                c.act(act_as(&m.seats[&wrong], legal, wrong_v.move_number))
                    .await
            ),
            Code::FailedPrecondition,
            "replica {r}: not its turn"
        );
        assert_eq!(
            code(c.act(act_as(&m.seats[&seat], 100_000, v.move_number)).await),
            Code::InvalidArgument,
            "replica {r}"
        );
        let err = try_record(c, m).await.unwrap_err();
        assert_eq!(err.code(), Code::FailedPrecondition, "replica {r}: running");
        let err = c
            .abort_match(authed(
                &m.seats[&0],
                pb::AbortMatchRequest {
                    match_id: m.id.clone(),
                },
            ))
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::PermissionDenied, "replica {r}");
    }
    // Nothing of that changed the match.
    for c in clients.iter_mut() {
        assert_eq!(view(c, m, &m.seats[&seat]).await, v);
    }
    // The owner resigns seat 1 through A; B knows at once, and a Watch on B ends with it.
    let mut watch_b =
        common::watch(&mut stream_client(&servers[1]).await, &m.spectator, &m.id).await;
    let first = tokio::time::timeout(PATIENCE, watch_b.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(matches!(
        first.kind,
        Some(pb::watch_response::Kind::Snapshot(_))
    ));
    let ended = clients[0]
        .resign(authed(
            &m.owner,
            pb::ResignRequest {
                match_id: m.id.clone(),
                seat: Some(1),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .view
        .unwrap();
    assert_eq!(ended.status, pb::MatchStatus::Resigned as i32);
    let event = tokio::time::timeout(PATIENCE, watch_b.next())
        .await
        .expect("B's watcher learns of the resignation in time")
        .unwrap()
        .unwrap();
    match event.kind.unwrap() {
        pb::watch_response::Kind::Event(e) => {
            assert_eq!(e.text, "seat 1 resigned");
            assert_eq!(e.view.unwrap().status, pb::MatchStatus::Resigned as i32);
        }
        other => panic!("{other:?}"),
    }
    let end = tokio::time::timeout(PATIENCE, watch_b.next())
        .await
        .unwrap();
    assert!(end.is_none(), "{end:?}");
    let err = act(&mut clients[1], m, seat, legal, v.move_number)
        .await
        .unwrap_err();
    assert_eq!(
        err.code(),
        Code::FailedPrecondition,
        "B acts on an ended match: {err:?}"
    );
    let rec = try_record(&mut clients[1], m).await.unwrap();
    assert_eq!(rec.status, pb::MatchStatus::Resigned as i32);
    assert_eq!(rec.resigned_seat, Some(1));
    // A second resignation through B: the match is over.
    let err = clients[1]
        .resign(authed(
            &m.owner,
            pb::ResignRequest {
                match_id: m.id.clone(),
                seat: Some(2),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{err:?}");

    // No token in clear anywhere in the database (text, or bytes shown as hex).
    let pg = db.client().await;
    let tables = pg
        .query(
            "SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) \
             FROM information_schema.tables \
             WHERE table_schema NOT IN ('pg_catalog', 'information_schema') \
             AND table_type = 'BASE TABLE'",
            &[],
        )
        .await
        .unwrap();
    let tokens: Vec<String> = created.iter().flat_map(M::tokens).collect();
    assert_eq!(tokens.len(), limit * 6);
    let hex = |s: &str| s.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    let mut rows = 0;
    let mut ids_seen = 0;
    for t in &tables {
        let table: String = t.get(0);
        for row in pg
            .query(&format!("SELECT t::text FROM {table} t"), &[])
            .await
            .unwrap()
        {
            let text: String = row.get(0);
            let lower = text.to_ascii_lowercase();
            rows += 1;
            for token in &tokens {
                assert!(
                    !lower.contains(token.as_str()) && !lower.contains(&hex(token)),
                    "a token in clear in table {table}"
                );
            }
            ids_seen += created
                .iter()
                .filter(|m| lower.contains(&m.id) || lower.contains(&hex(&m.id)))
                .count();
        }
    }
    eprintln!(
        "scanned {} tables, {rows} rows: no token in clear",
        tables.len()
    );
    assert!(ids_seen >= limit, "the scan did not see the matches");
}

// ---------------------------------------------------------------------------------------------
// g. Retention and abandonment across replicas
// ---------------------------------------------------------------------------------------------

/// Any replica's sweep aborts an abandoned match (a Watch on another replica sees it end)
/// and deletes ended matches after their retention: every replica then answers NOT_FOUND,
/// and their slots under the match limit are free again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandonment_and_retention_hold_across_replicas() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(
        &db,
        2,
        &[
            "--max-matches",
            "2",
            "--retention-secs",
            "1",
            "--abandon-secs",
            "2",
        ],
    );
    let mut clients = [client(&servers[0]).await, client(&servers[1]).await];
    let bots = create(
        &mut clients[0],
        "jass",
        &[("scope", "deal")],
        3,
        &[pb::SeatKind::RandomBot; 4],
    )
    .await;
    let idle = create(&mut clients[1], "jass", &[], 4, &[HUMAN; 4]).await;
    let mut watch_a = common::watch(
        &mut stream_client(&servers[0]).await,
        &idle.spectator,
        &idle.id,
    )
    .await;
    // Both replicas hold the finished match (B caches it).
    record_when_over(&mut clients[1], &bots).await;
    for c in clients.iter_mut() {
        let err = try_create(c, "jass", &[], 5, &[HUMAN; 4])
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::ResourceExhausted);
    }
    // The idle match is aborted as abandoned (after 2 s); A's watcher sees it end.
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut ended = None;
    while ended.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = tokio::time::timeout(left, watch_a.next())
            .await
            .expect("the abandoned match ends in time")
            .expect("an event before the end")
            .unwrap();
        if let Some(pb::watch_response::Kind::Event(e)) = msg.kind {
            ended = Some(e);
        }
    }
    let ended = ended.unwrap();
    assert_eq!(ended.text, "the match was aborted");
    assert_eq!(ended.view.unwrap().status, pb::MatchStatus::Aborted as i32);
    // Both leave after their retention (1 s): NOT_FOUND through either replica.
    for m in [&bots, &idle] {
        for (r, c) in clients.iter_mut().enumerate() {
            loop {
                match try_record(c, m).await {
                    Err(s) if s.code() == Code::NotFound => break,
                    other => {
                        assert!(
                            Instant::now() < deadline,
                            "replica {r} still has the match: {other:?}"
                        );
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            }
            let err = try_view(c, m, &m.owner).await.unwrap_err();
            assert_eq!(err.code(), Code::NotFound, "replica {r}");
        }
    }
    // Their slots are free: exactly two new matches fit.
    create(&mut clients[0], "jass", &[], 6, &[HUMAN; 4]).await;
    create(&mut clients[1], "jass", &[], 7, &[HUMAN; 4]).await;
    for c in clients.iter_mut() {
        let err = try_create(c, "jass", &[], 8, &[HUMAN; 4])
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::ResourceExhausted);
    }
}

// ---------------------------------------------------------------------------------------------
// h. PostgreSQL drops every connection
// ---------------------------------------------------------------------------------------------

/// Every connection of the replicas to PostgreSQL is terminated (as a database restart
/// does): the replicas carry on (a request may fail once with UNAVAILABLE, never with a
/// wrong answer), and a Watch still receives the moves made through the other replica
/// (its listener reconnects).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_carry_on_after_postgresql_dropped_their_connections() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2, &[]);
    let mut clients = [client(&servers[0]).await, client(&servers[1]).await];
    let options = [("target_score", "1000")];
    let m = create(&mut clients[0], "jass", &options, 41, &[HUMAN; 4]).await;
    let mut sim = Sim::new("jass", &options, 41, &[HUMAN; 4]);
    let mut watch_a =
        common::watch(&mut stream_client(&servers[0]).await, &m.seats[&0], &m.id).await;
    tokio::time::timeout(PATIENCE, watch_a.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let pg = db.client().await;
    let mut rng = SeededRng::new(3);
    let mut seen = Vec::new();
    let (mut unavailable, mut worst) = (0, Duration::ZERO);
    // Bounded: 16 moves, at most 2 UNAVAILABLE answers each.
    for mv in 0..16 {
        if mv == 6 || mv == 11 {
            let killed = pg
                .query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                     WHERE datname = current_database() AND pid <> pg_backend_pid()",
                    &[],
                )
                .await
                .unwrap();
            eprintln!("move {mv}: terminated {} connections", killed.len());
            assert!(!killed.is_empty());
        }
        let seat = sim.to_move().unwrap();
        let token = &m.seats[&seat];
        let mut tries = 0;
        let after = loop {
            tries += 1;
            assert!(tries <= 3, "move {mv}: UNAVAILABLE again and again");
            let (by, other) = if mv % 2 == 0 { (1, 0) } else { (0, 1) };
            let v = match try_view(&mut clients[other], &m, token).await {
                Ok(v) => v,
                Err(s) if s.code() == Code::Unavailable => {
                    unavailable += 1;
                    continue;
                }
                Err(s) => panic!("move {mv}: GetView: {s:?}"),
            };
            assert_seat_view(&v, &sim, seat, &format!("move {mv}"));
            let a = v.legal_actions[rng.below(v.legal_actions.len() as u64) as usize].id();
            match act(&mut clients[by], &m, seat, a, v.move_number).await {
                Ok(after) => {
                    sim.act(a);
                    break after;
                }
                Err(s) if s.code() == Code::Unavailable => {
                    // Its outcome is unknown: the next read tells (and the retry of a move
                    // that landed is ABORTED, so it is read again first).
                    unavailable += 1;
                    let v = loop {
                        match try_view(&mut clients[other], &m, token).await {
                            Ok(v) => break v,
                            Err(s) if s.code() == Code::Unavailable => unavailable += 1,
                            Err(s) => panic!("move {mv}: GetView: {s:?}"),
                        }
                    };
                    if v.move_number > sim.known[seat] {
                        sim.act(a);
                        assert_seat_view(&v, &sim, seat, &format!("move {mv}, landed"));
                        break v;
                    }
                }
                Err(s) => panic!("move {mv}: Act: {s:?}"),
            }
        };
        assert_eq!(after.move_number, sim.known[seat], "move {mv}");
        worst = worst.max(events_until(&mut watch_a, sim.known[0], &mut seen).await);
    }
    eprintln!(
        "after dropped connections: {unavailable} UNAVAILABLE answers, worst watch latency {worst:?}"
    );
    let last = seen.last().unwrap().view.as_ref().unwrap();
    assert_eq!(last.move_number, sim.known[0]);
    for c in clients.iter_mut() {
        assert_seat_view(&view(c, &m, &m.seats[&0]).await, &sim, 0, "at the end");
    }
}

/// PostgreSQL terminates every connection of the replicas several times while clients play
/// through both: requests may fail with UNAVAILABLE (a change then has an unknown outcome,
/// and a retry of one that landed is ABORTED), but no acknowledged move is lost, the
/// replicas agree, and both take changes afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_acknowledged_move_is_lost_when_postgresql_drops_connections_under_load() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2, &[]);
    let seats = [
        HUMAN,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::RandomBot,
    ];
    let mut games = Vec::new();
    for i in 0..6u64 {
        let mut c = client(&servers[(i % 2) as usize]).await;
        games.push(create(&mut c, "jass", &[("wys", "auto")], 700 + i, &seats).await);
    }
    let acked = Arc::new(Mutex::new(vec![Acked::default(); games.len()]));
    let stop_at = Instant::now() + Duration::from_secs(3);
    let mut tasks = Vec::new();
    for (i, g) in games.iter().cloned().enumerate() {
        let acked = Arc::clone(&acked);
        let mut clients = [client(&servers[0]).await, client(&servers[1]).await];
        tasks.push(tokio::spawn(async move {
            let token = g.seats[&0].clone();
            let (mut acks, mut unavailable) = (0u64, 0u64);
            // Bounded: 10,000 steps or the time limit.
            for step in 0..10_000usize {
                if Instant::now() >= stop_at {
                    break;
                }
                let c = &mut clients[step % 2];
                let v = match try_view(c, &g, &token).await {
                    Ok(v) => v,
                    Err(e) if e.code() == Code::Unavailable => {
                        unavailable += 1;
                        continue;
                    }
                    Err(e) => panic!("match {i}: GetView: {e:?}"),
                };
                if v.status != pb::MatchStatus::Active as i32 {
                    break;
                }
                let pick = v.legal_actions[step % v.legal_actions.len()].id();
                match act(c, &g, 0, pick, v.move_number).await {
                    Ok(after) => {
                        let mut a = acked.lock().unwrap();
                        assert!(after.move_number > a[i].move_number, "match {i}");
                        a[i] = Acked {
                            move_number: after.move_number,
                            unknown: false,
                        };
                        acks += 1;
                    }
                    Err(e) if e.code() == Code::Unavailable => {
                        unavailable += 1;
                        acked.lock().unwrap()[i].unknown = true;
                    }
                    // A change with an unknown outcome landed after all: the move number
                    // read was stale. Read again.
                    Err(e) if e.code() == Code::Aborted && acked.lock().unwrap()[i].unknown => {}
                    Err(e) => panic!("match {i}: Act: {e:?}"),
                }
            }
            (acks, unavailable)
        }));
    }
    let pg = db.client().await;
    let mut terminated = 0;
    for _ in 0..5 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        terminated += pg
            .query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                 WHERE datname = current_database() AND pid <> pg_backend_pid()",
                &[],
            )
            .await
            .unwrap()
            .len();
    }
    let (mut total, mut unavailable) = (0, 0);
    for t in tasks {
        let (a, u) = t.await.unwrap();
        total += a;
        unavailable += u;
    }
    let acked = acked.lock().unwrap().clone();
    let mut clients = [client(&servers[0]).await, client(&servers[1]).await];
    let mut lost = 0;
    for (i, g) in games.iter().enumerate() {
        let mut views = Vec::new();
        for c in clients.iter_mut() {
            // Bounded: a read may meet a connection that is still being replaced.
            let mut tries = 0;
            views.push(loop {
                tries += 1;
                match try_view(c, g, &g.seats[&0]).await {
                    Ok(v) => break v,
                    Err(e) if e.code() == Code::Unavailable && tries < 5 => {}
                    Err(e) => panic!("match {i}: GetView after the load: {e:?}"),
                }
            });
        }
        assert_eq!(views[0], views[1], "match {i}: the replicas disagree");
        let (v, a) = (&views[0], acked[i]);
        if v.move_number < a.move_number {
            lost += 1;
        } else if !a.unknown && v.status == pb::MatchStatus::Active as i32 {
            assert_eq!(
                v.move_number, a.move_number,
                "match {i}: a move nobody was told of"
            );
        }
        // Both replicas take changes.
        let mut v = v.clone();
        for c in clients.iter_mut() {
            if v.status != pb::MatchStatus::Active as i32 {
                break;
            }
            v = act(c, g, 0, v.legal_actions[0].id(), v.move_number)
                .await
                .unwrap_or_else(|e| panic!("match {i}: an Act after the load: {e:?}"));
        }
    }
    eprintln!(
        "dropped connections under load: {terminated} terminated, {total} moves acknowledged, \
         {unavailable} UNAVAILABLE, lost: {lost}"
    );
    assert!(total > 0);
    assert_eq!(lost, 0);
}

// ---------------------------------------------------------------------------------------------
// i. A replica paused past the stalled-bots delay, then resumed (split brain)
// ---------------------------------------------------------------------------------------------

fn signal(s: &Server, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([sig, &s.child.id().to_string()])
        .status()
        .expect("kill");
    assert!(ok.success(), "kill {sig}");
}

/// Waits until every thread of `s` is stopped (a group stop completes asynchronously: a
/// thread running on another core stops at its next entry into the kernel).
fn wait_stopped(s: &Server) {
    let tasks = format!("/proc/{}/task", s.child.id());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let all_stopped = std::fs::read_dir(&tasks)
            .expect("the server's threads")
            .filter_map(Result::ok)
            .all(|t| {
                std::fs::read_to_string(t.path().join("stat")).is_ok_and(|stat| {
                    // The state follows the command name, which is in parentheses.
                    stat.rsplit_once(") ")
                        .is_some_and(|(_, rest)| rest.starts_with('T') || rest.starts_with('t'))
                })
            });
        if all_stopped {
            return;
        }
        assert!(Instant::now() < deadline, "the server did not stop");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A replica is paused (SIGSTOP) with an Act sent to it and bots it was playing; the other
/// replica plays the same turn and, after the stalled-bots delay, the bots. When the paused
/// replica resumes, its out-of-date work is refused by the store (its Act is ABORTED, its
/// bot moves are dropped), and every match is exactly the engine's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_replica_that_resumes_cannot_apply_out_of_date_work() {
    let Some(db) = TestDb::create().await else {
        return;
    };
    let servers = replicas(&db, 2, &[]);
    let (paused, other) = (&servers[0], &servers[1]);
    let (mut p, mut o) = (client(paused).await, client(other).await);
    let options = [("target_score", "1000")];
    let humans = create(&mut p, "jass", &options, 61, &[HUMAN; 4]).await;
    let mut humans_sim = Sim::new("jass", &options, 61, &[HUMAN; 4]);
    let bot_seats = [
        pb::SeatKind::IsmctsBot,
        pb::SeatKind::RandomBot,
        pb::SeatKind::HeuristicBot,
        pb::SeatKind::RandomBot,
    ];
    let bots_sim = Sim::new("jass", &options, 62, &bot_seats);
    let seat = humans_sim.to_move().unwrap();
    let v = view(&mut p, &humans, &humans.seats[&seat]).await;
    let (x, y) = (
        v.legal_actions[0].id(),
        v.legal_actions[v.legal_actions.len() - 1].id(),
    );
    let bots = create(&mut p, "jass", &options, 62, &bot_seats).await;
    signal(paused, "-STOP");
    wait_stopped(paused);
    let paused_at = Instant::now();
    // An Act sent to the paused replica waits in its socket.
    let late = {
        let humans = humans.clone();
        let mut p = p.clone();
        let expected = v.move_number;
        tokio::spawn(async move { act(&mut p, &humans, seat, x, expected).await })
    };
    // The other replica plays the same turn (another action, if there is one).
    let after = act(&mut o, &humans, seat, y, v.move_number).await.unwrap();
    humans_sim.act(y);
    assert_eq!(after.move_number, humans_sim.known[seat]);
    // And, once the paused replica's bots are stalled, plays them to the end.
    let rec = record_when_over(&mut o, &bots).await;
    assert_record(
        &rec,
        &bots_sim,
        "bots played on while their replica was paused",
    );
    eprintln!("bots finished {:?} after the pause", paused_at.elapsed());
    signal(paused, "-CONT");
    let late = late.await.unwrap();
    let err = late.expect_err("an out-of-date Act was acknowledged");
    assert_eq!(err.code(), Code::Aborted, "{err:?}");
    // Both replicas agree with the engine on both matches.
    for c in [&mut p, &mut o] {
        for (s, token) in &humans.seats {
            assert_seat_view(&view(c, &humans, token).await, &humans_sim, *s, "after");
        }
        let r = record_when_over(c, &bots).await;
        assert_record(&r, &bots_sim, "after the resumption");
    }
    // The resumed replica plays on correctly.
    let mut clients = [p, o];
    play(
        &mut clients,
        &humans,
        &mut humans_sim,
        &mut SeededRng::new(9),
        6,
        Instant::now() + Duration::from_secs(30),
    )
    .await;
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
