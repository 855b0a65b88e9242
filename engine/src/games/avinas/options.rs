//! The options of §17 as a validated configuration, and the [`Game`] implementation.

use super::{AvinasState, NUM_ACTIONS};
use crate::options::{OptionKind, OptionSpec, Resolved};
use crate::{Error, Game, Options, Scope};

/// Option `all_tricks_loss_rams`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AllTricksLoss {
    /// A failed knock costs `2b × m` (default).
    DoubleLoss,
    /// A failed knock costs `b × m`.
    DoubleBase,
}

/// Option `schwarz_basis`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SchwarzBasis {
    /// The "0" rows of §11.2 mean 0 card points (default).
    CardPoints,
    /// The "0" rows mean 0 tricks.
    Tricks,
}

/// A validated Avinas configuration (the options of §17).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct AvinasGame {
    pub(crate) pip_limit: u32,
    pub(crate) scope: Scope,
    /// `None` = random (a chance event).
    pub(crate) first_dealer: Option<u8>,
    pub(crate) cat_rule: bool,
    pub(crate) early_stop_allowed: bool,
    pub(crate) early_stop_in_sevens_game: bool,
    pub(crate) all_tricks_loss: AllTricksLoss,
    pub(crate) schwarz_basis: SchwarzBasis,
}

const FIRST_DEALER_CHOICES: &[&str] = &["random", "0", "1", "2", "3"];

const SPECS: &[OptionSpec] = &[
    OptionSpec {
        name: "pip_limit",
        kind: OptionKind::Int { min: 1, max: 100 },
        default: "12",
        doc: "the game ends after a deal that leaves a side with at least this many pips (§12)",
    },
    crate::options::SCOPE_SPEC,
    OptionSpec {
        name: "first_dealer",
        kind: OptionKind::Choice(FIRST_DEALER_CHOICES),
        default: "random",
        doc: "random: the first dealer is a chance event; a seat 0-3 fixes it (§4)",
    },
    OptionSpec {
        name: "cat_rule",
        kind: OptionKind::Bool,
        default: "true",
        doc: "reaching the pip limit while the other side has 0 pips loses as the cat (§12 rule 1)",
    },
    OptionSpec {
        name: "early_stop_allowed",
        kind: OptionKind::Bool,
        default: "true",
        doc: "the declarer of a bidding game may stop play between tricks (§7.4)",
    },
    OptionSpec {
        name: "early_stop_in_sevens_game",
        kind: OptionKind::Bool,
        default: "false",
        doc: "the declarer of a sevens game without a knock may also stop between tricks",
    },
    OptionSpec {
        name: "all_tricks_loss_rams",
        kind: OptionKind::Choice(&["double_loss", "double_base"]),
        default: "double_loss",
        doc: "a failed knock costs 2b × m (double_loss) or b × m (double_base) rams",
    },
    OptionSpec {
        name: "schwarz_basis",
        kind: OptionKind::Choice(&["card_points", "tricks"]),
        default: "card_points",
        doc: "the 0 rows of the pip table mean 0 card points or 0 tricks (§11.2)",
    },
];

impl Default for AvinasGame {
    fn default() -> Self {
        AvinasGame {
            pip_limit: 12,
            scope: Scope::Match,
            first_dealer: None,
            cat_rule: true,
            early_stop_allowed: true,
            early_stop_in_sevens_game: false,
            all_tricks_loss: AllTricksLoss::DoubleLoss,
            schwarz_basis: SchwarzBasis::CardPoints,
        }
    }
}

impl AvinasGame {
    /// The scope option.
    #[must_use]
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// The pip limit.
    #[must_use]
    pub fn pip_limit(&self) -> u32 {
        self.pip_limit
    }
}

impl Game for AvinasGame {
    type State = AvinasState;
    const NAME: &'static str = "avinas";
    const RULES_VERSION: u32 = 1;
    const PACK: crate::Pack = crate::Pack::Piquet32;
    /// `policy:avinas`, trained by `python -m cardhouse.train` against the heuristic for
    /// one-deal games (`scope = deal`); how and how well: the file's info and the README.
    const POLICIES: &'static [(&'static str, &'static [u8])] =
        &[("avinas", include_bytes!("policy.chp"))];

    fn option_specs() -> &'static [OptionSpec] {
        SPECS
    }

    fn from_options(options: &Options) -> Result<Self, Error> {
        // (`first_dealer` is a choice of seat numbers: `resolve` accepts them as integers.)
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
        Ok(AvinasGame {
            pip_limit: int(0) as u32,
            scope: Scope::from_resolved(r[1]),
            first_dealer: match choice(2) {
                0 => None,
                c => Some(c as u8 - 1),
            },
            cat_rule: flag(3),
            early_stop_allowed: flag(4),
            early_stop_in_sevens_game: flag(5),
            all_tricks_loss: [AllTricksLoss::DoubleLoss, AllTricksLoss::DoubleBase][choice(6)],
            schwarz_basis: [SchwarzBasis::CardPoints, SchwarzBasis::Tricks][choice(7)],
        })
    }

    fn options(&self) -> Options {
        let values = [
            Resolved::Int(i64::from(self.pip_limit)),
            Resolved::Choice(usize::from(self.scope == Scope::Deal)),
            Resolved::Choice(self.first_dealer.map_or(0, |d| usize::from(d) + 1)),
            Resolved::Bool(self.cat_rule),
            Resolved::Bool(self.early_stop_allowed),
            Resolved::Bool(self.early_stop_in_sevens_game),
            Resolved::Choice(usize::from(
                self.all_tricks_loss == AllTricksLoss::DoubleBase,
            )),
            Resolved::Choice(usize::from(self.schwarz_basis == SchwarzBasis::Tricks)),
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

    fn min_return(&self) -> f64 {
        -self.max_return()
    }

    /// `scope = match`: +1. `scope = deal`: the most rams one deal can give: a failed
    /// all-tricks knock that was doubled, with four face-up Sevens, under
    /// `all_tricks_loss = double_loss` (2 × 4 × 4 = 32); a bidding game gives at most 6 pips.
    fn max_return(&self) -> f64 {
        match self.scope {
            Scope::Match => 1.0,
            Scope::Deal => 32.0,
        }
    }

    /// `scope = deal`: 43. At most 4 auction or knock/double actions (the declarer and his
    /// partner pass or knock, then both defenders pass or double; or one bid or pass per
    /// seat), 32 cards, and a continue/stop choice after each of tricks 1–7. An all-pass
    /// bidding game ends the deal with no redeal in this scope. `scope = match`: no bound
    /// (all-pass deals and sevens games can follow each other without end).
    fn max_game_length(&self) -> Option<usize> {
        (self.scope == Scope::Deal).then_some(4 + 32 + 7)
    }

    fn observation_layout(&self) -> Vec<crate::ObservationSlice> {
        self.observation_slices()
    }

    fn game_type(&self) -> crate::GameType {
        crate::GameType {
            short_name: Self::NAME,
            long_name: "Avinas (Lithuanian Rams)",
            dynamics: "sequential",
            chance_mode: "explicit_stochastic",
            information: "imperfect_information",
            utility: "zero_sum",
            reward_model: "terminal",
            num_players: 4,
        }
    }

    fn num_distinct_actions(&self) -> usize {
        NUM_ACTIONS
    }

    fn max_chance_outcomes(&self) -> usize {
        32
    }

    fn observation_shape(&self) -> Vec<usize> {
        vec![Self::OBSERVATION_LEN]
    }

    fn observation_len(&self) -> usize {
        Self::OBSERVATION_LEN
    }

    fn new_initial_state(&self) -> AvinasState {
        AvinasState::new(*self)
    }
}
