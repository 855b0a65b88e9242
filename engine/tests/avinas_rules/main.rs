//! Avinas rules, one test per rule, worked example (E1–E6) and edge case (§15) of
//! `shared/rules/avinas.md`, scripted in card notation.
//!
//! One test binary, a module per group of sections of the rules; the helpers are here.

mod bidding;
mod deal;
mod knocking;
mod options;
mod play;
mod scoring;
mod trumps;

use cardhouse::games::avinas::{
    AllTricksLoss, AvinasGame, AvinasState, Kind, Phase, SchwarzBasis, bidding_pips, card_action,
    give_rams, loser, sevens_rams, winning_position,
};
use cardhouse::{Card, CardSet, Error, Game, Options, Rng, SeededRng, State, Suit, Viewer};

fn game(pairs: &[(&str, &str)]) -> AvinasGame {
    let opts: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), (*v).into()))
        .collect();
    AvinasGame::from_options(&opts).expect("valid options")
}

fn cards(text: &str) -> Vec<Card> {
    text.split_whitespace()
        .map(|t| Card::parse(t).expect("card"))
        .collect()
}

fn set(text: &str) -> CardSet {
    text.parse().expect("cards")
}

/// Deals `hands` (each seat's 8 cards in the order it receives them) with `dealer` dealing.
fn dealt(g: AvinasGame, hands: [&str; 4]) -> AvinasState {
    let mut s = g.new_initial_state();
    let dealer = s.dealer();
    let hands = hands.map(cards);
    for round in 0..2 {
        for p in 1..=4 {
            let seat = (dealer + p) % 4;
            for &c in &hands[seat][round * 4..round * 4 + 4] {
                s.apply(card_action(c).expect("pack card")).expect("deal");
            }
        }
    }
    s
}

fn act(s: &mut AvinasState, text: &str) {
    let a = s.string_to_action(text).expect("parses");
    s.apply(a)
        .unwrap_or_else(|e| panic!("`{text}` should be legal: {e}\n{s}"));
}

fn illegal(s: &AvinasState, text: &str) -> String {
    let a = s.string_to_action(text).expect("parses");
    let mut t = s.clone();
    match t.apply(a) {
        Err(Error::IllegalAction { reason, .. }) => {
            assert_eq!(&t, s, "a rejected action changed the state");
            reason
        }
        other => panic!("`{text}` should be illegal, got {other:?}"),
    }
}

fn legal_texts(s: &AvinasState) -> Vec<String> {
    s.legal_actions()
        .iter()
        .map(|a| s.action_to_string(a))
        .collect()
}

/// E1's deal: dealer 0; seat 1's 4th card 7♠ and seat 3's 8th card 7♦ face up; the 7♣ and
/// 7♥ are dealt as ordinary cards.
const E1: [&str; 4] = [
    "QC QD QH QS JC JD JH 9S",
    "AC KC 9C 7S AD KD 9D 8S",
    "7C 10S KS JS 8C 8D 7H AS",
    "AH KH 9H 8H 10C 10D 10H 7D",
];

/// A bidding deal (no Seven among the 4th/8th cards); seat 1 holds the seed's example hand
/// Q♠ J♣ J♦ 10♥ 8♥ 7♥ K♣ 10♦ (counts ♥ 6, ♣ 4, ♦ 4, ♠ 3).
const BID_DEAL: [&str; 4] = [
    "9H AS 10S KS JS 9S 7S 8S",
    "QS JC JD 10H 8H 7H KC 10D",
    "AC 10C QC 9C 8C 7C AD KD",
    "QD 9D 7D 8D AH KH QH JH",
];

fn dealer0() -> AvinasGame {
    game(&[("first_dealer", "0")])
}
