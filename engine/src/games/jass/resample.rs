//! Determinization (`resample`): a full state consistent with what one seat knows.
//!
//! Method: the cards the seat cannot place are dealt at random to the other seats (and to
//! the undealt rest during a deal), respecting what play has shown: the Wys cards revealed
//! after trick 1, and voids inferred from the follow rules (failing to follow suit; not
//! playing a trump on a trump lead, which leaves at most the trump Under; undertrumping,
//! which shows a hand of lower trumps only). The current deal is then replayed with checked
//! `apply`; the other seats' private Wys declarations are re-chosen among the sets of their
//! new hands that produce the same public announcements (the Wys-winning team's shown Wys
//! are kept). A candidate is accepted only if the seat's observation and view are unchanged.
//! Finished deals of a match are entirely public except the losing teams' Wys, which no
//! longer influence play; they are kept as they were.

use super::ids::PACK;
use super::play;
use super::wys::{self, WysSet};
use super::{JassGame, JassState, Mode, Phase, UndertrumpRule, WYS_BASE, action_card, card_action};
use crate::{Action, CardSet, Error, Game, Rank, Rng, State, Viewer};

/// Attempts before giving up.
const MAX_TRIES: usize = 2000;

pub(super) fn resample<R: Rng + ?Sized>(
    s: &JassState,
    seat: usize,
    rng: &mut R,
) -> Result<JassState, Error> {
    if seat >= 4 {
        return Err(Error::InvalidSeat {
            seat: seat as i64,
            last: 3,
        });
    }
    let obs = s.observation(seat)?;
    let view = serde_json::to_value(s.view(Viewer::Seat(seat))?).unwrap_or_default();

    // Cards of other seats that the seat knows: revealed Wys not yet played.
    let mut fixed = [CardSet::EMPTY; 4];
    if let Some(w) = s.wys_winner {
        for p in [usize::from(w), usize::from(w) + 2] {
            if p != seat {
                fixed[p] = s.declared[p].cards() - s.played();
            }
        }
    }
    let all_fixed = fixed.iter().fold(CardSet::EMPTY, |a, &f| a | f);
    let unknown = PACK - s.dealt_hands[seat] - s.played() - all_fixed;
    // Holders 0..4 are seats, 4 is the undealt rest.
    let mut need = [0usize; 5];
    let mut allowed = [unknown; 5];
    let voids = inferred_voids(s);
    for p in 0..4 {
        if p != seat {
            need[p] = s.hand_cards(p).len() - fixed[p].len();
            allowed[p] = unknown - voids[p];
        }
    }
    need[4] = 36 - usize::from(s.dealt);
    if need.iter().sum::<usize>() != unknown.len() {
        return Err(Error::ResampleFailed {
            seat,
            reason: "card counts do not add up".into(),
        });
    }

    let past: Vec<Action> = s
        .past
        .as_deref()
        .map_or_else(Vec::new, |p| p.iter().map(|&a| Action::from(a)).collect());
    let current: Vec<Action> = s.log[..s.log_len as usize]
        .iter()
        .map(|&a| Action::from(a))
        .collect();
    let mut base = s.game.new_initial_state();
    for &a in &past {
        base.apply_unchecked(a);
    }

    for _ in 0..MAX_TRIES {
        let Some(assigned) =
            crate::assign::assign(unknown.bits(), need, allowed.map(CardSet::bits), rng)
                .map(|sets| sets.map(CardSet::from_bits))
        else {
            continue;
        };
        let mut deal = [CardSet::EMPTY; 4];
        for p in 0..4 {
            deal[p] = if p == seat {
                s.dealt_hands[p]
            } else {
                s.played_by(p) | fixed[p] | assigned[p]
            };
        }
        let Some(candidate) = replay_with(s, seat, &base, &current, deal, rng) else {
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

/// Cards each seat cannot hold now, from the follow rules (§7).
fn inferred_voids(s: &JassState) -> [CardSet; 4] {
    let mut void = [CardSet::EMPTY; 4];
    let Some(mode) = s.mode else { return void };
    let done = if s.phase == Phase::Play {
        s.trick_no as usize + 1
    } else {
        s.trick_no.min(9) as usize
    };
    for t in 0..done.min(9) {
        let len = if t == s.trick_no as usize && s.phase == Phase::Play {
            s.trick_len as usize
        } else {
            4
        };
        let trick = &s.tricks[t][..len];
        let Some(&lead) = trick.first() else { continue };
        let led = lead.suit();
        for (i, &card) in trick.iter().enumerate().skip(1) {
            let p = (usize::from(s.leaders[t]) + i) % 4;
            match mode {
                Mode::Trump(tr) if led == tr => {
                    if card.suit() != tr {
                        // No trump but perhaps the Under.
                        void[p] |= CardSet::suit_mask(tr)
                            - CardSet::single(crate::Card::new(Rank::UNDER, tr));
                    }
                }
                Mode::Trump(tr) => {
                    // Trumping is allowed while holding the led suit: only a plain discard shows a void.
                    if card.suit() != led && card.suit() != tr {
                        void[p] |= CardSet::suit_mask(led);
                    }
                    let before = &trick[..i];
                    let best = before
                        .iter()
                        .filter(|c| c.suit() == tr)
                        .max_by_key(|c| play::strength(mode, led, **c));
                    if let (Some(&b), true) = (best, card.suit() == tr) {
                        if play::strength(mode, led, card) < play::strength(mode, led, b) {
                            // Undertrumped: no higher trump was held; by default only trumps.
                            let higher = CardSet::suit_mask(tr)
                                .iter()
                                .filter(|&c| {
                                    play::strength(mode, led, c) > play::strength(mode, led, b)
                                })
                                .collect::<CardSet>();
                            void[p] |= higher;
                            if s.game.undertrump_rule == UndertrumpRule::ForbiddenUnlessOnlyTrumps {
                                void[p] |= PACK - CardSet::suit_mask(tr);
                            }
                        }
                    }
                }
                Mode::Obenabe | Mode::Undenufe => {
                    if card.suit() != led {
                        void[p] |= CardSet::suit_mask(led);
                    }
                }
            }
        }
    }
    void
}

/// Every declarable Wys set of `hand` (the empty set included).
fn declarable_sets(game: &JassGame, hand: CardSet, from: WysSet, out: &mut Vec<WysSet>) {
    out.push(from);
    let mut next = Vec::new();
    wys::for_each_candidate(game, hand, &from, |i| next.push(i));
    for item in next {
        let mut d = from;
        d.push(item);
        declarable_sets(game, hand, d, out);
    }
}

/// Replays the current deal of `s` from `base` with the new deal, re-choosing the private
/// Wys of the other seats. `None` if some step is not legal.
fn replay_with<R: Rng + ?Sized>(
    s: &JassState,
    seat: usize,
    base: &JassState,
    current: &[Action],
    deal: [CardSet; 4],
    rng: &mut R,
) -> Option<JassState> {
    let mut st = base.clone();
    let mut left = deal;
    for &a in current {
        if st.phase == Phase::Deal {
            let target = st.deal_target(st.dealt);
            let card = if target == seat {
                action_card(a)?
            } else {
                let c = left[target].first()?;
                left[target].remove(c);
                c
            };
            st.apply(card_action(card)).ok()?;
            continue;
        }
        let actor = st.current_player().seat()?;
        if a >= WYS_BASE && actor != seat {
            continue; // re-chosen below
        }
        if st.phase == Phase::Play
            && st.trick_no == 0
            && actor != seat
            && !st.committed[actor]
            && !s.game.auto_wys
            && action_card(a).is_some()
        {
            let mode = st.mode?;
            let items = if s.wys_winner.is_some_and(|w| usize::from(w) == actor & 1) {
                s.declared[actor]
            } else {
                let mut sets = Vec::new();
                declarable_sets(&s.game, st.hand_cards(actor), WysSet::default(), &mut sets);
                let prior = st.best_wys.map(|b| b.1);
                sets.retain(|d| {
                    wys::announce(prior, d.best(&s.game, mode)) == s.announcements[actor]
                });
                if sets.is_empty() {
                    return None;
                }
                sets[rng.below(sets.len() as u64) as usize]
            };
            for item in items.iter() {
                st.apply(WYS_BASE + Action::from(item.id())).ok()?;
            }
        }
        st.apply(a).ok()?;
    }
    Some(st)
}
