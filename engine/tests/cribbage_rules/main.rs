//! Cribbage rules, one test per rule, worked example (§10) and edge case (§11) of
//! `shared/rules/cribbage.md`, scripted in card notation.
//!
//! One test binary, a module per group: the worked examples of §10, the edge cases of §11 (the
//! show, the pegging, the end of the game and what a seat sees), the deal, options and returns;
//! the helpers are here.

mod end;
mod examples;
mod options;
mod pegging;
mod show;

use cardhouse::games::cribbage::{
    CribbageGame, CribbageState, GO, HandScore, Phase, card_action, play::pegging_points,
    score_hand, score_hand_checked, score_hand_text,
};
use cardhouse::{Card, Error, Game, Options, Player, State, Viewer};

fn c(t: &str) -> Card {
    t.parse().expect("card")
}

fn game(pairs: &[(&str, &str)]) -> CribbageGame {
    let opts: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), (*v).into()))
        .collect();
    CribbageGame::from_options(&opts).expect("valid options")
}

fn score(hand: &str, starter: &str, crib: bool) -> HandScore {
    let h: Vec<&str> = hand.split_whitespace().collect();
    score_hand_text(&h, starter, crib).expect("valid hand")
}

/// (fifteens, pairs, runs, flush, nobs, total)
type Items = (u8, u8, u8, u8, u8, u8);

/// (fifteens, pairs, runs, flush, nobs, total)
fn items(s: HandScore) -> Items {
    (s.fifteens, s.pairs, s.runs, s.flush, s.nobs, s.total)
}

fn act(s: &mut CribbageState, text: &str) {
    let a = s
        .string_to_action(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    s.apply(a).unwrap_or_else(|e| panic!("{text}: {e}\n{s}"));
}

/// Deals `hands` (the full dealt hand of each seat, by seat) one card at a time from the
/// dealer's left, then `blind` to the crib (3 players).
fn dealt(g: CribbageGame, hands: &[&str], blind: Option<&str>) -> CribbageState {
    let mut s = g.new_initial_state();
    assert_eq!(s.phase(), Phase::Deal, "tests fix first_dealer");
    let n = hands.len();
    let cards: Vec<Vec<&str>> = hands
        .iter()
        .map(|h| h.split_whitespace().collect())
        .collect();
    let dealer = s.dealer();
    for k in 0..n * cards[0].len() {
        let seat = (dealer + 1 + k % n) % n;
        s.apply(card_action(c(cards[seat][k / n]))).expect("deal");
    }
    if let Some(b) = blind {
        s.apply(card_action(c(b))).expect("blind");
    }
    assert_eq!(s.phase(), Phase::Discard);
    s
}

/// Deals, discards (`discards` by seat, in dealing order) and cuts `starter`.
fn ready(
    g: CribbageGame,
    hands: &[&str],
    blind: Option<&str>,
    discards: &[&str],
    starter: &str,
) -> CribbageState {
    let mut s = dealt(g, hands, blind);
    let n = hands.len();
    for k in 0..n {
        let seat = (s.dealer() + 1 + k) % n;
        for d in discards[seat].split_whitespace() {
            assert_eq!(s.current_player(), Player::Seat(seat));
            act(&mut s, &format!("discard {d}"));
        }
    }
    assert_eq!(s.phase(), Phase::Starter);
    act(&mut s, &format!("starter {starter}"));
    s
}

/// Ranks (A..K) to cribbage rank positions, for [`pegging_points`].
fn ranks(text: &str) -> Vec<u8> {
    text.split_whitespace()
        .map(|r| match r {
            "A" => 0,
            "J" => 10,
            "Q" => 11,
            "K" => 12,
            n => n.parse::<u8>().expect("rank") - 1,
        })
        .collect()
}

/// Points of the last card of a series given as ranks.
fn peg(series: &str) -> u8 {
    let r = ranks(series);
    let count: u8 = r.iter().map(|&x| (x + 1).min(10)).sum();
    pegging_points(&r, count)
}

/// E5's deal: non-dealer N = seat 0 holds 10 5 4 2, dealer D = seat 1 holds 5 6 J 9.
fn e5() -> CribbageState {
    ready(
        game(&[("first_dealer", "1")]),
        &["10C 5C 4D 2H KS QS", "5D 6H JC 9S KH QH"],
        None,
        &["KS QS", "KH QH"],
        "8D",
    )
}

/// E6's deal: dealer P0 holds J 7 6 5, P1 K 9 3 2, P2 Q A 8 4.
fn e6(leader: &str) -> CribbageState {
    ready(
        game(&[
            ("players", "3"),
            ("first_dealer", "0"),
            ("new_series_leader", leader),
        ]),
        &["JS 7S 6S 5S 10D", "KH 9H 3H 2H 10H", "QC AC 8C 4C 10C"],
        Some("10S"),
        &["10D", "10H", "10C"],
        "KD",
    )
}
