//! The announcement phase (§8.4): private declaration items, then each player's public
//! commit; the protocol is run by [`Announcement::complete`] once both have committed.

use super::sequences::{self, Announcement, Declaration};
use super::{DECLARE_BASE, EqualSequenceRule, KlaberjassState, Phase};
use crate::{Action, Suit};

impl KlaberjassState {
    /// The items `seat` may still declare: runs of its hand after the last declared item.
    pub(super) fn declarable(&self, seat: usize) -> u32 {
        let (runs, n) = sequences::runs(self.hands[seat]);
        let done = self.items[seat];
        let after = if done == 0 {
            u32::MAX
        } else {
            !((2u32 << (31 - done.leading_zeros())) - 1)
        };
        let mut out = 0;
        for r in runs[..n].iter().flatten() {
            out |= 1 << r.item();
        }
        out & after
    }

    pub(super) fn announce(&mut self) {
        let seat = usize::from(self.to_act);
        let trump = self.trump.unwrap_or(Suit::Clubs);
        self.declarations[seat] = Declaration::of(self.hands[seat], self.items[seat], trump);
        let elder = 1 - self.dealer;
        if self.to_act == elder {
            self.announcement.elder_value = Some(self.declarations[seat].best_value());
            self.to_act = self.dealer;
            return;
        }
        let e = self.declarations[usize::from(elder)];
        let y = self.declarations[seat];
        self.announcement = Announcement::complete(
            elder,
            &e,
            &y,
            trump,
            self.game.equal_sequence_rule == EqualSequenceRule::ElderScores,
        );
        if let Some(w) = self.announcement.winner {
            let d = self.declarations[usize::from(w)];
            self.shown = d.cards;
            self.seq_points[usize::from(w)] = d.points;
        }
        self.to_act = elder;
        if self.windows_held() {
            self.phase = Phase::Exchange2;
        } else {
            self.start_play();
        }
    }
}

/// Why an announcement-phase action is not legal now (assumes it is not).
pub(super) fn announce_reason(action: Action) -> &'static str {
    if action >= DECLARE_BASE {
        "this run is not a maximal sequence of the hand, is already declared, or is not after the last declared item (declare in ascending item order)"
    } else {
        "sequences are being announced: `declare run …` or `announce` (§8.4)"
    }
}
