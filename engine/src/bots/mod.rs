//! Bots: opponents to train and evaluate against, fillers for empty seats.
//!
//! Every bot decides for one seat from what that seat knows only: the [`random`] bot looks at
//! the legal actions, the `heuristic` bot at the seat's own hand and the public cards (each
//! game documents its heuristic in its `heuristic` module, reached through
//! [`State::heuristic_action`]), and [`ismcts`] searches over [`State::resample`]
//! determinizations for the seat, never over the real hidden cards. Tests prove it by
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

pub mod arena;
pub mod ismcts;
pub mod random;

use std::fmt;
use std::str::FromStr;

pub use ismcts::IsmctsConfig;

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
}

impl BotKind {
    /// The names accepted by [`BotKind::from_str`].
    pub const NAMES: &'static [&'static str] = &["random", "heuristic", "ismcts"];

    /// Short name: `random`, `heuristic`, `ismcts`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            BotKind::Random => "random",
            BotKind::Heuristic => "heuristic",
            BotKind::Ismcts(_) => "ismcts",
        }
    }
}

impl fmt::Display for BotKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BotKind::Ismcts(c) if *c != IsmctsConfig::default() => {
                write!(f, "ismcts:{}", c.iterations)
            }
            other => f.write_str(other.name()),
        }
    }
}

impl FromStr for BotKind {
    type Err = Error;

    /// `random`, `heuristic`, `ismcts` or `ismcts:N` (N iterations per move, 1 to
    /// 1,000,000).
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
            _ => Err(bad(
                "random, heuristic, ismcts or ismcts:N (N iterations per move)".into(),
            )),
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
    }
}
