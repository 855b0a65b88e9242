//! The deal and its exposed cards: §15.1 to §15.3.

use super::*;

// §15.1 -----------------------------------------------------------------------------------

#[test]
fn no_face_up_seven_makes_a_bidding_game() {
    let s = dealt(dealer0(), BID_DEAL);
    assert_eq!(s.kind(), Some(Kind::Bidding));
    assert_eq!(s.phase(), Phase::Bid);
    assert_eq!(s.base(), 0);
    assert_eq!(
        s.current_player().seat(),
        Some(1),
        "the dealer's left bids first"
    );
}

#[test]
fn e1_face_up_sevens_make_a_sevens_game_with_the_last_seven_declaring() {
    let s = dealt(dealer0(), E1);
    assert_eq!(s.kind(), Some(Kind::Sevens));
    assert_eq!(s.base(), 2, "b counts every face-up Seven");
    assert_eq!(s.declarer(), Some(3), "7♦ was the last face-up Seven");
    assert_eq!(s.trump(), Some(Suit::Diamonds));
    assert_eq!(
        s.exposed(),
        set("7S 8S 8H 7D"),
        "only the opponents' cards are face up"
    );
    assert_eq!(s.phase(), Phase::Knock);
    assert_eq!(
        s.current_player().seat(),
        Some(3),
        "the declarer may knock first"
    );
}

#[test]
fn the_dealers_own_eighth_card_is_the_last_in_exposure_order() {
    // The dealer's 8th card 7♣ comes after seat 1's 4th card 7♠.
    let s = dealt(
        dealer0(),
        [
            "QC QD QH QS JC JD JH 7C",
            "AC KC 9C 7S AD KD 9D 8S",
            "9S 10S KS JS 8C 8D 7H AS",
            "AH KH 9H 8H 10C 10D 10H 7D",
        ],
    );
    assert_eq!(s.base(), 3);
    assert_eq!(s.declarer(), Some(0));
    assert_eq!(s.trump(), Some(Suit::Clubs));
}

// §15.2, §15.3 ------------------------------------------------------------------------------

#[test]
fn opponents_specials_are_always_face_up_and_the_dealers_side_only_sevens() {
    let s = dealt(dealer0(), BID_DEAL);
    // Opponents 1 and 3: 10♥ 10♦ and 8♦ J♥ face up; dealer side: KS 8S and 9C KD face down.
    assert_eq!(s.exposed(), set("10H 10D 8D JH"));
    assert_eq!(s.hidden_specials(), set("KS 8S 9C KD"));
}

#[test]
fn the_dealer_knows_his_partners_hidden_specials_and_nobody_else_does() {
    let s = dealt(dealer0(), BID_DEAL);
    let known = |viewer: Viewer, seat: usize| {
        let v = s.view(viewer).expect("view");
        v.known[seat]
    };
    assert_eq!(
        known(Viewer::Seat(0), 2),
        set("9C KD"),
        "the dealer sees them"
    );
    assert_eq!(known(Viewer::Seat(1), 2), CardSet::EMPTY);
    assert_eq!(known(Viewer::Seat(3), 2), CardSet::EMPTY);
    assert_eq!(known(Viewer::Spectator, 2), CardSet::EMPTY);
    assert_eq!(
        known(Viewer::Seat(2), 0),
        CardSet::EMPTY,
        "the partner does not see the dealer's"
    );
    assert_eq!(
        known(Viewer::Seat(2), 1),
        set("10H 10D"),
        "face-up cards are public"
    );
    // The exposures list shows face-down cards only to owner and dealer.
    let v1 = s.view(Viewer::Seat(1)).expect("view");
    let v0 = s.view(Viewer::Seat(0)).expect("view");
    let hidden1: Vec<_> = v1.exposures.iter().filter(|e| e.card.is_none()).collect();
    assert_eq!(hidden1.len(), 4);
    assert!(hidden1.iter().all(|e| !e.face_up && e.seat % 2 == 0));
    assert!(v0.exposures.iter().all(|e| e.card.is_some()));
    // Deal events: the dealer reads his partner's face-down card, the others do not.
    let mut t = dealer0().new_initial_state();
    let seq: Vec<u32> = dealt(dealer0(), BID_DEAL).history();
    for (k, &a) in seq.iter().enumerate() {
        if k == 7 {
            // seat 2's 4th card, 9♣, face down.
            assert_eq!(
                t.action_to_string_for(Viewer::Seat(0), a).unwrap(),
                "deal 9C to 2 face down"
            );
            assert_eq!(
                t.action_to_string_for(Viewer::Seat(2), a).unwrap(),
                "deal 9C to 2 face down"
            );
            assert_eq!(
                t.action_to_string_for(Viewer::Seat(1), a).unwrap(),
                "deal a card to 2 face down"
            );
        }
        if k == 3 {
            assert_eq!(
                t.action_to_string_for(Viewer::Seat(2), a).unwrap(),
                "deal 10H to 1 face up"
            );
        }
        if k == 0 {
            assert_eq!(
                t.action_to_string_for(Viewer::Seat(2), a).unwrap(),
                "deal a card to 1"
            );
        }
        t.apply(a).expect("deal");
    }
}

#[test]
fn a_seven_dealt_as_an_ordinary_card_is_never_exposed_and_does_not_count() {
    let s = dealt(dealer0(), E1);
    // 7♣ (seat 2's 1st card) and 7♥ (seat 2's 7th card) are ordinary cards.
    assert!(!s.exposed().contains(Card::parse("7C").unwrap()));
    assert!(!s.exposed().contains(Card::parse("7H").unwrap()));
    assert_eq!(s.base(), 2);
}
