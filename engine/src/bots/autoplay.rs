//! Playing chance and bots until a seat must decide: the one loop every surface runs — the
//! arena, the server's matches, Python's `VectorEnv` and its Gymnasium, PettingZoo and RLlib
//! wrappers, `cardhouse play`.
//!
//! [`play_until`] applies chance events and bot moves to a state until a seat that no bot
//! plays is to act, the game ends, or the caller's budget says stop. Who makes those moves,
//! and from which randomness, is an [`Autoplay`]: [`Streams`] draws chance and each seat's
//! bot from generators that run on (the arena, `VectorEnv`), [`PerMove`] seeds every move
//! from the match seed and its move number, so that a match resumes exactly from any point
//! (the server's matches); other callers bring their own (Python calls back into Python).
//!
//! ```
//! use cardhouse::bots::autoplay::{Streams, Stopped, Until, play_until};
//! use cardhouse::bots::BotKind;
//! use cardhouse::{new_game, options, SeededRng};
//!
//! let game = new_game("klaberjass", &options([("scope", "deal".into())]))?;
//! let mut state = game.new_initial_state();
//! // Seat 0 decides; the heuristic plays seat 1.
//! let bots = [None, Some(BotKind::Heuristic)];
//! let (mut chance, mut seats) = (SeededRng::new(1), vec![SeededRng::new(2), SeededRng::new(3)]);
//! let mut auto = Streams { bots: &bots, chance: &mut chance, seats: &mut seats };
//! let played = play_until(&mut state, &mut auto, &mut Until::default())?;
//! assert_eq!(played.stopped, Stopped::Decision(0));
//! assert_eq!(state.current_player(), cardhouse::Player::Seat(0));
//! # Ok::<(), cardhouse::Error>(())
//! ```

use crate::bots::BotKind;
use crate::{Action, AnyState, Error, Player, Rng, SeededRng, seeds};

/// Who makes the moves that no seat decides at the table: chance, and the seats bots play.
pub trait Autoplay {
    /// What a move of chance or of a bot can fail with (the engine's errors at least).
    type Error: From<Error>;

    /// Whether a bot plays `seat` (false: the seat decides itself, and [`play_until`] stops
    /// when it is to act).
    fn plays(&self, seat: usize) -> bool;

    /// The chance step at `state` (a chance node): `Some(outcome)` for [`play_until`] to apply
    /// (and tell its observer of), or `None` once this has resolved every pending chance event
    /// itself (a whole deal drawn at once: then the observer is not told of its outcomes).
    ///
    /// # Errors
    /// As the source of randomness fails.
    fn chance(&mut self, state: &mut AnyState) -> Result<Option<Action>, Self::Error>;

    /// The move of the bot on `seat` (to act at `state`, and [`Autoplay::plays`] it);
    /// `stop` asks a search to play its best move so far.
    ///
    /// # Errors
    /// As the bot fails.
    fn bot(
        &mut self,
        state: &AnyState,
        seat: usize,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Action, Self::Error>;
}

/// Why [`play_until`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// This seat, which no bot plays, is to act.
    Decision(usize),
    /// The game is over.
    Terminal,
    /// [`Until::max_actions`] actions were applied; bots or chance have more to play.
    Budget,
    /// [`Until::proceed`] said stop before a move; bots or chance have more to play.
    Paused,
    /// The history reached [`Until::max_history`]: no more actions may be added.
    Limit,
}

impl Stopped {
    /// Whether bots or chance still have moves to play (the caller may call again).
    #[must_use]
    pub const fn more(self) -> bool {
        matches!(self, Stopped::Budget | Stopped::Paused)
    }
}

/// What [`play_until`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    pub stopped: Stopped,
    /// Actions applied, chance outcomes included.
    pub actions: usize,
}

/// Asked before each chance step or bot move: the state, and who is to move.
pub type Proceed<'a> = dyn FnMut(&AnyState, Player) -> bool + 'a;

/// Told of an action about to be applied: the state, who plays it, the action.
pub type Observe<'a> = dyn FnMut(&AnyState, Player, Action) + 'a;

/// The budget and the hooks of one [`play_until`] call; `Until::default()` plays on until a
/// decision or the end.
pub struct Until<'a> {
    /// Most moves (chance steps and bot moves) in this call.
    pub max_actions: usize,
    /// No action is added once the state's history holds this many.
    pub max_history: usize,
    /// Asked before each chance step or bot move with the state and who is to move; false
    /// pauses there ([`Stopped::Paused`]). A time budget, or a rule that some bots may not
    /// move here.
    pub proceed: Option<&'a mut Proceed<'a>>,
    /// Handed to every bot: true makes a search play its best move so far.
    pub stop: Option<&'a mut dyn FnMut() -> bool>,
    /// Told of each action just before it is applied, with the state it applies to and
    /// who plays it (chance outcomes one by one, except those an [`Autoplay`] resolves
    /// itself).
    pub observe: Option<&'a mut Observe<'a>>,
}

impl Default for Until<'_> {
    fn default() -> Self {
        Until {
            max_actions: usize::MAX,
            max_history: usize::MAX,
            proceed: None,
            stop: None,
            observe: None,
        }
    }
}

impl std::fmt::Debug for Until<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Until")
            .field("max_actions", &self.max_actions)
            .field("max_history", &self.max_history)
            .field("proceed", &self.proceed.is_some())
            .field("stop", &self.stop.is_some())
            .field("observe", &self.observe.is_some())
            .finish()
    }
}

/// Applies chance and bot moves to `state` until a seat that `auto` does not play is to
/// act, the game ends, or `until` stops it. Every move is applied checked: a bot that
/// returns an illegal action is an error, and the state is left after the last good move.
///
/// # Errors
/// What `auto`'s chance or bots fail with, or [`Error::IllegalAction`] for a bot's illegal
/// move.
pub fn play_until<A: Autoplay + ?Sized>(
    state: &mut AnyState,
    auto: &mut A,
    until: &mut Until<'_>,
) -> Result<Played, A::Error> {
    let mut actions = 0usize;
    let mut moves = 0usize;
    let mut never = || false;
    let stopped = loop {
        if state.move_number() >= until.max_history {
            break Stopped::Limit;
        }
        let actor = state.current_player();
        match actor {
            Player::Terminal => break Stopped::Terminal,
            Player::Seat(s) if !auto.plays(s) => break Stopped::Decision(s),
            _ => {}
        }
        if moves >= until.max_actions {
            break Stopped::Budget;
        }
        if let Some(proceed) = until.proceed.as_mut()
            && !proceed(state, actor)
        {
            break Stopped::Paused;
        }
        moves += 1;
        let action = match actor {
            Player::Seat(s) => {
                let stop: &mut dyn FnMut() -> bool = match until.stop.as_mut() {
                    Some(stop) => &mut **stop,
                    None => &mut never,
                };
                auto.bot(state, s, stop)?
            }
            _ => {
                let before = state.move_number();
                match auto.chance(state)? {
                    Some(outcome) => outcome,
                    None => {
                        actions += state.move_number() - before;
                        continue;
                    }
                }
            }
        };
        if let Some(observe) = until.observe.as_mut() {
            observe(state, actor, action);
        }
        state.apply(action)?;
        actions += 1;
    };
    Ok(Played { stopped, actions })
}

/// Bots on the seats (`None`: the seat decides), chance drawn from one generator and each
/// seat's bot from its own, all running on from call to call: the arena, `VectorEnv`,
/// `cardhouse play`. Every pending chance event is resolved at once
/// ([`AnyState::resolve_chance`]).
#[derive(Debug)]
pub struct Streams<'a, R: Rng> {
    pub bots: &'a [Option<BotKind>],
    pub chance: &'a mut R,
    /// One generator per seat (at least one per bot seat).
    pub seats: &'a mut [R],
}

impl<R: Rng> Autoplay for Streams<'_, R> {
    type Error = Error;

    fn plays(&self, seat: usize) -> bool {
        self.bots.get(seat).is_some_and(Option::is_some)
    }

    fn chance(&mut self, state: &mut AnyState) -> Result<Option<Action>, Error> {
        state.resolve_chance(self.chance)?;
        Ok(None)
    }

    fn bot(
        &mut self,
        state: &AnyState,
        seat: usize,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Action, Error> {
        let bot = self.bots[seat].as_ref().ok_or_else(|| not_a_bot(seat))?;
        let rng = self.seats.get_mut(seat).ok_or_else(|| not_a_bot(seat))?;
        state.bot_action(bot, seat, rng, stop)
    }
}

/// Bots on the seats (`None`: the seat decides), every chance event and bot move drawn from
/// a generator of its own seeded by the match's seed and the move number
/// ([`seeds::move_chance`], [`seeds::move_bot`]): a match resumed from any point, on any
/// replica, plays on exactly as it would have (server-held matches).
#[derive(Debug)]
pub struct PerMove<'a> {
    pub bots: &'a [Option<BotKind>],
    pub seed: u64,
}

impl Autoplay for PerMove<'_> {
    type Error = Error;

    fn plays(&self, seat: usize) -> bool {
        self.bots.get(seat).is_some_and(Option::is_some)
    }

    fn chance(&mut self, state: &mut AnyState) -> Result<Option<Action>, Error> {
        let mut rng = SeededRng::new(seeds::move_chance(self.seed, state.move_number() as u64));
        state
            .chance_outcome_at(seeds::unit_float(rng.next_u64()))
            .map(Some)
    }

    fn bot(
        &mut self,
        state: &AnyState,
        seat: usize,
        stop: &mut dyn FnMut() -> bool,
    ) -> Result<Action, Error> {
        let bot = self.bots[seat].as_ref().ok_or_else(|| not_a_bot(seat))?;
        let mut rng = SeededRng::new(seeds::move_bot(self.seed, state.move_number() as u64));
        state.bot_action(bot, seat, &mut rng, stop)
    }
}

fn not_a_bot(seat: usize) -> Error {
    Error::WrongNode(format!("no bot plays seat {seat}"))
}
