//! Observation planes: a word of bits written as slots of `0.0` and `1.0`, the form every
//! game's card planes take (one slot per card-action id).

/// `NIBBLE[n]`: the four slots of the nibble `n` (bit `i` in slot `i`).
static NIBBLE: [[f32; 4]; 16] = {
    let mut t = [[0.0; 4]; 16];
    let mut n = 0;
    while n < 16 {
        let mut i = 0;
        while i < 4 {
            t[n][i] = if n >> i & 1 == 1 { 1.0 } else { 0.0 };
            i += 1;
        }
        n += 1;
    }
    t
};

/// Writes the `N` slots at `offset` (`N` a multiple of 4, at most 64): slot `i` is `1.0` if
/// bit `i` of `bits` is set, else `0.0`; every slot is written, so none needs zeroing first.
/// Four slots at a time from a table (a load and a store instead of four conversions), the
/// same work whatever the cards; see [`write_sparse_bits`] for planes that are mostly empty.
#[inline]
pub(crate) fn write_bits<const N: usize>(out: &mut [f32], offset: usize, bits: u64) {
    const { assert!(N % 4 == 0 && N <= 64) };
    let out = &mut out[offset..offset + N];
    for (k, chunk) in out.chunks_exact_mut(4).enumerate() {
        chunk.copy_from_slice(&NIBBLE[(bits >> (4 * k) & 15) as usize]);
    }
}

/// [`write_bits`] for a plane that is empty in most steps (a Wys, a crib, the cards turned
/// up): an empty plane by stores alone. Where a plane is empty in some steps and not in
/// others at random, the test's mispredictions cost more than the loads it saves (callgrind's
/// branch simulation of a `VectorEnv` step): those planes use [`write_bits`].
#[inline]
pub(crate) fn write_sparse_bits<const N: usize>(out: &mut [f32], offset: usize, bits: u64) {
    if bits == 0 {
        out[offset..offset + N].fill(0.0);
    } else {
        write_bits::<N>(out, offset, bits);
    }
}

/// Writes the `4 * RANKS` slots at `offset` of a card set's bits (16 bits a suit, its ranks
/// from bit `LOW`): slot `RANKS * s + i` is bit `16 * s + LOW + i`, so a game whose card ids
/// run suit by suit over consecutive ranks writes its sets without converting them to ids
/// first. `RANKS` is a multiple of 4 and `LOW + RANKS` at most 16.
#[inline]
pub(crate) fn write_suit_lanes<const RANKS: usize, const LOW: usize>(
    out: &mut [f32],
    offset: usize,
    bits: u64,
) {
    const { assert!(RANKS % 4 == 0 && LOW + RANKS <= 16) };
    let out = &mut out[offset..offset + 4 * RANKS];
    for (k, chunk) in out.chunks_exact_mut(4).enumerate() {
        let at = 16 * (k / (RANKS / 4)) + LOW + 4 * (k % (RANKS / 4));
        chunk.copy_from_slice(&NIBBLE[(bits >> at & 15) as usize]);
    }
}

/// [`write_suit_lanes`] for a plane that is empty in most steps (see [`write_sparse_bits`]).
#[inline]
pub(crate) fn write_sparse_suit_lanes<const RANKS: usize, const LOW: usize>(
    out: &mut [f32],
    offset: usize,
    bits: u64,
) {
    if bits == 0 {
        out[offset..offset + 4 * RANKS].fill(0.0);
    } else {
        write_suit_lanes::<RANKS, LOW>(out, offset, bits);
    }
}

#[cfg(test)]
mod tests {
    use super::{write_bits, write_sparse_bits, write_sparse_suit_lanes, write_suit_lanes};

    fn slow(n: usize, bits: u64) -> Vec<f32> {
        (0..n).map(|i| (bits >> i & 1) as f32).collect()
    }

    #[test]
    fn every_slot_is_its_bit() {
        let words = [
            0,
            1,
            0b1011_0110,
            1 << 31,
            1 << 35,
            (1 << 52) - 1,
            0x000F_0F0F_F0F0_1234,
        ];
        for bits in words {
            // Slots around the plane keep their values; bits past it are ignored.
            let mut out = vec![7.0f32; 60];
            write_bits::<32>(&mut out, 4, bits);
            assert_eq!(&out[4..36], slow(32, bits).as_slice(), "{bits:#x}");
            assert!(out[..4].iter().chain(&out[36..]).all(|&x| x == 7.0));
            let mut out = vec![7.0f32; 36];
            write_bits::<36>(&mut out, 0, bits);
            assert_eq!(out, slow(36, bits), "{bits:#x}");
            let mut out = vec![7.0f32; 52];
            write_bits::<52>(&mut out, 0, bits);
            assert_eq!(out, slow(52, bits), "{bits:#x}");
            let mut out = vec![7.0f32; 52];
            write_sparse_bits::<52>(&mut out, 0, bits);
            assert_eq!(out, slow(52, bits), "{bits:#x}");
            // Suit lanes: 8 ranks from bit 5 of each 16-bit suit (Klaberjass's ids).
            let mut out = vec![7.0f32; 32];
            write_suit_lanes::<8, 5>(&mut out, 0, bits);
            let lanes: Vec<f32> = (0..32)
                .map(|i| (bits >> (16 * (i / 8) + 5 + i % 8) & 1) as f32)
                .collect();
            assert_eq!(out, lanes, "{bits:#x}");
            let mut out = vec![7.0f32; 32];
            write_sparse_suit_lanes::<8, 5>(&mut out, 0, bits);
            assert_eq!(out, lanes, "{bits:#x}");
        }
    }
}
