//! The observation tensor of a seat: a flat `f32` vector, seats relative to the observer
//! (relative seat 0 = the observer, 1 = the next player clockwise, …; slots of seats beyond
//! the number of players stay 0). Cards are indexed by their action id
//! ([`super::card_action`]: `suit lane * 13 + rank index`, lanes ♣ ♦ ♥ ♠, ranks 2..A).
//!
//! The length and the slices with their bounds under a game's options reach the
//! [`crate::Game`] implementation (in `options.rs`) as items of [`CribbageGame`] defined here
//! (`OBSERVATION_LEN`, `observation_slices`), so that `options.rs` never imports this file.

use super::{CribbageGame, CribbageState, Phase, pack_cards};
use crate::{CardSet, Error, ObservationSlice, Scope};

/// Offsets and sizes of the observation, as named constants.
pub mod layout {
    /// Cards the observer holds now (52).
    pub const HAND: usize = 0;
    /// Cards the observer discarded to the crib in this deal (52).
    pub const DISCARDS: usize = HAND + 52;
    /// Cards laid in the play of this deal, by relative seat (4 × 52).
    pub const LAID: usize = DISCARDS + 52;
    /// The current series, most recent card first: one-hot rank per position, A..K (16 × 13).
    pub const SERIES: usize = LAID + 4 * 52;
    /// Positions kept of the series.
    pub const SERIES_LEN: usize = 16;
    /// The starter, once cut (52).
    pub const STARTER: usize = SERIES + SERIES_LEN * 13;
    /// The crib, once shown (52).
    pub const CRIB: usize = STARTER + 52;
    /// The count / 31 (1).
    pub const COUNT: usize = CRIB + 52;
    /// Who has said go in the current series, by relative seat (4).
    pub const SAID_GO: usize = COUNT + 1;
    /// Who laid the last card of the current series, one-hot relative seat (4).
    pub const LAST: usize = SAID_GO + 4;
    /// Phase one-hot: first dealer, deal, discard, starter, play, over (6).
    pub const PHASE: usize = LAST + 4;
    /// Dealer, one-hot relative seat (4).
    pub const DEALER: usize = PHASE + 6;
    /// Seat to act, one-hot relative seat; zeros at chance and terminal nodes (4).
    pub const TO_ACT: usize = DEALER + 4;
    /// Cards held per relative seat / 6 (4).
    pub const HAND_SIZES: usize = TO_ACT + 4;
    /// Score of each relative seat's side / target score (4).
    pub const SCORES: usize = HAND_SIZES + 4;
    /// Points of each relative seat's side in this deal / 31 (4).
    pub const DEAL_POINTS: usize = SCORES + 4;
    /// Total length: 52 + 52 + 208 + 208 + 52 + 52 + 1 + 4 + 4 + 6 + 4 + 4 + 4 + 4 + 4 = 659.
    pub const TOTAL: usize = DEAL_POINTS + 4;
}

use layout::*;

/// The most points one credit can add to a score: a hand or the crib at 29 (a laid card
/// earns at most 2 + 12 + 1, his heels 2).
const MAX_CREDIT: u32 = 29;

impl CribbageGame {
    /// The observation's length in floats, whatever the options: [`layout::TOTAL`] (for
    /// [`crate::Game::observation_shape`] and [`crate::Game::observation_len`]).
    pub(super) const OBSERVATION_LEN: usize = TOTAL;

    /// The layout as named slices with their bounds under these options (for
    /// [`crate::Game::observation_layout`]).
    ///
    /// Scores: in a match the game ends the moment a side reaches the target, so a score is at
    /// most `target − 1` plus one credit; in `scope = deal` the target does not apply and a score
    /// is the deal's points, at most [`CribbageGame::max_deal_points`]. Deal points are bounded
    /// by both.
    pub(super) fn observation_slices(&self) -> Vec<ObservationSlice> {
        let target = self.target_score;
        let max_deal = self.max_deal_points();
        let (scores, deal) = match self.scope {
            Scope::Deal => (max_deal as f32 / target as f32, max_deal),
            Scope::Match => {
                let top = target - 1 + MAX_CREDIT;
                (top as f32 / target as f32, top.min(max_deal))
            }
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
                &[52],
                "cards the observer holds now (card-action ids)",
                1.0,
            ),
            s(
                "discards",
                DISCARDS,
                &[52],
                "cards the observer discarded to the crib in this deal",
                1.0,
            ),
            s(
                "laid",
                LAID,
                &[4, 52],
                "cards laid in the play of this deal, by relative seat (unused seats 0)",
                1.0,
            ),
            s(
                "series",
                SERIES,
                &[SERIES_LEN, 13],
                "the current series, most recent card first: one-hot rank A..K per position",
                1.0,
            ),
            s("starter", STARTER, &[52], "the starter, once cut", 1.0),
            s("crib", CRIB, &[52], "the crib, once shown", 1.0),
            s("count", COUNT, &[1], "the count / 31", 1.0),
            s(
                "said_go",
                SAID_GO,
                &[4],
                "who has said go in the current series, by relative seat",
                1.0,
            ),
            s(
                "last",
                LAST,
                &[4],
                "who laid the last card of the current series, one-hot relative seat",
                1.0,
            ),
            s(
                "phase",
                PHASE,
                &[6],
                "phase one-hot: first dealer, deal, discard, starter, play, over",
                1.0,
            ),
            s("dealer", DEALER, &[4], "dealer, one-hot relative seat", 1.0),
            s(
                "to_act",
                TO_ACT,
                &[4],
                "seat to act, one-hot relative seat; zeros at chance and terminal nodes",
                1.0,
            ),
            s(
                "hand_sizes",
                HAND_SIZES,
                &[4],
                "cards held per relative seat / 6",
                1.0,
            ),
            s(
                "scores",
                SCORES,
                &[4],
                "score of each relative seat's side / target_score",
                scores,
            ),
            s(
                "deal_points",
                DEAL_POINTS,
                &[4],
                "points of each relative seat's side in this deal / 31",
                deal as f32 / 31.0,
            ),
        ]
    }
}

/// Writes the 52 card slots at `offset` (every slot) of a plane that is empty in most steps
/// (discards, cards laid, starter, crib).
#[inline]
fn cards(out: &mut [f32], offset: usize, set: CardSet) {
    crate::planes::write_sparse_bits::<52>(out, offset, pack_cards(set));
}

pub(super) fn write(s: &CribbageState, seat: usize, out: &mut [f32]) -> Result<(), Error> {
    let n = usize::from(s.game.players);
    if seat >= n {
        return Err(Error::InvalidSeat {
            seat: seat as i64,
            last: n - 1,
        });
    }
    if out.len() != TOTAL {
        return Err(Error::BufferSize {
            got: out.len(),
            expected: TOTAL,
        });
    }
    let rel = |abs: usize| (abs + n - seat) % n;
    crate::planes::write_bits::<52>(out, HAND, pack_cards(s.hands[seat]));
    cards(out, DISCARDS, s.discards[seat]);
    for r in 0..4 {
        let laid = if r < n {
            s.laid((seat + r) % n)
        } else {
            CardSet::EMPTY
        };
        cards(out, LAID + 52 * r, laid);
    }
    out[SERIES..STARTER].fill(0.0);
    let in_play = s.pegging_shown();
    if in_play {
        let len = usize::from(s.series_len).min(SERIES_LEN);
        for k in 0..len {
            let rank = usize::from(s.series[usize::from(s.series_len) - 1 - k]);
            out[SERIES + 13 * k + rank] = 1.0;
        }
    }
    cards(
        out,
        STARTER,
        s.starter.map_or(CardSet::EMPTY, CardSet::single),
    );
    let crib_shown = s.shown > s.game.players;
    cards(out, CRIB, if crib_shown { s.crib } else { CardSet::EMPTY });
    out[COUNT..TOTAL].fill(0.0);
    if in_play {
        out[COUNT] = f32::from(s.count) / 31.0;
        for p in 0..n {
            if s.said_go >> p & 1 == 1 {
                out[SAID_GO + rel(p)] = 1.0;
            }
        }
        if s.series_len > 0 {
            out[LAST + rel(usize::from(s.last))] = 1.0;
        }
    }
    let phase = match s.phase {
        Phase::FirstDealer => 0,
        Phase::Deal => 1,
        Phase::Discard => 2,
        Phase::Starter => 3,
        Phase::Play => 4,
        Phase::Over => 5,
    };
    out[PHASE + phase] = 1.0;
    if s.phase != Phase::FirstDealer {
        out[DEALER + rel(usize::from(s.dealer))] = 1.0;
    }
    if let Some(p) = crate::State::current_player(s).seat() {
        out[TO_ACT + rel(p)] = 1.0;
    }
    let target = s.game.target_score as f32;
    for p in 0..n {
        let side = s.game.side(p);
        out[HAND_SIZES + rel(p)] = s.hands[p].len() as f32 / 6.0;
        out[SCORES + rel(p)] = s.scores[side] as f32 / target;
        out[DEAL_POINTS + rel(p)] = s.deal_points[side] as f32 / 31.0;
    }
    Ok(())
}
