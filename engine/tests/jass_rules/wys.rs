//! §8: Wys: values, set building, comparison (E3), scoring, announcements; edges 11, 12,
//! 13, 18; options `long_sequence_values`, `four_banners_wys`, `wys`.

use super::*;

// ---------------------------------------------------------------------------------------------
// §8 — Wys: values (§8.1), set building (§8.2), comparison (§8.3, E3), scoring (§8.4),
// announcements (§8.5); edges 11, 12, 13, 18; options `long_sequence_values`,
// `four_banners_wys`, `wys`
// ---------------------------------------------------------------------------------------------

/// Deals `partial` (completed by [`fill`]) with `first_dealer`, chooses `mode`, and plays
/// trick 1 with the lowest legal card, each seat first declaring `decl[seat]`.
fn wys_trick_one(
    extra: &[(&str, &str)],
    dealer: usize,
    partial: [&str; 4],
    mode: &str,
    decl: [&[&str]; 4],
) -> JassState {
    let d = dealer.to_string();
    let mut opts = vec![("first_dealer", d.as_str())];
    opts.extend_from_slice(extra);
    let h = fill(partial);
    let mut s = deal(&game_with(&opts), hands_ref(&h));
    act(&mut s, mode);
    for _ in 0..4 {
        let p = seat(&s);
        for w in decl[p] {
            act(&mut s, &format!("wys {w}"));
        }
        play_lowest(&mut s);
    }
    assert_eq!(s.view(Viewer::Spectator).unwrap().tricks.len(), 1);
    s
}

const NONE: &[&str] = &[];

/// The Wys texts the seat to act may declare now.
fn wys_offered(s: &JassState) -> Vec<String> {
    legal_texts(s)
        .into_iter()
        .filter(|t| t.starts_with("wys "))
        .collect()
}

#[test]
fn wys_values_sequences_and_four_of_a_kind() {
    // §8.1: 3 = 20, 4 = 50, 5+ = 100 (flat); four A/K/O = 100, four 9 = 150, four U = 200.
    let cases: [(&str, &str, u32); 12] = [
        ("6R 7R 8R", "run 6R-8R", 20),
        ("6R 7R 8R 9R", "run 6R-9R", 50),
        ("6R 7R 8R 9R 10R", "run 6R-10R", 100),
        ("6R 7R 8R 9R 10R UR", "run 6R-UR", 100),
        ("6R 7R 8R 9R 10R UR OR", "run 6R-OR", 100),
        ("6R 7R 8R 9R 10R UR OR KR", "run 6R-KR", 100),
        ("6R 7R 8R 9R 10R UR OR KR AR", "run 6R-AR", 100),
        ("AA AR AS AB", "four A", 100),
        ("KA KR KS KB", "four K", 100),
        ("OA OR OS OB", "four O", 100),
        ("9A 9R 9S 9B", "four 9", 150),
        ("UA UR US UB", "four U", 200),
    ];
    for (hand, item, points) in cases {
        let s = wys_trick_one(
            &[],
            3,
            [hand, "", "", ""],
            "trump acorns",
            [&[item], NONE, NONE, NONE],
        );
        assert_eq!(s.wys_winner(), Some(0), "{item}");
        assert_eq!(s.wys_points(), [points, 0], "{item}");
        assert_eq!(s.deal_points()[0], points + s.card_points()[0], "{item}");
    }
}

#[test]
fn wys_values_do_not_depend_on_the_mode() {
    // §8.1: values do not depend on the mode (the multiplier applies to the deal, §10).
    for mode in ["trump roses", "trump bells", "obenabe", "undenufe"] {
        let s = wys_trick_one(
            &[],
            3,
            ["6S 7S 8S UA", "9A 9R 9S 9B", "", ""],
            mode,
            [&["run 6S-8S"], &["four 9"], NONE, NONE],
        );
        assert_eq!(s.wys_points(), [0, 150], "{mode}");
    }
}

#[test]
fn wys_sequences_use_natural_order_in_every_mode() {
    // §3.2 / §8.1: 9-10-U is a run in every mode (even where U is the top trump).
    for mode in Mode::ALL {
        let h = fill(["9R 10R UR", "", "", ""]);
        let mut s = deal(&game_fh0(&[]), hands_ref(&h));
        act(&mut s, &mode.name());
        assert_eq!(wys_offered(&s), ["wys run 9R-UR"], "{mode:?}");
    }
}

#[test]
fn option_long_sequence_values_escalating() {
    // §16 `long_sequence_values = escalating`: 5 = 100, 6 = 150, 7 = 200, 8 = 250, 9 = 300;
    // 3 and 4 unchanged.
    let esc: &[(&str, &str)] = &[("long_sequence_values", "escalating")];
    let ranks = ["6R", "7R", "8R", "9R", "10R", "UR", "OR", "KR", "AR"];
    for (len, points) in [
        (3, 20),
        (4, 50),
        (5, 100),
        (6, 150),
        (7, 200),
        (8, 250),
        (9, 300),
    ] {
        let hand = ranks[..len].join(" ");
        let item = format!("run 6R-{}", ranks[len - 1]);
        let s = wys_trick_one(
            esc,
            3,
            [&hand, "", "", ""],
            "obenabe",
            [&[&item], NONE, NONE, NONE],
        );
        assert_eq!(s.wys_points(), [points, 0], "{item}");
        let flat = wys_trick_one(
            &[],
            3,
            [&hand, "", "", ""],
            "obenabe",
            [&[&item], NONE, NONE, NONE],
        );
        assert_eq!(flat.wys_points(), [points.min(100), 0], "{item} flat");
    }
    // A 6-card 150 now beats four Unders? No: 200 > 150 (points first).
    let s = wys_trick_one(
        esc,
        3,
        ["6R 7R 8R 9R 10R KR", "UA UR US UB", "", ""],
        "obenabe",
        [&["run 6R-10R"], &["four U"], NONE, NONE],
    );
    assert_eq!(s.wys_points(), [0, 200]);
}

#[test]
fn edge_18_four_tens_score_nothing_by_default() {
    // §8.1 / edge 18: four 10s (and 8s, 7s, 6s) are no Wys by default.
    let h = fill(["10A 10R 10S 10B 8A 8R 8S 8B", "", "", ""]);
    let mut s = deal(&game_fh0(&[]), hands_ref(&h));
    act(&mut s, "trump roses");
    assert!(wys_offered(&s).is_empty(), "{:?}", wys_offered(&s));
    assert_illegal(&mut s, "wys four 10", "not in the hand");
    assert_illegal(&mut s, "wys four 8", "not in the hand");
}

#[test]
fn option_four_banners_wys_four_tens_score_100() {
    // §16 `four_banners_wys = true`: four 10s = 100; four 8s still nothing.
    let opt: &[(&str, &str)] = &[("four_banners_wys", "true")];
    let h = fill(["10A 10R 10S 10B 8A 8R 8S 8B", "", "", ""]);
    let mut s = deal(&game_fh0(opt), hands_ref(&h));
    act(&mut s, "trump roses");
    assert_eq!(wys_offered(&s), ["wys four 10"]);
    let s = wys_trick_one(
        opt,
        3,
        ["10A 10R 10S 10B", "", "", ""],
        "trump roses",
        [&["four 10"], NONE, NONE, NONE],
    );
    assert_eq!(s.wys_points(), [100, 0]);
    // Four 10s rank below four Obers (same points and cards, lower rank).
    let s = wys_trick_one(
        opt,
        3,
        ["10A 10R 10S 10B", "OA OR OS OB", "", ""],
        "trump roses",
        [&["four 10"], &["four O"], NONE, NONE],
    );
    assert_eq!(s.wys_winner(), Some(1));
}

#[test]
fn edge_12_no_card_in_two_wys_runs_never_split_nine_card_run_is_100() {
    // §8.2: a run is never split; a 9-card run is one Wys of 100 (flat).
    let h = fill(["6R 7R 8R 9R 10R UR OR KR AR", "", "", ""]);
    let mut s = deal(&game_fh0(&[]), hands_ref(&h));
    act(&mut s, "trump acorns");
    assert_eq!(wys_offered(&s), ["wys run 6R-AR"]);
    assert_illegal(&mut s, "wys run 6R-8R", "splits a run");
    assert_illegal(&mut s, "wys run 9R-AR", "splits a run");
    let s = wys_trick_one(
        &[],
        3,
        ["6R 7R 8R 9R 10R UR OR KR AR", "", "", ""],
        "trump acorns",
        [&["run 6R-AR"], NONE, NONE, NONE],
    );
    assert_eq!(s.wys_points(), [100, 0]);
    // No card in two Wys: after four Kings, the Roses run loses its K (10-U-O remains).
    let h = fill(["KA KR KS KB 10R UR OR", "", "", ""]);
    let mut s = deal(&game_fh0(&[]), hands_ref(&h));
    act(&mut s, "trump acorns");
    assert_eq!(wys_offered(&s), ["wys four K", "wys run 10R-KR"]);
    act(&mut s, "wys four K");
    assert_eq!(wys_offered(&s), ["wys run 10R-OR"]);
    assert_illegal(&mut s, "wys run 10R-KR", "overlaps");
    act(&mut s, "wys run 10R-OR");
    play_lowest(&mut s);
    for _ in 0..3 {
        play_lowest(&mut s);
    }
    assert_eq!(s.wys_points(), [120, 0]);
}

#[test]
fn e3_four_unders_or_the_sequence_not_both() {
    // E3: four Unders and U-O-K of Roses: 200 or 20, never both.
    let partial = ["UA UR US UB OR KR", "", "", ""];
    let h = fill(partial);
    let mut s = deal(&game_fh0(&[]), hands_ref(&h));
    act(&mut s, "trump acorns");
    assert_eq!(wys_offered(&s), ["wys four U", "wys run UR-KR"]);
    let mut a = s.clone();
    act(&mut a, "wys four U");
    assert!(wys_offered(&a).is_empty());
    assert_illegal(&mut a, "wys run UR-KR", "overlaps");
    let mut b = s.clone();
    act(&mut b, "wys run UR-KR");
    assert!(wys_offered(&b).is_empty());
    assert_illegal(&mut b, "wys four U", "");
    let s = wys_trick_one(
        &[],
        3,
        partial,
        "trump acorns",
        [&["four U"], NONE, NONE, NONE],
    );
    assert_eq!(s.wys_points(), [200, 0]);
    let s = wys_trick_one(
        &[],
        3,
        partial,
        "trump acorns",
        [&["run UR-KR"], NONE, NONE, NONE],
    );
    assert_eq!(s.wys_points(), [20, 0]);
}

#[test]
fn e3_equal_sequences_higher_top_card_wins() {
    // E3: O-U-10 of Acorns (top O) vs K-O-U of Bells (top K) -> Bells.
    let s = wys_trick_one(
        &[],
        3,
        ["10A UA OA", "UB OB KB", "", ""],
        "trump roses",
        [&["run 10A-OA"], &["run UB-KB"], NONE, NONE],
    );
    assert_eq!(s.wys_winner(), Some(1));
    assert_eq!(s.wys_points(), [0, 20]);
}

#[test]
fn wys_comparison_more_cards_beats_four_of_a_kind() {
    // E3: four Kings (100, 4 cards) vs 6-7-8-9-10 of Roses (100, 5 cards) -> sequence.
    let s = wys_trick_one(
        &[],
        3,
        ["KA KR KS KB", "6R 7R 8R 9R 10R", "", ""],
        "trump acorns",
        [&["four K"], &["run 6R-10R"], NONE, NONE],
    );
    assert_eq!(s.wys_winner(), Some(1));
    assert_eq!(s.wys_points(), [0, 100]);
    // §8.3.2: a 6-card 100 beats a 5-card 100.
    let s = wys_trick_one(
        &[],
        3,
        ["6B 7B 8B 9B 10B", "6S 7S 8S 9S 10S US", "", ""],
        "trump acorns",
        [&["run 6B-10B"], &["run 6S-US"], NONE, NONE],
    );
    assert_eq!(s.wys_winner(), Some(1));
}

#[test]
fn e3_trump_sequence_beats_equal_plain_sequence() {
    // E3: A-K-O of Roses vs A-K-O of Shields, trump Shields -> Shields (even though the
    // Roses run was declared first); trump Roses -> Roses.
    let partial = ["OR KR AR", "OS KS AS", "", ""];
    let decl: [&[&str]; 4] = [&["run OR-AR"], &["run OS-AS"], NONE, NONE];
    let s = wys_trick_one(&[], 3, partial, "trump shields", decl);
    assert_eq!(s.wys_winner(), Some(1));
    let s = wys_trick_one(&[], 3, partial, "trump roses", decl);
    assert_eq!(s.wys_winner(), Some(0));
}

#[test]
fn e3_equal_wys_earlier_declaration_wins() {
    // E3: 7-8-9 of Acorns by seat 1 vs 7-8-9 of Bells by seat 2, trump Roses, forehand
    // seat 1 -> seat 1 (declared first).
    let partial = ["", "7A 8A 9A", "7B 8B 9B", ""];
    let decl: [&[&str]; 4] = [NONE, &["run 7A-9A"], &["run 7B-9B"], NONE];
    let s = wys_trick_one(&[], 0, partial, "trump roses", decl);
    assert_eq!(s.forehand(), 1);
    assert_eq!(s.wys_winner(), Some(1));
    assert_eq!(s.wys_points(), [0, 20]);
    // With seat 2 as forehand, seat 2 declares first and wins.
    let s = wys_trick_one(&[], 1, partial, "trump roses", decl);
    assert_eq!(s.forehand(), 2);
    assert_eq!(s.wys_winner(), Some(0));
    assert_eq!(s.wys_points(), [20, 0]);
}

#[test]
fn e3_undenufe_lower_sequence_wins() {
    // E3: in Undenufe 6-7-8 beats 7-8-9 (top 6 beats top 7); in Obenabe 7-8-9 wins.
    let partial = ["7A 8A 9A", "6B 7B 8B", "", ""];
    let decl: [&[&str]; 4] = [&["run 7A-9A"], &["run 6B-8B"], NONE, NONE];
    assert_eq!(
        wys_trick_one(&[], 3, partial, "undenufe", decl).wys_winner(),
        Some(1)
    );
    assert_eq!(
        wys_trick_one(&[], 3, partial, "obenabe", decl).wys_winner(),
        Some(0)
    );
}

#[test]
fn e3_undenufe_four_obers_beat_four_kings() {
    let partial = ["KA KR KS KB", "OA OR OS OB", "", ""];
    let decl: [&[&str]; 4] = [&["four K"], &["four O"], NONE, NONE];
    assert_eq!(
        wys_trick_one(&[], 3, partial, "undenufe", decl).wys_winner(),
        Some(1)
    );
    assert_eq!(
        wys_trick_one(&[], 3, partial, "obenabe", decl).wys_winner(),
        Some(0)
    );
}

#[test]
fn edge_11_wys_comparison_order_points_cards_rank_trump_earlier() {
    // §8.3 order. 1. Points: a plain 4-run (50) beats a trump 3-run with top A (20).
    let s = wys_trick_one(
        &[],
        3,
        ["OR KR AR", "6B 7B 8B 9B", "", ""],
        "trump roses",
        [&["run OR-AR"], &["run 6B-9B"], NONE, NONE],
    );
    assert_eq!(s.wys_winner(), Some(1));
    // 2. Cards before rank: 6..10 of Bells (5 cards, top 10) beats four Aces (4 cards, top A).
    let s = wys_trick_one(
        &[],
        3,
        ["AA AR AS AB", "6B 7B 8B 9B 10B", "", ""],
        "trump bells",
        [&["four A"], &["run 6B-10B"], NONE, NONE],
    );
    assert_eq!(s.wys_winner(), Some(1));
    // 3. Rank before trump: plain U-O-K (top K) beats trump 10-U-O (top O).
    let s = wys_trick_one(
        &[],
        3,
        ["10R UR OR", "UA OA KA", "", ""],
        "trump roses",
        [&["run 10R-OR"], &["run UA-KA"], NONE, NONE],
    );
    assert_eq!(s.wys_winner(), Some(1));
    // 4. Trump before declaration order: see `e3_trump_sequence_beats_equal_plain_sequence`;
    // 5. earlier declaration: three equal plain runs, the forehand's (seat 0) wins.
    let s = wys_trick_one(
        &[],
        3,
        ["6A 7A 8A", "6B 7B 8B", "", "6S 7S 8S"],
        "trump roses",
        [&["run 6A-8A"], &["run 6B-8B"], NONE, &["run 6S-8S"]],
    );
    assert_eq!(s.wys_winner(), Some(0));
    assert_eq!(s.wys_points(), [20, 0]);
}

#[test]
fn edge_13_winning_team_scores_both_partners_wys_other_team_none() {
    // §8.4: the best single Wys (seat 0's 6-card run) decides; team A scores seat 0's 100
    // and seat 2's 20; team B scores nothing of its 300 (5-run 100, four O 100, four K 100).
    let s = wys_trick_one(
        &[],
        3,
        [
            "6A 7A 8A 9A 10A UA",
            "6S 7S 8S 9S 10S",
            "6R 7R 8R",
            "KA KR KS KB OA OR OS OB",
        ],
        "trump roses",
        [
            &["run 6A-UA"],
            &["run 6S-10S"],
            &["run 6R-8R"],
            &["four O", "four K"],
        ],
    );
    assert_eq!(s.wys_winner(), Some(0));
    assert_eq!(s.wys_points(), [120, 0]);
    assert_eq!(s.deal_points()[1], s.card_points()[1]);
    assert_eq!(s.deal_points()[0], s.card_points()[0] + 120);
}

#[test]
fn no_wys_declared_means_no_wys_winner() {
    let s = wys_trick_one(&[], 3, ["6A 7A 8A", "", "", ""], "trump roses", [NONE; 4]);
    assert_eq!(s.wys_winner(), None);
    assert_eq!(s.wys_points(), [0, 0]);
}

#[test]
fn wys_announcements_follow_the_table_protocol() {
    // §8.5: first Wys -> its points; nothing -> "good" (or "no Wys" if none yet); lower
    // points -> "good"; equal points -> cards, then rank, then trump stage; best flag public.
    let h = fill(["6A 7A 8A", "", "6B 7B 8B", "6S 7S 8S 9S"]);
    let mut s = deal(&game_fh0(&[]), hands_ref(&h));
    act(&mut s, "trump roses");
    let decl: [&[&str]; 4] = [&["run 6A-8A"], NONE, &["run 6B-8B"], &["run 6S-9S"]];
    let mut seen = Vec::new();
    for _ in 0..4 {
        let p = seat(&s);
        assert!(!s.announcements()[p].made);
        for w in decl[p] {
            act(&mut s, &format!("wys {w}"));
        }
        // The declaration itself is private until the card is laid.
        assert!(!s.view(Viewer::Spectator).unwrap().announcements[p].made);
        play_lowest(&mut s);
        seen.push(s.view(Viewer::Spectator).unwrap().announcements[p]);
    }
    let a = seen;
    assert_eq!(a[0].said, Said::Points);
    assert_eq!((a[0].points, a[0].cards, a[0].best), (Some(20), None, true));
    assert_eq!(a[1].said, Said::Good);
    assert_eq!((a[1].points, a[1].best), (None, false));
    assert_eq!(a[2].said, Said::Points);
    assert_eq!(
        (a[2].points, a[2].cards, a[2].top, a[2].trump, a[2].best),
        (Some(20), Some(3), Some(Rank::Eight), Some(false), false)
    );
    assert_eq!(a[3].said, Said::Points);
    assert_eq!((a[3].points, a[3].cards, a[3].best), (Some(50), None, true));
    assert_eq!(s.wys_winner(), Some(1));
    // A first seat without Wys says "no Wys".
    let s = wys_trick_one(
        &[],
        3,
        ["", "6A 7A 8A", "", ""],
        "trump roses",
        [NONE, &["run 6A-8A"], NONE, NONE],
    );
    let a = s.announcements();
    assert_eq!(a[0].said, Said::NoWys);
    assert_eq!(
        (a[1].said, a[1].points, a[1].best),
        (Said::Points, Some(20), true)
    );
    assert_eq!(a[2].said, Said::Good);
    // Equal points, more cards: the card stage is reached and decides.
    let s = wys_trick_one(
        &[],
        3,
        ["AA AR AS AB", "6B 7B 8B 9B 10B", "", ""],
        "trump roses",
        [&["four A"], &["run 6B-10B"], NONE, NONE],
    );
    let a = s.announcements();
    assert_eq!(
        (a[1].points, a[1].cards, a[1].top, a[1].best),
        (Some(100), Some(5), None, true)
    );
}

#[test]
fn wys_of_winning_team_revealed_other_team_hidden() {
    // §8.5 / §12: after trick 1 the Wys-winning team's declared Wys are public; the other
    // team's stay hidden (announcements only).
    let s = wys_trick_one(
        &[],
        3,
        ["6A 7A 8A 9A", "AA AR AS AB", "", "6S 7S 8S"],
        "trump roses",
        [&["run 6A-9A"], &["four A"], NONE, &["run 6S-8S"]],
    );
    assert_eq!(s.wys_winner(), Some(1));
    assert_eq!(s.revealed_wys(), cards("AA AR AS AB 6S 7S 8S"));
    let v = s.view(Viewer::Spectator).unwrap();
    assert!(v.wys[0].is_none() && v.wys[2].is_none());
    assert_eq!(v.wys[1].as_ref().unwrap()[0].name, "four A");
    assert_eq!(v.wys[1].as_ref().unwrap()[0].points, 100);
    assert_eq!(v.wys[3].as_ref().unwrap()[0].name, "run 6S-8S");
    // Seat 0 still sees its own declaration; seat 2 does not see seat 0's.
    assert!(s.view(Viewer::Seat(0)).unwrap().wys[0].is_some());
    assert!(s.view(Viewer::Seat(2)).unwrap().wys[0].is_none());
    let json = serde_json::to_value(s.view(Viewer::Spectator).unwrap()).unwrap();
    assert!(json["wys"][0].is_null());
    assert_eq!(json["wys"][1][0]["name"], "four A");
}

#[test]
fn option_wys_manual_offers_declarations_auto_declares_best_set() {
    // Engine option `wys`: manual (default) -> Wys are actions of the seat; auto -> none are
    // offered and each seat's best set (most points) is declared when it lays its card.
    let partial = ["UA UR US UB OR KR", "6B 7B 8B", "", ""];
    let h = fill(partial);
    let mut s = deal(&game_fh0(&[]), hands_ref(&h));
    act(&mut s, "trump acorns");
    assert_eq!(wys_offered(&s), ["wys four U", "wys run UR-KR"]);
    let mut s = deal(&game_fh0(&[("wys", "auto")]), hands_ref(&h));
    act(&mut s, "trump acorns");
    assert!(wys_offered(&s).is_empty());
    assert!(s.legal_actions().iter().all(|a| a < 36));
    assert_illegal(&mut s, "wys four U", "automatically");
    for _ in 0..4 {
        play_lowest(&mut s);
    }
    assert_eq!(s.wys_winner(), Some(0));
    assert_eq!(
        s.wys_points(),
        [200, 0],
        "auto prefers four U (200) to the run (20)"
    );
    let names: Vec<String> = s.declared_wys(0).iter().map(|i| i.name()).collect();
    assert_eq!(names, ["four U"]);
    let names: Vec<String> = s.declared_wys(1).iter().map(|i| i.name()).collect();
    assert_eq!(names, ["run 6B-8B"]);
}
