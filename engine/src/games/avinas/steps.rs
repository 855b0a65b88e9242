//! The steps outside trick play: [`crate::State::legal_actions`] and
//! [`crate::State::apply_unchecked`] of the chance nodes, the auction, the knock and double,
//! the early-stop choice and the leads of tricks 1 and 2, kept out of line so that the
//! trick-play path inlines into playout loops; and the menus those decisions offer.

use super::{AvinasState, BID_BASE, CONTINUE, DOUBLE, KNOCK, PASS, Phase, STOP};
use crate::{Action, ActionSet};

/// The decision menus (ids `64..128`, see [`AvinasState::menu`]): `pass` or `knock`, `pass`
/// or `double`, `continue` or `stop`.
pub(super) const KNOCK_MENU: u64 = 1 << (PASS - 64) | 1 << (KNOCK - 64);
pub(super) const DOUBLE_MENU: u64 = 1 << (PASS - 64) | 1 << (DOUBLE - 64);
pub(super) const STOP_MENU: u64 = 1 << (CONTINUE - 64) | 1 << (STOP - 64);

impl AvinasState {
    /// [`crate::State::legal_actions`] outside its inlined cases, as the two low words of its
    /// mask (every id is below 128): returned in registers, so that the caller's set has
    /// constant upper words on every path and its random choice needs no wide search.
    #[inline(never)]
    pub(super) fn other_legal_words(&self) -> (u64, u64) {
        let w = self.other_legal_actions().words();
        (w[0], w[1])
    }

    /// [`crate::State::legal_actions`] outside its inlined cases.
    #[inline(always)]
    pub(super) fn other_legal_actions(&self) -> ActionSet {
        let mut set = ActionSet::EMPTY;
        match self.phase {
            Phase::ChooseDealer => set.insert_bits(0, 0b1111),
            Phase::Deal => set.insert_bits(0, u64::from(self.undealt())),
            Phase::Knock => {
                set.insert(PASS);
                set.insert(KNOCK);
            }
            Phase::Double => {
                set.insert(PASS);
                set.insert(DOUBLE);
            }
            Phase::Bid => {
                set.insert_bits(BID_BASE, u64::from(self.legal_bids()));
                set.insert(PASS);
            }
            Phase::Play => self.legal_plays(&mut set),
            Phase::StopChoice => {
                set.insert(CONTINUE);
                set.insert(STOP);
            }
            Phase::Over => {}
        }
        set
    }

    /// [`crate::State::apply_unchecked`] outside trick play.
    #[inline(never)]
    pub(super) fn apply_other(&mut self, action: Action) {
        match self.phase {
            Phase::ChooseDealer => self.choose_dealer(action as u8 & 3),
            Phase::Deal => self.deal_card(action as u8 & 31),
            Phase::Knock | Phase::Double | Phase::Bid | Phase::StopChoice => self.decide(action),
            Phase::Play => {
                self.push_log(action);
                self.play_action(action);
            }
            Phase::Over => {}
        }
    }

    /// A decision (knock, double, bid, continue or stop): [`crate::State::apply_unchecked`]
    /// when [`AvinasState::menu`] is set. The next decision's menu is set by the step that
    /// enters it.
    #[inline(never)]
    pub(super) fn decide(&mut self, action: Action) {
        self.push_log(action);
        self.menu = 0;
        match self.phase {
            Phase::Bid => self.bid(action),
            Phase::StopChoice => {
                if action == STOP {
                    self.stopped = true;
                    self.finish_deal();
                } else {
                    self.phase = Phase::Play;
                    self.to_act = self.leaders[usize::from(self.trick_no)];
                }
            }
            _ => self.knock_decision(action),
        }
    }

    /// The menu of the seat to act in the auction: its legal bids and `pass`.
    pub(super) fn bid_menu(&self) -> u64 {
        u64::from(self.legal_bids()) << (BID_BASE - 64) | 1 << (PASS - 64)
    }
}
