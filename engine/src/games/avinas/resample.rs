//! Determinization (`resample`): a full state consistent with everything one seat knows.
//!
//! Method: the current deal is re-dealt position by position. Positions whose card the seat
//! knows keep it: its own cards, every face-up 4th/8th card, and when the seat is the dealer
//! his partner's face-down 4th/8th cards. Every other seat keeps the cards it has been seen
//! to play; the remaining unknown cards are dealt at random among the other seats (and the
//! undealt rest during a deal), respecting the voids play has shown: a follower at trick 1
//! or any player at trick 2 who did not play a trump holds none (a face-down lead included),
//! and a follower at tricks 3–8 who did not follow holds none of the effective suit led. A
//! dealer-side face-down 4th/8th card gets a non-Seven. A candidate must satisfy the bids (a
//! bid of `n` means a suit with trump count exactly `n`, §7.1) before the deal's actions are
//! replayed with checked `apply`, which also enforces the opening lead's consistency with the
//! bid and every follow obligation. A pending face-down lead of another seat is re-chosen
//! among that seat's new cards. A candidate is accepted only if the seat's observation and
//! view are unchanged. Finished deals of a match are kept as they were.

use super::bidding::count_mask;
use super::deal::SEVENS;
use super::trumps::effective;
use super::{AvinasState, FACE_DOWN_BASE, NAMED_BASE, Phase};
use crate::{Action, Error, Game, Rng, State, Viewer};

/// Attempts before giving up.
const MAX_TRIES: usize = 20_000;

pub(super) fn resample<R: Rng + ?Sized>(
    s: &AvinasState,
    seat: usize,
    rng: &mut R,
) -> Result<AvinasState, Error> {
    if seat >= 4 {
        return Err(Error::InvalidSeat {
            seat: seat as i64,
            last: 3,
        });
    }
    if s.phase == Phase::ChooseDealer {
        return Ok(s.clone());
    }
    let fail = |reason: String| Error::ResampleFailed { seat, reason };
    let obs = s.observation(seat)?;
    let view = serde_json::to_value(s.view(Viewer::Seat(seat))?).unwrap_or_default();
    let me = Some(seat);
    let dealer = usize::from(s.dealer);
    let partner_of_dealer = (dealer + 2) & 3;
    let start = usize::from(s.deal_start);
    let dealt = usize::from(s.dealt);
    let deal_seq = &s.log[start..start + dealt];

    // Which positions keep their card, and the free positions of each other seat.
    let mut keep = [false; 32];
    let mut kept = 0u32;
    let mut free: [Vec<usize>; 4] = Default::default();
    let mut free_special = [0usize; 4];
    for (k, &id) in deal_seq.iter().enumerate() {
        let p = s.deal_target(k as u8);
        let special = AvinasState::is_special(k as u8);
        let known = p == seat
            || (special && s.exposed >> id & 1 == 1)
            || (special && seat == dealer && p == partner_of_dealer);
        if known {
            keep[k] = true;
            kept |= 1 << id;
        } else {
            free[p].push(k);
            if special {
                free_special[p] += 1;
            }
        }
    }
    let mut shown = [0u32; 4];
    let mut all_shown = 0;
    for (p, sh) in shown.iter_mut().enumerate() {
        if p != seat {
            *sh = s.seen_played(me, p) & !kept;
            all_shown |= *sh;
        }
    }
    let unknown = !kept & !all_shown;
    let mut need = [0usize; 5];
    for p in 0..4 {
        if p != seat {
            need[p] = free[p]
                .len()
                .checked_sub(shown[p].count_ones() as usize)
                .ok_or_else(|| fail("more cards shown than dealt".into()))?;
        }
    }
    need[4] = 32 - dealt;
    if need.iter().sum::<usize>() != unknown.count_ones() as usize {
        return Err(fail("card counts do not add up".into()));
    }
    let voids = inferred_voids(s, me);
    let mut allowed = [unknown; 5];
    for p in 0..4 {
        allowed[p] &= !voids[p];
    }

    let past: Vec<Action> = s
        .past
        .as_deref()
        .map_or_else(Vec::new, |p| p.iter().map(|&a| Action::from(a)).collect());
    let mut base = s.game.new_initial_state();
    for &a in &past {
        base.apply_unchecked(a);
    }
    let before: Vec<Action> = s.log[..start].iter().map(|&a| Action::from(a)).collect();
    for &a in &before {
        base.apply(a).map_err(|e| fail(e.to_string()))?;
    }
    let after: Vec<Action> = s.log[start + dealt..s.log_len as usize]
        .iter()
        .map(|&a| Action::from(a))
        .collect();

    for _ in 0..MAX_TRIES {
        let Some(assigned) =
            crate::assign::assign(u64::from(unknown), need, allowed.map(u64::from), rng)
                .map(|sets| sets.map(|set| set as u32))
        else {
            continue;
        };
        let mut seq = [0u8; 32];
        seq[..dealt].copy_from_slice(deal_seq);
        let mut ok = true;
        let mut hands = [0u32; 4];
        for p in 0..4 {
            if p == seat || free[p].is_empty() {
                continue;
            }
            let mut cards = shown[p] | assigned[p];
            // Face-down 4th/8th cards first: non-Sevens.
            let mut specials = Vec::with_capacity(2);
            for _ in 0..free_special[p] {
                let Some(id) = pick(cards & !SEVENS, rng) else {
                    ok = false;
                    break;
                };
                cards &= !(1 << id);
                specials.push(id);
            }
            if !ok {
                break;
            }
            for &k in &free[p] {
                let id = if AvinasState::is_special(k as u8) {
                    specials.pop().unwrap_or(0)
                } else {
                    let Some(id) = pick(cards, rng) else {
                        ok = false;
                        break;
                    };
                    cards &= !(1 << id);
                    id
                };
                seq[k] = id;
            }
            if !ok {
                break;
            }
        }
        if !ok {
            continue;
        }
        for (k, &id) in seq[..dealt].iter().enumerate() {
            hands[s.deal_target(k as u8)] |= 1 << id;
        }
        // Bids: each bidder holds a suit with exactly that trump count.
        if (0..4).any(|p| {
            let b = s.bids[p];
            (1..=8).contains(&b) && count_mask(hands[p]) >> (b - 1) & 1 == 0
        }) {
            continue;
        }
        let Some(candidate) = replay_with(s, seat, &base, &seq[..dealt], &after, rng) else {
            continue;
        };
        if candidate.observation(seat).ok().as_ref() == Some(&obs)
            && serde_json::to_value(candidate.view(Viewer::Seat(seat)).ok())
                .ok()
                .as_ref()
                == Some(&view)
        {
            return Ok(candidate);
        }
    }
    Err(fail(format!(
        "no consistent deal found in {MAX_TRIES} attempts"
    )))
}

/// A random member of `set` (card ids).
fn pick<R: Rng + ?Sized>(set: u32, rng: &mut R) -> Option<u8> {
    let n = set.count_ones();
    if n == 0 {
        return None;
    }
    let k = rng.below(u64::from(n)) as u32;
    Some(crate::card_set::select_in_word(u64::from(set), k) as u8)
}

/// Cards each seat cannot hold now, from what `viewer` has seen of play (§8).
fn inferred_voids(s: &AvinasState, viewer: Option<usize>) -> [u32; 4] {
    let mut void = [0u32; 4];
    if !matches!(s.phase, Phase::Play | Phase::StopChoice | Phase::Over) {
        return void;
    }
    let tm = s.tmask;
    let current = s.phase == Phase::Play && s.trick_len > 0;
    let n = usize::from(s.trick_no) + usize::from(current);
    for t in 0..n.min(8) {
        let len = if t == usize::from(s.trick_no) {
            usize::from(s.trick_len)
        } else {
            4
        };
        let leader = usize::from(s.leaders[t]);
        let trick = &s.tricks[t][..len];
        let Some(&lead) = trick.first() else { continue };
        let led_mask = effective(tm, lead).0;
        for (i, &id) in trick.iter().enumerate() {
            let p = (leader + i) & 3;
            if Some(p) == viewer {
                continue;
            }
            let trump = tm >> id & 1 == 1;
            // Trick 2's lead (face down or plain) and a follower at trick 1 or 2 without a
            // trump: no trump held. A follower at tricks 3-8 off the suit: none of it held.
            let shows = match (t, i) {
                (_, 0) if t != 1 => 0,
                (1, 0) => u32::from(s.face_down || !trump) * tm,
                (0 | 1, _) => u32::from(!trump) * tm,
                _ => u32::from(led_mask >> id & 1 == 0) * led_mask,
            };
            void[p] |= shows;
        }
    }
    void
}

/// Replays the current deal from `base` with the deal `seq` and the actions `after`; a
/// pending face-down lead of another seat is re-chosen. `None` if some step is not legal.
fn replay_with<R: Rng + ?Sized>(
    s: &AvinasState,
    seat: usize,
    base: &AvinasState,
    seq: &[u8],
    after: &[Action],
    rng: &mut R,
) -> Option<AvinasState> {
    let mut st = base.clone();
    for &id in seq {
        st.apply(Action::from(id)).ok()?;
    }
    let pending = s.face_down_pending();
    for &a in after {
        let actor = st.current_player().seat()?;
        let a = if pending
            && actor != seat
            && (FACE_DOWN_BASE..NAMED_BASE).contains(&a)
            && st.trick_no == 1
        {
            FACE_DOWN_BASE + Action::from(pick(st.hands[actor], rng)?)
        } else {
            a
        };
        st.apply(a).ok()?;
    }
    Some(st)
}
