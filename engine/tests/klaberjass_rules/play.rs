//! §10 trick play.

use super::*;

// ---------------------------------------------------------------------------------------------
// §10 trick play
// ---------------------------------------------------------------------------------------------

#[test]
fn e2_edge_06_trump_led_must_overtrump_else_any_trump_else_any_card() {
    let mut s = spades_deal(
        "10S JC QC KC 8C 9C 10C AC 9D",
        "KS AS 8H 7H 9H 10H JH QH KH",
    );
    act(&mut s, "play 10S");
    assert_eq!(legal_cards(&s), cards("AS"), "A♠ beats 10♠ in trumps");
    let mut s = spades_deal(
        "10S JC QC KC 8C 9C 10C AC 9D",
        "KS 8H 7H 9H 10H JH QH KH AH",
    );
    act(&mut s, "play 10S");
    assert_eq!(legal_cards(&s), cards("KS"), "no higher trump: any trump");
    let e = try_act(&mut s, "play 8H").unwrap_err();
    assert!(e.to_string().contains("trump must be played"), "{e}");
    let mut s = spades_deal(
        "10S JC QC KC 8C 9C 10C AC 9D",
        "8D 8H 7H 9H 10H JH QH KH AH",
    );
    act(&mut s, "play 10S");
    assert_eq!(legal_cards(&s), s.hand(1), "no trump: any card");
}

#[test]
fn edge_07_plain_led_must_follow_even_holding_trumps_else_trump_else_any() {
    let mut s = spades_deal("AC 7S 8S QC KC 8C 9C 10C 9D", "7C KS AS 8H 7H 9H 10H JH QH");
    act(&mut s, "play AC");
    assert_eq!(legal_cards(&s), cards("7C"), "must follow; may not trump");
    let e = try_act(&mut s, "play KS").unwrap_err();
    assert!(e.to_string().contains("must follow suit"), "{e}");
    let mut s = spades_deal("AC 7S 8S QC KC 8C 9C 10C 9D", "KS AS JD 8H 7H 9H 10H JH QH");
    act(&mut s, "play AC");
    assert_eq!(legal_cards(&s), cards("KS AS"), "void: any trump");
    let mut s = spades_deal(
        "AC 7S 8S QC KC 8C 9C 10C 9D",
        "JD 8D 10D 8H 7H 9H 10H JH QH",
    );
    act(&mut s, "play AC");
    assert_eq!(legal_cards(&s), s.hand(1), "void in both: free");
}

#[test]
fn edge_08_trump_jack_always_wins_and_trump_nine_beats_trump_ace() {
    let mut s = spades_deal("AS 7S 8S QC KC 8C 9C 10C 9D", "JS 9S 8H 7H 9H 10H JH QH AC");
    act(&mut s, "play AS");
    assert_eq!(legal_cards(&s), cards("JS 9S"));
    act(&mut s, "play 9S");
    assert_eq!(s.tricks_won(), [0, 1], "trump 9 beats trump A");
    act(&mut s, "play JS");
    act(&mut s, "play 7S");
    assert_eq!(s.tricks_won(), [0, 2], "the trump J wins");
    // A trump on a plain lead wins; a discard never does.
    let mut s = spades_deal("AC 7S 8S QC KC 8C 9C 10C 9D", "QS KS AS JD 8H 7H 9H 10H JH");
    act(&mut s, "play AC");
    act(&mut s, "play QS");
    assert_eq!(s.tricks_won(), [0, 1]);
}

#[test]
fn elder_leads_the_first_trick_whoever_is_maker_and_the_winner_leads_next() {
    let mut s = spades_deal("AC 7S 8S QC KC 8C 9C 10C 9D", "KS AS JD 8H 7H 9H 10H JH QH");
    assert_eq!(s.maker(), Some(1));
    assert_eq!(s.current_player(), Player::Seat(0));
    act(&mut s, "play AC");
    act(&mut s, "play KS");
    assert_eq!(s.current_player(), Player::Seat(1));
}
