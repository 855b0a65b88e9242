//! Determinization (`resample`): a full state consistent with what one seat knows.
//!
//! Method: the opponent's unknown cards are drawn at random from the cards the seat cannot
//! place (the 12 hidden stock cards and the opponent's hand), respecting what play and the
//! announcements have shown:
//! * the turn-up, the bottom card, the Dix exchange (a turn-up taken stays in the taker's
//!   hand; the exchanger was dealt the trump 7) and the sequence winner's shown cards;
//! * voids from the trick rules (§10): no trump after failing to play one on a trump lead,
//!   no trump higher than the led one after playing a lower trump, no card of the led suit
//!   after not following, no trump after discarding on a plain lead;
//! * the announcement record (§8.4): the opponent's private declaration is re-chosen among
//!   the subsets of his new runs that give exactly the same public replies. When the replies
//!   say he declared a sequence (a value, or an `equal`), a run of that value and a
//!   consistent top is planted in his hand first, so rare replies are still found quickly.
//!
//! The current deal is then replayed with checked `apply`; a candidate is accepted only if the
//! seat's observation and view are unchanged. Finished deals of a match are kept as they were
//! (their cards no longer influence play).

use super::ids::PACK;
use super::sequences::{self, Declaration, Reply, Run};
use super::{
    ANNOUNCE, Announcement, DECLARE_BASE, EqualSequenceRule, KlaberjassState, Phase, Target,
    card_action,
};
use crate::{Action, Card, CardSet, Error, Game, Rank, Rng, State, Suit, Viewer};

/// Attempts before giving up.
const MAX_TRIES: usize = 3000;

pub(super) fn resample<R: Rng + ?Sized>(
    s: &KlaberjassState,
    seat: usize,
    rng: &mut R,
) -> Result<KlaberjassState, Error> {
    if seat >= 2 {
        return Err(Error::InvalidSeat {
            seat: seat as i64,
            last: 1,
        });
    }
    let opp = 1 - seat;
    let obs = s.observation(seat)?;
    let view = serde_json::to_value(s.view(Viewer::Seat(seat))?).unwrap_or_default();

    let known = s.known_cards_of(opp);
    let placed = s.hand(seat)
        | s.played_by(0)
        | s.played_by(1)
        | known
        | opt(s.turn_up)
        | opt(s.bottom)
        | opt(s.first_turn_up);
    let pool = PACK - placed;
    let allowed = pool - voids(s, opp);
    let need = s.hand(opp).len() - known.len();

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
    let plant = planted_run_spec(s, opp);

    for attempt in 0..MAX_TRIES {
        // Plant a run on most attempts when the replies demand one.
        let forced = match plant {
            Some(spec) if attempt % 4 != 3 => {
                match spec.draw(rng, allowed | s.played_by(opp) | known) {
                    Some(run) => run & allowed,
                    None => continue,
                }
            }
            _ => CardSet::EMPTY,
        };
        if forced.len() > need {
            continue;
        }
        let Some(extra) = sample(allowed - forced, need - forced.len(), rng) else {
            continue;
        };
        let mut now = s.played_by(opp) | known | forced | extra;
        if let (Some((p, _)), Some(up), Some(t)) = (s.exchanged, s.first_turn_up, s.trump) {
            if usize::from(p) == opp {
                now.remove(up);
                now.insert(Card::new(Rank::Seven, t));
            }
        }
        let Some(candidate) = replay_with(s, seat, &base, &current, now, rng) else {
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

fn opt(c: Option<Card>) -> CardSet {
    c.map_or(CardSet::EMPTY, CardSet::single)
}

/// Cards `p` cannot hold now, from the trick rules (§10), in the tricks he played second.
fn voids(s: &KlaberjassState, p: usize) -> CardSet {
    let mut void = CardSet::EMPTY;
    let Some(t) = s.trump else { return void };
    let tricks = usize::from(s.trick_no.min(9));
    for i in 0..tricks {
        if usize::from(s.leaders[i]) == p {
            continue;
        }
        let (lead, reply) = (s.trick_card(i, 0), s.trick_card(i, 1));
        void |= reply_voids(t, lead, reply);
    }
    void
}

/// What a reply shows the replier does not hold (§10).
pub(crate) fn reply_voids(t: Suit, lead: Card, reply: Card) -> CardSet {
    let trumps = CardSet::suit_mask(t);
    if lead.suit() == t {
        if reply.suit() != t {
            trumps
        } else if super::play::strength(t, t, reply) < super::play::strength(t, t, lead) {
            CardSet::from_bits(
                u64::from(super::play::HIGHER_TRUMPS[lead.rank_index()]) << (16 * t as u64),
            )
        } else {
            CardSet::EMPTY
        }
    } else if reply.suit() == lead.suit() {
        CardSet::EMPTY
    } else if reply.suit() == t {
        CardSet::suit_mask(lead.suit())
    } else {
        CardSet::suit_mask(lead.suit()) | trumps
    }
}

/// `n` cards drawn uniformly from `from`.
fn sample<R: Rng + ?Sized>(from: CardSet, n: usize, rng: &mut R) -> Option<CardSet> {
    let mut left = from;
    let mut out = CardSet::EMPTY;
    for _ in 0..n {
        if left.is_empty() {
            return None;
        }
        let c = left.nth(rng.below(left.len() as u64) as usize)?;
        left.remove(c);
        out.insert(c);
    }
    Some(out)
}

/// What the public replies say about the opponent's best declared sequence when he did not
/// win: its value, and its top (exact, or below a bound), and whether it may be a trump run.
#[derive(Copy, Clone, Debug)]
struct RunSpec {
    value: u32,
    top_exact: Option<u8>,
    top_below: Option<u8>,
    trump: Option<Suit>,
}

impl RunSpec {
    /// The cards of a random run meeting the spec, within `possible`.
    fn draw<R: Rng + ?Sized>(&self, rng: &mut R, possible: CardSet) -> Option<CardSet> {
        let len: u8 = if self.value == 50 { 4 } else { 3 };
        let top = match (self.top_exact, self.top_below) {
            (Some(t), _) => t,
            (None, Some(b)) => {
                let lo = 5 + len - 1;
                if b <= lo {
                    return None;
                }
                lo + rng.below(u64::from(b - lo)) as u8
            }
            (None, None) => 5 + len - 1 + rng.below(u64::from(13 - (5 + len - 1))) as u8,
        };
        let suits: Vec<Suit> = Suit::ALL
            .into_iter()
            .filter(|&x| Some(x) != self.trump)
            .collect();
        let suit = suits[rng.below(suits.len() as u64) as usize];
        let run = Run {
            suit,
            low: top + 1 - len,
            high: top,
        }
        .cards();
        possible.is_superset(run).then_some(run)
    }
}

fn planted_run_spec(s: &KlaberjassState, opp: usize) -> Option<RunSpec> {
    let a = s.announcement;
    if a.winner == Some(opp as u8) {
        return None;
    }
    let elder = s.elder();
    let top_bit = a.elder_top.map(|r| r as u8);
    if opp == elder {
        let value = a.elder_value.filter(|&v| v > 0)?;
        // After `equal`, his top is public; a non-winning equal top is not in trumps.
        let trump = if a.second_reply == Some(Reply::Equal) {
            s.trump
        } else {
            None
        };
        return Some(RunSpec {
            value,
            top_exact: top_bit,
            top_below: None,
            trump,
        });
    }
    if a.reply != Some(Reply::Equal) {
        return None; // `good`: declaring nothing is consistent.
    }
    let value = a.elder_value.filter(|&v| v > 0)?;
    match a.second_reply {
        Some(Reply::Equal) => Some(RunSpec {
            value,
            top_exact: top_bit,
            top_below: None,
            trump: s.trump,
        }),
        _ => Some(RunSpec {
            value,
            top_exact: None,
            top_below: top_bit,
            trump: None,
        }),
    }
}

/// The opponent's declaration at his commit, re-chosen among the subsets of his runs that
/// give the same public record. `None` if there is none.
fn choose_declaration<R: Rng + ?Sized>(
    s: &KlaberjassState,
    st: &KlaberjassState,
    opp: usize,
    rng: &mut R,
) -> Option<u32> {
    if s.announcement.winner == Some(opp as u8) {
        return Some(s.declarations[opp].items);
    }
    let trump = st.trump?;
    let (runs, n) = sequences::runs(st.hand(opp));
    let elder_wins = s.game.equal_sequence_rule == EqualSequenceRule::ElderScores;
    let elder = st.elder();
    let mut ok = [0u32; 16];
    let mut count = 0;
    for mask in 0u32..(1 << n) {
        let mut items = 0;
        for (i, r) in runs[..n].iter().flatten().enumerate() {
            if mask >> i & 1 == 1 {
                items |= 1 << r.item();
            }
        }
        let d = Declaration::of(st.hand(opp), items, trump);
        let consistent = if opp == elder {
            Some(d.best_value()) == s.announcement.elder_value
                && (!s.announcement.done
                    || Announcement::complete(
                        elder as u8,
                        &d,
                        &s.declarations[1 - opp],
                        trump,
                        elder_wins,
                    ) == s.announcement)
        } else {
            Announcement::complete(elder as u8, &s.declarations[elder], &d, trump, elder_wins)
                == s.announcement
        };
        if consistent {
            ok[count] = items;
            count += 1;
        }
    }
    (count > 0).then(|| ok[rng.below(count as u64) as usize])
}

/// Replays the current deal of `s` from `base` with the opponent dealt `opp_dealt`, re-choosing
/// his private declaration. `None` if some step is not legal.
fn replay_with<R: Rng + ?Sized>(
    s: &KlaberjassState,
    seat: usize,
    base: &KlaberjassState,
    current: &[Action],
    opp_dealt: CardSet,
    rng: &mut R,
) -> Option<KlaberjassState> {
    let opp = 1 - seat;
    let mut st = base.clone();
    let mut left = opp_dealt;
    let mut dealt_to_opp = 0;
    for &a in current {
        if st.phase == Phase::Deal || st.phase == Phase::SecondDeal {
            if st.target(st.dealt) == Target::Seat(opp) {
                let c = left.nth(rng.below(left.len() as u64) as usize)?;
                left.remove(c);
                dealt_to_opp += 1;
                st.apply(card_action(c)).ok()?;
            } else {
                st.apply(a).ok()?;
            }
            continue;
        }
        let actor = st.current_player().seat();
        if st.phase == Phase::Announce && actor == Some(opp) {
            if a != ANNOUNCE {
                continue; // re-chosen at his commit
            }
            let items = choose_declaration(s, &st, opp, rng)?;
            let mut m = items;
            while m != 0 {
                let i = m.trailing_zeros();
                m &= m - 1;
                st.apply(DECLARE_BASE + i).ok()?;
            }
        }
        st.apply(a).ok()?;
    }
    // Every card meant for the opponent was dealt to him.
    (left.is_empty() && dealt_to_opp == s.dealt_hands[opp].len()).then_some(st)
}
