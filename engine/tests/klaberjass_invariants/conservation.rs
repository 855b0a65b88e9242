//! Cards are conserved, deals add up, every option combination plays consistent deals and
//! matches, and a deal stays within `max_game_length`.

use super::*;

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
