//! Scoring a deal in rams (§11.1) or pips (§11.2), the ram cancellation (§10) and the end of
//! the game with its loser rules (§12).

use std::sync::Arc;

use serde::Serialize;

use super::{AllTricksLoss, AvinasState, Kind, Phase, SchwarzBasis};
use crate::{Scope, Suit};

/// Serializes a suit by its lower-case name (`hearts`), as the action texts write it.
pub(super) fn suit_name<S: serde::Serializer>(
    suit: &Option<Suit>,
    ser: S,
) -> Result<S::Ok, S::Error> {
    match suit {
        Some(s) => ser.serialize_some(s.name()),
        None => ser.serialize_none(),
    }
}

/// The result of a finished deal.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct DealResult {
    /// The kind of deal; `None` when all four passed (no score).
    pub kind: Option<Kind>,
    /// The dealer.
    pub dealer: usize,
    /// The declarer.
    pub declarer: Option<usize>,
    /// Trump.
    #[serde(serialize_with = "suit_name")]
    pub trump: Option<Suit>,
    /// Sevens game: the number of face-up Sevens `b`.
    pub base: u32,
    /// Sevens game: 1, 2 after a knock, 4 after a double.
    pub multiplier: u32,
    /// Bidding game: the winning bid.
    pub bid: u32,
    /// Card points of the declaring side `D`.
    pub declarer_points: u32,
    /// Card points of the defenders `F`.
    pub defender_points: u32,
    /// Tricks won by the declaring side.
    pub declarer_tricks: u32,
    /// Tricks won by the defenders.
    pub defender_tricks: u32,
    /// The declarer stopped play early.
    pub stopped: bool,
    /// A knock failed (the defenders won a trick).
    pub knock_failed: bool,
    /// The team the rams or pips were given against (`None`: nothing given).
    pub against: Option<usize>,
    /// How many rams (sevens game) or pips (bidding game), before cancellation.
    pub amount: u32,
}

impl DealResult {
    /// The deal's `scope = deal` return for a seat of `team`: minus the rams or pips given
    /// against that team, plus those given against the other, 0 if none were given.
    #[must_use]
    pub fn value_for(&self, team: usize) -> f64 {
        match self.against {
            Some(a) if a == team => -f64::from(self.amount),
            Some(_) => f64::from(self.amount),
            None => 0.0,
        }
    }
}

/// Gives `n` rams against team `x`: the other side first crosses out its own (§10).
pub fn give_rams(rams: &mut [u32; 2], x: usize, n: u32) {
    let w = 1 - x;
    let c = n.min(rams[w]);
    rams[w] -= c;
    rams[x] += n - c;
}

/// Rams of a sevens game (§11.1): `(given against the declaring side?, amount)`.
#[must_use]
pub fn sevens_rams(
    base: u32,
    multiplier: u32,
    knock: bool,
    knock_failed: bool,
    declarer_points: u32,
    loss: AllTricksLoss,
) -> (bool, u32) {
    if knock {
        if knock_failed {
            let n = match loss {
                AllTricksLoss::DoubleLoss => 2 * base * multiplier,
                AllTricksLoss::DoubleBase => base * multiplier,
            };
            (true, n)
        } else {
            (false, base * multiplier)
        }
    } else if declarer_points >= 61 {
        (false, base)
    } else {
        (true, 2 * base)
    }
}

/// Pips of a bidding game (§11.2): `(given against the declaring side?, amount)`, from the
/// card points `d`, `f` and tricks `dt`, `ft` of the declaring side and the defenders.
#[must_use]
pub fn bidding_pips(d: u32, f: u32, dt: u32, ft: u32, basis: SchwarzBasis) -> (bool, u32) {
    let (d_zero, f_zero) = match basis {
        SchwarzBasis::CardPoints => (d == 0, f == 0),
        SchwarzBasis::Tricks => (dt == 0, ft == 0),
    };
    if d >= 61 {
        let n = if f_zero {
            3
        } else if f >= 31 {
            1
        } else {
            2
        };
        (false, n)
    } else if d >= 31 {
        (true, 2)
    } else if d_zero {
        (true, 6)
    } else {
        (true, 4)
    }
}

/// The losing team when team `reached` has just reached the pip limit (§12); the flag is
/// the cat.
#[must_use]
pub fn loser(pips: [u32; 2], rams: [u32; 2], reached: usize, cat_rule: bool) -> (usize, bool) {
    if cat_rule && pips[1 - reached] == 0 {
        (reached, true)
    } else if rams[0] > 0 {
        (0, false)
    } else if rams[1] > 0 {
        (1, false)
    } else {
        (usize::from(pips[1] > pips[0]), false)
    }
}

impl AvinasState {
    /// Scores the deal and moves on (next deal, or the end).
    pub(super) fn finish_deal(&mut self) {
        let dt = usize::from(self.declarer & 1);
        let d = self.card_points[dt];
        let f = self.card_points[1 - dt];
        let multiplier = match (self.knock, self.double) {
            (None, _) => 1,
            (Some(_), None) => 2,
            (Some(_), Some(_)) => 4,
        };
        let kind = self.kind.unwrap_or(Kind::Bidding);
        let (against_declarer, amount) = match kind {
            Kind::Sevens => sevens_rams(
                u32::from(self.base),
                multiplier,
                self.knock.is_some(),
                self.knock_failed,
                d,
                self.game.all_tricks_loss,
            ),
            Kind::Bidding => bidding_pips(
                d,
                f,
                u32::from(self.tricks_won[dt]),
                u32::from(self.tricks_won[1 - dt]),
                self.game.schwarz_basis,
            ),
        };
        let against = if against_declarer { dt } else { 1 - dt };
        self.last_deal = Some(DealResult {
            kind: Some(kind),
            dealer: usize::from(self.dealer),
            declarer: Some(usize::from(self.declarer)),
            trump: self.trump(),
            base: u32::from(self.base),
            multiplier: if kind == Kind::Sevens { multiplier } else { 1 },
            bid: u32::from(self.high_bid),
            declarer_points: d,
            defender_points: f,
            declarer_tricks: u32::from(self.tricks_won[dt]),
            defender_tricks: u32::from(self.tricks_won[1 - dt]),
            stopped: self.stopped,
            knock_failed: self.knock_failed,
            against: Some(against),
            amount,
        });
        match kind {
            Kind::Sevens => give_rams(&mut self.rams, against, amount),
            Kind::Bidding => self.pips[against] += amount,
        }
        if self.game.scope == Scope::Deal {
            self.phase = Phase::Over;
            return;
        }
        if kind == Kind::Bidding && self.pips[against] >= self.game.pip_limit {
            let (l, cat) = loser(self.pips, self.rams, against, self.game.cat_rule);
            self.loser = Some(l as u8);
            self.cat = cat;
            self.phase = Phase::Over;
            return;
        }
        self.next_deal();
    }

    /// All four passed: no score; the next dealer deals (§7.2).
    pub(super) fn void_deal(&mut self) {
        self.last_deal = Some(DealResult {
            kind: None,
            dealer: usize::from(self.dealer),
            declarer: None,
            trump: None,
            base: 0,
            multiplier: 1,
            bid: 0,
            declarer_points: 0,
            defender_points: 0,
            declarer_tricks: 0,
            defender_tricks: 0,
            stopped: false,
            knock_failed: false,
            against: None,
            amount: 0,
        });
        if self.game.scope == Scope::Deal {
            self.phase = Phase::Over;
            return;
        }
        self.next_deal();
    }

    fn next_deal(&mut self) {
        let mut past = self.past.take().map_or_else(Vec::new, |p| {
            Arc::try_unwrap(p).unwrap_or_else(|a| (*a).clone())
        });
        past.extend_from_slice(&self.log[..self.log_len as usize]);
        let fresh = AvinasState::new(self.game);
        *self = AvinasState {
            phase: Phase::Deal,
            deal_no: self.deal_no + 1,
            dealer: (self.dealer + 1) & 3,
            rams: self.rams,
            pips: self.pips,
            last_deal: self.last_deal,
            past: Some(Arc::new(past)),
            ..fresh
        };
    }
}
