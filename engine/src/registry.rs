//! The game registry and the dynamic [`AnyGame`] / [`AnyState`] enums for callers that pick a
//! game at run time (the gRPC service, the Python module). Everything here is generated from
//! the one list of games in [`crate::games`]: adding a game changes nothing in this file.

use serde::Serialize;

use crate::codec::Record;
use crate::games::for_each_game;
use crate::{
    Action, ActionSet, Error, Game, GameType, Notation, ObservationSlice, OptionSpec, Options,
    Pack, Player, Rng, SeatValues, State, Viewer,
};

/// Defines the registry from the list of games (see [`crate::games`]): the enums, their
/// conversions, the names, and every lookup by name.
macro_rules! registry {
    (() $($variant:ident($game:ty, $state:ty) = $doc:literal,)*) => {
        /// Registered game names, in registry order.
        pub const GAME_NAMES: &[&str] = &[$(<$game as Game>::NAME),*];

        /// Any registered game.
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum AnyGame {
            $(#[doc = $doc] $variant($game),)*
        }

        /// A state of any registered game. Equal states have the same game, history and
        /// position.
        #[derive(Clone, Debug, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum AnyState {
            $(#[doc = $doc] $variant($state),)*
        }

        $(
            impl From<$game> for AnyGame {
                fn from(g: $game) -> AnyGame {
                    AnyGame::$variant(g)
                }
            }
            impl From<$state> for AnyState {
                fn from(s: $state) -> AnyState {
                    AnyState::$variant(s)
                }
            }
        )*

        /// The option specs of a registered game.
        ///
        /// # Errors
        /// [`Error::UnknownGame`].
        pub fn option_specs(name: &str) -> Result<&'static [OptionSpec], Error> {
            $(if name == <$game as Game>::NAME {
                return Ok(<$game as Game>::option_specs());
            })*
            Err(unknown_game(name))
        }

        /// Creates a game by registry name with validated options.
        ///
        /// # Errors
        /// [`Error::UnknownGame`], [`Error::UnknownOption`], [`Error::InvalidOption`].
        pub fn new_game(name: &str, options: &Options) -> Result<AnyGame, Error> {
            $(if name == <$game as Game>::NAME {
                return Ok(AnyGame::$variant(<$game as Game>::from_options(options)?));
            })*
            Err(unknown_game(name))
        }

        impl AnyState {
            fn from_record(rec: Record) -> Result<AnyState, Error> {
                $(if rec.game == <$game as Game>::NAME {
                    return rec.into_state::<$game>().map(AnyState::$variant);
                })*
                Err(unknown_game(&rec.game))
            }
        }

        /// The trained policies compiled into the engine, by name, every game's
        /// ([`Game::POLICIES`]).
        pub(crate) const SHIPPED_POLICIES: &[&[(&str, &[u8])]] = &[$(<$game as Game>::POLICIES),*];
    };
}
for_each_game!(registry);

/// Dispatches on the game of an [`AnyGame`]: `$g` is the concrete game in `$e`.
macro_rules! on_game {
    ($self:expr, $g:ident => $e:expr) => {
        $crate::games::for_each_game!(match_game $self, $g, $e)
    };
}

/// `on_game!`'s match, from the list of games.
macro_rules! match_game {
    (($self:expr, $g:ident, $e:expr) $($variant:ident($game:ty, $state:ty) = $doc:literal,)*) => {
        match $self {
            $(AnyGame::$variant($g) => $e,)*
        }
    };
}

/// Dispatches on the game of an [`AnyState`]: `$s` is the concrete state in `$e`.
macro_rules! on_state {
    ($self:expr, $s:ident => $e:expr) => {
        $crate::games::for_each_game!(match_state $self, $s, $e)
    };
}

/// `on_state!`'s match, from the list of games.
macro_rules! match_state {
    (($self:expr, $s:ident, $e:expr) $($variant:ident($game:ty, $state:ty) = $doc:literal,)*) => {
        match $self {
            $(AnyState::$variant($s) => $e,)*
        }
    };
}

pub(crate) use {match_state, on_state};

/// The names of all registered games.
#[must_use]
pub fn list_games() -> &'static [&'static str] {
    GAME_NAMES
}

fn unknown_game(name: &str) -> Error {
    Error::UnknownGame {
        name: name.to_owned(),
        available: GAME_NAMES.join(", "),
    }
}

/// Decodes a state from [`AnyState::to_bytes`] output, whatever its game.
///
/// # Errors
/// [`Error::Decode`], [`Error::RulesVersion`], option errors, [`Error::UnknownGame`].
pub fn state_from_bytes(bytes: &[u8]) -> Result<AnyState, Error> {
    AnyState::from_record(Record::from_bytes(bytes)?)
}

/// Decodes a state from [`AnyState::to_json`] output, whatever its game.
///
/// # Errors
/// As [`state_from_bytes`].
pub fn state_from_json(text: &str) -> Result<AnyState, Error> {
    AnyState::from_record(Record::from_json(text)?)
}

fn name_of<G: Game>(_: &G) -> &'static str {
    G::NAME
}

fn rules_version_of<G: Game>(_: &G) -> u32 {
    G::RULES_VERSION
}

fn option_specs_of<G: Game>(_: &G) -> &'static [OptionSpec] {
    G::option_specs()
}

fn pack_of<G: Game>(_: &G) -> Pack {
    G::PACK
}

fn notation_of<G: Game>(_: &G) -> Notation {
    G::NOTATION
}

fn json<T: Serialize>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

impl AnyGame {
    /// Registry name.
    #[must_use]
    pub fn name(&self) -> &'static str {
        on_game!(self, g => name_of(g))
    }

    /// Rules version.
    #[must_use]
    pub fn rules_version(&self) -> u32 {
        on_game!(self, g => rules_version_of(g))
    }

    /// The option specs of this game.
    #[must_use]
    pub fn option_specs(&self) -> &'static [OptionSpec] {
        on_game!(self, g => option_specs_of(g))
    }

    /// See [`Game::PACK`].
    #[must_use]
    pub fn pack(&self) -> Pack {
        on_game!(self, g => pack_of(g))
    }

    /// See [`Game::NOTATION`].
    #[must_use]
    pub fn notation(&self) -> Notation {
        on_game!(self, g => notation_of(g))
    }

    /// Every option with its effective value.
    #[must_use]
    pub fn options(&self) -> Options {
        on_game!(self, g => g.options())
    }

    /// Number of seats.
    #[must_use]
    pub fn num_players(&self) -> usize {
        on_game!(self, g => g.num_players())
    }

    /// Size of the player action space.
    #[must_use]
    pub fn num_distinct_actions(&self) -> usize {
        on_game!(self, g => g.num_distinct_actions())
    }

    /// Size of the chance outcome space.
    #[must_use]
    pub fn max_chance_outcomes(&self) -> usize {
        on_game!(self, g => g.max_chance_outcomes())
    }

    /// Observation shape.
    #[must_use]
    pub fn observation_shape(&self) -> Vec<usize> {
        on_game!(self, g => g.observation_shape())
    }

    /// Observation length.
    #[must_use]
    pub fn observation_len(&self) -> usize {
        on_game!(self, g => g.observation_len())
    }

    /// See [`Game::min_return`].
    #[must_use]
    pub fn min_return(&self) -> f64 {
        on_game!(self, g => g.min_return())
    }

    /// See [`Game::max_return`].
    #[must_use]
    pub fn max_return(&self) -> f64 {
        on_game!(self, g => g.max_return())
    }

    /// See [`Game::default_ismcts_iterations`].
    #[must_use]
    pub fn default_ismcts_iterations(&self) -> u32 {
        on_game!(self, g => g.default_ismcts_iterations())
    }

    /// See [`Game::max_game_length`].
    #[must_use]
    pub fn max_game_length(&self) -> Option<usize> {
        on_game!(self, g => g.max_game_length())
    }

    /// See [`Game::observation_layout`].
    #[must_use]
    pub fn observation_layout(&self) -> Vec<ObservationSlice> {
        on_game!(self, g => g.observation_layout())
    }

    /// See [`Game::game_type`].
    #[must_use]
    pub fn game_type(&self) -> GameType {
        on_game!(self, g => g.game_type())
    }

    /// The initial state (a chance node).
    #[must_use]
    pub fn new_initial_state(&self) -> AnyState {
        on_game!(self, g => AnyState::from(g.new_initial_state()))
    }

    /// Replays a history with checked `apply`.
    ///
    /// # Errors
    /// [`Error::Decode`] naming the first entry that does not apply.
    pub fn replay(&self, history: &[Action]) -> Result<AnyState, Error> {
        on_game!(self, g => crate::game::replay(g, history).map(AnyState::from))
    }

    /// Decodes bytes of a state of *this* game with *these* options.
    ///
    /// # Errors
    /// As [`state_from_bytes`], and [`Error::Decode`] if the bytes are of another game or
    /// other options.
    pub fn state_from_bytes(&self, bytes: &[u8]) -> Result<AnyState, Error> {
        let state = state_from_bytes(bytes)?;
        self.check_same(&state)?;
        Ok(state)
    }

    /// Decodes JSON of a state of *this* game with *these* options.
    ///
    /// # Errors
    /// As [`AnyGame::state_from_bytes`].
    pub fn state_from_json(&self, text: &str) -> Result<AnyState, Error> {
        let state = state_from_json(text)?;
        self.check_same(&state)?;
        Ok(state)
    }

    fn check_same(&self, state: &AnyState) -> Result<(), Error> {
        let other = state.game();
        if other.name() != self.name() || other.options() != self.options() {
            return Err(Error::Decode(format!(
                "state is for {} with options {:?}, not {} with options {:?}",
                other.name(),
                other.options(),
                self.name(),
                self.options()
            )));
        }
        Ok(())
    }
}

impl AnyState {
    /// The game of this state.
    #[must_use]
    pub fn game(&self) -> AnyGame {
        on_state!(self, s => AnyGame::from(*s.game()))
    }

    /// Who acts now.
    #[must_use]
    pub fn current_player(&self) -> Player {
        on_state!(self, s => s.current_player())
    }

    /// True at a terminal state.
    #[must_use]
    pub fn is_terminal(&self) -> bool {
        on_state!(self, s => s.is_terminal())
    }

    /// True at a chance node.
    #[must_use]
    pub fn is_chance_node(&self) -> bool {
        on_state!(self, s => s.is_chance_node())
    }

    /// See [`State::legal_actions`]. Always inlined, so that the set reaches its caller in
    /// registers: returned through memory, its words were stored 8 bytes at a time and read
    /// back 16 at a time, a store-to-load forwarding stall (in `perf`, a fifth to a third of
    /// the Python wrapper's and `VectorEnv`'s own samples fell on that one load).
    #[inline(always)]
    #[must_use]
    pub fn legal_actions(&self) -> ActionSet {
        on_state!(self, s => s.legal_actions())
    }

    /// See [`State::legal_action_mask`].
    #[must_use]
    pub fn legal_action_mask(&self) -> Vec<bool> {
        on_state!(self, s => s.legal_action_mask())
    }

    /// See [`State::chance_outcomes`].
    ///
    /// # Errors
    /// [`Error::WrongNode`].
    pub fn chance_outcomes(&self) -> Result<Vec<(Action, f64)>, Error> {
        on_state!(self, s => s.chance_outcomes())
    }

    /// See [`State::chance_outcome_at`].
    ///
    /// # Errors
    /// [`Error::WrongNode`].
    pub fn chance_outcome_at(&self, u: f64) -> Result<Action, Error> {
        on_state!(self, s => s.chance_outcome_at(u))
    }

    /// See [`State::apply_random_chance`].
    ///
    /// # Errors
    /// [`Error::WrongNode`].
    pub fn apply_random_chance<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Result<(), Error> {
        on_state!(self, s => s.apply_random_chance(rng))
    }

    /// See [`State::resolve_chance`], checked like [`AnyState::apply_random_chance`]: every
    /// pending chance event is resolved.
    ///
    /// # Errors
    /// [`Error::WrongNode`] at a player node or a terminal state (nothing changes).
    pub fn resolve_chance<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Result<(), Error> {
        if !self.is_chance_node() {
            return Err(Error::WrongNode(
                "no chance event is pending: a seat is to act or the game is over".into(),
            ));
        }
        on_state!(self, s => s.resolve_chance(rng));
        Ok(())
    }

    /// See [`State::apply`].
    ///
    /// # Errors
    /// As [`State::apply`]; the state is unchanged on error.
    pub fn apply(&mut self, action: Action) -> Result<(), Error> {
        on_state!(self, s => s.apply(action))
    }

    /// See [`State::apply_unchecked`].
    pub fn apply_unchecked(&mut self, action: Action) {
        on_state!(self, s => s.apply_unchecked(action))
    }

    /// See [`State::action_to_string`].
    #[must_use]
    pub fn action_to_string(&self, action: Action) -> String {
        on_state!(self, s => s.action_to_string(action))
    }

    /// [`State::action_to_string`], checked: an id outside the action space of this node
    /// (the chance outcomes at a chance node) is an error instead of a placeholder text.
    ///
    /// # Errors
    /// [`Error::UnknownAction`] naming the range.
    pub fn checked_action_to_string(&self, action: Action) -> Result<String, Error> {
        let (space, what) = if self.is_chance_node() {
            (self.game().max_chance_outcomes(), "chance outcome ids")
        } else {
            (self.game().num_distinct_actions(), "action ids")
        };
        if action as usize >= space {
            return Err(Error::UnknownAction {
                action: i64::from(action),
                reason: format!("{what} of {} are 0 to {}", self.game().name(), space - 1),
            });
        }
        Ok(self.action_to_string(action))
    }

    /// See [`State::action_to_string_for`].
    #[must_use]
    pub fn action_to_string_for(&self, viewer: Viewer, action: Action) -> Option<String> {
        on_state!(self, s => s.action_to_string_for(viewer, action))
    }

    /// See [`State::action_visible_to`].
    #[must_use]
    pub fn action_visible_to(&self, viewer: Viewer, action: Action) -> bool {
        on_state!(self, s => s.action_visible_to(viewer, action))
    }

    /// See [`State::check_action`]: whether `apply(action)` would succeed, without applying.
    ///
    /// # Errors
    /// As [`State::apply`].
    pub fn check_action(&self, action: Action) -> Result<(), Error> {
        on_state!(self, s => s.check_action(action))
    }

    /// See [`State::string_to_action`].
    ///
    /// # Errors
    /// [`Error::UnparsableAction`].
    pub fn string_to_action(&self, text: &str) -> Result<Action, Error> {
        on_state!(self, s => s.string_to_action(text))
    }

    /// See [`State::write_observation`].
    ///
    /// # Errors
    /// [`Error::InvalidSeat`], [`Error::BufferSize`].
    pub fn write_observation(&self, seat: usize, out: &mut [f32]) -> Result<(), Error> {
        on_state!(self, s => s.write_observation(seat, out))
    }

    /// See [`State::observation`].
    ///
    /// # Errors
    /// [`Error::InvalidSeat`].
    pub fn observation(&self, seat: usize) -> Result<Vec<f32>, Error> {
        on_state!(self, s => s.observation(seat))
    }

    /// See [`State::observation_string`].
    ///
    /// # Errors
    /// [`Error::InvalidSeat`].
    pub fn observation_string(&self, seat: usize) -> Result<String, Error> {
        on_state!(self, s => s.observation_string(seat))
    }

    /// [`State::view`] as JSON.
    ///
    /// # Errors
    /// [`Error::InvalidSeat`].
    pub fn view(&self, viewer: Viewer) -> Result<serde_json::Value, Error> {
        on_state!(self, s => s.view(viewer).map(|v| json(&v)))
    }

    /// See [`State::returns`].
    #[must_use]
    pub fn returns(&self) -> SeatValues {
        on_state!(self, s => s.returns())
    }

    /// See [`State::rewards`].
    #[must_use]
    pub fn rewards(&self) -> SeatValues {
        on_state!(self, s => s.rewards())
    }

    /// See [`State::history`].
    #[must_use]
    pub fn history(&self) -> Vec<Action> {
        on_state!(self, s => s.history())
    }

    /// See [`State::move_number`].
    #[must_use]
    pub fn move_number(&self) -> usize {
        on_state!(self, s => s.move_number())
    }

    /// See [`State::public_move_number`].
    #[must_use]
    pub fn public_move_number(&self) -> usize {
        on_state!(self, s => s.public_move_number())
    }

    /// See [`State::deal_outcome`].
    #[must_use]
    pub fn deal_outcome(&self) -> Option<SeatValues> {
        on_state!(self, s => s.deal_outcome())
    }

    /// See [`State::heuristic_action`].
    ///
    /// # Errors
    /// As [`State::heuristic_action`].
    pub fn heuristic_action<R: Rng + ?Sized>(
        &self,
        seat: usize,
        rng: &mut R,
    ) -> Result<Action, Error> {
        on_state!(self, s => s.heuristic_action(seat, rng))
    }

    /// See [`State::solvable`]: the state for [`crate::solve::Solver::solve`].
    ///
    /// # Errors
    /// [`Error::WrongNode`] for a game without trick play to solve (Cribbage).
    pub fn solvable(&self) -> Result<&dyn crate::solve::Solvable, Error> {
        on_state!(self, s => s.solvable())
    }

    /// See [`State::resample`].
    ///
    /// # Errors
    /// [`Error::InvalidSeat`], [`Error::ResampleFailed`].
    pub fn resample<R: Rng + ?Sized>(&self, seat: usize, rng: &mut R) -> Result<AnyState, Error> {
        on_state!(self, s => s.resample(seat, rng).map(AnyState::from))
    }

    /// Compact versioned bytes (see [`crate::codec`]).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        on_state!(self, s => Record::of(s).to_bytes())
    }

    /// Versioned JSON (see [`crate::codec`]).
    #[must_use]
    pub fn to_json(&self) -> String {
        on_state!(self, s => Record::of(s).to_json())
    }
}

impl std::fmt::Display for AnyState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        on_state!(self, s => std::fmt::Display::fmt(s, f))
    }
}
