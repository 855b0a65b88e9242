//! The bidding game's auction (§7.1, §7.2) and the sevens game's knock and double (§6.3,
//! §6.4).

use super::steps::{DOUBLE_MENU, KNOCK_MENU};
use super::trumps::trump_count;
use super::{AvinasState, BID_BASE, DOUBLE, KNOCK, Kind, PASS, PASSED, Phase};
use crate::Action;

/// The counts a hand can bid, as a mask (bit `n - 1` = count `n`, `n >= 1`).
#[must_use]
pub(super) fn count_mask(hand: u32) -> u32 {
    let mut m = 0;
    for s in 0..4 {
        let c = trump_count(hand, s);
        if c > 0 {
            m |= 1 << (c - 1);
        }
    }
    m
}

impl AvinasState {
    /// Legal bids of the seat to act, as a mask over `bid 1..8` (bit `n - 1`).
    pub(super) fn legal_bids(&self) -> u32 {
        let above = !0u32 << self.high_bid;
        count_mask(self.hands[usize::from(self.to_act)]) & above & 0xFF
    }

    /// One auction action (§7.2).
    pub(super) fn bid(&mut self, action: Action) {
        let seat = usize::from(self.to_act);
        if action == PASS {
            self.bids[seat] = PASSED;
        } else {
            let n = (action - BID_BASE + 1) as u8;
            self.bids[seat] = n;
            self.high_bid = n;
            self.declarer = seat as u8;
        }
        if seat != usize::from(self.dealer) {
            self.to_act = (self.to_act + 1) & 3;
            self.menu = self.bid_menu();
            return;
        }
        if self.high_bid == 0 {
            // All four passed: no score, the next dealer deals.
            self.void_deal();
        } else {
            self.start_play();
        }
    }

    /// One knock or double decision (§6.3, §6.4).
    pub(super) fn knock_decision(&mut self, action: Action) {
        let d = self.declarer;
        match (self.phase, action) {
            (Phase::Knock, KNOCK) => {
                self.knock = Some(self.to_act);
                self.phase = Phase::Double;
                self.to_act = (d + 1) & 3;
                self.menu = DOUBLE_MENU;
            }
            (Phase::Knock, _) if self.to_act == d => {
                self.to_act = (d + 2) & 3;
                self.menu = KNOCK_MENU;
            }
            (Phase::Double, DOUBLE) => {
                self.double = Some(self.to_act);
                self.start_play();
            }
            (Phase::Double, _) if self.to_act == (d + 1) & 3 => {
                self.to_act = (d + 3) & 3;
                self.menu = DOUBLE_MENU;
            }
            _ => self.start_play(),
        }
    }

    pub(super) fn start_play(&mut self) {
        self.stop_allowed = match self.kind {
            Some(Kind::Bidding) => self.game.early_stop_allowed,
            Some(Kind::Sevens) => self.game.early_stop_in_sevens_game && self.knock.is_none(),
            None => false,
        };
        self.phase = Phase::Play;
        self.to_act = self.declarer;
        self.leaders[0] = self.declarer;
    }
}

pub(super) fn bid_reason(s: &AvinasState, action: Action) -> String {
    let Some(n) = action
        .checked_sub(BID_BASE)
        .filter(|&i| i < 8)
        .map(|i| i + 1)
    else {
        return "during the auction a seat may only `bid n` or `pass` (§7.2)".into();
    };
    if n <= u32::from(s.high_bid) {
        return format!(
            "a bid must exceed every earlier bid; the highest so far is {}",
            s.high_bid
        );
    }
    let hand = s.hands[usize::from(s.to_act)];
    let counts: Vec<String> = (0..4u8)
        .map(|suit| {
            format!(
                "{} {}",
                crate::Suit::from_index(suit).map_or("", |x| x.name()),
                trump_count(hand, suit)
            )
        })
        .collect();
    format!(
        "a bid must equal the hand's trump count for some suit (§7.1); this hand counts {}",
        counts.join(", ")
    )
}
