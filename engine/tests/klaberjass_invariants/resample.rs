//! `resample` keeps the seat's knowledge and every inference of §13.

use super::*;

#[test]
fn resample_keeps_the_seats_knowledge_and_every_inference() {
    let mut checked = 0;
    for opts in OPTION_SETS {
        for seed in 0..8 {
            play(game(opts), seed, |s, rng| {
                if rng.below(5) != 0 {
                    return;
                }
                let seat = rng.below(2) as usize;
                let opp = 1 - seat;
                let r = s
                    .resample(seat, rng)
                    .expect("a consistent state exists: the true one");
                assert_eq!(
                    r.observation(seat).expect("obs"),
                    s.observation(seat).expect("obs")
                );
                assert_eq!(
                    serde_json::to_value(r.view(Viewer::Seat(seat)).expect("v")).expect("json"),
                    serde_json::to_value(s.view(Viewer::Seat(seat)).expect("v")).expect("json")
                );
                assert_eq!(r.hand(seat), s.hand(seat));
                assert_eq!(
                    (r.turn_up(), r.bottom(), r.trump()),
                    (s.turn_up(), s.bottom(), s.trump())
                );
                assert_eq!(r.announcement(), s.announcement());
                assert_eq!(r.shown(), s.shown());
                assert_eq!(r.bella(), s.bella());
                assert_eq!(r.exchanged(), s.exchanged());
                assert!(
                    r.hand(opp).is_superset(s.known_cards_of(opp)),
                    "known cards stay"
                );
                if let (Some((p, _)), Some(t)) = (s.exchanged(), s.trump()) {
                    // The exchanger was dealt the trump 7 and took the turn-up.
                    assert!(r.dealt_hand(p).contains(Card::new(Rank::Seven, t)));
                    let took = s
                        .view(Viewer::Spectator)
                        .expect("v")
                        .original_turn_up
                        .expect("up");
                    assert!((r.hand(p) | r.played_by(p)).contains(took));
                }
                assert_eq!(r.bottom(), s.bottom());
                assert_eq!(r.played_by(0), s.played_by(0));
                assert_eq!(r.played_by(1), s.played_by(1));
                assert!(
                    (r.hand(opp) & shown_voids(s)[opp]).is_empty(),
                    "voids are respected"
                );
                // Bella: a player who scored it... and a pending Bella holder keeps K+Q.
                let again = cardhouse::game::replay(r.game(), &r.history()).expect("replays");
                assert_eq!(again.hand(seat), r.hand(seat));
                assert_eq!(r.current_player(), s.current_player());
                checked += 1;
            });
        }
    }
    assert!(checked > 50, "{checked}");
}

#[test]
fn resample_respects_equal_announcements_and_varies_the_hidden_cards() {
    // Elder 50 topped by K in spades; younger 50 topped by K in diamonds: equal, equal, nobody.
    let g = game(&[("scope", "deal"), ("first_dealer", "1")]);
    let e: Vec<Card> = "9S 10S JS QS KS AC 8D 7C JC"
        .split_whitespace()
        .map(|c| Card::parse(c).expect("c"))
        .collect();
    let d: Vec<Card> = "10D JD QD KD 7H 9C AH 8H QC"
        .split_whitespace()
        .map(|c| Card::parse(c).expect("c"))
        .collect();
    let mut s = g.new_initial_state();
    for c in e[0..3]
        .iter()
        .chain(&d[0..3])
        .chain(&e[3..6])
        .chain(&d[3..6])
        .chain([Card::parse("7D").expect("c")].iter())
    {
        s.apply(card_action(*c)).expect("deal");
    }
    for b in ["pass", "pass", "name hearts"] {
        s.apply(s.string_to_action(b).expect("p")).expect("bid");
    }
    for c in e[6..9]
        .iter()
        .chain(&d[6..9])
        .chain([Card::parse("AS").expect("c")].iter())
    {
        s.apply(card_action(*c)).expect("deal");
    }
    for t in [
        "declare run 9S-KS",
        "announce",
        "declare run 10D-KD",
        "announce",
    ] {
        s.apply(s.string_to_action(t).expect("p")).expect(t);
    }
    let a = s.announcement();
    assert_eq!(a.winner, None);
    let mut rng = SeededRng::new(3);
    let mut distinct = std::collections::HashSet::new();
    for _ in 0..20 {
        let r = s.resample(0, &mut rng).expect("resample");
        assert_eq!(r.announcement(), a);
        // Younger holds a non-trump 4+ run topped by K.
        let h = r.hand(1);
        let has = Suit::ALL
            .into_iter()
            .filter(|&x| x != Suit::Hearts)
            .any(|x| {
                [Rank::Ten, Rank::Jack, Rank::Queen, Rank::King]
                    .iter()
                    .all(|&k| h.contains(Card::new(k, x)))
            });
        assert!(has, "{h}");
        distinct.insert(h.bits());
    }
    assert!(
        distinct.len() > 5,
        "resample does not vary the hidden cards"
    );
}

#[test]
fn resample_rejects_a_bad_seat() {
    let g = game(&[("scope", "deal")]);
    let mut s = g.new_initial_state();
    s.resolve_chance(&mut SeededRng::new(1));
    assert!(s.resample(2, &mut SeededRng::new(1)).is_err());
    let _ = Rng::next_u64(&mut SeededRng::new(0));
}
