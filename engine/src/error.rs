//! The engine's error type.

use thiserror::Error;

/// Everything the engine can reject. Every message says what was wrong and what is allowed.
///
/// Boundaries (the gRPC service, the Python module) map these variants exhaustively:
/// option, action, card, seat and decode errors are the caller's fault; there is no variant
/// for an internal failure because the engine has none to report.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Error {
    /// The game name is not registered.
    #[error("unknown game `{name}`; available games: {available}")]
    UnknownGame {
        /// The name that was asked for.
        name: String,
        /// The registered names, comma-separated.
        available: String,
    },
    /// An option key that the game does not have.
    #[error("unknown option `{key}` for game `{game}`; its options are: {allowed}")]
    UnknownOption {
        /// Game name.
        game: String,
        /// The key given.
        key: String,
        /// The game's option keys, comma-separated.
        allowed: String,
    },
    /// An option value outside what the option allows.
    #[error("invalid value `{value}` for option `{key}` of game `{game}`: allowed {allowed}")]
    InvalidOption {
        /// Game name.
        game: String,
        /// Option key.
        key: String,
        /// The value given, as text.
        value: String,
        /// What the option allows, e.g. `one of match, deal` or `an integer from 1 to 100000`.
        allowed: String,
    },
    /// A bot name that is not one of the bots.
    #[error("unknown bot `{value}`: allowed {allowed}")]
    InvalidBot {
        /// The name given (clipped).
        value: String,
        /// The bots and their forms.
        allowed: String,
    },
    /// Policy weights that cannot be read, or a policy used for a game it was not trained
    /// on ([`crate::bots::policy`]).
    #[error("invalid policy: {reason}")]
    InvalidPolicy {
        /// What is wrong, and what is allowed.
        reason: String,
    },
    /// An action id outside the game's action space.
    #[error("action {action} does not exist: {reason}")]
    UnknownAction {
        /// The id given.
        action: i64,
        /// The valid range at this state.
        reason: String,
    },
    /// An action text that does not name an action.
    #[error("cannot read `{text}` as an action: {reason}")]
    UnparsableAction {
        /// The text given.
        text: String,
        /// What was expected.
        reason: String,
    },
    /// A known action that the rules forbid now.
    #[error("illegal action {action} (`{name}`): {reason}")]
    IllegalAction {
        /// The id given.
        action: u32,
        /// Its text form.
        name: String,
        /// Which rule forbids it.
        reason: String,
    },
    /// Nothing can be applied to a finished game.
    #[error("the game is over; no action can be applied")]
    GameOver,
    /// The operation needs a different kind of node (e.g. chance outcomes asked at a player node).
    #[error("{0}")]
    WrongNode(String),
    /// A seat number outside `0..num_players`.
    #[error("seat {seat} does not exist; this game has seats 0 to {last}")]
    InvalidSeat {
        /// The seat given.
        seat: i64,
        /// The highest seat.
        last: usize,
    },
    /// An output buffer of the wrong length.
    #[error("buffer has length {got}; this game needs {expected}")]
    BufferSize {
        /// Length given.
        got: usize,
        /// Length needed.
        expected: usize,
    },
    /// A card or card list that does not parse.
    #[error("cannot read card `{text}`: {reason}")]
    InvalidCard {
        /// The text given.
        text: String,
        /// What was wrong.
        reason: String,
    },
    /// Serialized state bytes or JSON that are malformed or inconsistent.
    #[error("cannot decode state: {0}")]
    Decode(String),
    /// A serialized state written under rules this engine does not implement.
    #[error(
        "state was written for rules version {found} of `{game}`; this engine implements version {expected}"
    )]
    RulesVersion {
        /// Game name.
        game: String,
        /// Version in the data.
        found: u32,
        /// Version of this engine.
        expected: u32,
    },
    /// No full state consistent with the seat's knowledge was found within the sampling budget.
    #[error("could not sample a state consistent with seat {seat}'s knowledge: {reason}")]
    ResampleFailed {
        /// The seat whose knowledge was kept.
        seat: usize,
        /// Why.
        reason: String,
    },
}
