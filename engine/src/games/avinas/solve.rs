//! The exact card-play solver's Avinas rules (see [`crate::solve`]): trick play of §8 for the
//! search, the declarer's early stop (§7.4) and the end of play after a knock (§6.5) as
//! moves and ends of the search, and the deal's rams or pips (§11) as its value.
//!
//! Internal cards: the 14 trumps in one lane (the trump suit's lane), ordered 8 9 K 10 A,
//! J♦ J♥ J♠ J♣, Q♦ Q♥ Q♠, 7 of trumps, Q♣; each other suit's 6 cards in its own lane,
//! 7 8 9 K 10 A. Every value is the deal's result (rams or pips, `+n` for the side that
//! gains) and is only known at the end of play, so the search's gains are 0 and the
//! context word carries what the result depends on: the declaring side's card points `D`
//! (bits 0..8; capped at 61 in a sevens game, where only `D >= 61` matters) and whether
//! each side has won a trick (bit 8: the declaring side, bit 9: the defenders; kept only
//! where a rule reads it: `schwarz_basis = tricks`, and a knock's end). The defenders'
//! points follow: `F = 120 - D - (points not yet taken)`.

use super::play::points;
use super::scoring::{bidding_pips, sevens_rams};
use super::{AllTricksLoss, AvinasState, CONTINUE, FACE_DOWN_BASE, Kind, Phase, SchwarzBasis};
use crate::solve::{
    Config, Deck, Position, Rules, Solution, Solver, TrickEnd, decide, not_solvable,
};
use crate::{Error, State};

/// Order index in the trump lane of each Queen (by lane ♣ ♦ ♥ ♠).
const QUEEN_ORDER: [u8; 4] = [13, 9, 10, 11];
/// Order index in the trump lane of each Jack (by lane ♣ ♦ ♥ ♠).
const JACK_ORDER: [u8; 4] = [8, 5, 6, 7];
/// Order index of the trump suit's own cards by rank bit (7 8 9 10 J Q K A).
const OWN_ORDER: [u8; 8] = [12, 0, 1, 3, 0, 0, 2, 4];
/// Order index of a plain suit's cards by rank bit.
const PLAIN_ORDER: [u8; 8] = [0, 1, 2, 4, 0, 0, 3, 5];

/// Context bit: the declaring side has won a trick.
const DECLARER_TRICK: u32 = 1 << 8;
/// Context bit: the defenders have won a trick.
const DEFENDER_TRICK: u32 = 1 << 9;

/// The internal card of card id `id` with trump lane `trump`.
fn internal(trump: u8, id: u8) -> u8 {
    let lane = usize::from(id >> 3);
    let r = usize::from(id & 7);
    let t = trump * 16;
    match r {
        5 => t + QUEEN_ORDER[lane],
        4 => t + JACK_ORDER[lane],
        _ if lane == usize::from(trump) => t + OWN_ORDER[r],
        _ => (lane * 16) as u8 + PLAIN_ORDER[r],
    }
}

/// Avinas trick play of one deal (trump, kind, declarer and stakes fixed), for the search.
#[derive(Clone, Debug)]
struct AvinasRules {
    deck: Deck,
    /// The declaring side (0 or 1).
    side: usize,
    kind: Kind,
    base: u32,
    multiplier: u32,
    knock: bool,
    loss: AllTricksLoss,
    basis: SchwarzBasis,
    stop_allowed: bool,
}

impl AvinasRules {
    fn new(state: &AvinasState) -> Self {
        let trump = state.trump & 3;
        let mut points_of = [0u8; 64];
        for id in 0..32u8 {
            points_of[usize::from(internal(trump, id))] = points(id) as u8;
        }
        AvinasRules {
            deck: Deck::new(points_of, 0x3FFFu64 << (16 * u64::from(trump))),
            side: usize::from(state.declarer & 1),
            kind: state.kind.unwrap_or(Kind::Bidding),
            base: u32::from(state.base),
            multiplier: match (state.knock, state.double) {
                (None, _) => 1,
                (Some(_), None) => 2,
                (Some(_), Some(_)) => 4,
            },
            knock: state.knock.is_some(),
            loss: state.game.all_tricks_loss,
            basis: state.game.schwarz_basis,
            stop_allowed: state.stop_allowed,
        }
    }

    /// Keeps in the context word only what the result depends on, so that positions that
    /// differ elsewhere share table entries.
    fn normalize(&self, ctx: u32) -> u32 {
        let d = ctx & 0xFF;
        match (self.kind, self.knock, self.basis) {
            // A knock's end comes at the defenders' first trick: nothing else counts.
            (Kind::Sevens, true, _) => ctx & DEFENDER_TRICK,
            (Kind::Sevens, false, _) => d.min(61),
            (Kind::Bidding, _, SchwarzBasis::CardPoints) => d,
            (Kind::Bidding, _, SchwarzBasis::Tricks) => {
                ctx & (0xFF | DECLARER_TRICK | DEFENDER_TRICK)
            }
        }
    }

    /// The rules' fixed parameters, for the solver's table.
    fn config(&self, trump: u8) -> Config {
        [
            3,
            u32::from(trump)
                | u32::from(self.kind == Kind::Sevens) << 2
                | (self.side as u32) << 3
                | u32::from(self.knock) << 4
                | u32::from(self.stop_allowed) << 5
                | u32::from(self.basis == SchwarzBasis::Tricks) << 6
                | u32::from(self.loss == AllTricksLoss::DoubleBase) << 7,
            self.base | self.multiplier << 8,
            0,
        ]
    }

    /// Number of tricks completed at `pos`.
    fn tricks_done(pos: &Position) -> usize {
        8 - (pos.in_hands().count_ones() as usize + usize::from(pos.trick_len)) / 4
    }
}

impl Rules for AvinasRules {
    const PLAYERS: usize = 4;

    fn deck(&self) -> &Deck {
        &self.deck
    }

    /// §8: tricks 1 and 2 are led with a trump (at trick 2 only if the leader holds one);
    /// at trick 2 everybody holding a trump plays one; otherwise the effective suit led is
    /// followed if possible.
    #[inline]
    fn legal(&self, pos: &Position) -> u64 {
        let hand = pos.hands[pos.mover(4)];
        let trick = Self::tricks_done(pos);
        let trumps = self.deck.trumps();
        let must = if pos.trick_len == 0 {
            if trick < 2 { trumps } else { return hand }
        } else if trick == 1 {
            trumps
        } else {
            0xFFFF << (pos.trick[0] & 0x30)
        };
        let f = hand & must;
        if f != 0 { f } else { hand }
    }

    #[inline]
    fn after_trick(&self, ctx: u32, winner: usize, points: i32, last: bool) -> TrickEnd {
        let (ctx, over) = if winner & 1 == self.side {
            (
                (ctx & !0xFF) | ((ctx & 0xFF) + points as u32) | DECLARER_TRICK,
                last,
            )
        } else {
            (ctx | DEFENDER_TRICK, last || self.knock)
        };
        TrickEnd {
            gain: 0,
            ctx: self.normalize(ctx),
            over,
        }
    }

    /// The deal's result for side 0 when play ends with context `ctx` and `rem` card points
    /// untaken.
    fn terminal(&self, ctx: u32, rem: i32) -> i32 {
        let d = ctx & 0xFF;
        let (against_declarer, n) = match self.kind {
            Kind::Sevens => sevens_rams(
                self.base,
                self.multiplier,
                self.knock,
                ctx & DEFENDER_TRICK != 0,
                d,
                self.loss,
            ),
            Kind::Bidding => bidding_pips(
                d,
                (120 - rem - d as i32) as u32,
                u32::from(ctx & DECLARER_TRICK != 0),
                u32::from(ctx & DEFENDER_TRICK != 0),
                self.basis,
            ),
        };
        let declarers = if against_declarer {
            -(n as i32)
        } else {
            n as i32
        };
        if self.side == 0 {
            declarers
        } else {
            -declarers
        }
    }

    /// The declaring side's result is non-decreasing in its points and tricks and
    /// non-increasing in the defenders': its best is every card point still in play to it,
    /// its worst every one to the defenders.
    #[inline]
    fn bounds(&self, pos: &Position) -> (i32, i32) {
        let ctx = pos.ctx;
        let best = self.normalize((ctx & !0xFF) | ((ctx & 0xFF) + pos.rem as u32) | DECLARER_TRICK);
        let worst = self.normalize(ctx | DEFENDER_TRICK);
        let (lo, hi) = (self.terminal(worst, 0), self.terminal(best, 0));
        if self.side == 0 { (lo, hi) } else { (hi, lo) }
    }

    fn stop(&self, pos: &Position) -> Option<(usize, i32)> {
        (self.stop_allowed && Self::tricks_done(pos) >= 1)
            .then(|| (self.side, self.terminal(pos.ctx, pos.rem)))
    }
}

impl AvinasState {
    /// The position of trick play, for a state whose trump is fixed.
    fn position(&self, rules: &AvinasRules) -> Position {
        let trump = self.trump & 3;
        let t = usize::from(self.trick_no.min(7));
        let mut hands = [0u64; 4];
        let mut ids = 0u32;
        for (seat, hand) in hands.iter_mut().enumerate() {
            let mut h = self.hands[seat];
            ids |= h;
            while h != 0 {
                *hand |= 1 << internal(trump, h.trailing_zeros() as u8);
                h &= h - 1;
            }
        }
        let leader = usize::from(self.leaders[t]);
        let mut pos = Position::start(hands, leader, 0, 0);
        if self.phase == Phase::Play {
            for (k, &id) in self.tricks[t][..usize::from(self.trick_len)]
                .iter()
                .enumerate()
            {
                pos = pos.with_card(&rules.deck, (leader + k) & 3, internal(trump, id));
                ids |= 1 << id;
            }
        }
        pos.rem = (0..32u8)
            .filter(|&i| ids >> i & 1 != 0)
            .map(|i| points(i) as i32)
            .sum();
        let side = rules.side;
        pos.ctx = rules.normalize(
            self.card_points[side]
                | if self.tricks_won[side] > 0 {
                    DECLARER_TRICK
                } else {
                    0
                }
                | if self.tricks_won[1 - side] > 0 {
                    DEFENDER_TRICK
                } else {
                    0
                },
        );
        pos
    }
}

impl crate::solve::sealed::Solve for AvinasState {
    fn solve_with(&self, solver: &mut Solver, actions: bool) -> Result<Solution, Error> {
        let seat = usize::from(self.to_act);
        let sign = if seat & 1 == 0 { 1 } else { -1 };
        match self.phase {
            Phase::Play if self.trump < 4 => {}
            Phase::StopChoice => {}
            // Before the first lead (the knock, the double, the bidding game's opening lead,
            // which fixes trump): each action, then the states it leads to.
            Phase::Play | Phase::Knock | Phase::Double => {
                return decide(self, seat, |child| {
                    let s = child.solve_with(solver, false)?;
                    Ok(if s.seat & 1 == 0 { s.value } else { -s.value })
                });
            }
            _ => {
                return Err(not_solvable(
                    "avinas",
                    &format!("it is in the {:?} phase", self.phase),
                    "trick play, the continue-or-stop choice, or the knock or double before it",
                ));
            }
        }
        let trump = self.trump & 3;
        let rules = AvinasRules::new(self);
        let pos = self.position(&rules);
        let config = rules.config(trump);
        let mut search = solver.search(&rules, config);
        if self.phase == Phase::StopChoice {
            // The declarer to choose; the position is the next trick's start.
            let stop = rules.terminal(pos.ctx, pos.rem);
            let go_on = search.continue_value(&pos, stop);
            let list = if actions {
                self.legal_actions()
                    .iter()
                    .map(|a| (a, sign * if a == CONTINUE { go_on } else { stop }))
                    .collect()
            } else {
                Vec::new()
            };
            return Ok(Solution {
                seat,
                value: (sign * go_on).max(sign * stop),
                actions: list,
            });
        }
        if !actions {
            // In play, a trick start is past the continue-or-stop choice.
            let v = if pos.trick_len == 0 {
                search.continue_value(&pos, 0)
            } else {
                search.value(&pos, 0)
            };
            return Ok(Solution {
                seat,
                value: sign * v,
                actions: Vec::new(),
            });
        }
        let (_, values) = search.card_values(&pos, 0);
        let list = self
            .legal_actions()
            .iter()
            .map(|a| {
                // A face-down lead is the same card in play.
                let id = if a >= FACE_DOWN_BASE {
                    a - FACE_DOWN_BASE
                } else {
                    a
                };
                (a, sign * values[usize::from(internal(trump, id as u8))])
            })
            .collect();
        Ok(Solution::from_actions(seat, list))
    }
}

#[cfg(test)]
mod tests {
    use super::super::play::{strength, trump_mask};
    use super::*;

    #[test]
    fn internal_order_follows_the_trick_strengths() {
        for trump in 0..4u8 {
            let tmask = trump_mask(trump);
            for a in 0..32u8 {
                for b in 0..32u8 {
                    let (ia, ib) = (internal(trump, a), internal(trump, b));
                    let a_trump = tmask >> a & 1 != 0;
                    // Same internal lane iff same effective suit.
                    let same = if a_trump {
                        tmask >> b & 1 != 0
                    } else {
                        tmask >> b & 1 == 0 && a >> 3 == b >> 3
                    };
                    assert_eq!(ia >> 4 == ib >> 4, same, "{a} {b}");
                    if same && a != b {
                        let led = if a_trump { 4 } else { a >> 3 };
                        assert_eq!(ia > ib, strength(trump, led, a) > strength(trump, led, b));
                    }
                }
            }
        }
    }
}
