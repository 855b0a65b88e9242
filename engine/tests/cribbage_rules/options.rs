//! The deal, options and returns, the observation layout and the views.

use super::*;

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
