//! Determinization (`resample`): a full state consistent with what one seat knows.
//!
//! What a seat knows of the current deal: its own dealt cards and discards, the starter, the
//! cards laid in the play, and every go call with the count at which it was said (a player
//! who says go at count `c` holds no card of value `31 − c` or less, so none of the cards he
//! still holds may have such a value). Method: the cards the seat cannot place (other
//! hands, other discards, the blind crib card, the stock) are dealt at random to those
//! holders with exact counts, respecting the go inferences; the current deal is then
//! replayed with checked `apply` (other seats' discards taken from their new discards). Once
//! the crib is shown its cards are known, but not who discarded which. A
//! candidate is accepted only if the seat's observation and view are unchanged. Finished
//! deals are kept as they were (their cribs were shown; they no longer influence play).

use super::{CribbageState, GO, Phase, card_action, play};
use crate::{Action, CardSet, Error, Game, Pack, Rng, State, Viewer};

/// Attempts before giving up.
const MAX_TRIES: usize = 500;

/// Holders: 0..4 hands, 4..8 discards, 8 the blind crib card, 9 the stock.
const HOLDERS: usize = 10;

pub(super) fn resample<R: Rng + ?Sized>(
    s: &CribbageState,
    seat: usize,
    rng: &mut R,
) -> Result<CribbageState, Error> {
    let n = usize::from(s.game.players);
    if seat >= n {
        return Err(Error::InvalidSeat {
            seat: seat as i64,
            last: n - 1,
        });
    }
    let obs = s.observation(seat)?;
    let view = serde_json::to_value(s.view(Viewer::Seat(seat))?).unwrap_or_default();

    let past: Vec<Action> = s
        .past
        .as_deref()
        .map_or_else(Vec::new, |p| p.iter().map(|&a| Action::from(a)).collect());
    let current: Vec<Action> = s.log[..usize::from(s.log_len)]
        .iter()
        .map(|&a| Action::from(a))
        .collect();
    let mut base = s.game.new_initial_state();
    for &a in &past {
        base.apply_unchecked(a);
    }

    // Go inferences: replay the current deal and note the count at every go.
    let mut forbidden = [CardSet::EMPTY; 4];
    let mut st = base.clone();
    for &a in &current {
        if st.phase == Phase::Play && a == GO {
            let p = usize::from(st.to_act);
            forbidden[p] |= play::playable(Pack::Full52.cards(), 31 - st.count);
        }
        st.apply_unchecked(a);
    }

    let mut laid = CardSet::EMPTY;
    for p in 0..n {
        laid |= s.laid(p);
    }
    let known = s.dealt_hands[seat] | laid | s.starter.map_or(CardSet::EMPTY, CardSet::single);
    let unknown = Pack::Full52.cards() - known;
    let mut need = [0usize; HOLDERS];
    let mut allowed = [unknown; HOLDERS];
    let mut discarded = CardSet::EMPTY;
    for p in 0..n {
        discarded |= s.discards[p];
        if p != seat {
            need[p] = s.hands[p].len();
            allowed[p] = unknown - forbidden[p];
            need[4 + p] = s.discards[p].len();
        }
    }
    need[8] = (s.crib - discarded).len();
    if s.shown > s.game.players {
        // The crib was shown: its cards are known, not who discarded which.
        let rest = s.crib - s.discards[seat];
        for (h, a) in allowed.iter_mut().enumerate() {
            *a = if (4..9).contains(&h) {
                *a & rest
            } else {
                *a - rest
            };
        }
    }
    need[9] = unknown.len() - need[..9].iter().sum::<usize>();
    if need[..9].iter().sum::<usize>() > unknown.len() {
        return Err(Error::ResampleFailed {
            seat,
            reason: "card counts do not add up".into(),
        });
    }

    for _ in 0..MAX_TRIES {
        let Some(assigned) =
            crate::assign::assign(unknown.bits(), need, allowed.map(CardSet::bits), rng)
                .map(|sets| sets.map(CardSet::from_bits))
        else {
            continue;
        };
        let Some(candidate) = replay_with(s, seat, &base, &current, &assigned) else {
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
    Err(Error::ResampleFailed {
        seat,
        reason: format!("no consistent deal found in {MAX_TRIES} attempts"),
    })
}

/// Replays the current deal of `s` from `base` with the other seats' hidden cards replaced.
/// `None` if some step is not legal.
fn replay_with(
    s: &CribbageState,
    seat: usize,
    base: &CribbageState,
    current: &[Action],
    assigned: &[CardSet; HOLDERS],
) -> Option<CribbageState> {
    let n = usize::from(s.game.players);
    let mut deal = [CardSet::EMPTY; 4];
    let mut disc = [CardSet::EMPTY; 4];
    for p in 0..n {
        if p != seat {
            deal[p] = s.laid(p) | assigned[p] | assigned[4 + p];
            disc[p] = assigned[4 + p];
        }
    }
    let mut blind = assigned[8];
    let mut st = base.clone();
    for &a in current {
        let x = match st.phase {
            Phase::Deal => match st.deal_target(st.dealt) {
                Some(t) if t == seat => a,
                Some(t) => {
                    let c = deal[t].first()?;
                    deal[t].remove(c);
                    card_action(c)
                }
                None => {
                    let c = blind.first()?;
                    blind.remove(c);
                    card_action(c)
                }
            },
            Phase::Discard if usize::from(st.to_act) != seat => {
                let p = usize::from(st.to_act);
                let c = disc[p].first()?;
                disc[p].remove(c);
                card_action(c)
            }
            _ => a,
        };
        st.apply(x).ok()?;
    }
    Some(st)
}
