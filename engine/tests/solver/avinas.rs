//! Avinas: the solver against minimax in both kinds of deal, with knocks and doubles, early
//! stops, and every option that changes the play or its value.

use cardhouse::games::avinas::{AvinasGame, AvinasState, Kind, Phase};
use cardhouse::solve::Solver;
use cardhouse::{Game, SeededRng};

use super::{between, cases, check_against_minimax, deal_options, random_play_state};

/// The option sets tried: defaults, and each option of §17 that changes play or value.
const CONFIGS: &[&[(&str, &str)]] = &[
    &[],
    &[
        ("schwarz_basis", "tricks"),
        ("all_tricks_loss_rams", "double_base"),
    ],
    &[
        ("early_stop_in_sevens_game", "true"),
        ("early_stop_allowed", "false"),
    ],
];

fn left(s: &AvinasState) -> usize {
    (0..4).map(|p| s.hand(p).len()).sum()
}

fn solvable(s: &AvinasState) -> bool {
    matches!(
        s.phase(),
        Phase::Play | Phase::StopChoice | Phase::Knock | Phase::Double
    )
}

#[test]
fn solver_equals_minimax_with_three_tricks_left() {
    let mut solver = Solver::new();
    for (i, config) in CONFIGS.iter().enumerate() {
        let game = AvinasGame::from_options(&deal_options(config)).expect("options");
        let mut rng = SeededRng::new(400 + i as u64);
        let mut done = [0usize; 2];
        while done.iter().min() < Some(&cases(400, 40)) {
            let max = between(&mut rng, 1, 12);
            let Some(s) = random_play_state(&game, &mut rng, solvable, left, max) else {
                continue;
            };
            let k = usize::from(s.kind() == Some(Kind::Sevens));
            check_against_minimax(&mut solver, &s);
            done[k] += 1;
        }
    }
}
