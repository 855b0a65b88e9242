//! Jass: the solver against minimax in every mode and with every option that changes the
//! play or its value; the first trick's Wys against minimax over the trick's decisions.

use cardhouse::games::jass::{JassGame, JassState, MODE_BASE, Phase};
use cardhouse::solve::Solver;
use cardhouse::{Game, Player, Rng, SeededRng, State};

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

/// The value for team 0 of `state` in the first trick by trying every action (Wys items and
/// cards) until the trick is complete, and the solver from there (its card play is checked
/// against minimax above).
fn first_trick_minimax(solver: &mut Solver, state: &JassState) -> i32 {
    if state.tricks_won()[0] + state.tricks_won()[1] > 0 {
        let v = solver.value(state).expect("solvable");
        return if state.current_player() == Player::Seat(0)
            || state.current_player() == Player::Seat(2)
        {
            v
        } else {
            -v
        };
    }
    let Player::Seat(seat) = state.current_player() else {
        panic!("a seat to act")
    };
    let values = state.legal_actions().iter().map(|a| {
        let mut child = state.clone();
        child.apply(a).expect("legal");
        first_trick_minimax(solver, &child)
    });
    if seat & 1 == 0 {
        values.max().expect("an action")
    } else {
        values.min().expect("an action")
    }
}

#[test]
fn first_trick_wys_equal_minimax_over_the_trick() {
    let mut solver = Solver::new();
    for (i, config) in [&[][..], &[("wys", "auto")][..]].iter().enumerate() {
        let game = JassGame::from_options(&deal_options(config)).expect("options");
        let mut rng = SeededRng::new(300 + i as u64);
        for k in 0..cases(3, 0) {
            let mut s = state_in_mode(&game, &mut rng, k as u32 % 6, 36);
            // Into the first trick: the last card (and its Wys) to decide.
            while (0..4).map(|p| s.hand(p).len()).sum::<usize>() > 33 {
                let legal: Vec<_> = s.legal_actions().iter().filter(|&a| a < 36).collect();
                s.apply(legal[rng.below(legal.len() as u64) as usize])
                    .expect("legal");
            }
            let solution = solver.solve(&s).expect("solvable");
            let seat = solution.seat;
            let sign = if seat & 1 == 0 { 1 } else { -1 };
            for &(a, v) in &solution.actions {
                let mut child = s.clone();
                child.apply(a).expect("legal");
                assert_eq!(v, sign * first_trick_minimax(&mut solver, &child), "{s}");
            }
        }
    }
}
