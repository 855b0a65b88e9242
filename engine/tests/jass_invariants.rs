//! Jass invariants over random playouts: cards are conserved, every deal is worth 157 card
//! points with the last trick, hidden information never reaches a seat's observation, view
//! or events, and `resample` keeps the seat's knowledge and the voids play has shown.

use cardhouse::games::jass::{JassGame, JassState, Mode, Phase, action_card, card_action};
use cardhouse::{Card, CardSet, Game, Options, Pack, Player, Rng, SeededRng, State, Suit, Viewer};

fn game(pairs: &[(&str, &str)]) -> JassGame {
    let opts: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), (*v).into()))
        .collect();
    JassGame::from_options(&opts).expect("valid options")
}

const OPTION_SETS: &[&[(&str, &str)]] = &[
    &[("scope", "deal")],
    &[("scope", "deal"), ("wys", "auto")],
    &[
        ("scope", "deal"),
        ("undenufe_six_is_eleven", "true"),
        ("undertrump_rule", "allowed_if_cannot_overtrump"),
    ],
    &[
        ("scope", "deal"),
        ("stoeck_suits", "any_suit"),
        ("four_banners_wys", "true"),
        ("long_sequence_values", "escalating"),
    ],
    &[
        ("scope", "deal"),
        ("schieben_back", "true"),
        ("first_forehand", "roses_seven"),
        ("first_dealer", "2"),
    ],
];

/// Plays one random game, calling `f` on every state (before each action and at the end).
fn play(g: JassGame, seed: u64, mut f: impl FnMut(&JassState, &mut SeededRng)) -> JassState {
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
fn cards_are_conserved_at_every_step() {
    for opts in OPTION_SETS {
        for seed in 0..20 {
            play(game(opts), seed, |s, _| {
                let v = s.view(Viewer::Omniscient).expect("view");
                let mut seen = CardSet::EMPTY;
                let mut count = 0;
                for p in 0..4 {
                    let h = s.hand(p);
                    assert!((seen & h).is_empty(), "a card in two hands");
                    seen |= h;
                    count += h.len();
                }
                let played: usize = v.tricks.len() * 4 + v.trick.len();
                if s.phase() != Phase::Deal {
                    assert_eq!(count + played, 36, "cards are lost or created");
                }
                assert!(Pack::Swiss36.cards().is_superset(seen));
            });
        }
    }
}

/// Cards in the omniscient view: every hand, the completed tricks and the current trick.
fn view_card_count(s: &JassState) -> usize {
    let v = s.view(Viewer::Omniscient).expect("view");
    (0..4).map(|p| s.hand(p).len()).sum::<usize>() + v.tricks.len() * 4 + v.trick.len()
}

#[test]
fn an_immediate_end_in_the_middle_of_a_trick_keeps_its_cards_in_the_view() {
    // §16 `end_check = immediate`: a Stöck can end the game with cards already laid to an
    // unfinished trick; they stay public as the current trick (view and observation).
    let mut mid_trick = 0;
    for seed in 0..400 {
        let g = game(&[
            ("end_check", "immediate"),
            ("target_score", "20"),
            ("stoeck_suits", "any_suit"),
        ]);
        let s = play(g, seed, |_, _| {});
        assert_eq!(
            view_card_count(&s),
            36,
            "seed {seed}: cards vanished from the view"
        );
        let v = s.view(Viewer::Spectator).expect("view");
        if !v.trick.is_empty() {
            mid_trick += 1;
            let obs = s.observation(0).expect("observation");
            let in_trick: f32 = obs
                [cardhouse::games::jass::layout::TRICK..cardhouse::games::jass::layout::PLAYED]
                .iter()
                .sum();
            assert_eq!(in_trick as usize, v.trick.len(), "seed {seed}: observation");
        }
    }
    assert!(mid_trick > 0, "no game ended in the middle of a trick");
}

#[test]
fn every_deal_is_worth_157_with_the_last_trick_in_every_mode() {
    let mut modes_seen = std::collections::HashSet::new();
    for opts in OPTION_SETS {
        for seed in 0..60 {
            let end = play(game(opts), seed, |_, _| {});
            let cp = end.card_points();
            assert_eq!(cp[0] + cp[1], 152, "card points of a deal");
            let d = end.last_deal().expect("deal result");
            let stoeck: u32 = (0..4).map(|p| u32::from(end.stoeck_scored(p))).sum();
            let wys: u32 = end.wys_points().iter().sum();
            let won = end.tricks_won();
            let match_bonus = if won.contains(&9) { 100 } else { 0 };
            assert_eq!(d.raw[0] + d.raw[1], 157 + wys + 20 * stoeck + match_bonus);
            let m = end.game().multiplier(d.mode);
            assert_eq!(d.scored, [d.raw[0] * m, d.raw[1] * m]);
            // The breakdown per team: its five sources make the raw points.
            assert_eq!(d.multiplier, m);
            assert_eq!(d.cards, cp);
            assert_eq!(d.wys, end.wys_points());
            for (t, &tricks) in won.iter().enumerate() {
                let team_stoeck = u32::from(end.stoeck_scored(t) + end.stoeck_scored(t + 2));
                assert_eq!(d.stoeck[t], 20 * team_stoeck);
                assert_eq!(d.match_bonus[t], if tricks == 9 { 100 } else { 0 });
                let parts = d.cards[t] + d.wys[t] + d.stoeck[t] + d.last_trick[t];
                assert_eq!(parts + d.match_bonus[t], d.raw[t]);
            }
            assert_eq!(d.last_trick[0] + d.last_trick[1], 5);
            modes_seen.insert(format!("{:?}", d.mode));
        }
    }
    assert_eq!(
        modes_seen.len(),
        6,
        "random play reached every mode: {modes_seen:?}"
    );
}

/// Rebuilds `s` with the cards `a` and `b` swapped in the deal, replaying the same actions.
/// `None` if the swapped deal makes some action illegal (then it is not an alternative).
fn with_swapped(s: &JassState, a: Card, b: Card) -> Option<JassState> {
    let swap = |x: u32| match action_card(x) {
        Some(c) if c == a => card_action(b),
        Some(c) if c == b => card_action(a),
        _ => x,
    };
    let mut t = s.game().new_initial_state();
    let mut dealing = true;
    for x in s.history() {
        dealing = t.is_chance_node();
        t.apply(if dealing { swap(x) } else { x }).ok()?;
    }
    let _ = dealing;
    Some(t)
}

/// Two states that differ only in cards a seat cannot see give that seat the same
/// observation, view and event texts; the same holds for the spectator.
#[test]
fn no_hidden_information_reaches_a_seat() {
    let mut compared = 0;
    for opts in OPTION_SETS {
        for seed in 0..12 {
            play(game(opts), seed, |s, rng| {
                if s.is_terminal() || rng.below(4) != 0 {
                    return;
                }
                let viewer = rng.below(4) as usize;
                // Two unplayed cards held by two other seats (or undealt), not revealed.
                let others: Vec<usize> = (0..4).filter(|&p| p != viewer).collect();
                let p = others[rng.below(3) as usize];
                let q = others[rng.below(3) as usize];
                let hidden_p = s.hand(p) - s.revealed_wys();
                let hidden_q = s.hand(q) - s.revealed_wys();
                if p == q || hidden_p.is_empty() || hidden_q.is_empty() {
                    return;
                }
                let a = hidden_p
                    .nth(rng.below(hidden_p.len() as u64) as usize)
                    .expect("card");
                let b = hidden_q
                    .nth(rng.below(hidden_q.len() as u64) as usize)
                    .expect("card");
                let Some(t) = with_swapped(s, a, b) else {
                    return;
                };
                if t.announcements() != s.announcements()
                    || t.revealed_wys() != s.revealed_wys()
                    || t.forehand() != s.forehand()
                {
                    // Auto Wys made a different public announcement or showed other Wys, or
                    // the Roses 7 (which names the first forehand) moved: a different public
                    // history, not a hidden difference.
                    return;
                }
                assert_ne!(t.hand(p), s.hand(p));
                let (ot, os) = (
                    t.observation(viewer).expect("obs"),
                    s.observation(viewer).expect("obs"),
                );
                let diff: Vec<usize> = (0..ot.len()).filter(|&i| ot[i] != os[i]).collect();
                assert!(
                    diff.is_empty(),
                    "observation of seat {viewer} leaks at {diff:?} (swapped {a} of seat {p} and {b} of seat {q})\n{s}\n{t}"
                );
                assert_eq!(
                    t.observation_string(viewer).expect("text"),
                    s.observation_string(viewer).expect("text"),
                    "observation_string of seat {viewer} leaks"
                );
                let view = |st: &JassState, v| {
                    serde_json::to_value(st.view(v).expect("view")).expect("json")
                };
                assert_eq!(
                    view(&t, Viewer::Seat(viewer)),
                    view(s, Viewer::Seat(viewer)),
                    "view leaks"
                );
                assert_eq!(
                    view(&t, Viewer::Spectator),
                    view(s, Viewer::Spectator),
                    "spectator view leaks"
                );
                // Events: what the viewer learns of the next action (same action on both).
                if let Some(x) = s
                    .legal_actions()
                    .iter()
                    .find(|&x| t.legal_actions().contains(x))
                {
                    assert_eq!(
                        s.action_to_string_for(Viewer::Seat(viewer), x)
                            .filter(|_| !s.is_chance_node()),
                        t.action_to_string_for(Viewer::Seat(viewer), x)
                            .filter(|_| !t.is_chance_node())
                    );
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

/// Dealing: the viewer learns its own cards, and of other seats only that a card was dealt.
#[test]
fn deal_events_hide_other_seats_cards() {
    let g = game(&[("scope", "deal")]);
    let mut s = g.new_initial_state();
    let mut rng = SeededRng::new(3);
    while s.is_chance_node() {
        let a = s.legal_actions().choose(&mut rng).expect("outcome");
        let to = s.action_to_string(a);
        let seat: usize = to
            .rsplit(' ')
            .next()
            .and_then(|x| x.parse().ok())
            .expect("deal text names the seat");
        for v in 0..4 {
            let seen = s
                .action_to_string_for(Viewer::Seat(v), a)
                .expect("deals are public events");
            let card = action_card(a).expect("card").swiss();
            assert_eq!(seen.contains(&card), v == seat, "{seen}");
        }
        assert!(
            !s.action_to_string_for(Viewer::Spectator, a)
                .expect("event")
                .contains(&action_card(a).expect("card").swiss())
        );
        s.apply(a).expect("outcome");
    }
}

/// Suits a seat has shown it cannot hold (failing to follow with a plain card).
fn shown_voids(s: &JassState) -> [Vec<Suit>; 4] {
    let v = s.view(Viewer::Spectator).expect("view");
    let mut out: [Vec<Suit>; 4] = Default::default();
    let trump = match s.mode() {
        Some(Mode::Trump(t)) => Some(t),
        _ => None,
    };
    let all = v
        .tricks
        .iter()
        .map(|t| t.cards.clone())
        .chain(std::iter::once(v.trick.clone()));
    for cards in all {
        let Some(lead) = cards.first() else { continue };
        let led = Card::parse(&lead.card).expect("card").suit();
        for p in &cards[1..] {
            let suit = Card::parse(&p.card).expect("card").suit();
            if suit != led && Some(suit) != trump && Some(led) != trump {
                out[p.seat].push(led);
            }
        }
    }
    out
}

#[test]
fn resample_keeps_the_seats_knowledge_and_shown_voids() {
    let mut checked = 0;
    for opts in OPTION_SETS {
        for seed in 0..6 {
            play(game(opts), seed, |s, rng| {
                if rng.below(6) != 0 {
                    return;
                }
                let seat = rng.below(4) as usize;
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
                let voids = shown_voids(s);
                for (p, suits) in voids.iter().enumerate() {
                    for &suit in suits {
                        assert!(
                            r.hand(p).of_suit(suit).is_empty(),
                            "seat {p} showed a void in {suit:?}"
                        );
                    }
                    assert!(
                        r.hand(p).is_superset(s.revealed_wys() & s.hand(p)),
                        "revealed Wys cards stay"
                    );
                }
                // The resampled state is a real state: its history replays.
                let again = cardhouse::game::replay(r.game(), &r.history()).expect("replays");
                assert_eq!(again.hand(seat), r.hand(seat));
                if !s.is_chance_node() && s.phase() != Phase::Over {
                    assert_eq!(r.current_player(), s.current_player());
                }
                checked += 1;
            });
        }
    }
    assert!(checked > 50);
    let _ = Player::Chance;
}

#[test]
fn resample_actually_varies_the_hidden_cards() {
    let g = game(&[("scope", "deal")]);
    let mut rng = SeededRng::new(8);
    let mut s = g.new_initial_state();
    s.resolve_chance(&mut rng);
    let mut distinct = std::collections::HashSet::new();
    for _ in 0..20 {
        let r = s.resample(0, &mut rng).expect("resample");
        distinct.insert(r.hand(1).bits());
    }
    assert!(
        distinct.len() > 10,
        "resample does not vary the other hands"
    );
}

#[test]
fn the_observation_has_518_values_as_documented() {
    use cardhouse::games::jass::layout;
    assert_eq!(layout::TOTAL, 518);
    assert_eq!(JassGame::default().observation_shape(), vec![518]);
    let names: Vec<&str> = JassGame::default()
        .observation_layout()
        .iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names.first(), Some(&"hand"));
    assert_eq!(names.last(), Some(&"scores"));
}

#[test]
fn the_card_planes_hold_each_card_at_its_relative_seat() {
    // The observation's hand, trick and played planes (layout: relative seat 0 = the
    // observer) against the omniscient view, for every seat at every step.
    use cardhouse::games::jass::layout::{HAND, PLAYED, TRICK};
    for opts in OPTION_SETS {
        for seed in 0..8 {
            play(game(opts), seed, |s, _| {
                let v = s.view(Viewer::Omniscient).expect("view");
                for seat in 0..4 {
                    let obs = s.observation(seat).expect("observation");
                    // The cards of the 36-slot plane at `offset`, in Swiss notation by id.
                    let plane = |offset: usize| -> Vec<String> {
                        (0..36)
                            .filter(|&id| {
                                let x = obs[offset + id];
                                assert!(x == 0.0 || x == 1.0, "slot {} holds {x}", offset + id);
                                x == 1.0
                            })
                            .map(|id| action_card(id as u32).expect("card id").swiss())
                            .collect()
                    };
                    let by_id = |cards: Vec<String>| -> Vec<String> {
                        (0..36)
                            .map(|id| action_card(id).expect("card id").swiss())
                            .filter(|c| cards.contains(c))
                            .collect()
                    };
                    let hand: Vec<String> = s.hand(seat).iter().map(|c| c.swiss()).collect();
                    assert_eq!(plane(HAND), by_id(hand), "hand of seat {seat}");
                    for rel in 0..4 {
                        let who = (seat + rel) % 4;
                        let laid = |cards: &[cardhouse::games::jass::PlayView]| -> Vec<String> {
                            cards
                                .iter()
                                .filter(|p| p.seat == who)
                                .map(|p| p.card.clone())
                                .collect()
                        };
                        let trick = laid(&v.trick);
                        assert_eq!(
                            plane(TRICK + 36 * rel),
                            by_id(trick.clone()),
                            "trick, {rel}"
                        );
                        let mut played = trick;
                        for t in &v.tricks {
                            played.extend(laid(&t.cards));
                        }
                        assert_eq!(plane(PLAYED + 36 * rel), by_id(played), "played, {rel}");
                    }
                }
            });
        }
    }
}
