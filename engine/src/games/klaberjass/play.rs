//! Trick play (§3, §10): rank orders, card points, the legal replies and the trick winner.

use super::ids::{CARD_OF_ACTION, action_card, pack_cards};
use super::{KlaberjassState, Phase};
use crate::{Action, Card, CardSet, Rank, Suit};

/// Card points of `cards` with `trump` as the trump suit (§3.3).
#[must_use]
pub fn card_value(trump: Suit, cards: CardSet) -> u32 {
    set_points(trump, cards)
}

/// Trump order J, 9, A, 10, K, Q, 8, 7 as a strength per rank bit (higher wins).
pub(crate) const TRUMP_STRENGTH: [u8; 16] = {
    let mut t = [0u8; 16];
    t[Rank::Jack as usize] = 8;
    t[Rank::Nine as usize] = 7;
    t[Rank::Ace as usize] = 6;
    t[Rank::Ten as usize] = 5;
    t[Rank::King as usize] = 4;
    t[Rank::Queen as usize] = 3;
    t[Rank::Eight as usize] = 2;
    t[Rank::Seven as usize] = 1;
    t
};

/// Non-trump order A, 10, K, Q, J, 9, 8, 7 as a strength per rank bit.
pub(crate) const PLAIN_STRENGTH: [u8; 16] = {
    let mut t = [0u8; 16];
    t[Rank::Ace as usize] = 8;
    t[Rank::Ten as usize] = 7;
    t[Rank::King as usize] = 6;
    t[Rank::Queen as usize] = 5;
    t[Rank::Jack as usize] = 4;
    t[Rank::Nine as usize] = 3;
    t[Rank::Eight as usize] = 2;
    t[Rank::Seven as usize] = 1;
    t
};

/// For each trump rank, the lane bits of the trump ranks that beat it.
pub(crate) const HIGHER_TRUMPS: [u16; 16] = {
    let mut t = [0u16; 16];
    let mut r = 5;
    while r < 13 {
        let mut o = 5;
        while o < 13 {
            if TRUMP_STRENGTH[o] > TRUMP_STRENGTH[r] {
                t[r] |= 1 << o;
            }
            o += 1;
        }
        r += 1;
    }
    t
};

/// [`HIGHER_TRUMPS`] by lane bit (ranks 7..A): the trumps that beat each trump.
const HIGHER_PACKED: [u8; 8] = {
    let mut t = [0u8; 8];
    let mut i = 0;
    while i < 8 {
        t[i] = (HIGHER_TRUMPS[i + 5] >> 5) as u8;
        i += 1;
    }
    t
};

/// Points of the trump suit's cards (§3.3): J 20, 9 14, A 11, 10 10, K 4, Q 3.
pub(crate) const TRUMP_POINTS: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 14, 10, 20, 3, 4, 11, 0, 0, 0];
/// Points of a non-trump suit: A 11, 10 10, K 4, Q 3, J 2.
pub(crate) const PLAIN_POINTS: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 10, 2, 3, 4, 11, 0, 0, 0];

/// Per trump lane and card action id: the card's strength when it counts (16 + trump order
/// for a trump, the plain order for a card of the suit led; see [`strength`]).
static ACTION_STRENGTH: [[u8; 32]; 4] = {
    let mut t = [[0u8; 32]; 4];
    let mut trump = 0;
    while trump < 4 {
        let mut a = 0;
        while a < 32 {
            let r = a % 8 + 5;
            t[trump][a] = if a / 8 == trump {
                16 + TRUMP_STRENGTH[r]
            } else {
                PLAIN_STRENGTH[r]
            };
            a += 1;
        }
        trump += 1;
    }
    t
};

/// Per trump lane and card action id: the card's points (see [`card_points`]).
static ACTION_POINTS: [[u8; 32]; 4] = {
    let mut t = [[0u8; 32]; 4];
    let mut trump = 0;
    while trump < 4 {
        let mut a = 0;
        while a < 32 {
            let r = a % 8 + 5;
            t[trump][a] = if a / 8 == trump {
                TRUMP_POINTS[r]
            } else {
                PLAIN_POINTS[r]
            };
            a += 1;
        }
        trump += 1;
    }
    t
};

/// Card points of `card` with `trump` (§3.3).
#[inline]
#[must_use]
pub(crate) fn card_points(trump: Suit, card: Card) -> u32 {
    let r = card.rank_index();
    u32::from(if card.suit_index() == trump as usize {
        TRUMP_POINTS[r]
    } else {
        PLAIN_POINTS[r]
    })
}

/// Card points of every card of `cards` with `trump`.
#[must_use]
pub(crate) fn set_points(trump: Suit, cards: CardSet) -> u32 {
    cards.iter().map(|c| card_points(trump, c)).sum()
}

/// Strength of `card` in a trick led with suit `led` (0 for a discard; trumps above 16).
/// Suits are compared as lane numbers (no `Suit` is built on this path).
#[inline]
#[must_use]
pub(crate) fn strength(trump: Suit, led: Suit, card: Card) -> u8 {
    let r = card.rank_index();
    let s = card.suit_index();
    if s == trump as usize {
        16 + TRUMP_STRENGTH[r]
    } else if s == led as usize {
        PLAIN_STRENGTH[r]
    } else {
        0
    }
}

/// The cards of `hand` in lane `lane`.
#[inline]
fn lane(hand: CardSet, lane: usize) -> CardSet {
    CardSet::from_bits(hand.bits() & 0xFFFF << (16 * lane))
}

/// Legal replies of hand `hand` to the led card `lead` (§10); any card when leading.
#[inline]
#[must_use]
pub(crate) fn legal_cards(trump: Suit, hand: CardSet, lead: Option<Card>) -> CardSet {
    let Some(lead) = lead else { return hand };
    let t = trump as usize;
    let trumps = lane(hand, t);
    if lead.suit_index() == t {
        // Overtrump if possible, else any trump, else any card.
        let higher =
            CardSet::from_bits(u64::from(HIGHER_TRUMPS[lead.rank_index()]) << (16 * t)) & trumps;
        if !higher.is_empty() {
            higher
        } else if !trumps.is_empty() {
            trumps
        } else {
            hand
        }
    } else {
        let follow = lane(hand, lead.suit_index());
        if !follow.is_empty() {
            follow
        } else if !trumps.is_empty() {
            trumps
        } else {
            hand
        }
    }
}

/// True if the second card `reply` beats the led card `lead` (§10 winner rule).
#[inline]
#[must_use]
pub(crate) fn second_wins(trump: Suit, lead: Card, reply: Card) -> bool {
    // The led card is never a discard: its strength is its own suit's.
    let r = reply.rank_index();
    let (ls, rs) = (lead.suit_index(), reply.suit_index());
    let t = trump as usize;
    let lead_str = if ls == t {
        16 + TRUMP_STRENGTH[lead.rank_index()]
    } else {
        PLAIN_STRENGTH[lead.rank_index()]
    };
    let reply_str = if rs == t {
        16 + TRUMP_STRENGTH[r]
    } else if rs == ls {
        PLAIN_STRENGTH[r]
    } else {
        0
    };
    reply_str > lead_str
}

impl KlaberjassState {
    pub(super) fn start_play(&mut self) {
        self.phase = Phase::Play;
        self.to_act = 1 - self.dealer;
        self.leaders[0] = self.to_act;
        if let Some(t) = self.trump {
            // Trump K and Q as card actions (lane bits 6 and 5).
            let kq = 0b0110_0000u64 << (8 * t as u32);
            for s in 0..2 {
                self.bella_open[s] = self.packed[s] & kq == kq;
            }
        }
    }

    /// Lays the card of card action `action` (`0..32`). The trick's winner and points come
    /// from per-trump tables by action id, without branches on the suits (unpredictable in
    /// random play).
    #[inline(always)]
    pub(super) fn play_card(&mut self, action: Action) {
        let seat = usize::from(self.to_act) & 1;
        let trump = self.trump.unwrap_or(Suit::Clubs);
        let a = action as usize & 31;
        self.packed[seat] &= !(1 << a);
        let t = usize::from(self.trick_no);
        if self.bella_open[seat] && a / 8 == trump as usize & 3 {
            self.check_bella(seat, CARD_OF_ACTION[a]);
        }
        if self.trick_len == 0 {
            self.tricks[t][0] = a as u8;
            // Trump led: a higher trump, else any trump; otherwise the suit led, else a
            // trump. Fixed here, so that the reply's legal cards need no decoding.
            let trumps = 0xFF << (8 * (trump as u64 & 3));
            let first = if a / 8 == trump as usize & 3 {
                u64::from(HIGHER_PACKED[a & 7]) << (a & 24)
            } else {
                0xFF << (a & 24)
            };
            self.reply = [first, trumps];
            self.trick_len = 1;
            self.to_act = 1 - self.to_act;
            return;
        }
        self.tricks[t][1] = a as u8;
        let l = usize::from(self.tricks[t][0]) & 31;
        let tl = trump as usize & 3;
        // The reply counts if it is a trump or of the suit led; the lead always counts.
        let counts = a / 8 == tl || a / 8 == l / 8;
        let reply_str = if counts { ACTION_STRENGTH[tl][a] } else { 0 };
        let wins = reply_str > ACTION_STRENGTH[tl][l];
        debug_assert_eq!(
            wins,
            second_wins(trump, CARD_OF_ACTION[l], CARD_OF_ACTION[a])
        );
        let winner = if wins { seat } else { 1 - seat };
        self.winners[t] = winner as u8;
        let points = u32::from(ACTION_POINTS[tl][a]) + u32::from(ACTION_POINTS[tl][l]);
        debug_assert_eq!(
            points,
            card_points(trump, CARD_OF_ACTION[l]) + card_points(trump, CARD_OF_ACTION[a])
        );
        self.card_points[winner] += points;
        self.tricks_won[winner] += 1;
        self.trick_no += 1;
        self.trick_len = 0;
        self.to_act = winner as u8;
        if t < 8 {
            self.leaders[t + 1] = winner as u8;
        } else {
            self.finish_deal();
        }
    }

    #[inline(never)]
    pub(super) fn check_bella(&mut self, seat: usize, card: Card) {
        if !matches!(card.rank(), Rank::King | Rank::Queen) {
            return;
        }
        let other = if card.rank() == Rank::King {
            Rank::Queen
        } else {
            Rank::King
        };
        if !self.hand(seat).contains(Card::new(other, card.suit())) {
            self.bella_open[seat] = false;
            self.bella[seat] = true;
        }
    }

    /// Legal card actions as a card-id word, from the packed hand (8-bit lanes, ranks 7..A).
    /// Debug builds check it against the reference function [`legal_cards`].
    #[inline(always)]
    pub(super) fn legal_cards(&self) -> u64 {
        let hand = self.packed[usize::from(self.to_act) & 1];
        let legal = if self.trick_len == 1 {
            let [first, second] = self.reply;
            if hand & first != 0 {
                hand & first
            } else if hand & second != 0 {
                hand & second
            } else {
                hand
            }
        } else {
            hand
        };
        debug_assert_eq!(legal, {
            let lead =
                (self.trick_len == 1).then(|| self.trick_card(usize::from(self.trick_no), 0));
            pack_cards(legal_cards(
                self.trump.unwrap_or(Suit::Clubs),
                self.hand(usize::from(self.to_act)),
                lead,
            ))
        });
        legal
    }

    /// Why a card is not legal now (assumes it is not).
    pub(super) fn play_reason(&self, action: Action) -> String {
        let seat = usize::from(self.to_act);
        let Some(card) = action_card(action) else {
            return "cards are being played: only card actions are legal (§10)".to_owned();
        };
        if !self.hand(seat).contains(card) {
            return format!("seat {seat} does not hold {card}");
        }
        let lead = self.trick_card(usize::from(self.trick_no), 0);
        let trump = self.trump.unwrap_or(Suit::Clubs);
        let hand = self.hand(seat);
        if lead.suit() == trump {
            if card.suit() == trump {
                format!(
                    "trump was led: a trump higher than {lead} must be played while holding one (§10)"
                )
            } else {
                "trump was led: a trump must be played while holding one (§10)".to_owned()
            }
        } else if !hand.of_suit(lead.suit()).is_empty() {
            format!(
                "must follow suit ({}) while holding it; trumping is not allowed then (§10)",
                lead.suit().name()
            )
        } else {
            format!(
                "void in {}: a trump must be played while holding one (§10)",
                lead.suit().name()
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::klaberjass::ids::PACK;

    #[test]
    fn pack_is_worth_152() {
        for t in Suit::ALL {
            assert_eq!(set_points(t, PACK), 152);
            assert_eq!(set_points(t, PACK.of_suit(t)), 62);
        }
    }

    #[test]
    fn higher_trumps_follow_the_trump_order() {
        let j = HIGHER_TRUMPS[Rank::Jack as usize];
        assert_eq!(j, 0);
        let nine = HIGHER_TRUMPS[Rank::Nine as usize];
        assert_eq!(nine, 1 << Rank::Jack as usize);
        let ten = HIGHER_TRUMPS[Rank::Ten as usize];
        assert_eq!(
            ten,
            1 << Rank::Jack as usize | 1 << Rank::Nine as usize | 1 << Rank::Ace as usize
        );
    }
}
