//! The arena's fixed-seed results, pinned: every game played by every kind of bot (the
//! searching ones resample, so this pins `resample` too) from fixed seeds gives the same
//! matches, move for move, as when the digests were taken. A change of seed derivation, of
//! the play-until-a-decision loop, of a bot or of the resampling shows here.

use cardhouse::bots::BotKind;
use cardhouse::bots::arena::play_match;
use cardhouse::{AnyGame, new_game, options};

/// FNV-1a over the histories and returns of the matches.
fn digest(game: &AnyGame, bots: &[&str], seeds: std::ops::Range<u64>) -> u64 {
    let kinds: Vec<BotKind> = bots.iter().map(|b| b.parse().unwrap()).collect();
    let mut h = 0xCBF2_9CE4_8422_2325u64;
    let mut eat = |x: u64| {
        for b in x.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
        }
    };
    for seed in seeds {
        let state = play_match(game, &kinds, seed, &mut || false).unwrap();
        for a in state.history() {
            eat(u64::from(a));
        }
        for r in state.returns().iter() {
            eat(r.to_bits());
        }
    }
    h
}

fn deal_game(name: &str, extra: &[(&str, &str)]) -> AnyGame {
    let mut pairs: Vec<(&str, cardhouse::OptionValue)> = vec![("scope", "deal".into())];
    pairs.extend(extra.iter().map(|(k, v)| (*k, (*v).into())));
    new_game(name, &options(pairs)).unwrap()
}

/// A game, its options beside `scope = deal`, the bots of its seats, and the digest.
type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [&'a str], u64);

#[test]
fn arena_matches_are_as_pinned() {
    let cases: [Case<'_>; 5] = [
        (
            "jass",
            &[],
            &["ismcts:24", "rollout:4", "heuristic", "policy:jass"],
            0xDBB1_E4DD_27EC_A9D2,
        ),
        (
            "klaberjass",
            &[],
            &["ismcts:24", "rollout:4"],
            0x1F25_E3ED_F57B_8ADA,
        ),
        (
            "cribbage",
            &[("players", "3")],
            &["ismcts:24", "rollout:4", "random"],
            0x775D_5DFD_CB10_5BAD,
        ),
        (
            "cribbage",
            &[],
            &["policy:cribbage", "heuristic"],
            0xCFE8_54DE_7903_8CBA,
        ),
        (
            "avinas",
            &[],
            &["ismcts:24", "rollout:4", "heuristic", "random"],
            0x7C11_E953_0588_F503,
        ),
    ];
    let mut got = Vec::new();
    for (name, extra, bots, _) in cases {
        got.push(digest(&deal_game(name, extra), bots, 0..4));
    }
    let pinned: Vec<u64> = cases.iter().map(|c| c.3).collect();
    assert_eq!(got, pinned, "{got:#x?}");
}
