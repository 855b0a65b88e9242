//! What makes a card a trump (§3.1, §3.2): the four Queens and four Jacks always, with the
//! plain cards of the trump suit; a hand's trump count for a suit (§7.1); the effective suit
//! of a card; and the ranking of §3.2 that decides a trick. Bidding (`bidding.rs`), the deal
//! (`deal.rs`), trick play (`play.rs`) and the bots read them from here.
//!
//! Cards are ids `lane * 8 + rank bit` with rank bits 0..8 = 7 8 9 10 J Q K A.

/// The Queens and Jacks (always trumps).
pub(super) const QJ: u32 = 0x3030_3030;
/// The plain ranks (A 10 K 9 8 7) of lane 0; shift by `8 * lane`.
pub(super) const PLAIN_LANE: u32 = 0xCF;

/// The 14 trumps when `trump` (a lane) is trump; 0 before trump is fixed.
#[must_use]
pub(super) const fn trump_mask(trump: u8) -> u32 {
    if trump < 4 {
        QJ | PLAIN_LANE << (8 * trump as u32)
    } else {
        0
    }
}

/// `count(H, s)` of §7.1: the Queens and Jacks of the hand plus its plain-rank cards of `s`.
#[must_use]
pub(super) fn trump_count(hand: u32, suit: u8) -> u32 {
    (hand & QJ).count_ones() + (hand & PLAIN_LANE << (8 * u32::from(suit))).count_ones()
}

/// `STRENGTH[trump][id]`: a trump's strength 16..=29 in the order of §3.2 (Q♣, 7 of trump,
/// Q♠ Q♥ Q♦, J♣ J♠ J♥ J♦, A 10 K 9 8 of trump); for any other card its plain rank 1..=6
/// (7 8 9 K 10 A), which counts only in the suit led.
static STRENGTH: [[u8; 32]; 4] = {
    // Plain ranks by rank bit: 7 8 9 10 J Q K A.
    const PLAIN: [u8; 8] = [1, 2, 3, 5, 0, 0, 4, 6];
    // Trump suit's own cards: 7 = 28, 8 = 16, 9 = 17, 10 = 19, K = 18, A = 20.
    const OWN: [u8; 8] = [28, 16, 17, 19, 0, 0, 18, 20];
    // Queens and Jacks by lane ♣ ♦ ♥ ♠.
    const QUEEN: [u8; 4] = [29, 25, 26, 27];
    const JACK: [u8; 4] = [24, 21, 22, 23];
    let mut t = [[0u8; 32]; 4];
    let mut trump = 0;
    while trump < 4 {
        let mut id = 0;
        while id < 32 {
            let lane = id / 8;
            let r = id % 8;
            t[trump][id] = if r == 5 {
                QUEEN[lane]
            } else if r == 4 {
                JACK[lane]
            } else if lane == trump {
                OWN[r]
            } else {
                PLAIN[r]
            };
            id += 1;
        }
        trump += 1;
    }
    t
};

/// Strength of card `id` in a trick whose lead has effective suit `led` (a lane, 4 = trump):
/// trumps 16..=29, cards of the led plain suit 1..=6, anything else 0.
#[inline]
#[must_use]
pub(super) fn strength(trump: u8, led: u8, id: u8) -> u8 {
    let s = STRENGTH[usize::from(trump & 3)][usize::from(id & 31)];
    if s >= 16 || id >> 3 == led { s } else { 0 }
}

/// Effective suit mask and suit (4 = trump) of card `id` under trump mask `tmask`.
#[inline]
#[must_use]
pub(super) fn effective(tmask: u32, id: u8) -> (u32, u8) {
    if tmask >> id & 1 == 1 {
        (tmask, 4)
    } else {
        (PLAIN_LANE << (id & 24), id >> 3)
    }
}
