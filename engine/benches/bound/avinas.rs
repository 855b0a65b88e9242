//! The bound of a random Avinas deal: the least work a bitmask implementation does for one,
//! with the engine's default options (early stop in the bidding game, none in the sevens
//! game) and the first dealer fixed (seat 0, as the engine's benchmark sets it).
//!
//! A random player's choices decide how long an Avinas deal lasts (an all-pass auction plays
//! no card, an early stop or a failed knock ends play early), so the bound makes the same
//! decisions the engine's random player makes, each uniform among the same legal actions.
//!
//! **Included**, as the engine must do them: a Fisher–Yates shuffle of the 32 cards with the
//! engine's generator, the deal in packets of four with the exposed 4th and 8th cards (a
//! face-up Seven makes a sevens game: declarer, trump and base), the knock and double
//! decisions, the auction by trump counts, the opening lead of a bidding game (a plain card of
//! a suit counting the bid, or a Queen or Jack naming one), the trump rules of tricks 1 and 2,
//! following the effective suit (Queens and Jacks are trumps), the trick winner, card points,
//! tricks won, a knock stopped by the defenders' first trick, the declarer's early stop, and
//! the deal's score (§11: the rams of a sevens game with its knock and double, the pips of a
//! bidding game), read as the deal's value for the dealer's team, as the engine's bench reads
//! the `scope = deal` returns.
//!
//! **Left out**, engine work that the bound does not count: the face-down lead at trick 2 is
//! a card choice only (the bound picks the card; the engine offers each card face up and face
//! down, which is the same card with the same odds), the per-deal action log and history, the
//! dealt-hands, exposed and played-cards records, the per-trick records kept for views, the
//! deal's result record, and the `Game`/`State` interface.
//!
//! The bench's check ([`super::check`]) compares the distribution of the bound's deals with the
//! engine's.

use cardhouse::Rng;

use super::bitmask::{pick, shuffled};

/// The Queens and Jacks (always trumps), and the plain ranks (7 8 9 10 K A) of lane 0.
const QJ: u64 = 0x3030_3030;
const PLAIN_LANE: u64 = 0xCF;
const SEVENS: u64 = 0x0101_0101;

/// Card points by rank bit (7 8 9 10 J Q K A).
const POINTS: [u8; 8] = [0, 0, 0, 10, 2, 3, 4, 11];

/// `STRENGTH[trump][id]`: trumps 16..=29 (Q♣, 7 of trump, Q♠ Q♥ Q♦, J♣ J♠ J♥ J♦, A 10 K 9
/// 8 of trump), any other card its plain rank 1..=6, which counts only in the suit led.
static STRENGTH: [[u8; 32]; 4] = {
    const PLAIN: [u8; 8] = [1, 2, 3, 5, 0, 0, 4, 6];
    const OWN: [u8; 8] = [28, 16, 17, 19, 0, 0, 18, 20];
    const QUEEN: [u8; 4] = [29, 25, 26, 27];
    const JACK: [u8; 4] = [24, 21, 22, 23];
    let mut t = [[0u8; 32]; 4];
    let mut trump = 0;
    while trump < 4 {
        let mut id = 0;
        while id < 32 {
            let (lane, r) = (id / 8, id % 8);
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

/// The trump count of `hand` for `suit`: its Queens and Jacks and plain cards of the suit.
#[inline]
fn count(hand: u64, suit: usize) -> u32 {
    (hand & (QJ | PLAIN_LANE << (8 * suit))).count_ones()
}

/// What one deal produced, for the equivalence check (the timed loop keeps `value`). Teams
/// are `[declaring, defending]`.
#[derive(Default)]
pub struct Deal {
    /// 0 all passed, 1 a sevens game, 2 a bidding game.
    pub kind: u32,
    /// Sevens game: the face-up Sevens; bidding game: the winning bid.
    pub base: u32,
    pub bid: u32,
    pub knock: bool,
    pub double: bool,
    pub knock_failed: bool,
    pub stopped: bool,
    /// Decisions (actions) made, cards included.
    pub decisions: u32,
    pub points: [u32; 2],
    pub tricks: [u32; 2],
    /// The rams or pips given, and whether against the declaring team.
    pub amount: u32,
    pub against_declarer: bool,
    /// The deal's value for the dealer's team (seat 0's): minus the amount given against it,
    /// plus the amount given against the other.
    pub value: i32,
}

/// One random deal; returns its value for the dealer's team (as `Deal::value`).
#[inline(never)]
pub fn random_deal<R: Rng>(rng: &mut R) -> i32 {
    deal(rng).value
}

/// One random deal, with what it produced.
#[inline(always)]
pub fn deal<R: Rng>(rng: &mut R) -> Deal {
    let ids: [u8; 32] = shuffled(rng);
    let dealer = 0usize;
    let mut hands = [0u64; 4];
    let (mut base, mut declarer, mut trump) = (0, 0usize, 0usize);
    for (p, packet) in ids.chunks_exact(4).enumerate() {
        let seat = (dealer + 1 + p) & 3;
        for &id in packet {
            hands[seat] |= 1 << id;
        }
        let last = packet[3];
        let face_up = (seat ^ dealer) & 1 == 1 || SEVENS >> last & 1 == 1;
        if face_up && SEVENS >> last & 1 == 1 {
            base += 1;
            declarer = seat;
            trump = usize::from(last >> 3);
        }
    }
    let mut d = Deal::default();
    if base > 0 {
        // Knock: the declarer, then his partner; after a knock the defenders may double.
        d.kind = 1;
        d.base = base;
        if rng.below(2) == 1 {
            d.knock = true;
            d.decisions = 1;
        } else {
            d.knock = rng.below(2) == 1;
            d.decisions = 2;
        }
        if d.knock {
            if rng.below(2) == 1 {
                d.double = true;
                d.decisions += 1;
            } else {
                d.double = rng.below(2) == 1;
                d.decisions += 2;
            }
        }
        let (pts, won, stops) = play(&mut hands, trump, declarer, None, d.knock, false, rng);
        return score(d, declarer, pts, won, stops);
    }
    // The auction, from the dealer's left: `bid n` (a trump count above every bid) or pass.
    let mut high = 0u32;
    for k in 1..5 {
        let seat = (dealer + k) & 3;
        let h = hands[seat];
        let mut counts = 0u64;
        for s in 0..4 {
            counts |= 1 << count(h, s) >> 1;
        }
        let bids = counts & !0 << high & 0xFF;
        let choice = rng.below(u64::from(bids.count_ones()) + 1) as u32;
        if choice < bids.count_ones() {
            high = select(bids, choice) + 1;
            declarer = seat;
        }
    }
    d.decisions = 4;
    if high == 0 {
        return d;
    }
    d.kind = 2;
    d.bid = high;
    // The opening lead: a plain card of a suit counting the bid, or a Queen or Jack naming
    // such a suit, which becomes trump.
    let h = hands[declarer];
    let mut plain = 0u64;
    let mut named = 0u64;
    for s in 0..4 {
        if count(h, s) == high {
            plain |= h & PLAIN_LANE << (8 * s);
            named |= 1 << s;
        }
    }
    let qj = h & QJ;
    let (np, nn) = (plain.count_ones(), named.count_ones());
    let k = rng.below(u64::from(np + qj.count_ones() * nn)) as u32;
    let lead = if k < np {
        let id = select(plain, k);
        trump = (id >> 3) as usize;
        id
    } else {
        let (card, suit) = ((k - np) / nn, (k - np) % nn);
        trump = select(named, suit) as usize;
        select(qj, card)
    };
    hands[declarer] &= !(1u64 << lead);
    let (pts, won, stops) = play(
        &mut hands,
        trump,
        declarer,
        Some(lead as usize),
        false,
        true,
        rng,
    );
    score(d, declarer, pts, won, stops)
}

/// The deal's score (§11) from the card points and tricks of the declaring team and the
/// defenders, with the engine's default options (`all_tricks_loss_rams = double_loss`,
/// `schwarz_basis = card_points`); `stops` is the early-stop decisions made, the last one a
/// stop if play ended before the 8th trick without a failed knock.
#[inline(always)]
fn score(mut d: Deal, declarer: usize, pts: [u32; 2], won: [u32; 2], stops: u32) -> Deal {
    let played = won[0] + won[1];
    d.decisions += 4 * played + stops;
    d.points = pts;
    d.tricks = won;
    let (dp, fp) = (pts[0], pts[1]);
    (d.against_declarer, d.amount) = if d.kind == 1 {
        let base = d.base;
        if d.knock {
            let m = if d.double { 4 } else { 2 };
            d.knock_failed = won[1] > 0;
            if d.knock_failed {
                (true, 2 * base * m)
            } else {
                (false, base * m)
            }
        } else if dp >= 61 {
            (false, base)
        } else {
            (true, 2 * base)
        }
    } else {
        d.stopped = played < 8;
        if dp >= 61 {
            let n = match fp {
                0 => 3,
                31.. => 1,
                _ => 2,
            };
            (false, n)
        } else if dp >= 31 {
            (true, 2)
        } else if dp == 0 {
            (true, 6)
        } else {
            (true, 4)
        }
    };
    // The dealer (seat 0) is of the declaring team when the declarer's seat is even.
    let dealer_declares = declarer & 1 == 0;
    let against_dealer = d.against_declarer == dealer_declares;
    d.value = if against_dealer {
        -(d.amount as i32)
    } else {
        d.amount as i32
    };
    d
}

/// Index of the `n`-th set bit of a small mask (outside the per-card loop).
#[inline]
fn select(mut w: u64, n: u32) -> u32 {
    for _ in 0..n {
        w &= w - 1;
    }
    w.trailing_zeros()
}

/// The tricks: returns card points and tricks won, declaring team first, and the early-stop
/// decisions made.
#[inline]
fn play<R: Rng>(
    hands: &mut [u64; 4],
    trump: usize,
    declarer: usize,
    opening: Option<usize>,
    knock: bool,
    early_stop: bool,
    rng: &mut R,
) -> ([u32; 2], [u32; 2], u32) {
    let tmask = QJ | PLAIN_LANE << (8 * trump);
    let strength = &STRENGTH[trump];
    let dt = declarer & 1;
    let (mut pts, mut won, mut stops) = ([0u32; 2], [0u32; 2], 0);
    let mut leader = declarer;
    for t in 0..8 {
        let lead = match (t, opening) {
            (0, Some(id)) => id,
            _ => {
                let h = hands[leader];
                let legal = if t < 2 && h & tmask != 0 {
                    h & tmask
                } else {
                    h
                };
                let id = pick(legal, rng) as usize;
                hands[leader] &= !(1 << id);
                id
            }
        };
        let led = if tmask >> lead & 1 == 1 {
            tmask
        } else {
            PLAIN_LANE << (lead & 24)
        };
        let follow = if t == 1 { tmask } else { led };
        let (mut win_pos, mut win_str) = (0, strength[lead]);
        let mut p = u32::from(POINTS[lead & 7]);
        for pos in 1..4 {
            let seat = (leader + pos) & 3;
            let h = hands[seat];
            let legal = if h & follow != 0 { h & follow } else { h };
            let card = pick(legal, rng) as usize;
            hands[seat] &= !(1 << card);
            let s = if (tmask | led) >> card & 1 == 1 {
                strength[card]
            } else {
                0
            };
            if s > win_str {
                win_pos = pos;
                win_str = s;
            }
            p += u32::from(POINTS[card & 7]);
        }
        leader = (leader + win_pos) & 3;
        let team = usize::from((leader & 1) != dt);
        pts[team] += p;
        won[team] += 1;
        if knock && team == 1 {
            break;
        }
        if t < 7 && early_stop {
            stops += 1;
            if rng.below(2) == 1 {
                break;
            }
        }
    }
    (pts, won, stops)
}
