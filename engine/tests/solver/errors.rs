//! States the solver does not handle give a precise error, never a panic.

use cardhouse::games::avinas::{AvinasGame, Phase as AvinasPhase};
use cardhouse::games::cribbage::CribbageGame;
use cardhouse::games::jass::{JassGame, Phase as JassPhase};
use cardhouse::games::klaberjass::{KlaberjassGame, Phase as KlaberjassPhase};
use cardhouse::solve::{Solvable, Solver, solve, unsupported_game};
use cardhouse::{Error, Game, SeededRng, State};

use super::deal_options;

/// The solver's error at `state`, with its message checked to say what is needed.
fn error_at<S: State + Solvable>(state: &S) -> String {
    let e = solve(state).expect_err("not solvable");
    assert!(matches!(e, Error::WrongNode(_)), "{e:?}");
    assert_eq!(Solver::new().value(state).expect_err("not solvable"), e);
    let text = e.to_string();
    assert!(text.contains("the solver needs"), "{text}");
    text
}

/// Random actions from a new game until `stop` holds (a new deal if the game ends first).
fn walk<G: Game>(game: &G, seed: u64, stop: impl Fn(&G::State) -> bool) -> G::State {
    let mut rng = SeededRng::new(seed);
    let mut s = game.new_initial_state();
    while !stop(&s) {
        if s.is_terminal() {
            s = game.new_initial_state();
        } else if s.is_chance_node() {
            s.apply_random_chance(&mut rng).expect("chance");
        } else {
            let a = s.legal_actions().choose(&mut rng).expect("legal");
            s.apply(a).expect("legal");
        }
    }
    s
}

#[test]
fn jass_outside_play_is_an_error() {
    let game = JassGame::from_options(&deal_options(&[])).expect("options");
    let s = game.new_initial_state();
    assert!(error_at(&s).contains("Deal phase"));
    let s = walk(&game, 1, |s| s.phase() == JassPhase::ChooseMode);
    assert!(error_at(&s).contains("ChooseMode phase"));
    let s = walk(&game, 2, State::is_terminal);
    assert!(error_at(&s).contains("Over phase"));
}

#[test]
fn klaberjass_outside_play_is_an_error() {
    let game = KlaberjassGame::from_options(&deal_options(&[])).expect("options");
    assert!(error_at(&game.new_initial_state()).contains("phase"));
    let s = walk(&game, 3, |s| s.phase() == KlaberjassPhase::BidTurnUp);
    assert!(error_at(&s).contains("BidTurnUp phase"));
    let s = walk(&game, 4, |s| s.phase() == KlaberjassPhase::Announce);
    assert!(error_at(&s).contains("Announce phase"));
    let s = walk(&game, 5, State::is_terminal);
    assert!(error_at(&s).contains("Over phase"));
}

#[test]
fn avinas_outside_play_is_an_error() {
    let game = AvinasGame::from_options(&deal_options(&[])).expect("options");
    assert!(error_at(&game.new_initial_state()).contains("phase"));
    let s = walk(&game, 6, |s| s.phase() == AvinasPhase::Bid);
    assert!(error_at(&s).contains("Bid phase"));
    let s = walk(&game, 7, State::is_terminal);
    assert!(error_at(&s).contains("Over phase"));
}

#[test]
fn a_game_without_tricks_has_its_error() {
    let game = CribbageGame::from_options(&deal_options(&[])).expect("options");
    let mut state = game.new_initial_state();
    state.resolve_chance(&mut SeededRng::new(1));
    let Err(e) = state.solvable() else {
        panic!("cribbage is solvable")
    };
    assert_eq!(e, unsupported_game("cribbage"));
    assert!(matches!(e, Error::WrongNode(_)));
    assert!(e.to_string().contains("cribbage cannot be solved"), "{e}");
    // And through the registry.
    let any = cardhouse::new_game("cribbage", &deal_options(&[])).expect("options");
    let Err(e) = any.new_initial_state().solvable() else {
        panic!("cribbage is solvable")
    };
    assert_eq!(e, unsupported_game("cribbage"));
}

#[test]
fn the_registry_solves_the_games_with_tricks() {
    for name in ["jass", "klaberjass", "avinas"] {
        let game = cardhouse::new_game(name, &deal_options(&[])).expect("options");
        let mut state = game.new_initial_state();
        let mut rng = SeededRng::new(5);
        let mut decisions = Vec::new();
        while !state.is_terminal() {
            if state.is_chance_node() {
                state.resolve_chance(&mut rng).expect("chance");
            } else {
                decisions.push(state.clone());
                let a = state.legal_actions().choose(&mut rng).expect("legal");
                state.apply(a).expect("legal");
            }
        }
        // The last decisions of a deal are in its last tricks.
        let mut solver = Solver::new();
        for s in decisions.iter().rev().take(6) {
            let solvable = s.solvable().expect("a game with tricks");
            let solution = solver.solve(solvable).expect("a state of play");
            let listed: Vec<_> = solution.actions.iter().map(|&(a, _)| a).collect();
            let legal: Vec<_> = s.legal_actions().iter().collect();
            assert_eq!(listed, legal, "{name}");
            assert_eq!(solver.value(solvable), Ok(solution.value), "{name}");
        }
    }
}
