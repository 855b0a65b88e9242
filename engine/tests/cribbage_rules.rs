//! Cribbage rules, one test per rule, worked example (§10) and edge case (§11) of
//! `shared/rules/cribbage.md`, scripted in card notation.

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

// ---------------------------------------------------------------- §10 worked examples

#[test]
fn e1_seed_hand_scores_20() {
    assert_eq!(
        items(score("7S 7H 8S 8C", "7C", false)),
        (12, 8, 0, 0, 0, 20)
    );
}

#[test]
fn e2_twenty_nine_is_the_maximum_and_the_swapped_roles_give_28() {
    assert_eq!(
        items(score("JC 5S 5H 5D", "5C", false)),
        (16, 12, 0, 0, 1, 29)
    );
    assert_eq!(
        items(score("5S 5H 5D 5C", "JC", false)),
        (16, 12, 0, 0, 0, 28)
    );
}

#[test]
fn e3_table_of_hands() {
    let rows: &[(&str, &str, bool, Items)] = &[
        ("3S 4H 4D 5C", "9S", false, (0, 2, 6, 0, 0, 8)),
        ("3S 4H 4D 5C", "6S", false, (4, 2, 8, 0, 0, 14)),
        ("4S 5H 6D 6C", "6S", false, (6, 6, 9, 0, 0, 21)),
        ("7C 8D 8H 9S", "9C", false, (4, 4, 12, 0, 0, 20)),
        ("2H 4H 6H 8H", "KS", false, (0, 0, 0, 4, 0, 4)),
        ("2H 4H 6H 8H", "KS", true, (0, 0, 0, 0, 0, 0)),
        ("2H 4H 6H 8H", "KH", true, (0, 0, 0, 5, 0, 5)),
        ("AS 2S 3S JS", "4D", false, (4, 0, 4, 4, 0, 12)),
        ("AS 2S 3S JS", "4D", true, (4, 0, 4, 0, 0, 8)),
        ("JH QH KH AH", "2H", false, (0, 0, 3, 5, 1, 9)),
        ("5H 5C 10D JH", "QH", false, (12, 2, 3, 0, 1, 18)),
        ("2C 4D 6H 8S", "KC", false, (0, 0, 0, 0, 0, 0)),
    ];
    for &(hand, starter, crib, want) in rows {
        assert_eq!(
            items(score(hand, starter, crib)),
            want,
            "{hand} / {starter}"
        );
    }
}

#[test]
fn e4_pegging_single_cards() {
    assert_eq!(peg("K 5"), 2);
    assert_eq!(peg("5 5 5"), 8);
    assert_eq!(peg("4 6 5"), 5);
    assert_eq!(peg("4 6 5 4"), 3);
    assert_eq!(peg("3 4 2"), 3);
    assert_eq!(peg("3 4 2 5"), 4);
    assert_eq!(peg("3 4 2 5 A"), 7);
    assert_eq!(peg("7 7"), 2);
    assert_eq!(peg("7 7 7"), 6);
    assert_eq!(peg("7 7 7 7"), 12);
    assert_eq!(peg("7 7 7 7 3"), 2, "31");
    assert_eq!(peg("10 K A 5 5"), 4, "31 and a pair");
    assert_eq!(peg("10 5"), 2);
    assert_eq!(peg("10 5 6 4"), 3, "the 10 is not in the run");
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

#[test]
fn e5_a_complete_two_player_play() {
    let mut s = e5();
    assert_eq!(
        s.current_player(),
        Player::Seat(0),
        "the non-dealer plays first"
    );
    for t in ["play 10C", "play 5D"] {
        act(&mut s, t);
    }
    assert_eq!(s.peg_points(), &[0, 2], "D: fifteen");
    act(&mut s, "play 5C");
    assert_eq!(s.peg_points(), &[2, 2], "N: pair");
    act(&mut s, "play 6H");
    act(&mut s, "play 4D");
    assert_eq!(s.peg_points(), &[5, 2], "N: run 4-5-6");
    assert_eq!(s.count(), 30);
    assert_eq!(s.legal_actions().to_vec(), vec![GO], "D: J and 9 exceed 31");
    act(&mut s, "go");
    assert_eq!(
        s.legal_actions().to_vec(),
        vec![GO],
        "N: the 2 would make 32"
    );
    act(&mut s, "go");
    assert_eq!(s.peg_points(), &[6, 2], "N: go");
    assert_eq!(s.count(), 0);
    assert_eq!(
        s.current_player(),
        Player::Seat(1),
        "the new series is led by D"
    );
    for t in ["play JC", "play 2H", "play 9S"] {
        act(&mut s, t);
    }
    // All cards laid: D takes the last card; the show follows at once.
    assert_eq!(s.phase(), Phase::Deal, "next deal after the show");
    let last = s.last_deal().expect("deal done");
    assert_eq!(last.pegging[..2], [6, 3], "pegging totals N 6, D 3");
    let n_hand = score_hand([c("10C"), c("5C"), c("4D"), c("2H")], c("8D"), false);
    let d_hand = score_hand([c("5D"), c("6H"), c("JC"), c("9S")], c("8D"), false);
    let crib = score_hand([c("KS"), c("QS"), c("KH"), c("QH")], c("8D"), true);
    assert_eq!(last.show[..3], [n_hand, d_hand, crib]);
    assert_eq!(
        s.scores(),
        &[
            6 + u32::from(n_hand.total),
            3 + u32::from(d_hand.total) + u32::from(crib.total)
        ]
    );
    assert_eq!(s.dealer(), 0, "the deal alternates");
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

#[test]
fn e6_a_three_player_play() {
    for leader in ["first_go_caller", "after_last_player"] {
        let mut s = e6(leader);
        assert_eq!(s.current_player(), Player::Seat(1));
        for t in ["play KH", "play QC", "play JS"] {
            act(&mut s, t);
        }
        assert_eq!(s.peg_points(), &[3, 0, 0], "P0 run K-Q-J");
        act(&mut s, "go");
        act(&mut s, "play AC");
        assert_eq!(s.peg_points(), &[3, 0, 2], "P2 31");
        assert_eq!(
            s.current_player(),
            Player::Seat(0),
            "led by the player after the 31"
        );
        for t in ["play 7S", "play 9H", "play 8C"] {
            act(&mut s, t);
        }
        assert_eq!(s.peg_points(), &[3, 0, 5], "P2 run 7-8-9");
        act(&mut s, "play 6S");
        assert_eq!(s.peg_points(), &[7, 0, 5], "P0 run 6-7-8-9");
        for seat in [1, 2, 0] {
            assert_eq!(s.current_player(), Player::Seat(seat));
            act(&mut s, "go");
        }
        assert_eq!(s.peg_points(), &[8, 0, 5], "P0 go");
        assert_eq!(
            s.current_player(),
            Player::Seat(1),
            "both leader rules agree"
        );
        for t in ["play 3H", "play 4C", "play 5S"] {
            act(&mut s, t);
        }
        assert_eq!(s.peg_points(), &[11, 0, 5], "P0 run 3-4-5");
        act(&mut s, "play 2H");
        assert_eq!(
            s.last_deal().map(|d| d.points).map(|_| ()),
            Some(()),
            "show done"
        );
        let v = s.view(Viewer::Spectator).expect("view");
        let last = v.last_deal.expect("last deal");
        let show: u32 = last.show.iter().map(|i| u32::from(i.score.total)).sum();
        let pegging = [11, 5, 5];
        let shown = [
            u32::from(last.show[2].score.total) + u32::from(last.show[3].score.total),
            u32::from(last.show[0].score.total),
            u32::from(last.show[1].score.total),
        ];
        assert_eq!(last.points, vec![11 + shown[0], 5 + shown[1], 5 + shown[2]]);
        assert_eq!(show, shown.iter().sum::<u32>());
        let _ = pegging;
    }
}

#[test]
fn e7_counting_order_decides_and_later_hands_are_not_counted() {
    // E5's deal with the target set so that the non-dealer's hand reaches it first.
    let n_hand = score_hand([c("10C"), c("5C"), c("4D"), c("2H")], c("8D"), false);
    let target = 6 + u32::from(n_hand.total);
    let g = game(&[("first_dealer", "1"), ("target_score", &target.to_string())]);
    let mut s = ready(
        g,
        &["10C 5C 4D 2H KS QS", "5D 6H JC 9S KH QH"],
        None,
        &["KS QS", "KH QH"],
        "8D",
    );
    for t in [
        "play 10C", "play 5D", "play 5C", "play 6H", "play 4D", "go", "go", "play JC", "play 2H",
        "play 9S",
    ] {
        act(&mut s, t);
    }
    assert!(s.is_terminal());
    assert_eq!(s.winner(), Some(0));
    assert_eq!(
        s.scores(),
        &[target, 3],
        "the dealer's hand and crib are never counted"
    );
    assert_eq!(s.shown(), 1);
    let v = s.view(Viewer::Spectator).expect("view");
    assert!(v.crib.is_none(), "the crib was never shown");
}

// ---------------------------------------------------------------- §11 edge cases

#[test]
fn edge_01_starter_jack_scores_his_heels_and_can_win_before_any_play() {
    let s = ready(
        game(&[("first_dealer", "1")]),
        &["10C 5C 4D 2H KS QS", "5D 6H 7C 9S KH QH"],
        None,
        &["KS QS", "KH QH"],
        "JD",
    );
    assert_eq!(s.scores(), &[0, 2], "dealer +2 before play");
    assert_eq!(s.phase(), Phase::Play);
    let s = ready(
        game(&[("first_dealer", "1"), ("target_score", "2")]),
        &["10C 5C 4D 2H KS QS", "5D 6H 7C 9S KH QH"],
        None,
        &["KS QS", "KH QH"],
        "JD",
    );
    assert!(s.is_terminal());
    assert_eq!(s.winner(), Some(1));
    assert_eq!(&*s.returns(), &[-2.0, 2.0], "the loser has 0: skunked");
}

#[test]
fn edge_02_nobs_needs_the_jack_of_the_starters_suit_and_a_jack_starter_gives_none() {
    assert_eq!(score("JH 2C 4D 6S", "9H", false).nobs, 1);
    assert_eq!(score("JC 2C 4D 6S", "9H", false).nobs, 0);
    assert_eq!(score("JH 2C 4D 6S", "JC", false).nobs, 0);
    assert_eq!(score("JH 2C 4D 6S", "9H", true).nobs, 1, "in the crib too");
}

#[test]
fn edge_03_flush_rules() {
    assert_eq!(score("2H 4H 6H 8H", "KS", false).flush, 4);
    assert_eq!(score("2H 4H 6H 8H", "KH", false).flush, 5);
    assert_eq!(score("2H 4H 6H 8H", "KS", true).flush, 0);
    assert_eq!(score("2H 4H 6H 8H", "KH", true).flush, 5);
    assert_eq!(
        score("2H 4H 6H 8S", "KH", false).flush,
        0,
        "3 + starter is none"
    );
    assert_eq!(score("2H 4H 6H 8S", "KH", true).flush, 0);
}

#[test]
fn edge_04_runs_double_triple_double_double_ace_low() {
    assert_eq!(score("3S 4H 4D 5C", "9S", false).runs, 6, "double run of 3");
    assert_eq!(
        items(score("3S 4H 4D 5C", "9S", false)).5,
        8,
        "double run = 8"
    );
    assert_eq!(score("4S 5H 6D 6C", "6S", false).total, 21, "triple run");
    assert_eq!(score("4S 5H 6D 6C", "6S", false).runs, 9);
    assert_eq!(
        score("7C 8D 8H 9S", "9C", false).runs,
        12,
        "double-double run"
    );
    assert_eq!(score("7C 8D 8H 9S", "9C", false).total, 20);
    assert_eq!(score("AC 2D 3H 9S", "KC", false).runs, 3, "ace low");
    assert_eq!(score("QC KD AH 9S", "6C", false).runs, 0, "Q-K-A is no run");
    assert_eq!(score("JC QD KH 9S", "6C", false).runs, 3, "J-Q-K is a run");
    assert_eq!(score("9C 10D JH QS", "KC", false).runs, 5);
    assert_eq!(peg("Q K A"), 0);
    assert_eq!(peg("J Q K"), 3);
}

#[test]
fn edge_05_fifteens_use_values_pairs_and_runs_use_ranks() {
    assert_eq!(score("KC 5D 2H 7S", "9C", false).fifteens, 2, "K+5 only");
    assert_eq!(score("KC 5D 5H 7S", "9C", false).fifteens, 4, "K+5 twice");
    assert_eq!(score("JC QD 2H 7S", "9C", false).pairs, 0, "J-Q is no pair");
    assert_eq!(
        score("10C KD 2H 7S", "9C", false).pairs,
        0,
        "10-K is no pair"
    );
    assert_eq!(peg("J Q"), 0);
    assert_eq!(peg("10 K"), 0);
    assert_eq!(peg("K 5"), 2);
}

#[test]
fn edge_06_the_29_and_28_hands() {
    assert_eq!(score("JC 5S 5H 5D", "5C", false).total, 29);
    assert_eq!(score("5S 5H 5D 5C", "JC", false).total, 28);
    assert_eq!(
        score("JC 5S 5H 5D", "5C", true).total,
        29,
        "also in the crib"
    );
}

#[test]
fn edge_07_a_player_with_a_playable_card_may_not_say_go() {
    let mut s = e5();
    let err = s.apply(GO).unwrap_err();
    assert!(matches!(err, Error::IllegalAction { .. }));
    assert!(err.to_string().contains("playable"), "{err}");
    act(&mut s, "play 10C");
    act(&mut s, "play 5D");
    act(&mut s, "play 5C");
    act(&mut s, "play 6H");
    // N at 26 holds 4 and 2: both playable, so go is illegal.
    assert!(s.apply(GO).is_err());
    let before = format!("{s:?}");
    let err = s.apply(card_action(c("9S"))).unwrap_err();
    assert!(err.to_string().contains("does not hold"), "{err}");
    assert_eq!(
        format!("{s:?}"),
        before,
        "a rejected action leaves the state unchanged"
    );
}

#[test]
fn edge_08_31_scores_2_not_3_and_a_last_card_fifteen_scores_3() {
    assert_eq!(peg("7 7 7 7 3"), 2);
    assert_eq!(peg("10 7 6 8"), 5, "31 together with the run 6-7-8");
    assert_eq!(peg("K 9 6 3 3"), 4, "31 together with a pair");
    // E5's last series: D 9 at 21 is the last card: 1. Replace by a final fifteen.
    let mut s = ready(
        game(&[("first_dealer", "1")]),
        &["10C 5C 4D 2H KS QS", "5D 6H JC 3S KH QH"],
        None,
        &["KS QS", "KH QH"],
        "8D",
    );
    for t in [
        "play 10C", "play 5D", "play 5C", "play 6H", "play 4D", "go", "go", "play JC", "play 2H",
    ] {
        act(&mut s, t);
    }
    let before = s.peg_points()[1];
    act(&mut s, "play 3S");
    let last = s.last_deal().expect("deal done");
    let pegged = last.points[1] - u32::from(last.show[1].total) - u32::from(last.show[2].total);
    assert_eq!(pegged - before, 3, "JC 2H 3S = 15: fifteen 2 + last card 1");
}

#[test]
fn edge_09_pegging_runs_out_of_order_interrupted_extended_longest() {
    assert_eq!(peg("4 6 5"), 5, "out of order, with the fifteen");
    assert_eq!(peg("4 6 9 5"), 0, "interrupted by the 9");
    assert_eq!(peg("2 3 4"), 3);
    assert_eq!(peg("2 3 4 5"), 4, "extended");
    assert_eq!(peg("2 3 4 5 6"), 5, "extended again");
    assert_eq!(peg("6 2 3 4 5"), 5, "all five, in any order");
    assert_eq!(peg("7 2 3 4 5"), 4, "the tail 2-3-4-5 only");
    assert_eq!(peg("3 2 3 4"), 3, "longest tail of distinct ranks only");
    assert_eq!(peg("5 4 3 4"), 0, "a repeated rank inside breaks it");
}

#[test]
fn edge_10_pair_kinds_and_a_card_between_breaks_the_chain() {
    assert_eq!(peg("9 9"), 2);
    assert_eq!(peg("9 9 9"), 6);
    assert_eq!(peg("2 2 2 2"), 12);
    assert_eq!(peg("9 4 9"), 0);
    assert_eq!(peg("8 8 4 8"), 0);
}

#[test]
fn edge_11_combinations_never_cross_a_reset_and_31_restarts_the_count() {
    let mut s = e6("first_go_caller");
    for t in ["play KH", "play QC", "play JS", "go", "play AC"] {
        act(&mut s, t);
    }
    assert_eq!(s.count(), 0, "31 restarts the count");
    // A new series: the 7 after the A of the old one scores nothing.
    let before = s.peg_points().to_vec();
    act(&mut s, "play 7S");
    assert_eq!(s.peg_points(), &before[..]);
    assert_eq!(s.count(), 7);
}

#[test]
fn edge_12_one_player_out_of_cards_the_other_plays_on_alone() {
    // N (seat 0) holds 4 A 3 2, D (dealer, seat 1) 10 J K K.
    let mut s = ready(
        game(&[("first_dealer", "1")]),
        &["4C AC 3C 2C 9D 9H", "10H JH KH KS 8D 8H"],
        None,
        &["9D 9H", "8D 8H"],
        "7S",
    );
    for t in ["play 4C", "play 10H", "play AC", "play JH", "play 3C"] {
        act(&mut s, t);
    }
    assert_eq!(s.peg_points(), &[2, 0], "N: fifteen");
    assert_eq!(s.legal_actions().to_vec(), vec![GO], "D at 28 with K K");
    act(&mut s, "go");
    assert_eq!(
        s.current_player(),
        Player::Seat(0),
        "N plays on after D's go"
    );
    act(&mut s, "play 2C");
    assert_eq!(s.peg_points(), &[3, 0], "N is out: the series ends, N +1");
    assert_eq!(
        s.current_player(),
        Player::Seat(1),
        "D, the first go caller, leads"
    );
    act(&mut s, "play KH");
    assert_eq!(s.current_player(), Player::Seat(1), "D alone");
    act(&mut s, "play KS");
    let last = s.last_deal().expect("deal done");
    assert_eq!(
        last.pegging[..2],
        [3, 3],
        "D: pair with his own cards 2 + last card 1"
    );
}

#[test]
fn edge_13_new_series_leader_after_go_and_after_31() {
    // Dealer P0. P1 says go, P2 lays, P0 says go, P2 says go: P2 +1 and P1 leads
    // (after_last_player: P0).
    for (leader, first) in [("first_go_caller", 1), ("after_last_player", 0)] {
        let mut s = ready(
            game(&[
                ("players", "3"),
                ("first_dealer", "0"),
                ("new_series_leader", leader),
            ]),
            &["8C 3S 9H QH 2H", "10C 4C 5D 6D 2C", "KC AC 3D 7H 2D"],
            Some("2S"),
            &["2H", "2C", "2D"],
            "5H",
        );
        for t in [
            "play 10C", "play KC", "play 8C", "go", "play AC", "go", "go",
        ] {
            act(&mut s, t);
        }
        assert_eq!(s.peg_points(), &[0, 0, 1], "P2 scores the go");
        assert_eq!(s.current_player(), Player::Seat(first), "{leader}");
    }
}

#[test]
fn edge_14_three_players_blind_crib_card_and_series_around_the_table() {
    let s = e6("first_go_caller");
    assert_eq!(s.crib().len(), 4);
    assert!(
        s.crib().contains(c("10S")),
        "the blind card comes from the pack"
    );
    for p in 0..3 {
        assert!(!s.dealt_hand(p).contains(c("10S")));
        assert_eq!(s.dealt_hand(p).len(), 5);
        assert_eq!(s.hand(p).len(), 4);
    }
}

#[test]
fn edge_15_partners_cards_complete_pairs_and_scores_pool() {
    let mut s = ready(
        game(&[("players", "4"), ("first_dealer", "3")]),
        &[
            "9C 2C 3C 4C KD",
            "10D 2D 3D 4D KH",
            "9H 2H 3H 4H KS",
            "10S 7S 6S 8S KC",
        ],
        None,
        &["KD", "KH", "KS", "KC"],
        "5C",
    );
    act(&mut s, "play 2C");
    act(&mut s, "play 4D");
    act(&mut s, "play 3H");
    assert_eq!(
        s.scores(),
        &[3, 0],
        "seat 2 completes a run with cards of 0 and 1"
    );
    act(&mut s, "play 6S");
    act(&mut s, "play 3C");
    act(&mut s, "play 3D");
    assert_eq!(
        s.scores(),
        &[3, 4],
        "seat 3's fifteen and seat 1's pair with an opponent's 3 pool to team 1"
    );
    act(&mut s, "play 2H");
    assert_eq!(s.scores(), &[3, 4]);
    // Finish the deal: the crib goes to team 1 (dealer 3), show from seat 0.
    while s.phase() == Phase::Play {
        let a = s.legal_actions().iter().next().expect("legal");
        s.apply(a).expect("legal");
    }
    let last = s.last_deal().expect("done");
    assert_eq!(
        last.show[4],
        score_hand([c("KD"), c("KH"), c("KS"), c("KC")], c("5C"), true)
    );
    assert!(last.points[1] >= u32::from(last.show[4].total));
    let v = s.view(Viewer::Spectator).expect("view");
    let order: Vec<(usize, bool)> = v
        .last_deal
        .expect("last")
        .show
        .iter()
        .map(|i| (i.seat, i.crib))
        .collect();
    assert_eq!(
        order,
        vec![(0, false), (1, false), (2, false), (3, false), (3, true)]
    );
}

#[test]
fn edge_16_the_game_ends_instantly_during_pegging() {
    let mut s = ready(
        game(&[("first_dealer", "1"), ("target_score", "2")]),
        &["10C 5C 4D 2H KS QS", "5D 6H JC 9S KH QH"],
        None,
        &["KS QS", "KH QH"],
        "8D",
    );
    act(&mut s, "play 10C");
    act(&mut s, "play 5D");
    assert!(s.is_terminal(), "D's fifteen reaches 2");
    assert_eq!(s.winner(), Some(1));
    assert!(s.legal_actions().is_empty());
    assert!(matches!(s.apply(GO), Err(Error::GameOver)));
}

#[test]
fn a_game_ended_inside_the_pegging_keeps_its_position_in_the_terminal_view() {
    // §8 [decision]: the terminal view keeps the count, the series and the go calls of the
    // instant the game ended. E5 to 6: N's go point after both said go at 30 wins.
    let mut s = ready(
        game(&[("first_dealer", "1"), ("target_score", "6")]),
        &["10C 5C 4D 2H KS QS", "5D 6H JC 9S KH QH"],
        None,
        &["KS QS", "KH QH"],
        "8D",
    );
    for t in [
        "play 10C", "play 5D", "play 5C", "play 6H", "play 4D", "go", "go",
    ] {
        act(&mut s, t);
    }
    assert!(s.is_terminal());
    assert_eq!(s.winner(), Some(0));
    let laid: Vec<Option<Card>> = ["10C", "5D", "5C", "6H", "4D"]
        .iter()
        .map(|t| Some(c(t)))
        .collect();
    for v in [
        Viewer::Seat(0),
        Viewer::Seat(1),
        Viewer::Spectator,
        Viewer::Omniscient,
    ] {
        let view = s.view(v).expect("view");
        assert_eq!(view.count, 30, "{v:?}");
        let series: Vec<Option<Card>> = view.series.iter().map(|p| p.card).collect();
        assert_eq!(series, laid, "{v:?}");
        assert_eq!(view.said_go, [true, true], "{v:?}");
    }
    let obs = s.observation(1).expect("observation");
    assert_eq!(
        obs[cardhouse::games::cribbage::layout::COUNT],
        30.0 / 31.0,
        "the observation keeps the count too"
    );
    let text = s.observation_string(1).expect("text");
    assert!(
        text.contains("count 30: 0:10C 1:5D 0:5C 1:6H 0:4D; go said by seat 0, 1"),
        "{text}"
    );
    // Ended by a laid card (a fifteen), without go calls.
    let mut s = ready(
        game(&[("first_dealer", "1"), ("target_score", "2")]),
        &["10C 5C 4D 2H KS QS", "5D 6H JC 9S KH QH"],
        None,
        &["KS QS", "KH QH"],
        "8D",
    );
    act(&mut s, "play 10C");
    act(&mut s, "play 5D");
    let view = s.view(Viewer::Spectator).expect("view");
    assert_eq!((view.count, view.series.len()), (15, 2));
    assert_eq!(view.said_go, [false, false]);
}

#[test]
fn edge_17_skunk_boundary() {
    // E5's deal, target = N's pegging + hand; D ends with 3 points.
    let n_hand = score_hand([c("10C"), c("5C"), c("4D"), c("2H")], c("8D"), false);
    let target = (6 + u32::from(n_hand.total)).to_string();
    let run = |extra: &[(&str, &str)]| {
        let mut opts = vec![("first_dealer", "1"), ("target_score", target.as_str())];
        opts.extend_from_slice(extra);
        let mut s = ready(
            game(&opts),
            &["10C 5C 4D 2H KS QS", "5D 6H JC 9S KH QH"],
            None,
            &["KS QS", "KH QH"],
            "8D",
        );
        for t in [
            "play 10C", "play 5D", "play 5C", "play 6H", "play 4D", "go", "go", "play JC",
            "play 2H", "play 9S",
        ] {
            act(&mut s, t);
        }
        assert_eq!(s.scores()[1], 3);
        s.returns().to_vec()
    };
    assert_eq!(
        run(&[("skunk_threshold", "4")]),
        vec![2.0, -2.0],
        "3 < 4: skunk"
    );
    assert_eq!(
        run(&[("skunk_threshold", "3")]),
        vec![1.0, -1.0],
        "3 is not < 3"
    );
    assert_eq!(run(&[("skunk_enabled", "false")]), vec![1.0, -1.0]);
    assert_eq!(
        run(&[
            ("double_skunk_enabled", "true"),
            ("double_skunk_threshold", "4")
        ]),
        vec![4.0, -4.0]
    );
    assert_eq!(
        run(&[
            ("double_skunk_enabled", "true"),
            ("double_skunk_threshold", "4"),
            ("double_skunk_game_value", "3")
        ]),
        vec![3.0, -3.0]
    );
    assert_eq!(
        run(&[
            ("double_skunk_enabled", "true"),
            ("double_skunk_threshold", "3")
        ]),
        vec![2.0, -2.0],
        "3 is not below 3: a plain skunk (< 91)"
    );
    assert_eq!(
        run(&[("skunk_game_value", "3")]),
        vec![3.0, -3.0],
        "the default threshold 91"
    );
}

#[test]
fn the_end_of_the_game_says_who_is_skunked() {
    // E5's deal as in edge 17: D (seat 1) ends with 3 points.
    let n_hand = score_hand([c("10C"), c("5C"), c("4D"), c("2H")], c("8D"), false);
    let target = (6 + u32::from(n_hand.total)).to_string();
    let end = |extra: &[(&str, &str)]| {
        let mut opts = vec![("first_dealer", "1"), ("target_score", target.as_str())];
        opts.extend_from_slice(extra);
        let mut s = ready(
            game(&opts),
            &["10C 5C 4D 2H KS QS", "5D 6H JC 9S KH QH"],
            None,
            &["KS QS", "KH QH"],
            "8D",
        );
        for t in [
            "play 10C", "play 5D", "play 5C", "play 6H", "play 4D", "go", "go", "play JC",
            "play 2H", "play 9S",
        ] {
            act(&mut s, t);
        }
        let text = s.observation_string(1).expect("text");
        text.lines().last().expect("a line").to_owned()
    };
    assert!(
        end(&[]).starts_with("game over: seat 0 wins; seat 1 skunked (below 91: 2 games);"),
        "{}",
        end(&[])
    );
    assert!(end(&[("skunk_enabled", "false")]).starts_with("game over: seat 0 wins; returns"));
    assert!(end(&[("skunk_threshold", "3")]).starts_with("game over: seat 0 wins; returns"));
    assert!(
        end(&[
            ("double_skunk_enabled", "true"),
            ("double_skunk_threshold", "4")
        ])
        .starts_with("game over: seat 0 wins; seat 1 double-skunked (below 4: 4 games);")
    );
}

#[test]
fn the_table_text_says_one_card_and_unreadable_moves_suggest_what_can_be_typed_now() {
    // Three players: the blind card is the crib's first card.
    let mut s = dealt(
        game(&[("players", "3"), ("first_dealer", "0")]),
        &["JS 7S 6S 5S 10D", "KH 9H 3H 2H 10H", "QC AC 8C 4C 10C"],
        Some("10S"),
    );
    assert!(
        s.observation_string(0)
            .expect("text")
            .contains("crib: 1 card, face down")
    );
    act(&mut s, "discard 10H");
    assert!(
        s.observation_string(0)
            .expect("text")
            .contains("crib: 2 cards, face down")
    );
    let why = |s: &CribbageState| match s.string_to_action("hello") {
        Err(Error::UnparsableAction { reason, .. }) => reason,
        other => panic!("{other:?}"),
    };
    assert_eq!(why(&s), "expected `discard <card>` (e.g. `discard 5H`)");
    act(&mut s, "discard 10C");
    act(&mut s, "discard 10D");
    assert!(
        why(&s).contains("`starter <card>`"),
        "a chance event: {}",
        why(&s)
    );
    act(&mut s, "starter KD");
    assert_eq!(why(&s), "expected `play <card>` (e.g. `play 5H`) or `go`");
    assert!(!why(&s).contains("deal") && !why(&s).contains("starter"));
}

#[test]
fn edge_18_discards_are_hidden_the_dealer_sees_only_his_own_crib_cards() {
    let mut s = dealt(
        game(&[("first_dealer", "1")]),
        &["10C 5C 4D 2H KS QS", "5D 6H JC 9S KH QH"],
        None,
    );
    let a = card_action(c("KS"));
    assert_eq!(
        s.action_to_string_for(Viewer::Seat(0), a).as_deref(),
        Some("discard KS")
    );
    assert_eq!(
        s.action_to_string_for(Viewer::Seat(1), a).as_deref(),
        Some("discard a card")
    );
    assert_eq!(
        s.action_to_string_for(Viewer::Spectator, a).as_deref(),
        Some("discard a card")
    );
    act(&mut s, "discard KS");
    act(&mut s, "discard QS");
    act(&mut s, "discard KH");
    act(&mut s, "discard QH");
    let v = s.view(Viewer::Seat(1)).expect("view");
    assert_eq!(v.discards[1].as_deref(), Some(&[c("QH"), c("KH")][..]));
    assert!(v.discards[0].is_none());
    assert!(v.crib.is_none());
    assert_eq!(v.crib_size, 4);
    let json = serde_json::to_string(&v).expect("json");
    assert!(
        !json.contains("\"KS\"") && !json.contains("\"QS\""),
        "{json}"
    );
}

#[test]
fn edge_19_deal_points_equal_pegging_plus_show_recomputed_from_the_cards() {
    let mut s = e5();
    for t in [
        "play 10C", "play 5D", "play 5C", "play 6H", "play 4D", "go", "go", "play JC", "play 2H",
        "play 9S",
    ] {
        act(&mut s, t);
    }
    let last = s.last_deal().expect("deal");
    let starter = last.starter;
    let n = score_hand_checked(&last.hands[0].iter().collect::<Vec<_>>(), starter, false)
        .expect("4 cards");
    let d = score_hand_checked(&last.hands[1].iter().collect::<Vec<_>>(), starter, false)
        .expect("4 cards");
    let k =
        score_hand_checked(&last.crib.iter().collect::<Vec<_>>(), starter, true).expect("4 cards");
    assert_eq!(
        last.points[..2],
        [
            6 + u32::from(n.total),
            3 + u32::from(d.total) + u32::from(k.total)
        ]
    );
}

// ---------------------------------------------------------------- deal, options, returns

#[test]
fn the_deal_is_one_card_at_a_time_from_the_dealers_left() {
    let s = dealt(
        game(&[("first_dealer", "1")]),
        &["10C 5C 4D 2H KS QS", "5D 6H JC 9S KH QH"],
        None,
    );
    let h = s.history();
    assert_eq!(
        h[0],
        card_action(c("10C")),
        "the non-dealer gets the first card"
    );
    assert_eq!(h[1], card_action(c("5D")));
    assert_eq!(
        s.current_player(),
        Player::Seat(0),
        "the non-dealer discards first"
    );
}

#[test]
fn the_first_dealer_is_a_chance_event_by_default() {
    let g = game(&[("players", "3")]);
    let s = g.new_initial_state();
    assert!(s.is_chance_node());
    let out = s.chance_outcomes().expect("chance");
    assert_eq!(out.len(), 3);
    assert!(out.iter().all(|&(_, p)| (p - 1.0 / 3.0).abs() < 1e-12));
    assert_eq!(s.action_to_string(2), "first dealer 2");
    let mut t = s.clone();
    t.apply(2).expect("outcome");
    assert_eq!(t.dealer(), 2);
    assert!(t.action_to_string(card_action(c("5H"))).ends_with("to 0"));
}

#[test]
fn options_are_validated_with_precise_errors() {
    let err = CribbageGame::from_options(&cardhouse::options([
        ("players", "2".into()),
        ("first_dealer", "3".into()),
    ]))
    .unwrap_err();
    assert!(err.to_string().contains("first_dealer"), "{err}");
    assert!(err.to_string().contains("0 to 1"), "{err}");
    for (k, v) in [
        ("players", "5"),
        ("target_score", "0"),
        ("new_series_leader", "dealer"),
        ("skunk_enabled", "maybe"),
        ("first_dealer", "north"),
    ] {
        let err = CribbageGame::from_options(&cardhouse::options([(k, v.into())])).unwrap_err();
        assert!(err.to_string().contains(k), "{err}");
    }
    let err =
        CribbageGame::from_options(&cardhouse::options([("muggins", true.into())])).unwrap_err();
    assert!(err.to_string().contains("muggins"));
    let as_int = CribbageGame::from_options(&cardhouse::options([
        ("players", 3.into()),
        ("first_dealer", 2.into()),
    ]))
    .expect("a seat as an integer");
    assert_eq!(as_int.new_initial_state().dealer(), 2);
    let g = game(&[
        ("players", "4"),
        ("first_dealer", "3"),
        ("target_score", "61"),
    ]);
    assert_eq!(
        CribbageGame::from_options(&g.options()).expect("canonical"),
        g
    );
}

#[test]
fn deal_scope_returns_are_points_against_the_other_side_or_the_mean() {
    let mut s = e6("first_go_caller");
    let g = game(&[("players", "3"), ("first_dealer", "0"), ("scope", "deal")]);
    let _ = &mut s;
    let mut s = ready(
        g,
        &["JS 7S 6S 5S 10D", "KH 9H 3H 2H 10H", "QC AC 8C 4C 10C"],
        Some("10S"),
        &["10D", "10H", "10C"],
        "KD",
    );
    while !s.is_terminal() {
        let a = s.legal_actions().iter().next().expect("legal");
        s.apply(a).expect("legal");
    }
    let p: Vec<f64> = s.deal_points().iter().map(|&x| f64::from(x)).collect();
    let mean = p.iter().sum::<f64>() / 3.0;
    let r = s.returns();
    for i in 0..3 {
        assert!((r[i] - (p[i] - mean)).abs() < 1e-9);
    }
    assert_eq!(r.iter().sum::<f64>(), 0.0);
    assert!(s.winner().is_none(), "the target does not apply in a deal");
    // The view's scores hold the points of that deal, as in every game.
    for v in [Viewer::Seat(0), Viewer::Spectator, Viewer::Omniscient] {
        assert_eq!(s.view(v).expect("view").scores, s.deal_points(), "{v:?}");
    }
    assert!(s.deal_points().iter().any(|&p| p > 0));
}

#[test]
fn three_player_match_winner_collects_each_losers_game_value() {
    // P1 and P2 lose; values judged per loser.
    let g = game(&[
        ("players", "3"),
        ("first_dealer", "0"),
        ("target_score", "3"),
        ("skunk_threshold", "2"),
    ]);
    let mut s = ready(
        g,
        &["JS 7S 6S 5S 10D", "KH 9H 3H 2H 10H", "QC AC 8C 4C 10C"],
        Some("10S"),
        &["10D", "10H", "10C"],
        "KD",
    );
    for t in ["play KH", "play QC", "play JS"] {
        act(&mut s, t);
    }
    assert!(s.is_terminal());
    assert_eq!(s.scores(), &[3, 0, 0]);
    assert_eq!(&*s.returns(), &[4.0, -2.0, -2.0]);
}

#[test]
fn scorer_rejects_duplicates_and_bad_cards_naming_the_card() {
    let err = score_hand_text(&["5H", "5H", "6C", "7D"], "8S", false).unwrap_err();
    assert!(err.to_string().contains("5H"), "{err}");
    let err = score_hand_text(&["5H", "6C", "7D", "8S"], "8S", false).unwrap_err();
    assert!(err.to_string().contains("8S"), "{err}");
    let err = score_hand_text(&["5H", "1C", "7D", "8S"], "9S", false).unwrap_err();
    assert!(err.to_string().contains("1C"), "{err}");
    assert!(score_hand_text(&["5H", "6C", "7D"], "9S", false).is_err());
}

#[test]
fn action_texts_parse_back() {
    let s = e5();
    for a in s.legal_actions().iter() {
        assert_eq!(s.string_to_action(&s.action_to_string(a)).ok(), Some(a));
    }
    assert_eq!(s.string_to_action("go").ok(), Some(GO));
    assert!(s.string_to_action("bid 3").is_err());
}

#[test]
fn observation_layout_puts_each_item_in_its_slot() {
    use cardhouse::games::cribbage::layout as l;
    let mut s = e5();
    for t in ["play 10C", "play 5D", "play 5C"] {
        act(&mut s, t);
    }
    // Seat 1 (the dealer) observes: relative seat 0 = itself, 1 = seat 0.
    let o = s.observation(1).expect("seat");
    assert_eq!(o.len(), l::TOTAL);
    let slot = |offset: usize, card: &str| offset + card_action(c(card)) as usize;
    for card in ["6H", "JC", "9S"] {
        assert_eq!(o[slot(l::HAND, card)], 1.0, "{card} in hand");
    }
    assert_eq!(o[l::HAND..l::HAND + 52].iter().sum::<f32>(), 3.0);
    assert_eq!(o[slot(l::DISCARDS, "KH")], 1.0);
    assert_eq!(
        o[slot(l::DISCARDS, "KS")],
        0.0,
        "the other seat's discard is hidden"
    );
    assert_eq!(
        o[slot(l::LAID, "5D")],
        1.0,
        "own card laid, relative seat 0"
    );
    assert_eq!(
        o[slot(l::LAID + 52, "10C")],
        1.0,
        "seat 0's card, relative seat 1"
    );
    assert_eq!(o[slot(l::STARTER, "8D")], 1.0);
    assert_eq!(o[l::COUNT], 20.0 / 31.0);
    // Series, most recent first: 5 (rank position 4), 5, 10 (position 9).
    assert_eq!(o[l::SERIES + 4], 1.0);
    assert_eq!(o[l::SERIES + 13 + 4], 1.0);
    assert_eq!(o[l::SERIES + 26 + 9], 1.0);
    assert_eq!(o[l::LAST + 1], 1.0, "seat 0 laid the last card");
    assert_eq!(o[l::PHASE + 4], 1.0, "play");
    assert_eq!(o[l::DEALER], 1.0, "the observer deals");
    assert_eq!(o[l::TO_ACT], 1.0, "the observer is to act");
    assert_eq!(o[l::SCORES], 2.0 / 121.0, "dealer's fifteen");
    assert_eq!(o[l::SCORES + 1], 2.0 / 121.0, "seat 0's pair");
    assert_eq!(o[l::HAND_SIZES + 1], 2.0 / 6.0);
    assert!(
        o[l::CRIB..l::CRIB + 52].iter().all(|&x| x == 0.0),
        "crib not shown"
    );
}

#[test]
fn views_show_a_seat_its_own_hand_only() {
    let s = e5();
    let v = s.view(Viewer::Seat(0)).expect("view");
    assert!(v.hands[0].is_some() && v.hands[1].is_none());
    assert_eq!(v.hand_sizes, vec![4, 4]);
    assert_eq!(v.starter, Some(c("8D")));
    assert_eq!(v.legal_actions.len(), 4, "seat 0 is to act");
    let spectator = s.view(Viewer::Spectator).expect("view");
    assert!(spectator.hands.iter().all(Option::is_none));
    assert!(spectator.discards.iter().all(Option::is_none));
    assert!(spectator.legal_actions.is_empty());
    let all = s.view(Viewer::Omniscient).expect("view");
    assert!(all.hands.iter().all(Option::is_some));
    assert_eq!(all.crib.map(|c| c.len()), Some(4));
    assert!(s.view(Viewer::Seat(2)).is_err());
}
