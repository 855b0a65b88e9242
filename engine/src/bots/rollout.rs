//! The `rollout` bot: flat Monte Carlo over determinizations with common random numbers, a
//! one-step *rollout policy improvement* of the game's heuristic (Bertsekas and Tsitsiklis;
//! Tesauro and Galperin, "On-line policy improvement using Monte-Carlo search", 1996).
//!
//! For each of `samples` determinizations ([`State::resample`] for the deciding seat, never
//! the real hidden cards) and each *plan* of the seat (a root action, and when the same seat
//! is to act again right after it, each of its next actions too, up to `depth` actions: a
//! Cribbage discard of two cards is one plan of two actions), the determinization is played
//! out from the plan with the heuristic on every seat to the end of the deal. Every plan sees
//! the same determinizations and the same playout generator seed per determinization (common
//! random numbers), so the differences between plans are measured with far less noise than
//! independent samples would give. A root action is worth its best plan's mean return; the
//! move is the action worth most. With enough samples this cannot do worse than the heuristic
//! on average, since the heuristic's own plan is among those compared.
//!
//! The budget is `samples` determinizations, or `playouts` playouts per decision shared out
//! among its plans. Pure and deterministic for the generator it is given; the caller's
//! `stop` ends the sampling early (at least one determinization is always completed).

use crate::{Action, Error, Player, Rng, SeededRng, State};

/// Rollout bot parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct RolloutConfig {
    /// Determinizations per decision (each plays every plan out once).
    pub samples: u32,
    /// The most consecutive own actions a plan holds (1: the root action alone).
    pub depth: u8,
    /// A budget of playouts per decision instead (0: none): the determinizations are this
    /// divided by the number of plans (at least one), so a decision among few plans (a
    /// Cribbage play) is sampled more than one among many (a discard).
    pub playouts: u32,
}

impl Default for RolloutConfig {
    /// 100 determinizations; plans of up to two actions (a Cribbage discard).
    fn default() -> Self {
        RolloutConfig {
            samples: 100,
            depth: 2,
            playouts: 0,
        }
    }
}

/// Failed determinizations, with none successful, after which the heuristic decides.
const FAILURES_BEFORE_FALLBACK: u32 = 8;

/// The estimate of one root action ([`root_values`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ActionValue {
    /// The action.
    pub action: Action,
    /// The mean return of `seat` of the action's best plan (0 without sampling).
    pub value: f64,
    /// Determinizations that played it out (0: not sampled, a forced or fallback move).
    pub samples: u32,
}

/// The action the rollout bot chooses for `seat` (to act in `root`): the highest
/// [`root_values`] entry (ties to the earlier legal action).
///
/// # Errors
/// As [`root_values`].
pub fn search<S: State, R: Rng + ?Sized>(
    root: &S,
    seat: usize,
    config: &RolloutConfig,
    rng: &mut R,
    stop: &mut dyn FnMut() -> bool,
) -> Result<Action, Error> {
    let values = root_values(root, seat, config, rng, stop)?;
    super::best_valued(&values, |v| v.value, |v| v.action)
}

/// One entry per legal action of `seat` (in the order of the legal set) with its estimated
/// value, from what `seat` knows only. A single legal action, or no determinization drawn
/// (then the heuristic's move), gives that one action with no samples.
///
/// # Errors
/// [`Error::GameOver`] if `seat` has no legal action.
pub fn root_values<S: State, R: Rng + ?Sized>(
    root: &S,
    seat: usize,
    config: &RolloutConfig,
    rng: &mut R,
    stop: &mut dyn FnMut() -> bool,
) -> Result<Vec<ActionValue>, Error> {
    let unsampled = |action: Action| {
        vec![ActionValue {
            action,
            value: 0.0,
            samples: 0,
        }]
    };
    let legal = root.legal_actions();
    if legal.len() <= 1 {
        return legal.iter().next().map(unsampled).ok_or(Error::GameOver);
    }
    let roots: Vec<Action> = legal.iter().collect();
    // Plans: (root index, second action or none) with their return sums and counts.
    let mut plans: Vec<(usize, Option<Action>, f64, u32)> = Vec::new();
    let (mut searched, mut failures) = (0u32, 0u32);
    let mut target = config.samples.max(1);
    let mut attempts = 0u32;
    while attempts < target {
        attempts += 1;
        if searched > 0 && stop() {
            break;
        }
        let Ok(d) = root.resample(seat, rng) else {
            failures += 1;
            if searched == 0 && failures >= FAILURES_BEFORE_FALLBACK {
                return root.heuristic_action(seat, rng).map(unsampled);
            }
            continue;
        };
        searched += 1;
        let seed = rng.next_u64();
        for (k, &a) in roots.iter().enumerate() {
            let mut after = d.clone();
            after.apply_unchecked(a);
            let again = config.depth >= 2 && after.current_player() == Player::Seat(seat);
            if again {
                for b in after.legal_actions().iter() {
                    let mut next = after.clone();
                    next.apply_unchecked(b);
                    let r = playout(next, seat, seed);
                    credit(&mut plans, k, Some(b), r);
                }
            } else {
                let r = playout(after, seat, seed);
                credit(&mut plans, k, None, r);
            }
        }
        if searched == 1 && config.playouts > 0 {
            target = (config.playouts / plans.len().max(1) as u32).max(1);
        }
    }
    if searched == 0 {
        return legal.iter().next().map(unsampled).ok_or(Error::GameOver);
    }
    Ok(roots
        .iter()
        .enumerate()
        .map(|(k, &action)| {
            let best = plans
                .iter()
                .filter(|p| p.0 == k)
                .map(|p| (p.2 / f64::from(p.3.max(1)), p.3))
                .fold(None::<(f64, u32)>, |b, v| match b {
                    Some(b) if b.0 >= v.0 => Some(b),
                    _ => Some(v),
                });
            let (value, samples) = best.unwrap_or((0.0, 0));
            ActionValue {
                action,
                value,
                samples,
            }
        })
        .collect())
}

fn credit(plans: &mut Vec<(usize, Option<Action>, f64, u32)>, k: usize, b: Option<Action>, r: f64) {
    if let Some(p) = plans.iter_mut().find(|p| p.0 == k && p.1 == b) {
        p.2 += r;
        p.3 += 1;
    } else {
        plans.push((k, b, r, 1));
    }
}

/// Plays `d` out with the heuristic on every seat to the end of the deal in progress (or of
/// the game), chance and the heuristic drawing from one generator seeded with `seed`; the
/// return of `seat`.
fn playout<S: State>(mut d: S, seat: usize, seed: u64) -> f64 {
    let mut rng = SeededRng::new(seed);
    while !d.is_terminal() {
        if let Some(o) = d.deal_outcome() {
            return o.get(seat).copied().unwrap_or(0.0);
        }
        if d.is_chance_node() {
            d.resolve_chance(&mut rng);
            continue;
        }
        let Player::Seat(to_act) = d.current_player() else {
            break;
        };
        match d.heuristic_action(to_act, &mut rng) {
            Ok(a) => d.apply_unchecked(a),
            Err(_) => break,
        }
    }
    d.returns().get(seat).copied().unwrap_or(0.0)
}
