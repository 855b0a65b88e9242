//! Scoring: the public hand scorer (§7.2), and the show (§7) that counts a deal with it.
//!
//! The hand scorer scores a 4-card hand or crib with the starter, exactly and fast (no
//! allocation, no branches on the number of combinations; see the bench
//! `cribbage_score_hand`):
//!
//! ```
//! use cardhouse::Card;
//! use cardhouse::games::cribbage::score_hand;
//!
//! let c = |t: &str| t.parse::<Card>().unwrap();
//! let s = score_hand([c("JC"), c("5S"), c("5H"), c("5D")], c("5C"), false);
//! assert_eq!((s.fifteens, s.pairs, s.nobs, s.total), (16, 12, 1, 29));
//! ```
//!
//! The show: hands from the dealer's left, the dealer's last, then the crib, each scored whole
//! and checked against the target; then the next deal. And the `scope = deal` returns of a
//! deal's points (§8).

use std::sync::Arc;

use serde::Serialize;

use super::{CribbageState, LastDeal, Phase};
use crate::{Card, CardSet, Error, Rank, Scope, SeatValues};

/// The points of a hand or crib at the show, item by item (§7.2). Every field is in points.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct HandScore {
    /// 2 for every distinct set of cards whose values sum to 15.
    pub fifteens: u8,
    /// 2 for every pair of cards of equal rank (pair royal 6, double pair royal 12).
    pub pairs: u8,
    /// The longest run length times the number of distinct runs of that length.
    pub runs: u8,
    /// 4 or 5 in a hand; 5 or 0 in the crib.
    pub flush: u8,
    /// 1 for the Jack of the starter's suit in the hand or crib.
    pub nobs: u8,
    /// The sum of the items.
    pub total: u8,
}

/// Count value of each rank index of [`Rank`] (Two..Ace): A = 1, 2–10 face value, J Q K = 10.
pub(crate) const VALUE: [u8; 13] = [2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 1];

/// Cribbage rank position (A = 0, 2 = 1, …, K = 12) of each rank index of [`Rank`].
pub(crate) const ORDER: [u8; 13] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0];

/// The count value of a card (A = 1, J Q K = 10).
#[must_use]
#[inline]
pub const fn card_value(card: Card) -> u8 {
    VALUE[card.rank_index()]
}

/// Scores `hand` (4 cards) with `starter`; `crib = true` applies the crib's flush rule (all
/// five cards of one suit). The five cards must be distinct (use [`score_hand_checked`] for
/// unchecked input).
#[must_use]
#[inline]
pub fn score_hand(hand: [Card; 4], starter: Card, crib: bool) -> HandScore {
    // Fifteens: the number of subsets of each sum 0..=15 as 4-bit counters of one word,
    // multiplied by (1 + x^v) per card; sums above 15 fall off the top. By Sperner's theorem
    // no sum has more than C(5, 2) = 10 subsets, so the counters never carry.
    let mut ways: u64 = 1;
    // Rank histogram as 4-bit counters by cribbage rank position; pairs counted on the way.
    let mut hist: u64 = 0;
    let mut pairs = 0u8;
    let mut ranks: u16 = 0;
    let mut suits: u32 = 0;
    let cards = [hand[0], hand[1], hand[2], hand[3], starter];
    for c in cards {
        let r = c.rank_index();
        ways = ways.wrapping_add(ways << (4 * u32::from(VALUE[r])));
        let pos = 4 * u32::from(ORDER[r]);
        pairs += 2 * ((hist >> pos) & 15) as u8;
        hist += 1 << pos;
        ranks |= 1 << ORDER[r];
    }
    for c in hand {
        suits += 1 << (8 * c.suit_index());
    }
    let fifteens = 2 * ((ways >> 60) & 15) as u8;

    // Runs: with five cards at most one run of three or more distinct ranks exists.
    let m = u32::from(ranks);
    let r3 = m & m >> 1 & m >> 2;
    let runs = if r3 == 0 {
        0
    } else {
        let r4 = r3 & m >> 3;
        let r5 = r4 & m >> 4;
        let len = 3 + u32::from(r4 != 0) + u32::from(r5 != 0);
        let start = if r5 != 0 {
            r5
        } else if r4 != 0 {
            r4
        } else {
            r3
        }
        .trailing_zeros();
        let mut mult = 1u32;
        for k in start..start + len {
            mult *= ((hist >> (4 * k)) & 15) as u32;
        }
        (len * mult) as u8
    };

    // Flush: 4 hand cards of one suit (hand only), +1 with the starter; the crib needs all 5.
    let ss = starter.suit_index();
    let four = (suits & 0x0404_0404) != 0; // some suit byte equals 4
    let flush = if !four {
        0
    } else if hand[0].suit_index() == ss {
        5
    } else if crib {
        0
    } else {
        4
    };
    let nobs = u8::from(
        starter.rank() != Rank::Jack && hand.contains(&Card::new(Rank::Jack, starter.suit())),
    );
    HandScore {
        fifteens,
        pairs,
        runs,
        flush,
        nobs,
        total: fifteens + pairs + runs + flush + nobs,
    }
}

/// [`score_hand`] for a hand given as a set of exactly four cards (the starter not in it).
#[must_use]
#[inline]
pub fn score_set(hand: CardSet, starter: Card, crib: bool) -> HandScore {
    let mut it = hand.iter();
    let mut next = || it.next().unwrap_or(starter);
    let h = [next(), next(), next(), next()];
    score_hand(h, starter, crib)
}

/// [`score_hand`] with checked input: exactly four hand cards, all five cards distinct.
///
/// # Errors
/// [`Error::InvalidCard`] naming the duplicated card, or saying how many cards were given.
pub fn score_hand_checked(hand: &[Card], starter: Card, crib: bool) -> Result<HandScore, Error> {
    let h: [Card; 4] = hand.try_into().map_err(|_| Error::InvalidCard {
        text: hand
            .iter()
            .map(|c| c.french())
            .collect::<Vec<_>>()
            .join(" "),
        reason: format!("a hand or crib has exactly 4 cards, not {}", hand.len()),
    })?;
    let mut seen = CardSet::EMPTY;
    for c in h.into_iter().chain([starter]) {
        if seen.contains(c) {
            return Err(Error::InvalidCard {
                text: c.french(),
                reason: "the card appears twice in the hand and starter".to_owned(),
            });
        }
        seen.insert(c);
    }
    Ok(score_hand(h, starter, crib))
}

/// [`score_hand_checked`] from card texts (`"5H"`, `"10C"`, `"JD"`, `"AS"`).
///
/// # Errors
/// [`Error::InvalidCard`] naming the card that does not parse or appears twice.
pub fn score_hand_text<S: AsRef<str>>(
    hand: &[S],
    starter: &str,
    crib: bool,
) -> Result<HandScore, Error> {
    let cards = hand
        .iter()
        .map(|t| Card::parse(t.as_ref()))
        .collect::<Result<Vec<_>, _>>()?;
    let starter = Card::parse(starter)?;
    score_hand_checked(&cards, starter, crib)
}

/// Reference scorer by enumeration of all subsets (slow, obviously right), for tests.
#[must_use]
pub fn score_hand_reference(hand: [Card; 4], starter: Card, crib: bool) -> HandScore {
    let cards = [hand[0], hand[1], hand[2], hand[3], starter];
    let mut fifteens = 0;
    let mut pairs = 0;
    let mut best_len = 0;
    let mut best_count = 0;
    for mask in 1u32..32 {
        let sub: Vec<Card> = (0..5)
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| cards[i])
            .collect();
        let sum: u32 = sub.iter().map(|&c| u32::from(card_value(c))).sum();
        if sum == 15 {
            fifteens += 2;
        }
        if sub.len() == 2 && sub[0].rank() == sub[1].rank() {
            pairs += 2;
        }
        if sub.len() >= 3 {
            let mut o: Vec<u8> = sub.iter().map(|c| ORDER[c.rank_index()]).collect();
            o.sort_unstable();
            if o.windows(2).all(|w| w[1] == w[0] + 1) {
                if sub.len() > best_len {
                    best_len = sub.len();
                    best_count = 0;
                }
                if sub.len() == best_len {
                    best_count += 1;
                }
            }
        }
    }
    let runs = (best_len * best_count) as u8;
    let same = hand.iter().all(|c| c.suit() == hand[0].suit());
    let flush = match (same, starter.suit() == hand[0].suit(), crib) {
        (true, true, _) => 5,
        (true, false, false) => 4,
        _ => 0,
    };
    let nobs = u8::from(
        hand.iter()
            .any(|c| c.rank() == Rank::Jack && c.suit() == starter.suit() && *c != starter),
    );
    HandScore {
        fifteens,
        pairs,
        runs,
        flush,
        nobs,
        total: fifteens + pairs + runs + flush + nobs,
    }
}

impl CribbageState {
    /// The `scope = deal` returns of a deal whose points per side are `p` (§8): the side's
    /// points minus the other side's, or with 3 players minus the mean (exactly zero-sum).
    pub(super) fn deal_returns(&self, p: [u32; 3]) -> SeatValues {
        let n = usize::from(self.game.players);
        let mut r = SeatValues::zeros(n);
        if n == 3 {
            let total = f64::from(p[0] + p[1] + p[2]);
            r[0] = (3.0 * f64::from(p[0]) - total) / 3.0;
            r[1] = (3.0 * f64::from(p[1]) - total) / 3.0;
            r[2] = -(r[0] + r[1]);
        } else {
            for seat in 0..n {
                let side = self.game.side(seat);
                r[seat] = f64::from(p[side]) - f64::from(p[1 - side]);
            }
        }
        r
    }

    /// The show (§7): hands from the dealer's left, the dealer's last, then the crib; the
    /// game ends the moment a side reaches the target.
    pub(super) fn count_show(&mut self) {
        let Some(starter) = self.starter else { return };
        let n = self.n();
        for k in 0..n {
            let seat = usize::from((self.dealer + 1 + k) % n);
            let hand = self.dealt_hands[seat] - self.discards[seat];
            let sc = score_set(hand, starter, false);
            self.show[usize::from(k)] = sc;
            self.shown += 1;
            if self.credit(self.game.side(seat), sc.total) {
                return;
            }
        }
        let sc = score_set(self.crib, starter, true);
        self.show[usize::from(n)] = sc;
        self.shown += 1;
        if self.credit(self.game.side(self.dealer()), sc.total) {
            return;
        }
        if self.game.scope == Scope::Deal {
            self.phase = Phase::Over;
            return;
        }
        self.next_deal(starter);
    }

    pub(super) fn next_deal(&mut self, starter: Card) {
        // The finished deal's log joins the shared past (in place when not shared).
        let log = &self.log[..usize::from(self.log_len)];
        match &mut self.past {
            Some(past) => Arc::make_mut(past).extend_from_slice(log),
            None => self.past = Some(Arc::new(log.to_vec())),
        }
        let mut hands = [CardSet::EMPTY; 4];
        for (s, h) in hands.iter_mut().enumerate() {
            *h = self.dealt_hands[s] - self.discards[s];
        }
        self.last_deal = Some(LastDeal {
            dealer: self.dealer,
            starter,
            hands,
            crib: self.crib,
            show: self.show,
            points: self.deal_points,
            pegging: self.peg_points,
        });
        // Everything of the deal starts afresh; the game, scores and records stay.
        let fresh = CribbageState::new(self.game);
        let dealer = self.next(self.dealer);
        let deal_no = self.deal_no + 1;
        *self = CribbageState {
            phase: Phase::Deal,
            deal_no,
            dealer,
            scores: self.scores,
            last_deal: self.last_deal,
            past: self.past.take(),
            ..fresh
        };
    }
}
