//! Klaberjass: the solver against minimax, every maker-tie rule.

use cardhouse::games::klaberjass::{KlaberjassGame, KlaberjassState, Phase};
use cardhouse::solve::Solver;
use cardhouse::{Game, SeededRng};

use super::{between, cases, check_against_minimax, deal_options, random_play_state};

fn left(s: &KlaberjassState) -> usize {
    s.hand(0).len() + s.hand(1).len()
}

fn in_play(s: &KlaberjassState) -> bool {
    s.phase() == Phase::Play
}

#[test]
fn solver_equals_minimax_with_three_tricks_left() {
    let mut solver = Solver::new();
    for (i, rule) in ["opponent_scores_own", "hang"].iter().enumerate() {
        let game = KlaberjassGame::from_options(&deal_options(&[("maker_tie_rule", rule)]))
            .expect("options");
        let mut rng = SeededRng::new(100 + i as u64);
        let mut done = 0;
        while done < cases(1500, 150) {
            let max = between(&mut rng, 1, 6);
            if let Some(s) = random_play_state(&game, &mut rng, in_play, left, max) {
                check_against_minimax(&mut solver, &s);
                done += 1;
            }
        }
    }
}
