//! Bidding and the opening lead: §7, §15.10, §15.11.

use super::*;

// §7, §15.10, §15.11 ------------------------------------------------------------------------

#[test]
fn bids_must_equal_a_trump_count_of_some_suit() {
    let s = dealt(dealer0(), BID_DEAL);
    assert_eq!(legal_texts(&s), ["bid 3", "bid 4", "bid 6", "pass"]);
    let r = illegal(&s, "bid 5");
    assert!(r.contains("trump count"), "{r}");
}

#[test]
fn bids_strictly_increase_in_one_round_and_the_highest_bidder_declares() {
    let mut s = dealt(dealer0(), BID_DEAL);
    act(&mut s, "bid 3");
    // Seat 2 counts 6, 3, 1: 3 is not above 3.
    assert!(illegal(&s, "bid 3").contains("exceed"));
    act(&mut s, "bid 6");
    // Seat 3 counts 6, 5, 3: nothing above 6.
    assert_eq!(legal_texts(&s), ["pass"]);
    act(&mut s, "pass");
    act(&mut s, "bid 7");
    assert_eq!(s.phase(), Phase::Play);
    assert_eq!(s.declarer(), Some(0));
    assert_eq!(s.bids(), [Some(7), Some(3), Some(6), Some(0)]);
    assert_eq!(s.trump(), None, "the intended trump is not announced");
}

#[test]
fn all_four_passing_scores_nothing_and_the_next_dealer_deals() {
    let mut s = dealt(dealer0(), BID_DEAL);
    for _ in 0..4 {
        act(&mut s, "pass");
    }
    assert_eq!(s.phase(), Phase::Deal);
    assert_eq!(s.dealer(), 1);
    assert_eq!(s.pips(), [0, 0]);
    assert_eq!(s.rams(), [0, 0]);
    assert_eq!(s.last_deal().unwrap().kind, None);
    // With scope = deal an all-pass deal ends it with 0 each.
    let mut d = dealt(game(&[("first_dealer", "0"), ("scope", "deal")]), BID_DEAL);
    for _ in 0..4 {
        act(&mut d, "pass");
    }
    assert!(d.is_terminal());
    assert_eq!(&*d.returns(), &[0.0; 4]);
}

#[test]
fn the_opening_lead_must_fit_the_bid_naming_a_suit_with_a_queen_or_jack() {
    let mut s = dealt(dealer0(), BID_DEAL);
    for t in ["pass", "pass", "pass", "bid 7"] {
        act(&mut s, t);
    }
    // Seat 0: 9H AS 10S KS JS 9S 7S 8S; ♠ counts 7.
    let legal = legal_texts(&s);
    assert_eq!(
        legal,
        [
            "play 7S",
            "play 8S",
            "play 9S",
            "play 10S",
            "play KS",
            "play AS",
            "play JS trump spades"
        ]
    );
    assert!(illegal(&s, "play 9H").contains("bid 7"));
    assert!(illegal(&s, "play JS").contains("name the trump suit"));
    assert!(illegal(&s, "play JS trump hearts").contains("bid 7"));
    act(&mut s, "play JS trump spades");
    assert_eq!(s.trump(), Some(Suit::Spades));
}

#[test]
fn with_two_matching_suits_the_declarer_chooses_the_trump() {
    let mut s = dealt(dealer0(), BID_DEAL);
    act(&mut s, "bid 4");
    for _ in 0..3 {
        act(&mut s, "pass");
    }
    assert_eq!(s.declarer(), Some(1));
    let legal = legal_texts(&s);
    for t in [
        "play KC",
        "play 10D",
        "play QS trump clubs",
        "play QS trump diamonds",
        "play JD trump clubs",
    ] {
        assert!(legal.contains(&t.to_owned()), "{t} in {legal:?}");
    }
    assert!(
        !legal.contains(&"play 10H".to_owned()),
        "hearts count 6, not 4"
    );
    assert!(!legal.contains(&"play QS trump hearts".to_owned()));
    let mut a = s.clone();
    act(&mut a, "play 10D");
    assert_eq!(a.trump(), Some(Suit::Diamonds));
    act(&mut s, "play JC trump clubs");
    assert_eq!(s.trump(), Some(Suit::Clubs));
}
