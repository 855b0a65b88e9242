//! The options of §16 as a validated configuration ([`JassGame`]), the modes of a deal (§6)
//! with their multipliers, and the [`Game`] implementation.

use serde::Serialize;

use super::{JassState, MAX_WYS_PER_HAND, NUM_ACTIONS};
use crate::options::{OptionKind, OptionSpec, Resolved, SCOPE_SPEC};
use crate::{Error, Game, Options, Scope, Suit};

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

    pub(super) fn index(self) -> usize {
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

    pub(super) fn trump(self) -> Option<Suit> {
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

pub(super) const SPECS: &[OptionSpec] = &[
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
        JassGame::parse(&Options::new()).unwrap_or(JassGame {
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

    /// Validates `options` (the engine side of [`crate::Game::from_options`]).
    pub(super) fn parse(options: &Options) -> Result<Self, Error> {
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

    /// Every option with its canonical value (the engine side of [`crate::Game::options`]).
    pub(super) fn canonical_options(&self) -> Options {
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
}

impl Game for JassGame {
    type State = JassState;
    const NAME: &'static str = "jass";
    const RULES_VERSION: u32 = 1;
    const PACK: crate::Pack = crate::Pack::Swiss36;
    const NOTATION: crate::Notation = crate::Notation::Swiss;
    /// `policy:jass`, trained by `python -m cardhouse.train` against the heuristic for
    /// one-deal games (`scope = deal`); how and how well: the file's info and the README.
    const POLICIES: &'static [(&'static str, &'static [u8])] =
        &[("jass", include_bytes!("policy.chp"))];

    fn option_specs() -> &'static [OptionSpec] {
        SPECS
    }

    fn from_options(options: &Options) -> Result<Self, Error> {
        JassGame::parse(options)
    }

    fn options(&self) -> Options {
        self.canonical_options()
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
        vec![Self::OBSERVATION_LEN]
    }

    fn observation_len(&self) -> usize {
        Self::OBSERVATION_LEN
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
        self.observation_slices()
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
