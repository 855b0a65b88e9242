//! Cribbage invariants over random playouts for 2, 3 and 4 players: cards are conserved, the
//! fast hand scorer equals the reference enumeration, every deal's points are its heels,
//! pegging and show recomputed from the card lists, hidden information (other hands, every
//! discard, the blind crib card, the stock, the starter before the cut) never reaches a
//! seat's observation, view or events, and `resample` keeps the seat's knowledge and the go
//! inferences.

use cardhouse::games::cribbage::{
    CribbageGame, CribbageState, GO, Phase, action_card, card_action, card_value, score_hand,
    score_hand_reference,
};
use cardhouse::{Card, CardSet, Game, Options, Pack, Rng, SeededRng, State, Viewer};

fn game(pairs: &[(&str, &str)]) -> CribbageGame {
    let opts: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), (*v).into()))
        .collect();
    CribbageGame::from_options(&opts).expect("valid options")
}

const OPTION_SETS: &[&[(&str, &str)]] = &[
    &[("players", "2")],
    &[("players", "3")],
    &[("players", "4")],
    &[("players", "3"), ("new_series_leader", "after_last_player")],
    &[("players", "4"), ("new_series_leader", "after_last_player")],
    &[("players", "2"), ("scope", "deal")],
    &[("players", "3"), ("scope", "deal"), ("first_dealer", "2")],
    &[("players", "4"), ("scope", "deal"), ("first_dealer", "1")],
];

/// Plays one random game, calling `f` on every state (before each action and at the end).
fn play(
    g: CribbageGame,
    seed: u64,
    mut f: impl FnMut(&CribbageState, &mut SeededRng),
) -> CribbageState {
    let mut rng = SeededRng::new(seed);
    let mut s = g.new_initial_state();
    while !s.is_terminal() {
        f(&s, &mut rng);
        let a = s.legal_actions().choose(&mut rng).expect("legal action");
        s.apply(a).expect("legal");
    }
    f(&s, &mut rng);
    s
}

#[test]
fn the_fast_scorer_equals_the_reference_enumeration() {
    let mut rng = SeededRng::new(5);
    let pack: Vec<Card> = Pack::Full52.cards().iter().collect();
    for i in 0..10_000 {
        let mut cards = pack.clone();
        for k in 0..5 {
            let j = k + rng.below((52 - k) as u64) as usize;
            cards.swap(k, j);
        }
        let hand = [cards[0], cards[1], cards[2], cards[3]];
        let crib = i % 2 == 0;
        assert_eq!(
            score_hand(hand, cards[4], crib),
            score_hand_reference(hand, cards[4], crib),
            "{hand:?} {}",
            cards[4]
        );
    }
    // Every hand of one suit (flushes) and every rank pattern of low cards.
    let spades: Vec<Card> = pack
        .iter()
        .copied()
        .filter(|c| c.suit_index() == 3)
        .collect();
    for a in 0..13 {
        for b in a + 1..13 {
            for c in b + 1..13 {
                for d in c + 1..13 {
                    let hand = [spades[a], spades[b], spades[c], spades[d]];
                    for &st in &pack[..26] {
                        if hand.contains(&st) {
                            continue;
                        }
                        for crib in [false, true] {
                            assert_eq!(
                                score_hand(hand, st, crib),
                                score_hand_reference(hand, st, crib)
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn cards_are_conserved_and_each_deal_is_worth_its_pegging_plus_its_show() {
    for opts in OPTION_SETS {
        for seed in 0..12 {
            let g = game(opts);
            let n = g.num_players();
            let mut deals = 0;
            let mut last_seen: Option<(u16, [u32; 3])> = None;
            play(g, seed, |s, _| {
                let mut seen = CardSet::EMPTY;
                let mut count = 0;
                for p in 0..n {
                    for set in [s.hand(p), s.discards(p), s.laid(p)] {
                        assert!((seen & set).is_empty(), "a card in two places");
                        seen |= set;
                        count += set.len();
                    }
                    assert_eq!(s.hand(p) | s.discards(p) | s.laid(p), s.dealt_hand(p));
                }
                let blind = s.crib() - (0..n).fold(CardSet::EMPTY, |a, p| a | s.discards(p));
                assert!((seen & blind).is_empty());
                count += blind.len();
                if let Some(st) = s.starter() {
                    assert!(!seen.contains(st) && !blind.contains(st));
                }
                if s.phase() == Phase::Play {
                    assert_eq!(count, n * if n == 2 { 6 } else { 5 } + usize::from(n == 3));
                    assert_eq!(s.crib().len(), 4);
                    assert!(s.count() <= 31);
                }
                if let Some(d) = s.last_deal() {
                    let key = (d.show[0].total as u16, d.points);
                    if last_seen != Some(key) {
                        last_seen = Some(key);
                        deals += 1;
                        // Recompute the show from the card lists.
                        let sides = if n == 3 { 3 } else { 2 };
                        let mut show = [0u32; 3];
                        for k in 0..n {
                            let seat = (usize::from(d.dealer) + 1 + k) % n;
                            let h: Vec<Card> = d.hands[seat].iter().collect();
                            let sc =
                                score_hand_reference([h[0], h[1], h[2], h[3]], d.starter, false);
                            assert_eq!(sc, d.show[k]);
                            show[if n == 4 { seat & 1 } else { seat }] += u32::from(sc.total);
                        }
                        let k: Vec<Card> = d.crib.iter().collect();
                        let crib = score_hand_reference([k[0], k[1], k[2], k[3]], d.starter, true);
                        assert_eq!(crib, d.show[n]);
                        let dealer = usize::from(d.dealer);
                        show[if n == 4 { dealer & 1 } else { dealer }] += u32::from(crib.total);
                        let heels = if d.starter.rank() == cardhouse::Rank::Jack {
                            2
                        } else {
                            0
                        };
                        show[if n == 4 { dealer & 1 } else { dealer }] += heels;
                        for (side, &shown) in show.iter().enumerate().take(sides) {
                            assert_eq!(
                                d.points[side],
                                d.pegging[side] + shown,
                                "heels + pegging + show"
                            );
                        }
                    }
                }
            });
            let _ = deals;
        }
    }
}

/// Pegging recomputed from the public play record equals the engine's pegging points.
#[test]
fn pegging_recomputed_from_the_play_record_matches() {
    for opts in OPTION_SETS {
        for seed in 0..10 {
            let g = game(opts);
            play(g, 100 + seed, |s, _| {
                if s.phase() != Phase::Play && !s.is_terminal() {
                    return;
                }
                let mut pts = [0u32; 3];
                let mut count = 0u8;
                let mut series: Vec<u8> = Vec::new();
                let mut last = 0usize;
                let n = s.game().num_players();
                let side = |p: usize| if n == 4 { p & 1 } else { p };
                let plays: Vec<(usize, Option<Card>)> = s.plays().collect();
                let mut gone = 0u8;
                let mut held: Vec<usize> = (0..n)
                    .map(|p| s.dealt_hand(p).len() - s.discards(p).len())
                    .collect();
                for &(p, card) in &plays {
                    match card {
                        Some(c) => {
                            count += card_value(c);
                            series.push(((c.rank_index() + 1) % 13) as u8);
                            held[p] -= 1;
                            last = p;
                            let mut x = u32::from(
                                cardhouse::games::cribbage::play::pegging_points(&series, count),
                            );
                            let out = held.iter().all(|&h| h == 0);
                            if out && count != 31 {
                                x += 1;
                            }
                            pts[side(p)] += x;
                            if count == 31 {
                                count = 0;
                                series.clear();
                                gone = 0;
                            }
                        }
                        None => gone |= 1 << p,
                    }
                    // A series ended by go: nobody holding cards is left without a go.
                    let active = (0..n).any(|q| held[q] > 0 && gone >> q & 1 == 0);
                    if !active && held.iter().any(|&h| h > 0) && !series.is_empty() {
                        pts[side(last)] += 1;
                        count = 0;
                        series.clear();
                        gone = 0;
                    }
                }
                assert_eq!(&pts[..s.peg_points().len()], s.peg_points(), "{s}");
            });
        }
    }
}

/// Rebuilds `s` with the cards `a` and `b` swapped in every chance outcome and action of the
/// current deal (earlier deals and the first-dealer draw unchanged). `None` if an action becomes illegal.
fn with_swapped(s: &CribbageState, a: Card, b: Card) -> Option<CribbageState> {
    let swap = |x: u32| match action_card(x) {
        Some(c) if c == a => card_action(b),
        Some(c) if c == b => card_action(a),
        _ => x,
    };
    let mut t = s.game().new_initial_state();
    for x in s.history() {
        let current = t.deal_number() == s.deal_number() && t.phase() != Phase::FirstDealer;
        let y = if current { swap(x) } else { x };
        t.apply(y).ok()?;
    }
    Some(t)
}

fn json(s: &CribbageState, v: Viewer) -> serde_json::Value {
    serde_json::to_value(s.view(v).expect("view")).expect("json")
}

/// Cards `viewer` cannot see: other seats' hands and discards, the blind card, the stock.
fn hidden_from(s: &CribbageState, viewer: usize) -> CardSet {
    let n = s.game().num_players();
    let mut visible = s.dealt_hand(viewer);
    for p in 0..n {
        visible |= s.laid(p);
    }
    if let Some(st) = s.starter() {
        visible.insert(st);
    }
    if s.shown() > n {
        visible |= s.crib();
    }
    Pack::Full52.cards() - visible
}

/// Two states that differ only in cards a seat cannot see give that seat the same
/// observation, view and event texts; the same holds for the spectator.
#[test]
fn no_hidden_information_reaches_a_seat() {
    let mut compared = 0;
    for opts in OPTION_SETS {
        for seed in 0..8 {
            let g = game(opts);
            let n = g.num_players();
            play(g, seed, |s, rng| {
                if s.is_terminal() || s.phase() == Phase::FirstDealer || rng.below(3) != 0 {
                    return;
                }
                let viewer = rng.below(n as u64) as usize;
                let hidden = hidden_from(s, viewer);
                if hidden.len() < 2 {
                    return;
                }
                let a = hidden
                    .nth(rng.below(hidden.len() as u64) as usize)
                    .expect("card");
                let b = hidden
                    .nth(rng.below(hidden.len() as u64) as usize)
                    .expect("card");
                if a == b {
                    return;
                }
                let Some(t) = with_swapped(s, a, b) else {
                    return;
                };
                if (0..n).any(|p| t.hand(p) != s.hand(p)) || t.crib() != s.crib() {
                    // The swap moved a card between holders, as intended (or between stock
                    // cards only: still a valid comparison).
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
                assert_eq!(
                    json(&t, Viewer::Seat(viewer)),
                    json(s, Viewer::Seat(viewer)),
                    "view leaks (swapped {a} and {b})"
                );
                assert_eq!(
                    t.observation_string(viewer).expect("text"),
                    s.observation_string(viewer).expect("text"),
                    "observation_string of seat {viewer} leaks (swapped {a} and {b})"
                );
                assert_eq!(json(&t, Viewer::Spectator), json(s, Viewer::Spectator));
                // Events: the viewer's text of every action legal in both.
                if !s.is_chance_node() {
                    for x in s.legal_actions().iter() {
                        if t.legal_actions().contains(x) {
                            let v = Viewer::Seat(viewer);
                            assert_eq!(s.action_to_string_for(v, x), t.action_to_string_for(v, x));
                        }
                    }
                }
                assert_eq!(s.public_move_number(), t.public_move_number());
                compared += 1;
            });
        }
    }
    assert!(compared > 200, "only {compared} comparisons were made");
}

/// Dealing: a seat learns its own cards; of other seats and of the blind card only that a
/// card was dealt. The starter is public.
#[test]
fn deal_events_hide_other_seats_cards_and_the_blind_card() {
    let g = game(&[("players", "3"), ("first_dealer", "0")]);
    let mut s = g.new_initial_state();
    let mut rng = SeededRng::new(3);
    while s.is_chance_node() {
        let a = s.legal_actions().choose(&mut rng).expect("outcome");
        let card = action_card(a).expect("card").to_string();
        let to = s.action_to_string(a);
        let target: Option<usize> = to.rsplit(' ').next().and_then(|x| x.parse().ok());
        for v in 0..3 {
            let seen = s.action_to_string_for(Viewer::Seat(v), a).expect("event");
            assert_eq!(seen.contains(&card), target == Some(v), "{seen}");
        }
        assert!(
            !s.action_to_string_for(Viewer::Spectator, a)
                .expect("event")
                .contains(&card)
        );
        s.apply(a).expect("outcome");
    }
    assert_eq!(s.crib().len(), 1, "the blind card");
    while s.phase() == Phase::Discard {
        let a = s.legal_actions().choose(&mut rng).expect("discard");
        s.apply(a).expect("legal");
    }
    let a = s.legal_actions().choose(&mut rng).expect("starter");
    let card = action_card(a).expect("card").to_string();
    for v in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
        assert!(s.action_to_string_for(v, a).expect("event").contains(&card));
    }
}

/// The go calls of the current deal as (seat, count when said).
fn go_calls(s: &CribbageState) -> Vec<(usize, u8)> {
    let mut t = s.game().new_initial_state();
    let mut out = Vec::new();
    let h = s.history();
    let start = h.len() - s.plays().count();
    for (i, &x) in h.iter().enumerate() {
        if i >= start && x == GO {
            out.push((t.current_player().seat().expect("seat"), t.count()));
        }
        t.apply(x).expect("replays");
    }
    out
}

#[test]
fn resample_keeps_the_seats_knowledge_and_the_go_inferences() {
    let mut checked = 0;
    let mut with_go = 0;
    for opts in OPTION_SETS {
        for seed in 0..5 {
            let g = game(opts);
            play(g, seed, |s, rng| {
                if rng.below(5) != 0 {
                    return;
                }
                let n = s.game().num_players();
                let seat = rng.below(n as u64) as usize;
                let r = s
                    .resample(seat, rng)
                    .expect("a consistent state exists: the true one");
                assert_eq!(
                    r.observation(seat).expect("o"),
                    s.observation(seat).expect("o")
                );
                assert_eq!(json(&r, Viewer::Seat(seat)), json(s, Viewer::Seat(seat)));
                assert_eq!(r.hand(seat), s.hand(seat));
                assert_eq!(
                    r.discards(seat),
                    s.discards(seat),
                    "the seat's own discards"
                );
                assert_eq!(r.starter(), s.starter());
                for p in 0..n {
                    assert_eq!(r.laid(p), s.laid(p), "cards laid are public");
                }
                let calls = go_calls(s);
                assert_eq!(go_calls(&r), calls);
                for (p, count) in calls {
                    if p != seat {
                        with_go += 1;
                    }
                    // The go caller held no card that fitted: none he still holds does.
                    for c in r.hand(p).iter() {
                        assert!(
                            card_value(c) + count > 31,
                            "seat {p} said go at {count} with {c}"
                        );
                    }
                }
                let again = cardhouse::game::replay(r.game(), &r.history()).expect("replays");
                assert_eq!(again.hand(seat), r.hand(seat));
                assert_eq!(r.current_player(), s.current_player());
                checked += 1;
            });
        }
    }
    assert!(checked > 100, "{checked}");
    assert!(with_go > 10, "{with_go}");
}

#[test]
fn resample_actually_varies_the_hidden_cards() {
    let g = game(&[("scope", "deal"), ("first_dealer", "0")]);
    let mut rng = SeededRng::new(8);
    let mut s = g.new_initial_state();
    s.resolve_chance(&mut rng);
    let mut distinct = std::collections::HashSet::new();
    for _ in 0..20 {
        let r = s.resample(0, &mut rng).expect("resample");
        distinct.insert(r.hand(1).bits());
        assert_eq!(r.hand(0), s.hand(0));
    }
    assert!(
        distinct.len() > 10,
        "resample does not vary the other hands"
    );
    let _ = rng.next_u64();
}

/// The named slices cover the observation exactly, in order, and every value written in
/// random games (2, 3 and 4 players, both scopes, small and default targets) lies within its
/// slice's bounds.
#[test]
fn the_observation_layout_covers_the_observation_and_bounds_every_value() {
    let mut sets: Vec<&[(&str, &str)]> = OPTION_SETS.to_vec();
    sets.push(&[("players", "2"), ("target_score", "5")]);
    sets.push(&[("players", "4"), ("target_score", "1")]);
    sets.push(&[("players", "2"), ("scope", "deal"), ("target_score", "1")]);
    for opts in sets {
        let g = game(opts);
        let layout = g.observation_layout();
        let mut next = 0;
        for slice in &layout {
            assert_eq!(slice.offset, next, "{} is not contiguous", slice.name);
            assert!(slice.low <= slice.high, "{}", slice.name);
            next += slice.len();
        }
        assert_eq!(next, g.observation_len());
        assert_eq!(next, cardhouse::games::cribbage::layout::TOTAL);
        for seed in 0..4 {
            play(g, seed, |s, _| {
                for seat in 0..g.num_players() {
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
    let names: Vec<&str> = CribbageGame::default()
        .observation_layout()
        .iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names.first(), Some(&"hand"));
    assert_eq!(names.last(), Some(&"deal_points"));
}

/// `observation_string` shows only what the seat knows: states resampled for that seat
/// (other hands, discards, the blind card, the stock) give the same text.
#[test]
fn observation_string_ignores_what_the_seat_cannot_see() {
    let mut varied = 0;
    for opts in OPTION_SETS.iter().skip(5) {
        for seed in 0..6 {
            play(game(opts), seed, |s, rng| {
                if rng.below(2) != 0 {
                    return;
                }
                for seat in 0..s.game().num_players() {
                    let text = s.observation_string(seat).expect("text");
                    for _ in 0..3 {
                        let r = s.resample(seat, rng).expect("resample");
                        assert_eq!(
                            r.observation_string(seat).expect("text"),
                            text,
                            "observation_string of seat {seat} leaks\n{s}\n{r}"
                        );
                        if (0..s.game().num_players()).any(|p| r.hand(p) != s.hand(p))
                            || r.crib() != s.crib()
                        {
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
    let g = game(&[("players", "2"), ("scope", "deal"), ("first_dealer", "0")]);
    let mut s = g.new_initial_state();
    s.resolve_chance(&mut SeededRng::new(4));
    let text = s.observation_string(1).expect("text");
    for c in s.hand(1).iter() {
        assert!(text.contains(&c.to_string()), "{c} missing from\n{text}");
    }
    assert!(text.contains("to act: you; legal: discard"), "{text}");
    assert!(s.observation_string(2).is_err());
}

/// `scope = deal` never takes more player actions than `max_game_length` (16, 27 and 40
/// for 2, 3 and 4 players); a match has `None`.
#[test]
fn deals_stay_within_max_game_length() {
    assert_eq!(CribbageGame::default().max_game_length(), None);
    for (players, bound) in [("2", 16), ("3", 27), ("4", 40)] {
        for leader in ["first_go_caller", "after_last_player"] {
            let g = game(&[
                ("players", players),
                ("scope", "deal"),
                ("new_series_leader", leader),
            ]);
            assert_eq!(g.max_game_length(), Some(bound));
            for seed in 0..300 {
                let mut actions = 0;
                play(g, seed, |s, _| {
                    if s.current_player().seat().is_some() {
                        actions += 1;
                    }
                });
                assert!(actions <= bound, "{players} players: {actions} > {bound}");
            }
        }
    }
}
