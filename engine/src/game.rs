//! The State API: one contract that every game implements.
//!
//! A game is a validated configuration ([`Game`]); a [`State`] is one position in it, a small
//! `Clone` value. Every method states its contract here; game modules document only their
//! own layouts and rulings.
//!
//! * **Nodes.** [`State::current_player`] is a seat, [`Player::Chance`] (the deal, a cut, a
//!   starter) or [`Player::Terminal`].
//! * **Actions** are fixed ids `0..num_distinct_actions` with stable text forms. At a chance
//!   node the ids are chance outcomes `0..max_chance_outcomes` (for a deal: the card dealt
//!   next), listed by [`State::chance_outcomes`] with their probabilities; [`State::apply`]
//!   accepts both kinds, so a history is one list.
//! * **Randomness** comes only from an [`Rng`] argument; a state never stores one, so search
//!   code cannot peek at future cards.
//! * **Hidden information.** [`State::write_observation`], [`State::observation_string`],
//!   [`State::view`] and [`State::action_to_string_for`] for a seat depend only on what that
//!   seat may know. [`fmt::Display`] of a state is the omniscient text (every hand), for
//!   debugging only.
//! * **Returns** lie in [`Game::min_return`]`..=`[`Game::max_return`]; the observation's
//!   named slices and their bounds are [`Game::observation_layout`].
//! * **Serialization**: [`State::to_bytes`] / [`State::to_json`] and
//!   [`Game::state_from_bytes`] / [`Game::state_from_json`] on every game (the format is
//!   [`crate::codec`]'s); [`crate::state_from_bytes`] decodes a state of any game.

use std::fmt;

use serde::Serialize;

pub use crate::action_set::{Action, ActionIter, ActionSet, MAX_ACTIONS};
use crate::codec::Record;
use crate::{Error, OptionSpec, Options, Rng};

/// Who acts at a state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Player {
    /// A seat, `0..num_players`.
    Seat(usize),
    /// A chance event (deal, cut, starter) is pending.
    Chance,
    /// The game is over.
    Terminal,
}

impl Player {
    /// The seat, if a seat is to act.
    #[must_use]
    pub const fn seat(self) -> Option<usize> {
        match self {
            Player::Seat(s) => Some(s),
            _ => None,
        }
    }

    /// OpenSpiel-style integer: the seat, `-1` for chance, `-4` for terminal.
    #[must_use]
    pub const fn to_i32(self) -> i32 {
        match self {
            Player::Seat(s) => s as i32,
            Player::Chance => CHANCE,
            Player::Terminal => TERMINAL,
        }
    }
}

/// [`Player::to_i32`] of a chance node (as in OpenSpiel).
pub const CHANCE: i32 = -1;
/// [`Player::to_i32`] of a terminal state (as in OpenSpiel).
pub const TERMINAL: i32 = -4;

/// Who looks at a state: decides what [`State::view`] and [`State::action_to_string_for`] show.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Viewer {
    /// One seat: its own hand and everything public.
    Seat(usize),
    /// A spectator: public information only.
    Spectator,
    /// Everything, all hands included: for referees, records after the game, debugging.
    Omniscient,
}

/// One value per seat (returns, rewards), without allocation. Dereferences to a slice of
/// length `num_players`.
#[derive(Copy, Clone, Debug, PartialEq, Default, Serialize)]
pub struct SeatValues {
    values: [f64; 4],
    len: u8,
}

impl SeatValues {
    /// `n` zeros (`n <= 4`).
    #[must_use]
    pub fn zeros(n: usize) -> SeatValues {
        SeatValues {
            values: [0.0; 4],
            len: n.min(4) as u8,
        }
    }
}

impl std::ops::Deref for SeatValues {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        &self.values[..self.len as usize]
    }
}

impl std::ops::DerefMut for SeatValues {
    fn deref_mut(&mut self) -> &mut [f64] {
        &mut self.values[..self.len as usize]
    }
}

/// One named slice of an observation tensor: `offset..offset + shape.iter().product()` of
/// the flat vector, with the bounds every value in it keeps.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ObservationSlice {
    /// Short snake_case name, e.g. `hand`.
    pub name: &'static str,
    /// Index of the first value in the flat observation.
    pub offset: usize,
    /// Shape of the slice (row-major), e.g. `[4, 36]` for four seats' card sets.
    pub shape: Vec<usize>,
    /// What the values mean (seats relative to the observer, scaling, ...).
    pub meaning: &'static str,
    /// Smallest value any entry of this slice takes.
    pub low: f32,
    /// Largest value any entry of this slice takes.
    pub high: f32,
}

impl ObservationSlice {
    /// Number of values (product of the shape).
    #[must_use]
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// True for an empty slice.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Static facts about a game, as OpenSpiel's `GameType` states them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameType {
    /// Registry name, e.g. `jass`.
    pub short_name: &'static str,
    /// Full name, e.g. `Swiss Jass, Schieber`.
    pub long_name: &'static str,
    /// `sequential`: one seat acts at a time.
    pub dynamics: &'static str,
    /// `explicit_stochastic`: chance nodes with listed outcomes (deals, cuts).
    pub chance_mode: &'static str,
    /// `imperfect_information`: hands are hidden.
    pub information: &'static str,
    /// `zero_sum`, `constant_sum` or `general_sum`.
    pub utility: &'static str,
    /// `terminal`: rewards only at the end (returns are 0 before).
    pub reward_model: &'static str,
    /// Number of seats under these options.
    pub num_players: usize,
}

/// A validated game configuration. Cheap to copy or clone.
pub trait Game: Clone + fmt::Debug + Send + Sync + 'static {
    /// The state type of this game.
    type State: State<Game = Self>;

    /// Registry name, e.g. `"jass"`.
    const NAME: &'static str;
    /// Version of the implemented rules; serialized states carry it. It changes whenever a
    /// history could replay differently.
    const RULES_VERSION: u32;
    /// The cards this game is played with.
    const PACK: crate::Pack;
    /// How this game's texts write cards (its views, its action texts).
    const NOTATION: crate::Notation = crate::Notation::French;
    /// The trained policies shipped for this game, as `(name, policy file)`: the bot
    /// `policy:<name>` ([`crate::bots::policy`]). None by default.
    const POLICIES: &'static [(&'static str, &'static [u8])] = &[];

    /// The option specs of this game, in a fixed order.
    fn option_specs() -> &'static [OptionSpec];

    /// Validates `options` (missing keys take defaults).
    ///
    /// # Errors
    /// [`Error::UnknownOption`] or [`Error::InvalidOption`] naming the key and what is allowed.
    fn from_options(options: &Options) -> Result<Self, Error>;

    /// Every option with its effective value (defaults included), in canonical form.
    fn options(&self) -> Options;

    /// Number of seats.
    fn num_players(&self) -> usize;

    /// Size of the player action space; ids are `0..num_distinct_actions`.
    fn num_distinct_actions(&self) -> usize;

    /// Size of the chance outcome space; outcome ids are `0..max_chance_outcomes`.
    fn max_chance_outcomes(&self) -> usize;

    /// Shape of [`State::write_observation`]'s output (a flat vector: one dimension).
    fn observation_shape(&self) -> Vec<usize>;

    /// Length of the observation (product of the shape).
    fn observation_len(&self) -> usize {
        self.observation_shape().iter().product()
    }

    /// The `ismcts` bot's default iterations per move: sized so that a move takes under
    /// 20 ms on one core (games with cheap play-outs afford more).
    fn default_ismcts_iterations(&self) -> u32 {
        200
    }

    /// The state before the first deal (a chance node).
    fn new_initial_state(&self) -> Self::State;

    /// The smallest value any seat's return can take under these options (a bound: no
    /// terminal state returns less). Each game documents it beside its returns.
    fn min_return(&self) -> f64;

    /// The largest value any seat's return can take under these options.
    fn max_return(&self) -> f64;

    /// The most player actions (chance outcomes not counted) any game under these options
    /// takes; `None` if there is no bound (a match that may go on while scores tie).
    fn max_game_length(&self) -> Option<usize> {
        None
    }

    /// The named slices of [`State::write_observation`]'s output, in order, covering it
    /// exactly. The default is one slice `observation` without known bounds; games document
    /// their layout here.
    fn observation_layout(&self) -> Vec<ObservationSlice> {
        vec![ObservationSlice {
            name: "observation",
            offset: 0,
            shape: self.observation_shape(),
            meaning: "the whole observation",
            low: f32::MIN,
            high: f32::MAX,
        }]
    }

    /// Static facts: every cardhouse game so far is sequential, with explicit chance,
    /// imperfect information, zero-sum returns given at the end. Games override what differs
    /// (the long name at least).
    fn game_type(&self) -> GameType {
        GameType {
            short_name: Self::NAME,
            long_name: Self::NAME,
            dynamics: "sequential",
            chance_mode: "explicit_stochastic",
            information: "imperfect_information",
            utility: "zero_sum",
            reward_model: "terminal",
            num_players: self.num_players(),
        }
    }

    /// Decodes [`State::to_bytes`] output of a state of this game with these options.
    ///
    /// # Errors
    /// [`Error::Decode`] (malformed, another game, other options), [`Error::RulesVersion`].
    fn state_from_bytes(&self, bytes: &[u8]) -> Result<Self::State, Error> {
        self.state_from_record(Record::from_bytes(bytes)?)
    }

    /// Decodes [`State::to_json`] output of a state of this game with these options.
    ///
    /// # Errors
    /// As [`Game::state_from_bytes`].
    fn state_from_json(&self, text: &str) -> Result<Self::State, Error> {
        self.state_from_record(Record::from_json(text)?)
    }

    /// Rebuilds a decoded record, checking that it is of this game with these options.
    ///
    /// # Errors
    /// As [`Game::state_from_bytes`].
    #[doc(hidden)]
    fn state_from_record(&self, record: Record) -> Result<Self::State, Error> {
        let state = record.into_state::<Self>()?;
        if state.game().options() != self.options() {
            return Err(Error::Decode(format!(
                "state is for {} with options {:?}, not with options {:?}",
                Self::NAME,
                state.game().options(),
                self.options()
            )));
        }
        Ok(state)
    }
}

/// A position in a game. See the module docs for the contract shared by all methods.
pub trait State: Clone + fmt::Debug + fmt::Display + Send + Sync + 'static {
    /// The game this is a state of.
    type Game: Game<State = Self>;
    /// The structured view type (serde).
    type View: Serialize + fmt::Debug;

    /// The game (configuration) of this state.
    fn game(&self) -> &Self::Game;

    /// Who acts now.
    fn current_player(&self) -> Player;

    /// True at a terminal state.
    fn is_terminal(&self) -> bool {
        self.current_player() == Player::Terminal
    }

    /// True at a chance node.
    fn is_chance_node(&self) -> bool {
        self.current_player() == Player::Chance
    }

    /// Legal actions of the seat to move, or the possible outcomes at a chance node; empty
    /// at a terminal state. Ascending; allocation-free.
    fn legal_actions(&self) -> ActionSet;

    /// A mask over the player action space (`num_distinct_actions`), or over the chance
    /// outcome space at a chance node.
    fn legal_action_mask(&self) -> Vec<bool> {
        let n = if self.is_chance_node() {
            self.game().max_chance_outcomes()
        } else {
            self.game().num_distinct_actions()
        };
        let mut mask = vec![false; n];
        self.legal_actions().write_mask(&mut mask);
        mask
    }

    /// The chance outcomes with their probabilities (summing to 1).
    ///
    /// # Errors
    /// [`Error::WrongNode`] if this is not a chance node.
    fn chance_outcomes(&self) -> Result<Vec<(Action, f64)>, Error> {
        if !self.is_chance_node() {
            return Err(Error::WrongNode(
                "chance outcomes exist only at a chance node".into(),
            ));
        }
        let outcomes = self.legal_actions();
        let p = 1.0 / outcomes.len() as f64;
        Ok(outcomes.iter().map(|a| (a, p)).collect())
    }

    /// The chance outcome at `u` (in `[0, 1)`) of the cumulative distribution of
    /// [`State::chance_outcomes`], in their order: the first outcome whose running sum of
    /// probabilities exceeds `u` (the last one if rounding leaves none), without allocating.
    /// A game that overrides `chance_outcomes` overrides this too.
    ///
    /// # Errors
    /// [`Error::WrongNode`] if this is not a chance node.
    fn chance_outcome_at(&self, u: f64) -> Result<Action, Error> {
        if !self.is_chance_node() {
            return Err(Error::WrongNode(
                "chance outcomes exist only at a chance node".into(),
            ));
        }
        let outcomes = self.legal_actions();
        let p = 1.0 / outcomes.len() as f64;
        let mut acc = 0.0;
        let mut last = None;
        for a in outcomes.iter() {
            acc += p;
            if u < acc {
                return Ok(a);
            }
            last = Some(a);
        }
        last.ok_or_else(|| Error::WrongNode("a chance node without outcomes".into()))
    }

    /// Applies one chance outcome drawn from `rng` with the probabilities of
    /// [`State::chance_outcomes`].
    ///
    /// # Errors
    /// [`Error::WrongNode`] if this is not a chance node.
    fn apply_random_chance<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Result<(), Error>;

    /// Resolves every pending chance event from `rng` until a seat acts or the game ends.
    /// Games may draw a whole deal at once (a shuffle); the result for a given `rng` stream is
    /// fixed, but it need not equal repeated [`State::apply_random_chance`] calls.
    ///
    /// This is the unchecked form for hot loops: at a player node or a terminal state it
    /// changes nothing. The checked form, [`crate::AnyState::resolve_chance`] (used by the
    /// Python module and the gRPC service), reports [`Error::WrongNode`] there, as
    /// [`State::apply_random_chance`] does.
    fn resolve_chance<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        while self.is_chance_node() {
            // Cannot fail: we are at a chance node.
            let _ = self.apply_random_chance(rng);
        }
    }

    /// Applies a player action or a chance outcome after checking it.
    ///
    /// # Errors
    /// [`Error::GameOver`], [`Error::UnknownAction`] or [`Error::IllegalAction`] (saying which
    /// rule forbids it). On error the state is unchanged.
    fn apply(&mut self, action: Action) -> Result<(), Error> {
        self.check_action(action)?;
        self.apply_unchecked(action);
        Ok(())
    }

    /// Checks that `action` is legal now, with the reason if it is not.
    ///
    /// # Errors
    /// As [`State::apply`].
    fn check_action(&self, action: Action) -> Result<(), Error>;

    /// Applies an action known to be legal, for hot loops. Debug builds assert legality;
    /// release builds leave the state unspecified (but memory-safe) for an illegal action.
    fn apply_unchecked(&mut self, action: Action);

    /// Text form of `action` at this state, e.g. `"play UR"`, `"trump roses"`; at a chance
    /// node, the outcome as the omniscient viewer sees it (`"deal UR to 2"`).
    fn action_to_string(&self, action: Action) -> String {
        self.action_to_string_for(Viewer::Omniscient, action)
            .unwrap_or_else(|| format!("action {action}"))
    }

    /// Text form of `action` as `viewer` learns it when it is applied here, for event
    /// streams: a card dealt to another seat is shown without the card (`"deal a card to 2"`);
    /// `None` if the viewer does not even learn that the action happened (another seat's
    /// private Wys declaration). Events built from this never leak hidden information.
    fn action_to_string_for(&self, viewer: Viewer, action: Action) -> Option<String>;

    /// True if `viewer` learns that `action`, applied here, happened: the same as
    /// `action_to_string_for(viewer, action).is_some()`, without building the text.
    fn action_visible_to(&self, viewer: Viewer, action: Action) -> bool {
        self.action_to_string_for(viewer, action).is_some()
    }

    /// Parses the text form of an action at this state (inverse of [`State::action_to_string`]).
    ///
    /// # Errors
    /// [`Error::UnparsableAction`] saying what is expected.
    fn string_to_action(&self, text: &str) -> Result<Action, Error>;

    /// Writes what `seat` knows into `out` (length [`Game::observation_len`]); layout
    /// documented by each game as named constants. Allocation-free.
    ///
    /// # Errors
    /// [`Error::InvalidSeat`] or [`Error::BufferSize`].
    fn write_observation(&self, seat: usize, out: &mut [f32]) -> Result<(), Error>;

    /// The observation as a new vector.
    ///
    /// # Errors
    /// [`Error::InvalidSeat`].
    fn observation(&self, seat: usize) -> Result<Vec<f32>, Error> {
        let mut out = vec![0.0; self.game().observation_len()];
        self.write_observation(seat, &mut out)?;
        Ok(out)
    }

    /// A text of what `seat` knows, safe to show to that seat (its own hand, public cards,
    /// scores; never another seat's hidden cards). The default is the seat's
    /// [`State::view`] as JSON; games override it with a readable text. (The
    /// [`fmt::Display`] text is omniscient.)
    ///
    /// # Errors
    /// [`Error::InvalidSeat`].
    fn observation_string(&self, seat: usize) -> Result<String, Error> {
        let view = self.view(Viewer::Seat(seat))?;
        Ok(serde_json::to_string(&view).unwrap_or_default())
    }

    /// The structured record of what `viewer` may see.
    ///
    /// # Errors
    /// [`Error::InvalidSeat`].
    fn view(&self, viewer: Viewer) -> Result<Self::View, Error>;

    /// Per-seat returns, zero-sum between the sides; all 0 until terminal. Each game
    /// documents them for `scope = match` and `scope = deal`.
    fn returns(&self) -> SeatValues;

    /// Reward of the last transition per seat. Returns are 0 until terminal, so this is the
    /// returns at a terminal state and 0 elsewhere.
    fn rewards(&self) -> SeatValues {
        if self.is_terminal() {
            self.returns()
        } else {
            SeatValues::zeros(self.game().num_players())
        }
    }

    /// Every action and chance outcome applied since the initial state, in order.
    /// Replaying it on [`Game::new_initial_state`] reproduces this state exactly.
    fn history(&self) -> Vec<Action>;

    /// Number of actions and outcomes applied so far (`history().len()`). It counts private
    /// actions too, so it must not be shown to players: use [`State::public_move_number`].
    fn move_number(&self) -> usize;

    /// Number of applied actions and outcomes that every spectator knows happened (those for
    /// which [`State::action_to_string_for`] with [`Viewer::Spectator`] is `Some`). Safe to
    /// show to every seat, e.g. as the expected move number of a server-held match.
    fn public_move_number(&self) -> usize;

    /// A full state consistent with everything `seat` knows (its hand, public cards, voids
    /// and other inferences, public announcements), drawn from `rng`. The result gives `seat`
    /// the same observation and view as `self`.
    ///
    /// # Errors
    /// [`Error::InvalidSeat`], or [`Error::ResampleFailed`] if no consistent state was found.
    fn resample<R: Rng + ?Sized>(&self, seat: usize, rng: &mut R) -> Result<Self, Error>;

    /// In a match, between two deals (the deal before has just been scored and nothing of
    /// the next one is dealt yet): that deal's returns as `scope = deal` gives them. `None`
    /// elsewhere (and by default). Search uses it to judge a move by the deal it is part of,
    /// not by the outcome of a whole match played out at random.
    fn deal_outcome(&self) -> Option<SeatValues> {
        None
    }

    /// The move of the `heuristic` bot (see [`crate::bots`]) for `seat`, which must be to
    /// act: play a beginner would recognise as sensible, documented in the game's
    /// `heuristic` module. It reads only what `seat` knows, so two states that differ only in
    /// what `seat` cannot see give the same move for the same `rng`.
    ///
    /// # Errors
    /// [`Error::WrongNode`] if `seat` is not to act.
    fn heuristic_action<R: Rng + ?Sized>(&self, seat: usize, rng: &mut R) -> Result<Action, Error>;

    /// This state as the exact card-play solver takes it ([`crate::solve::Solver::solve`]:
    /// every card known, the value of each legal action to the end of the deal). The games
    /// with trick play (Jass, Klaberjass, Avinas) return themselves; whether the state is one
    /// the solver handles (the play, not the bidding) is the solve's own error.
    ///
    /// # Errors
    /// [`Error::WrongNode`] for a game without trick play to solve (Cribbage; the default).
    fn solvable(&self) -> Result<&dyn crate::solve::Solvable, Error> {
        Err(crate::solve::unsupported_game(<Self::Game as Game>::NAME))
    }

    /// Compact versioned bytes (game, options, rules version, history; see
    /// [`crate::codec`]). Decode with [`Game::state_from_bytes`] or
    /// [`crate::state_from_bytes`].
    #[must_use]
    fn to_bytes(&self) -> Vec<u8> {
        Record::of(self).to_bytes()
    }

    /// Versioned JSON of the same record. Decode with [`Game::state_from_json`] or
    /// [`crate::state_from_json`].
    #[must_use]
    fn to_json(&self) -> String {
        Record::of(self).to_json()
    }
}

/// `Ok` if `seat` is to act at `state`; otherwise [`Error::WrongNode`] saying who is.
pub(crate) fn expect_turn<S: State>(state: &S, seat: usize) -> Result<(), Error> {
    match state.current_player() {
        Player::Seat(s) if s == seat => Ok(()),
        Player::Seat(s) => Err(Error::WrongNode(format!(
            "seat {seat} is not to act: seat {s} is"
        ))),
        Player::Chance => Err(Error::WrongNode(format!(
            "seat {seat} is not to act: a chance event is pending"
        ))),
        Player::Terminal => Err(Error::WrongNode(format!(
            "seat {seat} is not to act: the game is over"
        ))),
    }
}

/// A state's record and back (the encoding itself is [`crate::codec`]'s, which knows no
/// game): here, beside the contract they rely on.
impl Record {
    /// The record of a state.
    pub fn of<S: State>(state: &S) -> Record {
        Record {
            format: "cardhouse-state".to_owned(),
            version: crate::codec::FORMAT,
            game: <S::Game as Game>::NAME.to_owned(),
            rules_version: <S::Game as Game>::RULES_VERSION,
            options: state.game().options(),
            history: state.history(),
        }
    }

    /// Rebuilds the state for a concrete game type.
    ///
    /// # Errors
    /// [`Error::Decode`] if the record is for another game or its history does not replay;
    /// [`Error::RulesVersion`]; option errors.
    pub fn into_state<G: Game>(self) -> Result<G::State, Error> {
        if self.game != G::NAME {
            return Err(Error::Decode(format!(
                "state is for game `{}`, not `{}`",
                self.game,
                G::NAME
            )));
        }
        if self.rules_version != G::RULES_VERSION {
            return Err(Error::RulesVersion {
                game: self.game,
                found: self.rules_version,
                expected: G::RULES_VERSION,
            });
        }
        let game = G::from_options(&self.options)?;
        replay(&game, &self.history)
    }
}

/// Replays `history` from the initial state with checked `apply`.
///
/// # Errors
/// [`Error::Decode`] naming the first entry that is not legal, with the reason.
pub fn replay<G: Game>(game: &G, history: &[Action]) -> Result<G::State, Error> {
    let mut state = game.new_initial_state();
    for (i, &a) in history.iter().enumerate() {
        state
            .apply(a)
            .map_err(|e| Error::Decode(format!("history entry {i} ({a}): {e}")))?;
    }
    Ok(state)
}
