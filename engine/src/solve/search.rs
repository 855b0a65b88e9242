//! The generic exact search over tricks: fail-soft alpha-beta with null windows, a
//! transposition table at trick starts, equivalent cards merged, and move ordering.
//!
//! A game describes its trick play to the search through [`Rules`] on an internal
//! [`Position`]: cards are bits `lane * 16 + order`, one lane per suit (the trumps of a game
//! with permanent trumps, like Avinas's Queens and Jacks, are one lane), and within a lane a
//! higher bit beats a lower one. The trick winner is then the highest trump played, else the
//! highest card of the lane led, for every game.
//!
//! Values are integers **from the position to the end of the deal**, for **side 0** (seats 0
//! and 2, or seat 0 of two) in [`Rules`]' terms; the search itself works with values for the
//! side to move (negamax: the side to move changes at every card within a trick, and the
//! winner leads the next).
//!
//! * **Exact values** come from null-window tests ([`Search::mtd`]): the first at a guess,
//!   then steps that double while the tests fail on the same side, then bisection.
//! * **The table** holds bounds of trick-start positions (the whole position is the key).
//!   At the last card of a trick, the children (trick starts) are probed before any is
//!   searched, and a stored bound that already refutes ends the node (enhanced transposition
//!   cutoff).
//! * **Equivalent cards**: of the legal cards of one lane with equal points and no card of
//!   another hand or of the trick between them, only the lowest is tried
//!   ([`representatives`]); they lead to positions of equal value.
//! * **Ordering**: the table's best lead first; leads of cards nothing left can beat, then
//!   cheap ones; followers take the trick cheaply, add points to their side's trick, or
//!   discard cheaply.
//! * **Bounds** from the rules ([`Rules::bounds`]) end a node whose value cannot cross the
//!   window; the last trick is evaluated directly.

use super::position::{Deck, NONE, Position, lane, others, representative_of, representatives};
use super::table::{Table, UNBOUNDED};

/// Beyond every value.
pub(crate) const INF: i32 = UNBOUNDED;

/// What the end of a trick does to the value and to the context.
#[derive(Copy, Clone, Debug)]
pub(crate) struct TrickEnd {
    /// Value gained by side 0 with this trick (negative if side 1 gains).
    pub gain: i32,
    /// The context after the trick.
    pub ctx: u32,
    /// True if the deal's play ends here (the last trick, or a rule that stops play).
    pub over: bool,
}

/// A game's trick play, as the search sees it. Every method is a pure function of its
/// arguments and of the rules' fixed parameters.
pub(crate) trait Rules {
    /// Number of seats (2 or 4); sides are `seat & 1`.
    const PLAYERS: usize;

    /// The deck of this solve.
    fn deck(&self) -> &Deck;

    /// The legal cards of the seat to move (a subset of its hand, never empty while it holds
    /// cards).
    fn legal(&self, pos: &Position) -> u64;

    /// A trick was won by `winner` with `points` card points; `last` if no cards are left.
    fn after_trick(&self, ctx: u32, winner: usize, points: i32, last: bool) -> TrickEnd;

    /// Value for side 0 of the end of play with context `ctx` and `rem` card points unplayed
    /// (0 after the last trick). Games whose value is all in [`TrickEnd::gain`] return 0.
    fn terminal(&self, ctx: u32, rem: i32) -> i32;

    /// Lower and upper bounds of the value for side 0 from `pos` on (the exact value if equal).
    fn bounds(&self, pos: &Position) -> (i32, i32);

    /// At a trick start, before the lead: if a side may end play now, that side and the value
    /// for side 0 of ending it.
    fn stop(&self, _pos: &Position) -> Option<(usize, i32)> {
        None
    }

    /// The parity (0 or 1) every value from `pos` has, if it is fixed (a point difference
    /// whose total is fixed: `p0 - p1 = 2 p0 - total`). The search then skips the tests
    /// between two values of that parity.
    fn parity(&self, _pos: &Position) -> Option<i32> {
        None
    }
}

/// What follows a complete trick, for the seat that played its last card: the end of play
/// (its value), or the next trick start led by its side or by the other (with its gain).
#[derive(Copy, Clone, Debug)]
enum Next {
    Over(i32),
    Ours(i32, Position),
    Theirs(i32, Position),
}

/// Up to 16 candidate cards, best first.
#[derive(Copy, Clone, Debug)]
struct Moves {
    cards: [u8; 16],
    len: usize,
}

/// One search: the rules, the table, and the node counter (added to the solver's on drop).
pub(crate) struct Search<'a, R: Rules> {
    rules: &'a R,
    table: &'a mut Table,
    nodes: u64,
    /// Nodes this search may still visit; past it every node fails low at once, the values
    /// found are meaningless and the solver throws them and the table away (see
    /// [`super::Solver::solve_within`]).
    budget: u64,
    total: &'a mut u64,
}

impl<R: Rules> Drop for Search<'_, R> {
    fn drop(&mut self) {
        *self.total += self.nodes;
    }
}

impl<R: Rules> std::fmt::Debug for Search<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Search")
            .field("nodes", &self.nodes)
            .finish_non_exhaustive()
    }
}

impl<'a, R: Rules> Search<'a, R> {
    /// A search with `rules` using `table`, adding its node count to `total`, visiting at
    /// most `budget` nodes with meaningful results.
    pub(crate) fn new(rules: &'a R, table: &'a mut Table, total: &'a mut u64, budget: u64) -> Self {
        Search {
            rules,
            table,
            nodes: 0,
            budget,
            total,
        }
    }

    /// The exact value for side 0 of `pos` (a stop before the lead included if the rules
    /// allow one there).
    pub(crate) fn value(&mut self, pos: &Position, guess: i32) -> i32 {
        let s = side_sign(pos.mover(R::PLAYERS));
        let parity = self.rules.parity(pos);
        s * self.mtd(s * guess, parity, |search, a, b| search.node(pos, a, b))
    }

    /// One null-window test: true if the value for side 0 of `pos` (a stop before the lead
    /// included) is at least `gamma`.
    pub(crate) fn at_least(&mut self, pos: &Position, gamma: i32) -> bool {
        self.test(pos.mover(R::PLAYERS), gamma, |search, a, b| {
            search.node(pos, a, b)
        })
    }

    /// As [`Search::at_least`] for `pos`, a trick start, when play goes on (no stop now).
    pub(crate) fn continue_at_least(&mut self, pos: &Position, gamma: i32) -> bool {
        self.test(pos.mover(R::PLAYERS), gamma, |search, a, b| {
            search.lead(pos, a, b)
        })
    }

    /// As [`Search::at_least`] after the seat to move at `pos` plays `card`.
    pub(crate) fn card_at_least(&mut self, pos: &Position, card: u8, gamma: i32) -> bool {
        let me = pos.mover(R::PLAYERS);
        self.test(me, gamma, |search, a, b| search.play(pos, me, card, a, b))
    }

    /// A null-window test of `search` (fail-soft, for the side of `me`) at `gamma` for side 0.
    fn test(
        &mut self,
        me: usize,
        gamma: i32,
        mut search: impl FnMut(&mut Self, i32, i32) -> i32,
    ) -> bool {
        if me & 1 == 0 {
            search(self, gamma - 1, gamma) >= gamma
        } else {
            // Side 0 at least `gamma` <=> the mover's side at most `-gamma`.
            search(self, -gamma, -gamma + 1) <= -gamma
        }
    }

    /// The legal cards of the seat to move at `pos` and, for each, its representative
    /// among equivalent cards (see [`representatives`]), by internal card bit.
    pub(crate) fn representatives(&self, pos: &Position) -> (u64, u64, [u8; 64]) {
        let me = pos.mover(R::PLAYERS);
        let legal = self.rules.legal(pos);
        let others = others(pos, me);
        let deck = self.rules.deck();
        let reps = representatives(deck, legal, others);
        let mut of = [NONE; 64];
        let mut l = legal;
        while l != 0 {
            let c = l.trailing_zeros() as u8;
            l &= l - 1;
            of[usize::from(c)] = representative_of(deck, legal, others, c);
        }
        (legal, reps, of)
    }

    /// The exact value for side 0 after each legal card of the seat to move at `pos` is
    /// played (equivalent cards share their representative's value). Returns the legal cards
    /// and the values by internal card bit.
    pub(crate) fn card_values(&mut self, pos: &Position, guess: i32) -> (u64, [i32; 64]) {
        let me = pos.mover(R::PLAYERS);
        let s = side_sign(me);
        let legal = self.rules.legal(pos);
        let others = others(pos, me);
        let moves = self.order(pos, legal, NONE);
        let mut values = [0i32; 64];
        let mut g = s * guess;
        let parity = self.rules.parity(pos);
        for &c in &moves.cards[..moves.len] {
            let v = self.mtd(g, parity, |search, a, b| search.play(pos, me, c, a, b));
            values[usize::from(c)] = s * v;
            g = v;
        }
        let deck = self.rules.deck();
        let mut l = legal;
        while l != 0 {
            let c = l.trailing_zeros() as u8;
            l &= l - 1;
            let r = representative_of(deck, legal, others, c);
            values[usize::from(c)] = values[usize::from(r)];
        }
        (legal, values)
    }

    /// The exact value by null-window tests of `test` (a fail-soft search for the side to
    /// move with window `(alpha, beta)`): the first at `guess`, then steps away from it that
    /// double while the tests fail on the same side, then bisection once the value is
    /// bracketed (MTD(f) with steps: the fail-soft values of point games move slowly). With a
    /// `parity`, only values of that parity are tested.
    fn mtd(
        &mut self,
        guess: i32,
        parity: Option<i32>,
        mut test: impl FnMut(&mut Self, i32, i32) -> i32,
    ) -> i32 {
        // `x` moved up (`up = 1`) or down (`up = -1`) to the parity, if any.
        let fit = |x: i32, up: i32| match parity {
            Some(p) if (x - p) & 1 != 0 && x.abs() < INF => x + up,
            _ => x,
        };
        let (mut lo, mut hi) = (-INF, INF);
        let mut gamma = fit(guess.clamp(-INF + 2, INF - 2), 1);
        let mut step = 2;
        let mut dir = 0;
        loop {
            let v = test(self, gamma - 1, gamma);
            if v >= gamma {
                lo = fit(v, 1);
                step = if dir > 0 { step * 2 } else { 2 };
                dir = 1;
            } else {
                hi = fit(v, -1);
                step = if dir < 0 { step * 2 } else { 2 };
                dir = -1;
            }
            if lo >= hi {
                return lo;
            }
            // The next test: `gamma` in `lo + 1..=hi`, `step` beyond the bound just moved,
            // or halfway once both bounds are known.
            gamma = if lo > -INF && hi < INF {
                let mid = lo + (hi - lo + 1) / 2;
                if dir > 0 {
                    mid.min(lo + step)
                } else {
                    mid.max(hi + 1 - step)
                }
            } else if dir > 0 {
                lo + step
            } else {
                hi + 1 - step
            };
            gamma = fit(gamma.clamp(lo + 1, hi), 1).min(hi);
        }
    }

    /// Fail-soft alpha-beta value of `pos` for the side to move.
    fn node(&mut self, pos: &Position, alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes > self.budget {
            // Over budget: unwind at once (fail low; every test still ends a bound).
            return alpha;
        }
        let me = pos.mover(R::PLAYERS);
        let s = side_sign(me);
        let (lo0, hi0) = self.rules.bounds(pos);
        let (lo, hi) = if s > 0 { (lo0, hi0) } else { (-hi0, -lo0) };
        if lo >= beta || lo == hi {
            return lo;
        }
        if hi <= alpha {
            return hi;
        }
        if pos.trick_len != 0 {
            return self.expand(pos, alpha, beta, NONE).0;
        }
        match self.rules.stop(pos) {
            None => self.lead(pos, alpha, beta),
            Some((side, v0)) => {
                let v = s * v0;
                if side == me & 1 {
                    // The side to lead may stop: at least `v`.
                    if v >= beta {
                        return v;
                    }
                    self.lead(pos, alpha.max(v), beta).max(v)
                } else {
                    // The other side may stop: at most `v`.
                    if v <= alpha {
                        return v;
                    }
                    self.lead(pos, alpha, beta.min(v)).min(v)
                }
            }
        }
    }

    /// A trick start when play goes on: the table, then the leads.
    fn lead(&mut self, pos: &Position, alpha: i32, beta: i32) -> i32 {
        let key = pos.key();
        let mut first = NONE;
        if let Some(hit) = self.table.probe(&key) {
            if hit.lo >= beta || hit.lo == hit.hi {
                return hit.lo;
            }
            if hit.hi <= alpha {
                return hit.hi;
            }
            first = hit.best;
        }
        let (v, best) = self.expand(pos, alpha, beta, first);
        let (lo, hi) = if v >= beta {
            (v, INF)
        } else if v <= alpha {
            (-INF, v)
        } else {
            (v, v)
        };
        let depth = pos.in_hands().count_ones() as u8;
        self.table.store(&key, lo, hi, best, depth);
        v
    }

    /// Tries the moves of the side to move; returns the fail-soft value and the best card.
    fn expand(&mut self, pos: &Position, alpha: i32, beta: i32, first: u8) -> (i32, u8) {
        let me = pos.mover(R::PLAYERS);
        let hand = pos.hands[me];
        if hand & (hand - 1) == 0
            && pos.in_hands().count_ones() as usize + usize::from(pos.trick_len) == R::PLAYERS
        {
            return (self.last_trick(pos), hand.trailing_zeros() as u8);
        }
        let legal = self.rules.legal(pos);
        let moves = if legal & (legal - 1) == 0 {
            let mut cards = [NONE; 16];
            cards[0] = legal.trailing_zeros() as u8;
            Moves { cards, len: 1 }
        } else {
            self.order(pos, legal, first)
        };
        let mut best = -INF;
        let mut best_card = moves.cards[0];
        let mut a = alpha;
        if usize::from(pos.trick_len) == R::PLAYERS - 1 {
            // The last card of the trick: every child is an end of play or a trick start.
            // Enhanced transposition cutoff: a child whose stored bound refutes ends the
            // node before any is searched.
            let deck = self.rules.deck();
            for &c in &moves.cards[..moves.len] {
                let lo = match self.complete(&pos.with_card(deck, me, c), me) {
                    Next::Over(v) => v,
                    Next::Ours(g, ref n) => self.stored(n).map_or(-INF, |(lo, _)| g + lo),
                    Next::Theirs(g, ref n) => self.stored(n).map_or(-INF, |(_, hi)| g - hi),
                };
                if lo >= beta {
                    return (lo, c);
                }
            }
            for &c in &moves.cards[..moves.len] {
                let v = match self.complete(&pos.with_card(deck, me, c), me) {
                    Next::Over(v) => v,
                    Next::Ours(g, ref n) => g + self.node(n, a - g, beta - g),
                    Next::Theirs(g, ref n) => g - self.node(n, g - beta, g - a),
                };
                if v > best {
                    best = v;
                    best_card = c;
                    if v > a {
                        a = v;
                        if a >= beta {
                            break;
                        }
                    }
                }
            }
            return (best, best_card);
        }
        for &c in &moves.cards[..moves.len] {
            let v = self.play(pos, me, c, a, beta);
            if v > best {
                best = v;
                best_card = c;
                if v > a {
                    a = v;
                    if a >= beta {
                        break;
                    }
                }
            }
        }
        (best, best_card)
    }

    /// The bounds stored for trick start `n`, unless a stop may come first there.
    #[inline]
    fn stored(&self, n: &Position) -> Option<(i32, i32)> {
        if self.rules.stop(n).is_some() {
            return None;
        }
        self.table.probe(&n.key()).map(|h| (h.lo, h.hi))
    }

    /// Value for `me` (to move at `pos`) of playing `card`, fail-soft in `(alpha, beta)`.
    #[inline]
    fn play(&mut self, pos: &Position, me: usize, card: u8, alpha: i32, beta: i32) -> i32 {
        let p = pos.with_card(self.rules.deck(), me, card);
        if usize::from(p.trick_len) < R::PLAYERS {
            return -self.node(&p, -beta, -alpha);
        }
        match self.complete(&p, me) {
            Next::Over(v) => v,
            Next::Ours(g, next) => g + self.node(&next, alpha - g, beta - g),
            Next::Theirs(g, next) => g - self.node(&next, g - beta, g - alpha),
        }
    }

    /// The end of the complete trick of `p` for `me` (who played its last card).
    #[inline]
    fn complete(&self, p: &Position, me: usize) -> Next {
        let winner = (usize::from(p.leader) + usize::from(p.win_pos)) & (R::PLAYERS - 1);
        let points = i32::from(p.trick_points);
        let mut next = *p;
        next.rem -= points;
        let last = next.in_hands() == 0;
        let end = self.rules.after_trick(p.ctx, winner, points, last);
        let s = side_sign(me);
        let gain = s * end.gain;
        if end.over {
            return Next::Over(gain + s * self.rules.terminal(end.ctx, next.rem));
        }
        next.ctx = end.ctx;
        next.leader = winner as u8;
        next.trick_len = 0;
        next.table = 0;
        next.trick_points = 0;
        if winner & 1 == me & 1 {
            Next::Ours(gain, next)
        } else {
            Next::Theirs(gain, next)
        }
    }

    /// The value for the side to move of the last trick (every seat to play holds one card).
    fn last_trick(&self, pos: &Position) -> i32 {
        let me = pos.mover(R::PLAYERS);
        let deck = self.rules.deck();
        let mut p = *pos;
        while usize::from(p.trick_len) < R::PLAYERS {
            let seat = p.mover(R::PLAYERS);
            p = p.with_card(deck, seat, p.hands[seat].trailing_zeros() as u8);
        }
        let last = (usize::from(pos.leader) + R::PLAYERS - 1) & (R::PLAYERS - 1);
        let v = match self.complete(&p, last) {
            Next::Over(v) | Next::Ours(v, _) | Next::Theirs(v, _) => v,
        };
        if last & 1 == me & 1 { v } else { -v }
    }

    /// The representatives of the legal cards, best first: `first` (the table's best lead),
    /// then by a heuristic of who wins the trick and what it is worth.
    fn order(&self, pos: &Position, legal: u64, first: u8) -> Moves {
        let me = pos.mover(R::PLAYERS);
        let deck = self.rules.deck();
        let others = others(pos, me);
        let mut reps = representatives(deck, legal, others);
        let mut cards = [NONE; 16];
        let mut scores = [0i32; 16];
        let mut n = 0;
        let n_trick = usize::from(pos.trick_len);
        let (ours, last, led) = if n_trick == 0 {
            (false, false, 0)
        } else {
            let winner = (usize::from(pos.leader) + usize::from(pos.win_pos)) & (R::PLAYERS - 1);
            (
                winner & 1 == me & 1,
                n_trick == R::PLAYERS - 1,
                pos.trick[0] >> 4,
            )
        };
        while reps != 0 {
            let c = reps.trailing_zeros() as u8;
            reps &= reps - 1;
            let p = deck.points(c);
            let score = if c == first {
                i32::MAX
            } else if n_trick == 0 {
                // Leading: a card nothing left beats first (high first), then low cards.
                let above = others & lane(c) & !((2u64 << c) - 1);
                let trumped = deck.trumps() >> c & 1 == 0 && others & deck.trumps() != 0;
                if above == 0 && !trumped {
                    1000 + p * 4 + i32::from(c & 15)
                } else {
                    -p * 4 - i32::from(c & 15)
                }
            } else {
                let key = deck.key(c, led);
                if ours && last {
                    // The trick is ours whatever we play: add points.
                    p * 8
                } else if key > pos.win_key {
                    // Take the trick, cheaply.
                    1000 - i32::from(key) + p * 2
                } else if ours {
                    p * 4
                } else {
                    -p * 8 - i32::from(c & 15)
                }
            };
            // Insertion, best first (at most 16 cards).
            let mut j = n;
            while j > 0 && scores[j - 1] < score {
                scores[j] = scores[j - 1];
                cards[j] = cards[j - 1];
                j -= 1;
            }
            scores[j] = score;
            cards[j] = c;
            n += 1;
        }
        Moves { cards, len: n }
    }
}

/// +1 for side 0, −1 for side 1.
#[inline(always)]
fn side_sign(seat: usize) -> i32 {
    1 - 2 * (seat & 1) as i32
}
