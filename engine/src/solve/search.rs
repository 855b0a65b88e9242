//! The generic exact search over tricks: fail-soft alpha-beta with null windows (MTD(f)),
//! a transposition table at trick starts, equivalent cards merged, and move ordering.
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

use super::table::{Key, Table, UNBOUNDED};

/// Beyond every value.
pub(crate) const INF: i32 = UNBOUNDED;
/// "No card" in a move slot.
const NONE: u8 = 0xFF;

/// The card points and trumps of one solve's internal cards.
#[derive(Clone, Debug)]
pub(crate) struct Deck {
    /// Points of each internal card bit.
    pub points: [u8; 64],
    /// The internal bits that are trumps (one lane, or none).
    pub trumps: u64,
}

impl Deck {
    /// Card points of a set of internal cards.
    pub(crate) fn points_of(&self, mut cards: u64) -> i32 {
        let mut sum = 0;
        while cards != 0 {
            sum += i32::from(self.points[cards.trailing_zeros() as usize]);
            cards &= cards - 1;
        }
        sum
    }

    /// The trick-taking key of card `c` in a trick led from lane `led`: a trump beats every
    /// card of the lane led, which beats every other card (0, never wins).
    #[inline(always)]
    fn key(&self, c: u8, led: u8) -> u8 {
        if self.trumps >> c & 1 != 0 {
            64 | (c & 15)
        } else if c >> 4 == led {
            32 | (c & 15)
        } else {
            0
        }
    }

    /// Position in the trick (0 = the lead) and key of the card winning the first `n` cards.
    #[inline(always)]
    pub(crate) fn winning(&self, trick: &[u8; 4], n: usize) -> (usize, u8) {
        let led = trick[0] >> 4;
        let mut best = (0, self.key(trick[0], led));
        for (i, &c) in trick.iter().enumerate().take(n).skip(1) {
            let k = self.key(c, led);
            if k > best.1 {
                best = (i, k);
            }
        }
        best
    }
}

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
}

/// A position of trick play: the hands, the current trick, who led it and the game's
/// context (whatever the value from here depends on besides the cards, e.g. whether one
/// side has taken every trick so far).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Position {
    /// Each seat's hand as internal card bits (seats beyond the game's count stay 0).
    pub hands: [u64; 4],
    /// The cards of the current trick in play order.
    pub trick: [u8; 4],
    /// Number of cards in the current trick (0 at a trick start).
    pub trick_len: u8,
    /// The seat that led (or leads) the current trick.
    pub leader: u8,
    /// The game's context word.
    pub ctx: u32,
    /// Card points not yet taken: in the hands and in the current trick.
    pub rem: i32,
}

impl Position {
    /// The seat to play, for a game of `players` seats (2 or 4).
    #[inline(always)]
    pub(crate) fn mover(&self, players: usize) -> usize {
        (usize::from(self.leader) + usize::from(self.trick_len)) & (players - 1)
    }

    /// The cards of the current trick as bits.
    #[inline(always)]
    pub(crate) fn trick_bits(&self) -> u64 {
        let mut b = 0;
        for &c in &self.trick[..usize::from(self.trick_len)] {
            b |= 1u64 << c;
        }
        b
    }

    /// All cards still in the hands.
    #[inline(always)]
    pub(crate) fn in_hands(&self) -> u64 {
        self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]
    }

    /// The position after `card` is added to the current trick (not completed).
    #[inline(always)]
    fn with_card(&self, seat: usize, card: u8) -> Position {
        let mut p = *self;
        p.hands[seat] &= !(1u64 << card);
        p.trick[usize::from(p.trick_len & 3)] = card;
        p.trick_len += 1;
        p
    }

    fn key(&self) -> Key {
        debug_assert_eq!(self.trick_len, 0);
        Key {
            hands: self.hands,
            meta: u64::from(self.leader) | u64::from(self.ctx) << 8,
        }
    }
}

/// What follows a complete trick, for the seat that played its last card: the end of play
/// (its value), or the next trick start led by its side or by the other (with its gain).
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

/// True if cards `a < b` of one lane have no card of `others` between them.
#[inline(always)]
fn adjacent(others: u64, a: u8, b: u8) -> bool {
    let between = (1u64 << b) - (2u64 << a);
    others & between == 0
}

/// The representatives of `legal` for the seat holding `hand` (the rest of the cards in play
/// being `others`): of cards of one lane with equal points and no card of `others` between
/// them, only the lowest. Playing any of them leads to positions of equal value, since
/// swapping them changes no trick's winner and no trick's points.
#[inline]
pub(crate) fn representatives(deck: &Deck, legal: u64, others: u64) -> ([u8; 16], usize) {
    let mut reps = [0u8; 16];
    let mut n = 0;
    let mut l = legal;
    while l != 0 {
        let c = l.trailing_zeros() as u8;
        l &= l - 1;
        let p = deck.points[usize::from(c)];
        let dup = reps[..n].iter().any(|&r| {
            r >> 4 == c >> 4 && deck.points[usize::from(r)] == p && adjacent(others, r, c)
        });
        if !dup && n < 16 {
            reps[n] = c;
            n += 1;
        }
    }
    (reps, n)
}

/// The representative (see [`representatives`]) that card `c` of `legal` is merged into.
pub(crate) fn representative_of(deck: &Deck, legal: u64, others: u64, c: u8) -> u8 {
    let (reps, n) = representatives(deck, legal, others);
    let p = deck.points[usize::from(c)];
    reps[..n]
        .iter()
        .copied()
        .find(|&r| {
            r == c
                || (r >> 4 == c >> 4
                    && deck.points[usize::from(r)] == p
                    && adjacent(others, r.min(c), r.max(c)))
        })
        .unwrap_or(c)
}

/// One search: the rules, the table, and the node counter (added to the solver's on drop).
pub(crate) struct Search<'a, R: Rules> {
    rules: &'a R,
    table: &'a mut Table,
    nodes: u64,
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
    /// A search with `rules` using `table`.
    pub(crate) fn new(rules: &'a R, table: &'a mut Table, total: &'a mut u64) -> Self {
        Search {
            rules,
            table,
            nodes: 0,
            total,
        }
    }

    /// The exact value for side 0 of `pos` (a stop before the lead included if the rules
    /// allow one there).
    pub(crate) fn value(&mut self, pos: &Position, guess: i32) -> i32 {
        let s = side_sign(pos.mover(R::PLAYERS));
        s * self.mtd(s * guess, |search, a, b| search.node(pos, a, b))
    }

    /// The exact value for side 0 of `pos`, a trick start, when play goes on (no stop now).
    pub(crate) fn continue_value(&mut self, pos: &Position, guess: i32) -> i32 {
        debug_assert_eq!(pos.trick_len, 0);
        let s = side_sign(pos.mover(R::PLAYERS));
        s * self.mtd(s * guess, |search, a, b| search.lead(pos, a, b))
    }

    /// The exact value for side 0 after each legal card of the seat to move at `pos` is
    /// played (equivalent cards share their representative's value). Returns the legal cards
    /// and the values by internal card bit.
    pub(crate) fn card_values(&mut self, pos: &Position, guess: i32) -> (u64, [i32; 64]) {
        let me = pos.mover(R::PLAYERS);
        let s = side_sign(me);
        let legal = self.rules.legal(pos);
        let others = others(pos, me, R::PLAYERS);
        let deck = self.rules.deck();
        let (reps, n) = representatives(deck, legal, others);
        let moves = self.order(pos, legal, NONE);
        let mut values = [0i32; 64];
        let mut g = s * guess;
        for &c in &moves.cards[..moves.len] {
            let v = self.mtd(g, |search, a, b| search.play(pos, me, c, a, b));
            values[usize::from(c)] = s * v;
            g = v;
        }
        debug_assert!(
            reps[..n]
                .iter()
                .all(|r| moves.cards[..moves.len].contains(r))
        );
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
    /// bracketed (MTD(f) with steps, since fail-soft values of point games move slowly).
    fn mtd(&mut self, guess: i32, mut test: impl FnMut(&mut Self, i32, i32) -> i32) -> i32 {
        let (mut lo, mut hi) = (-INF, INF);
        let mut gamma = guess.clamp(-INF + 1, INF - 1);
        let mut step = 2;
        let mut dir = 0;
        loop {
            let v = test(self, gamma - 1, gamma);
            if v >= gamma {
                lo = v;
                step = if dir > 0 { step * 2 } else { 2 };
                dir = 1;
            } else {
                hi = v;
                step = if dir < 0 { step * 2 } else { 2 };
                dir = -1;
            }
            if lo >= hi {
                break;
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
                lo + step.min(INF - lo)
            } else {
                hi + 1 - step
            };
            gamma = gamma.clamp(lo + 1, hi);
        }
        lo
    }

    /// Fail-soft alpha-beta value of `pos` for the side to move.
    fn node(&mut self, pos: &Position, alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
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
        if pos.hands[me] & (pos.hands[me] - 1) == 0
            && pos.in_hands().count_ones() as usize + usize::from(pos.trick_len) == R::PLAYERS
        {
            return (self.last_trick(pos), pos.hands[me].trailing_zeros() as u8);
        }
        let legal = self.rules.legal(pos);
        let moves = self.order(pos, legal, first);
        if usize::from(pos.trick_len) == R::PLAYERS - 1 {
            // Enhanced transposition cutoff: a trick-start child whose stored bound refutes.
            for &c in &moves.cards[..moves.len] {
                let p = pos.with_card(me, c);
                let lo = match self.complete(&p, me) {
                    Next::Over(v) => v,
                    Next::Ours(g, n) if self.rules.stop(&n).is_none() => {
                        self.table.probe(&n.key()).map_or(-INF, |h| g + h.lo)
                    }
                    Next::Theirs(g, n) if self.rules.stop(&n).is_none() => {
                        self.table.probe(&n.key()).map_or(-INF, |h| g - h.hi)
                    }
                    _ => -INF,
                };
                if lo >= beta {
                    return (lo, c);
                }
            }
        }
        let mut best = -INF;
        let mut best_card = moves.cards[0];
        let mut a = alpha;
        for &c in &moves.cards[..moves.len] {
            let v = self.play(pos, me, c, a, beta);
            if v > best {
                best = v;
                best_card = c;
                if v > a {
                    a = v;
                    if a >= beta {
                        return (best, best_card);
                    }
                }
            }
        }
        (best, best_card)
    }

    /// Value for `me` (to move at `pos`) of playing `card`, fail-soft in `(alpha, beta)`.
    #[inline]
    fn play(&mut self, pos: &Position, me: usize, card: u8, alpha: i32, beta: i32) -> i32 {
        let p = pos.with_card(me, card);
        if usize::from(p.trick_len) < R::PLAYERS {
            return -self.node(&p, -beta, -alpha);
        }
        match self.complete(&p, me) {
            Next::Over(v) => v,
            Next::Ours(gain, next) => gain + self.node(&next, alpha - gain, beta - gain),
            Next::Theirs(gain, next) => gain - self.node(&next, gain - beta, gain - alpha),
        }
    }

    /// The end of the complete trick of `p` for `me` (who played its last card).
    #[inline]
    fn complete(&self, p: &Position, me: usize) -> Next {
        let deck = self.rules.deck();
        let (win_pos, _) = deck.winning(&p.trick, R::PLAYERS);
        let winner = (usize::from(p.leader) + win_pos) & (R::PLAYERS - 1);
        let points = deck.points_of(p.trick_bits());
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
        if winner & 1 == me & 1 {
            Next::Ours(gain, next)
        } else {
            Next::Theirs(gain, next)
        }
    }

    /// The value for the side to move of the last trick (every seat to play holds one card).
    fn last_trick(&self, pos: &Position) -> i32 {
        let me = pos.mover(R::PLAYERS);
        let mut p = *pos;
        while usize::from(p.trick_len) < R::PLAYERS {
            let seat = p.mover(R::PLAYERS);
            p = p.with_card(seat, p.hands[seat].trailing_zeros() as u8);
        }
        let last = (usize::from(pos.leader) + R::PLAYERS - 1) & (R::PLAYERS - 1);
        let v = match self.complete(&p, last) {
            Next::Over(v) => v,
            // Play may only go on if cards are left: not after the last trick.
            Next::Ours(v, _) | Next::Theirs(v, _) => v,
        };
        if last & 1 == me & 1 { v } else { -v }
    }

    /// The representatives of the legal cards, best first: `first` (the table's best lead),
    /// then by a heuristic of who wins the trick and what it is worth.
    fn order(&self, pos: &Position, legal: u64, first: u8) -> Moves {
        let me = pos.mover(R::PLAYERS);
        let deck = self.rules.deck();
        let others = others(pos, me, R::PLAYERS);
        let (cards, n) = representatives(deck, legal, others);
        let mut scores = [0i32; 16];
        let n_trick = usize::from(pos.trick_len);
        if n_trick == 0 {
            // Leading: a card no remaining card of its lane beats first (high first), then
            // low cards (cheap first).
            for (k, &c) in cards[..n].iter().enumerate() {
                let lane_above = others & (0xFFFFu64 << (c & 0x30)) & !((2u64 << c) - 1);
                let trump_out = others & deck.trumps & !(0xFFFFu64 << (c & 0x30));
                let p = i32::from(deck.points[usize::from(c)]);
                scores[k] = if lane_above == 0 && (trump_out == 0 || deck.trumps >> c & 1 != 0) {
                    1000 + p * 4 + i32::from(c & 15)
                } else {
                    -p * 4 - i32::from(c & 15)
                };
            }
        } else {
            let (win_pos, win_key) = deck.winning(&pos.trick, n_trick);
            let winner = (usize::from(pos.leader) + win_pos) & (R::PLAYERS - 1);
            let ours = winner & 1 == me & 1;
            let last = n_trick == R::PLAYERS - 1;
            let led = pos.trick[0] >> 4;
            for (k, &c) in cards[..n].iter().enumerate() {
                let p = i32::from(deck.points[usize::from(c)]);
                let key = deck.key(c, led);
                let beats = key > win_key;
                scores[k] = if ours && last {
                    // The trick is ours whatever we play: add points.
                    p * 8
                } else if beats {
                    // Take the trick, cheaply.
                    1000 - i32::from(key) + p * 2
                } else if ours {
                    p * 4
                } else {
                    -p * 8 - i32::from(c & 15)
                };
            }
        }
        let mut order = [0usize; 16];
        for (i, slot) in order[..n].iter_mut().enumerate() {
            *slot = i;
        }
        for (k, &c) in cards[..n].iter().enumerate() {
            if c == first {
                scores[k] = i32::MAX;
            }
        }
        // Insertion sort, best first (at most 16 cards).
        for i in 1..n {
            let mut j = i;
            while j > 0 && scores[order[j - 1]] < scores[order[j]] {
                order.swap(j - 1, j);
                j -= 1;
            }
        }
        let mut out = Moves {
            cards: [NONE; 16],
            len: n,
        };
        for i in 0..n {
            out.cards[i] = cards[order[i]];
        }
        out
    }
}

/// +1 for side 0, −1 for side 1.
#[inline(always)]
fn side_sign(seat: usize) -> i32 {
    1 - 2 * (seat & 1) as i32
}

/// The cards in play not held by `me`: the other hands and the current trick.
#[inline(always)]
fn others(pos: &Position, me: usize, players: usize) -> u64 {
    let mut o = pos.trick_bits();
    for (s, &h) in pos.hands.iter().enumerate().take(players) {
        if s != me {
            o |= h;
        }
    }
    o
}
