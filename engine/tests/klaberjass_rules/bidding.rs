//! §6 bidding.

use super::*;

// ---------------------------------------------------------------------------------------------
// §6 bidding
// ---------------------------------------------------------------------------------------------

#[test]
fn take_makes_the_turn_up_suit_trump_and_the_taker_maker() {
    let g = game(&[]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    act(&mut s, "pass");
    assert_eq!(s.current_player(), Player::Seat(1));
    act(&mut s, "i accept");
    assert_eq!(s.trump(), Some(Suit::Hearts));
    assert_eq!(s.maker(), Some(1));
}

#[test]
fn name_in_round_two_makes_that_suit_trump() {
    let g = game(&[]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    act(&mut s, "pass");
    act(&mut s, "pass");
    assert_eq!(s.phase(), Phase::BidOtherSuit);
    assert_eq!(
        s.current_player(),
        Player::Seat(0),
        "elder first in round 2"
    );
    act(&mut s, "pass");
    act(&mut s, "name spades");
    assert_eq!((s.trump(), s.maker()), (Some(Suit::Spades), Some(1)));
}

#[test]
fn edge_01_both_pass_twice_annuls_the_deal_without_second_deal_and_the_other_player_deals() {
    let g = game(&[("scope", "match")]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    for _ in 0..4 {
        act(&mut s, "pass");
    }
    assert_eq!(s.phase(), Phase::Deal, "a new deal starts");
    assert_eq!(s.dealer(), 0, "the other player deals");
    assert_eq!(s.scores(), [0, 0]);
    assert_eq!(s.last_deal().expect("annulled").outcome, Outcome::Annulled);
    assert_eq!(s.history().len(), 13 + 4, "no second deal of cards");
    assert!(s.hand(0).is_empty() && s.hand(1).is_empty());
    // One deal only: the annulled deal ends the state with 0 each.
    let g = game(&[]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    for _ in 0..4 {
        act(&mut s, "pass");
    }
    assert!(s.is_terminal());
    assert_eq!(&*s.returns(), &[0.0, 0.0]);
}

#[test]
fn edge_02_round_two_cannot_name_the_turn_up_suit_and_round_one_names_no_suit() {
    let g = game(&[]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    assert_eq!(texts(&s), vec!["pass", "take"]);
    let before = s.clone();
    let e = try_act(&mut s, "name spades").unwrap_err();
    assert!(e.to_string().contains("round 1"), "{e}");
    assert_eq!(s, before, "a rejected action leaves the state unchanged");
    act(&mut s, "pass");
    act(&mut s, "pass");
    assert_eq!(
        texts(&s),
        vec!["pass", "name clubs", "name diamonds", "name spades"]
    );
    let e = try_act(&mut s, "name hearts").unwrap_err();
    assert!(e.to_string().contains("turn-up's suit"), "{e}");
    let e = try_act(&mut s, "take").unwrap_err();
    assert!(e.to_string().contains("round 2"), "{e}");
}

#[test]
fn edge_03_bidding_stops_at_the_first_take_or_name() {
    let g = game(&[]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    act(&mut s, "take");
    assert_eq!(
        s.current_player(),
        Player::Chance,
        "the dealer gets no turn"
    );
    assert_eq!(s.maker(), Some(0));
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    act(&mut s, "pass");
    act(&mut s, "pass");
    act(&mut s, "name clubs");
    assert_eq!(s.current_player(), Player::Chance);
}
