//! The play ("pegging", §6): legal cards, the points of a laid card, the end of a series and
//! who leads the next one.

use super::score::{ORDER, VALUE};
use crate::CardSet;

/// One 13-bit suit lane of a [`CardSet`] for each maximum value 0..=31: the ranks whose count
/// value is at most that much (bit = rank index of [`crate::Rank`], Two..Ace).
const LANE_UP_TO: [u64; 32] = {
    let mut t = [0u64; 32];
    let mut m = 0;
    while m < 32 {
        let mut r = 0;
        while r < 13 {
            if VALUE[r] as usize <= m {
                t[m] |= 1 << r;
            }
            r += 1;
        }
        m += 1;
    }
    t
};

/// The cards of a [`CardSet`] whose value is at most `max` (`max` 0..=31).
#[inline]
#[must_use]
pub(crate) fn playable(hand: CardSet, max: u8) -> CardSet {
    let lane = LANE_UP_TO[usize::from(max.min(31))];
    CardSet::from_bits(hand.bits() & (lane | lane << 16 | lane << 32 | lane << 48))
}

/// The points the card just laid scores for its combinations (§6.2), from the ranks of the
/// current series in play order (cribbage rank positions, A = 0 … K = 12) and the count
/// after it: fifteen or thirty-one, pair / pair royal / double pair royal, the longest run
/// ending at it. The go / last-card point is not included (it belongs to the series end).
#[must_use]
pub fn pegging_points(series: &[u8], count: u8) -> u8 {
    let n = series.len();
    let mut pts = 0;
    if count == 15 || count == 31 {
        pts += 2;
    }
    let Some(&last) = series.last() else {
        return pts;
    };
    // Pairs: the same rank laid consecutively at the end of the series.
    let same = series.iter().rev().take_while(|&&r| r == last).count();
    pts += [0, 0, 2, 6, 12][same.min(4)];
    // Runs: the longest tail of distinct ranks forming a consecutive sequence.
    let mut mask: u16 = 0;
    let mut best = 0;
    for (k, &r) in series.iter().rev().enumerate() {
        let bit = 1u16 << r;
        if mask & bit != 0 {
            break;
        }
        mask |= bit;
        let len = k + 1;
        if len >= 3 {
            let low = mask >> mask.trailing_zeros();
            if low == (1u16 << len) - 1 {
                best = len;
            }
        }
    }
    let _ = n;
    pts + best as u8
}

/// The cribbage rank position (A = 0 … K = 12) of a rank index of [`crate::Rank`].
#[inline]
#[must_use]
pub(crate) fn order(rank_index: usize) -> u8 {
    ORDER[rank_index]
}
