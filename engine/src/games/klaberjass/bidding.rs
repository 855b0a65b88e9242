//! The bidding (§6): round 1 takes or passes the turn-up's suit, round 2 names another suit
//! or passes; a bid fixes trump and the maker, and four passes annul the deal.

use super::{DealResult, EXCHANGE, KlaberjassState, NAME_BASE, Outcome, PASS, Phase, TAKE};
use crate::{Action, Card, Scope, Suit};

impl KlaberjassState {
    /// One bid of the seat to act: `take`, `name <suit>` or `pass`.
    pub(super) fn bid(&mut self, action: Action) {
        let i = usize::from(self.num_bids);
        self.bids[i] = action as u8;
        self.num_bids += 1;
        let elder = 1 - self.dealer;
        match action {
            TAKE => {
                self.trump = self.turn_up.map(Card::suit);
                self.maker = self.to_act;
                self.phase = Phase::SecondDeal;
            }
            PASS => {
                if self.num_bids == 4 {
                    self.finish_annulled();
                    return;
                }
                if self.num_bids == 2 {
                    self.phase = Phase::BidOtherSuit;
                }
                self.to_act = if self.to_act == elder {
                    self.dealer
                } else {
                    elder
                };
            }
            _ => {
                self.trump = Suit::from_index((action - NAME_BASE) as u8);
                self.maker = self.to_act;
                self.phase = Phase::SecondDeal;
            }
        }
    }

    /// Four passes: the deal scores nothing (`Outcome::Annulled`); with `scope = deal` the game
    /// is over, otherwise the dealer changes as after any deal.
    pub(super) fn finish_annulled(&mut self) {
        self.last_deal = Some(DealResult {
            outcome: Outcome::Annulled,
            maker: None,
            totals: [0; 2],
            added: [0; 2],
            held_over_awarded: None,
        });
        if self.game.scope == Scope::Deal {
            self.phase = Phase::Over;
            return;
        }
        self.next_deal(1 - self.dealer);
    }

    /// Why a bid is not legal now (assumes it is not).
    pub(super) fn bid_reason(&self, action: Action) -> String {
        if self.phase == Phase::BidTurnUp {
            "bidding round 1: only `take` (the turn-up's suit) or `pass` (§6)".to_owned()
        } else if action == TAKE {
            "bidding round 2: the turn-up's suit can no longer be taken; name another suit or pass (§6)".to_owned()
        } else if (NAME_BASE..EXCHANGE).contains(&action) {
            "bidding round 2: the turn-up's suit cannot be named (§6)".to_owned()
        } else {
            "bidding round 2: name a suit other than the turn-up's, or pass (§6)".to_owned()
        }
    }
}
