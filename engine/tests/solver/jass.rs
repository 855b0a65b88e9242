//! Jass: the solver against minimax in every mode and with every option that changes the
//! play or its value. (The first trick's Wys, which no minimax reaches here, are checked by
//! the unit tests of `games/jass/solve.rs` against the engine's own declarations.)

use cardhouse::games::jass::{JassGame, JassState, MODE_BASE, Phase};
use cardhouse::solve::Solver;
use cardhouse::{Game, SeededRng, State};

use super::{between, cases, check_against_minimax, deal_options, random_play_state};

/// The option sets tried: defaults, and each option of §16 that changes play or value.
const CONFIGS: &[&[(&str, &str)]] = &[
    &[],
    &[("wys", "auto")],
    &[("undertrump_rule", "allowed_if_cannot_overtrump")],
    &[
        ("undenufe_six_is_eleven", "true"),
        ("multiplier_scheme", "swisslos"),
    ],
    &[
        ("stoeck_suits", "any_suit"),
        ("match_bonus", "150"),
        ("last_trick_bonus", "7"),
    ],
    &[("multiplier_scheme", "none"), ("end_check", "immediate")],
];

fn left(s: &JassState) -> usize {
    (0..4).map(|p| s.hand(p).len()).sum()
}

/// A random state of a deal in `mode` (a mode action index 0..6) with at most `max` cards
/// left in the hands.
fn state_in_mode(game: &JassGame, rng: &mut SeededRng, mode: u32, max: usize) -> JassState {
    loop {
        let chosen = random_play_state(game, rng, |s| s.phase() == Phase::ChooseMode, left, 36)
            .expect("a deal to choose a mode in");
        let mut s = chosen;
        s.apply(MODE_BASE + mode).expect("a mode");
        while !s.is_terminal() && left(&s) > max {
            let a = s.legal_actions().choose(rng).expect("legal");
            s.apply(a).expect("legal");
        }
        if !s.is_terminal() {
            return s;
        }
    }
}

#[test]
fn solver_equals_minimax_with_three_tricks_left_in_every_mode() {
    let mut solver = Solver::new();
    for (i, config) in CONFIGS.iter().enumerate() {
        let game = JassGame::from_options(&deal_options(config)).expect("options");
        let mut rng = SeededRng::new(200 + i as u64);
        for mode in 0..6 {
            for _ in 0..cases(60, 6) {
                let max = between(&mut rng, 1, 12);
                let s = state_in_mode(&game, &mut rng, mode, max);
                check_against_minimax(&mut solver, &s);
            }
        }
    }
}
