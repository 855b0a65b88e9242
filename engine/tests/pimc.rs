//! The `pimc` bot (`cardhouse::bots::pimc`): its values are the mean of the exact solver's
//! over the worlds it draws for the seat; its choices are legal, deterministic for a seed and
//! blind to the cards the seat cannot see; decisions before the play and games without
//! tricks are IS-MCTS's. Positions are taken late in random deals (the last four tricks),
//! where a solve is cheap; its strength is a documented command (docs/bots.md), not a test.

use cardhouse::bots::pimc::{PimcConfig, WorldValue};
use cardhouse::bots::{BotKind, IsmctsConfig};
use cardhouse::solve::Solver;
use cardhouse::{AnyGame, AnyState, Player, SeededRng, new_game, options};

const TRICK_GAMES: [&str; 3] = ["jass", "klaberjass", "avinas"];

fn game(name: &str) -> AnyGame {
    new_game(name, &options([("scope", "deal".into())])).expect("deal scope")
}

/// The decisions of a random deal of `game`, in order, with the seat to act.
fn decisions(game: &AnyGame, seed: u64) -> Vec<(AnyState, usize)> {
    let mut rng = SeededRng::new(seed);
    let mut state = game.new_initial_state();
    let mut out = Vec::new();
    loop {
        match state.current_player() {
            Player::Chance => state.resolve_chance(&mut rng).expect("chance node"),
            Player::Seat(s) => {
                out.push((state.clone(), s));
                let a = state.legal_actions().choose(&mut rng).expect("legal");
                state.apply(a).expect("legal");
            }
            Player::Terminal => return out,
        }
    }
}

/// The decisions of the last four tricks of a random deal (four rounds of the table).
fn late_decisions(game: &AnyGame, seed: u64) -> Vec<(AnyState, usize)> {
    let mut all = decisions(game, seed);
    let keep = 4 * game.num_players();
    all.split_off(all.len().saturating_sub(keep))
}

fn pimc(worlds: u32) -> BotKind {
    BotKind::Pimc(PimcConfig {
        worlds,
        ..PimcConfig::default()
    })
}

/// A configuration of `worlds` worlds and no node budget to speak of.
fn unbounded(worlds: u32) -> PimcConfig {
    PimcConfig {
        worlds,
        world_nodes: u64::MAX,
    }
}

#[test]
fn the_values_are_the_solver_s_mean_over_the_worlds_drawn_for_the_seat() {
    for name in TRICK_GAMES {
        let game = game(name);
        for seed in 0..3 {
            for (state, seat) in late_decisions(&game, seed) {
                // Forced moves are not solved; a deal that ended before its play (an
                // annulled Klaberjass deal) has no play to solve.
                let in_play = cardhouse::solve::solve(state.solvable().expect("tricks")).is_ok();
                if state.legal_actions().len() < 2 || !in_play {
                    continue;
                }
                let config = unbounded(4);
                let values =
                    state.pimc_root(&config, seat, &mut SeededRng::new(seed), &mut || false);
                let values = values.unwrap_or_else(|e| panic!("{name}: {e}"));
                // The same worlds, drawn and solved here.
                let mut rng = SeededRng::new(seed);
                let mut solver = Solver::new();
                let mut sums = vec![0.0; values.len()];
                for _ in 0..4 {
                    let world = state.resample(seat, &mut rng).expect("a world");
                    let solution = solver
                        .solve(world.solvable().expect("tricks"))
                        .expect("play");
                    for (sum, (_, v)) in sums.iter_mut().zip(&solution.actions) {
                        *sum += f64::from(*v);
                    }
                }
                let legal: Vec<_> = state.legal_actions().iter().collect();
                let listed: Vec<_> = values.iter().map(|v| v.action).collect();
                assert_eq!(listed, legal, "{name}");
                for (v, sum) in values.iter().zip(&sums) {
                    assert_eq!(v.worlds, 4, "{name}");
                    assert!((v.value - sum / 4.0).abs() < 1e-9, "{name}: {v:?} {sum}");
                }
                // The bot plays the first action of the highest mean.
                let best = values
                    .iter()
                    .fold(None::<&WorldValue>, |b, v| match b {
                        Some(b) if b.value >= v.value => Some(b),
                        _ => Some(v),
                    })
                    .expect("an action");
                let chosen = state
                    .bot_action(
                        &BotKind::Pimc(config),
                        seat,
                        &mut SeededRng::new(seed),
                        &mut || false,
                    )
                    .expect("bot");
                assert_eq!(chosen, best.action, "{name}");
            }
        }
    }
}

/// States that differ only in what `seat` cannot see (drawn by `resample` for that seat)
/// get the same choice, with the same generator; and the choice is the same for a seed.
#[test]
fn pimc_does_not_cheat_and_is_deterministic() {
    for name in TRICK_GAMES {
        let game = game(name);
        for seed in 0..3 {
            let mut points = late_decisions(&game, 200 + seed);
            // And the first decision of the deal (before the play in every game).
            points.push(decisions(&game, 200 + seed).swap_remove(0));
            for (state, seat) in points {
                let mut draw = SeededRng::new(seed);
                let variants: Vec<AnyState> = (0..3)
                    .filter_map(|_| state.resample(seat, &mut draw).ok())
                    .collect();
                let pick = |s: &AnyState| {
                    s.bot_action(&pimc(3), seat, &mut SeededRng::new(77), &mut || false)
                        .expect("bot")
                };
                let real = pick(&state);
                assert!(state.legal_actions().contains(real), "{name}");
                assert_eq!(pick(&state), real, "{name}: not deterministic");
                for v in &variants {
                    assert_eq!(
                        pick(v),
                        real,
                        "{name}: the choice of seat {seat} depends on hidden cards"
                    );
                }
            }
        }
    }
}

/// Before the play (Jass's mode, Klaberjass's bids, Avinas's auction) the solver has nothing
/// to solve: the move is IS-MCTS's, with no worlds reported.
#[test]
fn before_the_play_pimc_defers_to_ismcts() {
    for name in TRICK_GAMES {
        let game = game(name);
        let (state, seat) = decisions(&game, 4).swap_remove(0);
        assert!(state.solvable().is_ok(), "{name} has a solver");
        let values = state
            .pimc_root(&unbounded(3), seat, &mut SeededRng::new(1), &mut || false)
            .expect("a move");
        assert_eq!(values.len(), 1, "{name}: one move, the fallback's");
        assert_eq!(values[0].worlds, 0, "{name}");
        assert!(state.legal_actions().contains(values[0].action), "{name}");
    }
}

/// Cribbage has no trick play to solve: every move is IS-MCTS's, with the same generator.
#[test]
fn in_cribbage_pimc_plays_as_ismcts() {
    let game = game("cribbage");
    for (state, seat) in decisions(&game, 6).into_iter().take(6) {
        let pick = |bot: &BotKind| {
            state
                .bot_action(bot, seat, &mut SeededRng::new(3), &mut || false)
                .expect("bot")
        };
        assert_eq!(
            pick(&pimc(5)),
            pick(&BotKind::Ismcts(IsmctsConfig::default())),
            "cribbage"
        );
    }
}

/// `stop` ends the sampling after the first world; a forced move is played unsolved.
#[test]
fn stop_ends_the_sampling_and_a_forced_move_is_not_solved() {
    let game = game("jass");
    let mut forced = 0;
    for (state, seat) in late_decisions(&game, 9) {
        let mut rng = SeededRng::new(2);
        let values = state
            .pimc_root(&unbounded(50), seat, &mut rng, &mut || true)
            .expect("a move");
        let legal = state.legal_actions().len();
        if legal == 1 {
            forced += 1;
            assert_eq!(values[0].worlds, 0);
        } else {
            assert!(values.iter().all(|v| v.worlds == 1), "{values:?}");
        }
    }
    assert!(forced > 0, "the last trick's moves are forced");
}

#[test]
fn pimc_names_parse_and_print() {
    assert_eq!("pimc".parse::<BotKind>(), Ok(pimc(20)));
    assert_eq!("pimc:7".parse::<BotKind>(), Ok(pimc(7)));
    assert_eq!(pimc(7).to_string(), "pimc:7");
    assert_eq!(pimc(20).to_string(), "pimc");
    for bad in ["pimc:0", "pimc:10001", "pimc:x"] {
        let e = bad.parse::<BotKind>().expect_err(bad).to_string();
        assert!(e.contains("pimc:N"), "{e}");
    }
}

/// A decision whose first world cannot be solved within `world_nodes` is the fallback's.
#[test]
fn a_world_over_the_node_budget_hands_the_decision_to_the_fallback() {
    let game = game("jass");
    let (state, seat) = late_decisions(&game, 12)
        .into_iter()
        .find(|(s, _)| s.legal_actions().len() > 2)
        .expect("a choice late in the deal");
    let tight = PimcConfig {
        worlds: 5,
        world_nodes: 1,
    };
    let values = state
        .pimc_root(&tight, seat, &mut SeededRng::new(1), &mut || false)
        .expect("a move");
    assert_eq!(values.len(), 1);
    assert_eq!(values[0].worlds, 0);
    let values = state
        .pimc_root(&unbounded(5), seat, &mut SeededRng::new(1), &mut || false)
        .expect("a move");
    assert!(values.iter().all(|v| v.worlds == 5));
}
