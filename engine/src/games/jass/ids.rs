//! The pack and its card-action ids: a card's id (`suit lane * 9 + rank`, lanes Bells,
//! Acorns, Roses, Shields, ranks 6..A), the card of an id, and a card set as a word of ids,
//! the form the state keeps the hands in.

use crate::{Action, Card, CardSet};

/// The Swiss pack (A–6 in four suits).
pub(crate) const PACK: CardSet = crate::Pack::Swiss36.cards();

/// The card-play action (and deal outcome) id of `card`.
#[must_use]
pub const fn card_action(card: Card) -> Action {
    let b = card.to_u8();
    (b >> 4) as Action * 9 + (b & 15) as Action - 4
}

/// The card of a card-play action id (`0..36`).
#[must_use]
pub fn action_card(action: Action) -> Option<Card> {
    CARD_OF_ACTION
        .get(action as usize)
        .and_then(|&b| Card::from_u8(b))
}

/// Card byte of each card action id.
const CARD_OF_ACTION: [u8; 36] = {
    let mut t = [0u8; 36];
    let mut i = 0;
    while i < 36 {
        t[i] = (i / 9 * 16 + i % 9 + 4) as u8;
        i += 1;
    }
    t
};

/// The card action ids of `cards` as a 36-bit word: the four 9-bit lanes (ranks 6..A).
#[inline]
pub(crate) fn pack_cards(cards: CardSet) -> u64 {
    let b = cards.bits() >> 4;
    (b & 0x1FF) | (b >> 7 & 0x1FF << 9) | (b >> 14 & 0x1FF << 18) | (b >> 21 & 0x1FF << 27)
}

/// The cards of a card-action-id word (the inverse of [`pack_cards`]).
#[inline]
pub(crate) fn unpack_cards(ids: u64) -> CardSet {
    let b = ids & 0xF_FFFF_FFFF;
    CardSet::from_bits(
        ((b & 0x1FF) | (b & 0x1FF << 9) << 7 | (b & 0x1FF << 18) << 14 | (b & 0x1FF << 27) << 21)
            << 4,
    )
}
