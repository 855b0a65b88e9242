//! The bitmask primitives every bound shares: a uniformly random member of a card mask and a
//! Fisher–Yates shuffle of card ids, both drawing from the engine's generator
//! ([`cardhouse::SeededRng`] through [`Rng::below`]), as the engine's random deals do.

use cardhouse::Rng;

/// A uniformly random set bit of `mask` (non-empty): `below(popcount)`, then the engine's
/// branch-free broadword select (S. Vigna's; a loop would mispredict in random play).
#[inline]
pub fn pick<R: Rng>(mask: u64, rng: &mut R) -> u32 {
    debug_assert!(mask != 0);
    let n = rng.below(u64::from(mask.count_ones())) as u32;
    cardhouse::select_in_word(mask, n)
}

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

/// Four hands of `N / 4` cards each from the card ids `0..N`, uniformly at random, as masks: a
/// Fisher–Yates shuffle that stops once the last hand is what remains (`N - N / 4` draws; the
/// order of the cards within a hand does not matter).
#[inline]
pub fn hands<const N: usize, R: Rng>(rng: &mut R) -> [u64; 4] {
    let mut ids: [u8; N] = std::array::from_fn(|i| i as u8);
    for i in (N / 4..N).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        ids.swap(i, j);
    }
    let mut hands = [0u64; 4];
    for (i, &id) in ids.iter().enumerate() {
        hands[i / (N / 4)] |= 1 << id;
    }
    hands
}
