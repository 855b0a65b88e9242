//! The observation tensor of a seat: a flat `f32` vector, seats and teams relative to the
//! observer (relative seat 0 = the observer, 1 = the next player, 2 = the partner; relative
//! team 0 = the observer's side). Cards are indexed by card id (0..32).
//!
//! The length and the slices with their bounds under a game's options reach the
//! [`crate::Game`] implementation (in `options.rs`) as items of [`AvinasGame`] defined here
//! (`OBSERVATION_LEN`, `observation_slices`), so that `options.rs` never imports this file.

use super::{AllTricksLoss, AvinasGame, AvinasState, Kind, PASSED, Phase};
use crate::{Error, ObservationSlice, Scope, State};

/// Offsets and sizes of the observation, as named constants.
pub mod layout {
    /// Cards in the observer's hand (32).
    pub const HAND: usize = 0;
    /// Cards the observer knows were dealt to another seat and has not seen played, by
    /// relative seat: face-up dealt cards, and for the dealer his partner's face-down 4th/8th
    /// cards; a pending face-down lead the observer did not see stays listed (4 × 32).
    pub const KNOWN: usize = HAND + 32;
    /// Every card dealt face up in this deal, played or not (32).
    pub const EXPOSED: usize = KNOWN + 4 * 32;
    /// Number of 4th/8th cards each relative seat was dealt face down / 2: the dealer's side's
    /// non-Sevens, public knowledge that they are not Sevens (4).
    pub const FACE_DOWN_DEALT: usize = EXPOSED + 32;
    /// Cards in the current trick by relative seat; a face-down lead is shown only to its
    /// leader (4 × 32).
    pub const TRICK: usize = FACE_DOWN_DEALT + 4;
    /// A face-down card lies in the current trick, by relative seat (4).
    pub const FACE_DOWN: usize = TRICK + 4 * 32;
    /// Cards seen played this deal (done and current tricks), by relative seat (4 × 32).
    pub const PLAYED: usize = FACE_DOWN + 4;
    /// Leader of the current trick, one-hot relative seat (4).
    pub const LEADER: usize = PLAYED + 4 * 32;
    /// Phase one-hot: choose dealer, deal, knock, double, bid, play, stop choice, over (8).
    pub const PHASE: usize = LEADER + 4;
    /// Dealer, one-hot relative seat (4).
    pub const DEALER: usize = PHASE + 8;
    /// Declarer, one-hot relative seat, once known (4).
    pub const DECLARER: usize = DEALER + 4;
    /// Kind of deal one-hot: sevens game, bidding game (2).
    pub const KIND: usize = DECLARER + 4;
    /// Trump one-hot ♣ ♦ ♥ ♠, once fixed (4).
    pub const TRUMP: usize = KIND + 2;
    /// Number of face-up Sevens `b` / 4 (1).
    pub const BASE: usize = TRUMP + 4;
    /// Who knocked, one-hot relative seat (4).
    pub const KNOCK: usize = BASE + 1;
    /// Who doubled, one-hot relative seat (4).
    pub const DOUBLE: usize = KNOCK + 4;
    /// Auction per relative seat: passed, then bid 1..8 one-hot (4 × 9).
    pub const BIDS: usize = DOUBLE + 4;
    /// Values per seat in [`BIDS`].
    pub const BID: usize = 9;
    /// Seat to act, one-hot relative seat; zeros at chance and terminal nodes (4).
    pub const TO_ACT: usize = BIDS + 4 * BID;
    /// 1 if the declarer stopped play early (1).
    pub const STOPPED: usize = TO_ACT + 4;
    /// Card points taken per relative team / 120 (2).
    pub const CARD_POINTS: usize = STOPPED + 1;
    /// Tricks won per relative team / 8 (2).
    pub const TRICKS_WON: usize = CARD_POINTS + 2;
    /// Rams per relative team / 12 (2).
    pub const RAMS: usize = TRICKS_WON + 2;
    /// Pips per relative team / pip limit (2).
    pub const PIPS: usize = RAMS + 2;
    /// Total length: 32 + 128 + 32 + 4 + 128 + 4 + 128 + 4 + 8 + 4 + 4 + 2 + 4 + 1 + 4 + 4
    /// + 36 + 4 + 1 + 2 + 2 + 2 + 2 = 540.
    pub const TOTAL: usize = PIPS + 2;
}

use layout::*;

impl AvinasGame {
    /// The observation's length in floats, whatever the options: [`layout::TOTAL`] (for
    /// [`crate::Game::observation_shape`] and [`crate::Game::observation_len`]).
    pub(super) const OBSERVATION_LEN: usize = TOTAL;

    /// The layout as named slices with their bounds under these options (for
    /// [`crate::Game::observation_layout`]).
    ///
    /// Rams: one deal gives at most `2b × m` = 32 (`all_tricks_loss = double_loss`) or `b × m`
    /// = 16 rams (4 face-up Sevens, a doubled knock); in a match sevens games can follow each
    /// other without bound, so the rams have no finite bound (`f32::MAX`). Pips: a deal gives at
    /// most 6; a match ends after the deal that brings a side to the pip limit, so a side holds
    /// at most `pip_limit − 1 + 6`.
    pub(super) fn observation_slices(&self) -> Vec<ObservationSlice> {
        let limit = self.pip_limit as f32;
        let deal_rams = match self.all_tricks_loss {
            AllTricksLoss::DoubleLoss => 32.0,
            AllTricksLoss::DoubleBase => 16.0,
        };
        let (rams, pips) = match self.scope {
            Scope::Deal => (deal_rams / 12.0, 6.0 / limit),
            Scope::Match => (f32::MAX, (limit - 1.0 + 6.0) / limit),
        };
        let s = |name, offset, shape: &[usize], meaning, high: f32| ObservationSlice {
            name,
            offset,
            shape: shape.to_vec(),
            meaning,
            low: 0.0,
            high,
        };
        vec![
            s(
                "hand",
                HAND,
                &[32],
                "cards in the observer's hand (card ids)",
                1.0,
            ),
            s(
                "known",
                KNOWN,
                &[4, 32],
                "cards the observer knows were dealt to each relative seat and has not seen played \
                 (face-up dealt cards; for the dealer, his partner's face-down 4th/8th cards; a \
                 pending face-down lead it did not see stays listed)",
                1.0,
            ),
            s(
                "exposed",
                EXPOSED,
                &[32],
                "every card dealt face up in this deal, played or not",
                1.0,
            ),
            s(
                "face_down_dealt",
                FACE_DOWN_DEALT,
                &[4],
                "4th/8th cards each relative seat was dealt face down / 2",
                1.0,
            ),
            s(
                "trick",
                TRICK,
                &[4, 32],
                "cards in the current trick by relative seat (a face-down lead only to its leader)",
                1.0,
            ),
            s(
                "face_down",
                FACE_DOWN,
                &[4],
                "a face-down card lies in the current trick, by relative seat",
                1.0,
            ),
            s(
                "played",
                PLAYED,
                &[4, 32],
                "cards seen played this deal, by relative seat",
                1.0,
            ),
            s(
                "leader",
                LEADER,
                &[4],
                "leader of the current trick, one-hot relative seat",
                1.0,
            ),
            s(
                "phase",
                PHASE,
                &[8],
                "phase one-hot: choose dealer, deal, knock, double, bid, play, stop choice, over",
                1.0,
            ),
            s("dealer", DEALER, &[4], "dealer, one-hot relative seat", 1.0),
            s(
                "declarer",
                DECLARER,
                &[4],
                "declarer, one-hot relative seat, once known",
                1.0,
            ),
            s(
                "kind",
                KIND,
                &[2],
                "kind of deal one-hot: sevens game, bidding game",
                1.0,
            ),
            s(
                "trump",
                TRUMP,
                &[4],
                "trump suit one-hot: clubs, diamonds, hearts, spades",
                1.0,
            ),
            s("base", BASE, &[1], "number of face-up Sevens / 4", 1.0),
            s(
                "knock",
                KNOCK,
                &[4],
                "who knocked, one-hot relative seat",
                1.0,
            ),
            s(
                "double",
                DOUBLE,
                &[4],
                "who doubled, one-hot relative seat",
                1.0,
            ),
            s(
                "bids",
                BIDS,
                &[4, BID],
                "auction per relative seat: passed, then bid 1..8 one-hot",
                1.0,
            ),
            s(
                "to_act",
                TO_ACT,
                &[4],
                "seat to act, one-hot relative seat; zeros at chance and terminal nodes",
                1.0,
            ),
            s(
                "stopped",
                STOPPED,
                &[1],
                "1 if the declarer stopped play early",
                1.0,
            ),
            s(
                "card_points",
                CARD_POINTS,
                &[2],
                "card points taken per relative team / 120",
                1.0,
            ),
            s(
                "tricks_won",
                TRICKS_WON,
                &[2],
                "tricks won per relative team / 8",
                1.0,
            ),
            s("rams", RAMS, &[2], "rams per relative team / 12", rams),
            s(
                "pips",
                PIPS,
                &[2],
                "pips per relative team / pip_limit",
                pips,
            ),
        ]
    }
}

/// Writes the 32 card slots at `offset` (every slot).
#[inline]
fn cards(out: &mut [f32], offset: usize, ids: u32) {
    crate::planes::write_bits::<32>(out, offset, u64::from(ids));
}

impl AvinasState {
    /// The card of a pending face-down lead (0 if none).
    pub(super) fn face_down_card(&self) -> u32 {
        if self.face_down_pending() {
            1 << self.tricks[1][0]
        } else {
            0
        }
    }

    /// Cards `seat` has been seen to play by `viewer`.
    pub(super) fn seen_played(&self, viewer: Option<usize>, seat: usize) -> u32 {
        if viewer == Some(seat) || !self.face_down_pending() || seat != usize::from(self.leaders[1])
        {
            self.played_ids(seat)
        } else {
            self.played_ids(seat) & !self.face_down_card()
        }
    }

    /// Cards `viewer` knows that `seat` still holds (not its own hand).
    pub(super) fn known_cards(&self, viewer: Option<usize>, seat: usize) -> u32 {
        let mut known = self.exposed & self.dealt_hands[seat];
        if viewer == Some(usize::from(self.dealer)) && seat == usize::from(self.dealer + 2) & 3 {
            known |= self.hidden_special & self.dealt_hands[seat];
        }
        known & !self.seen_played(viewer, seat)
    }
}

pub(super) fn write(s: &AvinasState, seat: usize, out: &mut [f32]) -> Result<(), Error> {
    if seat >= 4 {
        return Err(Error::InvalidSeat {
            seat: seat as i64,
            last: 3,
        });
    }
    if out.len() != TOTAL {
        return Err(Error::BufferSize {
            got: out.len(),
            expected: TOTAL,
        });
    }
    // Zeroed whole first (one `memset`), though the card planes are written whole again:
    // zeroing only the trick's planes and the scalars stores less but measured no faster
    // (alternated `VectorEnv` steps, medians of 12: 4.4 M against 4.8 M a CPU second, within
    // the machine's noise) and mispredicted more branches in callgrind's simulation.
    out.fill(0.0);
    let me = Some(seat);
    let rel = |abs: usize| (abs + 4 - seat) & 3;
    let rel_team = |team: usize| (team + 2 - (seat & 1)) & 1;
    cards(out, HAND, s.hands[seat]);
    for p in 0..4 {
        cards(out, KNOWN + rel(p) * 32, s.known_cards(me, p));
        cards(out, PLAYED + rel(p) * 32, s.seen_played(me, p));
    }
    cards(out, EXPOSED, s.exposed);
    for p in 0..4 {
        let n = (s.hidden_special & s.dealt_hands[p]).count_ones();
        out[FACE_DOWN_DEALT + rel(p)] = n as f32 / 2.0;
    }
    if s.phase == Phase::Play {
        let t = usize::from(s.trick_no);
        let leader = usize::from(s.leaders[t]);
        out[LEADER + rel(leader)] = 1.0;
        for i in 0..usize::from(s.trick_len) {
            let p = (leader + i) & 3;
            if i == 0 && s.face_down_pending() {
                out[FACE_DOWN + rel(p)] = 1.0;
                if p != seat {
                    continue;
                }
            }
            out[TRICK + rel(p) * 32 + usize::from(s.tricks[t][i])] = 1.0;
        }
    }
    let phase = match s.phase {
        Phase::ChooseDealer => 0,
        Phase::Deal => 1,
        Phase::Knock => 2,
        Phase::Double => 3,
        Phase::Bid => 4,
        Phase::Play => 5,
        Phase::StopChoice => 6,
        Phase::Over => 7,
    };
    out[PHASE + phase] = 1.0;
    if s.phase != Phase::ChooseDealer {
        out[DEALER + rel(s.dealer())] = 1.0;
    }
    if let Some(d) = s.declarer() {
        out[DECLARER + rel(d)] = 1.0;
    }
    match s.kind {
        Some(Kind::Sevens) => out[KIND] = 1.0,
        Some(Kind::Bidding) => out[KIND + 1] = 1.0,
        None => {}
    }
    if s.trump < 4 {
        out[TRUMP + usize::from(s.trump)] = 1.0;
    }
    out[BASE] = f32::from(s.base) / 4.0;
    if let Some(k) = s.knock {
        out[KNOCK + rel(usize::from(k))] = 1.0;
    }
    if let Some(d) = s.double {
        out[DOUBLE + rel(usize::from(d))] = 1.0;
    }
    for p in 0..4 {
        let o = BIDS + rel(p) * BID;
        match s.bids[p] {
            0 => {}
            PASSED => out[o] = 1.0,
            n => out[o + usize::from(n)] = 1.0,
        }
    }
    if let Some(p) = s.current_player().seat() {
        out[TO_ACT + rel(p)] = 1.0;
    }
    out[STOPPED] = f32::from(u8::from(s.stopped));
    for team in 0..2 {
        let r = rel_team(team);
        out[CARD_POINTS + r] = s.card_points[team] as f32 / 120.0;
        out[TRICKS_WON + r] = f32::from(s.tricks_won[team]) / 8.0;
        out[RAMS + r] = s.rams[team] as f32 / 12.0;
        out[PIPS + r] = s.pips[team] as f32 / s.game.pip_limit as f32;
    }
    Ok(())
}
