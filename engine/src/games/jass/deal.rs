//! The deal (§5): who receives each card, the whole deal at once from a shuffle, and the
//! forehand, who then chooses the mode (`bidding.rs`).

use super::ids::PACK;
use super::unpack_cards;
use super::{JassState, Phase, card_action};
use crate::{Card, CardSet, Rank, Rng, Suit};

impl JassState {
    /// The cards not dealt yet in this deal.
    pub(super) fn undealt(&self) -> CardSet {
        PACK - self.dealt_hands[0] - self.dealt_hands[1] - self.dealt_hands[2] - self.dealt_hands[3]
    }

    /// Seat that receives the `k`-th card of the deal: packets of three from the forehand.
    pub(super) fn deal_target(&self, k: u8) -> usize {
        usize::from((self.dealer + 1 + k / 3) % 4)
    }

    /// One chance outcome: `card` goes to the seat whose turn it is to receive.
    pub(super) fn deal_card(&mut self, card: Card) {
        let seat = self.deal_target(self.dealt);
        self.packed[seat] |= 1 << card_action(card);
        self.dealt_hands[seat].insert(card);
        self.dealt += 1;
        self.push_log(card_action(card));
        if self.dealt == 36 {
            self.finish_deal_out();
        }
    }

    /// One chance outcome drawn uniformly among the undealt cards.
    pub(super) fn deal_random_card<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let undealt = self.undealt();
        let k = rng.below(undealt.len() as u64) as usize;
        if let Some(card) = undealt.nth(k) {
            self.deal_card(card);
        }
    }

    /// The rest of the deal: the whole deal at once if none is dealt yet, else the undealt
    /// cards shuffled (Fisher–Yates) and dealt in order.
    pub(super) fn deal_rest<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        if self.dealt == 0 {
            self.deal_all(rng);
            return;
        }
        let undealt = self.undealt();
        let mut cards = [Card::new(Rank::Six, Suit::Clubs); 36];
        let n = undealt.len();
        for (slot, card) in cards.iter_mut().zip(undealt.iter()) {
            *slot = card;
        }
        for i in (1..n).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            cards.swap(i, j);
        }
        for &card in &cards[..n] {
            self.deal_card(card);
        }
    }

    /// The whole deal at once: a Fisher–Yates shuffle of the pack, logged as the 36 outcomes
    /// of dealing the shuffled cards one by one.
    fn deal_all<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let mut ids: [u8; 36] = std::array::from_fn(|i| i as u8);
        for i in (1..36).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            ids.swap(i, j);
        }
        // Packets of three cards, from the forehand.
        let first = usize::from(self.dealer + 1);
        let mut hands = [0u64; 4];
        for (p, packet) in ids.chunks_exact(3).enumerate() {
            let bits = packet.iter().fold(0u64, |acc, &id| acc | 1u64 << (id & 63));
            hands[(first + p) & 3] |= bits;
        }
        self.packed = hands;
        self.dealt_hands = hands.map(unpack_cards);
        self.log[..36].copy_from_slice(&ids);
        self.log_len = 36;
        self.dealt = 36;
        self.finish_deal_out();
    }

    /// The deal is out: the forehand (the holder of the Roses 7 in the first deal with
    /// `first_forehand = roses_seven`) chooses the mode.
    fn finish_deal_out(&mut self) {
        if self.deal_no == 0 && self.game.roses_seven_forehand {
            let seven = Card::new(Rank::Seven, Suit::ROSES);
            if let Some(s) = (0..4).find(|&s| self.hand_cards(s).contains(seven)) {
                self.forehand = s as u8;
                self.dealer = (s as u8 + 3) % 4;
            }
        }
        self.phase = Phase::ChooseMode;
        self.to_act = self.forehand;
    }

    /// Why `action` is not legal while the deal is out (assumes it is not).
    pub(super) fn deal_reason(&self) -> String {
        format!(
            "a card is being dealt; the outcomes are the {} undealt cards",
            36 - self.dealt
        )
    }
}
