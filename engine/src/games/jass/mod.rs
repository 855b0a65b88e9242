//! Swiss Jass, Schieber: 4 players in partnerships, 36 Swiss cards, trumps chosen by the
//! forehand or pushed to his partner (*schieben*), Wys and Stöck, multiplied scores.
//!
//! **Rules source:** `shared/rules/jass_schieber.md` (after seed `003`, Japanese Wikipedia
//! "ヤス", and the sources of its §15). Section numbers below refer to that file.
//!
//! **Engine decisions and deviations** (each also in the rules file or here):
//! * Seats `0..4` in playing order, partners {0, 2} and {1, 3}; the dealer is option
//!   `first_dealer` for the first deal, then moves to seat `+1` (§2, §4).
//! * The deal is 36 explicit chance outcomes, one card each, dealt three at a time from the
//!   forehand (§5). Outcome ids are the card ids of [`card_action`].
//! * The forehand's shortcut of leading without declaring (§6.4) is not an engine action:
//!   the mode is always chosen first (it is equivalent to choosing that suit as trump).
//! * Wys are declared by the seat itself (option `wys = manual`, the default, §8.2 engine
//!   form in [`wys`]) or automatically with the best set (`wys = auto`, for RL users).
//!   Laying the first card commits the set; announcements follow §8.5.
//! * Stöck is credited automatically when its second card is played (§9). With
//!   `stoeck_suits = any_suit` every K+O pair of one suit held by one player scores, in every
//!   mode \[decision\].
//! * An exact tie at or above the target plays another deal (§11).
//!
//! **Actions** (fixed ids, 164 in all):
//!
//! | ids | action | text |
//! |---|---|---|
//! | 0..36 | play a card: `suit lane * 9 + rank` (lanes: Bells, Acorns, Roses, Shields; ranks 6..A) | `play UR` |
//! | 36..42 | choose the mode: trump Acorns, Roses, Shields, Bells; Obenabe; Undenufe | `trump roses`, `obenabe` |
//! | 42 | schieben (push the choice to the partner) | `schieben` |
//! | 43..164 | declare a Wys item (see [`wys`]) | `wys four U`, `wys run 7A-9A` |
//!
//! **Returns** (§11): 0 until terminal. `scope = match`: +1 for each seat of the team with
//! the higher total once a team has reached `target_score`, −1 for the others.
//! `scope = deal`: the state is terminal after one deal; each seat gets its team's deal score
//! (multiplied) minus the other team's, never beyond ±[`JassGame::max_deal_score`] (3908 with the defaults: 977 points at
//! most for one team times the largest multiplier 4; 4148 with `stoeck_suits = any_suit`),
//! which is [`Game::min_return`](crate::Game::min_return) /
//! [`Game::max_return`](crate::Game::max_return). The view's `scores` then hold the
//! deal's scored totals, and `last_deal` its breakdown.
//!
//! **Observation** (518 floats, seats relative to the observer): the named slices of
//! [`layout`], also returned with their bounds by [`Game::observation_layout`](crate::Game::observation_layout).

mod bidding;
mod deal;
mod heuristic;
mod ids;
mod observation;
mod options;
mod play;
mod resample;
mod scoring;
mod solve;
mod text;
mod view;
pub mod wys;

use std::sync::Arc;

use serde::Serialize;

pub use ids::{action_card, card_action};
pub(crate) use ids::{pack_cards, unpack_cards};
pub use observation::layout;
pub use options::{EndCheck, JassGame, LongSequenceValues, Mode, MultiplierScheme, UndertrumpRule};
use play::insert_cards;
pub use view::{ActionView, JassView, PlayView, SwissCards, TrickView, WysView};
pub use wys::{Announcement, Said, WysItem, WysKind, WysSet};

use crate::{
    Action, ActionSet, Card, CardSet, Error, Player, Rank, Rng, SeatValues, State, Suit, Viewer,
};

/// The most Wys points one hand can declare: four Unders (200) and four Nines (150).
pub(crate) const MAX_WYS_PER_HAND: u32 = 350;

/// Number of player action ids.
pub const NUM_ACTIONS: usize = 43 + wys::NUM_ITEMS as usize;
/// First mode action id (trump Acorns).
pub const MODE_BASE: Action = 36;
/// The schieben action id.
pub const SCHIEBEN: Action = 42;
/// First Wys item action id.
pub const WYS_BASE: Action = 43;

/// Serializes a rank in Swiss notation (`"U"`, `"O"`, `"9"`), as in card texts.
pub(crate) fn swiss_rank<S: serde::Serializer>(rank: &Rank, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(rank.swiss_short())
}

/// Serializes a suit by its Swiss name (`"roses"`), as in action texts.
pub(crate) fn swiss_suit<S: serde::Serializer>(suit: &Suit, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(suit.swiss_name())
}

/// Where a deal stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Cards are being dealt (chance).
    Deal,
    /// The forehand (or his partner after schieben) chooses the mode.
    ChooseMode,
    /// Trick play (Wys are declared during the first trick).
    Play,
    /// The game is over.
    Over,
}

/// Capacity of the per-deal action log: 36 deal outcomes, at most 3 mode actions, at most
/// 3 Wys items per seat (a 9-card hand holds no more), 36 cards.
const LOG_CAP: usize = 96;

/// The result of a finished deal, kept for views: per team, where the points came from
/// (`cards + wys + stoeck + last_trick + match_bonus = raw`), then the multiplier of the
/// mode and the points scored (`raw * multiplier`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct DealResult {
    /// The mode played.
    pub mode: Mode,
    /// Card points taken in tricks per team (§10).
    pub cards: [u32; 2],
    /// Wys points per team (only the team with the best Wys scores, §8).
    pub wys: [u32; 2],
    /// Stöck points per team (§9).
    pub stoeck: [u32; 2],
    /// The last-trick bonus, to the team that took the ninth trick (§10).
    pub last_trick: [u32; 2],
    /// The Match bonus, to a team that took all nine tricks (§10).
    pub match_bonus: [u32; 2],
    /// Points per team before multiplying: the sum of the five above.
    pub raw: [u32; 2],
    /// The mode's multiplier (§10).
    pub multiplier: u32,
    /// Points per team after multiplying.
    pub scored: [u32; 2],
}

/// A Jass state. Small and `Clone`; the hot path (legal actions, apply, observation) does not
/// allocate. Finished deals of a match are kept in a shared, immutable log. Two states are
/// equal when every field is (the same game, history and position).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JassState {
    game: JassGame,
    phase: Phase,
    deal_no: u16,
    dealer: u8,
    forehand: u8,
    /// Seat to act in `ChooseMode` / `Play`.
    to_act: u8,
    /// Cards dealt so far in this deal.
    dealt: u8,
    /// The hands as card-action-id words (bit `a` = card action `a`): legal actions are
    /// computed in this form; the hands as card sets are derived ([`JassState::hand_cards`]).
    packed: [u64; 4],
    /// The 9 cards each seat was dealt (for views after the game, Stöck and resampling).
    dealt_hands: [CardSet; 4],
    mode: Option<Mode>,
    /// Fixed with the mode, for trick play: its index in the strength tables (the trump lane
    /// `0..4`, Obenabe 4, Undenufe 5), in the point tables (6: Undenufe with the 6 worth
    /// 11), and the trump lane as an action-id word (0 without trumps).
    mode_ix: u8,
    points_ix: u8,
    trump_lane: u64,
    /// Number of pushes made in this deal (0, 1, 2 with `schieben_back`).
    pushes: u8,
    chooser: u8,
    /// Tricks of this deal: cards by play position (card byte) and leaders.
    tricks: [[Card; 4]; 9],
    leaders: [u8; 9],
    winners: [u8; 9],
    trick_no: u8,
    trick_len: u8,
    /// Current trick: the lane of the suit led (as an action-id word), position and strength
    /// of the winning card so far.
    led_lane: u64,
    win_pos: u8,
    win_str: u8,
    /// Card points of the current trick so far.
    trick_points: u32,
    /// Card points taken per team.
    card_points: [u32; 2],
    tricks_won: [u8; 2],
    /// Raw (unmultiplied) deal points per team: cards, bonuses, Wys, Stöck.
    raw: [u32; 2],
    // Wys.
    declared: [WysSet; 4],
    committed: [bool; 4],
    announcements: [Announcement; 4],
    /// Seat holding the best Wys so far (with its facts).
    best_wys: Option<(u8, wys::WysInfo)>,
    wys_winner: Option<u8>,
    wys_points: [u32; 2],
    revealed: CardSet,
    // Stöck: per seat, the suits whose K+O it holds and has not both played.
    stoeck_open: [u8; 4],
    stoeck_scored: [u8; 4],
    // Match.
    scores: [u32; 2],
    winner: Option<u8>,
    last_deal: Option<DealResult>,
    log: [u8; LOG_CAP],
    log_len: u8,
    past: Option<Arc<Vec<u8>>>,
}

impl JassState {
    fn new(game: JassGame) -> JassState {
        let dealer = game.first_dealer;
        JassState {
            game,
            phase: Phase::Deal,
            deal_no: 0,
            dealer,
            forehand: (dealer + 1) % 4,
            to_act: 0,
            dealt: 0,
            packed: [0; 4],
            dealt_hands: [CardSet::EMPTY; 4],
            mode: None,
            mode_ix: 0,
            points_ix: 0,
            trump_lane: 0,
            pushes: 0,
            chooser: 0,
            tricks: [[Card::new(Rank::Six, Suit::Clubs); 4]; 9],
            leaders: [0; 9],
            winners: [0; 9],
            trick_no: 0,
            trick_len: 0,
            led_lane: 0,
            win_pos: 0,
            win_str: 0,
            trick_points: 0,
            card_points: [0; 2],
            tricks_won: [0; 2],
            raw: [0; 2],
            declared: [WysSet::default(); 4],
            committed: [false; 4],
            announcements: [Announcement::default(); 4],
            best_wys: None,
            wys_winner: None,
            wys_points: [0; 2],
            revealed: CardSet::EMPTY,
            stoeck_open: [0; 4],
            stoeck_scored: [0; 4],
            scores: [0; 2],
            winner: None,
            last_deal: None,
            log: [0; LOG_CAP],
            log_len: 0,
            past: None,
        }
    }

    /// The phase of the current deal.
    #[must_use]
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The current dealer.
    #[must_use]
    pub fn dealer(&self) -> usize {
        usize::from(self.dealer)
    }

    /// The forehand of the current deal (leads trick 1).
    #[must_use]
    pub fn forehand(&self) -> usize {
        usize::from(self.forehand)
    }

    /// The mode, once chosen.
    #[must_use]
    pub fn mode(&self) -> Option<Mode> {
        self.mode
    }

    /// The cards `seat` holds now.
    #[must_use]
    pub fn hand(&self, seat: usize) -> CardSet {
        self.hand_cards(seat)
    }

    /// The cards `seat` holds now, from its card-action-id word.
    #[inline]
    fn hand_cards(&self, seat: usize) -> CardSet {
        unpack_cards(self.packed[seat & 3])
    }

    /// Cumulative match scores per team (team 0 = seats 0 and 2).
    #[must_use]
    pub fn scores(&self) -> [u32; 2] {
        self.scores
    }

    /// Raw points of the current deal per team (cards, last trick, Match, Wys, Stöck).
    #[must_use]
    pub fn deal_points(&self) -> [u32; 2] {
        self.raw
    }

    /// The result of the last finished deal.
    #[must_use]
    pub fn last_deal(&self) -> Option<DealResult> {
        self.last_deal
    }

    /// The winning team, once the game is over (`None` while playing and in `scope = deal`).
    #[must_use]
    pub fn winner(&self) -> Option<usize> {
        self.winner.map(usize::from)
    }

    /// The Wys announcement of each seat.
    #[must_use]
    pub fn announcements(&self) -> [Announcement; 4] {
        self.announcements
    }

    /// The team whose Wys scored in this deal, once trick 1 is complete.
    #[must_use]
    pub fn wys_winner(&self) -> Option<usize> {
        self.wys_winner.map(usize::from)
    }

    /// Card points taken per team in this deal (no bonuses).
    #[must_use]
    pub fn card_points(&self) -> [u32; 2] {
        self.card_points
    }

    /// Tricks won per team in this deal.
    #[must_use]
    pub fn tricks_won(&self) -> [u8; 2] {
        self.tricks_won
    }

    /// Raw Wys points credited per team in this deal (only the Wys-winning team's are nonzero).
    #[must_use]
    pub fn wys_points(&self) -> [u32; 2] {
        self.wys_points
    }

    /// Number of Stöck `seat` has scored in this deal.
    #[must_use]
    pub fn stoeck_scored(&self, seat: usize) -> u8 {
        self.stoeck_scored[seat & 3]
    }

    /// Cards of the Wys shown by the Wys-winning team (public after trick 1).
    #[must_use]
    pub fn revealed_wys(&self) -> CardSet {
        self.revealed
    }

    /// The Wys each seat has declared in this deal.
    #[must_use]
    pub fn declared_wys(&self, seat: usize) -> WysSet {
        self.declared[seat & 3]
    }

    /// Cards played in this deal so far.
    fn played(&self) -> CardSet {
        (0..4).fold(CardSet::EMPTY, |p, s| p | self.played_by(s))
    }

    /// Cards `seat` has played in this deal (a card leaves a hand only to be played).
    fn played_by(&self, seat: usize) -> CardSet {
        unpack_cards(self.played_ids(seat))
    }

    /// [`Self::played_by`] as a word of card-action ids, the form the hands are kept in.
    fn played_ids(&self, seat: usize) -> u64 {
        pack_cards(self.dealt_hands[seat & 3]) & !self.packed[seat & 3]
    }

    fn trick(&self) -> &[Card] {
        &self.tricks[self.trick_no.min(8) as usize][..self.trick_len as usize]
    }

    fn push_log(&mut self, a: Action) {
        let i = self.log_len as usize;
        debug_assert!(i < LOG_CAP);
        if i < LOG_CAP {
            self.log[i] = a as u8;
            self.log_len += 1;
        }
    }
    /// The legal actions outside [`State::legal_actions`]'s inlined case.
    #[inline(never)]
    fn other_legal_actions(&self) -> ActionSet {
        let mut set = ActionSet::EMPTY;
        match self.phase {
            Phase::Deal => insert_cards(&mut set, self.undealt()),
            Phase::ChooseMode => self.mode_actions(&mut set),
            Phase::Play => self.play_actions(&mut set),
            Phase::Over => {}
        }
        set
    }

    /// [`State::apply_unchecked`] outside trick play.
    #[inline(never)]
    fn apply_other(&mut self, action: Action) {
        match self.phase {
            Phase::Deal => {
                if let Some(card) = action_card(action) {
                    self.deal_card(card);
                }
            }
            Phase::ChooseMode => {
                self.push_log(action);
                self.apply_mode_action(action);
            }
            Phase::Play => {
                self.push_log(action);
                self.apply_play_action(action);
            }
            Phase::Over => {}
        }
    }

    /// Why `action` is not legal now (assumes it is not).
    fn illegal_reason(&self, action: Action) -> String {
        match self.phase {
            Phase::Deal => self.deal_reason(),
            Phase::ChooseMode => JassState::mode_reason(action),
            Phase::Play => self.play_reason(action),
            Phase::Over => "the game is over".to_owned(),
        }
    }
}

impl State for JassState {
    type Game = JassGame;
    type View = JassView;

    fn game(&self) -> &JassGame {
        &self.game
    }

    fn current_player(&self) -> Player {
        match self.phase {
            Phase::Deal => Player::Chance,
            Phase::Over => Player::Terminal,
            Phase::ChooseMode | Phase::Play => Player::Seat(usize::from(self.to_act)),
        }
    }

    #[inline(always)]
    fn is_terminal(&self) -> bool {
        self.phase == Phase::Over
    }

    #[inline(always)]
    fn is_chance_node(&self) -> bool {
        self.phase == Phase::Deal
    }

    /// Trick play without Wys to offer is inlined into the caller's loop, so the set stays
    /// in registers; everything else is out of line.
    #[inline(always)]
    fn legal_actions(&self) -> ActionSet {
        if self.phase == Phase::Play
            && (self.trick_no != 0 || !self.may_declare(usize::from(self.to_act)))
        {
            let mut set = ActionSet::EMPTY;
            set.insert_bits(0, self.legal_cards());
            return set;
        }
        self.other_legal_actions()
    }

    fn apply_random_chance<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Result<(), Error> {
        if self.phase != Phase::Deal {
            return Err(Error::WrongNode(
                "no chance event is pending: a seat is to act or the game is over".into(),
            ));
        }
        self.deal_random_card(rng);
        Ok(())
    }

    fn resolve_chance<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        if self.phase == Phase::Deal {
            self.deal_rest(rng);
        }
    }

    fn check_action(&self, action: Action) -> Result<(), Error> {
        if self.phase == Phase::Over {
            return Err(Error::GameOver);
        }
        let limit = if self.phase == Phase::Deal {
            36
        } else {
            NUM_ACTIONS as Action
        };
        if action >= limit {
            return Err(Error::UnknownAction {
                action: i64::from(action),
                reason: if self.phase == Phase::Deal {
                    "deal outcomes are card ids 0 to 35".to_owned()
                } else {
                    format!("Jass action ids are 0 to {}", NUM_ACTIONS - 1)
                },
            });
        }
        if self.legal_actions().contains(action) {
            return Ok(());
        }
        Err(Error::IllegalAction {
            action,
            name: self.action_to_string(action),
            reason: self.illegal_reason(action),
        })
    }

    /// Trick play is inlined into the caller's loop (its rare steps are out of line).
    #[inline(always)]
    fn apply_unchecked(&mut self, action: Action) {
        debug_assert!(
            self.check_action(action).is_ok(),
            "{:?}",
            self.check_action(action)
        );
        if self.phase == Phase::Play {
            self.push_log(action);
            self.apply_play_action(action);
        } else {
            self.apply_other(action);
        }
    }

    fn action_to_string_for(&self, viewer: Viewer, action: Action) -> Option<String> {
        text::action_text(self, viewer, action)
    }

    fn action_visible_to(&self, viewer: Viewer, action: Action) -> bool {
        // Only a Wys declaration is private: to everybody but its author and the omniscient.
        match (self.phase, viewer) {
            (Phase::Play, Viewer::Seat(p)) if action >= WYS_BASE => p == usize::from(self.to_act),
            (Phase::Play, Viewer::Spectator) => action < WYS_BASE,
            (Phase::Over, _) => false,
            _ => true,
        }
    }

    fn string_to_action(&self, text: &str) -> Result<Action, Error> {
        text::parse_action(self, text)
    }

    fn write_observation(&self, seat: usize, out: &mut [f32]) -> Result<(), Error> {
        observation::write(self, seat, out)
    }

    fn observation_string(&self, seat: usize) -> Result<String, Error> {
        text::observation_string(self, seat)
    }

    fn view(&self, viewer: Viewer) -> Result<JassView, Error> {
        view::view(self, viewer)
    }

    fn returns(&self) -> SeatValues {
        self.final_returns()
    }

    fn history(&self) -> Vec<Action> {
        let past = self.past.as_deref().map_or(&[][..], |p| &p[..]);
        past.iter()
            .chain(&self.log[..self.log_len as usize])
            .map(|&a| Action::from(a))
            .collect()
    }

    fn move_number(&self) -> usize {
        self.past.as_ref().map_or(0, |p| p.len()) + self.log_len as usize
    }

    fn public_move_number(&self) -> usize {
        // Every logged id at or above WYS_BASE is a private Wys declaration.
        let private = |log: &[u8]| log.iter().filter(|&&a| Action::from(a) >= WYS_BASE).count();
        let past = self.past.as_deref().map_or(0, |p| p.len() - private(p));
        past + self.log_len as usize - private(&self.log[..self.log_len as usize])
    }

    fn resample<R: Rng + ?Sized>(&self, seat: usize, rng: &mut R) -> Result<Self, Error> {
        resample::resample(self, seat, rng)
    }

    fn deal_outcome(&self) -> Option<SeatValues> {
        self.finished_deal_outcome()
    }

    fn heuristic_action<R: Rng + ?Sized>(&self, seat: usize, rng: &mut R) -> Result<Action, Error> {
        crate::game::expect_turn(self, seat)?;
        Ok(heuristic::action(self, seat, rng))
    }

    fn solvable(&self) -> Result<&dyn crate::solve::Solvable, Error> {
        Ok(self)
    }
}
