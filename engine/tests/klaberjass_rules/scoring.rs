//! §9 Bella, §11 scoring.

use super::*;

// ---------------------------------------------------------------------------------------------
// §9 Bella, §11 scoring
// ---------------------------------------------------------------------------------------------

#[test]
fn edge_14_bella_counts_for_the_non_maker_and_enters_the_comparison() {
    // Dealer is maker (names spades); elder holds K♠ Q♠ and scores Bella.
    let mut s = spades_deal("KS QS 8S QC KC 8C 9C 10C 9D", "7S AS JD 8H 7H 9H 10H JH QH");
    assert_eq!(s.maker(), Some(1));
    play_out(&mut s);
    assert_eq!(s.bella(), [true, false]);
    let d = s.last_deal().expect("done");
    assert_eq!(
        d.totals[0],
        20 + s.card_points()[0]
            + if d.totals[0] > s.card_points()[0] + 20 {
                10
            } else {
                0
            }
    );
    let (outcome, added, _) = score_deal(1, d.totals, MakerTieRule::OpponentScoresOwn);
    assert_eq!((d.outcome, d.added), (outcome, added));
}

#[test]
fn bella_is_not_scored_by_a_player_holding_only_one_of_king_and_queen() {
    let mut s = spades_deal("KS 7S 8S QC KC 8C 9C 10C 9D", "QS AS JD 8H 7H 9H 10H JH AH");
    play_out(&mut s);
    assert_eq!(s.bella(), [false, false]);
}

#[test]
fn e4_deal_scores() {
    // Maker = elder (seat 0): 118 > 73.
    assert_eq!(
        score_deal(0, [118, 73], MakerTieRule::OpponentScoresOwn),
        (Outcome::MakerWins, [118, 73], 0)
    );
    // Younger the maker: 73 < 118, bête: elder +191.
    assert_eq!(
        score_deal(1, [118, 73], MakerTieRule::OpponentScoresOwn),
        (Outcome::Bete, [191, 0], 0)
    );
    // Tie: maker 0, opponent 81.
    assert_eq!(
        score_deal(0, [81, 81], MakerTieRule::OpponentScoresOwn),
        (Outcome::Tie, [0, 81], 0)
    );
}

#[test]
fn edge_15_tie_gives_the_opponent_his_own_and_bete_gives_him_both_totals() {
    assert_eq!(
        score_deal(1, [90, 90], MakerTieRule::OpponentScoresOwn),
        (Outcome::Tie, [90, 0], 0)
    );
    assert_eq!(
        score_deal(1, [100, 80], MakerTieRule::OpponentScoresOwn),
        (Outcome::Bete, [180, 0], 0)
    );
}

#[test]
fn maker_tie_rule_hang_sets_the_points_aside_for_the_next_higher_adder() {
    assert_eq!(
        score_deal(0, [81, 81], MakerTieRule::Hang),
        (Outcome::Tie, [0, 0], 162)
    );
    assert_eq!(held_over_goes_to([90, 40]), Some(0));
    assert_eq!(held_over_goes_to([0, 120]), Some(1));
    assert_eq!(held_over_goes_to([0, 0]), None, "set aside again");
}

#[test]
fn scope_deal_returns_are_the_difference_of_the_additions() {
    let mut s = spades_deal("KS QS 8S QC KC 8C 9C 10C 9D", "7S AS JD 8H 7H 9H 10H JH QH");
    play_out(&mut s);
    assert!(s.is_terminal());
    let a = s.last_deal().expect("done").added;
    let r = s.returns();
    assert_eq!(r[0], f64::from(a[0]) - f64::from(a[1]));
    assert_eq!(r[1], -r[0]);
}

#[test]
fn scope_deal_views_show_the_deals_points_as_the_scores() {
    // §12 [decision]: at the end of a `scope = deal` game the view's scores hold what the deal
    // added, as after the first deal of a match (the same in every game).
    let mut s = spades_deal("KS QS 8S QC KC 8C 9C 10C 9D", "7S AS JD 8H 7H 9H 10H JH QH");
    play_out(&mut s);
    assert!(s.is_terminal());
    let a = s.last_deal().expect("done").added;
    assert_ne!(a, [0, 0]);
    assert_eq!(s.scores(), a);
    for v in [
        Viewer::Seat(0),
        Viewer::Seat(1),
        Viewer::Spectator,
        Viewer::Omniscient,
    ] {
        assert_eq!(s.view(v).expect("view").scores, a, "{v:?}");
    }
    // An annulled deal scores nothing.
    let mut s = start(&game(&[]), "7C 8C 9C 7D 8D 9D", "10C JC QC 10D JD QD", "KH");
    for _ in 0..4 {
        act(&mut s, "pass");
    }
    assert!(s.is_terminal());
    assert_eq!(s.view(Viewer::Spectator).expect("view").scores, [0, 0]);
}

#[test]
fn edge_16_17_last_trick_bonus_goes_to_the_winner_of_trick_nine_and_points_add_up() {
    for bonus in ["10", "0", "25"] {
        let g = game(&[("last_trick_bonus", bonus)]);
        let elder = "AC KC QC JC AD KD QD JD 10D";
        let dealer = "AH KH QH 10H 9H KS QS JS 10S";
        let mut s = dealt(&g, elder, dealer, "8H", "7H", &["take"]);
        skip_to_play(&mut s);
        play_out(&mut s);
        let b: u32 = bonus.parse().expect("int");
        let v = s.view(Viewer::Omniscient).expect("view");
        let last = v.tricks.last().expect("nine tricks").winner;
        let cp = s.card_points();
        let t = s.last_deal().expect("done").totals;
        assert_eq!(t[last], cp[last] + b + 20 * u32::from(s.bella()[last]));
        assert_eq!(
            t[1 - last],
            cp[1 - last] + 20 * u32::from(s.bella()[1 - last])
        );
        assert_eq!(cp[0] + cp[1], 111);
    }
}
