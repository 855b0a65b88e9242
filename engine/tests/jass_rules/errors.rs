//! Error paths: illegal actions name the rule and leave the state unchanged.

use super::*;

// ---------------------------------------------------------------------------------------------
// Error paths: illegal actions name the rule and leave the state unchanged
// ---------------------------------------------------------------------------------------------

#[test]
fn illegal_card_must_follow_suit_names_rule_and_leaves_state_unchanged() {
    let mut s = e2(
        &[],
        ["KA KS OS", "7A 6R AS", "AA OA US", "UA 10S 6B"],
        "play KA",
    );
    assert_illegal(&mut s, "play AS", "follow suit");
    // Obenabe too.
    let mut s = trick_one(&[], ["KA", "7A AS", "", ""], "obenabe", "play KA");
    assert_illegal(&mut s, "play AS", "follow suit");
}

#[test]
fn illegal_undertrump_names_rule_and_leaves_state_unchanged() {
    let mut s = trumped_plain_lead(&[], "6R 7R", "UR 9R AR KR OR 8R");
    assert_illegal(&mut s, "play 6R", "undertrumping");
    // Also while holding the led suit (E2 row 2: Roses 6 = undertrump).
    let mut s = e2(
        &[],
        ["KA AA OA", "10R UA 8R", "7A 6R UR", "9R AS AB"],
        "play KA, play 10R",
    );
    assert_illegal(&mut s, "play 6R", "undertrumping");
}

#[test]
fn illegal_card_not_in_hand_and_trump_led_errors() {
    let mut s = trick_one(
        &[],
        ["9R AR KR", "UR 6R", "OR 10R 8R", "7R"],
        "trump roses",
        "play 9R",
    );
    assert_illegal(&mut s, "play AR", "does not hold");
    let plain = (s.hand(1) - cards("UR 6R")).first().unwrap();
    assert_illegal(
        &mut s,
        &format!("play {}", plain.swiss()),
        "trump must be played",
    );
    assert_illegal(&mut s, "obenabe", "mode has already been chosen");
}

#[test]
fn illegal_wys_after_first_trick() {
    // §8.5: Wys are declared only in trick 1, before laying one's card.
    let h = fill(["6B 7B 8B KA", "", "", ""]);
    let mut s = deal(&game_fh0(&[]), hands_ref(&h));
    act(&mut s, "trump roses");
    assert!(legal_texts(&s).contains(&"wys run 6B-8B".to_owned()));
    act(&mut s, "play KA"); // commits an empty set
    play_lowest(&mut s);
    while seat(&s) != 0 {
        play_lowest(&mut s);
    }
    assert_eq!(s.view(Viewer::Spectator).unwrap().tricks.len(), 1);
    assert!(s.hand(0).is_superset(cards("6B 7B 8B")));
    assert!(!legal_texts(&s).iter().any(|t| t.starts_with("wys")));
    assert_illegal(&mut s, "wys run 6B-8B", "first trick");
}

#[test]
fn unknown_action_ids_unparsable_text_and_game_over_errors() {
    let mut s = game_fh0(&[("scope", "deal")]).new_initial_state();
    // At the deal, only card ids 0..36 exist.
    let before = view_json(&s);
    match s.apply(36) {
        Err(Error::UnknownAction { reason, .. }) => assert!(reason.contains("0 to 35"), "{reason}"),
        r => panic!("{r:?}"),
    }
    assert_eq!(view_json(&s), before);
    s.resolve_chance(&mut SeededRng::new(1));
    match s.apply(9999) {
        Err(Error::UnknownAction { reason, .. }) => {
            assert!(reason.contains("0 to 163"), "{reason}")
        }
        r => panic!("{r:?}"),
    }
    match s.string_to_action("trump hearts please") {
        Err(Error::UnparsableAction { reason, .. }) => assert!(reason.contains("play <card>")),
        r => panic!("{r:?}"),
    }
    match s.string_to_action("play 5R") {
        Err(Error::UnparsableAction { reason, .. }) => assert!(reason.contains("below 6")),
        r => panic!("{r:?}"),
    }
    act(&mut s, "obenabe");
    play_out(&mut s);
    assert!(s.is_terminal());
    assert_eq!(s.apply(0), Err(Error::GameOver));
    assert!(s.legal_actions().is_empty());
}

#[test]
fn action_text_forms_round_trip() {
    // Swiss and French notation both parse; text forms are stable.
    let h = fill(["UR 7A 8A 9A UB UA US", "", "", ""]);
    let mut s = deal(&game_fh0(&[]), hands_ref(&h));
    for t in ["trump roses", "obenabe", "undenufe", "schieben"] {
        let a = s.string_to_action(t).unwrap();
        assert_eq!(s.action_to_string(a), t);
    }
    act(&mut s, "trump roses");
    for t in ["play UR", "wys four U", "wys run 7A-9A"] {
        let a: Action = s.string_to_action(t).unwrap();
        assert_eq!(s.action_to_string(a), t);
        assert!(s.legal_actions().contains(a), "{t}");
    }
    assert_eq!(
        s.string_to_action("play JH").unwrap(),
        s.string_to_action("play UR").unwrap()
    );
    assert_eq!(
        s.string_to_action("play UR").unwrap(),
        card_action(card("UR"))
    );
    // Another seat does not learn that a Wys was declared (§12).
    let w = s.string_to_action("wys four U").unwrap();
    assert_eq!(s.action_to_string_for(Viewer::Seat(1), w), None);
    assert_eq!(
        s.action_to_string_for(Viewer::Seat(0), w),
        Some("wys four U".to_owned())
    );
}
