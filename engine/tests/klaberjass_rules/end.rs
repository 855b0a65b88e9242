//! §12 end of game, options.

use super::*;

// ---------------------------------------------------------------------------------------------
// §12 end of game, options
// ---------------------------------------------------------------------------------------------

#[test]
fn e5_end_of_game_both_over_500_higher_wins_exact_tie_plays_on() {
    // A (seat 0) 470, B (seat 1) 430; B is maker and makes 92 > 40.
    let (outcome, added, _) = score_deal(1, [40, 92], MakerTieRule::OpponentScoresOwn);
    assert_eq!((outcome, added), (Outcome::MakerWins, [40, 92]));
    let scores = [470 + added[0], 430 + added[1]];
    assert_eq!(scores, [510, 522]);
    assert_eq!(
        game_end(scores, 500, GameTieRule::PlayAnotherDeal),
        Some(GameEnd::Winner(1))
    );
    assert_eq!(
        game_end([510, 522], 500, GameTieRule::PlayAnotherDeal),
        Some(GameEnd::Winner(1))
    );
    assert_eq!(
        game_end([510, 510], 500, GameTieRule::PlayAnotherDeal),
        None
    );
    assert_eq!(
        game_end([470, 430], 500, GameTieRule::PlayAnotherDeal),
        None
    );
}

#[test]
fn edge_19_game_tie_rule_draw_ends_an_exact_tie_drawn() {
    assert_eq!(
        game_end([510, 510], 500, GameTieRule::Draw),
        Some(GameEnd::Draw)
    );
    assert_eq!(game_end([499, 499], 500, GameTieRule::Draw), None);
}

#[test]
fn edge_18_reaching_the_target_during_a_deal_does_not_end_the_game() {
    // Target 1: every completed deal reaches it, but only the scoring after the deal ends it.
    let g = game(&[("scope", "match"), ("target_score", "1")]);
    let mut rng = SeededRng::new(5);
    let mut s = g.new_initial_state();
    let mut plays = 0;
    while !s.is_terminal() {
        if s.phase() == Phase::Play {
            plays += 1;
        }
        let a = s.legal_actions().choose(&mut rng).expect("legal");
        s.apply(a).expect("legal");
    }
    assert_eq!(plays, 18, "the game ended after exactly one full deal");
    let sc = s.scores();
    assert!(sc[0] != sc[1] && sc.iter().any(|&x| x >= 1));
    let w = s.winner().expect("winner");
    assert!(sc[w] > sc[1 - w]);
    assert_eq!(s.returns()[w], 1.0);
    assert_eq!(s.returns()[1 - w], -1.0);
}

#[test]
fn edge_20_dealer_alternates_after_every_deal_including_annulled_ones() {
    let g = game(&[("scope", "match")]);
    let mut rng = SeededRng::new(9);
    let mut s = g.new_initial_state();
    let mut dealers = vec![s.dealer()];
    let mut deal_no = s.view(Viewer::Spectator).expect("v").deal_number;
    while !s.is_terminal() && dealers.len() < 12 {
        let a = s.legal_actions().choose(&mut rng).expect("legal");
        s.apply(a).expect("legal");
        let n = s.view(Viewer::Spectator).expect("v").deal_number;
        if n != deal_no {
            deal_no = n;
            dealers.push(s.dealer());
        }
    }
    for w in dealers.windows(2) {
        assert_ne!(w[0], w[1], "{dealers:?}");
    }
    assert_eq!(next_dealer(0, None, DealerRotation::Alternate), 1);
    assert_eq!(next_dealer(1, Some([10, 90]), DealerRotation::Alternate), 0);
}

#[test]
fn dealer_rotation_winner_deals_gives_the_deal_to_the_higher_adder() {
    assert_eq!(
        next_dealer(0, Some([10, 90]), DealerRotation::WinnerDeals),
        1
    );
    assert_eq!(
        next_dealer(1, Some([90, 10]), DealerRotation::WinnerDeals),
        0
    );
    assert_eq!(
        next_dealer(1, Some([90, 90]), DealerRotation::WinnerDeals),
        0,
        "equal: alternate"
    );
    assert_eq!(
        next_dealer(1, None, DealerRotation::WinnerDeals),
        0,
        "annulled: alternate"
    );
    // Through the engine.
    let g = game(&[("scope", "match"), ("dealer_rotation", "winner_deals")]);
    let mut rng = SeededRng::new(3);
    let mut s = g.new_initial_state();
    let mut checked = 0;
    while !s.is_terminal() {
        let before = s.view(Viewer::Spectator).expect("v").deal_number;
        let dealer = s.dealer();
        let a = s.legal_actions().choose(&mut rng).expect("legal");
        s.apply(a).expect("legal");
        if !s.is_terminal() && s.view(Viewer::Spectator).expect("v").deal_number != before {
            let d = s.last_deal().expect("deal");
            let added = (d.outcome != Outcome::Annulled).then_some(d.added);
            assert_eq!(
                s.dealer(),
                next_dealer(dealer, added, DealerRotation::WinnerDeals)
            );
            checked += 1;
        }
    }
    assert!(checked > 1);
}

#[test]
fn match_scores_accumulate_the_additions_and_the_game_ends_at_the_target() {
    for seed in 0..5 {
        let g = game(&[("scope", "match"), ("maker_tie_rule", "hang")]);
        let mut rng = SeededRng::new(seed);
        let mut s = g.new_initial_state();
        let mut scores = [0u32; 2];
        while !s.is_terminal() {
            let before = s.view(Viewer::Spectator).expect("v").deal_number;
            let a = s.legal_actions().choose(&mut rng).expect("legal");
            s.apply(a).expect("legal");
            let after = s.view(Viewer::Spectator).expect("v").deal_number;
            if after != before || s.is_terminal() {
                let d = s.last_deal().expect("deal");
                scores[0] += d.added[0];
                scores[1] += d.added[1];
                if let Some((p, pts)) = d.held_over_awarded {
                    scores[p] += pts;
                }
                assert_eq!(s.scores(), scores);
            }
        }
        let w = s.winner().expect("winner");
        assert!(scores[w] >= 500 && scores[w] > scores[1 - w]);
    }
}

#[test]
fn options_are_validated_with_the_key_and_the_allowed_values() {
    let bad = [
        ("target_score", OptionValue::Int(0)),
        ("equal_sequence_rule", "sometimes".into()),
        ("maker_tie_rule", "split".into()),
        ("dealer_rotation", "random".into()),
        ("game_tie_rule", "coin".into()),
        ("last_trick_bonus", OptionValue::Int(-1)),
        ("scope", "trick".into()),
    ];
    for (k, v) in bad {
        let e = KlaberjassGame::from_options(&cardhouse::options([(k, v.clone())])).unwrap_err();
        assert!(matches!(e, Error::InvalidOption { .. }), "{k}: {e}");
        assert!(e.to_string().contains(k), "{e}");
    }
    let e =
        KlaberjassGame::from_options(&cardhouse::options([("schmeiss", true.into())])).unwrap_err();
    assert!(matches!(e, Error::UnknownOption { .. }));
    let g = new_game("klaberjass", &Options::new()).expect("registered");
    let o = g.options();
    assert_eq!(o["target_score"], OptionValue::Int(500));
    assert_eq!(o["first_dealer"], OptionValue::from("random"));
    assert_eq!(
        o["maker_tie_rule"],
        OptionValue::from("opponent_scores_own")
    );
    assert_eq!(g.num_players(), 2);
    let _: Action = 0;
    let _ = (MakerTieRule::Hang, card("7C"));
}

#[test]
fn target_score_option_changes_the_end() {
    let g = game(&[("scope", "match"), ("target_score", "1000")]);
    let mut rng = SeededRng::new(2);
    let mut s = g.new_initial_state();
    while !s.is_terminal() {
        let a = s.legal_actions().choose(&mut rng).expect("legal");
        s.apply(a).expect("legal");
    }
    let w = s.winner().expect("winner");
    assert!(s.scores()[w] >= 1000);
}

#[test]
fn unknown_and_illegal_actions_are_precise_errors() {
    let g = game(&[]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    let before = s.clone();
    assert!(matches!(s.apply(66), Err(Error::UnknownAction { .. })));
    assert!(matches!(s.apply(3), Err(Error::IllegalAction { .. })));
    assert_eq!(s, before);
    assert!(s.string_to_action("bid 5").is_err());
    assert!(s.string_to_action("play 6H").is_err());
}

#[test]
fn observation_shows_own_hand_the_public_cards_and_what_is_known_of_the_opponent() {
    use cardhouse::games::klaberjass::layout;
    let g = game(&[]);
    let elder = "AC 10D KH QS 8C 9D JH 8S AS";
    let dealer = "JC 7D AH 9S QC 8D 7H 10S KC";
    let mut s = dealt(&g, elder, dealer, "10H", "7S", &["take"]);
    act(&mut s, "wait");
    act(&mut s, "exchange");
    let o = s.observation(0).expect("obs");
    let slot = |c: &str| card_action(card(c)) as usize;
    assert_eq!(o[layout::HAND..layout::HAND + 32].iter().sum::<f32>(), 9.0);
    assert_eq!(o[layout::HAND + slot("AC")], 1.0);
    assert_eq!(o[layout::HAND + slot("JC")], 0.0);
    assert_eq!(
        o[layout::TURN_UP + slot("7H")],
        1.0,
        "the trump 7 replaced the turn-up"
    );
    assert_eq!(o[layout::BOTTOM + slot("7S")], 1.0);
    assert_eq!(
        o[layout::OPPONENT_KNOWN + slot("10H")],
        1.0,
        "the dealer took the 10H"
    );
    assert_eq!(
        o[layout::OPPONENT_KNOWN..layout::OPPONENT_KNOWN + 32]
            .iter()
            .sum::<f32>(),
        1.0
    );
    assert_eq!(o[layout::TRUMP + Suit::Hearts as usize], 1.0);
    assert_eq!(o[layout::MAKER], 1.0, "the observer (elder) is maker");
    assert_eq!(o[layout::EXCHANGED + 1], 1.0, "the opponent exchanged");
    assert_eq!(o[layout::DEALER + 1], 1.0);
    assert_eq!(o.len(), layout::TOTAL);
}

#[test]
fn maker_tie_rule_hang_through_the_engine_holds_the_points_over_to_the_next_deal() {
    // Random matches until a tied deal appears; then follow the held-over points.
    let g = game(&[
        ("scope", "match"),
        ("maker_tie_rule", "hang"),
        ("target_score", "1000"),
    ]);
    let mut found = 0;
    for seed in 0..400 {
        let mut rng = SeededRng::new(seed);
        let mut s = g.new_initial_state();
        let mut pending = 0;
        while !s.is_terminal() {
            let before = s.view(Viewer::Spectator).expect("v").deal_number;
            let scores = s.scores();
            let a = s.legal_actions().choose(&mut rng).expect("legal");
            s.apply(a).expect("legal");
            let d = match s.last_deal() {
                Some(d) if s.view(Viewer::Spectator).expect("v").deal_number != before => d,
                _ => continue,
            };
            match d.outcome {
                Outcome::Annulled => assert_eq!(s.held_over(), pending),
                Outcome::Tie => {
                    assert_eq!(d.added, [0, 0], "nobody scores in the tied deal");
                    pending += d.totals[0] + d.totals[1];
                    assert_eq!(s.held_over(), pending);
                    assert_eq!(s.scores(), scores);
                    found += 1;
                }
                _ => {
                    if pending > 0 {
                        let to = held_over_goes_to(d.added);
                        assert_eq!(d.held_over_awarded, to.map(|p| (p, pending)));
                        if to.is_some() {
                            pending = 0;
                        }
                    }
                    assert_eq!(s.held_over(), pending);
                }
            }
        }
        if found >= 2 {
            return;
        }
    }
    panic!("no tied deal in 400 random matches");
}
