//! §11 edge cases 7 to 16: the play (pegging), and a game that ends inside it.

use super::*;

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
