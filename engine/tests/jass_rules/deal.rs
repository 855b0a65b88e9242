//! §2, §4, §5: seats, dealer, forehand, the deal.

use super::*;

// ---------------------------------------------------------------------------------------------
// §2, §4, §5 — seats, dealer, forehand, the deal
// ---------------------------------------------------------------------------------------------

#[test]
fn deal_is_three_at_a_time_starting_with_the_forehand() {
    // §5: 36 cards, three at a time, starting with the dealer's right (d+1).
    let game = game_with(&[("first_dealer", "2")]);
    let mut s = game.new_initial_state();
    assert_eq!(s.current_player(), Player::Chance);
    assert_eq!(s.legal_actions().len(), 36);
    let order: Vec<Card> = pack().iter().collect();
    for (k, &c) in order.iter().enumerate() {
        let expected_seat = (2 + 1 + k / 3) % 4;
        assert_eq!(
            s.action_to_string(card_action(c)),
            format!("deal {} to {expected_seat}", c.swiss())
        );
        // Other seats only learn that a card was dealt.
        let other = (expected_seat + 1) % 4;
        assert_eq!(
            s.action_to_string_for(Viewer::Seat(other), card_action(c)),
            Some(format!("deal a card to {expected_seat}"))
        );
        s.apply(card_action(c)).unwrap();
    }
    for p in 0..4 {
        let expected: CardSet = order
            .iter()
            .enumerate()
            .filter(|(k, _)| (3 + k / 3) % 4 == p)
            .map(|(_, &c)| c)
            .collect();
        assert_eq!(s.hand(p), expected, "seat {p}");
    }
    assert_eq!(s.phase(), Phase::ChooseMode);
    assert_eq!(s.current_player(), Player::Seat(3));
}

#[test]
fn deal_helper_gives_each_seat_exactly_its_hand() {
    let hands = [
        "UR 9R AR KR OR 10R 8R 7R 6R",
        "JD 9D AD KD QD 10D 8D 7D 6D", // French notation for Acorns (= ♦)
        "US 9S AS KS OS 10S 8S 7S 6S",
        "UB 9B AB KB OB 10B 8B 7B 6B",
    ];
    for d in 0..4 {
        let s = deal(&game_with(&[("first_dealer", &d.to_string())]), hands);
        for (p, h) in hands.iter().enumerate() {
            assert_eq!(s.hand(p), cards(h));
        }
    }
}

#[test]
fn teams_are_opposite_seats() {
    // §2: team A = {0, 2}, team B = {1, 3}: Stöck by seat 2 is team A's, by seat 1 team B's.
    let h = fill(["", "KS OS", "KR OR", ""]);
    let game = game_fh0(&[("stoeck_suits", "any_suit"), ("scope", "deal")]);
    let mut s = deal(&game, hands_ref(&h));
    act(&mut s, "trump roses");
    play_out(&mut s);
    assert_eq!(s.stoeck_scored(2), 1);
    assert_eq!(s.stoeck_scored(1), 1);
    let won: u32 = s
        .view(Viewer::Omniscient)
        .unwrap()
        .tricks
        .iter()
        .map(|t| u32::from(t.winner % 2 == 0))
        .sum();
    assert_eq!(u32::from(s.tricks_won()[0]), won);
    for team in 0..2 {
        assert_eq!(s.deal_points()[team], expected_raw(&s, team), "team {team}");
    }
}

#[test]
fn edge_02_counter_clockwise_forehand_deal_start_and_dealer_rotation() {
    // §2, §4, §5: forehand = dealer + 1, the deal starts with him, the next dealer is d + 1.
    let game = game_with(&[("first_dealer", "2")]);
    let mut s = game.new_initial_state();
    let mut rng = SeededRng::new(11);
    for deal_no in 0..5 {
        let d = (2 + deal_no) % 4;
        assert_eq!(s.dealer(), d, "deal {deal_no}");
        assert_eq!(s.forehand(), (d + 1) % 4);
        let first = s.legal_actions().iter().next().unwrap();
        assert!(
            s.action_to_string(first)
                .ends_with(&format!(" to {}", (d + 1) % 4))
        );
        s.resolve_chance(&mut rng);
        assert_eq!(s.phase(), Phase::ChooseMode);
        assert_eq!(seat(&s), (d + 1) % 4, "forehand chooses first");
        act(&mut s, "trump acorns");
        assert_eq!(seat(&s), (d + 1) % 4, "forehand leads trick 1");
        // Play proceeds to seat + 1.
        play_lowest(&mut s);
        assert_eq!(seat(&s), (d + 2) % 4);
        play_out(&mut s);
        assert_eq!(s.phase(), Phase::Deal, "2500 is not reached in one deal");
    }
}

#[test]
fn option_first_dealer_sets_dealer_and_forehand() {
    // Engine parameter (§4): dealer of the first deal; forehand is the seat to his right.
    for d in 0..4 {
        let game = game_with(&[("first_dealer", &d.to_string())]);
        let mut s = game.new_initial_state();
        assert_eq!(s.dealer(), d);
        assert_eq!(s.forehand(), (d + 1) % 4);
        s.resolve_chance(&mut SeededRng::new(3));
        assert_eq!(s.current_player(), Player::Seat((d + 1) % 4));
        assert_eq!(s.view(Viewer::Spectator).unwrap().dealer, d);
    }
}

#[test]
fn option_first_forehand_roses_seven_holder_is_forehand_of_deal_one() {
    // §4, §16 `first_forehand = roses_seven` (pagat): the holder of the Roses 7 is forehand.
    let h = fill(["", "", "7R", ""]);
    let game = game_with(&[("first_forehand", "roses_seven")]);
    let mut s = deal(&game, hands_ref(&h));
    assert_eq!(s.forehand(), 2);
    assert_eq!(s.dealer(), 1);
    assert_eq!(seat(&s), 2);
    act(&mut s, "obenabe");
    assert_eq!(seat(&s), 2, "the Roses-7 holder leads trick 1");
    play_out(&mut s);
    // The deal then passes counter-clockwise as usual: dealer 2, forehand 3.
    assert_eq!(s.dealer(), 2);
    assert_eq!(s.forehand(), 3);
    // Default (`dealer_param`): the Roses 7 does not matter.
    let s = deal(&game_with(&[]), hands_ref(&h));
    assert_eq!((s.dealer(), s.forehand()), (0, 1));
}
