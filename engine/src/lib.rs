//! cardhouse: an exact, fast rules engine for traditional card games.
//!
//! ```
//! use cardhouse::{new_game, options, SeededRng, Viewer};
//!
//! // Swiss Jass (Schieber), one deal, Wys declared automatically.
//! let game = new_game("jass", &options([("scope", "deal".into()), ("wys", "auto".into())]))?;
//! let mut state = game.new_initial_state();
//! let mut rng = SeededRng::new(7);
//! state.resolve_chance(&mut rng)?; // the deal
//! while !state.is_terminal() {
//!     let legal = state.legal_actions();
//!     let action = legal.choose(&mut rng).expect("a seat to act has a legal action");
//!     state.apply(action)?;
//! }
//! let returns = state.returns();
//! assert_eq!(returns[0] + returns[1], 0.0); // zero-sum between the two teams
//! let record = state.view(Viewer::Omniscient)?;
//! assert_eq!(record["phase"], "over");
//! # Ok::<(), cardhouse::Error>(())
//! ```
//!
//! The [`State`] and [`Game`] traits are the contract every game implements (read the
//! [`game`] module first); [`AnyGame`] and [`AnyState`]
//! wrap all registered games for callers that choose a game at run time.

mod action_set;
mod assign;
pub mod bots;
mod card_set;
mod cards;
pub mod codec;
mod error;
pub mod game;
pub mod games;
mod options;
mod planes;
mod registry;
mod rng;
pub mod seeds;
pub mod solve;

pub use card_set::{CardSet, Pack, select_in_word};
pub use cards::{Card, Notation, Rank, Suit};
pub use error::Error;
pub use game::{
    Action, ActionIter, ActionSet, CHANCE, Game, GameType, MAX_ACTIONS, ObservationSlice, Player,
    SeatValues, State, TERMINAL, Viewer,
};
pub use options::{OptionKind, OptionSpec, OptionValue, Options, Resolved, Scope, options};
pub use registry::{
    AnyGame, AnyState, GAME_NAMES, list_games, new_game, option_specs, state_from_bytes,
    state_from_json,
};
pub use rng::{Rng, SeededRng};

/// The README's Rust example runs as a doc-test.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
