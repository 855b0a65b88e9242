//! The deal (§5): cards dealt one at a time from the dealer's left (3 players: then the blind
//! crib card), the discards to the crib, the starter and his heels.

use super::ids::{CARD_ACTION_OF_BYTE, CARD_OF_ACTION};
use super::{CribbageState, Phase, action_card, card_action};
use crate::{Action, Card, CardSet, Pack, Rank, Rng};

impl CribbageState {
    /// Why a discard is not legal now (assumes it is not).
    pub(super) fn discard_reason(&self, action: Action) -> String {
        let seat = self.to_act;
        match action_card(action) {
            Some(c) => format!("seat {seat} does not hold {c}; it must discard a card it holds"),
            None => {
                format!("seat {seat} must discard a card to the crib; go is said only in the play")
            }
        }
    }

    /// Seat that receives the `k`-th card of the deal, or `None` for the blind crib card.
    pub(super) fn deal_target(&self, k: u8) -> Option<usize> {
        let n = self.n();
        if k < n * self.game.hand_size() {
            Some(usize::from((self.dealer + 1 + k % n) % n))
        } else {
            None
        }
    }

    pub(super) fn stock(&self) -> CardSet {
        let dealt =
            self.dealt_hands[0] | self.dealt_hands[1] | self.dealt_hands[2] | self.dealt_hands[3];
        Pack::Full52.cards() - dealt - self.crib
    }

    pub(super) fn deal_card(&mut self, card: Card) {
        match self.deal_target(self.dealt) {
            Some(seat) => {
                self.hands[seat].insert(card);
                self.dealt_hands[seat].insert(card);
            }
            None => self.crib.insert(card),
        }
        self.dealt += 1;
        self.push_log(card_action(card));
        if self.dealt == self.game.deal_len() {
            self.phase = Phase::Discard;
            self.to_act = self.next(self.dealer);
        }
    }

    /// The whole deal at once: a partial Fisher–Yates shuffle of the undealt cards, logged as
    /// the outcomes of dealing them one by one.
    pub(super) fn deal_rest<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let mut ids = CARD_OF_ACTION;
        let mut n = 52;
        if self.dealt > 0 {
            n = 0;
            for c in self.stock().iter() {
                ids[n] = c.to_u8();
                n += 1;
            }
        }
        let need = usize::from(self.game.deal_len() - self.dealt).min(n);
        let hands_len = self.n() * self.game.hand_size();
        let mut seat = match self.deal_target(self.dealt) {
            Some(t) => t as u8,
            None => 0,
        };
        for i in 0..need {
            let j = i + rng.below((n - i) as u64) as usize;
            ids.swap(i, j);
            let card = CardSet::from_bits(1 << ids[i]);
            if self.dealt < hands_len {
                let h = usize::from(seat);
                self.hands[h] |= card;
                self.dealt_hands[h] |= card;
                seat = self.next(seat);
            } else {
                self.crib |= card;
            }
            self.dealt += 1;
            self.push_log(Action::from(CARD_ACTION_OF_BYTE[usize::from(ids[i])]));
        }
        if self.dealt == self.game.deal_len() {
            self.phase = Phase::Discard;
            self.to_act = self.next(self.dealer);
        }
    }

    pub(super) fn discard(&mut self, card: Card) {
        let seat = usize::from(self.to_act);
        self.hands[seat].remove(card);
        self.discards[seat].insert(card);
        self.crib.insert(card);
        if self.discards[seat].len() == usize::from(self.game.discards_each()) {
            if self.to_act == self.dealer {
                self.phase = Phase::Starter;
            } else {
                self.to_act = self.next(self.to_act);
            }
        }
    }

    pub(super) fn cut_starter(&mut self, card: Card) {
        self.starter = Some(card);
        self.push_log(card_action(card));
        if card.rank() == Rank::Jack {
            // His heels (§5.4).
            self.heels = true;
            if self.credit(self.game.side(self.dealer()), 2) {
                return;
            }
        }
        self.phase = Phase::Play;
        self.to_act = self.next(self.dealer);
    }
}
