//! Card-action ids: a card's id (`suit lane * 13 + rank index`, lanes ♣ ♦ ♥ ♠, ranks 2..A),
//! the card of an id and the id of a card byte as tables, and a card set as a word of ids.

use crate::{Action, Card, CardSet};

/// The action (and chance outcome) id of `card`: `suit lane * 13 + rank index`.
#[must_use]
pub const fn card_action(card: Card) -> Action {
    (card.suit_index() * 13 + card.rank_index()) as Action
}

/// The card of a card action id (`0..52`).
#[must_use]
#[inline]
pub fn action_card(action: Action) -> Option<Card> {
    match CARD_OF_ACTION.get(action as usize) {
        Some(&b) => Card::from_u8(b),
        None => None,
    }
}

/// The card byte of each card action id (in action order: the 52-card pack).
pub(super) const CARD_OF_ACTION: [u8; 52] = {
    let mut t = [0u8; 52];
    let mut i = 0;
    while i < 52 {
        t[i] = (((i / 13) << 4) | (i % 13)) as u8;
        i += 1;
    }
    t
};

/// The action id of each card byte (`suit * 16 + rank`; other bytes map to 0).
pub(super) const CARD_ACTION_OF_BYTE: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut i = 0;
    while i < 52 {
        t[((i / 13) << 4) | (i % 13)] = i as u8;
        i += 1;
    }
    t
};

/// The card action ids of `cards` as a 52-bit word (four 13-bit lanes).
#[inline]
#[must_use]
pub(crate) fn pack_cards(cards: CardSet) -> u64 {
    let b = cards.bits();
    (b & 0x1FFF) | (b >> 3 & 0x1FFF << 13) | (b >> 6 & 0x1FFF << 26) | (b >> 9 & 0x1FFF << 39)
}
