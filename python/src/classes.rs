//! The Rust types of the Python classes `Game` and `State`: their declarations (with the
//! class docstrings), fields and constructors. The two classes refer to each other (a game
//! makes states, a state tells its game), so their types live here, below both: their
//! methods are in `game.rs` and `state.rs`, which build these types.

use cardhouse::{ActionSet, AnyGame, AnyState};
use pyo3::prelude::*;

/// A game with validated options: fixed sizes and the factory of initial states.
///
/// Create one with ``cardhouse.new_game(name, **options)`` (or ``Game(name, options)``).
/// Options are the snake_case names of the game's rules file; missing options take their
/// defaults, and ``options`` lists every option with its effective value.
///
/// Args:
///     name: a registered game name (see ``cardhouse.list_games()``).
///     options: option name to value (bool, int or str); None for all defaults.
///
/// Raises:
///     UnknownGameError: the name is not registered.
///     InvalidOptionError: an unknown option key or a value the option does not allow.
#[pyclass(module = "cardhouse", name = "Game", frozen, eq, hash)]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PyGame {
    pub(crate) game: AnyGame,
}

/// A position in a game: who acts, the legal actions, observations and views per seat,
/// returns, history; ``apply`` moves it on (checked: a bad action raises and leaves the
/// state unchanged).
///
/// Get one from ``Game.new_initial_state()`` (a chance node: resolve the deal with
/// ``resolve_chance(seed)``), from ``clone()``, or by decoding ``to_bytes()`` / ``to_json()``
/// output. States pickle (through ``to_bytes``) and copy.
///
/// Player ids follow OpenSpiel: ``current_player`` is a seat (0 to ``num_players - 1``),
/// ``cardhouse.CHANCE`` (-1) at a chance node or ``cardhouse.TERMINAL`` (-4) at the end.
/// Two states are ``==`` when they are the same position of the same game with the same
/// history; states are mutable, so they are not hashable.
#[pyclass(module = "cardhouse", name = "State", eq)]
#[derive(Clone, Debug)]
pub struct PyState {
    pub(crate) state: AnyState,
    /// Cached from the game: size of the player action space.
    pub(crate) space: usize,
    /// Cached from the game: number of seats.
    pub(crate) players: usize,
    /// The legal actions last returned by `legal_actions`, kept until the state changes:
    /// `apply` of one of them needs no second legality check (the loop every OpenSpiel
    /// user writes asks for the list, then applies a member of it).
    pub(crate) legal: Option<ActionSet>,
}

/// Two states are equal when their positions are (the cached legal set is not compared).
impl PartialEq for PyState {
    fn eq(&self, other: &PyState) -> bool {
        self.state == other.state
    }
}

impl PyState {
    pub(crate) fn new(state: AnyState) -> PyState {
        let game = state.game();
        PyState {
            space: game.num_distinct_actions(),
            players: game.num_players(),
            state,
            legal: None,
        }
    }
}
