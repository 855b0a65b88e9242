//! The steps outside trick play: [`crate::State::legal_actions`] and
//! [`crate::State::apply_unchecked`] of the cut, the two dealing stages, the bidding, the
//! exchange windows and the announcements, kept out of line so that the trick-play path
//! inlines into playout loops.

use super::{
    ANNOUNCE, DECLARE_BASE, EXCHANGE, KEEP, KlaberjassState, NAME_BASE, PASS, Phase, TAKE, WAIT,
    action_card, pack_cards,
};
use crate::{Action, ActionSet};

impl KlaberjassState {
    /// [`crate::State::legal_actions`] outside trick play, as the two low words of its mask (every
    /// id is below 128): returned in registers, so that the caller's set has constant upper
    /// words on both paths and its random choice needs no wide search.
    #[inline(never)]
    pub(super) fn other_legal_words(&self) -> (u64, u64) {
        let w = self.other_legal_actions().words();
        (w[0], w[1])
    }

    /// [`crate::State::legal_actions`] outside trick play.
    #[inline(always)]
    pub(super) fn other_legal_actions(&self) -> ActionSet {
        let mut set = ActionSet::EMPTY;
        match self.phase {
            Phase::Cut => set.insert_bits(0, 0b11),
            Phase::Deal | Phase::SecondDeal => set.insert_bits(0, pack_cards(self.undealt)),
            Phase::BidTurnUp => {
                set.insert(PASS);
                set.insert(TAKE);
            }
            Phase::BidOtherSuit => {
                set.insert(PASS);
                let up = self.turn_up.map_or(4, |c| c.suit_index() as u32);
                set.insert_bits(NAME_BASE, 0b1111 & !(1 << up));
            }
            Phase::Exchange1 | Phase::Exchange2 => {
                set.insert(if self.phase == Phase::Exchange1 {
                    WAIT
                } else {
                    KEEP
                });
                // The trump 7 is card action `8 * trump` (rank 7 is lane bit 0).
                let held = self.packed[usize::from(self.to_act) & 1];
                if self.exchanged.is_none()
                    && self.trump.is_some_and(|t| held >> (8 * t as u32) & 1 != 0)
                {
                    set.insert(EXCHANGE);
                }
            }
            Phase::Announce => {
                set.insert(ANNOUNCE);
                set.insert_bits(
                    DECLARE_BASE,
                    u64::from(self.declarable(usize::from(self.to_act))),
                );
            }
            Phase::Play => set.insert_bits(0, self.legal_cards()),
            Phase::Over => {}
        }
        set
    }

    /// [`crate::State::apply_unchecked`] outside trick play.
    #[inline(never)]
    pub(super) fn apply_other(&mut self, action: Action) {
        match self.phase {
            Phase::Cut => {
                self.push_log(action);
                self.dealer = (action & 1) as u8;
                self.phase = Phase::Deal;
            }
            Phase::Deal | Phase::SecondDeal => {
                if let Some(card) = action_card(action) {
                    self.draw(card);
                }
            }
            Phase::BidTurnUp | Phase::BidOtherSuit => {
                self.push_log(action);
                self.bid(action);
            }
            Phase::Exchange1 | Phase::Exchange2 => {
                self.push_log(action);
                self.window_action(action);
            }
            Phase::Announce => {
                self.push_log(action);
                if action == ANNOUNCE {
                    self.announce();
                } else {
                    self.items[usize::from(self.to_act)] |= 1 << (action - DECLARE_BASE);
                }
            }
            Phase::Play => {
                self.push_log(action);
                if action < 32 {
                    self.play_card(action);
                }
            }
            Phase::Over => {}
        }
    }
}
