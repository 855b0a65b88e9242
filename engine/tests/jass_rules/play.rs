//! §7: trick play: E2 (every row), edges 5-10, trick winner, `undertrump_rule`.

use super::*;

// ---------------------------------------------------------------------------------------------
// §7 — trick play: E2 (every row), edges 5–10, trick winner, `undertrump_rule`
// ---------------------------------------------------------------------------------------------

#[test]
fn e2_row1_holding_led_suit_may_follow_or_trump_not_discard() {
    // Acorns K led; hand Acorns 7, Roses 6, Shields A -> Acorns 7, Roses 6.
    let s = e2(
        &[],
        ["KA KS OS", "7A 6R AS", "AA OA US", "UA 10S 6B"],
        "play KA",
    );
    assert_eq!(seat(&s), 1);
    assert_eq!(legal_cards(&s), cards("7A 6R"));
}

#[test]
fn e2_row2_following_suit_or_overtrumping_roses_six_would_undertrump() {
    // Acorns K, Roses 10; hand Acorns 7, Roses 6, Roses U -> Acorns 7, Roses U.
    let s = e2(
        &[],
        ["KA AA OA", "10R UA 8R", "7A 6R UR", "9R AS AB"],
        "play KA, play 10R",
    );
    assert_eq!(seat(&s), 2);
    assert_eq!(legal_cards(&s), cards("7A UR"));
}

#[test]
fn e2_row3_void_in_led_suit_and_cannot_overtrump_plays_plain_card() {
    // Acorns K, Roses 10; hand Shields A, Roses 6 -> Shields A only.
    let s = e2(
        &[],
        ["KA 7R", "10R 8R", "AS 6R", "9R 6B"],
        "play KA, play 10R",
    );
    assert_eq!(seat(&s), 2);
    assert_eq!(legal_cards(&s), cards("AS"));
}

#[test]
fn e2_row4_only_lower_trumps_in_hand_may_undertrump() {
    // Acorns K, Roses 10; hand Roses 6, Roses 7 -> both (only trumps).
    let s = e2(
        &[],
        ["KA 8R", "10R 9R", "6R 7R", "AS 6B"],
        "play KA, play 10R",
    );
    assert_eq!(legal_cards(&s), cards("6R 7R"));
}

#[test]
fn e2_row5_only_trumps_must_overtrump_when_able() {
    // Acorns K, Roses 10; hand Roses 6, 7, A -> Roses A only.
    let s = e2(
        &[],
        ["KA AA OA", "10R UA 9A", "6R 7R AR", "8R AS AB"],
        "play KA, play 10R",
    );
    assert_eq!(legal_cards(&s), cards("AR"));
}

#[test]
fn e2_row6_under_exemption_trump_led_only_trump_is_under_any_card() {
    // Roses K led; hand Roses U, Acorns 7, Shields 8 -> all three.
    let s = e2(
        &[],
        ["KR AA KA", "UR 7A 8S", "9R OA UA", "AR 10R 6B"],
        "play KR",
    );
    assert_eq!(seat(&s), 1);
    assert_eq!(legal_cards(&s), cards("UR 7A 8S"));
}

#[test]
fn e2_row7_trump_led_with_other_trumps_must_play_trump() {
    // Roses K led; hand Roses U, Roses 6, Acorns 7 -> Roses U, Roses 6.
    let s = e2(
        &[],
        ["KR AA KA", "UR 6R 7A", "9R OA UA", "AR 8S 6B"],
        "play KR",
    );
    assert_eq!(legal_cards(&s), cards("UR 6R"));
}

#[test]
fn edge_05_trump_under_exemption_when_only_trump_is_the_under() {
    // §7.1: trump led, the hand's only trump is the U -> any card (9 cards).
    let s = trick_one(
        &[],
        ["9R AR KR", "UR", "OR 10R 8R", "7R 6R"],
        "trump roses",
        "play 9R",
    );
    assert_eq!(legal_cards(&s), s.hand(1));
    assert_eq!(s.hand(1).len(), 9);
    let mut s2 = s.clone();
    let plain = (s.hand(1) - cards("UR")).first().unwrap();
    act(&mut s2, &format!("play {}", plain.swiss()));
}

#[test]
fn edge_05_with_other_trumps_a_trump_must_be_played_but_the_under_may_be_kept() {
    let mut s = trick_one(
        &[],
        ["9R AR KR", "UR 6R", "OR 10R 8R", "7R"],
        "trump roses",
        "play 9R",
    );
    assert_eq!(legal_cards(&s), cards("UR 6R"));
    let before = (s.history(), view_json(&s));
    let plain = (s.hand(1) - cards("UR 6R")).first().unwrap();
    let err = try_act(&mut s, &format!("play {}", plain.swiss())).unwrap_err();
    match &err {
        Error::IllegalAction { reason, .. } => {
            assert!(reason.contains("a trump must be played"), "{err}")
        }
        e => panic!("unexpected {e}"),
    }
    assert_eq!((s.history(), view_json(&s)), before);
    act(&mut s, "play 6R"); // keeps the Under
    assert!(s.hand(1).contains(card("UR")));
}

#[test]
fn trump_led_without_any_trump_any_card() {
    // §7.1: trump led and no trump in the hand -> any card.
    let s = trick_one(
        &[],
        ["9R AR KR OR 10R", "", "UR 8R 7R 6R", ""],
        "trump roses",
        "play 9R",
    );
    assert!(s.hand(1).of_suit(Suit::ROSES).is_empty());
    assert_eq!(legal_cards(&s), s.hand(1));
}

#[test]
fn edge_06_trumping_allowed_while_holding_led_suit() {
    // §7.1: trumps are always allowed instead of following suit.
    let mut s = trick_one(
        &[],
        ["KA", "7A 9A 6R 10R", "", ""],
        "trump roses",
        "play KA",
    );
    let h = s.hand(1);
    assert_eq!(
        legal_cards(&s),
        h.of_suit(Suit::ACORNS) | h.of_suit(Suit::ROSES)
    );
    assert!(legal_cards(&s).contains(card("6R")));
    act(&mut s, "play 6R");
}

#[test]
fn edge_07_no_undertrumping_while_holding_another_legal_card() {
    // §7.1: a lower trump is illegal if the hand has any other legal card.
    let s = trumped_plain_lead(&[], "6R 7R", "UR 9R AR KR OR 8R");
    assert_eq!(seat(&s), 2);
    let h = s.hand(2);
    assert!(h.of_suit(Suit::ACORNS).is_empty());
    assert_eq!(legal_cards(&s), h - cards("6R 7R"));
}

#[test]
fn edge_07_undertrump_allowed_when_hand_is_only_lower_trumps() {
    let s = late_trick(&[], ROSES, ["KA 9R", "UR 8R", "6R 7R", "AS 6B"], 0);
    let mut s = s;
    script(&mut s, "play KA, play UR");
    assert_eq!(legal_cards(&s), cards("6R 7R"));
    act(&mut s, "play 6R");
}

#[test]
fn edge_08_must_overtrump_when_trumping_over_a_trump_and_able() {
    // §7.1: only trumps higher than the 10R may be added; plain discards stay legal.
    let s = trumped_plain_lead(&[], "6R AR", "UR 9R KR OR 8R 7R");
    let h = s.hand(2);
    assert_eq!(legal_cards(&s), h - cards("6R"));
    assert!(legal_cards(&s).contains(card("AR")));
}

#[test]
fn edge_09_no_obligation_to_beat_when_trump_is_led() {
    // §7.1: trump led -> any trump, no need to beat.
    let mut s = trick_one(&[], ["10R", "6R 9R", "", ""], "trump roses", "play 10R");
    let h = s.hand(1);
    assert_eq!(legal_cards(&s), h.of_suit(Suit::ROSES));
    assert!(legal_cards(&s).contains(card("6R")));
    act(&mut s, "play 6R"); // does not beat the 10
}

#[test]
fn option_undertrump_rule_allowed_if_cannot_overtrump() {
    // §16 `undertrump_rule = allowed_if_cannot_overtrump` (literal seed): a lower trump is
    // legal whenever no higher trump is held.
    let opt: &[(&str, &str)] = &[("undertrump_rule", "allowed_if_cannot_overtrump")];
    // E2 row 3 hand: Shields A, Roses 6 -> now both.
    let finals = ["KA 7R", "10R 8R", "AS 6R", "9R 6B"];
    assert_eq!(
        legal_cards(&e2(&[], finals, "play KA, play 10R")),
        cards("AS")
    );
    assert_eq!(
        legal_cards(&e2(opt, finals, "play KA, play 10R")),
        cards("AS 6R")
    );
    // Holding the led suit and only a lower trump: default follow only; option adds 6R.
    let finals = ["KA AA OA", "10R UA 8R", "7A 6R 7R", "9R AS AB"];
    assert_eq!(
        legal_cards(&e2(&[], finals, "play KA, play 10R")),
        cards("7A")
    );
    assert_eq!(
        legal_cards(&e2(opt, finals, "play KA, play 10R")),
        cards("7A 6R 7R")
    );
    // E2 row 2 (a higher trump held): unchanged, no undertrumping.
    let finals = ["KA AA OA", "10R UA 8R", "7A 6R UR", "9R AS AB"];
    assert_eq!(
        legal_cards(&e2(opt, finals, "play KA, play 10R")),
        cards("7A UR")
    );
    // 9-card hand void in Acorns with only lower trumps: every card.
    let s = trumped_plain_lead(opt, "6R 7R", "UR 9R AR KR OR 8R");
    assert_eq!(legal_cards(&s), s.hand(2));
}

#[test]
fn trick_winner_trump_order_under_nell_ace_king() {
    // §3.2 / §7.3: trump order U, 9, A, K, O, 10, 8, 7, 6.
    let s = trick_one(
        &[],
        ["AR", "9R", "UR", "KR"],
        "trump roses",
        "play AR, play 9R, play UR, play KR",
    );
    assert_eq!(s.card_points(), [11 + 14 + 20 + 4, 0]);
    assert_eq!(seat(&s), 2, "the winner leads the next trick");
    let v = s.view(Viewer::Spectator).unwrap();
    assert_eq!(v.tricks[0].winner, 2);
    // Ober beats 10, 8, 7.
    let t = trick_one(
        &[],
        ["10R", "8R", "OR", "7R"],
        "trump roses",
        "play 10R, play 8R, play OR, play 7R",
    );
    assert_eq!(t.view(Viewer::Spectator).unwrap().tricks[0].winner, 2);
    assert_eq!(t.card_points(), [10 + 3, 0]);
}

#[test]
fn trick_winner_lowest_trump_beats_led_suit_and_higher_trump_beats_lower() {
    // §7.3: a trump wins a plain-suit trick; the highest trump wins.
    let s = trick_one(
        &[],
        ["AA", "6R", "KA", "7R OA UA 10A 9A 8A 7A 6A"],
        "trump roses",
        "play AA, play 6R, play KA, play 7R",
    );
    assert_eq!(s.view(Viewer::Spectator).unwrap().tricks[0].winner, 3);
    assert_eq!(s.card_points(), [0, 11 + 4]);
}

#[test]
fn trick_winner_plain_highest_of_led_suit_off_suit_never_wins() {
    // §7.3: without trump the highest card of the led suit wins; a discard never wins.
    let s = trick_one(
        &[],
        ["10A", "AS KS OS US 10S 9S 8S 7S 6S", "KA", "6A"],
        "trump roses",
        "play 10A, play AS, play KA, play 6A",
    );
    assert_eq!(s.view(Viewer::Spectator).unwrap().tricks[0].winner, 2);
    assert_eq!(s.card_points(), [10 + 11 + 4, 0]);
}

#[test]
fn edge_10_obenabe_high_wins_undenufe_six_wins_ace_loses() {
    // §7.3: Obenabe A high; Undenufe 6 beats 7 ... beats A. Discards never win.
    let partial = ["10A", "AS KS OS US 10S 9S 8S 7S 6S", "6A", "AA"];
    let s = trick_one(
        &[],
        partial,
        "obenabe",
        "play 10A, play AS, play 6A, play AA",
    );
    assert_eq!(s.view(Viewer::Spectator).unwrap().tricks[0].winner, 3);
    let s = trick_one(
        &[],
        partial,
        "undenufe",
        "play 10A, play AS, play 6A, play AA",
    );
    assert_eq!(s.view(Viewer::Spectator).unwrap().tricks[0].winner, 2);
    // Undenufe: 7 beats 8 and A (no 6 in the trick).
    let s = trick_one(
        &[],
        ["AA", "8A", "7A", "KA"],
        "undenufe",
        "play AA, play 8A, play 7A, play KA",
    );
    assert_eq!(s.view(Viewer::Spectator).unwrap().tricks[0].winner, 2);
    assert_eq!(s.card_points(), [11 + 8 + 4, 0]);
}

#[test]
fn edge_10_obenabe_and_undenufe_follow_suit_if_able_otherwise_any_card() {
    // §7.2: no trumps exist; follow the led suit if able, otherwise any card.
    for mode in ["obenabe", "undenufe"] {
        let s = trick_one(&[], ["KA", "7A 6R", "", ""], mode, "play KA");
        assert_eq!(legal_cards(&s), s.hand(1).of_suit(Suit::ACORNS), "{mode}");
        let s = trick_one(
            &[],
            ["KA AA OA UA 10A 9A 8A 7A 6A", "", "", ""],
            mode,
            "play KA",
        );
        assert_eq!(legal_cards(&s), s.hand(1), "{mode}: void -> any card");
    }
}
