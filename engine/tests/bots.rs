//! Bots for every registered game: legal choices only, determinism per seed, no cheating
//! (a choice does not depend on cards the seat cannot see), and the strength order on a
//! small duplicate sample (the full figures are a documented command, not a test).

use cardhouse::bots::{BotKind, arena};
use cardhouse::{AnyGame, AnyState, Player, SeededRng, list_games, new_game, options};

fn games() -> Vec<AnyGame> {
    list_games()
        .iter()
        .map(|name| {
            new_game(name, &options([("scope", "deal".into())])).expect("deal scope for every game")
        })
        .collect()
}

fn bots() -> Vec<BotKind> {
    vec![
        BotKind::Random,
        BotKind::Heuristic,
        "ismcts:20".parse().expect("bot"),
        "rollout:3".parse().expect("bot"),
    ]
}

/// Random playouts that stop at `count` decision points of seats, calling `check` there.
fn decision_points(game: &AnyGame, seed: u64, mut check: impl FnMut(&AnyState, usize)) {
    let mut rng = SeededRng::new(seed);
    let mut state = game.new_initial_state();
    while !state.is_terminal() {
        match state.current_player() {
            Player::Chance => state.resolve_chance(&mut rng).expect("chance node"),
            Player::Seat(s) => {
                check(&state, s);
                let a = state.legal_actions().choose(&mut rng).expect("legal");
                state.apply(a).expect("legal");
            }
            Player::Terminal => break,
        }
    }
}

#[test]
fn bots_choose_only_legal_actions_in_every_game() {
    for game in games() {
        for seed in 0..6 {
            decision_points(&game, seed, |state, seat| {
                for (k, bot) in bots().iter().enumerate() {
                    let mut rng = SeededRng::new(seed * 31 + k as u64);
                    let a = state
                        .bot_action(bot, seat, &mut rng, &mut || false)
                        .unwrap_or_else(|e| panic!("{} {bot}: {e}", game.name()));
                    assert!(
                        state.legal_actions().contains(a),
                        "{} {bot} chose illegal {a}",
                        game.name()
                    );
                }
            });
        }
    }
}

#[test]
fn a_bot_refuses_to_act_for_a_seat_not_to_move() {
    for game in games() {
        decision_points(&game, 1, |state, seat| {
            let other = (seat + 1) % game.num_players();
            let mut rng = SeededRng::new(0);
            for bot in bots() {
                assert!(
                    state
                        .bot_action(&bot, other, &mut rng, &mut || false)
                        .is_err()
                );
            }
        });
    }
}

#[test]
fn bots_are_deterministic_for_a_seed() {
    for game in games() {
        decision_points(&game, 2, |state, seat| {
            for bot in bots() {
                let pick = |seed| {
                    state
                        .bot_action(&bot, seat, &mut SeededRng::new(seed), &mut || false)
                        .expect("bot")
                };
                assert_eq!(pick(9), pick(9), "{} {bot}", game.name());
            }
        });
    }
}

/// States that differ only in what `seat` cannot see (drawn by `resample` for that seat)
/// get the same choice from every bot, with the same generator.
#[test]
fn no_bot_cheats_hidden_cards_do_not_change_its_choice() {
    for game in games() {
        for seed in 0..3 {
            decision_points(&game, 100 + seed, |state, seat| {
                let mut draw = SeededRng::new(seed);
                let variants: Vec<AnyState> = (0..3)
                    .filter_map(|_| state.resample(seat, &mut draw).ok())
                    .collect();
                for bot in bots() {
                    let pick = |s: &AnyState| {
                        s.bot_action(&bot, seat, &mut SeededRng::new(77), &mut || false)
                            .expect("bot")
                    };
                    let real = pick(state);
                    for v in &variants {
                        assert_eq!(
                            pick(v),
                            real,
                            "{} {bot}: the choice of seat {seat} depends on hidden cards",
                            game.name()
                        );
                    }
                }
            });
        }
    }
}

/// A small sample of the strength order (the README's figures come from
/// `cardhouse simulate ... --duplicate`, 1,000 sets and more).
#[test]
fn heuristic_beats_random_on_duplicate_deals() {
    for game in games() {
        let n = game.num_players();
        let lineup: Vec<BotKind> = (0..n)
            .map(|s| {
                if arena::side_of(s, n) == 0 {
                    BotKind::Heuristic
                } else {
                    BotKind::Random
                }
            })
            .collect();
        let mut diff = 0.0;
        for seed in 0..40 {
            let (totals, _) =
                arena::play_duplicate(&game, &lineup, seed, &mut || false).expect("plays");
            diff += totals[0] - totals[1];
        }
        assert!(
            diff > 0.0,
            "{}: heuristic behind random by {diff}",
            game.name()
        );
    }
}

/// `deal_outcome` (what IS-MCTS judges a move by) is given exactly between the deals of a
/// match, is zero-sum, and agrees with the scores that deal added.
#[test]
fn deal_outcomes_appear_between_deals_and_are_zero_sum() {
    for name in list_games() {
        let game = new_game(name, &cardhouse::Options::new()).expect("defaults");
        let mut rng = SeededRng::new(3);
        let mut state = game.new_initial_state();
        let mut seen = 0;
        let mut steps = 0;
        while !state.is_terminal() && steps < 20_000 {
            if let Some(o) = state.deal_outcome() {
                assert!(state.is_chance_node(), "{name}: an outcome mid-deal");
                assert!(
                    o.iter().sum::<f64>().abs() < 1e-9,
                    "{name}: not zero-sum: {o:?}"
                );
                seen += 1;
            }
            match state.current_player() {
                Player::Chance => state.resolve_chance(&mut rng).expect("chance"),
                Player::Seat(_) => {
                    let a = state.legal_actions().choose(&mut rng).expect("legal");
                    state.apply(a).expect("legal");
                }
                Player::Terminal => break,
            }
            steps += 1;
        }
        assert!(
            seen > 0,
            "{name}: a match of several deals shows deal outcomes"
        );
    }
}

/// `ismcts_root` reports the search the `ismcts` bot makes: legal actions only, at most one
/// visit per iteration, the bot's choice among the most visited, a forced move as one visit.
#[test]
fn ismcts_root_statistics_are_the_bots_search() {
    let config = cardhouse::bots::IsmctsConfig {
        iterations: 30,
        ..Default::default()
    };
    let bot = BotKind::Ismcts(config.clone());
    for game in games() {
        decision_points(&game, 5, |state, seat| {
            let edges = state
                .ismcts_root(&config, seat, &mut SeededRng::new(4), &mut || false)
                .expect("search");
            let legal = state.legal_actions();
            assert!(
                edges.iter().all(|e| legal.contains(e.action)),
                "{}",
                game.name()
            );
            let visits: u32 = edges.iter().map(|e| e.visits).sum();
            if legal.len() == 1 {
                assert_eq!(
                    (edges.len(), visits),
                    (1, 1),
                    "{}: a forced move",
                    game.name()
                );
            } else {
                assert!(
                    (1..=30).contains(&visits),
                    "{}: {visits} visits",
                    game.name()
                );
            }
            let most = edges.iter().map(|e| e.visits).max().expect("an edge");
            let chosen = state
                .bot_action(&bot, seat, &mut SeededRng::new(4), &mut || false)
                .expect("bot");
            let edge = edges
                .iter()
                .find(|e| e.action == chosen)
                .expect("chosen edge");
            assert_eq!(
                edge.visits,
                most,
                "{}: the bot plays the most visited",
                game.name()
            );
        });
    }
    let game = &games()[0];
    let mut state = game.new_initial_state();
    state.resolve_chance(&mut SeededRng::new(1)).expect("deal");
    let Player::Seat(to_act) = state.current_player() else {
        panic!("a seat is to act after the deal")
    };
    let other = (to_act + 1) % game.num_players();
    let err = state.ismcts_root(&config, other, &mut SeededRng::new(1), &mut || false);
    assert!(
        matches!(err, Err(cardhouse::Error::WrongNode(_))),
        "{err:?}"
    );
}

/// `rollout_root` reports the estimates the `rollout` bot decides by: one entry per legal
/// action, each sampled on every determinization, the bot's choice of highest value; a
/// forced move unsampled.
#[test]
fn rollout_root_values_are_the_bots_choice() {
    let config = cardhouse::bots::RolloutConfig {
        samples: 4,
        ..Default::default()
    };
    let bot = BotKind::Rollout(config.clone());
    for game in games() {
        decision_points(&game, 6, |state, seat| {
            let values = state
                .rollout_root(&config, seat, &mut SeededRng::new(4), &mut || false)
                .expect("search");
            let legal = state.legal_actions();
            assert!(
                values.iter().all(|v| legal.contains(v.action)),
                "{}",
                game.name()
            );
            if legal.len() == 1 {
                assert_eq!((values.len(), values[0].samples), (1, 0), "{}", game.name());
                return;
            }
            assert_eq!(values.len(), legal.len(), "{}", game.name());
            assert!(values.iter().all(|v| v.samples == 4), "{}", game.name());
            let best = values.iter().map(|v| v.value).fold(f64::MIN, f64::max);
            let chosen = state
                .bot_action(&bot, seat, &mut SeededRng::new(4), &mut || false)
                .expect("bot");
            let v = values.iter().find(|v| v.action == chosen).expect("chosen");
            assert_eq!(
                v.value,
                best,
                "{}: the bot plays the best value",
                game.name()
            );
        });
    }
}

/// A Cribbage discard is judged as a pair: the first card's value is its best pair's, so the
/// pair the bot throws is the pair its first decision valued.
#[test]
fn rollout_judges_a_cribbage_discard_as_a_pair() {
    let game = new_game("cribbage", &options([("scope", "deal".into())])).expect("cribbage");
    let bot: BotKind = "rollout:30".parse().expect("bot");
    let mut rng = SeededRng::new(3);
    let mut state = game.new_initial_state();
    while state.is_chance_node() {
        state.resolve_chance(&mut rng).expect("deal");
    }
    let Player::Seat(seat) = state.current_player() else {
        panic!("a seat discards")
    };
    let first = state
        .bot_action(&bot, seat, &mut SeededRng::new(8), &mut || false)
        .expect("bot");
    let config = cardhouse::bots::RolloutConfig {
        samples: 30,
        ..Default::default()
    };
    let values = state
        .rollout_root(&config, seat, &mut SeededRng::new(8), &mut || false)
        .expect("search");
    assert_eq!(values.len(), 6, "six cards to choose from");
    // The two cards of the best pair share the best value (same determinizations).
    let best = values.iter().map(|v| v.value).fold(f64::MIN, f64::max);
    let tied = values.iter().filter(|v| v.value == best).count();
    assert!(
        tied >= 2,
        "both cards of the best pair are worth its value: {values:?}"
    );
    assert!(values.iter().any(|v| v.action == first && v.value == best));
}
