//! The same-work bound of a random Jass deal: the least work a bitmask implementation does to
//! play the whole deal the engine's random player plays, with the engine's options of the
//! benchmark (`scope = deal`, `wys = manual`, no `schieben_back`, dealer 0 so forehand 1, no
//! undertrumping unless only trumps are left, Stöck of trump only, Wys of 4 tens not scored,
//! long sequences flat 100, last trick 5, Match 100, the `seed` multipliers).
//!
//! Unlike the play-phase bound ([`super::play_phase`]), it makes the decisions the engine's
//! random player makes, each uniform among as many choices of the same meanings as the engine's
//! legal action ids: the forehand chooses among the 6 modes and schieben (7 ids), after
//! schieben his partner among the 6 modes; in trick 1 each seat chooses among its legal cards
//! and the Wys items it may declare next (one id each, as the engine offers them: scoring
//! four-of-a-kinds, then the maximal runs of ≥ 3 cards among the cards not in a declared
//! four-of-a-kind, only items after the last one declared), again after each item declared,
//! until it lays a card; then a uniform legal card per turn. It draws from the generator in its
//! own order (the distribution of deals is the engine's, not the sequence for a seed); the
//! bench's `check` compares the two distributions.
//!
//! **Included**, as the engine must do them: the Fisher–Yates shuffle of the 36 cards, stopped
//! once the fourth hand is what remains (27 draws; the engine's deal draws 35, as its log of
//! the 36 outcomes in order needs), four hands as 36-bit masks, the mode choice with schieben,
//! the Wys offers and declarations of trick 1 (candidates as a 121-bit item mask), each seat's
//! best Wys and its announcement order (§8.3 comparison key: points, cards, compared rank,
//! trump sequence; the earlier declaration wins ties), the team with the best Wys scoring all
//! its members' Wys after trick 1, the trick play of the play-phase bound (legal cards, trick
//! winner, card points), Stöck, the last-trick and Match bonuses and the multiplier.
//!
//! **Left out**, engine work that a minimal implementation does not need: dealing in packets
//! of three (the hands are the shuffle's ninths, the same distribution), the announcement
//! texts (only who holds the best Wys matters), the cards shown by the Wys-winning team, the
//! per-deal action log and history, the dealt-hands and played-cards records, the per-trick
//! records kept for views, the deal's breakdown record, and the `Game`/`State` interface
//! (phases, action-id sets of 256 bits, checks).

use cardhouse::Rng;

use super::bitmask::{hands, pick};
use super::play_phase::{LANE, MULTIPLIER, TABLES, legal};

/// Lane bits where three cards in a row may start (the 6 up to the 8 of each 9-bit lane).
const RUN_START: u64 = 0x7F | 0x7F << 9 | 0x7F << 18 | 0x7F << 27;
/// The ranks whose four-of-a-kind is a Wys (9, U, O, K, A), as lane-0 bits.
const QUARTET_RANKS: u64 = 1 << 3 | 1 << 5 | 1 << 6 | 1 << 7 | 1 << 8;
/// The four cards of rank 0 (the 6), shifted by a rank for its four-of-a-kind.
pub const QUARTET_CARDS: u64 = 1 | 1 << 9 | 1 << 18 | 1 << 27;
/// The engine's item ids of runs within a suit's 28: the first of each length 3..=9.
const RUN_OFFSET: [u32; 10] = [0, 0, 0, 0, 7, 13, 18, 22, 25, 27];

/// Mode index of Undenufe (0..4 a trump lane, 4 Obenabe).
const UNDENUFE: usize = 5;

/// What one deal produced, for the equivalence check (the timed loop keeps `scored`).
pub struct Deal {
    pub scored: [u32; 2],
    pub raw: [u32; 2],
    pub cards: [u32; 2],
    pub wys: [u32; 2],
    pub stoeck: [u32; 2],
    /// The mode index: the trump lane 0..4, Obenabe 4, Undenufe 5.
    pub mode: usize,
    pub pushed: bool,
    /// Wys items declared by the four seats.
    pub declared: u32,
    /// A seat declared two items or more.
    pub multi: bool,
}

/// The scoring four-of-a-kinds of hand `h`, as lane-0 bits by rank.
#[inline(always)]
fn quartets(h: u64) -> u64 {
    h & h >> 9 & h >> 18 & h >> 27 & QUARTET_RANKS
}

/// True if `h` holds a Wys item (three in a row of a suit, or a scoring four-of-a-kind).
#[inline(always)]
fn has_wys(h: u64) -> bool {
    h & h >> 1 & h >> 2 & RUN_START != 0 || quartets(h) != 0
}

/// The Wys items (a bit per engine item id) hand `h` may declare next: its scoring
/// four-of-a-kinds, and the maximal runs of ≥ 3 cards among its cards outside the declared
/// four-of-a-kinds (`used`), from item id `after` on.
#[inline(never)]
pub fn candidates(h: u64, used: u64, after: u32) -> u128 {
    let mut c = u128::from(quartets(h));
    let x = h & !used;
    let three = x & x >> 1 & x >> 2 & RUN_START;
    let mut starts = three & !(three << 1);
    while starts != 0 {
        let b = starts.trailing_zeros();
        starts &= starts - 1;
        let (suit, low) = (b / 9, b % 9);
        let len = (x >> b & LANE >> low).trailing_ones();
        c |= 1u128 << (9 + suit * 28 + RUN_OFFSET[len as usize] + low);
    }
    c & !((1u128 << after) - 1)
}

/// The points of item `id` and its comparison key in mode `mode` (§8.3: points, cards, the
/// compared rank, reversed in Undenufe, and a trump sequence; higher wins).
pub fn item(id: u32, mode: usize) -> (u32, u32) {
    let (points, cards, top, trump) = if id < 9 {
        let points = match id {
            5 => 200,
            3 => 150,
            _ => 100,
        };
        (points, 4, id, false)
    } else {
        let (suit, j) = ((id - 9) / 28, (id - 9) % 28);
        let len = (3..=9).rev().find(|&l| RUN_OFFSET[l] <= j).unwrap_or(3) as u32;
        let low = j - RUN_OFFSET[len as usize];
        let points = match len {
            3 => 20,
            4 => 50,
            _ => 100,
        };
        let top = if mode == UNDENUFE { low } else { low + len - 1 };
        (points, len, top, suit as usize == mode)
    };
    let strength = if mode == UNDENUFE { 12 - top } else { top + 4 };
    (
        points,
        points << 16 | cards << 12 | strength << 4 | u32::from(trump),
    )
}

/// The `k`-th set bit of `c`.
fn select128(c: u128, k: u32) -> u32 {
    let lo = c as u64;
    let n = lo.count_ones();
    if k < n {
        cardhouse::select_in_word(lo, k)
    } else {
        64 + cardhouse::select_in_word((c >> 64) as u64, k - n)
    }
}

/// The Wys of trick 1: each seat's declared points, the best comparison key announced so
/// far and its seat, the items declared and whether a seat declared two or more.
#[derive(Default)]
struct Wys {
    points: [u32; 4],
    best_key: u32,
    best_seat: usize,
    declared: u32,
    multi: bool,
}

impl Wys {
    /// The first-trick turn of `seat` holding a Wys item in `h`: uniform among its `legal`
    /// cards and the items it may declare next, again after each item declared, until it
    /// lays a card (returned); then its announcement, the best so far if strictly better
    /// (§8.3, §8.5).
    #[inline(never)]
    fn turn<R: Rng>(&mut self, seat: usize, h: u64, legal: u64, mode: usize, rng: &mut R) -> usize {
        let (mut used, mut after, mut points, mut key, mut n) = (0u64, 0u32, 0u32, 0u32, 0u32);
        let cards = legal.count_ones();
        loop {
            let c = candidates(h, used, after);
            let k = rng.below(u64::from(cards + c.count_ones())) as u32;
            if k < cards {
                self.points[seat] = points;
                self.declared += n;
                self.multi |= n >= 2;
                if key > self.best_key {
                    self.best_key = key;
                    self.best_seat = seat;
                }
                return cardhouse::select_in_word(legal, k) as usize;
            }
            let id = select128(c, k - cards);
            let (p, kk) = item(id, mode);
            points += p;
            key = key.max(kk);
            n += 1;
            after = id + 1;
            if id < 9 {
                used |= QUARTET_CARDS << id;
            }
        }
    }
}

/// One random deal; returns the two teams' scored (multiplied) points.
#[inline(never)]
pub fn random_deal<R: Rng>(rng: &mut R) -> [u32; 2] {
    deal(rng).scored
}

/// One random deal, with what it produced.
#[inline(always)]
pub fn deal<R: Rng>(rng: &mut R) -> Deal {
    let mut hands = hands::<36, R>(rng);
    // The forehand (seat 1) chooses among the 6 modes and schieben; after schieben his
    // partner chooses among the 6 modes.
    let k = rng.below(7) as usize;
    let pushed = k == 6;
    let mode = if pushed { rng.below(6) as usize } else { k };
    let (points, strength) = (&TABLES.points[mode], &TABLES.strength[mode]);
    let mut raw = [0u32; 2];
    let mut stoeck = [0u32; 2];
    // Stöck: the holder of the trump King and Ober scores 20 (credited at once: the deal's
    // total is the same as when the second card is played).
    if mode < 4 {
        let ko = 0b1_1000000u64 << (9 * mode);
        for (seat, &h) in hands.iter().enumerate() {
            if h & ko == ko {
                stoeck[seat & 1] += 20;
            }
        }
    }
    let trump_lane = if mode < 4 { LANE << (9 * mode) } else { 0 };
    let mut cards = [0u32; 2];
    let mut tricks = [0u8; 2];
    let mut wys_state = Wys::default();
    let mut leader = 1usize;
    for trick in 0..9 {
        // The lead: any card (in trick 1, or a Wys item).
        let h = hands[leader];
        let lead = if trick == 0 && has_wys(h) {
            wys_state.turn(leader, h, h, mode, rng)
        } else {
            pick(h, rng) as usize
        };
        hands[leader] &= !(1 << lead);
        let led_lane = LANE << (9 * (lead / 9));
        let mut win_pos = 0;
        let mut win_str = strength[lead];
        let mut pts = u32::from(points[lead]);
        for pos in 1..4 {
            let seat = (leader + pos) & 3;
            let h = hands[seat];
            let legal = legal(h, led_lane, win_str, mode);
            let card = if trick == 0 && has_wys(h) {
                wys_state.turn(seat, h, legal, mode, rng)
            } else {
                pick(legal, rng) as usize
            };
            hands[seat] &= !(1 << card);
            let bit = 1u64 << card;
            let s = if bit & (trump_lane | led_lane) != 0 {
                strength[card]
            } else {
                0
            };
            if s > win_str {
                win_pos = pos;
                win_str = s;
            }
            pts += u32::from(points[card]);
        }
        leader = (leader + win_pos) & 3;
        cards[leader & 1] += pts;
        tricks[leader & 1] += 1;
    }
    let Wys {
        points: wys_points,
        best_key,
        best_seat,
        declared,
        multi,
    } = wys_state;
    let mut wys = [0u32; 2];
    if best_key != 0 {
        let team = best_seat & 1;
        wys[team] = wys_points[team] + wys_points[team + 2];
    }
    let team = leader & 1;
    for t in 0..2 {
        raw[t] = cards[t] + wys[t] + stoeck[t];
    }
    raw[team] += 5;
    if tricks[team] == 9 {
        raw[team] += 100;
    }
    Deal {
        scored: [raw[0] * MULTIPLIER[mode], raw[1] * MULTIPLIER[mode]],
        raw,
        cards,
        wys,
        stoeck,
        mode,
        pushed,
        declared,
        multi,
    }
}
