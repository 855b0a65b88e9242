//! §11 edge cases 17 to 19: skunks and the end of the game, hidden discards, the deal points;
//! the table text.

use super::*;

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
