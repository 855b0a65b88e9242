//! Hidden information never reaches a seat: observations, views, events, the exchange
//! windows, private declarations and the observation string.

use super::*;

/// Two states that differ only in cards a seat cannot see give that seat the same
/// observation, view and event texts; the same holds for the spectator.
#[test]
fn no_hidden_information_reaches_a_seat() {
    let mut compared = 0;
    for opts in OPTION_SETS {
        for seed in 0..10 {
            play(game(opts), seed, |s, rng| {
                if s.is_terminal() || rng.below(3) != 0 {
                    return;
                }
                let viewer = rng.below(2) as usize;
                let opp = 1 - viewer;
                // A hidden card of the opponent and a hidden card elsewhere (stock or his hand).
                let visible = s.hand(viewer)
                    | s.played_by(0)
                    | s.played_by(1)
                    | s.turn_up().map_or(CardSet::EMPTY, CardSet::single)
                    | s.view(Viewer::Seat(viewer))
                        .expect("v")
                        .original_turn_up
                        .map_or(CardSet::EMPTY, CardSet::single)
                    | s.bottom().map_or(CardSet::EMPTY, CardSet::single)
                    | s.known_cards_of(opp);
                let hidden_opp = s.hand(opp) - visible;
                let hidden_any = Pack::Piquet32.cards() - visible;
                if hidden_opp.is_empty() {
                    return;
                }
                let a = hidden_opp
                    .nth(rng.below(hidden_opp.len() as u64) as usize)
                    .expect("card");
                let others = hidden_any - CardSet::single(a);
                let b = others
                    .nth(rng.below(others.len() as u64) as usize)
                    .expect("card");
                let Some(t) = with_swapped(s, a, b) else {
                    return;
                };
                if t.announcement() != s.announcement()
                    || t.shown() != s.shown()
                    || t.bella() != s.bella()
                {
                    return; // a different public history, not a hidden difference
                }
                let (ot, os) = (
                    t.observation(viewer).expect("obs"),
                    s.observation(viewer).expect("obs"),
                );
                let diff: Vec<usize> = (0..ot.len()).filter(|&i| ot[i] != os[i]).collect();
                assert!(
                    diff.is_empty(),
                    "observation of seat {viewer} leaks at {diff:?} (swapped {a} and {b})\n{s}\n{t}"
                );
                let view = |st: &KlaberjassState, v| {
                    serde_json::to_value(st.view(v).expect("view")).expect("json")
                };
                assert_eq!(
                    view(&t, Viewer::Seat(viewer)),
                    view(s, Viewer::Seat(viewer)),
                    "view leaks\n{s}\n{t}"
                );
                assert_eq!(
                    t.observation_string(viewer).expect("text"),
                    s.observation_string(viewer).expect("text"),
                    "observation_string of seat {viewer} leaks"
                );
                assert_eq!(
                    view(&t, Viewer::Spectator),
                    view(s, Viewer::Spectator),
                    "spectator view leaks"
                );
                // Events: what the viewer learns of the next action (same action on both, with
                // the same public effect: an announcement says what it makes public).
                if !s.is_chance_node() {
                    let same_effect = |x: u32| {
                        let (mut s2, mut t2) = (s.clone(), t.clone());
                        s2.apply(x).is_ok()
                            && t2.apply(x).is_ok()
                            && s2.announcement() == t2.announcement()
                    };
                    if let Some(x) = s
                        .legal_actions()
                        .iter()
                        .find(|&x| t.legal_actions().contains(x) && same_effect(x))
                    {
                        assert_eq!(
                            s.action_to_string_for(Viewer::Seat(viewer), x),
                            t.action_to_string_for(Viewer::Seat(viewer), x)
                        );
                    }
                }
                assert_eq!(s.public_move_number(), t.public_move_number());
                for x in s.legal_actions().iter() {
                    for v in [Viewer::Seat(viewer), Viewer::Spectator, Viewer::Omniscient] {
                        assert_eq!(
                            s.action_visible_to(v, x),
                            s.action_to_string_for(v, x).is_some()
                        );
                    }
                }
                compared += 1;
            });
        }
    }
    assert!(compared > 200, "only {compared} comparisons were made");
}

/// The exchange windows look the same to the opponent whether a player holds the trump 7 or
/// not, as long as he waits and keeps (§7, §13).
#[test]
fn who_holds_the_dix_is_not_revealed_by_the_windows() {
    let g = game(&[("scope", "deal"), ("first_dealer", "1")]);
    let build = |dealer_has_seven: bool| {
        let mut s = g.new_initial_state();
        let (e, mut d) = (
            "AC 10D KH QS 8C 9D JH 8S AS",
            "JC 7D AH 9S QC 8D 7H 10S KC".to_owned(),
        );
        if !dealer_has_seven {
            d = d.replace("7H", "9H");
        }
        let e: Vec<Card> = e
            .split_whitespace()
            .map(|c| Card::parse(c).expect("card"))
            .collect();
        let d: Vec<Card> = d
            .split_whitespace()
            .map(|c| Card::parse(c).expect("card"))
            .collect();
        let up = Card::parse("10H").expect("card");
        for c in e[0..3]
            .iter()
            .chain(&d[0..3])
            .chain(&e[3..6])
            .chain(&d[3..6])
            .chain([up].iter())
        {
            s.apply(card_action(*c)).expect("deal");
        }
        s.apply(s.string_to_action("take").expect("parse"))
            .expect("take");
        let bottom = Card::parse("7S").expect("card");
        for c in e[6..9].iter().chain(&d[6..9]).chain([bottom].iter()) {
            s.apply(card_action(*c)).expect("deal");
        }
        s
    };
    let mut with = build(true);
    let mut without = build(false);
    for text in ["wait", "wait", "announce", "announce", "keep", "keep"] {
        for v in [Viewer::Seat(0), Viewer::Spectator] {
            assert_eq!(
                serde_json::to_value(with.view(v).expect("v")).expect("json"),
                serde_json::to_value(without.view(v).expect("v")).expect("json")
            );
        }
        assert_eq!(
            with.observation(0).expect("o"),
            without.observation(0).expect("o")
        );
        assert_eq!(with.current_player(), without.current_player());
        let a = with.string_to_action(text).expect("parse");
        assert_eq!(
            with.action_to_string_for(Viewer::Seat(0), a),
            without.action_to_string_for(Viewer::Seat(0), a)
        );
        with.apply(a).expect("legal");
        without.apply(a).expect("legal");
    }
    assert_eq!(with.phase(), Phase::Play);
}

/// A private declaration item changes nothing the opponent or a spectator sees.
#[test]
fn private_declarations_are_invisible_to_the_opponent() {
    let mut checked = 0;
    for seed in 0..200 {
        play(game(&[("scope", "deal")]), seed, |s, _| {
            if s.phase() != Phase::Announce {
                return;
            }
            let actor = s.current_player().seat().expect("a seat acts");
            for x in s.legal_actions().iter().filter(|&x| x > 41) {
                let mut t = s.clone();
                t.apply(x).expect("legal");
                let other = 1 - actor;
                assert_eq!(
                    t.observation(other).expect("o"),
                    s.observation(other).expect("o")
                );
                for v in [Viewer::Seat(other), Viewer::Spectator] {
                    assert_eq!(
                        serde_json::to_value(t.view(v).expect("v")).expect("json"),
                        serde_json::to_value(s.view(v).expect("v")).expect("json")
                    );
                    assert!(!s.action_visible_to(v, x));
                }
                assert_eq!(t.public_move_number(), s.public_move_number());
                checked += 1;
            }
        });
    }
    assert!(checked > 20, "{checked}");
}

/// `observation_string` shows only what the seat knows: states resampled for that seat
/// (other hands, stock) give the same text; it shows the seat's own hand.
#[test]
fn observation_string_ignores_what_the_seat_cannot_see() {
    let mut varied = 0;
    for opts in OPTION_SETS {
        for seed in 0..8 {
            play(game(opts), seed, |s, rng| {
                if rng.below(3) != 0 {
                    return;
                }
                for seat in 0..2 {
                    let text = s.observation_string(seat).expect("text");
                    if s.phase() != Phase::Cut {
                        assert!(text.contains(&format!("seat {seat}")), "{text}");
                    }
                    for _ in 0..3 {
                        let r = s.resample(seat, rng).expect("resample");
                        assert_eq!(
                            r.observation_string(seat).expect("text"),
                            text,
                            "observation_string of seat {seat} leaks\n{s}\n{r}"
                        );
                        if r.hand(1 - seat) != s.hand(1 - seat) {
                            varied += 1;
                        }
                    }
                }
            });
        }
    }
    assert!(
        varied > 100,
        "the hidden cards must actually vary: {varied}"
    );
    let g = game(&[("scope", "deal"), ("first_dealer", "0")]);
    let mut s = g.new_initial_state();
    s.resolve_chance(&mut SeededRng::new(4));
    let text = s.observation_string(1).expect("text");
    assert!(text.contains("seat 1 (elder)"), "{text}");
    let hand: Vec<String> = s.hand(1).iter().map(|c| c.to_string()).collect();
    for c in &hand {
        assert!(text.contains(c.as_str()), "{c} missing from\n{text}");
    }
    assert!(text.contains("to act: you; legal: pass, take"), "{text}");
    assert!(s.observation_string(2).is_err());
}
