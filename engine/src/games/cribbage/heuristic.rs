//! The `heuristic` bot's Cribbage, decided from what the seat knows only (its hand, the
//! cards laid, the count, whose crib it is).
//!
//! * **Discards** (§5.2): every way to keep a hand is valued by its expected show over the
//!   possible starters (every card the seat has not seen), computed with the public hand
//!   scorer [`score_hand`], plus the expected value of the discards in the crib when the
//!   crib is the seat's side's, minus it when it is an opponent's. The crib value of the
//!   discards is estimated from what they make with the starter alone (fifteens, a pair,
//!   nobs), the other crib cards being unknown. Discards are one card per action: the best
//!   discard set is chosen afresh at each.
//! * **Pegging** (§6): the card that scores most now (15, 31, pairs, runs); among equals the
//!   one that gives the next player least: a count of 5 or 21 (a ten-card away from 15 or
//!   31), a count one card short of 15 or 31, or a pair that invites a pair royal are avoided;
//!   a lead below 5 is preferred (it cannot be answered with a 15).

use super::play::{order, pegging_points};
use super::scoring::{card_value, score_hand};
use super::{CribbageState, GO, Phase, action_card, card_action};
use crate::{Action, Card, CardSet, Rank, Rng, State};

pub(super) fn action<R: Rng + ?Sized>(s: &CribbageState, seat: usize, rng: &mut R) -> Action {
    let legal = s.legal_actions();
    let first = legal.iter().next().unwrap_or(GO);
    match s.phase {
        Phase::Discard => discard(s, seat).unwrap_or(first),
        Phase::Play => {
            if legal.len() == 1 {
                return first;
            }
            peg(s, legal.iter().filter_map(action_card).collect()).unwrap_or(first)
        }
        Phase::FirstDealer | Phase::Deal | Phase::Starter | Phase::Over => {
            legal.choose(rng).unwrap_or(first)
        }
    }
}

/// Value of a card in counting (A 1 … 10, pictures 10).
fn value(c: Card) -> u8 {
    card_value(c)
}

fn discard(s: &CribbageState, seat: usize) -> Option<Action> {
    let hand = s.hands[seat];
    let cards: Vec<Card> = hand.iter().collect();
    let keep = 4usize;
    if cards.len() <= keep {
        return cards.first().map(|&c| card_action(c));
    }
    let k = cards.len() - keep;
    let own_crib = s.game.side(usize::from(s.dealer)) == s.game.side(seat);
    // Starters: every card the seat has not seen (its dealt hand and own discards excluded).
    let seen = s.dealt_hands[seat] | s.discards[seat];
    let starters: Vec<Card> = crate::Pack::Full52
        .cards()
        .iter()
        .filter(|c| !seen.contains(*c))
        .collect();
    let mut best: Option<(f64, CardSet)> = None;
    for mask in 0u32..(1 << cards.len()) {
        if mask.count_ones() as usize != k {
            continue;
        }
        let thrown: Vec<Card> = (0..cards.len())
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| cards[i])
            .collect();
        let kept: Vec<Card> = (0..cards.len())
            .filter(|i| mask >> i & 1 == 0)
            .map(|i| cards[i])
            .collect();
        let kept4 = [kept[0], kept[1], kept[2], kept[3]];
        let mut total = 0.0;
        for &st in &starters {
            let hand_pts = f64::from(score_hand(kept4, st, false).total);
            let crib_pts = crib_estimate(&thrown, st);
            total += hand_pts + if own_crib { crib_pts } else { -crib_pts };
        }
        let ev = total / starters.len().max(1) as f64;
        let thrown_set = thrown.iter().fold(CardSet::EMPTY, |mut a, &c| {
            a.insert(c);
            a
        });
        if best.as_ref().is_none_or(|(b, _)| ev > *b) {
            best = Some((ev, thrown_set));
        }
    }
    let (_, thrown) = best?;
    // Discard the first of the chosen cards now; the rest at the next decisions.
    thrown.iter().next().map(card_action)
}

/// What the discards make in the crib with the starter alone: fifteens, pairs, his nobs.
fn crib_estimate(thrown: &[Card], starter: Card) -> f64 {
    let mut cards: Vec<Card> = thrown.to_vec();
    cards.push(starter);
    let mut pts = 0.0;
    let n = cards.len();
    for mask in 1u32..(1 << n) {
        let sum: u32 = (0..n)
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| u32::from(value(cards[i])))
            .sum();
        if sum == 15 {
            pts += 2.0;
        }
    }
    for i in 0..n {
        for j in i + 1..n {
            if cards[i].rank() == cards[j].rank() {
                pts += 2.0;
            }
        }
    }
    if thrown
        .iter()
        .any(|c| c.rank() == Rank::Jack && c.suit() == starter.suit())
    {
        pts += 1.0;
    }
    // Neighbouring ranks in the crib often become runs with the unknown cards.
    if thrown.len() == 2
        && order(thrown[0].rank_index()).abs_diff(order(thrown[1].rank_index())) == 1
    {
        pts += 1.0;
    }
    pts
}

fn peg(s: &CribbageState, cards: Vec<Card>) -> Option<Action> {
    let series = &s.series[..usize::from(s.series_len)];
    let count = s.count;
    let mut best: Option<(i32, Card)> = None;
    for c in cards {
        let mut after: Vec<u8> = series.to_vec();
        after.push(order(c.rank_index()));
        let new_count = count + value(c);
        // Twice the points, less twice the risk (in half points).
        let mut score = 4 * i32::from(pegging_points(&after, new_count));
        let gap15 = 15i32 - i32::from(new_count);
        let gap31 = 31i32 - i32::from(new_count);
        if gap15 == 10 || gap31 == 10 {
            score -= 3;
        } else if (1..=9).contains(&gap15) || (1..=9).contains(&gap31) {
            score -= 1;
        }
        if series.last() == Some(&order(c.rank_index())) {
            score -= 2;
        }
        if series.is_empty() && value(c) < 5 {
            score += 1;
        }
        // Keep low cards for later counts: prefer spending higher ones, slightly.
        score = score * 16 + i32::from(value(c));
        if best.is_none_or(|(b, _)| score > b) {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| card_action(c))
}
