//! The trump ranking: §3.2, §15.4, §15.5.

use super::*;

// §3.2, §15.4, §15.5 ------------------------------------------------------------------------

#[test]
fn trump_ranking_queen_of_clubs_seven_of_trump_queens_jacks_then_the_trump_suit() {
    let order = |trump: Suit, text: &str| {
        let c = cards(text);
        for w in c.windows(2) {
            // The higher card wins whoever leads (both are trumps).
            for (a, b) in [(w[0], w[1]), (w[1], w[0])] {
                let low = cards("8D 9D");
                let pos = winning_position(trump, [a, b, low[0], low[1]]);
                let expect = if a == w[0] { 0 } else { 1 };
                assert_eq!(pos, Some(expect), "{} above {} ({trump:?})", w[0], w[1]);
            }
        }
    };
    order(Suit::Hearts, "QC 7H QS QH QD JC JS JH JD AH 10H KH 9H 8H");
    order(Suit::Clubs, "QC 7C QS QH QD JC JS JH JD AC 10C KC 9C 8C");
    // A plain suit: A 10 K 9 8 7, its 7 the lowest.
    let w = winning_position(Suit::Hearts, cards("7S 8S 9S KS").try_into().unwrap());
    assert_eq!(w, Some(3));
    let w = winning_position(Suit::Hearts, cards("10S AS 7S KS").try_into().unwrap());
    assert_eq!(w, Some(1));
    // J♦ beats the Ace of trumps; any trump beats the Ace of the suit led.
    let w = winning_position(Suit::Spades, cards("AS JD AH 10H").try_into().unwrap());
    assert_eq!(w, Some(1));
    let w = winning_position(Suit::Spades, cards("AH 8S KH 10H").try_into().unwrap());
    assert_eq!(w, Some(1));
}

#[test]
fn e6_face_down_lead_with_no_trump_played_the_highest_card_of_its_suit_wins() {
    // Trump ♠; 8♥ led (face down), nobody trumps: the highest heart wins; off-suit cards lose.
    let w = winning_position(Suit::Spades, cards("8H AC 9H AD").try_into().unwrap());
    assert_eq!(w, Some(2));
    let w = winning_position(Suit::Spades, cards("8H AC 7H AD").try_into().unwrap());
    assert_eq!(w, Some(0));
    // With J♦ (a trump) played, it wins.
    let w = winning_position(Suit::Spades, cards("8H JD AH 10H").try_into().unwrap());
    assert_eq!(w, Some(1));
}

#[test]
fn queens_and_jacks_are_trumps_in_every_deal_so_a_lone_queen_of_hearts_is_no_heart() {
    // With spades trump, hearts led: Q♥ is a trump, A♥ of the suit led loses to it.
    let w = winning_position(Suit::Spades, cards("7H QH AH 8H").try_into().unwrap());
    assert_eq!(w, Some(1));
    // And a follower whose only "heart" is Q♥ may discard: checked on real play in
    // `tricks_3_to_8_follow_the_effective_suit_and_void_players_discard_freely`.
}
