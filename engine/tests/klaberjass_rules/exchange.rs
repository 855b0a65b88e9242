//! §7 Dix exchange.

use super::*;

// ---------------------------------------------------------------------------------------------
// §7 Dix exchange
// ---------------------------------------------------------------------------------------------

#[test]
fn edge_04_dix_exchange_only_for_the_holder_when_trump_is_the_turn_up_suit_at_most_once() {
    // Dealer holds 7H; turn-up 10H taken: windows held, both players act in each.
    let g = game(&[]);
    let elder = "AC 10D KH QS 8C 9D JH 8S AS";
    let dealer = "JC 7D AH 9S QC 8D 7H 10S KC";
    let mut s = dealt(&g, elder, dealer, "10H", "7S", &["take"]);
    assert_eq!(s.phase(), Phase::Exchange1);
    assert_eq!(
        s.current_player(),
        Player::Seat(0),
        "elder acts first in the window"
    );
    assert_eq!(texts(&s), vec!["wait"], "elder does not hold the 7");
    let e = try_act(&mut s.clone(), "exchange").unwrap_err();
    assert!(e.to_string().contains("does not hold the trump 7"), "{e}");
    act(&mut s, "wait");
    assert_eq!(texts(&s), vec!["exchange 7H for 10H", "wait"]);
    act(&mut s, "exchange");
    assert!(s.hand(1).contains(card("10H")) && !s.hand(1).contains(card("7H")));
    assert_eq!(s.turn_up(), Some(card("7H")));
    assert_eq!(s.exchanged(), Some((1, 1)));
    assert_eq!(s.phase(), Phase::Announce);
    assert!(
        !texts(&s).iter().any(|t| t.starts_with("exchange")),
        "never during the announcements"
    );
    act(&mut s, "announce");
    act(&mut s, "announce");
    assert_eq!(
        s.phase(),
        Phase::Exchange2,
        "window 2 is held after an exchange too"
    );
    assert_eq!(texts(&s), vec!["keep"]);
    act(&mut s, "keep");
    assert_eq!(texts(&s), vec!["keep"], "at most once");
    let e = try_act(&mut s.clone(), "exchange").unwrap_err();
    assert!(e.to_string().contains("already been exchanged"), "{e}");
    act(&mut s, "keep");
    assert_eq!(s.phase(), Phase::Play);
    // The exchange is public.
    let v = s.view(Viewer::Seat(0)).expect("view");
    let x = v.exchange.expect("exchange shown");
    assert_eq!((x.seat, x.gave, x.took), (1, card("7H"), card("10H")));
    assert_eq!(v.known_cards[1], cards("10H"), "the taken turn-up is known");
}

#[test]
fn edge_04_no_windows_when_trump_was_named_or_the_turn_up_is_the_trump_seven() {
    let g = game(&[]);
    let elder = "AC 10D KH QS 8C 9D JH 8S AS";
    let dealer = "JC 7D AH 9S QC 8D 10H 10S KC";
    let s = dealt(&g, elder, dealer, "7H", "7S", &["take"]);
    assert_eq!(s.phase(), Phase::Announce, "turn-up is the trump 7");
    let s = dealt(
        &g,
        elder,
        dealer,
        "7H",
        "7S",
        &["pass", "pass", "name spades"],
    );
    assert_eq!(s.phase(), Phase::Announce, "trump named in round 2");
    // The trump 7 in the stock, even as the bottom card: both players only wait / keep.
    let dealer = "JC 7D AH 9S QC 8D 7S 10S KC";
    let mut s = dealt(&g, elder, dealer, "10H", "7H", &["take"]);
    assert_eq!(s.phase(), Phase::Exchange1);
    assert_eq!(texts(&s), vec!["wait"]);
    act(&mut s, "wait");
    assert_eq!(texts(&s), vec!["wait"]);
}

#[test]
fn edge_05_dix_taken_in_window_one_completes_a_sequence_and_bella() {
    // Turn-up KH; elder holds 7H, QH, JH: the exchange gives J-Q-K of hearts and K+Q.
    let g = game(&[]);
    let elder = "7H QH JH AC 9D 8S AS 10C 8D";
    let dealer = "JC 7D AH 9S QC 10D 7S 10S KC";
    let mut s = dealt(&g, elder, dealer, "KH", "8C", &["take"]);
    act(&mut s, "exchange");
    act(&mut s, "wait");
    assert_eq!(texts(&s), vec!["announce none", "declare run JH-KH"]);
    act(&mut s, "declare run JH-KH");
    act(&mut s, "announce");
    act(&mut s, "announce");
    let a = s.announcement();
    assert_eq!(a.elder_value, Some(20));
    assert_eq!(a.winner, Some(0));
    assert_eq!(s.sequence_points(), [20, 0]);
    assert_eq!(s.shown(), cards("JH QH KH"));
    skip_to_play(&mut s);
    play_out(&mut s);
    assert_eq!(s.bella(), [true, false]);
}

#[test]
fn edge_05_dix_taken_in_window_two_counts_for_bella_but_not_for_sequences() {
    let g = game(&[]);
    let elder = "7H QH JH AC 9D 8S AS 10C 8D";
    let dealer = "JC 7D AH 9S QC 10D 7S 10S KC";
    let mut s = dealt(&g, elder, dealer, "KH", "8C", &["take"]);
    act(&mut s, "wait");
    act(&mut s, "wait");
    assert_eq!(
        texts(&s),
        vec!["announce none"],
        "no sequence before the exchange"
    );
    act(&mut s, "announce");
    act(&mut s, "announce");
    assert_eq!(s.phase(), Phase::Exchange2);
    act(&mut s, "exchange");
    act(&mut s, "keep");
    assert_eq!(s.sequence_points(), [0, 0]);
    play_out(&mut s);
    assert_eq!(s.bella(), [true, false]);
    assert!(s.last_deal().expect("done").totals[0] >= 20);
}

#[test]
fn declared_sequence_keeps_its_value_when_its_trump_seven_is_exchanged_in_window_two() {
    let g = game(&[]);
    // Elder holds 7H 8H 9H (a trump sequence) and exchanges the 7H afterwards.
    let elder = "7H 8H 9H AC 10D 8S AS 10C 8D";
    let dealer = "JC 7D AH 9S QC JD 7S 10S KC";
    let mut s = dealt(&g, elder, dealer, "KH", "8C", &["take"]);
    act(&mut s, "wait");
    act(&mut s, "wait");
    act(&mut s, "declare run 7H-9H");
    act(&mut s, "announce");
    act(&mut s, "announce");
    act(&mut s, "exchange");
    act(&mut s, "keep");
    assert_eq!(s.sequence_points(), [20, 0]);
    play_out(&mut s);
    assert!(s.last_deal().expect("done").totals[0] >= 20);
}
