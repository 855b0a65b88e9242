//! Card ids: a card's id (`suit lane * 8 + rank bit`, lanes ♣ ♦ ♥ ♠, rank bits 0..8 =
//! 7 8 9 10 J Q K A), the card of an id, and a card set as a 32-bit word of ids, the form
//! the state keeps the hands in.

use crate::{Action, Card, CardSet};

/// The card id (play action and deal outcome) of a card of the 32-card pack.
#[must_use]
pub fn card_action(card: Card) -> Option<Action> {
    let r = card.rank_index();
    (r >= 5).then(|| (card.suit_index() * 8 + r - 5) as Action)
}

/// The card of a card id `0..32`.
#[must_use]
pub fn action_card(id: Action) -> Option<Card> {
    (id < 32).then(|| Card::from_u8(((id / 8) * 16 + id % 8 + 5) as u8))?
}

/// The card ids of a set (bit `id` = card id) as a card set.
#[must_use]
pub fn to_cards(ids: u32) -> CardSet {
    let p = u64::from(ids);
    CardSet::from_bits(
        ((p & 0xFF) << 5)
            | ((p >> 8 & 0xFF) << 21)
            | ((p >> 16 & 0xFF) << 37)
            | ((p >> 24 & 0xFF) << 53),
    )
}

/// The card ids of a card set (cards outside the pack are dropped).
#[must_use]
pub fn to_ids(cards: CardSet) -> u32 {
    let b = cards.bits();
    ((b >> 5 & 0xFF) | (b >> 21 & 0xFF) << 8 | (b >> 37 & 0xFF) << 16 | (b >> 53 & 0xFF) << 24)
        as u32
}

/// The card of a card id `0..32`.
pub(super) fn card(id: u8) -> Option<Card> {
    action_card(Action::from(id))
}
