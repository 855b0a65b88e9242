//! §3: card points; E1; edge 1 (157 in every mode); edge 10 (8s worth 8).

use super::*;

// ---------------------------------------------------------------------------------------------
// §3 — card points; E1; edge 1 (157 in every mode); edge 10 (8s worth 8)
// ---------------------------------------------------------------------------------------------

/// Card points of §3.3, written out independently of the engine.
fn rule_points(mode: Mode, six_is_eleven: bool, c: Card) -> u32 {
    let r = c.rank();
    match mode {
        Mode::Trump(t) if c.suit() == t => match r {
            Rank::Jack => 20,
            Rank::Nine => 14,
            Rank::Ace => 11,
            Rank::King => 4,
            Rank::Queen => 3,
            Rank::Ten => 10,
            _ => 0,
        },
        _ => match r {
            Rank::Ace if mode == Mode::Undenufe && six_is_eleven => 0,
            Rank::Six if mode == Mode::Undenufe && six_is_eleven => 11,
            Rank::Ace => 11,
            Rank::King => 4,
            Rank::Queen => 3,
            Rank::Jack => 2,
            Rank::Ten => 10,
            Rank::Eight if matches!(mode, Mode::Obenabe | Mode::Undenufe) => 8,
            _ => 0,
        },
    }
}

fn suit_total(mode: Mode, six: bool, suit: Suit) -> u32 {
    pack()
        .of_suit(suit)
        .iter()
        .map(|c| rule_points(mode, six, c))
        .sum()
}

/// Plays a whole deal in `mode` (lowest legal card) and checks after every trick that the
/// winner's team gained exactly the §3.3 points of its four cards; returns the state.
fn deal_checking_every_trick(extra: &[(&str, &str)], mode: Mode, seed: u64) -> JassState {
    let six = extra.contains(&("undenufe_six_is_eleven", "true"));
    let mut opts = vec![("scope", "deal")];
    opts.extend_from_slice(extra);
    let mut s = game_with(&opts).new_initial_state();
    s.resolve_chance(&mut SeededRng::new(seed));
    act(&mut s, &mode.name());
    for t in 0..9 {
        let before = s.card_points();
        for _ in 0..4 {
            play_lowest(&mut s);
        }
        let v = s.view(Viewer::Omniscient).unwrap();
        let trick = &v.tricks[t];
        let pts: u32 = trick
            .cards
            .iter()
            .map(|p| rule_points(mode, six, Card::parse(&p.card).expect("card")))
            .sum();
        let team = trick.winner % 2;
        assert_eq!(
            s.card_points()[team],
            before[team] + pts,
            "trick {t} {mode:?}"
        );
        assert_eq!(s.card_points()[1 - team], before[1 - team]);
    }
    assert_eq!(s.phase(), Phase::Over);
    s
}

#[test]
fn e1_trump_roses_suit_totals_62_and_30_sum_157() {
    // E1: trump suit 62, each other suit 30, 152 in all, +5 = 157.
    assert_eq!(suit_total(ROSES, false, Suit::ROSES), 62);
    for suit in [Suit::ACORNS, Suit::SHIELDS, Suit::BELLS] {
        assert_eq!(suit_total(ROSES, false, suit), 30);
    }
    for seed in [1, 2, 3] {
        let s = deal_checking_every_trick(&[], ROSES, seed);
        assert_eq!(s.card_points()[0] + s.card_points()[1], 152);
        let l = last_trick_team(&s);
        assert_eq!(s.card_points()[l] + 5 + s.card_points()[1 - l], 157);
    }
}

#[test]
fn e1_obenabe_each_suit_38_sum_157() {
    // E1: Obenabe, each suit A11 K4 O3 U2 10-10 8-8 = 38; ×4 = 152; +5 = 157.
    for suit in Suit::ALL {
        assert_eq!(suit_total(Mode::Obenabe, false, suit), 38);
    }
    let s = deal_checking_every_trick(&[], Mode::Obenabe, 4);
    assert_eq!(s.card_points()[0] + s.card_points()[1], 152);
}

#[test]
fn e1_undenufe_six_is_eleven_each_suit_38_sum_157() {
    // E1 with `undenufe_six_is_eleven`: 6-11 K4 O3 U2 10-10 8-8 = 38 -> 152 (+5).
    for suit in Suit::ALL {
        assert_eq!(suit_total(Mode::Undenufe, true, suit), 38);
    }
    let s = deal_checking_every_trick(&[("undenufe_six_is_eleven", "true")], Mode::Undenufe, 6);
    assert_eq!(s.card_points()[0] + s.card_points()[1], 152);
    let l = last_trick_team(&s);
    assert_eq!(s.deal_points()[l] + s.deal_points()[1 - l], 157);
}

#[test]
fn edge_01_card_points_and_last_trick_total_157_in_every_mode() {
    // Edge 1 / §3.3 / §10 check: cards + last trick = 157 in all modes, every trick scored by
    // the §3.3 table (no Wys declared; Stöck and Match accounted separately).
    let variants: [&[(&str, &str)]; 2] = [&[], &[("undenufe_six_is_eleven", "true")]];
    for extra in variants {
        for mode in Mode::ALL {
            for seed in 20..24 {
                let s = deal_checking_every_trick(extra, mode, seed);
                assert_eq!(s.card_points()[0] + s.card_points()[1], 152, "{mode:?}");
                let stoeck: u32 = (0..4).map(|p| 20 * u32::from(s.stoeck_scored(p))).sum();
                let matsch = if s.tricks_won().contains(&9) { 100 } else { 0 };
                let raw = s.deal_points();
                assert_eq!(
                    raw[0] + raw[1],
                    157 + stoeck + matsch,
                    "{mode:?} seed {seed}"
                );
                for (team, r) in raw.iter().enumerate() {
                    assert_eq!(*r, expected_raw(&s, team));
                }
            }
        }
    }
}

#[test]
fn option_undenufe_six_is_eleven_changes_only_undenufe() {
    // §16 `undenufe_six_is_eleven`: in Undenufe 6 = 11 and A = 0; other modes unchanged.
    // A trick 6A 7A 8A AA in Undenufe: 0 + 0 + 8 + 11 = 19 by default, 11 + 0 + 8 + 0 = 19
    // with the option; 6A 7A 9A KA: 4 by default, 15 with the option.
    let h = fill(["6A", "7A", "9A", "KA"]);
    for (six, expected) in [("false", 4), ("true", 15)] {
        let game = game_fh0(&[("undenufe_six_is_eleven", six)]);
        let mut s = deal(&game, hands_ref(&h));
        script(&mut s, "undenufe, play 6A, play 7A, play 9A, play KA");
        assert_eq!(s.card_points(), [expected, 0], "six_is_eleven = {six}");
        // Obenabe is not affected: K wins, 4 points.
        let mut s = deal(&game, hands_ref(&h));
        script(&mut s, "obenabe, play 6A, play 7A, play 9A, play KA");
        assert_eq!(s.card_points(), [0, 4]);
    }
}

#[test]
fn edge_10_eights_are_worth_eight_in_obenabe_and_undenufe_only() {
    // §3.3: the 8 is worth 8 in Obenabe/Undenufe, 0 in a trump game (trump or not).
    let h = fill(["8A", "6A", "7A", "9A"]);
    // Trick 8A 6A 7A 9A: the 9A wins in Obenabe and in trump games, the 6A in Undenufe (all
    // team B); the trick is worth 8 only where the 8 counts (and 14 for the trump Nell).
    for (mode, expected) in [
        ("obenabe", 8),
        ("undenufe", 8),
        ("trump roses", 0),
        ("trump acorns", 14),
    ] {
        let mut s = deal(&game_fh0(&[]), hands_ref(&h));
        script(
            &mut s,
            &format!("{mode}, play 8A, play 6A, play 7A, play 9A"),
        );
        assert_eq!(s.card_points(), [0, expected], "{mode}");
    }
}
