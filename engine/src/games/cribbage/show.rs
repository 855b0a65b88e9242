//! The show (§7): hands from the dealer's left, the dealer's last, then the crib, each scored
//! whole and checked against the target; then the next deal.

use std::sync::Arc;

use super::{CribbageState, LastDeal, Phase, score_set};
use crate::{Card, CardSet, Scope};

impl CribbageState {
    /// The show (§7): hands from the dealer's left, the dealer's last, then the crib; the
    /// game ends the moment a side reaches the target.
    pub(super) fn count_show(&mut self) {
        let Some(starter) = self.starter else { return };
        let n = self.n();
        for k in 0..n {
            let seat = usize::from((self.dealer + 1 + k) % n);
            let hand = self.dealt_hands[seat] - self.discards[seat];
            let sc = score_set(hand, starter, false);
            self.show[usize::from(k)] = sc;
            self.shown += 1;
            if self.credit(self.game.side(seat), sc.total) {
                return;
            }
        }
        let sc = score_set(self.crib, starter, true);
        self.show[usize::from(n)] = sc;
        self.shown += 1;
        if self.credit(self.game.side(self.dealer()), sc.total) {
            return;
        }
        if self.game.scope == Scope::Deal {
            self.phase = Phase::Over;
            return;
        }
        self.next_deal(starter);
    }

    pub(super) fn next_deal(&mut self, starter: Card) {
        // The finished deal's log joins the shared past (in place when not shared).
        let log = &self.log[..usize::from(self.log_len)];
        match &mut self.past {
            Some(past) => Arc::make_mut(past).extend_from_slice(log),
            None => self.past = Some(Arc::new(log.to_vec())),
        }
        let mut hands = [CardSet::EMPTY; 4];
        for (s, h) in hands.iter_mut().enumerate() {
            *h = self.dealt_hands[s] - self.discards[s];
        }
        self.last_deal = Some(LastDeal {
            dealer: self.dealer,
            starter,
            hands,
            crib: self.crib,
            show: self.show,
            points: self.deal_points,
            pegging: self.peg_points,
        });
        // Everything of the deal starts afresh; the game, scores and records stay.
        let fresh = CribbageState::new(self.game);
        let dealer = self.next(self.dealer);
        let deal_no = self.deal_no + 1;
        *self = CribbageState {
            phase: Phase::Deal,
            deal_no,
            dealer,
            scores: self.scores,
            last_deal: self.last_deal,
            past: self.past.take(),
            ..fresh
        };
    }
}
