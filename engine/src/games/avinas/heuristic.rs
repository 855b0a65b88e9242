//! The `heuristic` bot's Avinas: play a beginner would recognise as sensible, decided from
//! what the seat knows only (its own hand, the exposed cards, bids, the trick).
//!
//! * **Bidding** (§7): bid the longest trump count the hand has (its Queens and Jacks plus a
//!   suit's plain cards) when it is at least five, else pass.
//! * **Knock / double** (§6.4): knock with seven or more trumps; never double.
//! * **Early stop** (§7.4): stop once the own side has more than half the card points.
//! * **Opening lead of a bidding game**: the strongest lead that makes the longest suit trump.
//! * **Leading**: trumps, highest first, while the hand has any; otherwise the lowest card.
//! * **Following**: if the partner is winning, add points without spending a trump; if an
//!   opponent is winning, win with the cheapest card that does; else throw the cheapest card.
//!   Leads are always face up.

use super::play::{named_lead, points};
use super::trumps::{effective, strength, trump_count, trump_mask};
use super::{AvinasState, BID_BASE, CONTINUE, KNOCK, NAMED_BASE, PASS, Phase, STOP};
use crate::{Action, ActionSet, Rng, State};

/// Shortest trump count worth a bid.
const BID_FROM: u32 = 5;
/// Trumps held to knock.
const KNOCK_FROM: u32 = 7;

pub(super) fn action<R: Rng + ?Sized>(s: &AvinasState, seat: usize, rng: &mut R) -> Action {
    let legal = s.legal_actions();
    let hand = s.hands[seat];
    let first = legal.iter().next().unwrap_or(PASS);
    match s.phase {
        Phase::Bid => {
            let best = (0..4)
                .map(|suit| trump_count(hand, suit))
                .max()
                .unwrap_or(0);
            let bid = BID_BASE + best.saturating_sub(1) as Action;
            if best >= BID_FROM && legal.contains(bid) {
                bid
            } else {
                PASS
            }
        }
        Phase::Knock => {
            if (hand & s.tmask).count_ones() >= KNOCK_FROM && legal.contains(KNOCK) {
                KNOCK
            } else {
                PASS
            }
        }
        Phase::Double => PASS,
        Phase::StopChoice => {
            let team = seat % 2;
            if s.card_points[team] > 60 && legal.contains(STOP) {
                STOP
            } else if legal.contains(CONTINUE) {
                CONTINUE
            } else {
                first
            }
        }
        Phase::Play => play(s, seat, legal),
        Phase::ChooseDealer | Phase::Deal | Phase::Over => legal.choose(rng).unwrap_or(first),
    }
}

fn play(s: &AvinasState, seat: usize, legal: ActionSet) -> Action {
    let hand = s.hands[seat];
    // The bidding game's opening lead fixes trump: make the longest suit trump.
    if s.trump >= 4 {
        return legal
            .iter()
            .max_by_key(|&a| {
                let (id, trump) = if a >= NAMED_BASE {
                    named_lead(a)
                } else {
                    (a as u8, (a / 8) as u8)
                };
                (trump_count(hand, trump), strength(trump, 4, id))
            })
            .unwrap_or(PASS);
    }
    // Face-up plays only (card ids 0..32).
    let cards: Vec<u8> = legal.iter().filter(|&a| a < 32).map(|a| a as u8).collect();
    let Some(&any) = cards.first() else {
        return legal.iter().next().unwrap_or(PASS);
    };
    let trump = s.trump;
    let tmask = trump_mask(trump);
    let is_trump = |id: u8| tmask >> id & 1 == 1;
    let pick = if s.trick_len == 0 {
        let trumps: Vec<u8> = cards.iter().copied().filter(|&c| is_trump(c)).collect();
        if trumps.is_empty() {
            cheapest(&cards, trump)
        } else {
            trumps
                .iter()
                .copied()
                .max_by_key(|&c| strength(trump, 4, c))
                .unwrap_or(any)
        }
    } else {
        let (led, win_pos, win_str) = s.trick_lead();
        let partner_winning = s.trick_len >= 2 && win_pos == s.trick_len - 2;
        let winners: Vec<u8> = cards
            .iter()
            .copied()
            .filter(|&c| strength(trump, led, c) > win_str)
            .collect();
        if partner_winning {
            cards
                .iter()
                .copied()
                .filter(|&c| !is_trump(c))
                .max_by_key(|&c| points(c))
                .unwrap_or_else(|| cheapest(&cards, trump))
        } else if let Some(w) = winners
            .iter()
            .copied()
            .min_by_key(|&c| (is_trump(c), strength(trump, led, c), points(c)))
        {
            w
        } else {
            cheapest(&cards, trump)
        }
    };
    Action::from(pick)
}

/// The card worth least: fewest points, plain before trump, weakest.
fn cheapest(cards: &[u8], trump: u8) -> u8 {
    let tmask = trump_mask(trump);
    cards
        .iter()
        .copied()
        .min_by_key(|&c| {
            let (_, suit) = effective(tmask, c);
            (points(c), suit == 4, strength(trump, suit, c))
        })
        .unwrap_or(0)
}
