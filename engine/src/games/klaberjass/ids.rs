//! The pack and its card-action ids: a card's id (`suit lane * 8 + rank`, lanes ♣ ♦ ♥ ♠,
//! ranks 7..A), the card of an id, and a card set as a word of ids, the form the state keeps
//! the hands in.

use crate::{Action, Card, CardSet, Rank, Suit};

/// The 32-card pack (A–7 in four suits).
pub(crate) const PACK: CardSet = crate::Pack::Piquet32.cards();

/// The card action (and deal outcome) id of `card` (a card of the 32-card pack).
#[must_use]
pub const fn card_action(card: Card) -> Action {
    let b = card.to_u8();
    (b >> 4) as Action * 8 + (b & 15) as Action - 5
}

/// The card of a card action id (`0..32`).
#[must_use]
#[inline]
pub fn action_card(action: Action) -> Option<Card> {
    CARD_OF_ACTION.get(action as usize).copied()
}

/// The card of each card action id.
pub(super) const CARD_OF_ACTION: [Card; 32] = {
    let mut t = [Card::new(Rank::Seven, Suit::Clubs); 32];
    let mut a = 0;
    while a < 32 {
        t[a] = match Card::from_u8((a / 8 * 16 + a % 8 + 5) as u8) {
            Some(c) => c,
            None => panic!("a card of the 32-card pack"),
        };
        a += 1;
    }
    t
};

/// The card action ids of `cards` as a 32-bit word (four 8-bit lanes, ranks 7..A).
#[inline]
pub(crate) fn pack_cards(cards: CardSet) -> u64 {
    let b = cards.bits() >> 5;
    (b & 0xFF) | (b >> 8 & 0xFF00) | (b >> 16 & 0xFF_0000) | (b >> 24 & 0xFF00_0000)
}

/// The cards of a card-action-id word (the inverse of [`pack_cards`]).
#[inline]
pub(crate) fn unpack_cards(ids: u64) -> CardSet {
    let p = ids & 0xFFFF_FFFF;
    CardSet::from_bits(
        ((p & 0xFF) | (p & 0xFF00) << 8 | (p & 0xFF_0000) << 16 | (p & 0xFF00_0000) << 24) << 5,
    )
}
