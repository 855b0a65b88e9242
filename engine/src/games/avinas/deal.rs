//! The first dealer and the deal with its exposed cards (§4, §5).

use super::steps::KNOCK_MENU;
use super::trumps::trump_mask;
use super::{AvinasState, Kind, Phase};
use crate::Rng;

/// Card ids of the four Sevens (rank bit 0 of each lane).
pub(super) const SEVENS: u32 = 0x0101_0101;

impl AvinasState {
    pub(super) fn choose_dealer(&mut self, dealer: u8) {
        self.push_log(crate::Action::from(dealer));
        self.dealer = dealer;
        self.phase = Phase::Deal;
        self.deal_start = self.log_len as u8;
    }

    /// Card ids not dealt yet in this deal.
    pub(super) fn undealt(&self) -> u32 {
        !(self.dealt_hands[0] | self.dealt_hands[1] | self.dealt_hands[2] | self.dealt_hands[3])
    }

    /// Seat receiving the `k`-th card of the deal: two rounds of packets of four, from the
    /// dealer's left, the dealer last (§5.1).
    pub(super) fn deal_target(&self, k: u8) -> usize {
        usize::from((self.dealer + 1 + (k >> 2 & 3)) & 3)
    }

    /// True if the `k`-th card of the deal is a seat's 4th or 8th card (§5.2).
    pub(super) fn is_special(k: u8) -> bool {
        k & 3 == 3
    }

    /// Whether a special card `id` dealt to `seat` lies face up: always for the dealer's
    /// opponents, for the dealer's side only if it is a Seven (§5.2).
    pub(super) fn face_up(&self, seat: usize, id: u8) -> bool {
        (seat ^ usize::from(self.dealer)) & 1 == 1 || SEVENS >> id & 1 == 1
    }

    pub(super) fn deal_card(&mut self, id: u8) {
        let k = self.dealt;
        let seat = self.deal_target(k);
        self.push_log(crate::Action::from(id));
        self.hands[seat] |= 1 << id;
        self.dealt_hands[seat] |= 1 << id;
        if Self::is_special(k) {
            self.expose(seat, id);
        }
        self.dealt += 1;
        if self.dealt == 32 {
            self.finish_deal_out();
        }
    }

    /// A 4th or 8th card: face up or face down; a face-up Seven makes its receiver the
    /// declarer so far (the last one in exposure order counts, §6.1).
    fn expose(&mut self, seat: usize, id: u8) {
        if self.face_up(seat, id) {
            self.exposed |= 1 << id;
            if SEVENS >> id & 1 == 1 {
                self.base += 1;
                self.declarer = seat as u8;
                self.trump = id >> 3;
            }
        } else {
            self.hidden_special |= 1 << id;
        }
    }

    /// The whole deal at once: a Fisher–Yates shuffle of the 32 card ids, logged as the 32
    /// outcomes of dealing them one by one.
    pub(super) fn deal_all<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        const PACK: [u8; 32] = {
            let mut p = [0u8; 32];
            let mut i = 0;
            while i < 32 {
                p[i] = i as u8;
                i += 1;
            }
            p
        };
        debug_assert!(self.dealt == 0 && self.hands == [0; 4] && self.base == 0);
        // Shuffled in place in the log (no copy of the shuffled array: read as wider words
        // just after its bytes were stored, it would stall store-to-load forwarding).
        let start = self.log_len as usize;
        let ids: &mut [u8; 32] = (&mut self.log[start..start + 32])
            .try_into()
            .expect("the log holds a deal");
        *ids = PACK;
        for i in (1..32).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            ids.swap(i, j);
        }
        let ids = &*ids;
        let dealer = usize::from(self.dealer);
        let first = dealer + 1;
        // The exposures without a branch on the random cards (`expose`, branch-free): the
        // last face-up Seven in dealing order fixes declarer and trump.
        let (mut hands, mut exposed, mut hidden, mut base) = ([0u32; 4], 0u32, 0u32, 0u8);
        let (mut declarer, mut trump) = (0, 4);
        for (p, packet) in ids.chunks_exact(4).enumerate() {
            let seat = (first + p) & 3;
            let bits = packet.iter().fold(0u32, |acc, &id| acc | 1 << id);
            hands[seat] |= bits;
            let id = packet[3];
            let seven = SEVENS >> id & 1;
            let up = ((seat ^ dealer) as u32 & 1) | seven;
            exposed |= up << id;
            hidden |= (up ^ 1) << id;
            base += seven as u8;
            if seven == 1 {
                declarer = seat as u8;
                trump = id >> 3;
            }
        }
        self.log_len += 32;
        self.hands = hands;
        self.dealt_hands = hands;
        self.exposed = exposed;
        self.hidden_special = hidden;
        self.base = base;
        self.declarer = declarer;
        self.trump = trump;
        self.dealt = 32;
        self.finish_deal_out();
    }

    /// All cards are out: a face-up Seven makes a sevens game, otherwise bidding (§5.4).
    fn finish_deal_out(&mut self) {
        if self.base > 0 {
            self.kind = Some(Kind::Sevens);
            self.tmask = trump_mask(self.trump);
            self.phase = Phase::Knock;
            self.to_act = self.declarer;
            self.menu = KNOCK_MENU;
        } else {
            self.kind = Some(Kind::Bidding);
            self.phase = Phase::Bid;
            self.to_act = (self.dealer + 1) & 3;
            self.menu = self.bid_menu();
        }
    }
}
