//! §3 cards and §14 E1; §4 first dealer and rotation.

use super::*;

// ---------------------------------------------------------------------------------------------
// §3 cards and §14 E1
// ---------------------------------------------------------------------------------------------

#[test]
fn card_points_total_152_and_trump_suit_62() {
    let pack = cardhouse::Pack::Piquet32.cards();
    for t in Suit::ALL {
        assert_eq!(card_value(t, pack), 152);
        assert_eq!(card_value(t, pack.of_suit(t)), 62);
        for s in Suit::ALL.into_iter().filter(|&s| s != t) {
            assert_eq!(card_value(t, pack.of_suit(s)), 30);
        }
    }
}

#[test]
fn e1_card_points_of_the_18_cards_in_play_plus_last_trick_is_121() {
    let g = game(&[]);
    // Out of play: turn-up 8H, bottom 7H, and the 12 stock cards AS 10C JH 9C 8C 7C 9D 8D 7D
    // 9S 8S 7S.
    let elder = "AC KC QC JC AD KD QD JD 10D";
    let dealer = "AH KH QH 10H 9H KS QS JS 10S";
    let in_play = cards(elder) | cards(dealer);
    assert_eq!(card_value(Suit::Hearts, in_play), 111);
    let mut s = dealt(&g, elder, dealer, "8H", "7H", &["take"]);
    assert_eq!(s.trump(), Some(Suit::Hearts));
    skip_to_play(&mut s);
    play_out(&mut s);
    let cp = s.card_points();
    assert_eq!(cp[0] + cp[1], 111);
    assert_eq!(
        s.bella(),
        [false, true],
        "the dealer holds K and Q of hearts"
    );
    let t = s.last_deal().expect("scored").totals;
    assert_eq!(t[0] + t[1], 121 + 20);
}

// ---------------------------------------------------------------------------------------------
// §4 first dealer, rotation
// ---------------------------------------------------------------------------------------------

#[test]
fn first_dealer_random_is_one_fair_chance_event() {
    let g = KlaberjassGame::from_options(&Options::new()).expect("defaults");
    let s = g.new_initial_state();
    assert_eq!(s.current_player(), Player::Chance);
    assert_eq!(s.phase(), Phase::Cut);
    assert_eq!(
        s.chance_outcomes().expect("chance"),
        vec![(0, 0.5), (1, 0.5)]
    );
    for seat in 0..2 {
        let mut t = s.clone();
        assert_eq!(t.action_to_string(seat), format!("seat {seat} deals first"));
        t.apply(seat).expect("cut outcome");
        assert_eq!(t.dealer(), seat as usize);
        assert_eq!(t.elder(), 1 - seat as usize);
        assert_eq!(t.phase(), Phase::Deal);
    }
    assert!(s.clone().apply(2).is_err());
}

#[test]
fn first_dealer_option_fixes_the_dealer_as_text_or_integer() {
    for (v, dealer) in [
        (OptionValue::from("0"), 0),
        (OptionValue::from("1"), 1),
        (OptionValue::Int(1), 1),
        (OptionValue::Int(0), 0),
    ] {
        let g = KlaberjassGame::from_options(&cardhouse::options([("first_dealer", v)]))
            .expect("valid");
        let s = g.new_initial_state();
        assert_eq!(s.phase(), Phase::Deal);
        assert_eq!(s.dealer(), dealer);
    }
    for bad in [
        OptionValue::Int(2),
        OptionValue::from("north"),
        OptionValue::Bool(true),
    ] {
        let e =
            KlaberjassGame::from_options(&cardhouse::options([("first_dealer", bad)])).unwrap_err();
        assert!(
            e.to_string().contains("first_dealer") && e.to_string().contains("random, 0, 1"),
            "{e}"
        );
    }
}

#[test]
fn deal_is_three_to_elder_three_to_dealer_twice_then_the_turn_up() {
    let g = game(&[]);
    let mut s = g.new_initial_state();
    let mut rng = SeededRng::new(4);
    let mut to = Vec::new();
    while s.is_chance_node() {
        let a = s.legal_actions().choose(&mut rng).expect("outcome");
        to.push(s.action_to_string(a));
        s.apply(a).expect("outcome");
    }
    assert_eq!(to.len(), 13);
    for (k, t) in to.iter().enumerate().take(12) {
        let seat = if (k / 3) % 2 == 0 { 0 } else { 1 };
        assert!(
            t.starts_with("deal ") && t.ends_with(&format!(" to {seat}")),
            "{t}"
        );
    }
    assert!(to[12].starts_with("turn up "));
    assert_eq!(s.hand(0).len(), 6);
    assert_eq!(s.hand(1).len(), 6);
    assert!(s.turn_up().is_some());
    assert_eq!(s.current_player(), Player::Seat(0), "elder bids first");
}

#[test]
fn second_deal_gives_three_to_elder_then_three_to_dealer_then_turns_the_bottom_card() {
    let g = game(&[]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    act(&mut s, "take");
    assert_eq!(s.phase(), Phase::SecondDeal);
    let mut rng = SeededRng::new(1);
    let mut to = Vec::new();
    while s.is_chance_node() {
        let a = s.legal_actions().choose(&mut rng).expect("outcome");
        to.push(s.action_to_string(a));
        s.apply(a).expect("outcome");
    }
    assert_eq!(to.len(), 7);
    assert!(to[..3].iter().all(|t| t.ends_with(" to 0")));
    assert!(to[3..6].iter().all(|t| t.ends_with(" to 1")));
    assert!(to[6].starts_with("turn bottom "));
    assert_eq!((s.hand(0).len(), s.hand(1).len()), (9, 9));
    let bottom = s.bottom().expect("bottom card");
    for v in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
        let view = s.view(v).expect("view");
        assert_eq!(view.bottom, Some(bottom), "the bottom card is public");
        assert_eq!(view.turn_up, Some(card("10H")), "the turn-up is public");
    }
}
