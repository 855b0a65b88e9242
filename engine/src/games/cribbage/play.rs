//! The play ("pegging", §6): legal cards, the points of a laid card, the end of a series and
//! who leads the next one.

use super::scoring::{ORDER, VALUE};
use super::{
    CribbageState, GO, NONE, PEG_CAP, Phase, SeriesLeader, action_card, card_value, pack_cards,
};
use crate::{Action, Card, CardSet};

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
    pts + best as u8
}

/// The cribbage rank position (A = 0 … K = 12) of a rank index of [`crate::Rank`].
#[inline]
#[must_use]
pub(crate) fn order(rank_index: usize) -> u8 {
    ORDER[rank_index]
}

impl CribbageState {
    /// Why a play action is not legal now (assumes it is not).
    pub(super) fn play_reason(&self, action: Action) -> String {
        let seat = usize::from(self.to_act);
        let hand = self.hands[seat];
        match action_card(action) {
            Some(c) if !hand.contains(c) => format!("seat {seat} does not hold {c}"),
            Some(c) => format!(
                "{c} (value {}) would take the count from {} past 31",
                card_value(c),
                self.count
            ),
            None => {
                let p = playable(hand, 31 - self.count);
                format!(
                    "seat {seat} holds a playable card ({}): go is allowed only when no card keeps the count at 31 or below",
                    p.first().map(|c| c.to_string()).unwrap_or_default()
                )
            }
        }
    }

    pub(super) fn push_peg(&mut self, seat: u8, action: Action) {
        let i = usize::from(self.pegs_len);
        debug_assert!(i < PEG_CAP);
        if i < PEG_CAP {
            self.pegs[i] = seat << 6 | action as u8;
            self.pegs_len += 1;
        }
    }

    /// True while the pegging position (count, series, go calls) is on the table: during the
    /// play, and in the terminal state of a game that ended inside it (or at his heels,
    /// before any card), which keeps the position of that instant (§8 \[decision\]).
    #[inline]
    pub(super) fn pegging_shown(&self) -> bool {
        self.phase == Phase::Play || (self.phase == Phase::Over && self.shown == 0)
    }

    /// Seats holding cards, as a bit mask.
    #[inline]
    pub(super) fn holders(&self) -> u8 {
        let mut m = 0;
        for s in 0..usize::from(self.n()) {
            m |= u8::from(!self.hands[s].is_empty()) << s;
        }
        m
    }

    pub(super) fn lay(&mut self, action: Action, card: Card) {
        let seat = self.to_act;
        let s = usize::from(seat);
        self.hands[s].remove(card);
        self.count += card_value(card);
        let i = usize::from(self.series_len);
        debug_assert!(i < 16);
        self.series[i & 15] = order(card.rank_index());
        self.series_len += 1;
        self.last = seat;
        self.push_peg(seat, action);
        let mut pts = pegging_points(&self.series[..usize::from(self.series_len)], self.count);
        let holders = self.holders();
        // The last card of the deal also scores the last-card point (unless it made 31).
        let ends_play = holders == 0;
        if ends_play && self.count != 31 {
            pts += 1;
        }
        let side = self.game.side(s);
        if pts > 0 {
            self.peg_points[side] += u32::from(pts);
            if self.credit(side, pts) {
                return;
            }
        }
        if ends_play {
            self.count_show();
            return;
        }
        if self.count == 31 {
            self.reset(self.next(seat));
            return;
        }
        self.advance(seat, holders);
    }

    pub(super) fn say_go(&mut self) {
        let seat = self.to_act;
        self.said_go |= 1 << seat;
        if self.first_go == NONE {
            self.first_go = seat;
        }
        self.push_peg(seat, GO);
        self.advance(seat, self.holders());
    }

    /// After `seat` acted: the next active player clockwise, or the end of the series.
    pub(super) fn advance(&mut self, seat: u8, holders: u8) {
        let active = holders & !self.said_go;
        if active == 0 {
            // Nobody can play: the last card's player scores the go (§6.1). Cards remain
            // (the last card of the deal is handled in `lay`).
            let side = self.game.side(usize::from(self.last));
            self.peg_points[side] += 1;
            if self.credit(side, 1) {
                return;
            }
            let leader = match self.game.new_series_leader {
                SeriesLeader::FirstGoCaller if self.first_go != NONE => self.first_go,
                _ => self.next(self.last),
            };
            self.reset(leader);
            return;
        }
        let mut cur = self.next(seat);
        while active >> cur & 1 == 0 {
            cur = self.next(cur);
        }
        self.to_act = cur;
    }

    /// A new series led by the first player clockwise from `p` (included) who holds cards.
    pub(super) fn reset(&mut self, p: u8) {
        self.count = 0;
        self.series_len = 0;
        self.said_go = 0;
        self.first_go = NONE;
        self.series_start = self.pegs_len;
        let holders = self.holders();
        let mut cur = p;
        while holders >> cur & 1 == 0 {
            cur = self.next(cur);
        }
        self.to_act = cur;
    }

    /// Legal card actions in the play as an action-id word.
    #[inline]
    pub(super) fn legal_play(&self) -> u64 {
        let hand = self.hands[usize::from(self.to_act)];
        pack_cards(playable(hand, 31 - self.count))
    }
}
