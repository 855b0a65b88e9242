//! §10 worked examples.

use super::*;

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
