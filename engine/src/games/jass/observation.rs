//! The observation tensor of a seat: a flat `f32` vector, seats and teams relative to the
//! observer (relative seat 0 = the observer, 1 = the next player, 2 = the partner; relative
//! team 0 = the observer's team). Cards are indexed by their card-action id (0..36).
//!
//! The length and the slices with their bounds under a game's options reach the
//! [`crate::Game`] implementation (in `options.rs`) as items of [`JassGame`] defined here
//! (`OBSERVATION_LEN`, `observation_slices`), so that `options.rs` never imports this file.

use super::{JassGame, JassState, MAX_WYS_PER_HAND, Phase, Said};
use crate::{CardSet, Error, ObservationSlice};

/// Offsets and sizes of the observation, as named constants.
pub mod layout {
    /// Cards in the observer's hand (36).
    pub const HAND: usize = 0;
    /// Cards in the current trick, by relative seat (4 × 36).
    pub const TRICK: usize = HAND + 36;
    /// Cards played this deal (tricks done and current), by relative seat (4 × 36).
    pub const PLAYED: usize = TRICK + 4 * 36;
    /// Leader of the current trick, one-hot relative seat (4).
    pub const LEADER: usize = PLAYED + 4 * 36;
    /// Phase one-hot: deal, choose mode, play, over (4).
    pub const PHASE: usize = LEADER + 4;
    /// Dealer, one-hot relative seat (4).
    pub const DEALER: usize = PHASE + 4;
    /// Mode one-hot: trump Acorns, Roses, Shields, Bells, Obenabe, Undenufe (6).
    pub const MODE: usize = DEALER + 4;
    /// 1 if the choice was pushed (schieben) (1).
    pub const PUSHED: usize = MODE + 6;
    /// Who chose the mode, one-hot relative seat (4).
    pub const CHOOSER: usize = PUSHED + 1;
    /// Seat to act, one-hot relative seat; zeros at chance and terminal nodes (4).
    pub const TO_ACT: usize = CHOOSER + 4;
    /// Wys announcements per relative seat, [`ANNOUNCEMENT`] values each (4 × 20).
    pub const WYS_ANNOUNCED: usize = TO_ACT + 4;
    /// Values per announcement: made, said "no Wys", said "good", points known, points / 300,
    /// cards known, cards / 9, top rank known, top rank one-hot (6..A, 9), trump known,
    /// trump, became best.
    pub const ANNOUNCEMENT: usize = 20;
    /// Cards of the observer's own declared Wys (36).
    pub const OWN_WYS: usize = WYS_ANNOUNCED + 4 * ANNOUNCEMENT;
    /// Points of the observer's own declared Wys / 300 (1).
    pub const OWN_WYS_POINTS: usize = OWN_WYS + 36;
    /// Cards of the Wys revealed by the Wys-winning team (36).
    pub const WYS_REVEALED: usize = OWN_WYS_POINTS + 1;
    /// Wys-winning team, one-hot relative team (2).
    pub const WYS_WINNER: usize = WYS_REVEALED + 36;
    /// Wys points scored per relative team / 300 (2).
    pub const WYS_POINTS: usize = WYS_WINNER + 2;
    /// Number of Stöck scored per relative seat (4).
    pub const STOECK: usize = WYS_POINTS + 2;
    /// Card points taken per relative team / 157 (2).
    pub const CARD_POINTS: usize = STOECK + 4;
    /// Tricks won per relative team / 9 (2).
    pub const TRICKS_WON: usize = CARD_POINTS + 2;
    /// Match scores per relative team / target score (2).
    pub const SCORES: usize = TRICKS_WON + 2;
    /// Total length: 36 + 144 + 144 + 4 + 4 + 4 + 6 + 1 + 4 + 4 + 80 + 36 + 1 + 36 + 2 + 2
    /// + 4 + 2 + 2 + 2 = 518.
    pub const TOTAL: usize = SCORES + 2;
}

use layout::*;

impl JassGame {
    /// The observation's length in floats, whatever the options: [`layout::TOTAL`] (for
    /// [`crate::Game::observation_shape`] and [`crate::Game::observation_len`]).
    pub(super) const OBSERVATION_LEN: usize = TOTAL;

    /// The layout as named slices with their bounds under these options (for
    /// [`crate::Game::observation_layout`]).
    pub(super) fn observation_slices(&self) -> Vec<ObservationSlice> {
        let max_deal = self.max_deal_score() as f32;
        let target = self.target_score as f32;
        let stoeck = if self.stoeck_any_suit { 4.0 } else { 1.0 };
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
                &[36],
                "cards in the observer's hand (card-action ids)",
                1.0,
            ),
            s(
                "trick",
                TRICK,
                &[4, 36],
                "cards in the current trick, by relative seat",
                1.0,
            ),
            s(
                "played",
                PLAYED,
                &[4, 36],
                "cards played this deal, by relative seat",
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
                &[4],
                "phase one-hot: deal, choose mode, play, over",
                1.0,
            ),
            s("dealer", DEALER, &[4], "dealer, one-hot relative seat", 1.0),
            s(
                "mode",
                MODE,
                &[6],
                "mode one-hot: trump acorns, roses, shields, bells, obenabe, undenufe",
                1.0,
            ),
            s(
                "pushed",
                PUSHED,
                &[1],
                "1 if the choice was pushed (schieben)",
                1.0,
            ),
            s(
                "chooser",
                CHOOSER,
                &[4],
                "who chose the mode, one-hot relative seat",
                1.0,
            ),
            s(
                "to_act",
                TO_ACT,
                &[4],
                "seat to act, one-hot relative seat",
                1.0,
            ),
            s(
                "wys_announced",
                WYS_ANNOUNCED,
                &[4, ANNOUNCEMENT],
                "per relative seat: made, said no Wys, said good, points known, points / 300, \
                 cards known, cards / 9, top rank known, top rank one-hot (6..A), trump known, \
                 trump, became best",
                1.0,
            ),
            s(
                "own_wys",
                OWN_WYS,
                &[36],
                "cards of the observer's declared Wys",
                1.0,
            ),
            s(
                "own_wys_points",
                OWN_WYS_POINTS,
                &[1],
                "points of the observer's declared Wys / 300",
                MAX_WYS_PER_HAND as f32 / 300.0,
            ),
            s(
                "wys_revealed",
                WYS_REVEALED,
                &[36],
                "cards of the Wys-winning team's Wys",
                1.0,
            ),
            s(
                "wys_winner",
                WYS_WINNER,
                &[2],
                "Wys-winning team, one-hot relative team",
                1.0,
            ),
            s(
                "wys_points",
                WYS_POINTS,
                &[2],
                "Wys points scored per relative team / 300",
                (2 * MAX_WYS_PER_HAND) as f32 / 300.0,
            ),
            s(
                "stoeck",
                STOECK,
                &[4],
                "Stöck scored per relative seat (a count)",
                stoeck,
            ),
            s(
                "card_points",
                CARD_POINTS,
                &[2],
                "card points per relative team / 157",
                1.0,
            ),
            s(
                "tricks_won",
                TRICKS_WON,
                &[2],
                "tricks won per relative team / 9",
                1.0,
            ),
            s(
                "scores",
                SCORES,
                &[2],
                "match scores per relative team / target_score",
                (target + max_deal) / target,
            ),
        ]
    }
}

/// Writes the 36 card slots at `offset` (every slot, so no zeroing is needed first).
#[inline]
fn cards(out: &mut [f32], offset: usize, set: CardSet) {
    card_ids(out, offset, super::pack_cards(set));
}

/// The same from a word of card-action ids (bit `id` set for card `id`): the state keeps the
/// hands in this form, so they need no conversion.
#[inline]
fn card_ids(out: &mut [f32], offset: usize, packed: u64) {
    crate::planes::write_bits::<36>(out, offset, packed);
}

pub(super) fn write(s: &JassState, seat: usize, out: &mut [f32]) -> Result<(), Error> {
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
    // Card regions are written whole; the rest is zeroed first.
    out[LEADER..OWN_WYS].fill(0.0);
    out[OWN_WYS_POINTS] = 0.0;
    out[WYS_WINNER..TOTAL].fill(0.0);
    let rel = |abs: usize| (abs + 4 - seat) % 4;
    let rel_team = |team: usize| (team + 2 - (seat & 1)) % 2;
    // The hand and the played cards as card-action id words, the form the state keeps.
    card_ids(out, HAND, s.packed[seat]);
    // The trick's planes hold at most four cards: zeroed, then set one by one.
    out[TRICK..PLAYED].fill(0.0);
    // After an immediate end in the middle of a trick its cards stay on the table (§16).
    if s.phase == Phase::Play || s.trick_len > 0 {
        let t = s.trick_no as usize;
        for (i, &c) in s.trick().iter().enumerate() {
            let p = rel((usize::from(s.leaders[t]) + i) % 4);
            out[TRICK + p * 36 + super::card_action(c) as usize] = 1.0;
        }
        out[LEADER + rel(usize::from(s.leaders[t.min(8)]))] = 1.0;
    }
    for p in 0..4 {
        card_ids(out, PLAYED + rel(p) * 36, s.played_ids(p));
    }
    let phase = match s.phase {
        Phase::Deal => 0,
        Phase::ChooseMode => 1,
        Phase::Play => 2,
        Phase::Over => 3,
    };
    out[PHASE + phase] = 1.0;
    out[DEALER + rel(s.dealer())] = 1.0;
    if let Some(m) = s.mode {
        out[MODE + m.index()] = 1.0;
        out[CHOOSER + rel(usize::from(s.chooser))] = 1.0;
    }
    if s.pushes > 0 {
        out[PUSHED] = 1.0;
    }
    if matches!(s.phase, Phase::ChooseMode | Phase::Play) {
        out[TO_ACT + rel(usize::from(s.to_act))] = 1.0;
    }
    for p in 0..4 {
        let a = &s.announcements[p];
        let o = WYS_ANNOUNCED + rel(p) * ANNOUNCEMENT;
        if !a.made {
            continue;
        }
        out[o] = 1.0;
        out[o + 1] = f32::from(u8::from(a.said == Said::NoWys));
        out[o + 2] = f32::from(u8::from(a.said == Said::Good));
        if let Some(pts) = a.points {
            out[o + 3] = 1.0;
            out[o + 4] = f32::from(pts) / 300.0;
        }
        if let Some(c) = a.cards {
            out[o + 5] = 1.0;
            out[o + 6] = f32::from(c) / 9.0;
        }
        if let Some(r) = a.top {
            out[o + 7] = 1.0;
            out[o + 8 + (r as usize).saturating_sub(4).min(8)] = 1.0;
        }
        if let Some(t) = a.trump {
            out[o + 17] = 1.0;
            out[o + 18] = f32::from(u8::from(t));
        }
        out[o + 19] = f32::from(u8::from(a.best));
    }
    let own = s.declared[seat];
    cards(out, OWN_WYS, own.cards());
    out[OWN_WYS_POINTS] = own.points(&s.game) as f32 / 300.0;
    cards(out, WYS_REVEALED, s.revealed);
    if let Some(w) = s.wys_winner {
        out[WYS_WINNER + rel_team(usize::from(w))] = 1.0;
    }
    for team in 0..2 {
        let r = rel_team(team);
        out[WYS_POINTS + r] = s.wys_points[team] as f32 / 300.0;
        out[CARD_POINTS + r] = s.card_points[team] as f32 / 157.0;
        out[TRICKS_WON + r] = f32::from(s.tricks_won[team]) / 9.0;
        out[SCORES + r] = s.scores[team] as f32 / s.game.target_score as f32;
    }
    for p in 0..4 {
        out[STOECK + rel(p)] = f32::from(s.stoeck_scored[p]);
    }
    Ok(())
}
