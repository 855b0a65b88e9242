//! Trick play: §8, §15.6, §15.7, and §15.9 checked against an independent reading of §8
//! on random play.

use super::*;

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
