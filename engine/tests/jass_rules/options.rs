//! Options: validation errors name the key and the allowed values (§16).

use super::*;

// ---------------------------------------------------------------------------------------------
// Options: validation errors name the key and the allowed values (§16)
// ---------------------------------------------------------------------------------------------

fn option_error(key: &str, value: OptionValue) -> Error {
    let o: Options = [(key.to_owned(), value)].into_iter().collect();
    JassGame::from_options(&o).expect_err(key)
}

#[test]
fn unknown_option_error_names_the_key_and_lists_the_options() {
    match option_error("trump_first", OptionValue::Bool(true)) {
        Error::UnknownOption { key, allowed, .. } => {
            assert_eq!(key, "trump_first");
            for k in [
                "scope",
                "target_score",
                "multiplier_scheme",
                "long_sequence_values",
                "four_banners_wys",
                "undenufe_six_is_eleven",
                "undertrump_rule",
                "stoeck_suits",
                "end_check",
                "schieben_back",
                "first_forehand",
                "match_bonus",
                "last_trick_bonus",
                "first_dealer",
                "wys",
            ] {
                assert!(allowed.contains(k), "{k} in {allowed}");
            }
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn bad_option_values_name_the_key_and_the_allowed_values() {
    let cases: [(&str, OptionValue, &str); 10] = [
        (
            "multiplier_scheme",
            "double".into(),
            "one of seed, swisslos, none",
        ),
        (
            "long_sequence_values",
            "big".into(),
            "one of flat_100, escalating",
        ),
        (
            "undertrump_rule",
            "never".into(),
            "one of forbidden_unless_only_trumps, allowed_if_cannot_overtrump",
        ),
        ("stoeck_suits", "all".into(), "one of trump_only, any_suit"),
        ("end_check", "now".into(), "one of end_of_deal, immediate"),
        (
            "first_forehand",
            "random".into(),
            "one of dealer_param, roses_seven",
        ),
        ("four_banners_wys", "maybe".into(), "true or false"),
        (
            "target_score",
            OptionValue::Int(0),
            "an integer from 1 to 1000000",
        ),
        (
            "first_dealer",
            OptionValue::Int(4),
            "an integer from 0 to 3",
        ),
        ("wys", "sometimes".into(), "one of manual, auto"),
    ];
    for (key, value, allowed_text) in cases {
        let shown = value.to_string();
        match option_error(key, value) {
            e @ Error::InvalidOption { .. } => {
                let msg = e.to_string();
                assert!(msg.contains(key), "{msg}");
                assert!(msg.contains(&shown), "{msg}");
                assert!(msg.contains(allowed_text), "{msg}");
            }
            e => panic!("{key}: {e:?}"),
        }
    }
    // Every option has a valid default and the defaults are those of §16.
    let o = game_with(&[]).options();
    for (k, v) in [
        ("target_score", OptionValue::Int(2500)),
        ("multiplier_scheme", "seed".into()),
        ("long_sequence_values", "flat_100".into()),
        ("four_banners_wys", OptionValue::Bool(false)),
        ("undenufe_six_is_eleven", OptionValue::Bool(false)),
        ("undertrump_rule", "forbidden_unless_only_trumps".into()),
        ("stoeck_suits", "trump_only".into()),
        ("end_check", "end_of_deal".into()),
        ("schieben_back", OptionValue::Bool(false)),
        ("first_forehand", "dealer_param".into()),
        ("match_bonus", OptionValue::Int(100)),
        ("last_trick_bonus", OptionValue::Int(5)),
        ("first_dealer", OptionValue::Int(0)),
        ("wys", "manual".into()),
        ("scope", "match".into()),
    ] {
        assert_eq!(o[k], v, "{k}");
    }
}

#[test]
fn views_name_suits_and_ranks_as_the_action_texts_do() {
    // One naming everywhere: the mode, the last deal's mode, Wys kinds and announced ranks
    // use the Swiss names of the action texts (`trump roses`, `UR`), never the French ones.
    for (mode, name) in [
        ("trump acorns", "acorns"),
        ("trump roses", "roses"),
        ("trump shields", "shields"),
        ("trump bells", "bells"),
    ] {
        let mut s = finished_deal(&[("wys", "auto")], mode, 3);
        let json = serde_json::to_value(s.view(Viewer::Spectator).unwrap()).unwrap();
        assert_eq!(json["mode"], serde_json::json!({ "trump": name }));
        assert_eq!(
            json["last_deal"]["mode"],
            serde_json::json!({ "trump": name })
        );
        s = finished_deal(&[], mode, 3);
        assert_eq!(s.last_deal().unwrap().mode.name(), mode);
    }
    let s = finished_deal(&[], "obenabe", 3);
    let json = serde_json::to_value(s.view(Viewer::Spectator).unwrap()).unwrap();
    assert_eq!(json["mode"], "obenabe");
    // Wys items and announcements: ranks as in card texts, suits by their Swiss names.
    let four_unders = cardhouse::games::jass::WysKind::FourOfAKind { rank: Rank::Jack };
    assert_eq!(
        serde_json::to_value(four_unders).unwrap(),
        serde_json::json!({"kind": "four_of_a_kind", "rank": "U"})
    );
    let run = cardhouse::games::jass::WysKind::Sequence {
        suit: Suit::ROSES,
        low: Rank::Seven,
        len: 3,
    };
    assert_eq!(
        serde_json::to_value(run).unwrap(),
        serde_json::json!({"kind": "sequence", "suit": "roses", "low": "7", "len": 3})
    );
    let text = serde_json::to_string(&s.view(Viewer::Omniscient).unwrap()).unwrap();
    for french in ["Clubs", "Diamonds", "Hearts", "Spades", "Jack", "Queen"] {
        assert!(!text.contains(french), "{french} in {text}");
    }
}
