//! Property tests over seeded random playouts of every registered game and option set:
//! no panic, legal set non-empty until terminal, `apply` accepts exactly the legal set (and
//! leaves the state unchanged otherwise), serialization and replay round-trip, seeds
//! reproduce, returns are zero-sum and 0 until terminal.

use cardhouse::{
    AnyGame, AnyState, OptionKind, OptionValue, Options, Player, Rng, SeededRng, Viewer,
    list_games, new_game, option_specs, state_from_bytes, state_from_json,
};

/// Defaults, plus every option at each of its other values (integers at a small value so
/// that matches stay short), each with `scope = deal` and `scope = match`.
fn option_sets(game: &str) -> Vec<Options> {
    let mut sets = vec![Options::new()];
    for spec in option_specs(game).expect("registered") {
        if spec.name == "scope" {
            continue;
        }
        let values: Vec<OptionValue> = match spec.kind {
            OptionKind::Bool => vec![OptionValue::Bool(spec.default != "true")],
            OptionKind::Choice(names) => names
                .iter()
                .filter(|n| **n != spec.default)
                .map(|n| OptionValue::from(*n))
                .collect(),
            OptionKind::Int { min, max } => vec![
                OptionValue::Int((min + 1).min(max)),
                OptionValue::Int(max.min(300)),
            ],
        };
        for v in values {
            sets.push(cardhouse::options([(spec.name, v)]));
        }
    }
    let mut out = Vec::new();
    for s in sets {
        for scope in ["deal", "match"] {
            let mut o = s.clone();
            o.insert("scope".into(), scope.into());
            // Keep matches short unless the target itself is under test (never longer than
            // the game's default).
            if !o.contains_key("target_score") {
                if let Ok(specs) = option_specs(game) {
                    let long = |d: &str| d.parse::<i64>().is_ok_and(|d| d > 1000);
                    if specs
                        .iter()
                        .any(|s| s.name == "target_score" && long(s.default))
                    {
                        o.insert("target_score".into(), OptionValue::Int(1000));
                    }
                }
            }
            out.push(o);
        }
    }
    // Games with a `players` option: the defaults at every player count, every other set at
    // one player count in rotation (the first the game accepts: a seat option beyond the
    // player count is rejected, which each game's own tests check).
    let players = option_specs(game)
        .expect("registered")
        .iter()
        .find(|s| s.name == "players")
        .and_then(|s| match s.kind {
            OptionKind::Int { min, max } => Some((min..=max).collect::<Vec<i64>>()),
            _ => None,
        });
    if let Some(counts) = players {
        let mut rotated = Vec::new();
        for (i, o) in out.into_iter().enumerate() {
            if o.contains_key("players") {
                rotated.push(o);
                continue;
            }
            let all = i < 2;
            for k in 0..counts.len() {
                let mut c = o.clone();
                c.insert(
                    "players".into(),
                    OptionValue::Int(counts[(i + k) % counts.len()]),
                );
                if new_game(game, &c).is_ok() {
                    rotated.push(c);
                    if !all {
                        break;
                    }
                }
            }
        }
        out = rotated;
    }
    out
}

/// Plays to the end with a seeded uniform policy, calling `check` before every step.
fn playout(
    game: &AnyGame,
    seed: u64,
    mut check: impl FnMut(&AnyState, &mut SeededRng),
) -> AnyState {
    let mut rng = SeededRng::new(seed);
    let mut state = game.new_initial_state();
    let mut steps = 0;
    while !state.is_terminal() {
        check(&state, &mut rng);
        let legal = state.legal_actions();
        assert!(
            !legal.is_empty(),
            "no legal action at a non-terminal state:\n{state}"
        );
        match state.current_player() {
            Player::Chance => {
                if rng.below(2) == 0 {
                    state.apply_random_chance(&mut rng).expect("chance node");
                } else {
                    state.resolve_chance(&mut rng).expect("a chance node");
                }
            }
            Player::Seat(_) => {
                let a = legal.choose(&mut rng).expect("non-empty");
                state.apply(a).expect("a legal action applies");
            }
            Player::Terminal => unreachable!(),
        }
        steps += 1;
        assert!(steps < 100_000, "game does not end");
    }
    check(&state, &mut rng);
    state
}

/// Exact equality of two states: every field (Debug prints them all) and the history.
fn same(a: &AnyState, b: &AnyState) -> bool {
    a.history() == b.history() && format!("{a:?}") == format!("{b:?}")
}

#[test]
fn random_playouts_of_every_game_and_option_set_end_with_zero_sum_returns() {
    for name in list_games() {
        for (i, opts) in option_sets(name).iter().enumerate() {
            let game = new_game(name, opts).unwrap_or_else(|e| panic!("{name} {opts:?}: {e}"));
            for seed in 0..4 {
                let end = playout(&game, seed * 1000 + i as u64, |s, _| {
                    if !s.is_terminal() {
                        assert!(
                            s.returns().iter().all(|&r| r == 0.0),
                            "returns before terminal"
                        );
                        assert!(s.rewards().iter().all(|&r| r == 0.0));
                    }
                });
                let r = end.returns();
                assert_eq!(r.len(), game.num_players());
                let total: f64 = r.iter().sum();
                assert_eq!(
                    total, 0.0,
                    "{name} {opts:?}: returns {r:?} are not zero-sum"
                );
                assert_eq!(&*end.rewards(), &*r);
                assert!(end.legal_actions().is_empty());
            }
        }
    }
}

#[test]
fn apply_accepts_exactly_the_legal_set_and_rejects_without_change() {
    for name in list_games() {
        for opts in option_sets(name).iter().step_by(3) {
            let game = new_game(name, opts).expect("options");
            let n = game.num_distinct_actions().max(game.max_chance_outcomes()) as u32;
            playout(&game, 11, |s, _| {
                let legal = s.legal_actions();
                for a in (0..n + 3).chain([u32::MAX]) {
                    let mut t = s.clone();
                    match t.apply(a) {
                        Ok(()) => {
                            assert!(legal.contains(a), "{name}: apply accepted illegal {a}\n{s}")
                        }
                        Err(e) => {
                            assert!(!legal.contains(a), "{name}: apply rejected legal {a}: {e}");
                            assert!(!e.to_string().is_empty());
                            assert!(same(&t, s), "{name}: a rejected action changed the state");
                        }
                    }
                }
                let mask = s.legal_action_mask();
                assert_eq!(mask.iter().filter(|&&m| m).count(), legal.len());
                for a in legal.iter() {
                    assert!(mask[a as usize]);
                    let text = s.action_to_string(a);
                    assert_eq!(
                        s.string_to_action(&text).ok(),
                        Some(a),
                        "{name}: `{text}` does not parse back"
                    );
                }
            });
        }
    }
}

#[test]
fn serialization_and_replay_round_trip_exactly() {
    for name in list_games() {
        for opts in option_sets(name) {
            let game = new_game(name, &opts).expect("options");
            playout(&game, 5, |s, rng| {
                if rng.below(8) != 0 {
                    return;
                }
                let bytes = s.to_bytes();
                let back = state_from_bytes(&bytes).expect("own bytes decode");
                assert!(same(&back, s));
                assert_eq!(back.to_bytes(), bytes);
                assert!(same(&game.state_from_bytes(&bytes).expect("same game"), s));
                let json = s.to_json();
                let back = state_from_json(&json).expect("own JSON decodes");
                assert!(same(&back, s));
                let replayed = game.replay(&s.history()).expect("history replays");
                assert!(same(&replayed, s));
                for seat in 0..game.num_players() {
                    assert_eq!(back.observation(seat).ok(), s.observation(seat).ok());
                }
            });
        }
    }
}

#[test]
fn bad_bytes_are_errors_never_panics() {
    let game = new_game("jass", &Options::new()).expect("jass");
    let mut state = game.new_initial_state();
    state
        .resolve_chance(&mut SeededRng::new(1))
        .expect("a chance node");
    let bytes = state.to_bytes();
    let mut rng = SeededRng::new(99);
    for cut in 0..bytes.len() {
        assert!(state_from_bytes(&bytes[..cut]).is_err());
    }
    for _ in 0..2000 {
        let mut b = bytes.clone();
        let i = rng.below(b.len() as u64) as usize;
        b[i] = rng.next_u64() as u8;
        if let Ok(s) = state_from_bytes(&b) {
            // Whatever decodes is a real, replayable state.
            assert_eq!(
                state_from_bytes(&s.to_bytes()).map(|t| t.history()).ok(),
                Some(s.history())
            );
        }
    }
    for junk in [&b""[..], b"CHS", b"CHS\x02", b"hello world", &[0xFF; 40]] {
        assert!(state_from_bytes(junk).is_err());
    }
    assert!(state_from_json("{\"format\":\"cardhouse-state\"}").is_err());
    assert!(
        game.state_from_bytes(
            &new_game("jass", &cardhouse::options([("scope", "deal".into())]))
                .expect("ok")
                .new_initial_state()
                .to_bytes()
        )
        .is_err()
    );
}

#[test]
fn the_same_seed_gives_the_same_game() {
    for name in list_games() {
        for opts in option_sets(name).iter().step_by(4) {
            let game = new_game(name, opts).expect("options");
            for seed in [0, 42] {
                let a = playout(&game, seed, |_, _| {});
                let b = playout(&game, seed, |_, _| {});
                assert_eq!(a.history(), b.history());
                assert_eq!(a.to_bytes(), b.to_bytes());
            }
        }
    }
}

#[test]
fn observations_have_the_declared_shape_and_bad_seats_are_errors() {
    for name in list_games() {
        let game = new_game(name, &Options::new()).expect("defaults");
        let len: usize = game.observation_shape().iter().product();
        let state = playout(&game, 3, |s, _| {
            for seat in 0..game.num_players() {
                let o = s.observation(seat).expect("seat");
                assert_eq!(o.len(), len);
                assert!(o.iter().all(|x| x.is_finite()));
                // Every slot is written: a dirty buffer gives the same result.
                let mut dirty = vec![f32::NAN; len];
                s.write_observation(seat, &mut dirty).expect("seat");
                assert_eq!(dirty, o);
            }
        });
        assert!(state.observation(game.num_players()).is_err());
        let mut short = vec![0.0; len - 1];
        assert!(state.write_observation(0, &mut short).is_err());
        assert!(state.view(Viewer::Seat(game.num_players())).is_err());
    }
}

#[test]
fn layouts_cover_the_observation_and_bound_every_value_and_return() {
    for name in list_games() {
        for opts in option_sets(name) {
            let game = new_game(name, &opts).expect("valid options");
            let layout = game.observation_layout();
            let mut next = 0;
            for slice in &layout {
                assert_eq!(
                    slice.offset, next,
                    "{name}: slice {} is not contiguous",
                    slice.name
                );
                // Strictly: Gymnasium warns on a `Box` whose low and high are equal.
                assert!(
                    slice.low < slice.high,
                    "{name} {opts:?}: slice {} has bounds {}..={}",
                    slice.name,
                    slice.low,
                    slice.high
                );
                next += slice.len();
            }
            assert_eq!(
                next,
                game.observation_len(),
                "{name}: the layout covers the observation"
            );
            let (lo, hi) = (game.min_return(), game.max_return());
            assert!(lo < hi);
            let longest = game.max_game_length();
            for seed in 0..3 {
                let mut actions = 0;
                let end = playout(&game, seed, |s, _| {
                    if s.current_player().seat().is_some() {
                        actions += 1;
                    }
                    for seat in 0..game.num_players() {
                        let obs = s.observation(seat).expect("observation");
                        for slice in &layout {
                            for (k, &x) in obs[slice.offset..slice.offset + slice.len()]
                                .iter()
                                .enumerate()
                            {
                                assert!(
                                    slice.low <= x && x <= slice.high,
                                    "{name} {opts:?}: {}[{k}] = {x} outside {}..={}",
                                    slice.name,
                                    slice.low,
                                    slice.high
                                );
                            }
                        }
                    }
                });
                for &r in end.returns().iter() {
                    assert!(
                        lo <= r && r <= hi,
                        "{name} {opts:?}: return {r} outside {lo}..={hi}"
                    );
                }
                if let Some(max) = longest {
                    assert!(actions <= max, "{name}: {actions} player actions > {max}");
                }
            }
        }
    }
}

#[test]
fn every_state_serializes_and_decodes_through_its_game() {
    use cardhouse::{Game, State};
    let game = cardhouse::games::jass::JassGame::default();
    let mut state = game.new_initial_state();
    state.resolve_chance(&mut SeededRng::new(3));
    let bytes = State::to_bytes(&state);
    assert_eq!(game.state_from_bytes(&bytes).expect("decodes"), state);
    assert_eq!(
        game.state_from_json(&State::to_json(&state))
            .expect("decodes"),
        state
    );
    assert_eq!(
        state_from_bytes(&bytes).expect("any game").to_bytes(),
        bytes
    );
    // Another game configuration refuses the bytes.
    let other = cardhouse::games::jass::JassGame::from_options(&cardhouse::options([(
        "target_score",
        "1000".into(),
    )]))
    .expect("valid");
    assert!(other.state_from_bytes(&bytes).is_err());
}

#[test]
fn resolve_chance_at_a_player_node_is_an_error_like_apply_random_chance() {
    for name in list_games() {
        let game = new_game(name, &Options::new()).expect("defaults");
        let mut state = game.new_initial_state();
        state
            .resolve_chance(&mut SeededRng::new(1))
            .expect("a chance node");
        let before = state.clone();
        assert!(state.resolve_chance(&mut SeededRng::new(1)).is_err());
        assert!(state.apply_random_chance(&mut SeededRng::new(1)).is_err());
        assert!(same(&state, &before));
        let space = game.num_distinct_actions() as u32;
        assert!(state.checked_action_to_string(space).is_err());
        assert!(state.checked_action_to_string(0).is_ok());
    }
}

/// `chance_outcome_at(u)` is the outcome at `u` of the cumulative distribution of
/// `chance_outcomes` (what the service's chance draws rely on), and an error at a player node.
#[test]
fn chance_outcome_at_follows_the_chance_outcomes() {
    for name in list_games() {
        let game = new_game(name, &Options::new()).expect("defaults");
        let mut checked = 0;
        playout(&game, 5, |s, rng| {
            if s.current_player() != Player::Chance {
                assert!(
                    s.chance_outcome_at(0.5).is_err(),
                    "{name}: not a chance node"
                );
                return;
            }
            let outcomes = s.chance_outcomes().expect("a chance node");
            for _ in 0..4 {
                let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                let mut acc = 0.0;
                let want = outcomes
                    .iter()
                    .find(|&&(_, p)| {
                        acc += p;
                        u < acc
                    })
                    .or(outcomes.last())
                    .map(|&(a, _)| a);
                assert_eq!(s.chance_outcome_at(u).ok(), want, "{name} at {u}");
                checked += 1;
            }
        });
        assert!(checked > 0, "{name}: no chance node met");
    }
}
