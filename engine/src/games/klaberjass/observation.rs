//! The observation tensor of a seat: a flat `f32` vector, seats relative to the observer
//! (relative seat 0 = the observer, 1 = the opponent). Cards are indexed by their card-action
//! id (0..32).
//!
//! The length and the slices with their bounds under a game's options reach the
//! [`crate::Game`] implementation (in `options.rs`) as items of [`KlaberjassGame`] defined here
//! (`OBSERVATION_LEN`, `observation_slices`), so that `options.rs` never imports this file.

use super::{
    KlaberjassGame, KlaberjassState, MakerTieRule, NAME_BASE, PASS, Phase, Reply, TAKE, pack_cards,
};
use crate::{CardSet, Error, ObservationSlice, Scope, State};

/// Offsets and sizes of the observation, as named constants.
pub mod layout {
    /// Cards in the observer's hand (32).
    pub const HAND: usize = 0;
    /// The face-up card beside the stock: the turn-up, or the trump 7 after an exchange (32).
    pub const TURN_UP: usize = HAND + 32;
    /// The bottom card of the stock, once turned (32).
    pub const BOTTOM: usize = TURN_UP + 32;
    /// Cards the opponent is known to hold: a turn-up he took, his shown sequences (32).
    pub const OPPONENT_KNOWN: usize = BOTTOM + 32;
    /// Cards in the current trick, by relative seat (2 × 32).
    pub const TRICK: usize = OPPONENT_KNOWN + 32;
    /// Cards played this deal, by relative seat (2 × 32).
    pub const PLAYED: usize = TRICK + 2 * 32;
    /// Cards of the observer's own declared sequences (32).
    pub const OWN_DECLARED: usize = PLAYED + 2 * 32;
    /// Cards of the sequences shown by the sequence winner (32).
    pub const SHOWN: usize = OWN_DECLARED + 32;
    /// Phase one-hot: cut, deal, bid turn-up, bid other suit, second deal, exchange 1,
    /// announce, exchange 2, play, over (10).
    pub const PHASE: usize = SHOWN + 32;
    /// Dealer, one-hot relative seat; zeros before the cut (2).
    pub const DEALER: usize = PHASE + 10;
    /// Seat to act, one-hot relative seat; zeros at chance and terminal nodes (2).
    pub const TO_ACT: usize = DEALER + 2;
    /// Leader of the current trick, one-hot relative seat (2).
    pub const LEADER: usize = TO_ACT + 2;
    /// Passes per relative seat in round 1 and round 2: `[seat 0 r1, seat 0 r2, seat 1 r1,
    /// seat 1 r2]` (4).
    pub const PASSES: usize = LEADER + 2;
    /// Maker, one-hot relative seat (2).
    pub const MAKER: usize = PASSES + 4;
    /// Trump suit one-hot ♣ ♦ ♥ ♠ (4).
    pub const TRUMP: usize = MAKER + 2;
    /// Who exchanged the trump 7, one-hot relative seat (2).
    pub const EXCHANGED: usize = TRUMP + 4;
    /// Elder's announced value one-hot: none, 20, 50 (3).
    pub const ELDER_VALUE: usize = EXCHANGED + 2;
    /// Younger's reply one-hot: good, not good, equal (3).
    pub const REPLY: usize = ELDER_VALUE + 3;
    /// Elder's top rank one-hot 7..A, said after `equal` (8).
    pub const ELDER_TOP: usize = REPLY + 3;
    /// Younger's second reply one-hot: good, not good, equal (3).
    pub const SECOND_REPLY: usize = ELDER_TOP + 8;
    /// Who said "in trumps", one-hot relative seat (2).
    pub const IN_TRUMPS: usize = SECOND_REPLY + 3;
    /// Sequence winner, one-hot relative seat (2).
    pub const SEQUENCE_WINNER: usize = IN_TRUMPS + 2;
    /// Sequence points scored per relative seat / 100 (2).
    pub const SEQUENCE_POINTS: usize = SEQUENCE_WINNER + 2;
    /// Points of the observer's own declaration / 100 (1).
    pub const OWN_DECLARED_POINTS: usize = SEQUENCE_POINTS + 2;
    /// Bella scored per relative seat (2).
    pub const BELLA: usize = OWN_DECLARED_POINTS + 1;
    /// Card points taken per relative seat / 162 (2).
    pub const CARD_POINTS: usize = BELLA + 2;
    /// Tricks won per relative seat / 9 (2).
    pub const TRICKS_WON: usize = CARD_POINTS + 2;
    /// Cumulative scores per relative seat / target score (2).
    pub const SCORES: usize = TRICKS_WON + 2;
    /// Held-over points (`maker_tie_rule = hang`) / target score (1).
    pub const HELD_OVER: usize = SCORES + 2;
    /// Total length: 32 × 4 + 64 + 64 + 32 + 32 + 10 + 2 + 2 + 2 + 4 + 2 + 4 + 2 + 3 + 3 + 8
    /// + 3 + 2 + 2 + 2 + 1 + 2 + 2 + 2 + 2 + 1 = 381.
    pub const TOTAL: usize = HELD_OVER + 1;
}

use layout::*;

/// The most sequence points one hand can hold: nine cards make at most two runs of four or
/// more (50 each), or three runs of three (60).
const MAX_SEQUENCE_POINTS: u32 = 100;

/// Card points of the whole pack with any trump (§3.3); only 18 of its cards are played.
const PACK_POINTS: u32 = 152;

impl KlaberjassGame {
    /// The observation's length in floats, whatever the options: [`layout::TOTAL`] (for
    /// [`crate::Game::observation_shape`] and [`crate::Game::observation_len`]).
    pub(super) const OBSERVATION_LEN: usize = TOTAL;

    /// The layout as named slices with their bounds under these options (for
    /// [`crate::Game::observation_layout`]).
    ///
    /// Scores: a deal adds at most `T` (both players' deal totals: card points, the last trick,
    /// one player's sequences, Bella) to one score; in `scope = deal` the one deal's addition is
    /// the score. In a match a deal starts only while both scores are below the target or tie at
    /// or above it, and a deal after such a tie leaves the scores unequal unless it is annulled or
    /// (`hang`) tied, which add nothing: so a score stays below `target + 2T`. With
    /// `maker_tie_rule = hang` tied deals can follow each other without bound, each setting more
    /// points aside: the held-over points, and the score that finally receives them, have no
    /// finite bound (`f32::MAX`). Without `hang` nothing is ever held over; that slice is still
    /// given the bound of one deal, `T`, so that no slice has equal bounds (Gymnasium warns on a
    /// `Box` whose low and high are equal).
    pub(super) fn observation_slices(&self) -> Vec<ObservationSlice> {
        let target = self.target_score as f32;
        let deal_total = (PACK_POINTS + self.last_trick_bonus + MAX_SEQUENCE_POINTS + 20) as f32;
        let hang = self.maker_tie_rule == MakerTieRule::Hang;
        let (scores, held_over) = match (self.scope, hang) {
            (Scope::Deal, _) => (deal_total / target, deal_total / target),
            (Scope::Match, false) => ((target + 2.0 * deal_total) / target, deal_total / target),
            (Scope::Match, true) => (f32::MAX, f32::MAX),
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
                "cards in the observer's hand (card-action ids)",
                1.0,
            ),
            s(
                "turn_up",
                TURN_UP,
                &[32],
                "the face-up card beside the stock: the turn-up, or the trump 7 after an exchange",
                1.0,
            ),
            s(
                "bottom",
                BOTTOM,
                &[32],
                "the bottom card of the stock, once turned",
                1.0,
            ),
            s(
                "opponent_known",
                OPPONENT_KNOWN,
                &[32],
                "cards the opponent is known to hold: a turn-up he took, his shown sequences",
                1.0,
            ),
            s(
                "trick",
                TRICK,
                &[2, 32],
                "cards in the current trick, by relative seat",
                1.0,
            ),
            s(
                "played",
                PLAYED,
                &[2, 32],
                "cards played this deal, by relative seat",
                1.0,
            ),
            s(
                "own_declared",
                OWN_DECLARED,
                &[32],
                "cards of the observer's declared sequences (committed or chosen so far)",
                1.0,
            ),
            s(
                "shown",
                SHOWN,
                &[32],
                "cards of the sequences shown by the sequence winner",
                1.0,
            ),
            s(
                "phase",
                PHASE,
                &[10],
                "phase one-hot: cut, deal, bid turn-up, bid other suit, second deal, exchange 1, \
                 announce, exchange 2, play, over",
                1.0,
            ),
            s(
                "dealer",
                DEALER,
                &[2],
                "dealer, one-hot relative seat; zeros before the cut",
                1.0,
            ),
            s(
                "to_act",
                TO_ACT,
                &[2],
                "seat to act, one-hot relative seat; zeros at chance and terminal nodes",
                1.0,
            ),
            s(
                "leader",
                LEADER,
                &[2],
                "leader of the current trick, one-hot relative seat",
                1.0,
            ),
            s(
                "passes",
                PASSES,
                &[2, 2],
                "passes per relative seat in bidding round 1 and round 2",
                1.0,
            ),
            s("maker", MAKER, &[2], "maker, one-hot relative seat", 1.0),
            s(
                "trump",
                TRUMP,
                &[4],
                "trump suit one-hot: clubs, diamonds, hearts, spades",
                1.0,
            ),
            s(
                "exchanged",
                EXCHANGED,
                &[2],
                "who exchanged the trump 7, one-hot relative seat",
                1.0,
            ),
            s(
                "elder_value",
                ELDER_VALUE,
                &[3],
                "elder's announced value one-hot: none, 20, 50",
                1.0,
            ),
            s(
                "reply",
                REPLY,
                &[3],
                "younger's reply one-hot: good, not good, equal",
                1.0,
            ),
            s(
                "elder_top",
                ELDER_TOP,
                &[8],
                "elder's top rank one-hot 7..A, said after equal",
                1.0,
            ),
            s(
                "second_reply",
                SECOND_REPLY,
                &[3],
                "younger's second reply one-hot: good, not good, equal",
                1.0,
            ),
            s(
                "in_trumps",
                IN_TRUMPS,
                &[2],
                "who said in trumps, one-hot relative seat",
                1.0,
            ),
            s(
                "sequence_winner",
                SEQUENCE_WINNER,
                &[2],
                "sequence winner, one-hot relative seat",
                1.0,
            ),
            s(
                "sequence_points",
                SEQUENCE_POINTS,
                &[2],
                "sequence points scored per relative seat / 100",
                MAX_SEQUENCE_POINTS as f32 / 100.0,
            ),
            s(
                "own_declared_points",
                OWN_DECLARED_POINTS,
                &[1],
                "points of the observer's own declaration / 100",
                MAX_SEQUENCE_POINTS as f32 / 100.0,
            ),
            s(
                "bella",
                BELLA,
                &[2],
                "1 if Bella was scored, per relative seat",
                1.0,
            ),
            s(
                "card_points",
                CARD_POINTS,
                &[2],
                "card points taken per relative seat / 162 (the last trick not included)",
                PACK_POINTS as f32 / 162.0,
            ),
            s(
                "tricks_won",
                TRICKS_WON,
                &[2],
                "tricks won per relative seat / 9",
                1.0,
            ),
            s(
                "scores",
                SCORES,
                &[2],
                "cumulative scores per relative seat / target_score (scope = deal: the deal's points at its end)",
                scores,
            ),
            s(
                "held_over",
                HELD_OVER,
                &[1],
                "points set aside by maker_tie_rule = hang / target_score",
                held_over,
            ),
        ]
    }
}

/// Writes the 32 card slots at `offset` (every slot).
#[inline]
fn cards(out: &mut [f32], offset: usize, set: CardSet) {
    // Card id `8 * suit + rank - 5` (see `pack_cards`): the set's suit lanes as they are.
    // Klaberjass's planes are empty, or not, by phase alike in every deal: the test first.
    crate::planes::write_sparse_suit_lanes::<8, 5>(out, offset, set.bits());
    debug_assert!((0..32).all(|i| out[offset + i] == (pack_cards(set) >> i & 1) as f32));
}

fn reply_index(r: Reply) -> usize {
    match r {
        Reply::Good => 0,
        Reply::NotGood => 1,
        Reply::Equal => 2,
    }
}

pub(super) fn write(s: &KlaberjassState, seat: usize, out: &mut [f32]) -> Result<(), Error> {
    if seat >= 2 {
        return Err(Error::InvalidSeat {
            seat: seat as i64,
            last: 1,
        });
    }
    if out.len() != TOTAL {
        return Err(Error::BufferSize {
            got: out.len(),
            expected: TOTAL,
        });
    }
    out[PHASE..TOTAL].fill(0.0);
    let rel = |abs: usize| abs ^ seat;
    let opp = 1 - seat;
    crate::planes::write_bits::<32>(out, HAND, s.packed[seat]);
    cards(
        out,
        TURN_UP,
        s.turn_up.map_or(CardSet::EMPTY, CardSet::single),
    );
    cards(
        out,
        BOTTOM,
        s.bottom.map_or(CardSet::EMPTY, CardSet::single),
    );
    cards(out, OPPONENT_KNOWN, s.known_cards_of(opp));
    let mut in_trick = [CardSet::EMPTY; 2];
    if s.phase == Phase::Play {
        let t = usize::from(s.trick_no);
        for (i, c) in s.trick().enumerate() {
            in_trick[rel((usize::from(s.leaders[t]) + i) & 1)] = CardSet::single(c);
        }
        out[LEADER + rel(usize::from(s.leaders[t.min(8)]))] = 1.0;
    }
    for (p, &set) in in_trick.iter().enumerate() {
        cards(out, TRICK + p * 32, set);
    }
    for p in 0..2 {
        cards(out, PLAYED + rel(p) * 32, s.played_by(p));
    }
    // Own declaration: committed, or the items chosen so far.
    let own = if s.phase == Phase::Announce && s.to_act == seat as u8 {
        super::Declaration::of(
            s.hand(seat),
            s.items[seat],
            s.trump.unwrap_or(crate::Suit::Clubs),
        )
    } else {
        s.declarations[seat]
    };
    cards(out, OWN_DECLARED, own.cards);
    cards(out, SHOWN, s.shown);
    let phase = super::Phase::ALL
        .iter()
        .position(|&p| p == s.phase)
        .unwrap_or(0);
    out[PHASE + phase] = 1.0;
    if s.phase != Phase::Cut {
        out[DEALER + rel(s.dealer())] = 1.0;
    }
    if let Some(p) = s.current_player().seat() {
        out[TO_ACT + rel(p)] = 1.0;
    }
    let elder = s.elder();
    for (i, &b) in s.bids[..usize::from(s.num_bids)].iter().enumerate() {
        let bidder = if i % 2 == 0 { elder } else { 1 - elder };
        if u32::from(b) == PASS {
            out[PASSES + rel(bidder) * 2 + i / 2] = 1.0;
        }
        debug_assert!(u32::from(b) == PASS || u32::from(b) == TAKE || u32::from(b) >= NAME_BASE);
    }
    if let Some(t) = s.trump {
        out[MAKER + rel(usize::from(s.maker))] = 1.0;
        out[TRUMP + t as usize] = 1.0;
    }
    if let Some((p, _)) = s.exchanged {
        out[EXCHANGED + rel(usize::from(p))] = 1.0;
    }
    let a = &s.announcement;
    if let Some(v) = a.elder_value {
        out[ELDER_VALUE + (v as usize / 20).min(2)] = 1.0;
    }
    if let Some(r) = a.reply {
        out[REPLY + reply_index(r)] = 1.0;
    }
    if let Some(r) = a.elder_top {
        out[ELDER_TOP + (r as usize).saturating_sub(5).min(7)] = 1.0;
    }
    if let Some(r) = a.second_reply {
        out[SECOND_REPLY + reply_index(r)] = 1.0;
    }
    if let Some(p) = a.in_trumps {
        out[IN_TRUMPS + rel(usize::from(p))] = 1.0;
    }
    if let Some(p) = a.winner {
        out[SEQUENCE_WINNER + rel(usize::from(p))] = 1.0;
    }
    out[OWN_DECLARED_POINTS] = own.points as f32 / 100.0;
    let target = s.game.target_score as f32;
    for p in 0..2 {
        let r = rel(p);
        out[SEQUENCE_POINTS + r] = s.seq_points[p] as f32 / 100.0;
        out[BELLA + r] = f32::from(u8::from(s.bella[p]));
        out[CARD_POINTS + r] = s.card_points[p] as f32 / 162.0;
        out[TRICKS_WON + r] = f32::from(s.tricks_won[p]) / 9.0;
        out[SCORES + r] = s.scores[p] as f32 / target;
    }
    out[HELD_OVER] = s.held_over as f32 / target;
    Ok(())
}
