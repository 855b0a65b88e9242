//! The show (§7): hands from the dealer's left, the dealer's last, then the crib, each scored
//! whole and checked against the target; then the next deal. And the `scope = deal` returns of
//! a deal's points (§8).

use std::sync::Arc;

use super::{CribbageState, LastDeal, Phase, score_set};
use crate::{Card, CardSet, Scope, SeatValues};

impl CribbageState {
    /// The `scope = deal` returns of a deal whose points per side are `p` (§8): the side's
    /// points minus the other side's, or with 3 players minus the mean (exactly zero-sum).
    pub(super) fn deal_returns(&self, p: [u32; 3]) -> SeatValues {
        let n = usize::from(self.game.players);
        let mut r = SeatValues::zeros(n);
        if n == 3 {
            let total = f64::from(p[0] + p[1] + p[2]);
            r[0] = (3.0 * f64::from(p[0]) - total) / 3.0;
            r[1] = (3.0 * f64::from(p[1]) - total) / 3.0;
            r[2] = -(r[0] + r[1]);
        } else {
            for seat in 0..n {
                let side = self.game.side(seat);
                r[seat] = f64::from(p[side]) - f64::from(p[1 - side]);
            }
        }
        r
    }

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
