//! Klaberjass invariants over random playouts: cards are conserved, the card points of a deal
//! are those of the 18 cards in play plus the last trick, hidden information never reaches a
//! seat's observation, view or events, and `resample` keeps the seat's knowledge and every
//! inference of §13.

use cardhouse::games::klaberjass::{
    KlaberjassGame, KlaberjassState, Outcome, Phase, action_card, card_action, card_value,
};
use cardhouse::{Card, CardSet, Game, Options, Pack, Rank, Rng, SeededRng, State, Suit, Viewer};

fn game(pairs: &[(&str, &str)]) -> KlaberjassGame {
    let opts: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), (*v).into()))
        .collect();
    KlaberjassGame::from_options(&opts).expect("valid options")
}

const OPTION_SETS: &[&[(&str, &str)]] = &[
    &[("scope", "deal")],
    &[("scope", "deal"), ("equal_sequence_rule", "elder_scores")],
    &[
        ("scope", "deal"),
        ("first_dealer", "0"),
        ("last_trick_bonus", "0"),
    ],
    &[
        ("scope", "match"),
        ("target_score", "200"),
        ("maker_tie_rule", "hang"),
        ("dealer_rotation", "winner_deals"),
        ("game_tie_rule", "draw"),
    ],
];

/// A policy that declares every run most of the time (so the announcement protocol is
/// exercised), otherwise uniform.
fn choose(s: &KlaberjassState, rng: &mut SeededRng) -> u32 {
    let legal = s.legal_actions();
    if s.phase() == Phase::Announce && rng.below(4) != 0 {
        if let Some(a) = legal.iter().find(|&a| a > 41) {
            return a;
        }
    }
    legal.choose(rng).expect("legal action")
}

/// Plays one random game, calling `f` on every state (before each action and at the end).
fn play(
    g: KlaberjassGame,
    seed: u64,
    mut f: impl FnMut(&KlaberjassState, &mut SeededRng),
) -> KlaberjassState {
    let mut rng = SeededRng::new(seed);
    let mut s = g.new_initial_state();
    while !s.is_terminal() {
        f(&s, &mut rng);
        let a = choose(&s, &mut rng);
        s.apply(a).expect("legal");
    }
    f(&s, &mut rng);
    s
}

#[test]
fn cards_are_conserved_at_every_step() {
    for opts in OPTION_SETS {
        for seed in 0..15 {
            play(game(opts), seed, |s, _| {
                let mut seen = CardSet::EMPTY;
                let mut count = 0;
                let parts = [
                    s.hand(0),
                    s.hand(1),
                    s.played_by(0),
                    s.played_by(1),
                    s.turn_up().map_or(CardSet::EMPTY, CardSet::single),
                    s.bottom().map_or(CardSet::EMPTY, CardSet::single),
                ];
                for p in parts {
                    assert!((seen & p).is_empty(), "a card in two places\n{s}");
                    seen |= p;
                    count += p.len();
                }
                assert_eq!(seen.len(), count);
                assert!(Pack::Piquet32.cards().is_superset(seen));
                if matches!(s.phase(), Phase::Play) {
                    assert_eq!(
                        count, 20,
                        "18 cards in play, the turn-up and the bottom card"
                    );
                    assert_eq!(s.hand(0).len() + s.played_by(0).len(), 9);
                }
            });
        }
    }
}

#[test]
fn every_deal_is_worth_the_points_of_its_18_cards_in_play_plus_the_last_trick() {
    let mut outcomes = std::collections::HashSet::new();
    for opts in OPTION_SETS.iter().take(3) {
        let bonus = if opts.contains(&("last_trick_bonus", "0")) {
            0
        } else {
            10
        };
        for seed in 0..150 {
            let mut in_play = CardSet::EMPTY;
            let end = play(game(opts), seed, |s, _| {
                if s.phase() == Phase::Play
                    && s.played_by(0).is_empty()
                    && s.played_by(1).is_empty()
                {
                    in_play = s.hand(0) | s.hand(1);
                }
            });
            let d = end.last_deal().expect("deal result");
            outcomes.insert(format!("{:?}", d.outcome));
            if d.outcome == Outcome::Annulled {
                continue;
            }
            let trump = end.trump().expect("trump");
            let cp = end.card_points();
            assert_eq!(in_play.len(), 18);
            assert_eq!(cp[0] + cp[1], card_value(trump, in_play));
            let seq: u32 = end.sequence_points().iter().sum();
            let bella = 20 * end.bella().iter().filter(|&&b| b).count() as u32;
            assert_eq!(
                d.totals[0] + d.totals[1],
                cp[0] + cp[1] + bonus + seq + bella
            );
            assert!(
                end.sequence_points().contains(&0),
                "only one player scores sequences"
            );
        }
    }
    for o in ["MakerWins", "Bete", "Annulled"] {
        assert!(
            outcomes.contains(o),
            "random play reached {o}: {outcomes:?}"
        );
    }
}

/// Rebuilds `s` with the cards `a` and `b` swapped in the deal outcomes of the current deal,
/// replaying the same actions. `None` if the swapped deal makes some action illegal.
fn with_swapped(s: &KlaberjassState, a: Card, b: Card) -> Option<KlaberjassState> {
    let swap = |x: u32| match action_card(x) {
        Some(c) if c == a => card_action(b),
        Some(c) if c == b => card_action(a),
        _ => x,
    };
    let history = s.history();
    let mut t = s.game().new_initial_state();
    let current_start = history.len() - current_deal_len(s);
    for (i, &x) in history.iter().enumerate() {
        let y = if i >= current_start && t.is_chance_node() && t.phase() != Phase::Cut {
            swap(x)
        } else {
            x
        };
        t.apply(y).ok()?;
    }
    Some(t)
}

/// Number of history entries in the current deal (the deal number changes at its start).
fn current_deal_len(s: &KlaberjassState) -> usize {
    let h = s.history();
    let deal = s.view(Viewer::Spectator).expect("view").deal_number;
    let mut t = s.game().new_initial_state();
    for (i, &x) in h.iter().enumerate() {
        if t.view(Viewer::Spectator).expect("view").deal_number == deal {
            return h.len() - i;
        }
        t.apply(x).expect("replays");
    }
    0
}

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

/// Suits and trumps a seat has shown it cannot hold, recomputed from the spectator view.
fn shown_voids(s: &KlaberjassState) -> [CardSet; 2] {
    let v = s.view(Viewer::Spectator).expect("view");
    let mut out = [CardSet::EMPTY; 2];
    let Some(t) = s.trump() else { return out };
    let trumps = CardSet::suit_mask(t) & Pack::Piquet32.cards();
    let strength = |c: Card| {
        [
            Rank::Seven,
            Rank::Eight,
            Rank::Queen,
            Rank::King,
            Rank::Ten,
            Rank::Ace,
            Rank::Nine,
            Rank::Jack,
        ]
        .iter()
        .position(|&r| r == c.rank())
        .expect("rank")
    };
    for trick in &v.tricks {
        let (lead, reply) = (trick.cards[0].card, trick.cards[1].card);
        let p = trick.cards[1].seat;
        if lead.suit() == t {
            if reply.suit() != t {
                out[p] |= trumps;
            } else if strength(reply) < strength(lead) {
                for c in trumps.iter().filter(|&c| strength(c) > strength(lead)) {
                    out[p].insert(c);
                }
            }
        } else if reply.suit() != lead.suit() {
            out[p] |= CardSet::suit_mask(lead.suit());
            if reply.suit() != t {
                out[p] |= trumps;
            }
        }
    }
    out
}

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
                let again = cardhouse::codec::replay(r.game(), &r.history()).expect("replays");
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

/// Every combination of the choice options (both scopes, every first dealer), a few seeded
/// games each: returns are zero-sum, every deal's totals add up to its 18 cards in play plus
/// the last trick, sequences and Bella, and the match ends as §12 says.
#[test]
fn every_option_combination_plays_consistent_deals_and_matches() {
    let mut games = 0;
    for scope in ["deal", "match"] {
        for first in ["random", "0", "1"] {
            for combo in 0..16u32 {
                let pick = |bit: u32, a: &'static str, b: &'static str| {
                    if combo >> bit & 1 == 0 { a } else { b }
                };
                let opts = [
                    ("scope", scope),
                    ("first_dealer", first),
                    (
                        "equal_sequence_rule",
                        pick(0, "nobody_scores", "elder_scores"),
                    ),
                    ("maker_tie_rule", pick(1, "opponent_scores_own", "hang")),
                    ("dealer_rotation", pick(2, "alternate", "winner_deals")),
                    ("game_tie_rule", pick(3, "play_another_deal", "draw")),
                    ("target_score", "150"),
                ];
                let g = game(&opts);
                for seed in 0..2 {
                    let mut in_play = CardSet::EMPTY;
                    let end = play(g, u64::from(combo) * 10 + seed, |s, _| {
                        if s.phase() == Phase::Play
                            && s.played_by(0).is_empty()
                            && s.played_by(1).is_empty()
                        {
                            in_play = s.hand(0) | s.hand(1);
                        }
                        if s.phase() == Phase::Play
                            && s.played_by(0).len() + s.played_by(1).len() == 17
                        {
                            // The last card is about to be played: check the deal's totals then.
                            let mut t = s.clone();
                            let a = t.legal_actions().iter().next().expect("a card");
                            t.apply(a).expect("legal");
                            let d = t.last_deal().expect("scored");
                            let trump = s.trump().expect("trump");
                            // In a match the next deal has begun: take the sequences
                            // and Bella from before the last card (which may add a Bella).
                            let seq: u32 = s.sequence_points().iter().sum();
                            let bella = 20 * s.bella().iter().filter(|&&b| b).count() as u32;
                            let rest =
                                d.totals[0] + d.totals[1] - card_value(trump, in_play) - 10 - seq;
                            assert!(rest == bella || rest == bella + 20, "{rest} {bella}");
                        }
                    });
                    let r = end.returns();
                    assert_eq!(r[0] + r[1], 0.0, "{opts:?}");
                    if scope == "match" {
                        let sc = end.scores();
                        assert!(sc.iter().any(|&x| x >= 150), "{opts:?}");
                        match end.winner() {
                            Some(w) => assert!(sc[w] > sc[1 - w] && r[w] == 1.0),
                            None => assert!(end.is_draw() && sc[0] == sc[1]),
                        }
                    }
                    games += 1;
                }
            }
        }
    }
    assert_eq!(games, 2 * 3 * 16 * 2);
}

/// The named slices cover the observation exactly, in order, and every value written in
/// random games (both scopes, both maker tie rules) lies within its slice's bounds.
#[test]
fn the_observation_layout_covers_the_observation_and_bounds_every_value() {
    let mut sets: Vec<&[(&str, &str)]> = OPTION_SETS.to_vec();
    sets.push(&[("scope", "deal"), ("maker_tie_rule", "hang")]);
    sets.push(&[("scope", "match"), ("target_score", "300")]);
    for opts in sets {
        let g = game(opts);
        let layout = g.observation_layout();
        let mut next = 0;
        for slice in &layout {
            assert_eq!(slice.offset, next, "{} is not contiguous", slice.name);
            assert!(slice.low < slice.high, "{opts:?}: {}", slice.name);
            next += slice.len();
        }
        assert_eq!(next, g.observation_len());
        assert_eq!(next, cardhouse::games::klaberjass::layout::TOTAL);
        for seed in 0..12 {
            play(g, seed, |s, _| {
                for seat in 0..2 {
                    let obs = s.observation(seat).expect("obs");
                    for slice in &layout {
                        for (k, &x) in obs[slice.offset..slice.offset + slice.len()]
                            .iter()
                            .enumerate()
                        {
                            assert!(
                                slice.low <= x && x <= slice.high,
                                "{opts:?}: {}[{k}] = {x} outside {}..={}\n{s}",
                                slice.name,
                                slice.low,
                                slice.high
                            );
                        }
                    }
                }
            });
        }
    }
    let names: Vec<&str> = KlaberjassGame::default()
        .observation_layout()
        .iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names.first(), Some(&"hand"));
    assert_eq!(names.last(), Some(&"held_over"));
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

/// `scope = deal` never takes more player actions than `max_game_length` (32); a match has
/// no bound.
#[test]
fn deals_stay_within_max_game_length() {
    assert_eq!(KlaberjassGame::default().max_game_length(), None);
    let mut longest = 0;
    for opts in OPTION_SETS.iter().take(3) {
        let g = game(opts);
        let max = g.max_game_length().expect("a deal is bounded");
        assert_eq!(max, 32);
        for seed in 0..300 {
            let mut actions = 0;
            play(g, seed, |s, _| {
                if s.current_player().seat().is_some() {
                    actions += 1;
                }
            });
            assert!(actions <= max, "{actions} player actions > {max}");
            longest = longest.max(actions);
        }
    }
    assert!(longest >= 24, "random deals reach {longest} actions");
}
