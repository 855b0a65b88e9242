//! The `heuristic` bot's Klaberjass: play a beginner would recognise as sensible, decided
//! from what the seat knows only (its hand, the turn-up and bottom cards, the cards played).
//!
//! * **Bidding** (§6): a suit is scored by hand strength as players count it: the Jass (trump
//!   Jack) and the Menel (trump Nine) most, then the trump Ace and Ten and length, plus side
//!   Aces; the turn-up counts for its suit (its taker may get it by the Dix exchange). Take
//!   (round 1) or name (round 2) the best suit when it scores enough, else pass.
//! * **Dix** (§7): exchange whenever allowed.
//! * **Announcements** (§8): declare every run offered, then announce.
//! * **Leading**: with the Jass and two more trumps, pull trumps (highest first); otherwise a
//!   side Ace; otherwise the lowest card of the longest side suit.
//! * **Replying**: win the trick with the cheapest winning card when the led card is worth
//!   points or a non-trump wins it; otherwise throw the cheapest card.

use super::play::{card_points, strength};
use super::{
    ANNOUNCE, DECLARE_BASE, EXCHANGE, KEEP, KlaberjassState, NAME_BASE, PASS, Phase, TAKE, WAIT,
    action_card, card_action,
};
use crate::{Action, ActionSet, Card, CardSet, Rank, Rng, State, Suit};

/// Bid with at least this score.
const BID_FROM: i32 = 34;

pub(super) fn action<R: Rng + ?Sized>(s: &KlaberjassState, seat: usize, rng: &mut R) -> Action {
    let legal = s.legal_actions();
    let hand = s.hand(seat);
    let first = legal.iter().next().unwrap_or(PASS);
    match s.phase {
        Phase::BidTurnUp => match s.turn_up {
            Some(up)
                if suit_score(hand, up.suit(), Some(up)) >= BID_FROM && legal.contains(TAKE) =>
            {
                TAKE
            }
            _ => PASS,
        },
        Phase::BidOtherSuit => {
            let best = Suit::ALL
                .into_iter()
                .filter(|&t| legal.contains(NAME_BASE + t as Action))
                .map(|t| (suit_score(hand, t, None), t))
                .max();
            match best {
                Some((score, t)) if score >= BID_FROM => NAME_BASE + t as Action,
                _ => PASS,
            }
        }
        Phase::Exchange1 | Phase::Exchange2 => {
            if legal.contains(EXCHANGE) {
                EXCHANGE
            } else if legal.contains(WAIT) {
                WAIT
            } else if legal.contains(KEEP) {
                KEEP
            } else {
                first
            }
        }
        Phase::Announce => {
            legal
                .iter()
                .find(|&a| a >= DECLARE_BASE)
                .unwrap_or(if legal.contains(ANNOUNCE) {
                    ANNOUNCE
                } else {
                    first
                })
        }
        Phase::Play => play(s, seat, legal),
        Phase::Cut | Phase::Deal | Phase::SecondDeal | Phase::Over => {
            legal.choose(rng).unwrap_or(first)
        }
    }
}

/// Hand strength for `trump`, counting `extra` (the turn-up) as if held.
fn suit_score(hand: CardSet, trump: Suit, extra: Option<Card>) -> i32 {
    let mut cards = hand;
    if let Some(c) = extra {
        cards.insert(c);
    }
    let trumps = cards.of_suit(trump);
    let mut score: i32 = trumps
        .iter()
        .map(|c| match c.rank() {
            Rank::Jack => 20,
            Rank::Nine => 14,
            Rank::Ace => 8,
            Rank::Ten => 6,
            _ => 3,
        })
        .sum();
    score += 3 * (trumps.len() as i32 - 2).max(0);
    for side in Suit::ALL.into_iter().filter(|&s| s != trump) {
        if cards.contains(Card::new(Rank::Ace, side)) {
            score += 6;
        }
    }
    score
}

fn play(s: &KlaberjassState, seat: usize, legal: ActionSet) -> Action {
    let cards: Vec<Card> = legal.iter().filter_map(action_card).collect();
    let (Some(&any), Some(trump)) = (cards.first(), s.trump) else {
        return legal.iter().next().unwrap_or(PASS);
    };
    let hand = s.hand(seat);
    let is_trump = |c: Card| c.suit() == trump;
    let cheapest = |cards: &[Card]| {
        cards
            .iter()
            .copied()
            .min_by_key(|&c| (card_points(trump, c), is_trump(c), c.rank_index()))
            .unwrap_or(any)
    };
    let pick = if s.trick_len == 0 {
        let trumps = hand.of_suit(trump);
        if trumps.contains(Card::new(Rank::Jack, trump)) && trumps.len() >= 3 {
            cards
                .iter()
                .copied()
                .filter(|&c| is_trump(c))
                .max_by_key(|&c| strength(trump, trump, c))
                .unwrap_or(any)
        } else if let Some(ace) = cards
            .iter()
            .copied()
            .find(|&c| !is_trump(c) && c.rank() == Rank::Ace)
        {
            ace
        } else {
            let longest = Suit::ALL
                .into_iter()
                .filter(|&x| x != trump)
                .max_by_key(|&x| hand.of_suit(x).len())
                .unwrap_or(trump);
            let side: Vec<Card> = cards
                .iter()
                .copied()
                .filter(|c| c.suit() == longest)
                .collect();
            if side.is_empty() {
                cheapest(&cards)
            } else {
                cheapest(&side)
            }
        }
    } else {
        let lead = s.trick_card(usize::from(s.trick_no), 0);
        let led = lead.suit();
        let best = strength(trump, led, lead);
        let winners: Vec<Card> = cards
            .iter()
            .copied()
            .filter(|&c| strength(trump, led, c) > best)
            .collect();
        let worth = card_points(trump, lead) >= 10 || winners.iter().any(|&c| !is_trump(c));
        match winners
            .iter()
            .copied()
            .min_by_key(|&c| (is_trump(c), strength(trump, led, c)))
        {
            Some(w) if worth => w,
            _ => cheapest(&cards),
        }
    };
    card_action(pick)
}
