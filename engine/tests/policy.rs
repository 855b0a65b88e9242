//! The policy bot: the file format (round trip, every rejection named), the evaluator against
//! a plain dense forward pass, legal and hidden-information-blind choices in every game, and
//! the policies shipped with the engine.

use std::sync::Arc;

use cardhouse::bots::policy::{self, Policy, from_parts};
use cardhouse::bots::{BotKind, arena};
use cardhouse::{AnyGame, AnyState, Error, Player, Rng, SeededRng, list_games, new_game, options};

fn deal_game(name: &str) -> AnyGame {
    new_game(name, &options([("scope", "deal".into())])).expect("deal scope")
}

/// Weights uniform in [-scale, scale), from a seeded generator.
fn weights(rng: &mut SeededRng, n: usize, scale: f32) -> Vec<f32> {
    (0..n)
        .map(|_| ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * scale)
        .collect()
}

/// A random policy for `game`: `obs → hidden → hidden → actions`.
fn random_policy(game: &AnyGame, hidden: usize, seed: u64) -> Policy {
    let mut rng = SeededRng::new(seed);
    let (o, a) = (game.observation_len(), game.num_distinct_actions());
    let layers = vec![
        (
            o,
            hidden,
            weights(&mut rng, o * hidden, 0.3),
            weights(&mut rng, hidden, 0.1),
        ),
        (
            hidden,
            hidden,
            weights(&mut rng, hidden * hidden, 0.3),
            weights(&mut rng, hidden, 0.1),
        ),
        (
            hidden,
            a,
            weights(&mut rng, hidden * a, 0.3),
            weights(&mut rng, a, 0.1),
        ),
    ];
    from_parts("test", game.name(), "random weights", o, a, None, layers).expect("valid parts")
}

/// The logits by a plain dense forward pass over the parts (no sparsity shortcut).
fn dense_logits(parts: &[(usize, usize, Vec<f32>, Vec<f32>)], obs: &[f32]) -> Vec<f32> {
    let mut x = obs.to_vec();
    for (k, (inputs, outputs, w, b)) in parts.iter().enumerate() {
        let mut y = vec![0.0f32; *outputs];
        for (o, yo) in y.iter_mut().enumerate() {
            let mut sum = b[o];
            for i in 0..*inputs {
                sum += x[i] * w[i * outputs + o];
            }
            *yo = if k + 1 < parts.len() {
                sum.max(0.0)
            } else {
                sum
            };
        }
        x = y;
    }
    x
}

fn decision_points(game: &AnyGame, seed: u64, mut check: impl FnMut(&AnyState, usize)) {
    let mut rng = SeededRng::new(seed);
    let mut state = game.new_initial_state();
    while !state.is_terminal() {
        match state.current_player() {
            Player::Chance => state.resolve_chance(&mut rng).expect("chance node"),
            Player::Seat(s) => {
                check(&state, s);
                let a = state.legal_actions().choose(&mut rng).expect("legal");
                state.apply(a).expect("legal");
            }
            Player::Terminal => break,
        }
    }
}

#[test]
fn the_file_round_trips_and_the_evaluator_is_a_dense_forward_pass() {
    let game = deal_game("jass");
    let mut rng = SeededRng::new(3);
    let (o, a, h) = (game.observation_len(), game.num_distinct_actions(), 16);
    let parts = vec![
        (
            o,
            h,
            weights(&mut rng, o * h, 0.5),
            weights(&mut rng, h, 0.2),
        ),
        (
            h,
            h,
            weights(&mut rng, h * h, 0.5),
            weights(&mut rng, h, 0.2),
        ),
        (
            h,
            a,
            weights(&mut rng, h * a, 0.5),
            weights(&mut rng, a, 0.2),
        ),
    ];
    let p = from_parts("t", "jass", "info", o, a, None, parts.clone()).expect("parts");
    let bot = BotKind::Policy(Arc::new(p.clone()));
    let bytes = p.to_bytes();
    assert_eq!(&bytes[..8], b"CHPOLICY");
    let back = Policy::from_bytes(&bytes).expect("own bytes");
    assert_eq!(back, p);
    assert_eq!(
        (back.name(), back.game(), back.info()),
        ("t", "jass", "info")
    );
    assert_eq!(back.num_parameters(), o * h + h + h * h + h + h * a + a);
    let mut points = 0;
    decision_points(&game, 5, |state, seat| {
        let obs = state.observation(seat).expect("obs");
        let got = p.logits(&obs, None).expect("logits");
        let want = dense_logits(&parts, &obs);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-4 * (1.0 + w.abs()), "{g} vs {w}");
        }
        // The bot plays the legal action of highest logit.
        let chosen = state
            .bot_action(&bot, seat, &mut SeededRng::new(0), &mut || false)
            .expect("action");
        let best = state
            .legal_actions()
            .iter()
            .map(|a| want[a as usize])
            .fold(f32::NEG_INFINITY, f32::max);
        assert!((want[chosen as usize] - best).abs() <= 1e-4 * (1.0 + best.abs()));
        points += 1;
    });
    assert!(points > 10);
    assert_eq!(
        p.logits(&[0.0; 3], None),
        Err(Error::BufferSize {
            got: 3,
            expected: o
        })
    );
}

#[test]
fn malformed_files_are_rejected_with_the_reason() {
    let game = deal_game("cribbage");
    let good = random_policy(&game, 8, 1).to_bytes();
    let reason = |bytes: &[u8]| match Policy::from_bytes(bytes) {
        Err(Error::InvalidPolicy { reason }) => reason,
        other => panic!("expected InvalidPolicy, got {other:?}"),
    };
    assert!(reason(b"NOTAPOLICY").contains("CHPOLICY"));
    let mut v2 = good.clone();
    v2[8] = 2;
    assert!(reason(&v2).contains("version 2"));
    assert!(reason(&good[..good.len() - 1]).contains("truncated"));
    let mut longer = good.clone();
    longer.push(0);
    assert!(reason(&longer).contains("1 bytes follow"));
    // A NaN weight (the first float after the first layer's header).
    let header = 8 + 4 + (4 + 4) + (4 + 8) + (4 + 14) + 8 + 8 + 4 + 8;
    let mut nan = good.clone();
    nan[header..header + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    assert!(reason(&nan).contains("not finite"));
    // Widths that do not chain.
    let o = game.observation_len();
    let bad = from_parts(
        "x",
        "cribbage",
        "",
        o,
        5,
        None,
        vec![(o, 4, vec![0.0; o * 4], vec![0.0; 4])],
    );
    assert!(
        matches!(bad, Err(Error::InvalidPolicy { reason }) if reason.contains("num_actions = 5"))
    );
    let bad = from_parts(
        "x",
        "cribbage",
        "",
        o,
        4,
        None,
        vec![(o + 1, 4, vec![0.0; (o + 1) * 4], vec![0.0; 4])],
    );
    assert!(matches!(bad, Err(Error::InvalidPolicy { reason }) if reason.contains("input length")));
    let err = "policy:nosuch"
        .parse::<BotKind>()
        .expect_err("unknown shipped name");
    assert!(err.to_string().contains("policy:nosuch"), "{err}");
}

#[test]
fn a_policy_refuses_another_game() {
    let jass = deal_game("jass");
    let cribbage = deal_game("cribbage");
    let bot = BotKind::Policy(Arc::new(random_policy(&jass, 8, 2)));
    assert!(bot.check_game(&jass).is_ok());
    let err = bot.check_game(&cribbage).expect_err("another game");
    assert!(
        err.to_string().contains("plays jass, not cribbage"),
        "{err}"
    );
    let mut state = cribbage.new_initial_state();
    state.resolve_chance(&mut SeededRng::new(1)).expect("deal");
    let Player::Seat(s) = state.current_player() else {
        panic!("a seat is to act after the deal")
    };
    assert!(matches!(
        state.bot_action(&bot, s, &mut SeededRng::new(0), &mut || false),
        Err(Error::InvalidPolicy { .. })
    ));
}

#[test]
fn a_policy_plays_legal_moves_and_never_sees_hidden_cards() {
    for name in list_games() {
        let game = deal_game(name);
        let bot = BotKind::Policy(Arc::new(random_policy(&game, 32, 7)));
        let mut draw = SeededRng::new(11);
        let mut points = 0;
        decision_points(&game, 9, |state, seat| {
            let a = state
                .bot_action(&bot, seat, &mut SeededRng::new(0), &mut || false)
                .expect("a move");
            assert!(state.legal_actions().contains(a), "{name}: illegal {a}");
            // States that differ only in what `seat` cannot see: the same choice.
            for _ in 0..3 {
                if let Ok(other) = state.resample(seat, &mut draw) {
                    let b = other
                        .bot_action(&bot, seat, &mut SeededRng::new(0), &mut || false)
                        .expect("a move");
                    assert_eq!(a, b, "{name}: the choice depends on hidden cards");
                }
            }
            points += 1;
        });
        assert!(points > 0);
        // The arena plays it.
        let n = game.num_players();
        let lineup: Vec<BotKind> = (0..n)
            .map(|s| {
                if s % 2 == 0 {
                    bot.clone()
                } else {
                    BotKind::Random
                }
            })
            .collect();
        arena::play_duplicate(&game, &lineup, 3, &mut || false).expect("a duplicate set");
    }
}

#[test]
fn shipped_policies_load_and_play_their_game() {
    for name in policy::shipped_names() {
        let bot: BotKind = format!("policy:{name}").parse().expect("shipped");
        assert_eq!(bot.to_string(), format!("policy:{name}"));
        let BotKind::Policy(p) = &bot else {
            panic!("a policy")
        };
        let game = deal_game(p.game());
        bot.check_game(&game).expect("its own game");
        let lineup = vec![bot.clone(); game.num_players()];
        arena::play_match(&game, &lineup, 1, &mut || false).expect("a match");
    }
}

#[test]
fn a_hint_policy_with_zero_weights_plays_the_heuristic() {
    for name in list_games() {
        let game = deal_game(name);
        let (o, a) = (game.observation_len(), game.num_distinct_actions());
        let layers = vec![
            (o + a, 4, vec![0.0; (o + a) * 4], vec![0.0; 4]),
            (4, a, vec![0.0; 4 * a], vec![0.0; a]),
        ];
        let p = from_parts("h", name, "", o, a, Some(1.0), layers).expect("parts");
        assert_eq!(p.hint_bonus(), Some(1.0));
        let back = Policy::from_bytes(&p.to_bytes()).expect("round trip");
        assert_eq!(back, p);
        let bot = BotKind::Policy(Arc::new(p.clone()));
        decision_points(&game, 4, |state, seat| {
            let mine = state
                .bot_action(&bot, seat, &mut SeededRng::new(8), &mut || false)
                .expect("a move");
            let heuristic = state
                .heuristic_action(seat, &mut SeededRng::new(8))
                .expect("a move");
            assert_eq!(mine, heuristic, "{name}");
        });
        let obs = vec![0.0; o];
        assert!(matches!(
            p.logits(&obs, None),
            Err(Error::InvalidPolicy { .. })
        ));
        let logits = p.logits(&obs, Some(0)).expect("logits");
        assert_eq!(logits[0], 1.0);
        assert!(logits[1..].iter().all(|&x| x == 0.0));
    }
    // features 2 and a bonus without features are refused.
    let game = deal_game("jass");
    let mut bytes = random_policy(&game, 4, 1).to_bytes();
    let at = 8 + 4 + (4 + 4) + (4 + 4) + (4 + 14) + 8;
    bytes[at] = 2;
    assert!(
        matches!(Policy::from_bytes(&bytes), Err(Error::InvalidPolicy { reason }) if reason.contains("features 2"))
    );
    bytes[at] = 0;
    bytes[at + 4..at + 8].copy_from_slice(&1.0f32.to_le_bytes());
    assert!(
        matches!(Policy::from_bytes(&bytes), Err(Error::InvalidPolicy { reason }) if reason.contains("hint_bonus"))
    );
}
