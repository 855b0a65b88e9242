//! Golden playthroughs: small seeded games written to `tests/golden/*.json` and replayed
//! here (and through Python and gRPC). A change in rules, action ids, texts or views shows
//! up as a diff to review like code.
//!
//! Regenerate after an intended change:
//! `CARDHOUSE_REGENERATE_GOLDEN=1 cargo test -p cardhouse --test golden`

use std::path::PathBuf;

use cardhouse::{AnyState, OptionValue, Options, Player, SeededRng, Viewer, new_game, options};
use serde_json::{Value, json};

/// (file name, game, options, seed)
fn specs() -> Vec<(&'static str, &'static str, Options, u64)> {
    vec![
        (
            "jass_deal_manual_wys",
            "jass",
            options([("scope", "deal".into())]),
            1,
        ),
        (
            "jass_deal_auto_wys_swisslos",
            "jass",
            options([
                ("scope", OptionValue::from("deal")),
                ("wys", "auto".into()),
                ("multiplier_scheme", "swisslos".into()),
            ]),
            2,
        ),
        (
            "jass_match_immediate_300",
            "jass",
            options([
                ("target_score", OptionValue::from(300)),
                ("end_check", "immediate".into()),
                ("wys", "auto".into()),
            ]),
            3,
        ),
        (
            "avinas_deal_sevens_game",
            "avinas",
            options([
                ("scope", OptionValue::from("deal")),
                ("first_dealer", "0".into()),
            ]),
            2,
        ),
        (
            "avinas_deal_bidding_early_stop",
            "avinas",
            options([
                ("scope", OptionValue::from("deal")),
                ("first_dealer", "0".into()),
            ]),
            5,
        ),
        (
            "avinas_deal_bidding_full_play_tricks_basis",
            "avinas",
            options([
                ("scope", OptionValue::from("deal")),
                ("first_dealer", "0".into()),
                ("early_stop_allowed", false.into()),
                ("schwarz_basis", "tricks".into()),
            ]),
            5,
        ),
        (
            "avinas_match_pip_limit_3",
            "avinas",
            options([("pip_limit", OptionValue::from(3))]),
            12,
        ),
        (
            "klaberjass_deal_default",
            "klaberjass",
            options([("scope", "deal".into())]),
            1,
        ),
        (
            "klaberjass_deal_elder_scores_seat0_deals",
            "klaberjass",
            options([
                ("scope", OptionValue::from("deal")),
                ("equal_sequence_rule", "elder_scores".into()),
                ("first_dealer", "0".into()),
                ("last_trick_bonus", OptionValue::from(20)),
            ]),
            2,
        ),
        (
            "klaberjass_match_100_hang_winner_deals",
            "klaberjass",
            options([
                ("target_score", OptionValue::from(100)),
                ("maker_tie_rule", "hang".into()),
                ("dealer_rotation", "winner_deals".into()),
                ("game_tie_rule", "draw".into()),
            ]),
            3,
        ),
        (
            "cribbage_2p_deal",
            "cribbage",
            options([("scope", "deal".into())]),
            1,
        ),
        (
            "cribbage_3p_deal_after_last_player",
            "cribbage",
            options([
                ("scope", OptionValue::from("deal")),
                ("players", 3.into()),
                ("new_series_leader", "after_last_player".into()),
            ]),
            2,
        ),
        (
            "cribbage_4p_match_to_25",
            "cribbage",
            options([
                ("players", OptionValue::from(4)),
                ("target_score", 25.into()),
                ("skunk_threshold", 16.into()),
                ("first_dealer", "2".into()),
            ]),
            3,
        ),
    ]
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/golden")
}

/// Plays a game with a seeded uniform policy, one chance outcome per step, recording it.
fn play(game_name: &str, opts: &Options, seed: u64) -> Value {
    let game = new_game(game_name, opts).expect("valid golden options");
    let mut state: AnyState = game.new_initial_state();
    let mut rng = SeededRng::new(seed);
    let mut steps = Vec::new();
    while !state.is_terminal() {
        let legal = state.legal_actions();
        let player = state.current_player();
        let action = legal
            .choose(&mut rng)
            .expect("non-terminal states have legal actions");
        let mut step = json!({
            "move": state.move_number(),
            "player": player.to_i32(),
            "legal_actions": legal.to_vec(),
            "action": action,
            "text": state.action_to_string(action),
        });
        if let Player::Seat(seat) = player {
            step["view"] = state.view(Viewer::Seat(seat)).expect("valid seat");
        }
        steps.push(step);
        state.apply(action).expect("legal action applies");
    }
    json!({
        "format": "cardhouse-golden/1",
        "game": game_name,
        "options": game.options(),
        "seed": seed,
        "steps": steps,
        "final": {
            "returns": state.returns().to_vec(),
            "history": state.history(),
            "view": state.view(Viewer::Omniscient).expect("omniscient view"),
        }
    })
}

/// Compact JSON with one step per line, so that diffs stay readable.
fn to_reviewable_json(v: &Value) -> String {
    let mut out = String::from("{\n");
    let obj = v.as_object().expect("object");
    let n = obj.len();
    for (i, (k, val)) in obj.iter().enumerate() {
        out += &format!("  {}: ", Value::from(k.as_str()));
        if k == "steps" {
            out += "[\n";
            let steps = val.as_array().expect("steps");
            for (j, s) in steps.iter().enumerate() {
                out += "    ";
                out += &s.to_string();
                out += if j + 1 < steps.len() { ",\n" } else { "\n" };
            }
            out += "  ]";
        } else {
            out += &val.to_string();
        }
        out += if i + 1 < n { ",\n" } else { "\n" };
    }
    out + "}\n"
}

#[test]
#[allow(clippy::disallowed_methods)] // tests may write files: this regenerates the golden files
fn golden_playthroughs_replay_exactly() {
    let regenerate = std::env::var_os("CARDHOUSE_REGENERATE_GOLDEN").is_some();
    for (name, game, opts, seed) in specs() {
        let path = golden_dir().join(format!("{name}.json"));
        let fresh = play(game, &opts, seed);
        if regenerate {
            let text = to_reviewable_json(&fresh);
            std::fs::write(&path, text).expect("write golden file");
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; regenerate with CARDHOUSE_REGENERATE_GOLDEN=1",
                path.display()
            )
        });
        let stored: Value = serde_json::from_str(&text).expect("golden file is JSON");
        assert_eq!(stored["format"], "cardhouse-golden/1");
        let steps = stored["steps"].as_array().expect("steps");
        let fresh_steps = fresh["steps"].as_array().expect("steps");
        for (i, (a, b)) in steps.iter().zip(fresh_steps).enumerate() {
            assert_eq!(a, b, "{name}: step {i} differs");
        }
        assert_eq!(steps.len(), fresh_steps.len(), "{name}: number of steps");
        assert_eq!(stored["final"], fresh["final"], "{name}: final record");
        assert_eq!(stored, fresh, "{name}");
    }
}

/// Replaying the stored actions alone (no policy, no RNG) reproduces the final record.
#[test]
fn golden_histories_replay_without_rng() {
    for (name, game, opts, _) in specs() {
        let path = golden_dir().join(format!("{name}.json"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let stored: Value = serde_json::from_str(&text).expect("JSON");
        let g = new_game(game, &opts).expect("options");
        let history: Vec<u32> = stored["final"]["history"]
            .as_array()
            .expect("history")
            .iter()
            .map(|v| v.as_u64().expect("id") as u32)
            .collect();
        let state = g.replay(&history).expect("history replays");
        assert!(state.is_terminal(), "{name}");
        assert_eq!(
            state.view(Viewer::Omniscient).expect("view"),
            stored["final"]["view"],
            "{name}"
        );
    }
}
