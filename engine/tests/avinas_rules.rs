//! Avinas rules, one test per rule, worked example (E1–E6) and edge case (§15) of
//! `shared/rules/avinas.md`, scripted in card notation.

use cardhouse::games::avinas::{
    AllTricksLoss, AvinasGame, AvinasState, Kind, Phase, SchwarzBasis, bidding_pips, card_action,
    give_rams, loser, sevens_rams, winning_position,
};
use cardhouse::{Card, CardSet, Error, Game, Options, Rng, SeededRng, State, Suit, Viewer};

fn game(pairs: &[(&str, &str)]) -> AvinasGame {
    let opts: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), (*v).into()))
        .collect();
    AvinasGame::from_options(&opts).expect("valid options")
}

fn cards(text: &str) -> Vec<Card> {
    text.split_whitespace()
        .map(|t| Card::parse(t).expect("card"))
        .collect()
}

fn set(text: &str) -> CardSet {
    text.parse().expect("cards")
}

/// Deals `hands` (each seat's 8 cards in the order it receives them) with `dealer` dealing.
fn dealt(g: AvinasGame, hands: [&str; 4]) -> AvinasState {
    let mut s = g.new_initial_state();
    let dealer = s.dealer();
    let hands = hands.map(cards);
    for round in 0..2 {
        for p in 1..=4 {
            let seat = (dealer + p) % 4;
            for &c in &hands[seat][round * 4..round * 4 + 4] {
                s.apply(card_action(c).expect("pack card")).expect("deal");
            }
        }
    }
    s
}

fn act(s: &mut AvinasState, text: &str) {
    let a = s.string_to_action(text).expect("parses");
    s.apply(a)
        .unwrap_or_else(|e| panic!("`{text}` should be legal: {e}\n{s}"));
}

fn illegal(s: &AvinasState, text: &str) -> String {
    let a = s.string_to_action(text).expect("parses");
    let mut t = s.clone();
    match t.apply(a) {
        Err(Error::IllegalAction { reason, .. }) => {
            assert_eq!(&t, s, "a rejected action changed the state");
            reason
        }
        other => panic!("`{text}` should be illegal, got {other:?}"),
    }
}

fn legal_texts(s: &AvinasState) -> Vec<String> {
    s.legal_actions()
        .iter()
        .map(|a| s.action_to_string(a))
        .collect()
}

/// E1's deal: dealer 0; seat 1's 4th card 7♠ and seat 3's 8th card 7♦ face up; the 7♣ and
/// 7♥ are dealt as ordinary cards.
const E1: [&str; 4] = [
    "QC QD QH QS JC JD JH 9S",
    "AC KC 9C 7S AD KD 9D 8S",
    "7C 10S KS JS 8C 8D 7H AS",
    "AH KH 9H 8H 10C 10D 10H 7D",
];

/// A bidding deal (no Seven among the 4th/8th cards); seat 1 holds the seed's example hand
/// Q♠ J♣ J♦ 10♥ 8♥ 7♥ K♣ 10♦ (counts ♥ 6, ♣ 4, ♦ 4, ♠ 3).
const BID_DEAL: [&str; 4] = [
    "9H AS 10S KS JS 9S 7S 8S",
    "QS JC JD 10H 8H 7H KC 10D",
    "AC 10C QC 9C 8C 7C AD KD",
    "QD 9D 7D 8D AH KH QH JH",
];

fn dealer0() -> AvinasGame {
    game(&[("first_dealer", "0")])
}

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

// §8, §15.6, §15.7 -------------------------------------------------------------------------

#[test]
fn trick_1_lead_must_be_a_trump_and_followers_follow_trumps_if_able() {
    let mut s = dealt(dealer0(), E1);
    act(&mut s, "pass");
    act(&mut s, "pass");
    // Declarer 3 (trump ♦) holds AH KH 9H 8H 10C 10D 10H 7D: trumps 10D 7D.
    assert_eq!(legal_texts(&s), ["play 7D", "play 10D"]);
    assert!(illegal(&s, "play AH").contains("trick 1 must be a trump"));
    act(&mut s, "play 10D");
    // Seat 0 holds only Queens, Jacks and 9♠: a trump must follow.
    assert_eq!(legal_texts(&s).len(), 7);
    assert!(illegal(&s, "play 9S").contains("follow"));
}

/// Plays E1 (trump ♦, declarer 3) to the start of trick 2 with a fixed first trick.
fn e1_after_trick_1() -> AvinasState {
    let mut s = dealt(dealer0(), E1);
    act(&mut s, "pass");
    act(&mut s, "pass");
    for t in ["play 7D", "play QC", "play AD", "play JS"] {
        act(&mut s, t);
    }
    s
}

#[test]
fn trick_2_leader_with_a_trump_must_lead_one_and_followers_must_trump() {
    let mut s = e1_after_trick_1();
    // Q♣ (seat 0) beat everything.
    assert_eq!(s.current_player().seat(), Some(0));
    assert_eq!(s.tricks_won(), [1, 0]);
    assert!(illegal(&s, "play 9S").contains("must lead one"));
    assert!(illegal(&s, "play 9S face down").contains("face down"));
    act(&mut s, "play QD");
    // Seat 1: AC KC 9C 7S KD 9D 8S: trumps KD 9D.
    assert_eq!(legal_texts(&s), ["play 9D", "play KD"]);
}

#[test]
fn trick_2_leader_without_trumps_may_lead_face_down_and_followers_still_trump() {
    let g = dealer0();
    // A leader with no trump: seat 0 wins trick 1 with Q♣ and holds none after.
    let mut s = dealt(
        g,
        [
            "QC AD 9D 8D 8S AH 9S 10S",
            "AC QS 8C 7C JC 10C 9C KC",
            "KD 10D JD 9H KS 7S AS 8H",
            "7H QD QH 10H JH 7D KH JS",
        ],
    );
    assert_eq!((s.declarer(), s.trump()), (Some(1), Some(Suit::Clubs)));
    act(&mut s, "pass");
    act(&mut s, "pass");
    for t in ["play 8C", "play JD", "play QD", "play QC"] {
        act(&mut s, t);
    }
    assert_eq!(s.current_player().seat(), Some(0));
    let legal = legal_texts(&s);
    assert!(legal.contains(&"play AH".to_owned()) && legal.contains(&"play 8S".to_owned()));
    assert!(legal.contains(&"play AH face down".to_owned()));
    act(&mut s, "play 9D face down");
    assert!(s.face_down_pending());
    // Seat 1 holds hearts? No: but he holds trumps and must play one.
    let l1 = legal_texts(&s);
    assert!(
        l1.iter().all(|t| [
            "play 7C", "play AC", "play QS", "play JC", "play 10C", "play 9C", "play KC"
        ]
        .contains(&t.as_str())),
        "{l1:?}"
    );
    // Nobody but the leader sees the face-down card until the trick is complete.
    let seen = |v: Viewer| s.view(v).expect("view").trick[0].card;
    assert_eq!(seen(Viewer::Seat(0)), Some(Card::parse("9D").unwrap()));
    assert_eq!(seen(Viewer::Seat(1)), None);
    assert_eq!(seen(Viewer::Seat(2)), None);
    assert_eq!(seen(Viewer::Spectator), None);
    let fd = s.history()[s.history().len() - 1];
    let prev = {
        let mut p = s.game().new_initial_state();
        let h = s.history();
        for &a in &h[..h.len() - 1] {
            p.apply(a).unwrap();
        }
        p
    };
    assert_eq!(
        prev.action_to_string_for(Viewer::Seat(2), fd).unwrap(),
        "play a card face down"
    );
    assert_eq!(
        prev.action_to_string_for(Viewer::Seat(0), fd).unwrap(),
        "play 9D face down"
    );
    act(&mut s, "play AC");
    // Seat 2 holds K♦ 10♦ (no trump left after J♦? J♦ was played): any card.
    act(&mut s, "play 10D");
    // Seat 3 holds QH JH: must trump.
    assert!(illegal(&s, "play 7H").contains("trick 2"));
    act(&mut s, "play JH");
    // Revealed: the trick shows 9♦ to everybody.
    let v = s.view(Viewer::Seat(2)).expect("view");
    assert_eq!(v.tricks[1].cards[0].card, Some(Card::parse("9D").unwrap()));
    assert!(v.tricks[1].cards[0].face_down);
    // JH (22) beats AC (20 as ace of trump ♣).
    assert_eq!(v.tricks[1].winner, 3);
}

#[test]
fn trick_2s_face_down_lead_stays_on_its_record_after_later_leads() {
    // §8, §13: once trick 2 is complete its face-down lead is a public fact and stays one.
    let mut s = dealt(
        dealer0(),
        [
            "QC AD 9D 8D 8S AH 9S 10S",
            "AC QS 8C 7C JC 10C 9C KC",
            "KD 10D JD 9H KS 7S AS 8H",
            "7H QD QH 10H JH 7D KH JS",
        ],
    );
    for t in [
        "pass",
        "pass",
        "play 8C",
        "play JD",
        "play QD",
        "play QC",
        "play 9D face down",
        "play AC",
        "play 10D",
        "play JH",
    ] {
        act(&mut s, t);
    }
    let marked = |s: &AvinasState| {
        for v in [
            Viewer::Seat(0),
            Viewer::Seat(1),
            Viewer::Seat(2),
            Viewer::Seat(3),
            Viewer::Spectator,
            Viewer::Omniscient,
        ] {
            let view = s.view(v).expect("view");
            let lead = &view.tricks[1].cards[0];
            assert!(lead.face_down, "{v:?} after {} tricks", view.tricks.len());
            assert_eq!(lead.card, Some(Card::parse("9D").unwrap()));
            assert!(!view.tricks[0].cards[0].face_down);
            assert!(view.tricks[2..].iter().all(|t| !t.cards[0].face_down));
        }
        for seat in 0..4 {
            let text = s.observation_string(seat).expect("text");
            assert!(text.contains("0:9D (face down)"), "seat {seat}:\n{text}");
        }
    };
    marked(&s);
    // Seat 3 won trick 2 and leads trick 3 face up; then the tricks go on to the end.
    act(&mut s, "play KH");
    assert!(!s.face_down_pending());
    marked(&s);
    let mut rng = SeededRng::new(7);
    while s.phase() == Phase::Play || s.phase() == Phase::StopChoice {
        let a = s.legal_actions().choose(&mut rng).expect("legal");
        s.apply(a).expect("legal");
        if s.phase() == Phase::Play && s.tricks_done() > 2 {
            marked(&s);
        }
    }
}

#[test]
fn an_exposed_card_led_face_down_stays_known_until_its_trick_is_revealed() {
    // §13: `known` = dealt to that seat and not seen played; a pending face-down lead is not
    // removed from it (that would reveal the card), and is once the trick is complete.
    let mut s = dealt(
        dealer0(),
        [
            "QD QH 7H 9S JD 10S AS KS",
            "JC AC 10C 8S KC 9C 8C 7C",
            "QS JH 7S 10H JS 9D 7D 8D",
            "QC AH KH AD 9H 8H 10D KD",
        ],
    );
    assert_eq!((s.declarer(), s.trump()), (Some(1), Some(Suit::Clubs)));
    for t in ["pass", "pass", "play 7C", "play JS", "play QC", "play JD"] {
        act(&mut s, t);
    }
    // Seat 3 won trick 1 with Q♣, holds no trump, and leads its exposed A♦ face down.
    assert_eq!(s.current_player().seat(), Some(3));
    let ad = Card::parse("AD").unwrap();
    assert!(s.exposed().contains(ad));
    act(&mut s, "play AD face down");
    for v in [
        Viewer::Seat(0),
        Viewer::Seat(1),
        Viewer::Seat(2),
        Viewer::Spectator,
    ] {
        let view = s.view(v).expect("view");
        assert!(view.known[3].contains(ad), "{v:?}");
        assert_eq!(view.trick[0].card, None, "{v:?}");
    }
    let mut rng = SeededRng::new(3);
    while s.tricks_done() < 2 {
        let a = s.legal_actions().choose(&mut rng).expect("legal");
        s.apply(a).expect("legal");
    }
    for v in [
        Viewer::Seat(0),
        Viewer::Seat(1),
        Viewer::Seat(2),
        Viewer::Spectator,
    ] {
        let view = s.view(v).expect("view");
        assert!(!view.known[3].contains(ad), "{v:?}");
        assert_eq!(view.tricks[1].cards[0].card, Some(ad));
    }
}

// §15.9: checked against an independent reading of §8 on random play -----------------------

/// §8 read directly: the cards the seat to act may play face up.
fn reference_legal(s: &AvinasState) -> CardSet {
    let v = s.view(Viewer::Omniscient).expect("view");
    let seat = s.current_player().seat().expect("seat");
    let hand = s.hand(seat);
    let trump = s.trump().expect("trump");
    let is_trump = |c: Card| {
        matches!(c.rank(), cardhouse::Rank::Queen | cardhouse::Rank::Jack) || c.suit() == trump
    };
    let trumps: CardSet = hand.iter().filter(|&c| is_trump(c)).collect();
    let trick_no = v.tricks.len();
    if v.trick.is_empty() {
        return match trick_no {
            0 => trumps,
            1 if !trumps.is_empty() => trumps,
            _ => hand,
        };
    }
    let lead = v.trick[0].card.expect("omniscient");
    let same: CardSet = if trick_no == 1 || is_trump(lead) {
        trumps
    } else {
        hand.iter()
            .filter(|&c| !is_trump(c) && c.suit() == lead.suit())
            .collect()
    };
    if same.is_empty() { hand } else { same }
}

#[test]
fn tricks_3_to_8_follow_the_effective_suit_and_void_players_discard_freely() {
    let g = game(&[("scope", "deal"), ("early_stop_allowed", "false")]);
    let mut rng = SeededRng::new(5);
    let mut lone_queen_discards = 0;
    let mut void_discards = 0;
    for _ in 0..300 {
        let mut s = g.new_initial_state();
        s.resolve_chance(&mut rng);
        while !s.is_terminal() {
            let legal = s.legal_actions();
            if s.phase() == Phase::Play && s.trump().is_some() {
                let face_up: CardSet = legal
                    .iter()
                    .filter(|&a| a < 32)
                    .filter_map(|a| {
                        s.action_to_string(a)
                            .strip_prefix("play ")
                            .and_then(|c| Card::parse(c).ok())
                    })
                    .collect();
                assert_eq!(face_up, reference_legal(&s), "{s}");
                let v = s.view(Viewer::Omniscient).unwrap();
                if v.tricks.len() >= 2 && !v.trick.is_empty() {
                    let lead = v.trick[0].card.unwrap();
                    let seat = s.current_player().seat().unwrap();
                    let hand = s.hand(seat);
                    let trump = s.trump().unwrap();
                    let plain_led = lead.suit() != trump
                        && !matches!(lead.rank(), cardhouse::Rank::Queen | cardhouse::Rank::Jack);
                    let plain_in_hand = hand.iter().any(|c| {
                        c.suit() == lead.suit()
                            && !matches!(c.rank(), cardhouse::Rank::Queen | cardhouse::Rank::Jack)
                    });
                    if plain_led && !plain_in_hand {
                        assert_eq!(face_up, hand, "a void player may play any card");
                        void_discards += 1;
                        let q = Card::new(cardhouse::Rank::Queen, lead.suit());
                        if hand.contains(q) {
                            lone_queen_discards += 1;
                        }
                    }
                }
            }
            let a = legal.choose(&mut rng).unwrap();
            s.apply(a).unwrap();
        }
    }
    assert!(void_discards > 100);
    assert!(
        lone_queen_discards > 3,
        "only {lone_queen_discards} lone-Queen cases"
    );
}

// §6.3–6.5, §15.15 ------------------------------------------------------------------------

#[test]
fn knock_order_declarer_then_partner_and_double_only_after_a_knock() {
    let mut s = dealt(dealer0(), E1);
    assert_eq!(legal_texts(&s), ["pass", "knock"]);
    assert!(illegal(&s, "double").contains("knock"));
    act(&mut s, "pass");
    assert_eq!(s.current_player().seat(), Some(1), "the declarer's partner");
    act(&mut s, "knock");
    assert_eq!(s.knocked_by(), Some(1));
    assert_eq!(
        s.current_player().seat(),
        Some(0),
        "the defender to the declarer's left"
    );
    assert_eq!(legal_texts(&s), ["pass", "double"]);
    act(&mut s, "pass");
    assert_eq!(s.current_player().seat(), Some(2));
    act(&mut s, "double");
    assert_eq!(s.doubled_by(), Some(2));
    assert_eq!(s.phase(), Phase::Play);
    assert_eq!(s.current_player().seat(), Some(3), "the declarer leads");
    // No knock after the first lead; no knock in a bidding game.
    assert!(illegal(&s, "knock").contains("card"));
    let mut b = dealt(dealer0(), BID_DEAL);
    assert!(illegal(&b, "knock").contains("bid"));
    act(&mut b, "bid 3");
}

#[test]
fn without_a_knock_nobody_doubles_and_play_starts() {
    let mut s = dealt(dealer0(), E1);
    act(&mut s, "pass");
    act(&mut s, "pass");
    assert_eq!(s.phase(), Phase::Play);
    assert_eq!(s.knocked_by(), None);
}

#[test]
fn e3_a_knock_stops_play_at_the_defenders_first_trick() {
    // E1's deal: declarer 3 knocks, seat 2 doubles (m = 4, b = 2).
    let mut s = dealt(dealer0(), E1);
    act(&mut s, "knock");
    act(&mut s, "pass");
    act(&mut s, "double");
    // Trick 1: 7♦ led, seat 0's Q♣ wins for the defenders: play stops.
    for t in ["play 7D", "play QC", "play AD", "play JS"] {
        act(&mut s, t);
    }
    assert_eq!(s.phase(), Phase::Deal, "the next deal starts");
    let d = s.last_deal().unwrap();
    assert!(d.knock_failed);
    assert_eq!(d.multiplier, 4);
    assert_eq!((d.against, d.amount), (Some(1), 2 * 2 * 4));
    assert_eq!(s.rams(), [0, 16]);
    assert_eq!(d.declarer_points + d.defender_points, 3 + 11 + 2);
    // E3's own figures (b = 1).
    assert_eq!(
        sevens_rams(1, 4, true, false, 120, AllTricksLoss::DoubleLoss),
        (false, 4)
    );
    assert_eq!(
        sevens_rams(1, 4, true, true, 0, AllTricksLoss::DoubleLoss),
        (true, 8)
    );
    assert_eq!(
        sevens_rams(1, 4, true, true, 0, AllTricksLoss::DoubleBase),
        (true, 4)
    );
    assert_eq!(
        sevens_rams(1, 2, true, true, 0, AllTricksLoss::DoubleLoss),
        (true, 4)
    );
}

#[test]
fn a_knocked_game_won_in_all_eight_tricks_gives_b_times_m() {
    let g = game(&[("scope", "deal")]);
    let mut rng = SeededRng::new(21);
    let mut seen = 0;
    for _ in 0..400 {
        let mut s = g.new_initial_state();
        s.resolve_chance(&mut rng);
        if s.kind() != Some(Kind::Sevens) {
            continue;
        }
        act(&mut s, "knock");
        act(&mut s, "pass");
        act(&mut s, "pass");
        while !s.is_terminal() {
            let a = s.legal_actions().choose(&mut rng).unwrap();
            s.apply(a).unwrap();
        }
        let d = s.last_deal().unwrap();
        let dt = d.declarer.unwrap() % 2;
        if d.knock_failed {
            assert_eq!(d.defender_tricks, 1);
            assert_eq!((d.against, d.amount), (Some(dt), 2 * d.base * 2));
        } else {
            assert_eq!(d.declarer_tricks, 8);
            assert_eq!(d.declarer_points, 120);
            assert_eq!((d.against, d.amount), (Some(1 - dt), d.base * 2));
            seen += 1;
        }
        assert_eq!(s.returns()[dt], -s.returns()[1 - dt]);
    }
    let _ = seen;
}

// §11.1, §10, E1, E2, §15.14 ---------------------------------------------------------------

#[test]
fn e1_declaring_side_with_64_gives_the_defenders_b_rams_or_crosses_out_its_own() {
    assert_eq!(
        sevens_rams(2, 1, false, false, 64, AllTricksLoss::DoubleLoss),
        (false, 2)
    );
    let mut rams = [0, 0];
    give_rams(&mut rams, 1, 2);
    assert_eq!(rams, [0, 2]);
    // The declaring side (team 0 here) had 3 rams: it crosses out 2 of its own.
    let mut rams = [3, 0];
    give_rams(&mut rams, 1, 2);
    assert_eq!(rams, [1, 0]);
}

#[test]
fn e2_a_sevens_game_with_exactly_60_loses_2b_and_the_defenders_cross_out_first() {
    assert_eq!(
        sevens_rams(1, 1, false, false, 60, AllTricksLoss::DoubleLoss),
        (true, 2)
    );
    assert_eq!(
        sevens_rams(1, 1, false, false, 61, AllTricksLoss::DoubleLoss),
        (false, 1)
    );
    let mut rams = [0, 1];
    give_rams(&mut rams, 0, 2);
    assert_eq!(rams, [1, 0]);
}

#[test]
fn ram_cancellation_can_cancel_exactly_to_zero() {
    let mut rams = [0, 2];
    give_rams(&mut rams, 0, 2);
    assert_eq!(rams, [0, 0]);
}

#[test]
fn sevens_game_rams_follow_the_table_in_real_play() {
    let g = game(&[("scope", "deal")]);
    let mut rng = SeededRng::new(4);
    for _ in 0..200 {
        let mut s = g.new_initial_state();
        s.resolve_chance(&mut rng);
        if s.kind() != Some(Kind::Sevens) {
            continue;
        }
        act(&mut s, "pass");
        act(&mut s, "pass");
        while !s.is_terminal() {
            let a = s.legal_actions().choose(&mut rng).unwrap();
            s.apply(a).unwrap();
        }
        let d = s.last_deal().unwrap();
        let dt = d.declarer.unwrap() % 2;
        assert_eq!(d.declarer_points + d.defender_points, 120);
        let expect = if d.declarer_points >= 61 {
            (Some(1 - dt), d.base)
        } else {
            (Some(dt), 2 * d.base)
        };
        assert_eq!((d.against, d.amount), expect);
        let r = s.returns();
        assert_eq!(r[expect.0.unwrap()], -f64::from(expect.1));
    }
}

// §11.2, E4, §15.12, §15.13 ----------------------------------------------------------------

#[test]
fn e4_pip_table() {
    let pips = |d, f| bidding_pips(d, f, 1, 1, SchwarzBasis::CardPoints);
    assert_eq!(pips(75, 45), (false, 1));
    assert_eq!(pips(92, 28), (false, 2));
    assert_eq!(
        bidding_pips(120, 0, 8, 0, SchwarzBasis::CardPoints),
        (false, 3)
    );
    assert_eq!(pips(61, 59), (false, 1));
    assert_eq!(pips(60, 60), (true, 2));
    assert_eq!(pips(30, 90), (true, 4));
    assert_eq!(
        bidding_pips(0, 120, 0, 8, SchwarzBasis::CardPoints),
        (true, 6)
    );
    // Early stops: unplayed points belong to nobody.
    assert_eq!(pips(68, 12), (false, 2));
    assert_eq!(
        bidding_pips(61, 0, 5, 0, SchwarzBasis::CardPoints),
        (false, 3)
    );
}

#[test]
fn pip_boundaries_on_card_points() {
    let p = |d, f| bidding_pips(d, f, 1, 1, SchwarzBasis::CardPoints);
    assert_eq!(p(61, 31), (false, 1));
    assert_eq!(p(61, 30), (false, 2));
    assert_eq!(p(61, 1), (false, 2));
    assert_eq!(p(61, 0), (false, 3));
    assert_eq!(p(60, 0), (true, 2));
    assert_eq!(p(31, 0), (true, 2));
    assert_eq!(p(30, 0), (true, 4));
    assert_eq!(p(1, 0), (true, 4));
    assert_eq!(p(0, 0), (true, 6));
    // A trick of zero points does not lift F above 0 on card points...
    assert_eq!(
        bidding_pips(70, 0, 7, 1, SchwarzBasis::CardPoints),
        (false, 3)
    );
    // ...but does with schwarz_basis = tricks.
    assert_eq!(bidding_pips(70, 0, 7, 1, SchwarzBasis::Tricks), (false, 2));
    assert_eq!(bidding_pips(0, 50, 1, 7, SchwarzBasis::Tricks), (true, 4));
    assert_eq!(bidding_pips(0, 50, 0, 8, SchwarzBasis::Tricks), (true, 6));
}

#[test]
fn early_stop_between_tricks_leaves_unplayed_points_to_nobody() {
    let mut s = dealt(game(&[("first_dealer", "0"), ("scope", "deal")]), BID_DEAL);
    for t in ["pass", "pass", "pass", "bid 7"] {
        act(&mut s, t);
    }
    assert!(
        illegal(&s, "stop").contains("card"),
        "no stop before the first trick"
    );
    act(&mut s, "play AS");
    // Followers: seat 1 QS JC JD; seat 2 QC; seat 3 QD QH JH.
    act(&mut s, "play JD");
    act(&mut s, "play QC");
    act(&mut s, "play JH");
    // Q♣ wins: 11 + 2 + 3 + 2 = 18 to the defenders (seat 2 is the declarer's partner!).
    assert_eq!(s.phase(), Phase::StopChoice);
    assert_eq!(s.current_player().seat(), Some(0));
    assert_eq!(legal_texts(&s), ["continue", "stop"]);
    act(&mut s, "stop");
    assert!(s.is_terminal());
    let d = s.last_deal().unwrap();
    assert!(d.stopped);
    assert_eq!(d.declarer_points + d.defender_points, 18);
    assert_eq!((d.declarer_points, d.defender_points), (18, 0));
    // D = 18 (1–30): the declaring side takes 4 pips.
    assert_eq!((d.against, d.amount), (Some(0), 4));
    assert_eq!(&*s.returns(), &[-4.0, 4.0, -4.0, 4.0]);
    // The unplayed cards are never revealed to a seat.
    let v = s.view(Viewer::Seat(1)).unwrap();
    assert!(v.hands[0].is_none() && v.hands[2].is_none() && v.hands[3].is_none());
}

#[test]
fn early_stop_options_govern_each_game_kind() {
    // Bidding game without early_stop_allowed: no stop choice.
    let mut s = dealt(
        game(&[("first_dealer", "0"), ("early_stop_allowed", "false")]),
        BID_DEAL,
    );
    for t in [
        "pass", "pass", "pass", "bid 7", "play AS", "play JD", "play QC", "play JH",
    ] {
        act(&mut s, t);
    }
    assert_eq!(s.phase(), Phase::Play);
    // Sevens game: no stop by default, a stop with early_stop_in_sevens_game (no knock).
    let mut s = dealt(dealer0(), E1);
    for t in ["pass", "pass", "play 7D", "play QC", "play AD", "play JS"] {
        act(&mut s, t);
    }
    assert_eq!(s.phase(), Phase::Play);
    let g = game(&[("first_dealer", "0"), ("early_stop_in_sevens_game", "true")]);
    let mut s = dealt(g, E1);
    for t in ["pass", "pass", "play 7D", "play QC", "play AD", "play JS"] {
        act(&mut s, t);
    }
    assert_eq!(s.phase(), Phase::StopChoice);
    act(&mut s, "stop");
    // D = 0 after the stop (Q♣ won trick 1 for the defenders): 2b = 4 rams.
    let d = s.last_deal().unwrap();
    assert_eq!((d.against, d.amount), (Some(1), 4));
    let mut s = dealt(g, E1);
    for t in [
        "knock", "pass", "pass", "play 7D", "play JH", "play KD", "play JS",
    ] {
        act(&mut s, t);
    }
    // The declaring side won trick 1 with 7♦ after a knock: no stop choice.
    assert_eq!(s.phase(), Phase::Play);
}

// §12, E5, §15.17, §15.18 -----------------------------------------------------------------

#[test]
fn e5_end_of_game_loser_rules() {
    // A (team 0) reaches 12, B has 0 pips (and even rams): A is the cat.
    assert_eq!(loser([12, 0], [0, 3], 0, true), (0, true));
    // A 13, B 5, B has 2 rams: B loses.
    assert_eq!(loser([13, 5], [0, 2], 0, true), (1, false));
    // A 12, B 7, no rams: A loses.
    assert_eq!(loser([12, 7], [0, 0], 0, true), (0, false));
    // A 12 and 1 ram, B 3: A loses.
    assert_eq!(loser([12, 3], [1, 0], 0, true), (0, false));
    // cat_rule = false: rule 1 is skipped.
    assert_eq!(loser([12, 0], [0, 3], 0, false), (1, false));
    assert_eq!(loser([12, 0], [0, 0], 0, false), (0, false));
}

#[test]
fn the_game_ends_only_when_pips_reach_the_limit_never_on_rams() {
    let g = game(&[("pip_limit", "3")]);
    let mut rng = SeededRng::new(12);
    for _ in 0..20 {
        let mut s = g.new_initial_state();
        let mut prev_pips = [0, 0];
        while !s.is_terminal() {
            if s.is_chance_node() {
                s.resolve_chance(&mut rng);
                continue;
            }
            let a = s.legal_actions().choose(&mut rng).unwrap();
            s.apply(a).unwrap();
            if s.is_terminal() {
                let d = s.last_deal().unwrap();
                assert_eq!(d.kind, Some(Kind::Bidding), "only a pip deal ends the game");
                let p = s.pips();
                assert!(p[0] >= 3 || p[1] >= 3);
                assert_ne!(p, prev_pips);
                let l = s.loser().unwrap();
                let reached = usize::from(p[1] >= 3);
                assert_eq!((l, s.cat()), loser(p, s.rams(), reached, true));
                let r = s.returns();
                assert_eq!(r[l], -1.0);
                assert_eq!(r[1 - l], 1.0);
            } else if s.phase() == Phase::Deal {
                prev_pips = s.pips();
                assert!(prev_pips[0] < 3 && prev_pips[1] < 3);
            }
        }
    }
}

// Options and errors ----------------------------------------------------------------------

#[test]
fn scope_deal_views_show_the_rams_or_pips_the_deal_gave() {
    // §12 [decision]: at the end of a `scope = deal` game the view's scores (rams, pips) hold
    // what the deal gave, as after the first deal of a match (the same in every game).
    let g = game(&[("scope", "deal")]);
    let mut kinds = [0; 3];
    for seed in 0..40 {
        let mut rng = SeededRng::new(seed);
        let mut s = g.new_initial_state();
        while !s.is_terminal() {
            if s.is_chance_node() {
                s.apply_random_chance(&mut rng).expect("chance");
            } else {
                let a = s.legal_actions().choose(&mut rng).expect("legal");
                s.apply(a).expect("legal");
            }
        }
        let d = s.last_deal().expect("one deal");
        let mut rams = [0; 2];
        let mut pips = [0; 2];
        match (d.kind, d.against) {
            (Some(Kind::Sevens), Some(t)) => rams[t] = d.amount,
            (Some(Kind::Bidding), Some(t)) => pips[t] = d.amount,
            _ => {}
        }
        kinds[d.kind.map_or(2, |k| usize::from(k == Kind::Bidding))] += 1;
        for v in [Viewer::Seat(seed as usize % 4), Viewer::Spectator] {
            let view = s.view(v).expect("view");
            assert_eq!((view.rams, view.pips), (rams, pips), "seed {seed} {v:?}");
        }
        if d.kind.is_some() {
            assert_ne!(rams, pips, "seed {seed}: a scored deal gives something");
        }
    }
    assert!(
        kinds[0] > 0 && kinds[1] > 0,
        "both kinds of deal: {kinds:?}"
    );
}

#[test]
fn options_are_validated_with_precise_errors() {
    let bad = |k: &str, v: &str| {
        let o: Options = [(k.to_string(), v.into())].into_iter().collect();
        AvinasGame::from_options(&o).unwrap_err().to_string()
    };
    assert!(bad("pip_limit", "0").contains("pip_limit"));
    assert!(bad("first_dealer", "4").contains("random, 0, 1, 2, 3"));
    assert!(bad("schwarz_basis", "x").contains("card_points, tricks"));
    assert!(bad("nope", "1").contains("unknown option `nope`"));
    let o: Options = [("first_dealer".to_string(), 2.into())]
        .into_iter()
        .collect();
    let g = AvinasGame::from_options(&o).expect("an integer seat is accepted");
    assert_eq!(g.new_initial_state().dealer(), 2);
    assert_eq!(g.options()["first_dealer"], "2".into());
    // The random first dealer is a chance event with four equally likely outcomes.
    let s = AvinasGame::default().new_initial_state();
    assert_eq!(s.phase(), Phase::ChooseDealer);
    let o = s.chance_outcomes().unwrap();
    assert_eq!(o.len(), 4);
    assert!((o.iter().map(|x| x.1).sum::<f64>() - 1.0).abs() < 1e-12);
    assert_eq!(s.action_to_string(2), "first dealer 2");
    let mut t = s.clone();
    t.apply(2).unwrap();
    assert_eq!(t.dealer(), 2);
    let _ = SeededRng::new(0).next_u64();
}

#[test]
fn bad_actions_are_errors_that_leave_the_state_unchanged() {
    let s = dealt(dealer0(), BID_DEAL);
    let mut t = s.clone();
    assert!(matches!(t.apply(200), Err(Error::UnknownAction { .. })));
    assert_eq!(t, s);
    assert!(s.string_to_action("play 6H").is_err());
    assert!(s.string_to_action("play 9H trump spades").is_err());
    assert!(s.string_to_action("bid 9").is_err());
    assert!(s.string_to_action("hello").is_err());
    let mut b = s.clone();
    act(&mut b, "bid 3");
    assert!(illegal(&b, "play QS").contains("bid"));
}

#[test]
fn default_game_equals_the_default_options_and_the_observation_length_is_documented() {
    assert_eq!(
        AvinasGame::default(),
        AvinasGame::from_options(&Options::new()).unwrap()
    );
    assert_eq!(cardhouse::games::avinas::layout::TOTAL, 540);
    assert_eq!(AvinasGame::default().observation_len(), 540);
}

#[test]
fn first_dealer_may_be_given_as_an_integer() {
    for (int, text) in [(0i64, "0"), (3, "3")] {
        let a = cardhouse::games::avinas::AvinasGame::from_options(&cardhouse::options([(
            "first_dealer",
            int.into(),
        )]))
        .expect("an integer seat");
        assert_eq!(a, game(&[("first_dealer", text)]));
    }
    let e = cardhouse::games::avinas::AvinasGame::from_options(&cardhouse::options([(
        "first_dealer",
        4i64.into(),
    )]))
    .unwrap_err();
    assert!(e.to_string().contains("first_dealer"), "{e}");
}
