//! `Solver::solve_within`: a solve given up past its node budget says so and leaves a table
//! that gives exact values after; a solve within its budget is the solve.

use cardhouse::games::jass::{JassGame, Phase as JassPhase};
use cardhouse::solve::Solver;
use cardhouse::{Game, SeededRng};

use super::{deal_options, random_play_state};

#[test]
fn a_solve_over_its_node_budget_is_given_up_and_changes_nothing() {
    let game = JassGame::from_options(&deal_options(&[])).expect("options");
    let mut rng = SeededRng::new(71);
    let state = random_play_state(
        &game,
        &mut rng,
        |s| s.phase() == JassPhase::Play,
        |s| (0..4).map(|p| s.hand(p).len()).sum(),
        12,
    )
    .expect("a deal played");
    let exact = Solver::new().solve(&state).expect("solvable");
    let mut solver = Solver::new();
    let before = solver.nodes();
    assert_eq!(solver.solve_within(&state, 5), Ok(None));
    assert!(solver.nodes() - before > 5);
    assert_eq!(solver.solve(&state), Ok(exact.clone()));
    let spent = {
        let mut fresh = Solver::new();
        fresh.solve(&state).expect("solvable");
        fresh.nodes()
    };
    let mut fresh = Solver::new();
    assert_eq!(fresh.solve_within(&state, spent), Ok(Some(exact)));
}
