//! The game configuration: the options of §14 plus `scope` and `first_dealer`, validated; and
//! the [`Game`] implementation.

use super::{CribbageState, NUM_ACTIONS};
use crate::options::{OptionKind, OptionSpec, Resolved, SCOPE_SPEC};
use crate::{Error, Game, Options, Scope};

/// Option `new_series_leader` (§6.1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SeriesLeader {
    /// After a go: the first player who said go in the series (seed). After a 31: the
    /// player after the 31's player.
    FirstGoCaller,
    /// After a go or a 31: the player after the last card's player (mainstream 3–4p rule).
    AfterLastPlayer,
}

/// A validated Cribbage configuration (the options of §14 plus `scope` and `first_dealer`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CribbageGame {
    pub(crate) scope: Scope,
    pub(crate) players: u8,
    pub(crate) target_score: u32,
    pub(crate) skunk_enabled: bool,
    pub(crate) skunk_threshold: u32,
    pub(crate) skunk_game_value: u32,
    pub(crate) double_skunk_enabled: bool,
    pub(crate) double_skunk_threshold: u32,
    pub(crate) double_skunk_game_value: u32,
    pub(crate) new_series_leader: SeriesLeader,
    /// `None` = drawn (chance).
    pub(crate) first_dealer: Option<u8>,
}

const FIRST_DEALER_NAMES: &[&str] = &["random", "0", "1", "2", "3"];

const SPECS: &[OptionSpec] = &[
    SCOPE_SPEC,
    OptionSpec {
        name: "players",
        kind: OptionKind::Int { min: 2, max: 4 },
        default: "2",
        doc: "number of players; 4 = two partnerships, partners opposite (§2)",
    },
    OptionSpec {
        name: "target_score",
        kind: OptionKind::Int {
            min: 1,
            max: 100_000,
        },
        default: "121",
        doc: "the first side to reach this score wins at once (§8)",
    },
    OptionSpec {
        name: "skunk_enabled",
        kind: OptionKind::Bool,
        default: "true",
        doc: "a loser below skunk_threshold loses skunk_game_value games; false: every loss is 1",
    },
    OptionSpec {
        name: "skunk_threshold",
        kind: OptionKind::Int {
            min: 0,
            max: 100_000,
        },
        default: "91",
        doc: "a loser with a score below this is skunked (seed: below 91)",
    },
    OptionSpec {
        name: "skunk_game_value",
        kind: OptionKind::Int { min: 1, max: 1000 },
        default: "2",
        doc: "games a skunk counts",
    },
    OptionSpec {
        name: "double_skunk_enabled",
        kind: OptionKind::Bool,
        default: "false",
        doc: "a loser below double_skunk_threshold counts double_skunk_game_value instead",
    },
    OptionSpec {
        name: "double_skunk_threshold",
        kind: OptionKind::Int {
            min: 0,
            max: 100_000,
        },
        default: "61",
        doc: "a loser with a score below this is double-skunked (when enabled)",
    },
    OptionSpec {
        name: "double_skunk_game_value",
        kind: OptionKind::Int { min: 1, max: 1000 },
        default: "4",
        doc: "games a double skunk counts",
    },
    OptionSpec {
        name: "new_series_leader",
        kind: OptionKind::Choice(&["first_go_caller", "after_last_player"]),
        default: "first_go_caller",
        doc: "who leads after a series ended by go: the first go caller, or the player after the last card's",
    },
    OptionSpec {
        name: "first_dealer",
        kind: OptionKind::Choice(FIRST_DEALER_NAMES),
        default: "random",
        doc: "random: drawn as one chance event (each seat equally likely); or a seat number below players",
    },
];

impl Default for CribbageGame {
    fn default() -> Self {
        CribbageGame {
            scope: Scope::Match,
            players: 2,
            target_score: 121,
            skunk_enabled: true,
            skunk_threshold: 91,
            skunk_game_value: 2,
            double_skunk_enabled: false,
            double_skunk_threshold: 61,
            double_skunk_game_value: 4,
            new_series_leader: SeriesLeader::FirstGoCaller,
            first_dealer: None,
        }
    }
}

impl CribbageGame {
    /// The scope option.
    #[must_use]
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// Number of sides: 2 (2 players), 3 (3 players) or 2 teams (4 players).
    #[must_use]
    pub fn num_sides(&self) -> usize {
        if self.players == 3 { 3 } else { 2 }
    }

    /// The side of a seat: the seat itself, or its team (seat mod 2) with 4 players.
    #[must_use]
    #[inline]
    pub fn side(&self, seat: usize) -> usize {
        if self.players == 4 { seat & 1 } else { seat }
    }

    /// Cards dealt to each player (§5): 6 with 2 players, else 5.
    #[must_use]
    pub fn hand_size(&self) -> u8 {
        if self.players == 2 { 6 } else { 5 }
    }

    /// The largest game value a loss can be worth under these options (§8).
    #[must_use]
    pub fn max_game_value(&self) -> u32 {
        // Without skunks every loss is worth 1, double skunks included (module docs).
        let mut v = 1;
        if self.skunk_enabled {
            v = v.max(self.skunk_game_value);
            if self.double_skunk_enabled {
                v = v.max(self.double_skunk_game_value);
            }
        }
        v
    }

    /// A bound on one side's points in a deal: every hand and the crib at 29, his heels, and
    /// at most 22 pegging points per card laid (15 or 31, a double pair royal, a run of
    /// seven, the go).
    #[must_use]
    pub fn max_deal_points(&self) -> u32 {
        let n = u32::from(self.players);
        29 * (n + 1) + 2 + 22 * 4 * n
    }

    /// Cards each player discards to the crib: 2 with 2 players, else 1.
    #[must_use]
    pub fn discards_each(&self) -> u8 {
        if self.players == 2 { 2 } else { 1 }
    }

    /// Cards dealt per deal, the 3-player blind crib card included.
    #[must_use]
    pub fn deal_len(&self) -> u8 {
        self.players * self.hand_size() + u8::from(self.players == 3)
    }

    /// Games a losing side with `score` counts (§8 returns).
    #[must_use]
    pub fn game_value(&self, score: u32) -> u32 {
        if !self.skunk_enabled {
            1
        } else if self.double_skunk_enabled && score < self.double_skunk_threshold {
            self.double_skunk_game_value
        } else if score < self.skunk_threshold {
            self.skunk_game_value
        } else {
            1
        }
    }
}

impl Game for CribbageGame {
    type State = CribbageState;
    const NAME: &'static str = "cribbage";
    const RULES_VERSION: u32 = 1;
    const PACK: crate::Pack = crate::Pack::Full52;
    /// `policy:cribbage`, trained by `python -m cardhouse.train` against the heuristic for
    /// one-deal games (`scope = deal`); how and how well: the file's info and the README.
    const POLICIES: &'static [(&'static str, &'static [u8])] =
        &[("cribbage", include_bytes!("policy.chp"))];

    /// Cribbage play-outs are short: 1000 iterations still take under 20 ms a move.
    fn default_ismcts_iterations(&self) -> u32 {
        1000
    }

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
        let players = int(1) as u8;
        let first_dealer = match choice(10) {
            0 => None,
            c => Some((c - 1) as u8),
        };
        if let Some(d) = first_dealer {
            if d >= players {
                return Err(Error::InvalidOption {
                    game: Self::NAME.to_owned(),
                    key: "first_dealer".to_owned(),
                    value: d.to_string(),
                    allowed: format!(
                        "random or a seat from 0 to {} (players = {players})",
                        players - 1
                    ),
                });
            }
        }
        Ok(CribbageGame {
            scope: Scope::from_resolved(r[0]),
            players,
            target_score: int(2) as u32,
            skunk_enabled: flag(3),
            skunk_threshold: int(4) as u32,
            skunk_game_value: int(5) as u32,
            double_skunk_enabled: flag(6),
            double_skunk_threshold: int(7) as u32,
            double_skunk_game_value: int(8) as u32,
            new_series_leader: [SeriesLeader::FirstGoCaller, SeriesLeader::AfterLastPlayer]
                [choice(9)],
            first_dealer,
        })
    }

    fn options(&self) -> Options {
        let values = [
            Resolved::Choice(usize::from(self.scope == Scope::Deal)),
            Resolved::Int(i64::from(self.players)),
            Resolved::Int(i64::from(self.target_score)),
            Resolved::Bool(self.skunk_enabled),
            Resolved::Int(i64::from(self.skunk_threshold)),
            Resolved::Int(i64::from(self.skunk_game_value)),
            Resolved::Bool(self.double_skunk_enabled),
            Resolved::Int(i64::from(self.double_skunk_threshold)),
            Resolved::Int(i64::from(self.double_skunk_game_value)),
            Resolved::Choice(usize::from(
                self.new_series_leader == SeriesLeader::AfterLastPlayer,
            )),
            Resolved::Choice(self.first_dealer.map_or(0, |d| usize::from(d) + 1)),
        ];
        SPECS
            .iter()
            .zip(values)
            .map(|(s, v)| (s.name.to_owned(), s.value_of(v)))
            .collect()
    }

    fn num_players(&self) -> usize {
        usize::from(self.players)
    }

    /// `scope = match`: minus the largest game value. `scope = deal`: minus
    /// [`Game::max_return`].
    fn min_return(&self) -> f64 {
        match self.scope {
            Scope::Match => -f64::from(self.max_game_value()),
            Scope::Deal => -self.max_return(),
        }
    }

    /// `scope = match`: the largest game value (twice it with 3 players, whose winner gets
    /// both losers' values). `scope = deal`: [`CribbageGame::max_deal_points`].
    fn max_return(&self) -> f64 {
        match self.scope {
            Scope::Match if self.players == 3 => f64::from(2 * self.max_game_value()),
            Scope::Match => f64::from(self.max_game_value()),
            Scope::Deal => f64::from(self.max_deal_points()),
        }
    }

    /// `scope = deal`: the discards (4 with 2 players, else 1 each), the `4N` cards laid, and
    /// at most `N` go calls in each series that holds one: a go needs a count of 22 or more
    /// (no card is worth more than 10), so such a series has at least three cards and there
    /// are at most `⌊4N / 3⌋` of them. 2 players: 4 + 8 + 2 × 2 = 16; 3 players: 3 + 12 + 4 × 3
    /// = 27; 4 players: 4 + 16 + 5 × 4 = 40. No deal is ever redealt. `scope = match`: `None`,
    /// as for every game's match, although one exists: every deal scores at least the
    /// last-card point, so a match has at most `sides × (target − 1) + 1` deals.
    fn max_game_length(&self) -> Option<usize> {
        let n = usize::from(self.players);
        let discards = n * usize::from(self.discards_each());
        (self.scope == Scope::Deal).then_some(discards + 4 * n + 4 * n / 3 * n)
    }

    fn observation_layout(&self) -> Vec<crate::ObservationSlice> {
        self.observation_slices()
    }

    fn game_type(&self) -> crate::GameType {
        crate::GameType {
            short_name: Self::NAME,
            long_name: "Cribbage",
            dynamics: "sequential",
            chance_mode: "explicit_stochastic",
            information: "imperfect_information",
            utility: "zero_sum",
            reward_model: "terminal",
            num_players: usize::from(self.players),
        }
    }

    fn num_distinct_actions(&self) -> usize {
        NUM_ACTIONS
    }

    fn max_chance_outcomes(&self) -> usize {
        52
    }

    fn observation_shape(&self) -> Vec<usize> {
        vec![Self::OBSERVATION_LEN]
    }

    fn observation_len(&self) -> usize {
        Self::OBSERVATION_LEN
    }

    fn new_initial_state(&self) -> CribbageState {
        CribbageState::new(*self)
    }
}
