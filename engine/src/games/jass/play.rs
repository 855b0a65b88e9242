//! Trick play (§7 of the rules): rank orders, card points, legal cards, the trick winner.

use super::{JassGame, Mode, UndertrumpRule};
use crate::{Card, CardSet, Rank, Suit};

/// The Swiss pack (A–6 in four suits).
pub(crate) const PACK: CardSet = crate::Pack::Swiss36.cards();

/// Trump order U, 9, A, K, O, 10, 8, 7, 6 as a strength per rank bit (higher wins).
pub(crate) const TRUMP_STRENGTH: [u8; 16] = {
    let mut t = [0u8; 16];
    t[Rank::Jack as usize] = 8;
    t[Rank::Nine as usize] = 7;
    t[Rank::Ace as usize] = 6;
    t[Rank::King as usize] = 5;
    t[Rank::Queen as usize] = 4;
    t[Rank::Ten as usize] = 3;
    t[Rank::Eight as usize] = 2;
    t[Rank::Seven as usize] = 1;
    t[Rank::Six as usize] = 0;
    t
};

/// For each trump rank, the lane bits of the trump ranks that beat it.
pub(crate) const HIGHER_TRUMPS: [u16; 16] = {
    let mut t = [0u16; 16];
    let mut r = 4;
    while r < 13 {
        let mut o = 4;
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

/// Points of the trump suit's cards (§3.3): U 20, 9 14, A 11, 10 10, K 4, O 3.
const TRUMP_POINTS: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 14, 10, 20, 3, 4, 11, 0, 0, 0];
/// Points of a non-trump suit in a trump game: A 11, 10 10, K 4, O 3, U 2.
const PLAIN_POINTS: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 10, 2, 3, 4, 11, 0, 0, 0];
/// Obenabe and Undenufe: as plain, and the 8 is worth 8.
const SLALOM_POINTS: [u8; 16] = [0, 0, 0, 0, 0, 0, 8, 0, 10, 2, 3, 4, 11, 0, 0, 0];
/// Undenufe with `undenufe_six_is_eleven`: the 6 is worth 11 and the A nothing.
const SIX_ELEVEN_POINTS: [u8; 16] = [0, 0, 0, 0, 11, 0, 8, 0, 10, 2, 3, 4, 0, 0, 0, 0];

/// Card points of `card` in `mode` (§3.3).
#[must_use]
pub(crate) fn card_points(game: &JassGame, mode: Mode, card: Card) -> u32 {
    let r = card.rank() as usize;
    u32::from(match mode {
        Mode::Trump(t) if card.suit() == t => TRUMP_POINTS[r],
        Mode::Trump(_) => PLAIN_POINTS[r],
        Mode::Obenabe => SLALOM_POINTS[r],
        Mode::Undenufe if game.undenufe_six_is_eleven => SIX_ELEVEN_POINTS[r],
        Mode::Undenufe => SLALOM_POINTS[r],
    })
}

/// Card points of the four cards of a trick.
#[must_use]
#[inline]
pub(crate) fn trick_points(game: &JassGame, mode: Mode, trick: &[Card; 4]) -> u32 {
    let (plain, trump) = match mode {
        Mode::Trump(t) => (&PLAIN_POINTS, Some(t as usize)),
        Mode::Obenabe => (&SLALOM_POINTS, None),
        Mode::Undenufe if game.undenufe_six_is_eleven => (&SIX_ELEVEN_POINTS, None),
        Mode::Undenufe => (&SLALOM_POINTS, None),
    };
    trick
        .iter()
        .map(|&c| {
            let r = c.rank_index();
            u32::from(if Some(c.suit_index()) == trump {
                TRUMP_POINTS[r]
            } else {
                plain[r]
            })
        })
        .sum()
}

/// Strength of `card` in a trick led with suit `led` (higher wins; 0 cannot win).
#[must_use]
pub(crate) fn strength(mode: Mode, led: Suit, card: Card) -> u8 {
    let r = card.rank_index();
    match mode {
        Mode::Trump(t) if card.suit_index() == t as usize => 32 + TRUMP_STRENGTH[r],
        _ if card.suit_index() != led as usize => 0,
        Mode::Undenufe => 20 - r as u8,
        _ => 1 + r as u8,
    }
}

/// The cards `hand` may play to a trick whose cards so far are `trick` (§7.1, §7.2).
/// `trick` holds the cards in play order; empty means a lead (any card).
#[must_use]
pub(crate) fn legal_cards(game: &JassGame, mode: Mode, hand: CardSet, trick: &[Card]) -> CardSet {
    let Some(&lead) = trick.first() else {
        return hand;
    };
    let led = lead.suit();
    let follow = hand.of_suit(led);
    let Mode::Trump(t) = mode else {
        return if follow.is_empty() { hand } else { follow };
    };
    let trumps = hand.of_suit(t);
    if led == t {
        // Trump led: a trump must be played unless the trump Under is the only one.
        let under = CardSet::single(Card::new(Rank::UNDER, t));
        return if (trumps - under).is_empty() {
            hand
        } else {
            trumps
        };
    }
    // Plain suit led: trumps are allowed instead of following, without undertrumping.
    let best_trump = trick
        .iter()
        .filter(|c| c.suit() == t)
        .map(|c| c.rank())
        .max_by_key(|r| TRUMP_STRENGTH[*r as usize]);
    let allowed_trumps = match best_trump {
        None => trumps,
        Some(r) => {
            let higher =
                CardSet::from_bits(u64::from(HIGHER_TRUMPS[r as usize]) << (t as u64 * 16))
                    & trumps;
            match game.undertrump_rule {
                UndertrumpRule::ForbiddenUnlessOnlyTrumps => higher,
                UndertrumpRule::AllowedIfCannotOvertrump if higher.is_empty() => trumps,
                UndertrumpRule::AllowedIfCannotOvertrump => higher,
            }
        }
    };
    if !follow.is_empty() {
        return follow | allowed_trumps;
    }
    let legal = (hand - trumps) | allowed_trumps;
    if legal.is_empty() { trumps } else { legal }
}

/// Index (0..4, play order) of the card that wins `trick` (non-empty).
#[must_use]
pub(crate) fn trick_winner(mode: Mode, trick: &[Card]) -> usize {
    let led = trick[0].suit();
    let mut best = 0;
    for (i, &c) in trick.iter().enumerate().skip(1) {
        if strength(mode, led, c) > strength(mode, led, trick[best]) {
            best = i;
        }
    }
    best
}
