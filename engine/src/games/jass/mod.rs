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
//! (multiplied) minus the other team's, never beyond ±[`JassGame::max_deal_score`] (4148 with the defaults), which is
//! [`Game::min_return`] / [`Game::max_return`]. The view's `scores` then hold the deal's
//! scored totals.
//!
//! **Observation** (518 floats, seats relative to the observer): the named slices of
//! [`layout`], also returned with their bounds by [`Game::observation_layout`].

mod heuristic;
mod observation;
mod play;
mod resample;
mod view;
pub mod wys;

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

pub use observation::layout;
pub use view::{JassView, SwissCards};
pub use wys::{Announcement, Said, WysItem, WysKind, WysSet};

use crate::options::{OptionKind, OptionSpec, Resolved, SCOPE_SPEC};
use crate::{
    Action, ActionSet, Card, CardSet, Error, Game, Options, Player, Rank, Rng, Scope, SeatValues,
    State, Suit, Viewer,
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

/// The card-play action (and deal outcome) id of `card`.
#[must_use]
pub const fn card_action(card: Card) -> Action {
    let b = card.to_u8();
    (b >> 4) as Action * 9 + (b & 15) as Action - 4
}

/// The card of a card-play action id (`0..36`).
#[must_use]
pub fn action_card(action: Action) -> Option<Card> {
    CARD_OF_ACTION
        .get(action as usize)
        .and_then(|&b| Card::from_u8(b))
}

/// Card byte of each card action id.
const CARD_OF_ACTION: [u8; 36] = {
    let mut t = [0u8; 36];
    let mut i = 0;
    while i < 36 {
        t[i] = (i / 9 * 16 + i % 9 + 4) as u8;
        i += 1;
    }
    t
};

/// The mode of a deal (§6). Serialized with the Swiss suit names of the action texts:
/// `{"trump": "roses"}`, `"obenabe"`, `"undenufe"`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// A suit is trump.
    Trump(Suit),
    /// No trump, high wins.
    Obenabe,
    /// No trump, low wins.
    Undenufe,
}

impl Serialize for Mode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Mode::Trump(suit) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("trump", suit.swiss_name())?;
                m.end()
            }
            Mode::Obenabe => s.serialize_str("obenabe"),
            Mode::Undenufe => s.serialize_str("undenufe"),
        }
    }
}

/// Serializes a rank in Swiss notation (`"U"`, `"O"`, `"9"`), as in card texts.
pub(crate) fn swiss_rank<S: serde::Serializer>(rank: &Rank, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(rank.swiss_short())
}

/// Serializes a suit by its Swiss name (`"roses"`), as in action texts.
pub(crate) fn swiss_suit<S: serde::Serializer>(suit: &Suit, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(suit.swiss_name())
}

impl Mode {
    /// Modes in action order.
    pub const ALL: [Mode; 6] = [
        Mode::Trump(Suit::ACORNS),
        Mode::Trump(Suit::ROSES),
        Mode::Trump(Suit::SHIELDS),
        Mode::Trump(Suit::BELLS),
        Mode::Obenabe,
        Mode::Undenufe,
    ];

    fn index(self) -> usize {
        Mode::ALL.iter().position(|&m| m == self).unwrap_or(0)
    }

    /// Text form: `trump roses`, `obenabe`, `undenufe`.
    #[must_use]
    pub fn name(self) -> String {
        match self {
            Mode::Trump(s) => format!("trump {}", s.swiss_name()),
            Mode::Obenabe => "obenabe".to_owned(),
            Mode::Undenufe => "undenufe".to_owned(),
        }
    }

    fn trump(self) -> Option<Suit> {
        match self {
            Mode::Trump(s) => Some(s),
            _ => None,
        }
    }
}

/// Option `multiplier_scheme`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MultiplierScheme {
    /// Acorns/Roses ×1, Shields/Bells ×2, Obenabe ×3, Undenufe ×4.
    Seed,
    /// As `Seed` but Undenufe ×3.
    Swisslos,
    /// Everything ×1.
    None,
}

/// Option `long_sequence_values`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LongSequenceValues {
    /// 5 or more cards = 100.
    Flat100,
    /// 5 = 100, 6 = 150, 7 = 200, 8 = 250, 9 = 300.
    Escalating,
}

/// Option `undertrump_rule`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UndertrumpRule {
    /// No lower trump unless the hand holds nothing else playable.
    ForbiddenUnlessOnlyTrumps,
    /// A lower trump is legal whenever no higher trump is held (literal seed).
    AllowedIfCannotOvertrump,
}

/// Option `end_check`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EndCheck {
    /// After each deal.
    EndOfDeal,
    /// The instant a team reaches the target (Stöck, Wys, Stich).
    Immediate,
}

/// A validated Jass configuration (the options of §16 plus the engine's own).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct JassGame {
    pub(crate) scope: Scope,
    pub(crate) target_score: u32,
    pub(crate) multiplier_scheme: MultiplierScheme,
    pub(crate) long_sequence_values: LongSequenceValues,
    pub(crate) four_banners_wys: bool,
    pub(crate) undenufe_six_is_eleven: bool,
    pub(crate) undertrump_rule: UndertrumpRule,
    pub(crate) stoeck_any_suit: bool,
    pub(crate) end_check: EndCheck,
    pub(crate) schieben_back: bool,
    pub(crate) roses_seven_forehand: bool,
    pub(crate) match_bonus: u32,
    pub(crate) last_trick_bonus: u32,
    pub(crate) first_dealer: u8,
    pub(crate) auto_wys: bool,
}

const SPECS: &[OptionSpec] = &[
    SCOPE_SPEC,
    OptionSpec {
        name: "target_score",
        kind: OptionKind::Int {
            min: 1,
            max: 1_000_000,
        },
        default: "2500",
        doc: "the game ends after a deal that leaves a team at or above this score (§11)",
    },
    OptionSpec {
        name: "multiplier_scheme",
        kind: OptionKind::Choice(&["seed", "swisslos", "none"]),
        default: "seed",
        doc: "seed: ×1 ×1 ×2 ×2, Obenabe ×3, Undenufe ×4; swisslos: Undenufe ×3; none: all ×1",
    },
    OptionSpec {
        name: "long_sequence_values",
        kind: OptionKind::Choice(&["flat_100", "escalating"]),
        default: "flat_100",
        doc: "sequences of 5+ cards: 100 flat, or 100/150/200/250/300 for 5 to 9 cards",
    },
    OptionSpec {
        name: "four_banners_wys",
        kind: OptionKind::Bool,
        default: "false",
        doc: "four 10s are a 100-point Wys",
    },
    OptionSpec {
        name: "undenufe_six_is_eleven",
        kind: OptionKind::Bool,
        default: "false",
        doc: "in Undenufe the 6 is worth 11 and the A nothing",
    },
    OptionSpec {
        name: "undertrump_rule",
        kind: OptionKind::Choice(&[
            "forbidden_unless_only_trumps",
            "allowed_if_cannot_overtrump",
        ]),
        default: "forbidden_unless_only_trumps",
        doc: "whether a lower trump may be played on a trumped plain-suit trick (§7.1)",
    },
    OptionSpec {
        name: "stoeck_suits",
        kind: OptionKind::Choice(&["trump_only", "any_suit"]),
        default: "trump_only",
        doc: "Stöck is K+O of trump, or K+O of any one suit",
    },
    OptionSpec {
        name: "end_check",
        kind: OptionKind::Choice(&["end_of_deal", "immediate"]),
        default: "end_of_deal",
        doc: "check the target after each deal, or the instant points are credited",
    },
    OptionSpec {
        name: "schieben_back",
        kind: OptionKind::Bool,
        default: "false",
        doc: "the partner may push the choice back to the forehand",
    },
    OptionSpec {
        name: "first_forehand",
        kind: OptionKind::Choice(&["dealer_param", "roses_seven"]),
        default: "dealer_param",
        doc: "forehand of the first deal: after first_dealer, or the holder of the Roses 7",
    },
    OptionSpec {
        name: "match_bonus",
        kind: OptionKind::Int {
            min: 0,
            max: 10_000,
        },
        default: "100",
        doc: "bonus for taking all nine tricks",
    },
    OptionSpec {
        name: "last_trick_bonus",
        kind: OptionKind::Int {
            min: 0,
            max: 10_000,
        },
        default: "5",
        doc: "bonus for the ninth trick",
    },
    OptionSpec {
        name: "first_dealer",
        kind: OptionKind::Int { min: 0, max: 3 },
        default: "0",
        doc: "dealer of the first deal (engine parameter)",
    },
    OptionSpec {
        name: "wys",
        kind: OptionKind::Choice(&["manual", "auto"]),
        default: "manual",
        doc: "manual: seats declare their Wys; auto: each seat declares its best set",
    },
];

impl Default for JassGame {
    fn default() -> Self {
        // The defaults are valid by construction (tested).
        JassGame::from_options(&Options::new()).unwrap_or(JassGame {
            scope: Scope::Match,
            target_score: 2500,
            multiplier_scheme: MultiplierScheme::Seed,
            long_sequence_values: LongSequenceValues::Flat100,
            four_banners_wys: false,
            undenufe_six_is_eleven: false,
            undertrump_rule: UndertrumpRule::ForbiddenUnlessOnlyTrumps,
            stoeck_any_suit: false,
            end_check: EndCheck::EndOfDeal,
            schieben_back: false,
            roses_seven_forehand: false,
            match_bonus: 100,
            last_trick_bonus: 5,
            first_dealer: 0,
            auto_wys: false,
        })
    }
}

impl JassGame {
    /// The multiplier of `mode` (§6).
    #[must_use]
    pub fn multiplier(&self, mode: Mode) -> u32 {
        match (self.multiplier_scheme, mode) {
            (MultiplierScheme::None, _) => 1,
            (_, Mode::Trump(s)) if s == Suit::ACORNS || s == Suit::ROSES => 1,
            (_, Mode::Trump(_)) => 2,
            (_, Mode::Obenabe) => 3,
            (MultiplierScheme::Swisslos, Mode::Undenufe) => 3,
            (_, Mode::Undenufe) => 4,
        }
    }

    /// A bound on one team's multiplied score in a deal: the sum of 152 card points, the
    /// last-trick and Match bonuses, 700 for Wys (at most 350 per hand: four Unders and four
    /// Nines) and Stöck (20, or 80 with `stoeck_suits = any_suit`), times the largest
    /// multiplier.
    #[must_use]
    pub fn max_deal_score(&self) -> u32 {
        let stoeck = if self.stoeck_any_suit { 80 } else { 20 };
        let raw = 152 + self.last_trick_bonus + self.match_bonus + 2 * MAX_WYS_PER_HAND + stoeck;
        let mult = Mode::ALL
            .iter()
            .map(|&m| self.multiplier(m))
            .max()
            .unwrap_or(1);
        raw * mult
    }

    /// The scope option.
    #[must_use]
    pub fn scope(&self) -> Scope {
        self.scope
    }
}

impl Game for JassGame {
    type State = JassState;
    const NAME: &'static str = "jass";
    const RULES_VERSION: u32 = 1;

    fn option_specs() -> &'static [OptionSpec] {
        SPECS
    }

    fn from_options(options: &Options) -> Result<Self, Error> {
        let r = OptionSpec::resolve(Self::NAME, SPECS, options)?;
        let int = |i: usize| match r[i] {
            Resolved::Int(v) => v,
            _ => 0,
        };
        let choice = |i: usize| match r[i] {
            Resolved::Choice(c) => c,
            _ => 0,
        };
        let flag = |i: usize| r[i] == Resolved::Bool(true);
        Ok(JassGame {
            scope: Scope::from_resolved(r[0]),
            target_score: int(1) as u32,
            multiplier_scheme: [
                MultiplierScheme::Seed,
                MultiplierScheme::Swisslos,
                MultiplierScheme::None,
            ][choice(2)],
            long_sequence_values: [LongSequenceValues::Flat100, LongSequenceValues::Escalating]
                [choice(3)],
            four_banners_wys: flag(4),
            undenufe_six_is_eleven: flag(5),
            undertrump_rule: [
                UndertrumpRule::ForbiddenUnlessOnlyTrumps,
                UndertrumpRule::AllowedIfCannotOvertrump,
            ][choice(6)],
            stoeck_any_suit: choice(7) == 1,
            end_check: [EndCheck::EndOfDeal, EndCheck::Immediate][choice(8)],
            schieben_back: flag(9),
            roses_seven_forehand: choice(10) == 1,
            match_bonus: int(11) as u32,
            last_trick_bonus: int(12) as u32,
            first_dealer: int(13) as u8,
            auto_wys: choice(14) == 1,
        })
    }

    fn options(&self) -> Options {
        let values = [
            Resolved::Choice(usize::from(self.scope == Scope::Deal)),
            Resolved::Int(i64::from(self.target_score)),
            Resolved::Choice(match self.multiplier_scheme {
                MultiplierScheme::Seed => 0,
                MultiplierScheme::Swisslos => 1,
                MultiplierScheme::None => 2,
            }),
            Resolved::Choice(usize::from(
                self.long_sequence_values == LongSequenceValues::Escalating,
            )),
            Resolved::Bool(self.four_banners_wys),
            Resolved::Bool(self.undenufe_six_is_eleven),
            Resolved::Choice(usize::from(
                self.undertrump_rule == UndertrumpRule::AllowedIfCannotOvertrump,
            )),
            Resolved::Choice(usize::from(self.stoeck_any_suit)),
            Resolved::Choice(usize::from(self.end_check == EndCheck::Immediate)),
            Resolved::Bool(self.schieben_back),
            Resolved::Choice(usize::from(self.roses_seven_forehand)),
            Resolved::Int(i64::from(self.match_bonus)),
            Resolved::Int(i64::from(self.last_trick_bonus)),
            Resolved::Int(i64::from(self.first_dealer)),
            Resolved::Choice(usize::from(self.auto_wys)),
        ];
        SPECS
            .iter()
            .zip(values)
            .map(|(s, v)| (s.name.to_owned(), s.value_of(v)))
            .collect()
    }

    fn num_players(&self) -> usize {
        4
    }

    fn num_distinct_actions(&self) -> usize {
        NUM_ACTIONS
    }

    fn max_chance_outcomes(&self) -> usize {
        36
    }

    fn observation_shape(&self) -> Vec<usize> {
        vec![layout::TOTAL]
    }

    fn observation_len(&self) -> usize {
        layout::TOTAL
    }

    fn new_initial_state(&self) -> JassState {
        JassState::new(*self)
    }

    /// `scope = match`: −1. `scope = deal`: minus the most one team can score in a deal
    /// (see [`JassGame::max_deal_score`]).
    fn min_return(&self) -> f64 {
        -self.max_return()
    }

    /// `scope = match`: +1. `scope = deal`: [`JassGame::max_deal_score`].
    fn max_return(&self) -> f64 {
        match self.scope {
            Scope::Match => 1.0,
            Scope::Deal => f64::from(self.max_deal_score()),
        }
    }

    /// `scope = deal`: 36 cards, at most 3 mode actions and 3 Wys declarations per seat
    /// (none with `wys = auto`). `scope = match`: no bound (an exact tie at or above the
    /// target plays another deal).
    fn max_game_length(&self) -> Option<usize> {
        let wys = if self.auto_wys { 0 } else { 12 };
        let choose = if self.schieben_back { 3 } else { 2 };
        (self.scope == Scope::Deal).then_some(36 + wys + choose)
    }

    fn observation_layout(&self) -> Vec<crate::ObservationSlice> {
        observation::slices(self)
    }

    fn game_type(&self) -> crate::GameType {
        crate::GameType {
            short_name: Self::NAME,
            long_name: "Swiss Jass, Schieber",
            dynamics: "sequential",
            chance_mode: "explicit_stochastic",
            information: "imperfect_information",
            utility: "zero_sum",
            reward_model: "terminal",
            num_players: 4,
        }
    }
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

/// The result of a finished deal, kept for views.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct DealResult {
    /// The mode played.
    pub mode: Mode,
    /// Points per team before multiplying (cards, bonuses, Wys, Stöck).
    pub raw: [u32; 2],
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
    hands: [CardSet; 4],
    /// The same hands as card-action-id words (bit `a` = card action `a`): legal actions are
    /// computed in this form, so the per-step path never converts between the two.
    packed: [u64; 4],
    /// The 9 cards each seat was dealt (for views after the game, Stöck and resampling).
    dealt_hands: [CardSet; 4],
    mode: Option<Mode>,
    /// Number of pushes made in this deal (0, 1, 2 with `schieben_back`).
    pushes: u8,
    chooser: u8,
    /// Tricks of this deal: cards by play position (card byte) and leaders.
    tricks: [[Card; 4]; 9],
    leaders: [u8; 9],
    winners: [u8; 9],
    trick_no: u8,
    trick_len: u8,
    /// Current trick: suit led, position and strength of the winning card so far.
    led: Suit,
    win_pos: u8,
    win_str: u8,
    played_by: [CardSet; 4],
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
            hands: [CardSet::EMPTY; 4],
            packed: [0; 4],
            dealt_hands: [CardSet::EMPTY; 4],
            mode: None,
            pushes: 0,
            chooser: 0,
            tricks: [[Card::new(Rank::Six, Suit::Clubs); 4]; 9],
            leaders: [0; 9],
            winners: [0; 9],
            trick_no: 0,
            trick_len: 0,
            led: Suit::Clubs,
            win_pos: 0,
            win_str: 0,
            played_by: [CardSet::EMPTY; 4],
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
        self.hands[seat & 3]
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
        self.played_by[0] | self.played_by[1] | self.played_by[2] | self.played_by[3]
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

    /// Seat that receives the `k`-th card of the deal: packets of three from the forehand.
    fn deal_target(&self, k: u8) -> usize {
        usize::from((self.dealer + 1 + k / 3) % 4)
    }

    fn deal_card(&mut self, card: Card) {
        let seat = self.deal_target(self.dealt);
        self.hands[seat].insert(card);
        self.packed[seat] |= 1 << card_action(card);
        self.dealt_hands[seat].insert(card);
        self.dealt += 1;
        self.push_log(card_action(card));
        if self.dealt == 36 {
            self.finish_deal_out();
        }
    }

    /// The whole deal at once: a Fisher–Yates shuffle of the pack, logged as the 36 outcomes
    /// of dealing the shuffled cards one by one.
    fn deal_all<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let mut ids: [u8; 36] = std::array::from_fn(|i| i as u8);
        for i in (1..36).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            ids.swap(i, j);
        }
        // Packets of three cards, from the forehand.
        let first = usize::from(self.dealer + 1);
        let mut hands = [0u64; 4];
        for (p, packet) in ids.chunks_exact(3).enumerate() {
            let bits = packet.iter().fold(0u64, |acc, &id| {
                acc | 1u64 << CARD_OF_ACTION[usize::from(id)]
            });
            hands[(first + p) & 3] |= bits;
        }
        self.hands = hands.map(CardSet::from_bits);
        self.packed = self.hands.map(pack_cards);
        self.dealt_hands = self.hands;
        self.log[..36].copy_from_slice(&ids);
        self.log_len = 36;
        self.dealt = 36;
        self.finish_deal_out();
    }

    fn finish_deal_out(&mut self) {
        if self.deal_no == 0 && self.game.roses_seven_forehand {
            let seven = Card::new(Rank::Seven, Suit::ROSES);
            if let Some(s) = (0..4).find(|&s| self.hands[s].contains(seven)) {
                self.forehand = s as u8;
                self.dealer = (s as u8 + 3) % 4;
            }
        }
        self.phase = Phase::ChooseMode;
        self.to_act = self.forehand;
    }

    fn choose_mode(&mut self, mode: Mode) {
        self.mode = Some(mode);
        self.chooser = self.to_act;
        self.phase = Phase::Play;
        self.to_act = self.forehand;
        self.leaders[0] = self.forehand;
        let ko = |s: Suit| {
            CardSet::single(Card::new(Rank::King, s)) | CardSet::single(Card::new(Rank::Queen, s))
        };
        for seat in 0..4 {
            let mut open = 0;
            for suit in Suit::ALL {
                let eligible = if self.game.stoeck_any_suit {
                    true
                } else {
                    mode == Mode::Trump(suit)
                };
                if eligible && self.hands[seat].is_superset(ko(suit)) {
                    open |= 1 << suit as u8;
                }
            }
            self.stoeck_open[seat] = open;
        }
    }

    /// Credits raw points to a team; with `end_check = immediate` the multiplied points go
    /// to the match score at once and the game may end.
    fn credit(&mut self, team: usize, points: u32) {
        self.raw[team] += points;
        if self.game.end_check == EndCheck::Immediate
            && self.game.scope == Scope::Match
            && self.winner.is_none()
        {
            let m = self.mode.map_or(1, |m| self.game.multiplier(m));
            self.scores[team] += points * m;
            if self.scores[team] >= self.game.target_score {
                self.winner = Some(team as u8);
                self.phase = Phase::Over;
            }
        }
    }

    #[inline(never)]
    fn commit_wys(&mut self, seat: usize) {
        let Some(mode) = self.mode else { return };
        if self.game.auto_wys {
            self.declared[seat] = wys::best_set(&self.game, mode, self.hands[seat]);
        }
        self.committed[seat] = true;
        // Most seats declare nothing: skip the search over their (empty) set.
        let mine = if self.declared[seat].is_empty() {
            None
        } else {
            self.declared[seat].best(&self.game, mode)
        };
        let ann = wys::announce(self.best_wys.map(|b| b.1), mine);
        if ann.best {
            self.best_wys = mine.map(|m| (seat as u8, m));
        }
        self.announcements[seat] = ann;
    }

    fn resolve_wys(&mut self) {
        let Some((seat, _)) = self.best_wys else {
            return;
        };
        let team = usize::from(seat & 1);
        self.wys_winner = Some(team as u8);
        let pts =
            self.declared[team].points(&self.game) + self.declared[team + 2].points(&self.game);
        self.revealed = self.declared[team].cards() | self.declared[team + 2].cards();
        self.wys_points[team] = pts;
        self.credit(team, pts);
    }

    /// Lays a card. The common path (not the end of a trick, no Wys commit, no Stöck) is kept
    /// small; the rare paths are out of line.
    #[inline]
    fn play_card(&mut self, action: Action, card: Card) {
        let seat = usize::from(self.to_act);
        let Some(mode) = self.mode else { return };
        if self.trick_no == 0 && !self.committed[seat] {
            self.commit_wys(seat);
        }
        self.hands[seat].remove(card);
        self.packed[seat] &= !(1 << action);
        self.played_by[seat].insert(card);
        let pos = self.trick_len;
        self.tricks[usize::from(self.trick_no)][usize::from(pos)] = card;
        if pos == 0 {
            self.led = card.suit();
            self.win_pos = 0;
            self.win_str = play::strength(mode, self.led, card);
        } else {
            // Branch-free: who is winning a trick is unpredictable in random play.
            let strength = play::strength(mode, self.led, card);
            let better = strength > self.win_str;
            self.win_pos = if better { pos } else { self.win_pos };
            self.win_str = self.win_str.max(strength);
        }
        if self.stoeck_open[seat] != 0 {
            self.check_stoeck(seat, card);
        }
        self.trick_len = pos + 1;
        if pos < 3 {
            self.to_act = (self.to_act + 1) & 3;
        } else {
            self.complete_trick(mode);
        }
    }

    /// Stöck: the second of K+O of an open suit scores 20 (§9).
    #[inline(never)]
    fn check_stoeck(&mut self, seat: usize, card: Card) {
        let suit_bit = 1u8 << card.suit() as u8;
        if self.stoeck_open[seat] & suit_bit == 0
            || !matches!(card.rank(), Rank::King | Rank::Queen)
        {
            return;
        }
        let other = Card::new(
            if card.rank() == Rank::King {
                Rank::Queen
            } else {
                Rank::King
            },
            card.suit(),
        );
        if !self.hands[seat].contains(other) {
            self.stoeck_open[seat] &= !suit_bit;
            self.stoeck_scored[seat] += 1;
            self.credit(seat & 1, 20);
        }
    }

    #[inline(never)]
    fn complete_trick(&mut self, mode: Mode) {
        let t = usize::from(self.trick_no);
        debug_assert_eq!(
            usize::from(self.win_pos),
            play::trick_winner(mode, &self.tricks[t])
        );
        let winner = (usize::from(self.leaders[t]) + usize::from(self.win_pos)) & 3;
        self.winners[t] = winner as u8;
        let team = winner & 1;
        if t == 0 {
            self.resolve_wys();
        }
        let pts = play::trick_points(&self.game, mode, &self.tricks[t]);
        self.card_points[team] += pts;
        self.tricks_won[team] += 1;
        self.credit(team, pts);
        self.trick_no += 1;
        self.trick_len = 0;
        self.to_act = winner as u8;
        if t + 1 < 9 {
            self.leaders[t + 1] = winner as u8;
            return;
        }
        self.credit(team, self.game.last_trick_bonus);
        if self.tricks_won[team] == 9 {
            self.credit(team, self.game.match_bonus);
        }
        self.finish_deal();
    }

    fn finish_deal(&mut self) {
        let Some(mode) = self.mode else { return };
        let m = self.game.multiplier(mode);
        let scored = [self.raw[0] * m, self.raw[1] * m];
        self.last_deal = Some(DealResult {
            mode,
            raw: self.raw,
            scored,
        });
        if self.game.scope == Scope::Deal {
            // The scores hold the deal's result, as after the first deal of a match (§11).
            self.scores[0] += scored[0];
            self.scores[1] += scored[1];
            self.phase = Phase::Over;
            return;
        }
        if self.phase == Phase::Over {
            return; // `end_check = immediate` ended the game during the deal.
        }
        if self.game.end_check == EndCheck::EndOfDeal {
            self.scores[0] += scored[0];
            self.scores[1] += scored[1];
            let target = self.game.target_score;
            if (self.scores[0] >= target || self.scores[1] >= target)
                && self.scores[0] != self.scores[1]
            {
                self.winner = Some(u8::from(self.scores[1] > self.scores[0]));
                self.phase = Phase::Over;
                return;
            }
        }
        self.next_deal();
    }

    fn next_deal(&mut self) {
        let mut past = self.past.take().map_or_else(Vec::new, |p| {
            Arc::try_unwrap(p).unwrap_or_else(|a| (*a).clone())
        });
        past.extend_from_slice(&self.log[..self.log_len as usize]);
        let fresh = JassState::new(self.game);
        let dealer = (self.dealer + 1) % 4;
        *self = JassState {
            deal_no: self.deal_no + 1,
            dealer,
            forehand: (dealer + 1) % 4,
            scores: self.scores,
            last_deal: self.last_deal,
            past: Some(Arc::new(past)),
            ..fresh
        };
    }

    fn wys_candidates(&self, seat: usize, out: &mut ActionSet) {
        let Some(_) = self.mode else { return };
        // Quick exit: no three consecutive cards in a suit and no four of a kind.
        let b = self.hands[seat].bits();
        if b & b >> 1 & b >> 2 == 0 && b & b >> 16 & b >> 32 & b >> 48 == 0 {
            return;
        }
        wys::for_each_candidate(&self.game, self.hands[seat], &self.declared[seat], |item| {
            out.insert(WYS_BASE + Action::from(item.id()));
        });
    }

    /// Legal card actions of the seat to act (§7.1, §7.2) as an action-id word, from the
    /// packed hand and the incrementally kept trick state. Lanes are 9 bits wide (ranks 6..A).
    /// Debug builds check it against the reference [`play::legal_cards`].
    fn legal_cards(&self) -> u64 {
        const LANE: u64 = 0x1FF;
        let hand = self.packed[usize::from(self.to_act)];
        let Some(mode) = self.mode else { return 0 };
        let legal = if self.trick_len == 0 {
            hand
        } else {
            let follow = hand & LANE << (9 * self.led as u64);
            match mode {
                Mode::Trump(t) => {
                    let shift = 9 * t as u64;
                    let trumps = hand & LANE << shift;
                    if self.led == t {
                        // The trump Under (rank bit 9, lane bit 5) is never forced.
                        let under = 1u64 << (shift + 5);
                        if trumps & !under == 0 { hand } else { trumps }
                    } else {
                        // A trump in the trick is always the winning card so far.
                        let allowed = if self.win_str >= 32 {
                            let best =
                                self.tricks[usize::from(self.trick_no)][usize::from(self.win_pos)];
                            let higher = (u64::from(play::HIGHER_TRUMPS[best.rank_index()]) >> 4)
                                << shift
                                & trumps;
                            match self.game.undertrump_rule {
                                UndertrumpRule::AllowedIfCannotOvertrump if higher == 0 => trumps,
                                _ => higher,
                            }
                        } else {
                            trumps
                        };
                        if follow != 0 {
                            follow | allowed
                        } else {
                            let l = (hand & !trumps) | allowed;
                            if l == 0 { trumps } else { l }
                        }
                    }
                }
                _ => {
                    if follow == 0 {
                        hand
                    } else {
                        follow
                    }
                }
            }
        };
        debug_assert_eq!(
            legal,
            pack_cards(play::legal_cards(
                &self.game,
                mode,
                self.hands[usize::from(self.to_act)],
                self.trick()
            ))
        );
        debug_assert_eq!(hand, pack_cards(self.hands[usize::from(self.to_act)]));
        legal
    }

    /// Why `action` is not legal now (assumes it is not).
    fn illegal_reason(&self, action: Action) -> String {
        match self.phase {
            Phase::Deal => format!(
                "a card is being dealt; the outcomes are the {} undealt cards",
                36 - self.dealt
            ),
            Phase::Over => "the game is over".to_owned(),
            Phase::ChooseMode => {
                if action == SCHIEBEN {
                    "the choice was already pushed; this player must choose a mode".to_owned()
                } else {
                    "the mode must be chosen now (a trump suit, obenabe or undenufe, or schieben)"
                        .to_owned()
                }
            }
            Phase::Play => {
                let seat = usize::from(self.to_act);
                if let Some(card) = action_card(action) {
                    if !self.hands[seat].contains(card) {
                        return format!("seat {seat} does not hold {}", card.swiss());
                    }
                    self.card_reason(card)
                } else if action >= WYS_BASE {
                    if self.trick_no > 0 || self.committed[seat] {
                        "Wys can only be declared in the first trick, before laying one's card"
                            .to_owned()
                    } else if self.game.auto_wys {
                        "Wys are declared automatically (option wys = auto)".to_owned()
                    } else {
                        "this Wys is not in the hand, overlaps a declared Wys, splits a run, or is not after the last declared Wys (quartets first, then sequences, ascending)".to_owned()
                    }
                } else {
                    "the mode has already been chosen; a card must be played".to_owned()
                }
            }
        }
    }

    fn card_reason(&self, card: Card) -> String {
        let Some(mode) = self.mode else {
            return String::new();
        };
        let trick = self.trick();
        let hand = self.hands[usize::from(self.to_act)];
        let led = trick[0].suit();
        match mode.trump() {
            Some(t) if led == t => "trump was led and the hand holds a trump other than the Under: a trump must be played".to_owned(),
            Some(t) if card.suit() == t => {
                if trick.iter().any(|c| c.suit() == t) {
                    "no undertrumping: this trump is lower than the trump already in the trick".to_owned()
                } else {
                    "this trump may not be played".to_owned()
                }
            }
            _ if !hand.of_suit(led).is_empty() => {
                format!("must follow suit ({}) while holding it", led.swiss_name())
            }
            _ => "this card may not be played now".to_owned(),
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

    fn legal_actions(&self) -> ActionSet {
        let mut set = ActionSet::EMPTY;
        match self.phase {
            Phase::Deal => {
                let undealt = play::PACK
                    - self.dealt_hands[0]
                    - self.dealt_hands[1]
                    - self.dealt_hands[2]
                    - self.dealt_hands[3];
                insert_cards(&mut set, undealt);
            }
            Phase::ChooseMode => {
                set.insert_bits(MODE_BASE, 0b11_1111);
                if self.pushes == 0 || (self.pushes == 1 && self.game.schieben_back) {
                    set.insert(SCHIEBEN);
                }
            }
            Phase::Play => {
                let seat = usize::from(self.to_act);
                if self.trick_no == 0 && !self.committed[seat] && !self.game.auto_wys {
                    self.wys_candidates(seat, &mut set);
                }
                set.insert_bits(0, self.legal_cards());
            }
            Phase::Over => {}
        }
        set
    }

    fn apply_random_chance<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Result<(), Error> {
        if self.phase != Phase::Deal {
            return Err(Error::WrongNode(
                "no chance event is pending: a seat is to act or the game is over".into(),
            ));
        }
        let undealt = play::PACK
            - self.dealt_hands[0]
            - self.dealt_hands[1]
            - self.dealt_hands[2]
            - self.dealt_hands[3];
        let k = rng.below(undealt.len() as u64) as usize;
        if let Some(card) = undealt.nth(k) {
            self.deal_card(card);
        }
        Ok(())
    }

    fn resolve_chance<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        if self.phase != Phase::Deal {
            return;
        }
        if self.dealt == 0 {
            self.deal_all(rng);
            return;
        }
        // Shuffle the undealt cards (Fisher–Yates) and deal them in order.
        let undealt = play::PACK
            - self.dealt_hands[0]
            - self.dealt_hands[1]
            - self.dealt_hands[2]
            - self.dealt_hands[3];
        let mut cards = [Card::new(Rank::Six, Suit::Clubs); 36];
        let n = undealt.len();
        for (slot, card) in cards.iter_mut().zip(undealt.iter()) {
            *slot = card;
        }
        for i in (1..n).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            cards.swap(i, j);
        }
        for &card in &cards[..n] {
            self.deal_card(card);
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

    fn apply_unchecked(&mut self, action: Action) {
        debug_assert!(
            self.check_action(action).is_ok(),
            "{:?}",
            self.check_action(action)
        );
        match self.phase {
            Phase::Deal => {
                if let Some(card) = action_card(action) {
                    self.deal_card(card);
                }
            }
            Phase::ChooseMode => {
                self.push_log(action);
                if action == SCHIEBEN {
                    self.pushes += 1;
                    self.to_act = (self.to_act + 2) % 4;
                } else if let Some(&mode) = Mode::ALL.get((action - MODE_BASE) as usize) {
                    self.choose_mode(mode);
                }
            }
            Phase::Play => {
                self.push_log(action);
                if let Some(card) = action_card(action) {
                    self.play_card(action, card);
                } else if let Some(item) = WysItem::from_id((action - WYS_BASE) as u8) {
                    self.declared[usize::from(self.to_act)].push(item);
                }
            }
            Phase::Over => {}
        }
    }

    fn action_to_string_for(&self, viewer: Viewer, action: Action) -> Option<String> {
        view::action_text(self, viewer, action)
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
        view::parse_action(self, text)
    }

    fn write_observation(&self, seat: usize, out: &mut [f32]) -> Result<(), Error> {
        observation::write(self, seat, out)
    }

    fn observation_string(&self, seat: usize) -> Result<String, Error> {
        view::observation_string(self, seat)
    }

    fn view(&self, viewer: Viewer) -> Result<JassView, Error> {
        view::view(self, viewer)
    }

    fn returns(&self) -> SeatValues {
        let mut r = SeatValues::zeros(4);
        if self.phase != Phase::Over {
            return r;
        }
        for seat in 0..4 {
            let team = seat & 1;
            r[seat] = match self.game.scope {
                Scope::Match => match self.winner {
                    Some(w) if usize::from(w) == team => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                },
                Scope::Deal => {
                    let s = self.last_deal.map_or([0, 0], |d| d.scored);
                    f64::from(s[team]) - f64::from(s[1 - team])
                }
            };
        }
        r
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
        if self.phase != Phase::Deal || self.dealt != 0 {
            return None;
        }
        let d = self.last_deal?;
        let mut r = SeatValues::zeros(4);
        for seat in 0..4 {
            let team = seat & 1;
            r[seat] = f64::from(d.scored[team]) - f64::from(d.scored[1 - team]);
        }
        Some(r)
    }

    fn heuristic_action<R: Rng + ?Sized>(&self, seat: usize, rng: &mut R) -> Result<Action, Error> {
        crate::game::expect_turn(self, seat)?;
        Ok(heuristic::action(self, seat, rng))
    }
}

/// Adds the card actions of `cards`.
#[inline]
fn insert_cards(set: &mut ActionSet, cards: CardSet) {
    set.insert_bits(0, pack_cards(cards));
}

/// The card action ids of `cards` as a 36-bit word: the four 9-bit lanes (ranks 6..A).
#[inline]
pub(crate) fn pack_cards(cards: CardSet) -> u64 {
    let b = cards.bits() >> 4;
    (b & 0x1FF) | (b >> 7 & 0x1FF << 9) | (b >> 14 & 0x1FF << 18) | (b >> 21 & 0x1FF << 27)
}

impl fmt::Display for JassState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "jass deal {} dealer {} {:?}",
            self.deal_no + 1,
            self.dealer,
            self.phase
        )?;
        if let Some(m) = self.mode {
            write!(f, " {}", m.name())?;
        }
        writeln!(f, " scores {}:{}", self.scores[0], self.scores[1])?;
        for s in 0..4 {
            writeln!(f, "  seat {s}: {}", self.hands[s].swiss())?;
        }
        if self.phase == Phase::Play {
            let trick: Vec<String> = self.trick().iter().map(|c| c.swiss()).collect();
            write!(
                f,
                "  trick {}: [{}] to act: {}",
                self.trick_no + 1,
                trick.join(" "),
                self.to_act
            )?;
        }
        Ok(())
    }
}
