//! The search's internal cards and positions: one solve's [`Deck`] (points and trumps of
//! the internal cards), the [`Position`] of trick play, equivalent cards
//! ([`representatives`]) and the points one side surely takes ([`sure_points`]).
//!
//! Cards are bits `lane * 16 + order`, one lane per suit (the trumps of a game with
//! permanent trumps, like Avinas's Queens and Jacks, are one lane); within a lane a higher
//! bit beats a lower one. The trick winner is then the highest trump played, else the
//! highest card of the lane led, for every game.

use super::table::Key;

/// "No card" in a move slot.
pub(crate) const NONE: u8 = 0xFF;

/// The card points and trumps of one solve's internal cards.
#[derive(Clone, Debug)]
pub(crate) struct Deck {
    /// Points of each internal card bit.
    points: [u8; 64],
    /// The internal bits that are trumps (one lane, or none).
    trumps: u64,
    /// For each internal card, the cards with equal points.
    same_points: [u64; 64],
}

impl Deck {
    /// A deck with these points per internal card and these trumps.
    pub(crate) fn new(points: [u8; 64], trumps: u64) -> Deck {
        let mut same_points = [0u64; 64];
        for (c, slot) in same_points.iter_mut().enumerate() {
            for (d, &p) in points.iter().enumerate() {
                if p == points[c] {
                    *slot |= 1 << d;
                }
            }
        }
        Deck {
            points,
            trumps,
            same_points,
        }
    }

    /// Points of internal card `c`.
    #[inline(always)]
    pub(crate) fn points(&self, c: u8) -> i32 {
        i32::from(self.points[usize::from(c & 63)])
    }

    /// The trump cards.
    #[inline(always)]
    pub(crate) fn trumps(&self) -> u64 {
        self.trumps
    }

    /// The trick-taking key of card `c` in a trick led from lane `led`: a trump beats every
    /// card of the lane led, which beats every other card (0, never wins).
    #[inline(always)]
    pub(super) fn key(&self, c: u8, led: u8) -> u8 {
        if self.trumps >> c & 1 != 0 {
            64 | (c & 15)
        } else if c >> 4 == led {
            32 | (c & 15)
        } else {
            0
        }
    }
}

/// A position of trick play: the hands, the current trick, who led it and the game's
/// context (whatever the value from here depends on besides the cards, e.g. whether one
/// side has taken every trick so far).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Position {
    /// Each seat's hand as internal card bits (seats beyond the game's count stay 0).
    pub hands: [u64; 4],
    /// The cards of the current trick in play order.
    pub trick: [u8; 4],
    /// Number of cards in the current trick (0 at a trick start).
    pub trick_len: u8,
    /// The seat that led (or leads) the current trick.
    pub leader: u8,
    /// The game's context word.
    pub ctx: u32,
    /// Card points not yet taken: in the hands and in the current trick.
    pub rem: i32,
    /// The cards of the current trick as bits.
    pub(super) table: u64,
    /// Position in the trick and key (see [`Deck::key`]) of the card winning it so far.
    pub(super) win_pos: u8,
    pub(super) win_key: u8,
    /// Card points of the current trick so far.
    pub(super) trick_points: u8,
}

impl Position {
    /// A trick start: `hands`, `leader` to lead, context `ctx`, `rem` card points in the
    /// hands. Cards already in the trick are added with [`Position::with_card`].
    pub(crate) fn start(hands: [u64; 4], leader: usize, ctx: u32, rem: i32) -> Position {
        Position {
            hands,
            leader: leader as u8,
            ctx,
            rem,
            ..Position::default()
        }
    }

    /// The seat to play, for a game of `players` seats (2 or 4).
    #[inline(always)]
    pub(crate) fn mover(&self, players: usize) -> usize {
        (usize::from(self.leader) + usize::from(self.trick_len)) & (players - 1)
    }

    /// The cards of the current trick as bits.
    #[inline(always)]
    pub(crate) fn trick_bits(&self) -> u64 {
        self.table
    }

    /// All cards still in the hands.
    #[inline(always)]
    pub(crate) fn in_hands(&self) -> u64 {
        self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]
    }

    /// The position after `seat` adds `card` to the current trick (not completed).
    #[inline(always)]
    pub(crate) fn with_card(&self, deck: &Deck, seat: usize, card: u8) -> Position {
        let mut p = *self;
        let bit = 1u64 << card;
        p.hands[seat & 3] &= !bit;
        p.table |= bit;
        let n = p.trick_len;
        p.trick[usize::from(n & 3)] = card;
        p.trick_len = n + 1;
        p.trick_points += deck.points[usize::from(card & 63)];
        let key = deck.key(card, p.trick[0] >> 4);
        if n == 0 || key > p.win_key {
            p.win_pos = n;
            p.win_key = key;
        }
        p
    }

    /// The table key of a trick start.
    pub(crate) fn key(&self) -> Key {
        debug_assert_eq!(self.trick_len, 0);
        Key {
            hands: self.hands,
            meta: u64::from(self.leader) | u64::from(self.ctx) << 8,
        }
    }
}

/// Card points each side surely takes from `pos` on, from the trumps alone: the highest
/// trumps left (in the hands and the current trick), as far as one side holds them all,
/// go to that side's tricks (nothing left can beat them), and so does the current trick if
/// one of them is in it. The second value says which sides surely take a trick (bit per
/// side). Without trumps, nothing is sure.
#[inline]
pub(crate) fn sure_points(deck: &Deck, pos: &Position, players: usize) -> ([i32; 2], u32) {
    let t = deck.trumps;
    let mut sides = [
        (pos.hands[0] | pos.hands[2]) & t,
        (pos.hands[1] | pos.hands[3]) & t,
    ];
    let in_trick = pos.table & t;
    if in_trick != 0 {
        for (k, &c) in pos.trick[..usize::from(pos.trick_len)].iter().enumerate() {
            let seat = (usize::from(pos.leader) + k) & (players - 1);
            sides[seat & 1] |= in_trick & (1u64 << c);
        }
    }
    let all = sides[0] | sides[1];
    if all == 0 {
        return ([0, 0], 0);
    }
    let top = 63 - all.leading_zeros();
    let s = usize::from(sides[0] >> top & 1 == 0);
    let other = sides[1 - s];
    let mut run = if other == 0 {
        sides[s]
    } else {
        sides[s] & !((2u64 << (63 - other.leading_zeros())) - 1)
    };
    let mut sure = [0, 0];
    if run & in_trick != 0 {
        sure[s] = i32::from(pos.trick_points);
        run &= !in_trick;
    }
    while run != 0 {
        sure[s] += deck.points(run.trailing_zeros() as u8);
        run &= run - 1;
    }
    (sure, 1 << s)
}

/// The cards of the lane of card `c`.
#[inline(always)]
pub(super) fn lane(c: u8) -> u64 {
    0xFFFFu64 << (c & 0x30)
}

/// The cards of `c`'s lane below `c` and above the highest card of `others` below it.
#[inline(always)]
fn segment_below(others: u64, c: u8) -> u64 {
    let below = (1u64 << c) - 1;
    let sep = others & lane(c) & below;
    let floor = if sep == 0 {
        u32::from(c & 0x30)
    } else {
        64 - sep.leading_zeros()
    };
    below & !((1u64 << floor) - 1)
}

/// The representatives of `legal` for the seat to move (the rest of the cards in play being
/// `others`: the other hands and the trick): of cards of one lane with equal points and no
/// card of `others` between them, only the lowest. Playing any of them leads to positions
/// of equal value, since swapping them changes no trick's winner and no trick's points.
#[inline]
pub(crate) fn representatives(deck: &Deck, legal: u64, others: u64) -> u64 {
    let mut reps = legal;
    let mut l = legal;
    while l != 0 {
        let c = l.trailing_zeros() as u8;
        l &= l - 1;
        if legal & deck.same_points[usize::from(c)] & segment_below(others, c) != 0 {
            reps &= !(1u64 << c);
        }
    }
    reps
}

/// The representative (see [`representatives`]) that card `c` of `legal` is merged into.
pub(crate) fn representative_of(deck: &Deck, legal: u64, others: u64, c: u8) -> u8 {
    let mut c = c;
    loop {
        let lower = legal & deck.same_points[usize::from(c)] & segment_below(others, c);
        if lower == 0 {
            return c;
        }
        c = lower.trailing_zeros() as u8;
    }
}

/// The cards in play not held by `me`: the other hands and the current trick.
#[inline(always)]
pub(crate) fn others(pos: &Position, me: usize) -> u64 {
    (pos.in_hands() & !pos.hands[me]) | pos.trick_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn representatives_merge_cards_no_other_card_separates() {
        // One lane: points 0 0 8 0 0 (bits 0..5).
        let mut points = [0u8; 64];
        points[2] = 8;
        let deck = Deck::new(points, 0);
        // The mover holds 0, 1, 2, 3; another hand holds 4. 0, 1 and 3 are equal (2 has
        // other points but is the mover's own card).
        assert_eq!(representatives(&deck, 0b1111, 0b1_0000), 0b0101);
        assert_eq!(representative_of(&deck, 0b1111, 0b1_0000, 3), 0);
        // Another hand holds 1: 0 | 2 | 3 stay apart from 0.
        assert_eq!(representatives(&deck, 0b1101, 0b10), 0b1101);
        assert_eq!(representative_of(&deck, 0b1101, 0b10, 3), 3);
    }
}
