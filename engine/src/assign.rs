//! Dealing unknown cards consistently with what a seat knows: the card assignment every
//! game's `resample` shares (its inferences, which cards each holder may hold, stay in the
//! game's own `resample` module).

use crate::Rng;

/// Deals the cards of `unknown` (bit indices of a 64-bit set: a [`crate::CardSet`]'s bits,
/// or a game's own card ids) to `H` holders so that holder `h` gets exactly `need[h]` cards,
/// each of them in `allowed[h]`. `None` if this draw found no such deal (the caller tries
/// again or reports that no consistent state was found).
///
/// The most constrained cards (fewest holders that may hold them) are placed first, in
/// random order among equals, each to a holder drawn in proportion to the cards it still
/// needs. The draws from `rng` for given arguments are fixed: games' resampled states, and
/// the bots that search them, depend on it.
pub(crate) fn assign<R: Rng + ?Sized, const H: usize>(
    unknown: u64,
    need: [usize; H],
    allowed: [u64; H],
    rng: &mut R,
) -> Option<[u64; H]> {
    let mut out = [0u64; H];
    let mut left = need;
    // (holders that may hold it, a random word, the card), sorted: most constrained first.
    let mut cards = [(0usize, 0u64, 0u8); 64];
    let mut count = 0;
    let mut rest = unknown;
    while rest != 0 {
        let bit = rest.trailing_zeros() as u8;
        rest &= rest - 1;
        let holders = allowed.iter().filter(|a| *a >> bit & 1 == 1).count();
        cards[count] = (holders, rng.next_u64(), bit);
        count += 1;
    }
    let cards = &mut cards[..count];
    cards.sort_unstable();
    for &(_, _, bit) in cards.iter() {
        let total: usize = (0..H)
            .filter(|&h| allowed[h] >> bit & 1 == 1)
            .map(|h| left[h])
            .sum();
        if total == 0 {
            return None;
        }
        let mut k = rng.below(total as u64) as usize;
        for h in 0..H {
            if allowed[h] >> bit & 1 == 1 {
                if k < left[h] {
                    out[h] |= 1 << bit;
                    left[h] -= 1;
                    break;
                }
                k -= left[h];
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::assign;
    use crate::SeededRng;

    #[test]
    fn every_card_goes_to_one_holder_that_may_hold_it_in_the_counts_asked() {
        let mut rng = SeededRng::new(3);
        for _ in 0..500 {
            // Twelve cards, three holders of 4; holder 0 may not hold cards 0..4.
            let unknown = 0xFFF;
            let allowed = [0xFF0, 0xFFF, 0xFFF];
            let out = assign(unknown, [4, 4, 4], allowed, &mut rng).expect("a deal exists");
            assert_eq!(out[0] | out[1] | out[2], unknown);
            for (h, set) in out.iter().enumerate() {
                assert_eq!(set.count_ones(), 4);
                assert_eq!(
                    set & !allowed[h],
                    0,
                    "holder {h} got a card it may not hold"
                );
                for other in &out[h + 1..] {
                    assert_eq!(set & other, 0);
                }
            }
        }
    }

    #[test]
    fn an_impossible_deal_is_none() {
        let mut rng = SeededRng::new(1);
        // Two cards that only holder 0 may hold, but it needs one card.
        assert_eq!(assign(0b11, [1, 1], [0b11, 0], &mut rng), None);
    }
}
