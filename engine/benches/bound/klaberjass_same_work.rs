//! The same-work bound of a random Klaberjass deal: the least work a bitmask implementation
//! does to play the whole deal the engine's random player plays, with the engine's options of
//! the benchmark (`scope = deal`, `first_dealer = random`, `equal_sequence_rule =
//! nobody_scores`, `maker_tie_rule = opponent_scores_own`, last trick 10).
//!
//! Unlike the play-phase bound ([`super::play_phase`]), it makes the decisions the engine's
//! random player makes, each uniform among as many choices of the same meanings as the engine's
//! legal action ids: in bidding round 1 `take` or `pass` (elder, then dealer), in round 2
//! `pass` or `name` one of the 3 other suits (4 passes annul the deal, 1 in 64); in each Dix
//! exchange window (held when trump was taken in round 1 and the turn-up is not a 7)
//! `wait`/`keep`, or `exchange` for the holder of the trump 7; at the announcement `announce`
//! or `declare` one of the maximal runs after the last one declared (as the engine offers them,
//! in ascending item order), again after each; then a uniform legal card per turn. It draws
//! from the generator in its own order (the distribution of deals is the engine's, not the
//! sequence for a seed); the bench's `check` compares the two distributions.
//!
//! **Included**, as the engine must do them: the cut, the 18 hand cards and the turn-up drawn
//! branch-free 5 bits a card from generator words as the engine's deal draws them ([`draw`]),
//! both bidding rounds and the annulled deal, both exchange windows with the exchange (the
//! trump 7 for the turn-up), the declarations and the §8.4 protocol (each side's declared
//! points and best sequence by value, top and trump; the better one scores, equal ones
//! nobody), Bella judged after the windows, the trick play of the play-phase bound, the
//! last-trick bonus and the maker's §11 comparison.
//!
//! **Left out**, engine work that a minimal implementation does not need: the deal in two
//! stages (the engine draws 12 hand cards and the turn-up, then after the bidding 6 hand cards
//! and the bottom card, each stage from fresh generator words, as its chance nodes must; the
//! bound draws the 19 cards it uses at once, before the bidding, which no card influences in
//! random play: the same distribution, one generator word fewer on average, about 5% of the
//! bound's time; 6 of them unused in the 1 in 64 annulled deals), the bottom card (no rule or
//! decision of a random player uses it), the decisions with a single legal action (an
//! `announce` with no run to declare) take no generator draw (the engine's random player
//! draws `below(1)`), the announcement record and its texts, the cards shown by the sequence
//! winner, the per-deal action log and history, the dealt-hands and played-cards records, the
//! per-trick records kept for views, the deal's result record, and the `Game`/`State`
//! interface (phases, action-id sets of 256 bits, checks).

use cardhouse::Rng;

use super::play_phase::{LANE, draw, play, score};

/// What one deal produced, for the equivalence check (the timed loop keeps `added`). Values
/// per role are `[elder, dealer]`.
#[derive(Default)]
pub struct Deal {
    /// The points each seat adds (§11).
    pub added: [u32; 2],
    pub dealer: usize,
    /// Bids made (1 to 4); 4 passes annul the deal.
    pub bids: u32,
    pub annulled: bool,
    /// The maker's role, 0 elder, 1 dealer.
    pub maker: usize,
    pub windows: bool,
    /// The window of the exchange (1 or 2), 0 without one.
    pub exchanged: u32,
    /// Run items declared by both players.
    pub declared: u32,
    /// A player declared two runs or more.
    pub multi: bool,
    /// Per role: sequence points scored, Bella, card points (with the last trick), deal totals.
    pub seq: [u32; 2],
    pub bella: [u32; 2],
    pub cards: [u32; 2],
    pub totals: [u32; 2],
}

/// The tops of the maximal runs of ≥ 3 cards of hand `h` (card-id bits, 8-bit lanes, ranks
/// 7..A in natural order): a held card whose next higher card is missing and whose two next
/// lower ones are held. Their order is the engine's item order.
#[inline(always)]
pub fn run_tops(h: u64) -> u64 {
    h & !(h >> 1 & 0x7F7F_7F7F) & (h << 1 & 0xFEFE_FEFE) & (h << 2 & 0xFCFC_FCFC)
}

/// A player's announcement turn holding runs with tops `tops`: uniform among `announce` and
/// the runs after the last declared, again after each declared run, until `announce`.
/// Returns the declared points, the best declared run's comparison key (value, top, trump;
/// 0 for none) and the number declared.
#[inline(never)]
fn declare<R: Rng>(h: u64, tops: u64, trump: usize, rng: &mut R) -> (u32, u32, u32) {
    let (mut points, mut key, mut n, mut offered) = (0, 0, 0, tops);
    loop {
        let k = rng.below(1 + u64::from(offered.count_ones())) as u32;
        if k == 0 {
            return (points, key, n);
        }
        let top = cardhouse::select_in_word(offered, k - 1);
        offered &= !((2u64 << top) - 1);
        let (p, kk) = run(h, top, trump);
        points += p;
        key = key.max(kk);
        n += 1;
    }
}

/// The points of the maximal run of `h` with top card `top` (20 for three cards, 50 for more)
/// and its comparison key (§8.2: value, then top, then trump; higher is better).
pub fn run(h: u64, top: u32, trump: usize) -> (u32, u32) {
    // The run's lowest card: above the highest missing card below its top in its lane.
    let lane = u64::from(top & !7);
    let missing = !h & ((1u64 << top) - 1) & LANE << lane;
    let low = if missing == 0 {
        lane as u32
    } else {
        64 - missing.leading_zeros()
    };
    let long = top - low >= 3;
    let points = if long { 50 } else { 20 };
    (
        points,
        u32::from(long) << 5 | (top & 7) << 1 | u32::from(lane == 8 * trump as u64),
    )
}

/// One random deal; returns the points each seat adds (§11).
#[inline(never)]
pub fn random_deal<R: Rng>(rng: &mut R) -> [u32; 2] {
    deal(rng).added
}

/// One random deal, with what it produced.
#[inline(always)]
pub fn deal<R: Rng>(rng: &mut R) -> Deal {
    let dealer = rng.below(2) as usize;
    // Hands by role, [elder, dealer], and the turn-up: the 18 hand cards at once (see the
    // header).
    let (mut hands, mut up, _) = draw(0, 19, rng);
    let up_suit = (up >> 3) as usize;
    // Round 1 on the turn-up's suit, elder first; round 2 names one of the other three.
    let other = |k: u64| {
        let s = k as usize - 1;
        if s >= up_suit { s + 1 } else { s }
    };
    let (trump, maker, bids) = if rng.below(2) == 0 {
        (up_suit, 0, 1)
    } else if rng.below(2) == 0 {
        (up_suit, 1, 2)
    } else {
        let k = rng.below(4);
        if k != 0 {
            (other(k), 0, 3)
        } else {
            let k = rng.below(4);
            if k == 0 {
                return Deal {
                    dealer,
                    bids: 4,
                    annulled: true,
                    ..Deal::default()
                };
            }
            (other(k), 1, 4)
        }
    };
    // The exchange windows: the holder of the trump 7 (if either holds it) may exchange it
    // for the turn-up once; nobody holds it after an exchange.
    let windows = bids <= 2 && up & 7 != 0;
    let seven = 1u64 << (8 * trump);
    let mut exchanged = 0;
    let mut window = |hands: &mut [u64; 2], up: &mut u32, w: u32, rng: &mut R| {
        for h in hands.iter_mut() {
            if *h & seven != 0 && rng.below(2) == 0 {
                *h = *h & !seven | 1 << *up;
                *up = 8 * trump as u32;
                exchanged = w;
            }
        }
    };
    if windows {
        window(&mut hands, &mut up, 1, rng);
    }
    // The announcements, elder first; the better best sequence scores all its side's.
    let (mut seq_points, mut keys, mut declared, mut multi) = ([0u32; 2], [0u32; 2], 0, false);
    for role in 0..2 {
        let tops = run_tops(hands[role]);
        if tops != 0 {
            let (p, k, n) = declare(hands[role], tops, trump, rng);
            seq_points[role] = p;
            keys[role] = k;
            declared += n;
            multi |= n >= 2;
        }
    }
    let mut seq = [0u32; 2];
    if keys[0] != keys[1] {
        let w = usize::from(keys[1] > keys[0]);
        seq[w] = seq_points[w];
    }
    if windows {
        window(&mut hands, &mut up, 2, rng);
    }
    let kq = 0b110_0000u64 << (8 * trump);
    let bella = hands.map(|h| if h & kq == kq { 20 } else { 0 });
    let cards = play(hands, trump, 0, rng);
    let totals = [0, 1].map(|r| seq[r] + bella[r] + cards[r]);
    let by_role = score(maker, totals);
    let mut added = [0u32; 2];
    added[dealer] = by_role[1];
    added[1 - dealer] = by_role[0];
    Deal {
        added,
        dealer,
        bids,
        annulled: false,
        maker,
        windows,
        exchanged,
        declared,
        multi,
        seq,
        bella,
        cards,
        totals,
    }
}
