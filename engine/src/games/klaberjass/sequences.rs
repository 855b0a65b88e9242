//! Sequences (§8): maximal runs in natural order, their comparison and the announcement
//! protocol of §8.4 in engine form.
//!
//! Natural order A K Q J 10 9 8 7 is the bit order of a suit lane, so a sequence is a run of
//! at least three consecutive set bits. Each maximal run of a hand is exactly one sequence
//! \[decision, §8.1\]; it is identified by its suit and top card (two maximal runs of one
//! suit never share a top), which gives the 24 declaration items: `suit lane * 6 +
//! (top rank bit − 7)`, tops 9 … A.

use serde::Serialize;

use crate::{Card, CardSet, Rank, Suit};

/// Number of declaration items (4 suits × 6 possible tops).
pub const NUM_ITEMS: u32 = 24;

/// One maximal run of three or more cards of a suit (a sequence, §8.1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Run {
    /// Its suit.
    pub suit: Suit,
    /// Rank bit of its lowest card.
    pub low: u8,
    /// Rank bit of its top card.
    pub high: u8,
}

impl Run {
    /// Number of cards.
    #[must_use]
    pub const fn len(self) -> u8 {
        self.high - self.low + 1
    }

    /// Never true: a run has at least three cards.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        false
    }

    /// 20 for three cards, 50 for four or more (§8.1).
    #[must_use]
    pub const fn points(self) -> u32 {
        if self.len() >= 4 { 50 } else { 20 }
    }

    /// Its cards.
    #[must_use]
    pub fn cards(self) -> CardSet {
        let lane = ((1u64 << (self.high + 1)) - 1) & !((1u64 << self.low) - 1);
        CardSet::from_bits(lane << (16 * self.suit as u64))
    }

    /// Its top card.
    #[must_use]
    pub fn top(self) -> Card {
        Card::new(rank_of_bit(self.high), self.suit)
    }

    /// Its declaration item id (0..24).
    #[must_use]
    pub const fn item(self) -> u8 {
        self.suit as u8 * 6 + self.high - 7
    }

    /// The comparison key of §8.2: value, then top card, then trump (higher is better).
    #[must_use]
    pub fn key(self, trump: Suit) -> u32 {
        (u32::from(self.points() == 50) << 5)
            | (u32::from(self.high) << 1)
            | u32::from(self.suit == trump)
    }

    /// Text, lowest to top card: `9S-KS`.
    #[must_use]
    pub fn name(self) -> String {
        format!(
            "{}-{}",
            Card::new(rank_of_bit(self.low), self.suit),
            self.top()
        )
    }
}

/// The rank at a rank bit (bits 5..13 for the 32-card pack).
pub(crate) fn rank_of_bit(bit: u8) -> Rank {
    Rank::from_index(bit).unwrap_or(Rank::Ace)
}

/// Suit and top rank bit of a declaration item.
#[must_use]
pub const fn item_parts(item: u8) -> (u8, u8) {
    (item / 6, item % 6 + 7)
}

/// The maximal runs of `hand`, in ascending item order (at most four; nine cards hold at
/// most three).
#[must_use]
pub fn runs(hand: CardSet) -> ([Option<Run>; 4], usize) {
    let mut out = [None; 4];
    let mut n = 0;
    let b = hand.bits();
    if b & b >> 1 & b >> 2 == 0 {
        return (out, 0);
    }
    for suit in Suit::ALL {
        let mut lane = u32::from(hand.suit_bits(suit));
        while lane != 0 {
            let low = lane.trailing_zeros();
            let len = (lane >> low).trailing_ones();
            if len >= 3 && n < 4 {
                out[n] = Some(Run {
                    suit,
                    low: low as u8,
                    high: (low + len - 1) as u8,
                });
                n += 1;
            }
            lane &= !(((1u32 << len) - 1) << low);
        }
    }
    (out, n)
}

/// The maximal run of `hand` with declaration item `item`, if the hand has it.
#[must_use]
pub fn run_of_item(hand: CardSet, item: u8) -> Option<Run> {
    let (runs, n) = runs(hand);
    runs[..n]
        .iter()
        .flatten()
        .copied()
        .find(|r| r.item() == item)
}

/// What a seat committed to declare (§8.3): its runs as an item mask, their cards and points,
/// and the best of them.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Declaration {
    /// Bit `i` set when item `i` is declared.
    pub items: u32,
    /// Cards of the declared sequences.
    pub cards: CardSet,
    /// Sum of their values.
    pub points: u32,
    /// The best declared sequence under §8.2.
    pub best: Option<Run>,
}

impl Declaration {
    /// The declaration of `items` from `hand` with `trump` (items not in the hand are ignored).
    #[must_use]
    pub fn of(hand: CardSet, items: u32, trump: Suit) -> Declaration {
        let mut d = Declaration {
            items,
            ..Declaration::default()
        };
        if items == 0 {
            return d;
        }
        let (runs, n) = runs(hand);
        for r in runs[..n].iter().flatten() {
            if items >> r.item() & 1 == 1 {
                d.cards |= r.cards();
                d.points += r.points();
                if d.best.is_none_or(|b| r.key(trump) > b.key(trump)) {
                    d.best = Some(*r);
                }
            }
        }
        d
    }

    /// Value of the best declared sequence: 0 (none), 20 or 50.
    #[must_use]
    pub fn best_value(&self) -> u32 {
        self.best.map_or(0, Run::points)
    }
}

/// A reply of the younger player in §8.4.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    /// "Good": the younger player's sequence is lower, or he declared none.
    Good,
    /// "Not good": the younger player's sequence is higher.
    NotGood,
    /// "Equal".
    Equal,
}

impl Reply {
    /// Text: `good`, `not good`, `equal`.
    #[must_use]
    pub const fn text(self) -> &'static str {
        match self {
            Reply::Good => "good",
            Reply::NotGood => "not good",
            Reply::Equal => "equal",
        }
    }
}

/// The public record of the announcement protocol (§8.4, §13): exactly what both players hear.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Announcement {
    /// Step 1: value of the elder's best declared sequence (0 = none, 20, 50), once committed.
    pub elder_value: Option<u32>,
    /// Step 2: the younger player's reply, once committed.
    pub reply: Option<Reply>,
    /// Step 3: the top rank of the elder's best sequence, said after an `Equal`.
    pub elder_top: Option<Rank>,
    /// Step 3: the younger player's second reply.
    pub second_reply: Option<Reply>,
    /// Step 4: the seat that said "in trumps".
    pub in_trumps: Option<u8>,
    /// The seat that scores sequences (§8.3), once the protocol is over.
    pub winner: Option<u8>,
    /// True once both players have committed.
    pub done: bool,
}

impl Announcement {
    /// Runs steps 2–4 once the younger player has committed, from both declarations.
    #[must_use]
    pub fn complete(
        elder: u8,
        e: &Declaration,
        y: &Declaration,
        trump: Suit,
        elder_wins_ties: bool,
    ) -> Announcement {
        let younger = 1 - elder;
        let mut a = Announcement {
            elder_value: Some(e.best_value()),
            done: true,
            ..Announcement::default()
        };
        let (ev, yv) = (e.best_value(), y.best_value());
        let elder_best = if ev > 0 { Some(elder) } else { None };
        if yv < ev || yv == 0 {
            a.reply = Some(Reply::Good);
            a.winner = elder_best;
            return a;
        }
        if yv > ev {
            a.reply = Some(Reply::NotGood);
            a.winner = Some(younger);
            return a;
        }
        a.reply = Some(Reply::Equal);
        let (Some(eb), Some(yb)) = (e.best, y.best) else {
            return a;
        };
        a.elder_top = Some(rank_of_bit(eb.high));
        if yb.high < eb.high {
            a.second_reply = Some(Reply::Good);
            a.winner = Some(elder);
        } else if yb.high > eb.high {
            a.second_reply = Some(Reply::NotGood);
            a.winner = Some(younger);
        } else {
            a.second_reply = Some(Reply::Equal);
            if eb.suit == trump {
                a.in_trumps = Some(elder);
                a.winner = Some(elder);
            } else if yb.suit == trump {
                a.in_trumps = Some(younger);
                a.winner = Some(younger);
            } else if elder_wins_ties {
                a.winner = Some(elder);
            }
        }
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(s: &str) -> CardSet {
        s.parse().unwrap()
    }

    #[test]
    fn runs_are_maximal_and_natural_order() {
        let (r, n) = runs(set("9S 10S JS QS KS 7C 8C 9C AH"));
        assert_eq!(n, 2);
        assert_eq!(r[0].unwrap().name(), "7C-9C");
        assert_eq!(r[1].unwrap().name(), "9S-KS");
        assert_eq!(r[1].unwrap().points(), 50);
        let (_, n) = runs(set("KH AH 7H"));
        assert_eq!(n, 0, "K-A-7 is not a sequence");
        let (r, n) = runs(set("QD KD AD"));
        assert_eq!((n, r[0].unwrap().len()), (1, 3));
    }
}
