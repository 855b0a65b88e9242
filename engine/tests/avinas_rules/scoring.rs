//! Rams and pips: §11.1, §10, E1, E2, E4, §11.2, §15.12 to §15.14; the end of the game:
//! §12, E5, §15.17, §15.18.

use super::*;

// §11.1, §10, E1, E2, §15.14 ---------------------------------------------------------------

#[test]
fn e1_declaring_side_with_64_gives_the_defenders_b_rams_or_crosses_out_its_own() {
    assert_eq!(
        sevens_rams(2, 1, false, false, 64, AllTricksLoss::DoubleLoss),
        (false, 2)
    );
    let mut rams = [0, 0];
    give_rams(&mut rams, 1, 2);
    assert_eq!(rams, [0, 2]);
    // The declaring side (team 0 here) had 3 rams: it crosses out 2 of its own.
    let mut rams = [3, 0];
    give_rams(&mut rams, 1, 2);
    assert_eq!(rams, [1, 0]);
}

#[test]
fn e2_a_sevens_game_with_exactly_60_loses_2b_and_the_defenders_cross_out_first() {
    assert_eq!(
        sevens_rams(1, 1, false, false, 60, AllTricksLoss::DoubleLoss),
        (true, 2)
    );
    assert_eq!(
        sevens_rams(1, 1, false, false, 61, AllTricksLoss::DoubleLoss),
        (false, 1)
    );
    let mut rams = [0, 1];
    give_rams(&mut rams, 0, 2);
    assert_eq!(rams, [1, 0]);
}

#[test]
fn ram_cancellation_can_cancel_exactly_to_zero() {
    let mut rams = [0, 2];
    give_rams(&mut rams, 0, 2);
    assert_eq!(rams, [0, 0]);
}

#[test]
fn sevens_game_rams_follow_the_table_in_real_play() {
    let g = game(&[("scope", "deal")]);
    let mut rng = SeededRng::new(4);
    for _ in 0..200 {
        let mut s = g.new_initial_state();
        s.resolve_chance(&mut rng);
        if s.kind() != Some(Kind::Sevens) {
            continue;
        }
        act(&mut s, "pass");
        act(&mut s, "pass");
        while !s.is_terminal() {
            let a = s.legal_actions().choose(&mut rng).unwrap();
            s.apply(a).unwrap();
        }
        let d = s.last_deal().unwrap();
        let dt = d.declarer.unwrap() % 2;
        assert_eq!(d.declarer_points + d.defender_points, 120);
        let expect = if d.declarer_points >= 61 {
            (Some(1 - dt), d.base)
        } else {
            (Some(dt), 2 * d.base)
        };
        assert_eq!((d.against, d.amount), expect);
        let r = s.returns();
        assert_eq!(r[expect.0.unwrap()], -f64::from(expect.1));
    }
}

// §11.2, E4, §15.12, §15.13 ----------------------------------------------------------------

#[test]
fn e4_pip_table() {
    let pips = |d, f| bidding_pips(d, f, 1, 1, SchwarzBasis::CardPoints);
    assert_eq!(pips(75, 45), (false, 1));
    assert_eq!(pips(92, 28), (false, 2));
    assert_eq!(
        bidding_pips(120, 0, 8, 0, SchwarzBasis::CardPoints),
        (false, 3)
    );
    assert_eq!(pips(61, 59), (false, 1));
    assert_eq!(pips(60, 60), (true, 2));
    assert_eq!(pips(30, 90), (true, 4));
    assert_eq!(
        bidding_pips(0, 120, 0, 8, SchwarzBasis::CardPoints),
        (true, 6)
    );
    // Early stops: unplayed points belong to nobody.
    assert_eq!(pips(68, 12), (false, 2));
    assert_eq!(
        bidding_pips(61, 0, 5, 0, SchwarzBasis::CardPoints),
        (false, 3)
    );
}

#[test]
fn pip_boundaries_on_card_points() {
    let p = |d, f| bidding_pips(d, f, 1, 1, SchwarzBasis::CardPoints);
    assert_eq!(p(61, 31), (false, 1));
    assert_eq!(p(61, 30), (false, 2));
    assert_eq!(p(61, 1), (false, 2));
    assert_eq!(p(61, 0), (false, 3));
    assert_eq!(p(60, 0), (true, 2));
    assert_eq!(p(31, 0), (true, 2));
    assert_eq!(p(30, 0), (true, 4));
    assert_eq!(p(1, 0), (true, 4));
    assert_eq!(p(0, 0), (true, 6));
    // A trick of zero points does not lift F above 0 on card points...
    assert_eq!(
        bidding_pips(70, 0, 7, 1, SchwarzBasis::CardPoints),
        (false, 3)
    );
    // ...but does with schwarz_basis = tricks.
    assert_eq!(bidding_pips(70, 0, 7, 1, SchwarzBasis::Tricks), (false, 2));
    assert_eq!(bidding_pips(0, 50, 1, 7, SchwarzBasis::Tricks), (true, 4));
    assert_eq!(bidding_pips(0, 50, 0, 8, SchwarzBasis::Tricks), (true, 6));
}

#[test]
fn early_stop_between_tricks_leaves_unplayed_points_to_nobody() {
    let mut s = dealt(game(&[("first_dealer", "0"), ("scope", "deal")]), BID_DEAL);
    for t in ["pass", "pass", "pass", "bid 7"] {
        act(&mut s, t);
    }
    assert!(
        illegal(&s, "stop").contains("card"),
        "no stop before the first trick"
    );
    act(&mut s, "play AS");
    // Followers: seat 1 QS JC JD; seat 2 QC; seat 3 QD QH JH.
    act(&mut s, "play JD");
    act(&mut s, "play QC");
    act(&mut s, "play JH");
    // Q♣ wins: 11 + 2 + 3 + 2 = 18 to the defenders (seat 2 is the declarer's partner!).
    assert_eq!(s.phase(), Phase::StopChoice);
    assert_eq!(s.current_player().seat(), Some(0));
    assert_eq!(legal_texts(&s), ["continue", "stop"]);
    act(&mut s, "stop");
    assert!(s.is_terminal());
    let d = s.last_deal().unwrap();
    assert!(d.stopped);
    assert_eq!(d.declarer_points + d.defender_points, 18);
    assert_eq!((d.declarer_points, d.defender_points), (18, 0));
    // D = 18 (1–30): the declaring side takes 4 pips.
    assert_eq!((d.against, d.amount), (Some(0), 4));
    assert_eq!(&*s.returns(), &[-4.0, 4.0, -4.0, 4.0]);
    // The unplayed cards are never revealed to a seat.
    let v = s.view(Viewer::Seat(1)).unwrap();
    assert!(v.hands[0].is_none() && v.hands[2].is_none() && v.hands[3].is_none());
}

#[test]
fn early_stop_options_govern_each_game_kind() {
    // Bidding game without early_stop_allowed: no stop choice.
    let mut s = dealt(
        game(&[("first_dealer", "0"), ("early_stop_allowed", "false")]),
        BID_DEAL,
    );
    for t in [
        "pass", "pass", "pass", "bid 7", "play AS", "play JD", "play QC", "play JH",
    ] {
        act(&mut s, t);
    }
    assert_eq!(s.phase(), Phase::Play);
    // Sevens game: no stop by default, a stop with early_stop_in_sevens_game (no knock).
    let mut s = dealt(dealer0(), E1);
    for t in ["pass", "pass", "play 7D", "play QC", "play AD", "play JS"] {
        act(&mut s, t);
    }
    assert_eq!(s.phase(), Phase::Play);
    let g = game(&[("first_dealer", "0"), ("early_stop_in_sevens_game", "true")]);
    let mut s = dealt(g, E1);
    for t in ["pass", "pass", "play 7D", "play QC", "play AD", "play JS"] {
        act(&mut s, t);
    }
    assert_eq!(s.phase(), Phase::StopChoice);
    act(&mut s, "stop");
    // D = 0 after the stop (Q♣ won trick 1 for the defenders): 2b = 4 rams.
    let d = s.last_deal().unwrap();
    assert_eq!((d.against, d.amount), (Some(1), 4));
    let mut s = dealt(g, E1);
    for t in [
        "knock", "pass", "pass", "play 7D", "play JH", "play KD", "play JS",
    ] {
        act(&mut s, t);
    }
    // The declaring side won trick 1 with 7♦ after a knock: no stop choice.
    assert_eq!(s.phase(), Phase::Play);
}

// §12, E5, §15.17, §15.18 -----------------------------------------------------------------

#[test]
fn e5_end_of_game_loser_rules() {
    // A (team 0) reaches 12, B has 0 pips (and even rams): A is the cat.
    assert_eq!(loser([12, 0], [0, 3], 0, true), (0, true));
    // A 13, B 5, B has 2 rams: B loses.
    assert_eq!(loser([13, 5], [0, 2], 0, true), (1, false));
    // A 12, B 7, no rams: A loses.
    assert_eq!(loser([12, 7], [0, 0], 0, true), (0, false));
    // A 12 and 1 ram, B 3: A loses.
    assert_eq!(loser([12, 3], [1, 0], 0, true), (0, false));
    // cat_rule = false: rule 1 is skipped.
    assert_eq!(loser([12, 0], [0, 3], 0, false), (1, false));
    assert_eq!(loser([12, 0], [0, 0], 0, false), (0, false));
}

#[test]
fn the_game_ends_only_when_pips_reach_the_limit_never_on_rams() {
    let g = game(&[("pip_limit", "3")]);
    let mut rng = SeededRng::new(12);
    for _ in 0..20 {
        let mut s = g.new_initial_state();
        let mut prev_pips = [0, 0];
        while !s.is_terminal() {
            if s.is_chance_node() {
                s.resolve_chance(&mut rng);
                continue;
            }
            let a = s.legal_actions().choose(&mut rng).unwrap();
            s.apply(a).unwrap();
            if s.is_terminal() {
                let d = s.last_deal().unwrap();
                assert_eq!(d.kind, Some(Kind::Bidding), "only a pip deal ends the game");
                let p = s.pips();
                assert!(p[0] >= 3 || p[1] >= 3);
                assert_ne!(p, prev_pips);
                let l = s.loser().unwrap();
                let reached = usize::from(p[1] >= 3);
                assert_eq!((l, s.cat()), loser(p, s.rams(), reached, true));
                let r = s.returns();
                assert_eq!(r[l], -1.0);
                assert_eq!(r[1 - l], 1.0);
            } else if s.phase() == Phase::Deal {
                prev_pips = s.pips();
                assert!(prev_pips[0] < 3 && prev_pips[1] < 3);
            }
        }
    }
}
