//! Avinas invariants over random playouts: cards are conserved, a complete play is worth 120
//! card points (less after an early stop or a stopped all-tricks game), hidden information
//! (other hands, the dealer's view of his partner's face-down cards, a face-down lead) never
//! reaches a seat's observation, view or events, and `resample` keeps everything the seat
//! knows.

use cardhouse::games::avinas::{AvinasGame, AvinasState, Kind, Phase, action_card, card_action};
use cardhouse::{Card, CardSet, Game, Options, Pack, Rank, Rng, SeededRng, State, Suit, Viewer};

fn game(pairs: &[(&str, &str)]) -> AvinasGame {
    let opts: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), (*v).into()))
        .collect();
    AvinasGame::from_options(&opts).expect("valid options")
}

const OPTION_SETS: &[&[(&str, &str)]] = &[
    &[("scope", "deal")],
    &[("scope", "deal"), ("early_stop_allowed", "false")],
    &[
        ("scope", "deal"),
        ("early_stop_in_sevens_game", "true"),
        ("all_tricks_loss_rams", "double_base"),
        ("schwarz_basis", "tricks"),
    ],
    &[
        ("pip_limit", "4"),
        ("cat_rule", "false"),
        ("first_dealer", "2"),
    ],
];

/// Plays one random game, calling `f` on every state (before each action and at the end).
fn play(g: AvinasGame, seed: u64, mut f: impl FnMut(&AvinasState, &mut SeededRng)) -> AvinasState {
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

fn json(s: &AvinasState, v: Viewer) -> serde_json::Value {
    serde_json::to_value(s.view(v).expect("view")).expect("json")
}

fn is_trump(c: Card, trump: Suit) -> bool {
    matches!(c.rank(), Rank::Queen | Rank::Jack) || c.suit() == trump
}

#[test]
fn cards_are_conserved_at_every_step() {
    for opts in OPTION_SETS {
        for seed in 0..15 {
            play(game(opts), seed, |s, _| {
                let mut seen = CardSet::EMPTY;
                let mut count = 0;
                for p in 0..4 {
                    let h = s.hand(p) | s.played(p);
                    assert!((seen & h).is_empty(), "a card in two places");
                    assert_eq!(s.hand(p) | s.played(p), s.dealt_hand(p));
                    seen |= h;
                    count += h.len();
                }
                if !matches!(s.phase(), Phase::Deal | Phase::ChooseDealer) {
                    assert_eq!(count, 32, "cards are lost or created\n{s}");
                }
                assert!(Pack::Piquet32.cards().is_superset(seen));
            });
        }
    }
}

#[test]
fn a_complete_play_is_worth_120_card_points_and_less_after_a_stop() {
    let mut full = 0;
    let mut short = 0;
    for opts in OPTION_SETS {
        for seed in 0..80 {
            play(game(opts), seed, |s, _| {
                let Some(d) = s.last_deal() else { return };
                if !(s.is_terminal() || s.phase() == Phase::Deal && s.tricks_done() == 0) {
                    return;
                }
                if d.kind.is_none() {
                    return;
                }
                let total = d.declarer_points + d.defender_points;
                let tricks = d.declarer_tricks + d.defender_tricks;
                if d.stopped || d.knock_failed {
                    assert!(total <= 120);
                    assert!(tricks <= 8);
                    short += 1;
                } else {
                    assert_eq!(total, 120, "{d:?}");
                    assert_eq!(tricks, 8);
                    full += 1;
                }
            });
        }
    }
    assert!(full > 50 && short > 50, "{full} full, {short} short");
}

/// Rebuilds `s` with the cards `a` and `b` swapped in the deal, replaying the same actions.
/// `None` if the swapped deal makes some action illegal (then it is not an alternative).
fn with_swapped(s: &AvinasState, a: Card, b: Card) -> Option<AvinasState> {
    let (ia, ib) = (card_action(a)?, card_action(b)?);
    let mut t = s.game().new_initial_state();
    for x in s.history() {
        let y = if t.deal_number() != s.deal_number() {
            x
        } else if t.phase() == Phase::Deal {
            if x == ia {
                ib
            } else if x == ib {
                ia
            } else {
                x
            }
        } else if (32..64).contains(&x) && (x - 32 == ia || x - 32 == ib) {
            32 + if x - 32 == ia { ib } else { ia }
        } else {
            x
        };
        t.apply(y).ok()?;
    }
    Some(t)
}

/// Rebuilds `s` with `other` led face down instead of `led` (same deal).
fn with_other_face_down(s: &AvinasState, led: Card, other: Card) -> Option<AvinasState> {
    let (il, io) = (card_action(led)?, card_action(other)?);
    let mut t = s.game().new_initial_state();
    for x in s.history() {
        t.apply(if x == 32 + il { 32 + io } else { x }).ok()?;
    }
    Some(t)
}

/// The cards of `p` that `viewer` cannot know: in hand, neither exposed nor known.
fn hidden_of(s: &AvinasState, viewer: usize, p: usize) -> CardSet {
    let v = s.view(Viewer::Seat(viewer)).expect("view");
    s.hand(p) - s.exposed() - v.known[p]
}

fn assert_same_knowledge(s: &AvinasState, t: &AvinasState, viewer: usize, what: &str) {
    let (os, ot) = (
        s.observation(viewer).expect("obs"),
        t.observation(viewer).expect("obs"),
    );
    let diff: Vec<usize> = (0..os.len()).filter(|&i| os[i] != ot[i]).collect();
    assert!(
        diff.is_empty(),
        "observation of seat {viewer} leaks at {diff:?} ({what})\n{s}\n{t}"
    );
    assert_eq!(
        json(s, Viewer::Seat(viewer)),
        json(t, Viewer::Seat(viewer)),
        "view leaks ({what})"
    );
    assert_eq!(
        s.observation_string(viewer).expect("text"),
        t.observation_string(viewer).expect("text"),
        "observation_string of seat {viewer} leaks ({what})"
    );
    assert_eq!(
        json(s, Viewer::Spectator),
        json(t, Viewer::Spectator),
        "spectator view leaks ({what})"
    );
    if !s.is_chance_node() {
        for x in s.legal_actions().iter() {
            if t.legal_actions().contains(x) && s.current_player().seat() != Some(viewer) {
                assert_eq!(
                    s.action_to_string_for(Viewer::Seat(viewer), x),
                    t.action_to_string_for(Viewer::Seat(viewer), x),
                    "event text leaks ({what})"
                );
            }
        }
    }
    assert_eq!(s.public_move_number(), t.public_move_number());
}

/// Two states that differ only in cards a seat cannot see (other hands, including the
/// dealer's side's face-down 4th/8th cards of everybody but the dealer) give that seat the
/// same observation, view and event texts; the same holds for the spectator.
#[test]
fn no_hidden_card_reaches_a_seat() {
    let mut compared = 0;
    let mut specials = 0;
    for opts in OPTION_SETS {
        for seed in 0..16 {
            play(game(opts), seed, |s, rng| {
                if s.is_terminal() || s.is_chance_node() || rng.below(3) != 0 {
                    return;
                }
                let viewer = rng.below(4) as usize;
                let others: Vec<usize> = (0..4).filter(|&p| p != viewer).collect();
                let p = others[rng.below(3) as usize];
                let q = others[rng.below(3) as usize];
                let (hp, hq) = (hidden_of(s, viewer, p), hidden_of(s, viewer, q));
                if p == q || hp.is_empty() || hq.is_empty() {
                    return;
                }
                let a = hp.nth(rng.below(hp.len() as u64) as usize).expect("card");
                let b = hq.nth(rng.below(hq.len() as u64) as usize).expect("card");
                let Some(t) = with_swapped(s, a, b) else {
                    return;
                };
                if t.exposed() != s.exposed() {
                    // A Seven moved into a dealer-side 4th/8th slot: it would lie face up,
                    // a public difference.
                    return;
                }
                assert_ne!(t.hand(p), s.hand(p));
                if !(s.hidden_specials() & (CardSet::single(a) | CardSet::single(b))).is_empty() {
                    specials += 1;
                }
                assert_same_knowledge(s, &t, viewer, &format!("swapped {a} of {p} and {b} of {q}"));
                compared += 1;
            });
        }
    }
    assert!(compared > 200, "only {compared} comparisons were made");
    assert!(
        specials > 20,
        "only {specials} comparisons moved a face-down 4th/8th card"
    );
}

/// The dealer's partner's face-down 4th/8th cards: seen by the dealer (they differ in his
/// view), by nobody else (swapping them with another hidden non-Seven changes nothing).
#[test]
fn only_the_dealer_sees_his_partners_face_down_cards() {
    let g = game(&[("scope", "deal"), ("first_dealer", "0")]);
    let mut rng = SeededRng::new(77);
    let mut checked = 0;
    for _ in 0..200 {
        let mut s = g.new_initial_state();
        s.resolve_chance(&mut rng);
        // Seat 2's face-down cards, swapped with a hidden non-Seven of seat 3 (seen by seat
        // 1 as two unknown cards) or of the dealer (unknown to seats 1 and 3).
        let mine = s.hidden_specials() & s.hand(2);
        let non_seven = |p: usize| -> CardSet {
            (s.hand(p) - s.exposed() - s.hidden_specials())
                .iter()
                .filter(|c| c.rank() != Rank::Seven)
                .collect()
        };
        let Some(a) = mine.first() else { continue };
        for (other, viewers) in [(3, &[1][..]), (0, &[1, 3][..])] {
            let Some(b) = non_seven(other).first() else {
                continue;
            };
            let Some(t) = with_swapped(&s, a, b) else {
                continue;
            };
            assert_eq!(t.exposed(), s.exposed());
            for &viewer in viewers {
                assert_same_knowledge(&s, &t, viewer, "partner's face-down card");
            }
            if other == 3 {
                assert_ne!(
                    s.observation(0).expect("obs"),
                    t.observation(0).expect("obs"),
                    "the dealer sees his partner's face-down cards"
                );
            }
        }
        let v0 = s.view(Viewer::Seat(0)).expect("view");
        assert!(v0.known[2].contains(a));
        checked += 1;
    }
    assert!(checked > 50);
}

/// A face-down lead is hidden from everybody but its leader until the trick is complete.
#[test]
fn a_face_down_lead_is_hidden_until_its_trick_is_complete() {
    let mut checked = 0;
    for seed in 0..3000 {
        let g = game(&[("scope", "deal"), ("early_stop_allowed", "false")]);
        let mut rng = SeededRng::new(seed);
        let mut s = g.new_initial_state();
        s.resolve_chance(&mut rng);
        while !s.is_terminal() && !s.face_down_pending() {
            let legal = s.legal_actions();
            // Prefer a face-down lead when one is offered.
            let fd = legal.iter().find(|&a| (32..64).contains(&a));
            let a = fd.unwrap_or_else(|| legal.choose(&mut rng).expect("legal"));
            s.apply(a).expect("legal");
        }
        if !s.face_down_pending() {
            continue;
        }
        let leader = s.view(Viewer::Omniscient).expect("v").trick[0].seat;
        let led = s.view(Viewer::Omniscient).expect("v").trick[0]
            .card
            .expect("card");
        // Another card of the leader's hand led face down instead.
        let Some(other) = s.hand(leader).first() else {
            continue;
        };
        let Some(t) = with_other_face_down(&s, led, other) else {
            continue;
        };
        for viewer in (0..4).filter(|&v| v != leader) {
            assert_same_knowledge(&s, &t, viewer, "face-down lead");
        }
        assert_ne!(
            s.observation(leader).unwrap(),
            t.observation(leader).unwrap()
        );
        // Complete the trick: then the card is public.
        let mut s2 = s.clone();
        while s2.face_down_pending() {
            let a = s2.legal_actions().choose(&mut rng).expect("legal");
            s2.apply(a).expect("legal");
        }
        let v = s2.view(Viewer::Seat((leader + 1) % 4)).expect("view");
        assert_eq!(v.tricks[1].cards[0].card, Some(led));
        checked += 1;
        if checked >= 40 {
            break;
        }
    }
    assert!(checked >= 20, "only {checked} face-down leads");
}

/// Cards a seat has shown it cannot hold (§8 obligations), from the omniscient record.
fn shown_voids(s: &AvinasState) -> [CardSet; 4] {
    let mut out = [CardSet::EMPTY; 4];
    let Some(trump) = s.trump() else { return out };
    let v = s.view(Viewer::Omniscient).expect("view");
    let trumps: CardSet = Pack::Piquet32
        .cards()
        .iter()
        .filter(|&c| is_trump(c, trump))
        .collect();
    let all = v
        .tricks
        .iter()
        .map(|t| t.cards.clone())
        .chain(std::iter::once(v.trick.clone()));
    for (t, cards) in all.enumerate() {
        let Some(lead) = cards.first() else { continue };
        let led = lead.card.expect("omniscient");
        let led_set: CardSet = if is_trump(led, trump) {
            trumps
        } else {
            CardSet::suit_mask(led.suit()) & (Pack::Piquet32.cards() - trumps)
        };
        for (i, p) in cards.iter().enumerate() {
            let c = p.card.expect("omniscient");
            if (t == 1 || (t == 0 && i > 0)) && !is_trump(c, trump) {
                out[p.seat] |= trumps;
            }
            if t >= 2 && i > 0 && !led_set.contains(c) {
                out[p.seat] |= led_set;
            }
        }
    }
    out
}

fn trump_count(hand: CardSet, suit: Suit) -> u32 {
    hand.iter()
        .filter(|c| matches!(c.rank(), Rank::Queen | Rank::Jack) || c.suit() == suit)
        .count() as u32
}

#[test]
fn resample_keeps_the_seats_knowledge_bids_and_shown_voids() {
    let mut checked = 0;
    for opts in OPTION_SETS {
        for seed in 0..8 {
            play(game(opts), seed, |s, rng| {
                if rng.below(5) != 0 {
                    return;
                }
                let seat = rng.below(4) as usize;
                let r = s
                    .resample(seat, rng)
                    .expect("a consistent state exists: the true one");
                assert_eq!(r.observation(seat).unwrap(), s.observation(seat).unwrap());
                assert_eq!(json(&r, Viewer::Seat(seat)), json(s, Viewer::Seat(seat)));
                assert_eq!(json(&r, Viewer::Spectator), json(s, Viewer::Spectator));
                assert_eq!(r.hand(seat), s.hand(seat));
                assert_eq!(r.exposed(), s.exposed());
                let known = s.view(Viewer::Seat(seat)).unwrap().known;
                for (p, &k) in known.iter().enumerate() {
                    assert!(r.hand(p).is_superset(k), "known cards stay");
                    assert!(
                        (r.hand(p) & shown_voids(s)[p]).is_empty(),
                        "seat {p} showed a void"
                    );
                    assert!(
                        (r.hidden_specials() & r.dealt_hand(p))
                            .iter()
                            .all(|c| c.rank() != Rank::Seven),
                        "face-down 4th/8th cards are never Sevens"
                    );
                    if let Some(n) = s.bids()[p].filter(|&n| n > 0) {
                        assert!(
                            Suit::ALL
                                .iter()
                                .any(|&x| trump_count(r.dealt_hand(p), x) == n),
                            "seat {p} bid {n}"
                        );
                    }
                }
                if seat == s.dealer() {
                    let partner = (seat + 2) % 4;
                    assert_eq!(
                        r.hidden_specials() & r.dealt_hand(partner),
                        s.hidden_specials() & s.dealt_hand(partner),
                        "the dealer's knowledge of his partner's face-down cards"
                    );
                }
                if let (Some(Kind::Bidding), Some(t), Some(d)) = (s.kind(), s.trump(), s.declarer())
                {
                    let bid = s.bids()[d].unwrap_or(0);
                    assert_eq!(
                        trump_count(r.dealt_hand(d), t),
                        bid,
                        "the opening lead fits the bid"
                    );
                }
                let again = cardhouse::game::replay(r.game(), &r.history()).expect("replays");
                assert_eq!(again, r);
                assert_eq!(r.current_player(), s.current_player());
                checked += 1;
            });
        }
    }
    assert!(checked > 50, "{checked}");
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
    let _ = action_card(0);
}

/// A pending face-down lead of another seat is re-chosen among that seat's possible cards:
/// the resampled states keep the seat's knowledge and vary the hidden card.
#[test]
fn resample_re_chooses_another_seats_face_down_lead() {
    let g = game(&[("scope", "deal"), ("early_stop_allowed", "false")]);
    let mut checked = 0;
    let mut varied = 0;
    for seed in 0..3000 {
        let mut rng = SeededRng::new(seed);
        let mut s = g.new_initial_state();
        s.resolve_chance(&mut rng);
        while !s.is_terminal() && !s.face_down_pending() {
            let legal = s.legal_actions();
            let fd = legal.iter().find(|&a| (32..64).contains(&a));
            let a = fd.unwrap_or_else(|| legal.choose(&mut rng).expect("legal"));
            s.apply(a).expect("legal");
        }
        if !s.face_down_pending() {
            continue;
        }
        let v = s.view(Viewer::Omniscient).expect("view");
        let leader = v.trick[0].seat;
        let led = v.trick[0].card.expect("card");
        let trump = s.trump().expect("trump");
        let seat = (leader + 1 + rng.below(3) as usize) % 4;
        for _ in 0..5 {
            let r = s.resample(seat, &mut rng).expect("resample");
            assert_eq!(r.observation(seat).unwrap(), s.observation(seat).unwrap());
            assert_eq!(json(&r, Viewer::Seat(seat)), json(&s, Viewer::Seat(seat)));
            let rv = r.view(Viewer::Omniscient).expect("view");
            let c = rv.trick[0].card.expect("card");
            assert!(!is_trump(c, trump), "the face-down leader held no trump");
            assert!(r.hand(leader).iter().all(|x| !is_trump(x, trump)));
            if c != led {
                varied += 1;
            }
        }
        checked += 1;
        if checked >= 15 {
            break;
        }
    }
    assert!(
        checked >= 10 && varied > 0,
        "{checked} states, {varied} varied"
    );
}

/// Dealing: a seat reads its own cards, every face-up card, and (the dealer only) the
/// dealer's side's face-down 4th/8th cards; of anything else only that a card was dealt.
#[test]
fn deal_events_show_exactly_what_each_seat_sees() {
    for seed in 0..30 {
        let g = game(&[("scope", "deal")]);
        let mut s = g.new_initial_state();
        let mut rng = SeededRng::new(seed);
        s.apply_random_chance(&mut rng).expect("first dealer");
        let dealer = s.dealer();
        let mut k = 0;
        while s.is_chance_node() {
            let a = s.legal_actions().choose(&mut rng).expect("outcome");
            let card = action_card(a).expect("card").to_string();
            let seat = (dealer + 1 + (k / 4) % 4) % 4;
            let special = k % 4 == 3;
            let face_up = special && ((seat + dealer) % 2 == 1 || card.starts_with('7'));
            for v in 0..4 {
                let text = s
                    .action_to_string_for(Viewer::Seat(v), a)
                    .expect("public event");
                let sees = v == seat || face_up || (special && v == dealer);
                assert_eq!(text.contains(&card), sees, "seat {v}: {text}");
                let ending = match (special, face_up) {
                    (false, _) => format!("to {seat}"),
                    (true, true) => format!("to {seat} face up"),
                    (true, false) => format!("to {seat} face down"),
                };
                assert!(text.ends_with(&ending), "{text}");
            }
            let spectator = s.action_to_string_for(Viewer::Spectator, a).expect("event");
            assert_eq!(spectator.contains(&card), face_up);
            s.apply(a).expect("outcome");
            k += 1;
        }
        assert_eq!(k, 32);
    }
}

/// The named slices cover the observation exactly, in order, and every value written in
/// random games (both scopes, both all-tricks loss rules, a small pip limit) lies within
/// its slice's bounds.
#[test]
fn the_observation_layout_covers_the_observation_and_bounds_every_value() {
    let mut sets: Vec<&[(&str, &str)]> = OPTION_SETS.to_vec();
    sets.push(&[("scope", "deal"), ("pip_limit", "1")]);
    sets.push(&[("pip_limit", "1")]);
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
        assert_eq!(next, cardhouse::games::avinas::layout::TOTAL);
        for seed in 0..10 {
            play(g, seed, |s, _| {
                for seat in 0..4 {
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
    let names: Vec<&str> = AvinasGame::default()
        .observation_layout()
        .iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(names.first(), Some(&"hand"));
    assert_eq!(names.last(), Some(&"pips"));
}

/// `observation_string` shows only what the seat knows: states resampled for that seat
/// (other hands, face-down cards, a face-down lead) give the same text.
#[test]
fn observation_string_ignores_what_the_seat_cannot_see() {
    let mut varied = 0;
    for opts in OPTION_SETS {
        for seed in 0..6 {
            play(game(opts), seed, |s, rng| {
                if rng.below(3) != 0 {
                    return;
                }
                for seat in 0..4 {
                    let text = s.observation_string(seat).expect("text");
                    for _ in 0..2 {
                        let r = s.resample(seat, rng).expect("resample");
                        assert_eq!(
                            r.observation_string(seat).expect("text"),
                            text,
                            "observation_string of seat {seat} leaks\n{s}\n{r}"
                        );
                        if (0..4).any(|p| r.hand(p) != s.hand(p)) {
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
    for c in s.hand(1).iter() {
        assert!(text.contains(&c.to_string()), "{c} missing from\n{text}");
    }
    assert!(text.starts_with("avinas, seat 1 (partner 3)"), "{text}");
    assert!(s.observation_string(4).is_err());
}

/// `scope = deal` never takes more player actions than `max_game_length` (43); a match has
/// `None`.
#[test]
fn deals_stay_within_max_game_length() {
    assert_eq!(AvinasGame::default().max_game_length(), None);
    let mut longest = 0;
    for opts in OPTION_SETS.iter().take(3) {
        let g = game(opts);
        let max = g.max_game_length().expect("a deal is bounded");
        assert_eq!(max, 43);
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
    assert!(longest >= 36, "random deals reach {longest} actions");
}
