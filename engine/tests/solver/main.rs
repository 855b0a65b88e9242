//! The exact solver ([`cardhouse::solve`]) against a plain minimax written here (every legal
//! action tried through the State API to the end of the deal: no pruning, no table, no
//! merged cards), on random positions of every game, mode and option that changes the play,
//! with up to three tricks left; full deals on a small sample; equivalent cards; errors.
//!
//! One test binary, a module per game; the reference and the position samplers are here.
//! Case counts are smaller in debug builds (`cargo test` in CI) than in release.

mod avinas;
mod budget;
mod deals;
mod equivalent;
mod errors;
mod jass;
mod klaberjass;

use cardhouse::solve::{Solvable, Solver};
use cardhouse::{Action, Game, Options, Player, Rng, SeededRng, State, options};

/// Cases per check: `release` in release builds, `debug` in debug builds.
fn cases(release: usize, debug: usize) -> usize {
    if cfg!(debug_assertions) {
        debug
    } else {
        release
    }
}

/// Options from pairs, `scope = deal` added.
fn deal_options(pairs: &[(&str, &str)]) -> Options {
    let mut o = options([("scope", "deal".into())]);
    for (k, v) in pairs {
        o.insert((*k).to_owned(), (*v).into());
    }
    o
}

/// The value for seat 0's side of `state` under perfect play to the end of the deal, by
/// trying every action (the deal's `scope = deal` return at the end).
fn minimax<S: State>(state: &S) -> f64 {
    match state.current_player() {
        Player::Terminal => state.returns()[0],
        Player::Chance => panic!("a chance node inside trick play"),
        Player::Seat(seat) => {
            let values = state.legal_actions().iter().map(|a| {
                let mut child = state.clone();
                child.apply(a).expect("legal");
                minimax(&child)
            });
            if seat & 1 == 0 {
                values.fold(f64::NEG_INFINITY, f64::max)
            } else {
                values.fold(f64::INFINITY, f64::min)
            }
        }
    }
}

/// Checks the solver's values of every action at `state` against [`minimax`].
fn check_against_minimax<S: State + Solvable>(solver: &mut Solver, state: &S) {
    let solution = solver
        .solve(state)
        .unwrap_or_else(|e| panic!("{e}\n{state}"));
    let Player::Seat(seat) = state.current_player() else {
        panic!("not a seat to act")
    };
    assert_eq!(solution.seat, seat);
    let sign = if seat & 1 == 0 { 1.0 } else { -1.0 };
    let legal: Vec<Action> = state.legal_actions().iter().collect();
    let listed: Vec<Action> = solution.actions.iter().map(|&(a, _)| a).collect();
    assert_eq!(listed, legal, "{state}");
    for &(a, v) in &solution.actions {
        let mut child = state.clone();
        child.apply(a).expect("legal");
        let expected = sign * minimax(&child);
        assert_eq!(
            f64::from(v),
            expected,
            "action {} ({a}) at\n{state}\nsolution {solution:?}",
            state.action_to_string(a)
        );
    }
    let best = solution
        .actions
        .iter()
        .map(|&(_, v)| v)
        .max()
        .expect("an action");
    assert_eq!(solution.value, best);
    assert_eq!(solver.value(state).expect("solvable"), best, "{state}");
}

/// A random state of `game` in trick play with at most `cards_left` cards in all hands, or
/// `None` if the deal ended before (an annulled deal, a stop). Actions before play are
/// random; `skip` decides which states of play to pass over.
fn random_play_state<G: Game>(
    game: &G,
    rng: &mut SeededRng,
    in_play: impl Fn(&G::State) -> bool,
    cards_left: impl Fn(&G::State) -> usize,
    max_left: usize,
) -> Option<G::State> {
    let mut state = game.new_initial_state();
    loop {
        match state.current_player() {
            Player::Terminal => return None,
            Player::Chance => state.resolve_chance(rng),
            Player::Seat(_) => {
                if in_play(&state) && cards_left(&state) <= max_left {
                    return Some(state);
                }
                let a = state.legal_actions().choose(rng).expect("legal");
                state.apply(a).expect("legal");
            }
        }
    }
}

/// A random number in `lo..=hi`.
fn between(rng: &mut SeededRng, lo: usize, hi: usize) -> usize {
    lo + rng.below((hi - lo + 1) as u64) as usize
}
