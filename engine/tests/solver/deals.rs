//! Whole deals: from an early state to the end, every action's value equals the solved value
//! of the state it leads to, and the last one equals the deal's return. This checks the
//! deep values (no minimax can reach them) for consistency down to the real score.

use cardhouse::games::avinas::{AvinasGame, Phase as AvinasPhase};
use cardhouse::games::jass::{JassGame, Phase as JassPhase};
use cardhouse::games::klaberjass::{KlaberjassGame, Phase as KlaberjassPhase};
use cardhouse::solve::{Solvable, Solver};
use cardhouse::{Game, Player, SeededRng, State};

use super::{cases, deal_options, random_play_state};

/// Plays random actions from `state` to the end of the deal, checking each action's value
/// against the solved value of the state it leads to, and the last against the return.
fn follow<S: State + Solvable>(solver: &mut Solver, state: &S, rng: &mut SeededRng) -> usize {
    let mut s = state.clone();
    let mut solution = solver.solve(&s).expect("solvable");
    let mut steps = 0;
    loop {
        let a = s.legal_actions().choose(rng).expect("legal");
        let v = solution.value_of(a).expect("a legal action's value");
        let mut child = s.clone();
        child.apply(a).expect("legal");
        steps += 1;
        match child.current_player() {
            Player::Terminal => {
                assert_eq!(child.returns()[solution.seat], f64::from(v), "{s}");
                return steps;
            }
            Player::Seat(_) => {
                let next = solver.solve(&child).expect("solvable");
                let same_side = next.seat & 1 == solution.seat & 1;
                let seen = if same_side { next.value } else { -next.value };
                assert_eq!(seen, v, "{} at\n{s}", s.action_to_string(a));
                assert_eq!(next.value, solver.value(&child).expect("solvable"));
                s = child;
                solution = next;
            }
            Player::Chance => panic!("a chance node in trick play"),
        }
    }
}

#[test]
fn klaberjass_deals_from_the_first_lead() {
    let mut solver = Solver::new();
    let game = KlaberjassGame::from_options(&deal_options(&[])).expect("options");
    let mut rng = SeededRng::new(500);
    let mut done = 0;
    while done < cases(6, 2) {
        // `None`: an annulled deal.
        if let Some(s) = random_play_state(
            &game,
            &mut rng,
            |s| s.phase() == KlaberjassPhase::Play,
            |s| s.hand(0).len() + s.hand(1).len(),
            18,
        ) {
            assert_eq!(follow(&mut solver, &s, &mut rng), 18);
            done += 1;
        }
    }
}

#[test]
fn avinas_deals_from_the_knock_or_the_opening_lead() {
    let mut solver = Solver::new();
    let game = AvinasGame::from_options(&deal_options(&[])).expect("options");
    let mut rng = SeededRng::new(501);
    // Debug builds start later: the full deal's heaviest cases take long unoptimized.
    let max = if cfg!(debug_assertions) { 20 } else { 32 };
    let mut done = 0;
    while done < cases(6, 2) {
        let Some(s) = random_play_state(
            &game,
            &mut rng,
            |s| {
                matches!(
                    s.phase(),
                    AvinasPhase::Knock | AvinasPhase::Play | AvinasPhase::StopChoice
                )
            },
            |s| (0..4).map(|p| s.hand(p).len()).sum(),
            max,
        ) else {
            continue;
        };
        follow(&mut solver, &s, &mut rng);
        done += 1;
    }
}

#[test]
fn jass_deals_from_a_late_trick() {
    let mut solver = Solver::new();
    for (i, config) in [&[][..], &[("stoeck_suits", "any_suit")][..]]
        .iter()
        .enumerate()
    {
        let game = JassGame::from_options(&deal_options(config)).expect("options");
        let mut rng = SeededRng::new(502 + i as u64);
        let left = if cfg!(debug_assertions) { 12 } else { 20 };
        for _ in 0..cases(3, 1) {
            let s = random_play_state(
                &game,
                &mut rng,
                |s| s.phase() == JassPhase::Play,
                |s| (0..4).map(|p| s.hand(p).len()).sum(),
                left,
            )
            .expect("a deal played");
            follow(&mut solver, &s, &mut rng);
        }
    }
}
