//! Equivalent cards get equal values: two cards of one suit in one hand, next to each other
//! in the mode's rank order and both worth no points, are the same move. (Every value is
//! also checked against minimax in the game modules; this checks the invariance itself, on
//! more positions, and that such pairs are met.)

use cardhouse::games::avinas::{AvinasGame, AvinasState, Phase as AvinasPhase};
use cardhouse::games::jass::{JassGame, JassState, Mode, Phase as JassPhase};
use cardhouse::games::klaberjass::{KlaberjassGame, KlaberjassState, Phase as KlaberjassPhase};
use cardhouse::solve::{Solvable, Solver};
use cardhouse::{Action, Card, Game, Player, Rank, SeededRng, State, Suit};

use super::{between, cases, deal_options, random_play_state};

/// Checks every pair of legal actions `equivalent` names at `state`; returns how many.
fn check_pairs<S: State + Solvable>(
    solver: &mut Solver,
    state: &S,
    equivalent: impl Fn(Action, Action) -> bool,
) -> usize {
    let solution = solver.solve(state).expect("solvable");
    let mut pairs = 0;
    for &(a, va) in &solution.actions {
        for &(b, vb) in &solution.actions {
            if a < b && equivalent(a, b) {
                assert_eq!(
                    va,
                    vb,
                    "{} and {} at\n{state}",
                    state.action_to_string(a),
                    state.action_to_string(b)
                );
                pairs += 1;
            }
        }
    }
    pairs
}

/// Two cards of `suit` of ranks next to each other (natural order), both among `ranks`.
fn low_pair(a: Card, b: Card, ranks: &[Rank]) -> bool {
    a.suit() == b.suit()
        && (a.rank() as i32 - b.rank() as i32).abs() == 1
        && ranks.contains(&a.rank())
        && ranks.contains(&b.rank())
}

#[test]
fn jass_equivalent_cards_have_equal_values() {
    let mut solver = Solver::new();
    let game = JassGame::from_options(&deal_options(&[])).expect("options");
    let mut rng = SeededRng::new(600);
    let mut pairs = 0;
    for _ in 0..cases(300, 30) {
        let max = between(&mut rng, 4, 16);
        let s: JassState = random_play_state(
            &game,
            &mut rng,
            |s| s.phase() == JassPhase::Play,
            |s| (0..4).map(|p| s.hand(p).len()).sum(),
            max,
        )
        .expect("a deal played");
        let mode = s.mode().expect("a mode");
        let card = |a: Action| cardhouse::games::jass::action_card(a);
        pairs += check_pairs(&mut solver, &s, |a, b| {
            let (Some(x), Some(y)) = (card(a), card(b)) else {
                return false;
            };
            // Worthless neighbours: 6-7 in every mode, 7-8 but in Obenabe and Undenufe
            // (where the 8 is worth 8), 8-9 of a suit other than trump in a trump game.
            let plain_of_trump_game = matches!(mode, Mode::Trump(t) if t != x.suit());
            let ranks: &[Rank] = match mode {
                Mode::Obenabe | Mode::Undenufe => &[Rank::Six, Rank::Seven],
                Mode::Trump(_) if plain_of_trump_game => {
                    &[Rank::Six, Rank::Seven, Rank::Eight, Rank::Nine]
                }
                Mode::Trump(_) => &[Rank::Six, Rank::Seven, Rank::Eight],
            };
            low_pair(x, y, ranks)
        });
    }
    assert!(pairs >= cases(10, 1), "{pairs}");
}

#[test]
fn klaberjass_equivalent_cards_have_equal_values() {
    let mut solver = Solver::new();
    let game = KlaberjassGame::from_options(&deal_options(&[])).expect("options");
    let mut rng = SeededRng::new(601);
    let mut pairs = 0;
    let mut done = 0;
    while done < cases(300, 30) {
        let max = between(&mut rng, 4, 18);
        // `None`: an annulled deal.
        let Some(s): Option<KlaberjassState> = random_play_state(
            &game,
            &mut rng,
            |s| s.phase() == KlaberjassPhase::Play,
            |s| s.hand(0).len() + s.hand(1).len(),
            max,
        ) else {
            continue;
        };
        done += 1;
        let trump = s.trump().expect("trump");
        let card = |a: Action| cardhouse::games::klaberjass::action_card(a);
        pairs += check_pairs(&mut solver, &s, |a, b| {
            let (Some(x), Some(y)) = (card(a), card(b)) else {
                return false;
            };
            // 7-8 in every suit (the trump order ends 8 7), 8-9 outside trumps.
            let ranks: &[Rank] = if x.suit() == trump {
                &[Rank::Seven, Rank::Eight]
            } else {
                &[Rank::Seven, Rank::Eight, Rank::Nine]
            };
            low_pair(x, y, ranks)
        });
    }
    assert!(pairs >= cases(10, 1), "{pairs}");
}

#[test]
fn avinas_equivalent_cards_have_equal_values() {
    let mut solver = Solver::new();
    let game = AvinasGame::from_options(&deal_options(&[])).expect("options");
    let mut rng = SeededRng::new(602);
    let mut pairs = 0;
    let mut done = 0;
    while done < cases(300, 30) {
        let max = between(&mut rng, 4, 16);
        let Some(s): Option<AvinasState> = random_play_state(
            &game,
            &mut rng,
            |s| s.phase() == AvinasPhase::Play && s.trump().is_some(),
            |s| (0..4).map(|p| s.hand(p).len()).sum(),
            max,
        ) else {
            continue;
        };
        done += 1;
        let Player::Seat(_) = s.current_player() else {
            continue;
        };
        let trump: Suit = s.trump().expect("trump");
        let card = |a: Action| cardhouse::games::avinas::action_card(a);
        pairs += check_pairs(&mut solver, &s, |a, b| {
            let (Some(x), Some(y)) = (card(a), card(b)) else {
                return false;
            };
            // Plain suits end 9 8 7; the trump suit's own cards end 9 8.
            let ranks: &[Rank] = if x.suit() == trump {
                &[Rank::Eight, Rank::Nine]
            } else {
                &[Rank::Seven, Rank::Eight, Rank::Nine]
            };
            low_pair(x, y, ranks)
        });
        // A card led face down at trick 2 is the same card as led face up.
        let solution = solver.solve(&s).expect("solvable");
        for &(a, v) in &solution.actions {
            if (32..64).contains(&a) {
                assert_eq!(solution.value_of(a - 32), Some(v));
            }
        }
    }
    assert!(pairs >= cases(10, 1), "{pairs}");
}
