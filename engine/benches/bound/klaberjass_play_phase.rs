//! The play-phase bound of a random Klaberjass deal: the least work a bitmask implementation
//! does to deal the hands and play the cards, with the engine's default options
//! (`first_dealer = random`, last trick 10, the maker scoring of §11 with `maker_tie_rule =
//! opponent_scores_own`).
//!
//! It skips phases the engine must play by the rules (below) and does not make the engine's
//! random player's decisions (trump and maker are one uniform draw of 8, no deal is annulled),
//! so its ratio compares rules work as well as engine overhead; the same-work bound
//! (`klaberjass_same_work.rs`) plays the engine's deals, with this file's [`draw`], [`play`]
//! and [`score`].
//!
//! **Included**, as the engine must do them: the cut for the dealer, the 18 cards of the two hands
//! drawn from the 32 with the engine's generator in the engine's way (5 random bits per card from a
//! generator word, redrawn when taken, branch-free: [`draw`]), trump and maker drawn at random (the
//! bidding reduced to one draw), Bella, then 18 cards, each a uniform random legal card (follow
//! suit, else trump; to a trump lead a higher trump if possible, else any trump), the trick winner,
//! card points, the last-trick bonus and the maker's §11 comparison.
//!
//! **Left out**, engine work that the bound does not count: the turn-up and bottom cards, the
//! bidding rounds (and the 1 in 64 deals that all four passes annul), the Dix exchange
//! windows, sequence declarations and the announcement protocol, the per-deal action log and
//! history, the dealt-hands and played-cards records, the per-trick records kept for views,
//! and the `Game`/`State` interface (phases, action-id sets of 256 bits, checks).

use cardhouse::Rng;

use super::bitmask::pick;

pub const LANE: u64 = 0xFF;

/// Strengths by rank index in a lane (7 8 9 10 J Q K A): trump order J 9 A 10 K Q 8 7, plain
/// order A 10 K Q J 9 8 7.
pub const TRUMP_ORDER: [u8; 8] = [1, 2, 7, 5, 8, 3, 4, 6];
pub const PLAIN_ORDER: [u8; 8] = [1, 2, 3, 7, 4, 5, 6, 8];
/// Points by rank index: J 20, 9 14, A 11, 10 10, K 4, Q 3 of trumps; A 11, 10 10, K 4, Q 3,
/// J 2 of other suits.
pub const TRUMP_POINTS: [u8; 8] = [0, 0, 14, 10, 20, 3, 4, 11];
pub const PLAIN_POINTS: [u8; 8] = [0, 0, 0, 10, 2, 3, 4, 11];

/// For each trump rank index, the lane bits of the trumps that beat it.
pub const HIGHER: [u64; 8] = {
    let mut t = [0u64; 8];
    let mut r = 0;
    while r < 8 {
        let mut o = 0;
        while o < 8 {
            if TRUMP_ORDER[o] > TRUMP_ORDER[r] {
                t[r] |= 1 << o;
            }
            o += 1;
        }
        r += 1;
    }
    t
};

/// `n` distinct card ids `0..32` not in `taken`, as the engine's deal draws them: 5 random
/// bits per id from generator words (12 ids a word, the rest of the last word dropped), an id
/// already taken drawn again, branch-free within a word (whether an id is taken is
/// unpredictable). The first `n & !1` ids alternate between two hands; with `n` odd the last
/// is returned on its own (the turn-up, the bottom card). Returns the hands, that last id and
/// `taken` with all of them.
#[inline(always)]
pub fn draw<R: Rng>(mut taken: u32, n: u32, rng: &mut R) -> ([u64; 2], u32, u32) {
    let pairs = n & !1;
    let (mut h0, mut h1, mut last, mut count) = (0u64, 0u64, 0u32, 0u32);
    while count < n {
        let word = rng.next_u64();
        for k in 0..12 {
            let id = (word >> (5 * k)) as u32 & 31;
            let fresh = (!taken >> id & 1) & u32::from(count < n);
            let bit = u64::from(fresh & u32::from(count < pairs)) << id;
            let odd = 0u64.wrapping_sub(u64::from(count & 1));
            h0 |= bit & !odd;
            h1 |= bit & odd;
            last = if count == pairs { id } else { last };
            count += fresh;
            taken |= fresh << id;
        }
    }
    ([h0, h1], last, taken)
}

/// One random deal; returns the points each seat adds (§11).
#[inline(never)]
pub fn random_deal<R: Rng>(rng: &mut R) -> [u32; 2] {
    let dealer = rng.below(2) as usize;
    let (hands, _, _) = draw(0, 18, rng);
    let tm = rng.below(8) as usize;
    let (trump, maker) = (tm & 3, tm >> 2);
    let mut totals = play(hands, trump, 1 - dealer, rng);
    let kq = 0b110_0000u64 << (8 * trump);
    for (seat, &h) in hands.iter().enumerate() {
        if h & kq == kq {
            totals[seat] += 20;
        }
    }
    score(maker, totals)
}

/// The 9 tricks of `hands` with `trump`, `leader` leading the first, each card uniform among
/// the legal ones; returns the card points per hand, with the last-trick bonus.
#[inline(always)]
pub fn play<R: Rng>(mut hands: [u64; 2], trump: usize, mut leader: usize, rng: &mut R) -> [u32; 2] {
    let trumps_lane = LANE << (8 * trump);
    let strength = |id: usize, led: u64| -> u8 {
        let bit = 1u64 << id;
        if bit & trumps_lane != 0 {
            16 + TRUMP_ORDER[id & 7]
        } else if bit & led != 0 {
            PLAIN_ORDER[id & 7]
        } else {
            0
        }
    };
    let points = |id: usize| -> u32 {
        u32::from(if id >> 3 == trump {
            TRUMP_POINTS[id & 7]
        } else {
            PLAIN_POINTS[id & 7]
        })
    };
    let mut cards = [0u32; 2];
    for _ in 0..9 {
        let lead = pick(hands[leader], rng) as usize;
        hands[leader] &= !(1 << lead);
        let other = 1 - leader;
        let led = LANE << (lead & !7);
        let reply = pick(legal(hands[other], lead, trump), rng) as usize;
        hands[other] &= !(1 << reply);
        if strength(reply, led) > strength(lead, led) {
            leader = other;
        }
        cards[leader] += points(lead) + points(reply);
    }
    cards[leader] += 10;
    cards
}

/// The cards of `h` that may answer the card `lead` with `trump` (§10: follow suit, else
/// trump; to a trump lead a higher trump if possible, else any trump; else any card).
#[inline(always)]
pub fn legal(h: u64, lead: usize, trump: usize) -> u64 {
    let trumps_lane = LANE << (8 * trump);
    let trumps = h & trumps_lane;
    let led = LANE << (lead & !7);
    if led == trumps_lane {
        let higher = HIGHER[lead & 7] << (8 * trump) & trumps;
        if higher != 0 {
            higher
        } else if trumps != 0 {
            trumps
        } else {
            h
        }
    } else if h & led != 0 {
        h & led
    } else if trumps != 0 {
        trumps
    } else {
        h
    }
}

/// The points each side adds (§11, `maker_tie_rule = opponent_scores_own`) from the deal
/// totals and the maker.
#[inline(always)]
pub fn score(maker: usize, totals: [u32; 2]) -> [u32; 2] {
    let (tmk, top) = (totals[maker], totals[1 - maker]);
    let mut added = [0u32; 2];
    if tmk > top {
        added = totals;
    } else if tmk == top {
        added[1 - maker] = top;
    } else {
        added[1 - maker] = tmk + top;
    }
    added
}
