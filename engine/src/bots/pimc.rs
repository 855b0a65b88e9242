//! The `pimc` bot: perfect-information Monte Carlo (Ginsberg's GIB, "GIB: Imperfect
//! Information in a Computationally Challenging Game", 2001; Long, Sturtevant, Buro and
//! Furtak, "Understanding the Success of Perfect Information Monte Carlo Sampling in Game
//! Tree Search", 2010).
//!
//! For a decision of the card play, `worlds` determinizations are drawn for the deciding
//! seat ([`State::resample`]: consistent with what the seat knows, never the real hidden
//! cards), each is solved exactly by [`crate::solve`] (every card known, every seat playing
//! perfectly to the end of the deal), and the move is the legal action with the best mean
//! value over the worlds (ties to the lower id). Every world gives every legal action a value
//! (the seat's legal actions depend on its own cards and the public ones only, so they are
//! the same in every world).
//!
//! Decisions the solver does not take (Jass's choice of the mode and schieben, Klaberjass's
//! bidding and the Dix exchange, Avinas's auction; every decision of Cribbage, which has no
//! trick play to solve) are made by the `ismcts` bot at its default budget, which plays those
//! decisions better than the heuristic (see `docs/bots.md`). Avinas's knock and double and
//! the bidding game's opening lead are solved like the card play: the solver values them by
//! the play that follows.
//!
//! The values are the deal's (the solver's, whatever the `scope`): under `scope = match`
//! the bot plays each deal for its score. The budget is `worlds` solves per decision, each
//! of at most `world_nodes` nodes: a solve from the first tricks of a Jass deal is far
//! costlier than one late in a deal (see [`crate::solve`]), and a decision whose first world
//! cannot be solved within the nodes is the fallback's too (a later world over them ends
//! the sampling). The caller's `stop` ends the sampling early (at least one world is always
//! solved). Pure and deterministic for the generator it is given: the node budget does not
//! depend on the machine.

use super::ismcts::{self, IsmctsConfig};
use crate::solve::{Solution, Solver};
use crate::{Action, Error, Rng, State};

/// PIMC bot parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PimcConfig {
    /// Worlds (determinizations) solved per decision of the card play.
    pub worlds: u32,
    /// Most nodes one world's solve may search ([`Solver::solve_within`]). A first world
    /// over it hands the decision to the fallback (the solves are too costly this early in
    /// the deal: the first tricks of Jass); a later one ends the sampling.
    pub world_nodes: u64,
}

impl Default for PimcConfig {
    /// 20 worlds a decision, 200,000 nodes a world.
    fn default() -> Self {
        PimcConfig {
            worlds: 20,
            world_nodes: 200_000,
        }
    }
}

/// Failed determinizations, with none successful, after which the heuristic decides.
const FAILURES_BEFORE_FALLBACK: u32 = 8;

/// Entries of the solver's table for one decision (3 MiB): allocated once a decision and
/// shared by its worlds (the table stays exact across them).
const TABLE_ENTRIES: usize = 1 << 16;

/// The mean value of one legal action over the solved worlds ([`root_values`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorldValue {
    /// The action.
    pub action: Action,
    /// Its mean value over the worlds, for the side of the deciding seat (the deal's result
    /// for that side in the game's points, as [`crate::solve::Solution`] gives it).
    pub value: f64,
    /// Worlds solved (0: not solved, a move made by the fallback bot).
    pub worlds: u32,
}

/// The action the pimc bot chooses for `seat` (to act in `root`): the highest
/// [`root_values`] entry (ties to the lower action id).
///
/// # Errors
/// As [`root_values`].
pub fn search<S: State, R: Rng + ?Sized>(
    root: &S,
    seat: usize,
    config: &PimcConfig,
    rng: &mut R,
    stop: &mut dyn FnMut() -> bool,
) -> Result<Action, Error> {
    let values = root_values(root, seat, config, rng, stop)?;
    super::best_valued(&values, |v| v.value, |v| v.action)
}

/// One entry per legal action of `seat` (ascending ids) with its mean value over the solved
/// worlds, from what `seat` knows only. A single legal action is played without solving; a
/// decision the solver does not take is the `ismcts` bot's (one entry, no worlds), and so is
/// one where no world could be drawn.
///
/// # Errors
/// [`Error::GameOver`] if `seat` has no legal action; an error of the fallback bot.
pub fn root_values<S: State, R: Rng + ?Sized>(
    root: &S,
    seat: usize,
    config: &PimcConfig,
    rng: &mut R,
    stop: &mut dyn FnMut() -> bool,
) -> Result<Vec<WorldValue>, Error> {
    let unsolved = |action: Action| {
        vec![WorldValue {
            action,
            value: 0.0,
            worlds: 0,
        }]
    };
    let legal = root.legal_actions();
    if legal.len() <= 1 {
        return legal.iter().next().map(unsolved).ok_or(Error::GameOver);
    }
    let fallback = |rng: &mut R, stop: &mut dyn FnMut() -> bool| {
        ismcts::search(root, seat, &IsmctsConfig::default(), rng, stop).map(unsolved)
    };
    // A game without trick play has no solver: no world is drawn.
    if root.solvable().is_err() {
        return fallback(rng, stop);
    }
    let mut values: Vec<WorldValue> = legal
        .iter()
        .map(|action| WorldValue {
            action,
            value: 0.0,
            worlds: 0,
        })
        .collect();
    let mut solver: Option<Solver> = None;
    let (mut solved, mut failures, mut attempts) = (0u32, 0u32, 0u32);
    while attempts < config.worlds.max(1) {
        attempts += 1;
        if solved > 0 && stop() {
            break;
        }
        let Ok(world) = root.resample(seat, rng) else {
            failures += 1;
            if solved == 0 && failures >= FAILURES_BEFORE_FALLBACK {
                return root.heuristic_action(seat, rng).map(unsolved);
            }
            continue;
        };
        let solver = solver.get_or_insert_with(|| Solver::with_table_entries(TABLE_ENTRIES));
        let solution = world
            .solvable()
            .and_then(|w| solver.solve_within(w, config.world_nodes));
        let solution = match solution {
            Ok(Some(s)) => s,
            // Too costly to solve: the first world hands the decision to the fallback, a
            // later one ends the sampling.
            Ok(None) if solved == 0 => return fallback(rng, stop),
            Ok(None) => break,
            // Whether the solver takes a state depends on its phase only (public), so the
            // first world answers for every world: a decision before the play.
            Err(Error::WrongNode(_)) if solved == 0 => return fallback(rng, stop),
            Err(e) => return Err(e),
        };
        add(&mut values, &solution)?;
        solved += 1;
    }
    if solved == 0 {
        return root.heuristic_action(seat, rng).map(unsolved);
    }
    for v in &mut values {
        v.value /= f64::from(v.worlds.max(1));
    }
    Ok(values)
}

/// Adds one world's solution to the sums of `values` (the same legal actions, ascending).
///
/// # Errors
/// [`Error::ResampleFailed`] if the world's legal actions are not the seat's (a world that
/// contradicts what the seat knows: a bug of the game's `resample`).
fn add(values: &mut [WorldValue], solution: &Solution) -> Result<(), Error> {
    let same = solution.actions.len() == values.len()
        && values
            .iter()
            .zip(&solution.actions)
            .all(|(v, &(a, _))| v.action == a);
    if !same {
        return Err(Error::ResampleFailed {
            seat: solution.seat,
            reason: "a world of the pimc bot has other legal actions than the seat".into(),
        });
    }
    for (v, &(_, value)) in values.iter_mut().zip(&solution.actions) {
        v.value += f64::from(value);
        v.worlds += 1;
    }
    Ok(())
}
