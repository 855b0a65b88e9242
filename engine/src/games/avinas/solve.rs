//! The exact card-play solver's Avinas rules (see [`crate::solve`]): trick play of §8 for the
//! search, the declarer's early stop (§7.4) and the end of play after a knock (§6.5) as
//! moves and ends of the search, and the deal's rams or pips (§11) as its value.
//!
//! Internal cards: the 14 trumps in one lane (the trump suit's lane), ordered 8 9 K 10 A,
//! J♦ J♥ J♠ J♣, Q♦ Q♥ Q♠, 7 of trumps, Q♣; each other suit's 6 cards in its own lane,
//! 7 8 9 K 10 A.
//!
//! **Result levels.** The deal's result for the declaring side is one of a few *levels*
//! (pips −6, −4, −2, +1, +2, +3; rams `−2b` or `+b`, times the knock's stake), and it is
//! non-decreasing in that side's card points `D` and tricks and non-increasing in the
//! defenders' (§11; `F = 120 − D − (points not yet taken)`). So for a level `L`, the
//! declaring side reaches `L` from a position exactly when `D` (its points so far) is at
//! least some `V_L` of the position alone: the least `D` that suffices. `V_L` is the value
//! of an additive game, which the generic search solves: the declaring side's tricks lower
//! it by their points, the defenders' leave it, an end of play (or a stop) gives the least
//! `D` reaching `L` with the points then untaken (tabled per level), and the declaring side
//! minimizes it (the search maximizes `U = −V_L` for that side). The table key therefore
//! holds no points taken so far, only the level and, where a rule reads them, whether each
//! side has won a trick (bit 0: the declaring side, with `schwarz_basis = tricks`; bit 1: the
//! defenders, then and after a knock). An action's result is the highest level reached,
//! found by a binary search over the levels: one null-window test `U_L >= −D` each.

use super::play::points;
use super::scoring::{bidding_pips, sevens_rams};
use super::{
    AllTricksLoss, AvinasState, CONTINUE, FACE_DOWN_BASE, Kind, NAMED_BASE, Phase, SchwarzBasis,
};
use crate::solve::{
    Config, Deck, Position, Rules, Search, Solution, Solver, TrickEnd, not_solvable,
};
use crate::{Action, Error, State};

/// Order index in the trump lane of each Queen (by lane ♣ ♦ ♥ ♠).
const QUEEN_ORDER: [u8; 4] = [13, 9, 10, 11];
/// Order index in the trump lane of each Jack (by lane ♣ ♦ ♥ ♠).
const JACK_ORDER: [u8; 4] = [8, 5, 6, 7];
/// Order index of the trump suit's own cards by rank bit (7 8 9 10 J Q K A).
const OWN_ORDER: [u8; 8] = [12, 0, 1, 3, 0, 0, 2, 4];
/// Order index of a plain suit's cards by rank bit.
const PLAIN_ORDER: [u8; 8] = [0, 1, 2, 4, 0, 0, 3, 5];

/// Context bit: the declaring side has won a trick.
const DECLARER_TRICK: u32 = 1;
/// Context bit: the defenders have won a trick.
const DEFENDER_TRICK: u32 = 2;
/// Context bits of the level (its index from [`LEVEL_SHIFT`]).
const LEVEL_SHIFT: u32 = 8;
/// A `V_L` beyond every real `D`: the level cannot be reached.
const NEVER: i16 = 500;
/// The most result levels (the bidding game's six pip results).
const MAX_LEVELS: usize = 6;

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
    /// The declaring side's possible results, ascending.
    levels: [i32; MAX_LEVELS],
    num_levels: usize,
    /// Per level, trick flags and points untaken: the least `D` reaching the level when play
    /// ends there (`end`), and when the declaring side takes every point left (`best`).
    end: [[[i16; 121]; 4]; MAX_LEVELS],
    best: [[[i16; 121]; 4]; MAX_LEVELS],
}

impl AvinasRules {
    /// The rules of `state`'s deal, with the level tables for up to `max_rem` points untaken.
    fn new(state: &AvinasState, max_rem: i32) -> Box<Self> {
        let trump = state.trump & 3;
        let mut points_of = [0u8; 64];
        for id in 0..32u8 {
            points_of[usize::from(internal(trump, id))] = points(id) as u8;
        }
        let kind = state.kind.unwrap_or(Kind::Bidding);
        let mut rules = Box::new(AvinasRules {
            deck: Deck::new(points_of, 0x3FFFu64 << (16 * u64::from(trump))),
            side: usize::from(state.declarer & 1),
            kind,
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
            levels: [0; MAX_LEVELS],
            num_levels: 0,
            end: [[[0; 121]; 4]; MAX_LEVELS],
            best: [[[0; 121]; 4]; MAX_LEVELS],
        });
        let levels: &[i32] = match kind {
            Kind::Bidding => &[-6, -4, -2, 1, 2, 3],
            Kind::Sevens => &[
                rules.result(0, 120, DEFENDER_TRICK),
                rules.result(120, 0, DECLARER_TRICK),
            ],
        };
        rules.num_levels = levels.len();
        rules.levels[..levels.len()].copy_from_slice(levels);
        for k in 0..rules.num_levels {
            for flags in 0..4u32 {
                if rules.flags(flags) != flags {
                    continue;
                }
                for rem in 0..=max_rem.clamp(0, 120) {
                    rules.end[k][flags as usize][rem as usize] = rules.least_d(k, flags, rem, 0);
                    rules.best[k][flags as usize][rem as usize] = rules.least_d(k, flags, rem, rem);
                }
            }
        }
        rules
    }

    /// The declaring side's result of a deal ending with `d` and `f` card points and these
    /// trick flags (§11).
    fn result(&self, d: i32, f: i32, flags: u32) -> i32 {
        let (against, n) = match self.kind {
            Kind::Sevens => sevens_rams(
                self.base,
                self.multiplier,
                self.knock,
                flags & DEFENDER_TRICK != 0,
                d as u32,
                self.loss,
            ),
            Kind::Bidding => bidding_pips(
                d as u32,
                f as u32,
                flags & DECLARER_TRICK,
                (flags & DEFENDER_TRICK) >> 1,
                self.basis,
            ),
        };
        if against { -(n as i32) } else { n as i32 }
    }

    /// The least `D` (points taken so far, at most `120 − rem`) with which the declaring
    /// side reaches level `k` when play ends with `rem` points untaken of which it gets
    /// `extra` more; 0 if any `D` does, [`NEVER`] if none does.
    fn least_d(&self, k: usize, flags: u32, rem: i32, extra: i32) -> i16 {
        let level = self.levels[k];
        let top = 120 - rem;
        let reaches = |d: i32| self.result(d + extra, top - d, flags) >= level;
        if !reaches(top) {
            return NEVER;
        }
        if reaches(0) {
            return 0;
        }
        // The result is non-decreasing in `d`: the least that reaches, by bisection.
        let (mut lo, mut hi) = (0, top);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if reaches(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi as i16
    }

    /// Keeps in the trick flags only those a rule reads.
    fn flags(&self, flags: u32) -> u32 {
        match (self.knock, self.basis, self.kind) {
            (_, SchwarzBasis::Tricks, Kind::Bidding) => flags & 3,
            (true, _, _) => flags & DEFENDER_TRICK,
            _ => 0,
        }
    }

    /// The value for side 0 of the declaring side's `U`.
    fn for_side0(&self, u: i32) -> i32 {
        if self.side == 0 { u } else { -u }
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

    /// `U` when play ends with context `ctx` and `rem` points untaken.
    fn end_u(&self, ctx: u32, rem: i32) -> i32 {
        let k = (ctx >> LEVEL_SHIFT) as usize % MAX_LEVELS;
        -i32::from(self.end[k][(ctx & 3) as usize][rem.clamp(0, 120) as usize])
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
            if trick < 2 {
                trumps
            } else {
                return hand;
            }
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
        let ours = winner & 1 == self.side;
        let flag = if ours { DECLARER_TRICK } else { DEFENDER_TRICK };
        TrickEnd {
            gain: self.for_side0(if ours { points } else { 0 }),
            ctx: (ctx & !3) | self.flags(ctx | flag),
            over: last || (self.knock && !ours),
        }
    }

    fn terminal(&self, ctx: u32, rem: i32) -> i32 {
        self.for_side0(self.end_u(ctx, rem))
    }

    /// At best the declaring side takes every point left (and a trick), at worst none.
    #[inline]
    fn bounds(&self, pos: &Position) -> (i32, i32) {
        let k = (pos.ctx >> LEVEL_SHIFT) as usize % MAX_LEVELS;
        let flags = pos.ctx & 3;
        let worst = -i32::from(self.end[k][self.flags(flags | DEFENDER_TRICK) as usize][0]);
        let best = -i32::from(
            self.best[k][self.flags(flags | DECLARER_TRICK) as usize]
                [pos.rem.clamp(0, 120) as usize],
        );
        if self.side == 0 {
            (worst, best)
        } else {
            (-best, -worst)
        }
    }

    fn stop(&self, pos: &Position) -> Option<(usize, i32)> {
        (self.stop_allowed && Self::tricks_done(pos) >= 1)
            .then(|| (self.side, self.terminal(pos.ctx, pos.rem)))
    }
}

impl AvinasState {
    /// The position of trick play at level 0, for a state whose trump is fixed.
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
        let side = rules.side;
        let flags = rules.flags(
            if self.tricks_won[side] > 0 {
                DECLARER_TRICK
            } else {
                0
            } | if self.tricks_won[1 - side] > 0 {
                DEFENDER_TRICK
            } else {
                0
            },
        );
        let leader = usize::from(self.leaders[t]);
        let mut pos = Position::start(hands, leader, flags, 0);
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
        pos
    }
}

/// The declaring side's result: the highest level `k` for which `reaches(k)` holds (level 0
/// always does), by bisection (reaching is monotone in the level).
fn highest_level(rules: &AvinasRules, mut reaches: impl FnMut(usize) -> bool) -> i32 {
    let (mut lo, mut hi) = (0, rules.num_levels);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if reaches(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    rules.levels[lo]
}

/// `pos` with the level `k` in its context.
fn at_level(pos: &Position, k: usize) -> Position {
    let mut p = *pos;
    p.ctx = (p.ctx & 3) | (k as u32) << LEVEL_SHIFT;
    p
}

/// The null-window test of level `k` by `test` (for side 0 at a threshold): the declaring
/// side's `U = −V_L` at least `−d`, i.e. its points so far `d` at least `V_L`.
fn reached(
    rules: &AvinasRules,
    search: &mut Search<'_, AvinasRules>,
    d: i32,
    test: impl FnOnce(&mut Search<'_, AvinasRules>, i32) -> bool,
) -> bool {
    if rules.side == 0 {
        test(search, -d)
    } else {
        // Side 0's value `−U` at most `d`.
        !test(search, d + 1)
    }
}

/// Values of the actions of a decision taken before or between the tricks, from the values
/// for side 0 of the states they lead to (`value0`), for the side of the seat to move. The
/// actions are solved in the order of `group` (actions of one group share the solver's
/// table, e.g. leads that fix the same trump) and listed in ascending order.
fn decide(
    state: &AvinasState,
    seat: usize,
    group: impl Fn(Action) -> u32,
    mut value0: impl FnMut(&AvinasState) -> Result<i32, Error>,
) -> Result<Solution, Error> {
    let sign = if seat & 1 == 0 { 1 } else { -1 };
    let mut order: Vec<Action> = state.legal_actions().iter().collect();
    order.sort_by_key(|&a| (group(a), a));
    let mut actions = Vec::with_capacity(order.len());
    for a in order {
        let mut child = state.clone();
        child.apply(a)?;
        actions.push((a, sign * value0(&child)?));
    }
    actions.sort_unstable();
    Ok(Solution::from_actions(seat, actions))
}

impl crate::solve::sealed::Solve for AvinasState {
    fn solve_with(&self, solver: &mut Solver, actions: bool) -> Result<Solution, Error> {
        let seat = usize::from(self.to_act);
        match self.phase {
            Phase::Play if self.trump < 4 => {}
            Phase::StopChoice => {}
            // Before the first lead (the knock, the double, the bidding game's opening lead,
            // which fixes trump): each action, then the states it leads to.
            Phase::Play | Phase::Knock | Phase::Double => {
                // An opening lead fixes trump: the suit of a plain card, or the one named.
                let trump = |a: Action| match a {
                    0..32 => a >> 3,
                    NAMED_BASE..96 => (a - NAMED_BASE) % 4,
                    _ => 0,
                };
                return decide(self, seat, trump, |child| {
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
        let in_play = (0..4).fold(0u32, |a, s| a | self.hands[s])
            | if self.phase == Phase::Play {
                self.tricks[usize::from(self.trick_no.min(7))][..usize::from(self.trick_len)]
                    .iter()
                    .fold(0u32, |a, &id| a | 1 << id)
            } else {
                0
            };
        let max_rem = (0..32u8)
            .filter(|&i| in_play >> i & 1 != 0)
            .map(|i| points(i) as i32)
            .sum();
        let rules = AvinasRules::new(self, max_rem);
        let pos = self.position(&rules);
        let d = self.card_points[rules.side] as i32;
        // The mover's value of the declaring side's result.
        let mover = |r: i32| if (seat & 1) == rules.side { r } else { -r };
        let config = rules.config(trump);
        let mut search = solver.search(&*rules, config);
        if self.phase == Phase::StopChoice {
            // The declarer to choose; the position is the next trick's start.
            let flags = pos.ctx & 3;
            let stop = rules.result(d, 120 - pos.rem - d, flags);
            let go_on = highest_level(&rules, |k| {
                reached(&rules, &mut search, d, |s, g| {
                    s.continue_at_least(&at_level(&pos, k), g)
                })
            });
            let list = if actions {
                self.legal_actions()
                    .iter()
                    .map(|a| (a, mover(if a == CONTINUE { go_on } else { stop })))
                    .collect()
            } else {
                Vec::new()
            };
            return Ok(Solution {
                seat,
                value: mover(go_on).max(mover(stop)),
                actions: list,
            });
        }
        if !actions {
            // In play, a trick start is past the continue-or-stop choice.
            let r = highest_level(&rules, |k| {
                let p = at_level(&pos, k);
                reached(&rules, &mut search, d, |s, g| {
                    if p.trick_len == 0 {
                        s.continue_at_least(&p, g)
                    } else {
                        s.at_least(&p, g)
                    }
                })
            });
            return Ok(Solution {
                seat,
                value: mover(r),
                actions: Vec::new(),
            });
        }
        let (_, mut reps, rep_of) = search.representatives(&pos);
        let mut results = [0i32; 64];
        while reps != 0 {
            let c = reps.trailing_zeros() as u8;
            reps &= reps - 1;
            results[usize::from(c)] = highest_level(&rules, |k| {
                reached(&rules, &mut search, d, |s, g| {
                    s.card_at_least(&at_level(&pos, k), c, g)
                })
            });
        }
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
                let c = rep_of[usize::from(internal(trump, id as u8))];
                (a, mover(results[usize::from(c)]))
            })
            .collect();
        Ok(Solution::from_actions(seat, list))
    }
}

#[cfg(test)]
mod tests {
    use super::super::trumps::{strength, trump_mask};
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
