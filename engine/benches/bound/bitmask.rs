//! The bitmask primitives every bound shares: a uniformly random member of a card mask and a
//! Fisher–Yates shuffle of card ids, both drawing from the engine's generator
//! ([`cardhouse::SeededRng`] through [`Rng::below`]), as the engine's random deals do.

use cardhouse::Rng;

/// A uniformly random set bit of `mask` (non-empty): `below(popcount)`, then the branch-free
/// broadword select the engine also uses (S. Vigna's; a loop would mispredict in random play).
#[inline]
pub fn pick<R: Rng>(mask: u64, rng: &mut R) -> u32 {
    debug_assert!(mask != 0);
    let n = rng.below(u64::from(mask.count_ones())) as u32;
    select(mask, n)
}

/// Index of the `n`-th set bit of `w` (`n < w.count_ones()`).
#[inline]
fn select(w: u64, n: u32) -> u32 {
    const L8: u64 = 0x0101_0101_0101_0101;
    const H8: u64 = 0x8080_8080_8080_8080;
    let mut s = w - ((w & 0xAAAA_AAAA_AAAA_AAAA) >> 1);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    s = (s + (s >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    let prefix = s.wrapping_mul(L8);
    let le = (((u64::from(n) * L8) | H8) - prefix) & H8;
    let place = le.count_ones() * 8;
    let before = ((prefix << 8) >> place & 0xFF) as u32;
    let byte = (w >> place & 0xFF) as usize;
    place + u32::from(SELECT_IN_BYTE[(n - before) as usize * 256 + byte])
}

/// `SELECT_IN_BYTE[k * 256 + b]`: position of the `k`-th set bit of byte `b` (8 if none).
static SELECT_IN_BYTE: [u8; 2048] = {
    let mut t = [8u8; 2048];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        let mut bit = 0;
        while bit < 8 {
            if b >> bit & 1 == 1 {
                t[k * 256 + b] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

/// The card ids `0..N` in a uniformly random order (Fisher–Yates, `N - 1` draws).
#[inline]
pub fn shuffled<const N: usize, R: Rng>(rng: &mut R) -> [u8; N] {
    let mut ids: [u8; N] = std::array::from_fn(|i| i as u8);
    for i in (1..N).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        ids.swap(i, j);
    }
    ids
}
