//! The `heuristic` bot's Jass: play a beginner would recognise as sensible, decided from
//! what the seat knows only (its own hand, the cards played, the mode, the trick).
//!
//! * **Choosing the mode** (§6): each mode is scored by hand strength as Jass players count
//!   it: in a trump suit the Under (Puur) and the Nell are worth most, then the trump Ace and
//!   length, plus side Aces; Obenabe counts Aces and guarded Kings, Undenufe Sixes and
//!   guarded Sevens. The strongest mode is announced; below a threshold, the forehand pushes
//!   (schieben) if he may.
//! * **Wys** (wys = manual): every Wys item offered is declared.
//! * **Leading**: with the Puur and three or more trumps, pull trumps (highest first);
//!   otherwise a side Ace (in a trump game) or the best card of the mode (Obenabe: an Ace,
//!   Undenufe: a Six); otherwise the lowest card of the longest side suit.
//! * **Following**: if the partner is winning, add points cheaply (the highest-point card
//!   that does not cost a trump); if an opponent is winning and the trick is worth it, win
//!   with the cheapest card that wins; else throw the lowest-point card.

use super::play::{card_points, strength, trick_winner};
use super::{JassState, MODE_BASE, Mode, Phase, SCHIEBEN, WYS_BASE, action_card, card_action};
use crate::{Action, ActionSet, Card, CardSet, Rank, Rng, State, Suit};

/// Below this score the forehand pushes (if allowed).
const PUSH_BELOW: i32 = 26;

/// The heuristic's action for `seat`, which is to act.
pub(super) fn action<R: Rng + ?Sized>(state: &JassState, seat: usize, rng: &mut R) -> Action {
    let legal = state.legal_actions();
    match state.phase {
        Phase::ChooseMode => choose_mode(state, seat, legal),
        Phase::Play => {
            if let Some(wys) = legal.iter().find(|&a| a >= WYS_BASE) {
                return wys;
            }
            play(state, seat, legal)
        }
        // Not a seat's decision; any legal action (there is none at the end).
        Phase::Deal | Phase::Over => legal.choose(rng).unwrap_or(0),
    }
}

/// Hand strength of `hand` for `mode`, in rough "points I expect to make" units.
fn mode_score(hand: CardSet, mode: Mode) -> i32 {
    let mut score = 0;
    match mode {
        Mode::Trump(t) => {
            let trumps = hand.of_suit(t);
            for c in trumps.iter() {
                score += match c.rank() {
                    Rank::Jack => 20,
                    Rank::Nine => 14,
                    Rank::Ace => 9,
                    Rank::King | Rank::Ten => 6,
                    _ => 4,
                };
            }
            // Length beyond three trumps controls the deal.
            score += 4 * (trumps.len() as i32 - 3).max(0);
            for s in Suit::ALL.into_iter().filter(|&s| s != t) {
                let side = hand.of_suit(s);
                if side.contains(Card::new(Rank::Ace, s)) {
                    score += 7;
                    if side.contains(Card::new(Rank::King, s)) {
                        score += 3;
                    }
                }
            }
        }
        Mode::Obenabe | Mode::Undenufe => {
            let (top, second) = if mode == Mode::Obenabe {
                (Rank::Ace, Rank::King)
            } else {
                (Rank::Six, Rank::Seven)
            };
            for s in Suit::ALL {
                let side = hand.of_suit(s);
                if side.contains(Card::new(top, s)) {
                    score += 11;
                    if side.contains(Card::new(second, s)) {
                        score += 7;
                    }
                } else if side.contains(Card::new(second, s)) && side.len() >= 3 {
                    score += 3;
                }
            }
        }
    }
    score
}

fn choose_mode(state: &JassState, seat: usize, legal: ActionSet) -> Action {
    let hand = state.hand_cards(seat);
    let (best, score) = Mode::ALL.iter().map(|&m| (m, mode_score(hand, m))).fold(
        (Mode::ALL[0], i32::MIN),
        |acc, x| if x.1 > acc.1 { x } else { acc },
    );
    if score < PUSH_BELOW && legal.contains(SCHIEBEN) {
        return SCHIEBEN;
    }
    MODE_BASE + best.index() as Action
}

fn legal_cards(legal: ActionSet) -> Vec<Card> {
    legal
        .iter()
        .filter(|&a| a < MODE_BASE)
        .filter_map(action_card)
        .collect()
}

fn play(state: &JassState, seat: usize, legal: ActionSet) -> Action {
    let Some(mode) = state.mode else {
        return legal.iter().next().unwrap_or(0);
    };
    let cards = legal_cards(legal);
    let Some(&first) = cards.first() else {
        return legal.iter().next().unwrap_or(0);
    };
    let game = &state.game;
    let points = |c: Card| card_points(game, mode, c);
    let trick = state.trick();
    let pick = if trick.is_empty() {
        lead(state, seat, mode, &cards)
    } else {
        let led = trick[0].suit();
        let win_pos = trick_winner(mode, trick);
        let best = strength(mode, led, trick[win_pos]);
        // Play positions: the partner played two places before this seat.
        let partner_winning = trick.len() >= 2 && win_pos == trick.len() - 2;
        let on_table: u32 = trick.iter().map(|&c| points(c)).sum();
        let is_trump = |c: Card| mode.trump() == Some(c.suit());
        let winners: Vec<Card> = cards
            .iter()
            .copied()
            .filter(|&c| strength(mode, led, c) > best)
            .collect();
        if partner_winning {
            // Smear points on the partner's trick without giving up a trump.
            cards
                .iter()
                .copied()
                .filter(|&c| !is_trump(c))
                .max_by_key(|&c| (points(c), c.rank_index()))
                .unwrap_or_else(|| cheapest(&cards, points))
        } else if !winners.is_empty() && (on_table >= 10 || !winners.iter().all(|&c| is_trump(c))) {
            // Win as cheaply as possible: the weakest winning card, preferring non-trumps.
            winners
                .iter()
                .copied()
                .min_by_key(|&c| (is_trump(c), strength(mode, led, c), points(c)))
                .unwrap_or(first)
        } else {
            cheapest(&cards, points)
        }
    };
    card_action(pick)
}

/// The card worth least, the lowest in rank among equals.
fn cheapest(cards: &[Card], points: impl Fn(Card) -> u32) -> Card {
    cards
        .iter()
        .copied()
        .min_by_key(|&c| (points(c), c.rank_index()))
        .unwrap_or(cards[0])
}

fn lead(state: &JassState, seat: usize, mode: Mode, cards: &[Card]) -> Card {
    let hand = state.hand_cards(seat);
    let game = &state.game;
    if let Some(t) = mode.trump() {
        let trumps = hand.of_suit(t);
        let puur = Card::new(Rank::Jack, t);
        let played = state.played();
        let trumps_out = CardSet::suit_mask(t) & super::ids::PACK;
        let missing = trumps_out - played - trumps;
        if (trumps.contains(puur) && trumps.len() >= 3)
            || (trumps.len() >= 4 && !missing.is_empty())
        {
            if let Some(c) = cards
                .iter()
                .copied()
                .filter(|c| c.suit() == t)
                .max_by_key(|&c| strength(mode, t, c))
            {
                return c;
            }
        }
        if let Some(c) = cards
            .iter()
            .copied()
            .find(|c| c.suit() != t && c.rank() == Rank::Ace)
        {
            return c;
        }
    } else {
        let top = if mode == Mode::Obenabe {
            Rank::Ace
        } else {
            Rank::Six
        };
        if let Some(&c) = cards.iter().find(|c| c.rank() == top) {
            return c;
        }
    }
    // The longest side suit's weakest card.
    let side = |c: &Card| mode.trump() != Some(c.suit());
    let longest = Suit::ALL
        .into_iter()
        .filter(|&s| mode.trump() != Some(s))
        .max_by_key(|&s| hand.of_suit(s).len())
        .unwrap_or(Suit::Clubs);
    cards
        .iter()
        .copied()
        .filter(|c| side(c) && c.suit() == longest)
        .min_by_key(|&c| (card_points(game, mode, c), strength(mode, c.suit(), c)))
        .or_else(|| {
            cards
                .iter()
                .copied()
                .min_by_key(|&c| (card_points(game, mode, c), strength(mode, c.suit(), c)))
        })
        .unwrap_or(cards[0])
}
