//! §9: Stöck; edge 14; option `stoeck_suits`.

use super::*;

// ---------------------------------------------------------------------------------------------
// §9 — Stöck; edge 14; option `stoeck_suits`
// ---------------------------------------------------------------------------------------------

#[test]
fn stoeck_only_for_king_and_ober_of_trump() {
    // §9: K+O of trumps = 20; K+O of a plain suit scores nothing (default `trump_only`).
    let partial = ["KA OA KR OR", "", "", ""];
    let s = played_deal(&[], partial, "trump roses");
    assert_eq!(s.stoeck_scored(0), 1);
    assert_eq!(s.deal_points()[0], expected_raw(&s, 0));
    assert_eq!(s.deal_points()[0] + s.deal_points()[1], 157 + 20);
    let s = played_deal(&[], partial, "trump acorns");
    assert_eq!(
        s.stoeck_scored(0),
        1,
        "the Acorns pair is Stöck in an Acorns game"
    );
    let s = played_deal(&[], partial, "trump shields");
    assert_eq!(s.stoeck_scored(0), 0, "plain K+O are no Stöck");
    for team in 0..2 {
        assert_eq!(s.deal_points()[team], expected_raw(&s, team));
    }
}

#[test]
fn stoeck_needs_one_player_to_hold_both_cards() {
    // §9: "a player who holds both": K and O split between partners score nothing.
    let s = played_deal(&[], ["KR", "", "OR", ""], "trump roses");
    assert!((0..4).all(|p| s.stoeck_scored(p) == 0));
    assert_eq!(s.deal_points()[0] + s.deal_points()[1], 157);
}

#[test]
fn edge_14_stoeck_credited_automatically_when_second_card_is_played() {
    // §9 [decision]: credited automatically the moment the second of K/O is laid.
    let h = fill(["OR KR UR 9R AR", "", "", ""]);
    let mut s = deal(&game_fh0(&[("scope", "deal")]), hands_ref(&h));
    act(&mut s, "trump roses");
    act(&mut s, "play OR");
    assert_eq!(s.stoeck_scored(0), 0);
    for _ in 0..3 {
        play_lowest(&mut s);
    }
    assert_eq!(
        seat(&s),
        0,
        "the Ober wins trick 1 (U, 9, A, K are seat 0's)"
    );
    let before = s.deal_points();
    act(&mut s, "play KR");
    assert_eq!(s.stoeck_scored(0), 1);
    assert_eq!(s.deal_points(), [before[0] + 20, before[1]]);
    let v = s.view(Viewer::Spectator).unwrap();
    assert_eq!(v.stoeck, [1, 0, 0, 0], "Stöck is public");
}

#[test]
fn edge_14_stoeck_counts_without_tricks() {
    // §9: Stöck counts even if the team wins no trick.
    let s = bells_match_deal(&[]);
    assert_eq!(s.tricks_won(), [9, 0]);
    assert_eq!(s.stoeck_scored(1), 1);
    assert_eq!(s.card_points(), [152, 0]);
    assert_eq!(s.deal_points()[1], 20);
    assert_eq!(s.last_deal().unwrap().scored[1], 40);
}

#[test]
fn edge_14_stoeck_in_addition_to_a_wys_using_the_same_cards() {
    // §8.2 / §9: O-K-A of trump as a Wys (20) and K+O as Stöck (20).
    let h = fill(["OR KR AR", "", "", ""]);
    let mut s = deal(&game_fh0(&[("scope", "deal")]), hands_ref(&h));
    act(&mut s, "trump roses");
    act(&mut s, "wys run OR-AR");
    play_out(&mut s);
    assert_eq!(s.wys_points(), [20, 0]);
    assert_eq!(s.stoeck_scored(0), 1);
    assert_eq!(s.deal_points()[0], expected_raw(&s, 0));
    assert_eq!(s.deal_points()[0] + s.deal_points()[1], 157 + 20 + 20);
}

#[test]
fn edge_14_no_stoeck_in_obenabe_or_undenufe() {
    for mode in ["obenabe", "undenufe"] {
        let s = played_deal(&[], ["KA OA KR OR KS OS KB OB", "", "", ""], mode);
        assert_eq!(s.stoeck_scored(0), 0, "{mode}");
        assert_eq!(s.deal_points()[0], expected_raw(&s, 0), "{mode}");
    }
}

#[test]
fn option_stoeck_suits_any_suit() {
    // §16 `stoeck_suits = any_suit` (literal seed): every K+O pair of one suit held by one
    // player scores, in every mode [decision, mod.rs docs].
    let opt: &[(&str, &str)] = &[("stoeck_suits", "any_suit")];
    let partial = ["KA OA KS OS", "", "", ""];
    let s = played_deal(opt, partial, "trump roses");
    assert_eq!(s.stoeck_scored(0), 2);
    assert_eq!(s.deal_points()[0], expected_raw(&s, 0));
    let s = played_deal(opt, partial, "obenabe");
    assert_eq!(s.stoeck_scored(0), 2);
    let s = played_deal(&[], partial, "obenabe");
    assert_eq!(s.stoeck_scored(0), 0);
}
