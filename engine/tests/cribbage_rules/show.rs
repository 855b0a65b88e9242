//! §11 edge cases 1 to 6: scoring hands and cribs.

use super::*;

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
