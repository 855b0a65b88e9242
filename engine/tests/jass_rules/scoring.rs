//! §10: scoring a deal: E4, E5, edges 15 and 16, options `match_bonus`, `last_trick_bonus`.

use super::*;

// ---------------------------------------------------------------------------------------------
// §10 — scoring a deal: E4, E5, edges 15 and 16, options `match_bonus`, `last_trick_bonus`
// ---------------------------------------------------------------------------------------------

/// E4 deal (trump Roses, forehand 0). The rules' E4 gives seat 1 "four Kings", which cannot
/// coexist with seat 2's Stöck (the trump K would be seat 1's); seat 1 holds four Aces
/// instead (also 100, four cards), which leaves every number of E4 unchanged.
const E4_HANDS: [&str; 4] = [
    "6B 7B 8B 9B UR 6A 8A 10S 6R",
    "AA AR AS AB 7R 10B 7A UA KS",
    "KR OR 8R 10R 9A KA OS 9S UB",
    "6S 7S 8S OA 10A 9R US OB KB",
];
const E4_PLAYS: &str = "10S KS 9S 6S  AR OR 9R UR  7B AB 8R KB  OS 7S 6B AS  10B KR OB 8B \
                        KA 10A 8A AA  7A 10R OA 6A  9A US 9B 7R  UA UB 8S 6R";
const E4_WYS: [&[&str]; 4] = [&["run 6B-9B"], &["four A"], &[], &["run 6S-8S"]];

/// Plays E4; with `shields` the deal is mirrored (Roses <-> Shields) and Shields is trump.
fn e4_state(extra: &[(&str, &str)], shields: bool) -> JassState {
    let tr = |t: &str| if shields { swap_all(t) } else { t.to_owned() };
    let auto = extra.contains(&("wys", "auto"));
    let hands = E4_HANDS.map(tr);
    let mut s = deal(&game_fh0(extra), hands_ref(&hands));
    act(
        &mut s,
        if shields {
            "trump shields"
        } else {
            "trump roses"
        },
    );
    for c in tr(E4_PLAYS).split_whitespace() {
        let p = seat(&s);
        if s.view(Viewer::Spectator).unwrap().tricks.is_empty() && !s.announcements()[p].made {
            for w in E4_WYS[p].iter().filter(|_| !auto) {
                act(&mut s, &format!("wys {}", tr(w)));
            }
        }
        act(&mut s, &format!("play {c}"));
    }
    s
}

#[test]
fn e4_deal_score_trump_roses_a_122_b_175() {
    let s = e4_state(&[("scope", "deal")], false);
    assert_eq!(s.phase(), Phase::Over);
    assert_eq!(s.card_points(), [97, 55]);
    assert_eq!(last_trick_team(&s), 0);
    assert_eq!(s.wys_winner(), Some(1));
    assert_eq!(s.wys_points(), [0, 100 + 20]);
    assert_eq!(s.stoeck_scored(2), 1);
    assert_eq!(s.deal_points(), [122, 175]);
    let ld = s.last_deal().unwrap();
    assert_eq!(ld.mode, ROSES);
    assert_eq!(ld.raw, [122, 175]);
    assert_eq!(ld.scored, [122, 175]);
    assert_eq!(122 + 175, 157 + 120 + 20);
    // §11 scope = deal: each seat gets its team's deal score minus the other's.
    assert_eq!(&s.returns()[..], &[-53.0, 53.0, -53.0, 53.0]);
    // The announcements of E4: 50 first, then 100 (best), then two "good".
    let a = s.announcements();
    assert_eq!((a[0].said, a[0].points), (Said::Points, Some(50)));
    assert_eq!(
        (a[1].said, a[1].points, a[1].best),
        (Said::Points, Some(100), true)
    );
    assert_eq!(a[2].said, Said::Good);
    assert_eq!(a[3].said, Said::Good);
}

#[test]
fn e4_same_raw_totals_in_shields_game_a_244_b_350() {
    let s = e4_state(&[("scope", "deal")], true);
    assert_eq!(s.card_points(), [97, 55]);
    assert_eq!(s.deal_points(), [122, 175]);
    let ld = s.last_deal().unwrap();
    assert_eq!(ld.mode, Mode::Trump(Suit::SHIELDS));
    assert_eq!(ld.scored, [244, 350]);
    assert_eq!(&s.returns()[..], &[-106.0, 106.0, -106.0, 106.0]);
}

#[test]
fn option_wys_auto_reproduces_e4() {
    // `wys = auto` declares exactly E4's sets (each seat's best), so the deal scores the same.
    let s = e4_state(&[("scope", "deal"), ("wys", "auto")], false);
    assert_eq!(s.wys_points(), [0, 120]);
    assert_eq!(s.last_deal().unwrap().scored, [122, 175]);
}

/// E5 deal: Obenabe, forehand 0 holds all Aces and Kings and the Acorns Ober and takes all
/// nine tricks. Seat 1 holds 6-7-8-9 of Shields (a 50) and declares it if `b_wys`.
fn e5_state(extra: &[(&str, &str)], b_wys: bool) -> JassState {
    let mut opts = vec![("scope", "deal")];
    opts.extend_from_slice(extra);
    let hands = [
        "AA AR AS AB KA KR KS KB OA",
        "6S 7S 8S 9S 6A 7A 9A 6R 7R",
        "8A UA 8R 10R OR US 6B 8B 10B",
        "10A 9R UR 10S OS 7B 9B UB OB",
    ];
    let mut s = deal(&game_fh0(&opts), hands);
    act(&mut s, "obenabe");
    play_lowest(&mut s);
    if b_wys {
        act(&mut s, "wys run 6S-9S");
    }
    play_out(&mut s);
    s
}

#[test]
fn e5_match_obenabe_all_nine_tricks_771() {
    // E5: 152 + 5 + 100 = 257, × 3 = 771.
    let s = e5_state(&[], false);
    assert_eq!(s.tricks_won(), [9, 0]);
    assert_eq!(s.deal_points(), [257, 0]);
    assert_eq!(s.last_deal().unwrap().scored, [771, 0]);
}

#[test]
fn e5_team_b_best_wys_still_scores_150() {
    // E5 / edge 15: a team may take all tricks and still lose the Wys: B's 50 × 3 = 150.
    let s = e5_state(&[], true);
    assert_eq!(s.tricks_won(), [9, 0]);
    assert_eq!(s.wys_winner(), Some(1));
    assert_eq!(s.deal_points(), [257, 50]);
    assert_eq!(s.last_deal().unwrap().scored, [771, 150]);
}

#[test]
fn edge_15_team_with_all_tricks_can_still_lose_the_wys() {
    // Edge 15: Match for A, but B's 50 is the best declared Wys and scores (§8.4).
    let s = e5_state(&[], true);
    assert_eq!(s.tricks_won(), [9, 0]);
    assert_eq!(s.wys_points(), [0, 50]);
    assert_eq!(s.revealed_wys(), cards("6S 7S 8S 9S"));
}

#[test]
fn edge_15_match_bonus_only_for_all_nine_tricks() {
    // Obenabe: seat 0 leads the Bells 6 into seat 1's Bells A, then takes the other eight
    // tricks: 8 tricks, no Match. B: 6B 0 + AB 11 + 7B 0 + 8B 8 = 19; A: 133 + 5 = 138.
    let hands = [
        "AA KA OA AR KR OR AS KS 6B",
        "AB 6A 8A 10A 6R 8R 10R 6S 8S",
        "7A 9A UA 7R 9R UR 7S 9S 7B",
        "10S US OS 8B 9B 10B UB OB KB",
    ];
    let mut s = deal(&game_fh0(&[("scope", "deal")]), hands);
    script(&mut s, "obenabe, play 6B");
    play_out(&mut s);
    assert_eq!(s.tricks_won(), [8, 1]);
    assert_eq!(s.card_points(), [133, 19]);
    assert_eq!(s.deal_points(), [138, 19]);
    assert_eq!(s.last_deal().unwrap().scored, [414, 57]);
}

#[test]
fn multiplier_applies_to_wys_and_stoeck() {
    // Edge 16 / §10: deal = raw × multiplier, raw = cards + last trick + Match + Wys + Stöck.
    // Trump Bells (×2): A 152 + 5 + 100 + 100 (6-card run) = 357 -> 714; B Stöck 20 -> 40;
    // B's 3-run loses to A's 100.
    let s = bells_match_deal(&[]);
    assert_eq!(s.wys_points(), [100, 0]);
    assert_eq!(s.deal_points(), [357, 20]);
    assert_eq!(s.last_deal().unwrap().scored, [714, 40]);
    let s = bells_match_deal(&[("multiplier_scheme", "none")]);
    assert_eq!(s.last_deal().unwrap().scored, [357, 20]);
}

#[test]
fn option_match_bonus() {
    // §16 `match_bonus` (default 100).
    let s = e5_state(&[("match_bonus", "50")], false);
    assert_eq!(s.last_deal().unwrap().scored, [(152 + 5 + 50) * 3, 0]);
    let s = e5_state(&[("match_bonus", "0")], false);
    assert_eq!(s.last_deal().unwrap().scored, [(152 + 5) * 3, 0]);
}

#[test]
fn option_last_trick_bonus() {
    // §16 `last_trick_bonus` (default 5).
    let s = e5_state(&[("last_trick_bonus", "0")], false);
    assert_eq!(s.last_deal().unwrap().scored, [(152 + 100) * 3, 0]);
    let s = e5_state(&[("last_trick_bonus", "20")], false);
    assert_eq!(s.last_deal().unwrap().scored, [(152 + 20 + 100) * 3, 0]);
    // Without Match: the last-trick team gets the bonus.
    for bonus in [0, 5, 20] {
        let s = played_deal(
            &[("last_trick_bonus", &bonus.to_string())],
            ["", "", "", ""],
            "trump acorns",
        );
        let l = last_trick_team(&s);
        let stoeck: u32 = (0..4).map(|p| 20 * u32::from(s.stoeck_scored(p))).sum();
        assert_eq!(
            s.deal_points()[0] + s.deal_points()[1],
            152 + bonus + stoeck
        );
        assert!(s.deal_points()[l] >= s.card_points()[l] + bonus);
    }
}
