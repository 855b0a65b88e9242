//! The play-phase bound of a random Jass deal: the least work a bitmask implementation does to
//! choose a mode and play the cards, with the engine's default options (`wys = manual`, no
//! undertrumping unless only trumps are left, Stöck of trump only, last trick 5, Match 100,
//! the `seed` multipliers).
//!
//! It skips phases the engine must play by the rules and does not make the engine's random
//! player's decisions (the engine's forehand chooses among the 6 modes and schieben, and a
//! random seat may declare Wys in trick 1), so its ratio compares rules work as well as
//! engine overhead; the same-work bound (`jass_same_work.rs`) plays the engine's deals.
//!
//! **Included**, as the engine must do them: a Fisher–Yates shuffle of the 36 cards with the
//! engine's generator, stopped once the fourth hand is what remains (27 draws; the engine's
//! deal draws 35, as its log of the 36 outcomes in order needs), four hands as 36-bit masks,
//! the mode drawn uniformly among the 6 (3 trumps are not pushed: no schieben), then 36 cards,
//! each a uniform random legal card (follow suit, trumping allowed instead, the trump Under
//! never forced, no undertrumping unless only trumps are left), the trick winner tracked card
//! by card, card points, the last-trick and Match bonuses, Stöck and the multiplier.
//!
//! **Left out**, engine work that the bound does not count: Wys (with `wys = manual` the
//! engine offers each seat its declarable items in trick 1, and a random player declares some;
//! the bound never looks for them), schieben, the per-deal action log and history, the
//! played-cards and dealt-hands records, the per-trick records kept for views, and the
//! `Game`/`State` interface (phases, action-id sets of 256 bits, checks).

use cardhouse::Rng;

use super::bitmask::{hands, pick};

pub const LANE: u64 = 0x1FF;

/// Trump strength by rank index in a lane (6 7 8 9 10 U O K A): U, 9, A, K, O, 10, 8, 7, 6.
const TRUMP_ORDER: [u8; 9] = [0, 1, 2, 7, 3, 8, 4, 5, 6];

/// For each trump strength, the lane bits of the trumps that beat it.
pub const HIGHER: [u64; 9] = {
    let mut t = [0u64; 9];
    let mut s = 0;
    while s < 9 {
        let mut i = 0;
        while i < 9 {
            if TRUMP_ORDER[i] as usize > s {
                t[s] |= 1 << i;
            }
            i += 1;
        }
        s += 1;
    }
    t
};

/// Points by rank index: of the trump suit, of other suits in a trump mode, and in
/// Obenabe / Undenufe (the 8 counts 8).
const TRUMP_POINTS: [u8; 9] = [0, 0, 0, 14, 10, 20, 3, 4, 11];
const PLAIN_POINTS: [u8; 9] = [0, 0, 0, 0, 10, 2, 3, 4, 11];
const SLALOM_POINTS: [u8; 9] = [0, 0, 8, 0, 10, 2, 3, 4, 11];

/// Multipliers of modes 0..6: trump lanes Bells, Acorns, Roses, Shields; Obenabe; Undenufe.
pub const MULTIPLIER: [u32; 6] = [2, 1, 1, 2, 3, 4];

/// Per mode and card id: its points, and its strength when it is a trump (32 + order) or of
/// the suit led (1..=9 upwards, or downwards in Undenufe).
pub struct Tables {
    pub points: [[u8; 36]; 6],
    pub strength: [[u8; 36]; 6],
}

pub static TABLES: Tables = {
    let mut points = [[0u8; 36]; 6];
    let mut strength = [[0u8; 36]; 6];
    let mut m = 0;
    while m < 6 {
        let mut c = 0;
        while c < 36 {
            let (lane, r) = (c / 9, c % 9);
            let trump = m < 4 && lane == m;
            points[m][c] = if trump {
                TRUMP_POINTS[r]
            } else if m < 4 {
                PLAIN_POINTS[r]
            } else {
                SLALOM_POINTS[r]
            };
            strength[m][c] = if trump {
                32 + TRUMP_ORDER[r]
            } else if m == 5 {
                (9 - r) as u8
            } else {
                (r + 1) as u8
            };
            c += 1;
        }
        m += 1;
    }
    Tables { points, strength }
};

/// One random deal; returns the two teams' scored (multiplied) points.
#[inline(never)]
pub fn random_deal<R: Rng>(rng: &mut R) -> [u32; 2] {
    let mut hands = hands::<36, R>(rng);
    let mode = rng.below(6) as usize;
    let (points, strength) = (&TABLES.points[mode], &TABLES.strength[mode]);
    let mut raw = [0u32; 2];
    // Stöck: the holder of the trump King and Ober scores 20 (credited at once: the deal's
    // total is the same as when the second card is played).
    if mode < 4 {
        let ko = 0b1_1000000u64 << (9 * mode);
        for (seat, &h) in hands.iter().enumerate() {
            if h & ko == ko {
                raw[seat & 1] += 20;
            }
        }
    }
    let trump_lane = if mode < 4 { LANE << (9 * mode) } else { 0 };
    let mut leader = 0usize;
    let mut tricks = [0u8; 2];
    for _ in 0..9 {
        // The lead: any card.
        let lead = pick(hands[leader], rng) as usize;
        hands[leader] &= !(1 << lead);
        let led_lane = LANE << (9 * (lead / 9));
        let mut win_pos = 0;
        let mut win_str = strength[lead];
        let mut pts = u32::from(points[lead]);
        for pos in 1..4 {
            let seat = (leader + pos) & 3;
            let h = hands[seat];
            let legal = legal(h, led_lane, win_str, mode);
            let card = pick(legal, rng) as usize;
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
        raw[leader & 1] += pts;
        tricks[leader & 1] += 1;
    }
    let team = leader & 1;
    raw[team] += 5;
    if tricks[team] == 9 {
        raw[team] += 100;
    }
    [raw[0] * MULTIPLIER[mode], raw[1] * MULTIPLIER[mode]]
}

/// The cards of `h` that may follow in a trick whose suit led is `led_lane` and whose winning
/// card has strength `win_str`, in mode `mode` (follow suit, trumping allowed instead, the
/// trump Under never forced, no undertrumping unless only trumps are left).
#[inline(always)]
pub fn legal(h: u64, led_lane: u64, win_str: u8, mode: usize) -> u64 {
    let follow = h & led_lane;
    if mode >= 4 {
        return if follow == 0 { h } else { follow };
    }
    let trump_lane = LANE << (9 * mode);
    let trumps = h & trump_lane;
    if led_lane == trump_lane {
        // Trump led: a trump is due unless the Under is the only one.
        let under = 1u64 << (9 * mode + 5);
        if trumps & !under == 0 { h } else { trumps }
    } else {
        // A trump in the trick is the winning card: only higher ones may follow.
        let allowed = if win_str >= 32 {
            HIGHER[usize::from(win_str - 32)] << (9 * mode) & trumps
        } else {
            trumps
        };
        if follow != 0 {
            follow | allowed
        } else {
            let l = (h & !trumps) | allowed;
            if l == 0 { trumps } else { l }
        }
    }
}
