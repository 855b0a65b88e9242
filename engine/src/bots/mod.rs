//! Bots: opponents to train and evaluate against, fillers for empty seats.
//!
//! Every bot decides for one seat from what that seat knows only: the [`random`] bot looks at
//! the legal actions, the `heuristic` bot at the seat's own hand and the public cards (each
//! game documents its heuristic in its `heuristic` module, reached through
//! [`State::heuristic_action`]), and [`ismcts`] searches over [`State::resample`]
//! determinizations for the seat, never over the real hidden cards, as do [`rollout`] and
//! [`pimc`] (which solves each determinization exactly), and a trained [`policy`]
//! reads the seat's observation only. Tests prove it by
//! varying the hidden cards of the other seats.
//!
//! Bots are deterministic: their randomness comes from the `rng` they are given. The engine
//! has no clock, so a time budget is the caller's `stop` callback (see [`Budget`]).
//!
//! ```
//! use cardhouse::bots::BotKind;
//! use cardhouse::{new_game, options, Player, SeededRng};
//!
//! let game = new_game("jass", &options([("scope", "deal".into())]))?;
//! let mut state = game.new_initial_state();
//! let mut rng = SeededRng::new(1);
//! let bots: Vec<BotKind> = ["heuristic", "random", "ismcts:50", "random"]
//!     .iter()
//!     .map(|b| b.parse())
//!     .collect::<Result<_, _>>()?;
//! while !state.is_terminal() {
//!     match state.current_player() {
//!         Player::Seat(s) => {
//!             let a = state.bot_action(&bots[s], s, &mut rng, &mut || false)?;
//!             state.apply(a)?;
//!         }
//!         _ => state.resolve_chance(&mut rng)?,
//!     }
//! }
//! # Ok::<(), cardhouse::Error>(())
//! ```

mod any_state;
pub mod arena;
pub mod autoplay;
pub mod ismcts;
pub mod pimc;
pub mod policy;
pub mod random;
pub mod rollout;

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

pub use ismcts::{IsmctsConfig, RootEdge};
pub use pimc::PimcConfig;
pub use policy::Policy;
pub use rollout::RolloutConfig;

use crate::{Action, Error, Rng, State};

/// Which bot plays a seat.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum BotKind {
    /// Uniform over the legal actions.
    Random,
    /// The game's heuristic ([`State::heuristic_action`]).
    Heuristic,
    /// Information-set Monte Carlo tree search.
    Ismcts(IsmctsConfig),
    /// Flat Monte Carlo rollouts of the heuristic from every plan ([`rollout`]).
    Rollout(RolloutConfig),
    /// Perfect-information Monte Carlo: determinizations solved exactly ([`pimc`]).
    Pimc(PimcConfig),
    /// A trained policy ([`policy`]): `policy:NAME` for a shipped one, or weights the caller
    /// read ([`Policy::from_bytes`]).
    Policy(Arc<Policy>),
}

impl BotKind {
    /// The names accepted by [`BotKind::from_str`].
    pub const NAMES: &'static [&'static str] =
        &["random", "heuristic", "ismcts", "rollout", "pimc", "policy"];

    /// Short name: `random`, `heuristic`, `ismcts`, `rollout`, `pimc`, `policy`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            BotKind::Random => "random",
            BotKind::Heuristic => "heuristic",
            BotKind::Ismcts(_) => "ismcts",
            BotKind::Rollout(_) => "rollout",
            BotKind::Pimc(_) => "pimc",
            BotKind::Policy(_) => "policy",
        }
    }

    /// Checks that this bot can play `game` (a policy plays only the game, observation and
    /// action space it was trained on; every other bot plays every game).
    ///
    /// # Errors
    /// [`Error::InvalidPolicy`] saying what differs.
    pub fn check_game(&self, game: &crate::AnyGame) -> Result<(), Error> {
        match self {
            BotKind::Policy(p) => p.check_game(
                game.name(),
                game.observation_len(),
                game.num_distinct_actions(),
            ),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for BotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BotKind::Ismcts(c) if *c != IsmctsConfig::default() => {
                write!(f, "ismcts:{}", c.iterations)
            }
            BotKind::Rollout(c) if *c != RolloutConfig::default() => {
                write!(f, "rollout:{}", c.samples)
            }
            BotKind::Pimc(c) if *c != PimcConfig::default() => write!(f, "pimc:{}", c.worlds),
            BotKind::Policy(p) => write!(f, "policy:{}", p.name()),
            other => f.write_str(other.name()),
        }
    }
}

impl FromStr for BotKind {
    type Err = Error;

    /// `random`, `heuristic`, `ismcts`, `ismcts:N` (N iterations per move, 1 to
    /// 1,000,000), `rollout`, `rollout:N` (N determinizations per move, 1 to 100,000),
    /// `pimc`, `pimc:N` (N worlds solved per move, 1 to 10,000) or `policy:NAME` (a policy
    /// shipped with the engine, [`policy::shipped`]).
    fn from_str(text: &str) -> Result<BotKind, Error> {
        let text = text.trim();
        let bad = |why: String| Error::InvalidBot {
            value: text.chars().take(40).collect(),
            allowed: why,
        };
        let (name, arg) = match text.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (text, None),
        };
        match (name.to_ascii_lowercase().as_str(), arg) {
            ("random", None) => Ok(BotKind::Random),
            ("heuristic", None) => Ok(BotKind::Heuristic),
            ("ismcts", None) => Ok(BotKind::Ismcts(IsmctsConfig::default())),
            ("ismcts", Some(n)) => match n.trim().parse::<u32>() {
                Ok(n) if (1..=1_000_000).contains(&n) => Ok(BotKind::Ismcts(IsmctsConfig {
                    iterations: n,
                    ..IsmctsConfig::default()
                })),
                _ => Err(bad(
                    "ismcts:N with N iterations per move, 1 to 1000000".into()
                )),
            },
            ("rollout", None) => Ok(BotKind::Rollout(RolloutConfig::default())),
            ("rollout", Some(n)) => match n.trim().parse::<u32>() {
                Ok(n) if (1..=100_000).contains(&n) => Ok(BotKind::Rollout(RolloutConfig {
                    samples: n,
                    ..RolloutConfig::default()
                })),
                _ => Err(bad(
                    "rollout:N with N determinizations per move, 1 to 100000".into(),
                )),
            },
            ("pimc", None) => Ok(BotKind::Pimc(PimcConfig::default())),
            ("pimc", Some(n)) => match n.trim().parse::<u32>() {
                Ok(n) if (1..=10_000).contains(&n) => Ok(BotKind::Pimc(PimcConfig {
                    worlds: n,
                    ..PimcConfig::default()
                })),
                _ => Err(bad(
                    "pimc:N with N worlds solved per move, 1 to 10000".into()
                )),
            },
            ("policy", Some(n)) => Ok(BotKind::Policy(policy::shipped(n.trim())?)),
            _ => Err(bad(format!(
                "random, heuristic, ismcts, ismcts:N (N iterations per move), rollout, rollout:N \
                 (N determinizations per move), pimc, pimc:N (N worlds solved per move) or \
                 policy:NAME \
                 (shipped: {})",
                policy::shipped_names().join(", ")
            ))),
        }
    }
}

/// A time budget as a `stop` callback needs it: the caller owns the clock (the engine has
/// none). `Budget::never()` never stops early, so the iteration budget alone decides and the
/// bot is deterministic.
#[derive(Debug)]
pub struct Budget;

impl Budget {
    /// A callback that never stops the search early.
    pub fn never() -> impl FnMut() -> bool {
        || false
    }
}

/// The action `bot` chooses for `seat`, which must be to act in `state`.
///
/// # Errors
/// [`Error::WrongNode`] if `seat` is not to act; [`Error::ResampleFailed`] if the search
/// found no state consistent with what the seat knows.
pub fn choose<S: State, R: Rng + ?Sized>(
    bot: &BotKind,
    state: &S,
    seat: usize,
    rng: &mut R,
    stop: &mut dyn FnMut() -> bool,
) -> Result<Action, Error> {
    crate::game::expect_turn(state, seat)?;
    match bot {
        BotKind::Random => random::action(state, rng),
        BotKind::Heuristic => state.heuristic_action(seat, rng),
        BotKind::Ismcts(config) => ismcts::search(state, seat, config, rng, stop),
        BotKind::Rollout(config) => rollout::search(state, seat, config, rng, stop),
        BotKind::Pimc(config) => pimc::search(state, seat, config, rng, stop),
        BotKind::Policy(p) => p.action(state, seat, rng),
    }
}

/// The action of the first entry of `values` with the highest `value` (ties to the earlier
/// entry): how the bots that value every legal action (`rollout`, `pimc`) choose.
///
/// # Errors
/// [`Error::GameOver`] if `values` is empty (no legal action).
pub(crate) fn best_valued<T>(
    values: &[T],
    value: impl Fn(&T) -> f64,
    action: impl Fn(&T) -> Action,
) -> Result<Action, Error> {
    values
        .iter()
        .fold(None::<&T>, |best, v| match best {
            Some(b) if value(b) >= value(v) => Some(b),
            _ => Some(v),
        })
        .map(action)
        .ok_or(Error::GameOver)
}
