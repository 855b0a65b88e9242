//! `Engine.BotAction` against a real server: every bot the server names for a game answers a
//! legal move of the seat to act; the bot seats' limits are held (INVALID_ARGUMENT naming the
//! limit); a seat not to act is FAILED_PRECONDITION; a seed gives the same move; and the move
//! does not depend on the other seats' hidden cards (states drawn by the engine's `resample`
//! for the seat, as the engine's own bot tests draw them).

mod common;

use cardhouse::{AnyGame, AnyState, Player, Rng, SeededRng};
use cardhouse_server::Config;
use cardhouse_server::matches::MatchLimits;
use cardhouse_server::pb;
use cardhouse_server::pb::engine_client::EngineClient;
use common::TestServer;
use tonic::transport::Channel;
use tonic::{Code, Status};

type Engine = EngineClient<Channel>;

fn game(name: &str) -> AnyGame {
    cardhouse::new_game(name, &cardhouse::Options::new()).expect("a game")
}

/// A state of `game` where a seat is to act, `moves` random actions (chance included) after
/// the start, seeded.
fn decision(game: &AnyGame, seed: u64, moves: usize) -> AnyState {
    let mut rng = SeededRng::new(seed);
    let mut state = game.new_initial_state();
    let mut played = 0;
    while played < moves || state.is_chance_node() {
        assert!(!state.is_terminal(), "{}: over too soon", game.name());
        if state.is_chance_node() {
            state.apply_random_chance(&mut rng).expect("chance");
        } else {
            let legal = state.legal_actions();
            let a = legal
                .nth(rng.below(legal.len() as u64) as usize)
                .expect("legal");
            state.apply(a).expect("legal");
            played += 1;
        }
    }
    state
}

fn to_act(state: &AnyState) -> usize {
    match state.current_player() {
        Player::Seat(s) => s,
        other => panic!("no seat to act: {other:?}"),
    }
}

async fn ask(
    engine: &mut Engine,
    state: &AnyState,
    seat: Option<usize>,
    bot: &str,
    seed: u64,
) -> Result<pb::BotActionResponse, Status> {
    engine
        .bot_action(pb::BotActionRequest {
            state: state.to_bytes(),
            seat: seat.map(|s| s as u32),
            bot: bot.to_owned(),
            seed,
        })
        .await
        .map(tonic::Response::into_inner)
}

/// A server whose bot seats (and so BotAction) are held to small budgets.
async fn small_limits() -> TestServer {
    TestServer::start(Config {
        matches: MatchLimits {
            max_ismcts_iterations: 40,
            max_rollout_samples: 4,
            ..MatchLimits::default()
        },
        ..Config::default()
    })
    .await
}

/// The bots the server offers for `game` (DescribeGame), with the searches' budgets within
/// [`small_limits`] (a plain `ismcts` or `rollout` asks the game's default, over them).
async fn bots_of(engine: &mut Engine, name: &str) -> Vec<String> {
    let described = engine
        .describe_game(pb::DescribeGameRequest {
            game: name.to_owned(),
            options: Default::default(),
        })
        .await
        .expect("described")
        .into_inner();
    let offered = described.game.expect("a description").bots;
    assert!(
        ["random", "heuristic", "ismcts", "rollout"]
            .iter()
            .all(|b| offered.iter().any(|o| o == b)),
        "{name}: {offered:?}"
    );
    offered
        .into_iter()
        .map(|b| match b.as_str() {
            "ismcts" => "ismcts:40".to_owned(),
            "rollout" => "rollout:4".to_owned(),
            _ => b,
        })
        .collect()
}

#[tokio::test]
async fn every_bot_of_every_game_answers_a_legal_move_of_the_seat_to_act() {
    let server = small_limits().await;
    let mut engine = server.engine().await;
    for &name in cardhouse::list_games() {
        let game = game(name);
        let bots = bots_of(&mut engine, name).await;
        assert!(
            bots.iter().any(|b| b.starts_with("policy:")),
            "{name}: {bots:?}"
        );
        for (i, bot) in bots.iter().enumerate() {
            let state = decision(&game, 30 + i as u64, 3 + i);
            let seat = to_act(&state);
            for asked in [None, Some(seat)] {
                let r = ask(&mut engine, &state, asked, bot, 5)
                    .await
                    .unwrap_or_else(|s| panic!("{name} {bot}: {s:?}"));
                let action = r.action_id.expect("an action id");
                assert!(state.legal_actions().contains(action), "{name} {bot}");
                assert_eq!(r.action_text, state.action_to_string(action));
                assert_eq!(r.seat, Some(seat as u32), "{name} {bot}");
            }
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn a_bot_over_the_seats_limits_is_refused_naming_the_limit() {
    let server = small_limits().await;
    let mut engine = server.engine().await;
    let jass = decision(&game("jass"), 1, 2);
    let cribbage = decision(&game("cribbage"), 1, 2);
    for (state, bot, words) in [
        (&jass, "ismcts:41", &["--max-ismcts-iterations", "40"][..]),
        (&jass, "ismcts", &["--max-ismcts-iterations", "40"]),
        (&cribbage, "ismcts", &["1000", "--max-ismcts-iterations"]),
        (&jass, "rollout:5", &["--max-rollout-samples", "4"]),
        (&jass, "rollout", &["--max-rollout-samples", "4"]),
        (&jass, "policy:cribbage", &["cribbage"]),
        (&jass, "alphazero", &["rollout"]),
    ] {
        let err = ask(&mut engine, state, None, bot, 0).await.unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument, "{bot}: {err:?}");
        for w in words {
            assert!(
                err.message().contains(w),
                "{bot}: {:?} lacks {w}",
                err.message()
            );
        }
    }
    // Within the limits: answered.
    for bot in ["ismcts:40", "rollout:4"] {
        ask(&mut engine, &jass, None, bot, 0).await.expect(bot);
    }
    // The defaults of a server (100,000 iterations, 10,000 samples) let the game's own
    // search through.
    let defaults = TestServer::memory().await;
    let mut engine = defaults.engine().await;
    let err = ask(&mut engine, &jass, None, "ismcts:100001", 0)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("100000"), "{err:?}");
    let err = ask(&mut engine, &jass, None, "rollout:10001", 0)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().contains("10000"), "{err:?}");
    defaults.stop().await;
    server.stop().await;
}

#[tokio::test]
async fn a_seat_not_to_act_or_a_bad_request_is_refused() {
    let server = small_limits().await;
    let mut engine = server.engine().await;
    let game = game("klaberjass");
    let state = decision(&game, 4, 2);
    let seat = to_act(&state);
    let other = (seat + 1) % game.num_players();
    let not_to_act = ask(&mut engine, &state, Some(other), "heuristic", 0)
        .await
        .unwrap_err();
    assert_eq!(
        not_to_act.code(),
        Code::FailedPrecondition,
        "{not_to_act:?}"
    );
    assert!(
        not_to_act.message().contains(&format!("seat {seat}")),
        "{not_to_act:?}"
    );
    let dealing = game.new_initial_state();
    let chance = ask(&mut engine, &dealing, None, "random", 0)
        .await
        .unwrap_err();
    assert_eq!(chance.code(), Code::FailedPrecondition, "{chance:?}");
    let mut over = state.clone();
    let mut rng = SeededRng::new(2);
    while !over.is_terminal() {
        if over.is_chance_node() {
            over.apply_random_chance(&mut rng).unwrap();
        } else {
            let legal = over.legal_actions();
            let a = legal.nth(rng.below(legal.len() as u64) as usize).unwrap();
            over.apply(a).unwrap();
        }
    }
    let ended = ask(&mut engine, &over, None, "random", 0)
        .await
        .unwrap_err();
    assert_eq!(ended.code(), Code::FailedPrecondition, "{ended:?}");
    let no_seat = ask(&mut engine, &state, Some(2), "random", 0)
        .await
        .unwrap_err();
    assert_eq!(no_seat.code(), Code::InvalidArgument, "{no_seat:?}");
    let garbage = engine
        .bot_action(pb::BotActionRequest {
            state: vec![1, 2, 3],
            seat: None,
            bot: "random".into(),
            seed: 0,
        })
        .await
        .unwrap_err();
    assert_eq!(garbage.code(), Code::InvalidArgument, "{garbage:?}");
    server.stop().await;
}

#[tokio::test]
async fn a_seed_gives_the_same_move_and_hidden_cards_do_not_change_it() {
    let server = small_limits().await;
    let mut engine = server.engine().await;
    let mut checked = 0;
    for &name in cardhouse::list_games() {
        let game = game(name);
        let bots = bots_of(&mut engine, name).await;
        for seed in 0..2u64 {
            let state = decision(&game, 200 + seed, 4 + 3 * seed as usize);
            let seat = to_act(&state);
            // States that differ from `state` only in what `seat` cannot see.
            let mut draw = SeededRng::new(seed);
            let variants: Vec<AnyState> = (0..3)
                .filter_map(|_| state.resample(seat, &mut draw).ok())
                .collect();
            assert!(!variants.is_empty(), "{name}: no resample");
            let differ = variants
                .iter()
                .filter(|v| v.to_bytes() != state.to_bytes())
                .count();
            assert!(differ > 0, "{name}: the variants hide nothing");
            for bot in &bots {
                let real = ask(&mut engine, &state, Some(seat), bot, 77)
                    .await
                    .unwrap_or_else(|s| panic!("{name} {bot}: {s:?}"));
                let again = ask(&mut engine, &state, Some(seat), bot, 77).await.unwrap();
                assert_eq!(again, real, "{name} {bot}: not deterministic");
                for v in &variants {
                    let other = ask(&mut engine, v, Some(seat), bot, 77).await.unwrap();
                    assert_eq!(
                        other.action_id, real.action_id,
                        "{name} {bot}: seat {seat}'s move depends on hidden cards"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 0);
    server.stop().await;
}
