//! The options of §17 as a validated configuration, and the [`Game`] implementation.

use super::{KlaberjassState, NUM_ACTIONS};
use crate::options::{OptionKind, OptionSpec, Resolved, SCOPE_SPEC};
use crate::{Error, Game, Options, Scope};

/// Option `equal_sequence_rule`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EqualSequenceRule {
    /// Fully equal best sequences: nobody scores sequences (seed).
    NobodyScores,
    /// The elder scores (variant in the seed).
    ElderScores,
}

/// Option `maker_tie_rule`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MakerTieRule {
    /// `Tm = To`: maker 0, opponent `To` (seed).
    OpponentScoresOwn,
    /// `Tm = To`: nobody scores; `Tm + To` go to the higher adder of the next deal.
    Hang,
}

/// Option `dealer_rotation`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DealerRotation {
    /// The deal alternates (seed).
    Alternate,
    /// The player who added more points in the previous deal deals next.
    WinnerDeals,
}

/// Option `game_tie_rule`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameTieRule {
    /// Equal scores at or above the target: play another deal.
    PlayAnotherDeal,
    /// Equal scores at or above the target: the game is drawn.
    Draw,
}

/// A validated Klaberjass configuration (the options of §17).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct KlaberjassGame {
    pub(crate) scope: Scope,
    pub(crate) target_score: u32,
    pub(crate) equal_sequence_rule: EqualSequenceRule,
    pub(crate) maker_tie_rule: MakerTieRule,
    pub(crate) dealer_rotation: DealerRotation,
    pub(crate) game_tie_rule: GameTieRule,
    pub(crate) last_trick_bonus: u32,
    /// `None` = random (the cut).
    pub(crate) first_dealer: Option<u8>,
}

const FIRST_DEALER_VALUES: &[&str] = &["random", "0", "1"];

const SPECS: &[OptionSpec] = &[
    SCOPE_SPEC,
    OptionSpec {
        name: "target_score",
        kind: OptionKind::Int {
            min: 1,
            max: 1_000_000,
        },
        default: "500",
        doc: "the game ends after a deal that leaves a player at or above this score (§12)",
    },
    OptionSpec {
        name: "equal_sequence_rule",
        kind: OptionKind::Choice(&["nobody_scores", "elder_scores"]),
        default: "nobody_scores",
        doc: "fully equal best sequences: nobody scores sequences, or the elder does (§8.2)",
    },
    OptionSpec {
        name: "maker_tie_rule",
        kind: OptionKind::Choice(&["opponent_scores_own", "hang"]),
        default: "opponent_scores_own",
        doc: "Tm = To: maker 0 and opponent To, or nothing now and Tm + To to the next deal's higher adder",
    },
    OptionSpec {
        name: "dealer_rotation",
        kind: OptionKind::Choice(&["alternate", "winner_deals"]),
        default: "alternate",
        doc: "the deal alternates, or the player who added more in the previous deal deals",
    },
    OptionSpec {
        name: "game_tie_rule",
        kind: OptionKind::Choice(&["play_another_deal", "draw"]),
        default: "play_another_deal",
        doc: "equal scores at or above the target: play another deal, or a draw",
    },
    OptionSpec {
        name: "last_trick_bonus",
        kind: OptionKind::Int {
            min: 0,
            max: 10_000,
        },
        default: "10",
        doc: "bonus for winning the ninth trick",
    },
    OptionSpec {
        name: "first_dealer",
        kind: OptionKind::Choice(FIRST_DEALER_VALUES),
        default: "random",
        doc: "random: the cut as one fair chance event; 0 or 1: that seat deals first",
    },
];

impl Default for KlaberjassGame {
    fn default() -> Self {
        KlaberjassGame {
            scope: Scope::Match,
            target_score: 500,
            equal_sequence_rule: EqualSequenceRule::NobodyScores,
            maker_tie_rule: MakerTieRule::OpponentScoresOwn,
            dealer_rotation: DealerRotation::Alternate,
            game_tie_rule: GameTieRule::PlayAnotherDeal,
            last_trick_bonus: 10,
            first_dealer: None,
        }
    }
}

impl KlaberjassGame {
    /// The scope option.
    #[must_use]
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// The target score.
    #[must_use]
    pub fn target_score(&self) -> u32 {
        self.target_score
    }
}

impl Game for KlaberjassGame {
    type State = KlaberjassState;
    const NAME: &'static str = "klaberjass";
    const RULES_VERSION: u32 = 1;
    const PACK: crate::Pack = crate::Pack::Piquet32;
    /// `policy:klaberjass`, trained by `python -m cardhouse.train` against the heuristic for
    /// one-deal games (`scope = deal`); how and how well: the file's info and the README.
    const POLICIES: &'static [(&'static str, &'static [u8])] =
        &[("klaberjass", include_bytes!("policy.chp"))];

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
        Ok(KlaberjassGame {
            scope: Scope::from_resolved(r[0]),
            target_score: int(1) as u32,
            equal_sequence_rule: [
                EqualSequenceRule::NobodyScores,
                EqualSequenceRule::ElderScores,
            ][choice(2)],
            maker_tie_rule: [MakerTieRule::OpponentScoresOwn, MakerTieRule::Hang][choice(3)],
            dealer_rotation: [DealerRotation::Alternate, DealerRotation::WinnerDeals][choice(4)],
            game_tie_rule: [GameTieRule::PlayAnotherDeal, GameTieRule::Draw][choice(5)],
            last_trick_bonus: int(6) as u32,
            first_dealer: match choice(7) {
                0 => None,
                c => Some(c as u8 - 1),
            },
        })
    }

    fn options(&self) -> Options {
        let values = [
            Resolved::Choice(usize::from(self.scope == Scope::Deal)),
            Resolved::Int(i64::from(self.target_score)),
            Resolved::Choice(usize::from(
                self.equal_sequence_rule == EqualSequenceRule::ElderScores,
            )),
            Resolved::Choice(usize::from(self.maker_tie_rule == MakerTieRule::Hang)),
            Resolved::Choice(usize::from(
                self.dealer_rotation == DealerRotation::WinnerDeals,
            )),
            Resolved::Choice(usize::from(self.game_tie_rule == GameTieRule::Draw)),
            Resolved::Int(i64::from(self.last_trick_bonus)),
            Resolved::Choice(self.first_dealer.map_or(0, |d| usize::from(d) + 1)),
        ];
        SPECS
            .iter()
            .zip(values)
            .map(|(s, v)| (s.name.to_owned(), s.value_of(v)))
            .collect()
    }

    fn num_players(&self) -> usize {
        2
    }

    fn min_return(&self) -> f64 {
        -self.max_return()
    }

    /// `scope = match`: +1. `scope = deal`: a bound on the points one player can add in a
    /// deal: all card points with the last trick, sequences (nine cards hold at most two runs
    /// of four: 100) and Bella.
    fn max_return(&self) -> f64 {
        match self.scope {
            Scope::Match => 1.0,
            Scope::Deal => f64::from(152 + self.last_trick_bonus + 100 + 20),
        }
    }

    /// `scope = deal`: 32. At most 6 bids and exchange-window actions (trump taken in round 1
    /// after one pass, then both windows with two actions each; a round-2 bid or four passes
    /// leave no windows), one `declare run` per maximal run (a nine-card hand has at most
    /// three) and an `announce` per player, and 18 cards: 6 + 2 × (3 + 1) + 18. Four passes
    /// end the deal (annulled, no redeal in this scope). `scope = match`: no bound (an exact
    /// tie at or above the target, a tied deal under `hang` or an annulled deal goes on).
    fn max_game_length(&self) -> Option<usize> {
        (self.scope == Scope::Deal).then_some(6 + 2 * (3 + 1) + 18)
    }

    fn observation_layout(&self) -> Vec<crate::ObservationSlice> {
        self.observation_slices()
    }

    fn game_type(&self) -> crate::GameType {
        crate::GameType {
            short_name: Self::NAME,
            long_name: "Klaberjass (two players)",
            dynamics: "sequential",
            chance_mode: "explicit_stochastic",
            information: "imperfect_information",
            utility: "zero_sum",
            reward_model: "terminal",
            num_players: 2,
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

    fn new_initial_state(&self) -> KlaberjassState {
        KlaberjassState::new(*self)
    }
}
