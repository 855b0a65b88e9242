//! Knocking and doubling: §6.3 to §6.5, §15.15.

use super::*;

// §6.3–6.5, §15.15 ------------------------------------------------------------------------

#[test]
fn knock_order_declarer_then_partner_and_double_only_after_a_knock() {
    let mut s = dealt(dealer0(), E1);
    assert_eq!(legal_texts(&s), ["pass", "knock"]);
    assert!(illegal(&s, "double").contains("knock"));
    act(&mut s, "pass");
    assert_eq!(s.current_player().seat(), Some(1), "the declarer's partner");
    act(&mut s, "knock");
    assert_eq!(s.knocked_by(), Some(1));
    assert_eq!(
        s.current_player().seat(),
        Some(0),
        "the defender to the declarer's left"
    );
    assert_eq!(legal_texts(&s), ["pass", "double"]);
    act(&mut s, "pass");
    assert_eq!(s.current_player().seat(), Some(2));
    act(&mut s, "double");
    assert_eq!(s.doubled_by(), Some(2));
    assert_eq!(s.phase(), Phase::Play);
    assert_eq!(s.current_player().seat(), Some(3), "the declarer leads");
    // No knock after the first lead; no knock in a bidding game.
    assert!(illegal(&s, "knock").contains("card"));
    let mut b = dealt(dealer0(), BID_DEAL);
    assert!(illegal(&b, "knock").contains("bid"));
    act(&mut b, "bid 3");
}

#[test]
fn without_a_knock_nobody_doubles_and_play_starts() {
    let mut s = dealt(dealer0(), E1);
    act(&mut s, "pass");
    act(&mut s, "pass");
    assert_eq!(s.phase(), Phase::Play);
    assert_eq!(s.knocked_by(), None);
}

#[test]
fn e3_a_knock_stops_play_at_the_defenders_first_trick() {
    // E1's deal: declarer 3 knocks, seat 2 doubles (m = 4, b = 2).
    let mut s = dealt(dealer0(), E1);
    act(&mut s, "knock");
    act(&mut s, "pass");
    act(&mut s, "double");
    // Trick 1: 7♦ led, seat 0's Q♣ wins for the defenders: play stops.
    for t in ["play 7D", "play QC", "play AD", "play JS"] {
        act(&mut s, t);
    }
    assert_eq!(s.phase(), Phase::Deal, "the next deal starts");
    let d = s.last_deal().unwrap();
    assert!(d.knock_failed);
    assert_eq!(d.multiplier, 4);
    assert_eq!((d.against, d.amount), (Some(1), 2 * 2 * 4));
    assert_eq!(s.rams(), [0, 16]);
    assert_eq!(d.declarer_points + d.defender_points, 3 + 11 + 2);
    // E3's own figures (b = 1).
    assert_eq!(
        sevens_rams(1, 4, true, false, 120, AllTricksLoss::DoubleLoss),
        (false, 4)
    );
    assert_eq!(
        sevens_rams(1, 4, true, true, 0, AllTricksLoss::DoubleLoss),
        (true, 8)
    );
    assert_eq!(
        sevens_rams(1, 4, true, true, 0, AllTricksLoss::DoubleBase),
        (true, 4)
    );
    assert_eq!(
        sevens_rams(1, 2, true, true, 0, AllTricksLoss::DoubleLoss),
        (true, 4)
    );
}

#[test]
fn a_knocked_game_won_in_all_eight_tricks_gives_b_times_m() {
    let g = game(&[("scope", "deal")]);
    let mut rng = SeededRng::new(21);
    let mut seen = 0;
    for _ in 0..400 {
        let mut s = g.new_initial_state();
        s.resolve_chance(&mut rng);
        if s.kind() != Some(Kind::Sevens) {
            continue;
        }
        act(&mut s, "knock");
        act(&mut s, "pass");
        act(&mut s, "pass");
        while !s.is_terminal() {
            let a = s.legal_actions().choose(&mut rng).unwrap();
            s.apply(a).unwrap();
        }
        let d = s.last_deal().unwrap();
        let dt = d.declarer.unwrap() % 2;
        if d.knock_failed {
            assert_eq!(d.defender_tricks, 1);
            assert_eq!((d.against, d.amount), (Some(dt), 2 * d.base * 2));
        } else {
            assert_eq!(d.declarer_tricks, 8);
            assert_eq!(d.declarer_points, 120);
            assert_eq!((d.against, d.amount), (Some(1 - dt), d.base * 2));
            seen += 1;
        }
        assert_eq!(s.returns()[dt], -s.returns()[1 - dt]);
    }
    let _ = seen;
}
