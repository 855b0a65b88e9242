//! The announcement phase (§8.4): private declaration items, then each player's public
//! commit; the protocol is run by [`Announcement::complete`] once both have committed.

use super::sequences::{self, Announcement, Declaration};
use super::{DECLARE_BASE, EqualSequenceRule, KlaberjassState, Phase};
use crate::{Action, Suit};

impl KlaberjassState {
    /// The items `seat` may still declare: runs of its hand after the last declared item.
    pub(super) fn declarable(&self, seat: usize) -> u32 {
        let all = run_items(self.packed[seat]);
        debug_assert_eq!(all, {
            let (runs, n) = sequences::runs(self.hand(seat));
            runs[..n].iter().flatten().fold(0, |m, r| m | 1 << r.item())
        });
        let done = self.items[seat];
        let after = if done == 0 {
            u32::MAX
        } else {
            !((2u32 << (31 - done.leading_zeros())) - 1)
        };
        all & after
    }

    pub(super) fn announce(&mut self) {
        let seat = usize::from(self.to_act);
        let trump = self.trump.unwrap_or(Suit::Clubs);
        self.declarations[seat] = Declaration::of(self.hand(seat), self.items[seat], trump);
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

/// The declaration items of the maximal runs of a hand given as a card-action-id word (8-bit
/// lanes, ranks 7..A): a run's top is a held card whose next higher card in the lane is
/// missing and whose two next lower ones are held; item `lane * 6 + top - 2` (tops 9..A).
#[inline]
fn run_items(hand: u64) -> u32 {
    let tops =
        hand & !(hand >> 1 & 0x7F7F_7F7F) & (hand << 1 & 0xFEFE_FEFE) & (hand << 2 & 0xFCFC_FCFC);
    let mut items = 0;
    for lane in 0..4 {
        items |= (tops >> (8 * lane + 2) & 0x3F) << (6 * lane);
    }
    items as u32
}

/// Why an announcement-phase action is not legal now (assumes it is not).
pub(super) fn announce_reason(action: Action) -> &'static str {
    if action >= DECLARE_BASE {
        "this run is not a maximal sequence of the hand, is already declared, or is not after the last declared item (declare in ascending item order)"
    } else {
        "sequences are being announced: `declare run …` or `announce` (§8.4)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::klaberjass::unpack_cards;
    use crate::{Rng, SeededRng};

    #[test]
    fn run_items_are_the_items_of_the_maximal_runs() {
        let mut rng = SeededRng::new(3);
        for _ in 0..20_000 {
            let hand = rng.next_u64() & rng.next_u64() & 0xFFFF_FFFF;
            let (runs, n) = sequences::runs(unpack_cards(hand));
            let expected = runs[..n].iter().flatten().fold(0, |m, r| m | 1 << r.item());
            assert_eq!(run_items(hand), expected, "{hand:#x}");
        }
    }
}
