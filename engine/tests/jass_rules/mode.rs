//! §6: choosing the mode, schieben, multipliers.

use super::*;

// ---------------------------------------------------------------------------------------------
// §6 — choosing the mode, schieben, multipliers
// ---------------------------------------------------------------------------------------------

fn any_deal(game: &JassGame) -> JassState {
    let h = fill(["", "", "", ""]);
    deal(game, hands_ref(&h))
}

#[test]
fn forehand_may_declare_any_of_six_modes_or_schieben() {
    // §6.1, §6.2.
    let s = any_deal(&game_fh0(&[]));
    assert_eq!(s.phase(), Phase::ChooseMode);
    assert_eq!(
        legal_texts(&s),
        [
            "trump acorns",
            "trump roses",
            "trump shields",
            "trump bells",
            "obenabe",
            "undenufe",
            "schieben"
        ]
    );
    for (text, mode) in [
        ("trump acorns", Mode::Trump(Suit::ACORNS)),
        ("trump roses", Mode::Trump(Suit::ROSES)),
        ("trump shields", Mode::Trump(Suit::SHIELDS)),
        ("trump bells", Mode::Trump(Suit::BELLS)),
        ("obenabe", Mode::Obenabe),
        ("undenufe", Mode::Undenufe),
    ] {
        let mut t = s.clone();
        act(&mut t, text);
        assert_eq!(t.mode(), Some(mode));
        assert_eq!(t.phase(), Phase::Play);
    }
}

#[test]
fn schieben_partner_must_choose_and_cannot_push_back() {
    // §6.3 / edge 3: after schieben the partner (d+3) must declare; no second push.
    let mut s = any_deal(&game_fh0(&[]));
    act(&mut s, "schieben");
    assert_eq!(s.phase(), Phase::ChooseMode);
    assert_eq!(seat(&s), 2, "forehand 0 pushes to his partner 2");
    let texts = legal_texts(&s);
    assert_eq!(texts.len(), 6);
    assert!(!texts.contains(&"schieben".to_owned()));
    let before = view_json(&s);
    let err = try_act(&mut s, "schieben").unwrap_err();
    match &err {
        Error::IllegalAction { reason, .. } => assert!(reason.contains("must choose"), "{err}"),
        e => panic!("unexpected {e}"),
    }
    assert_eq!(view_json(&s), before, "state unchanged");
}

#[test]
fn edge_03_schieben_forehand_still_leads_trick_one() {
    // §6.3, §7: forehand leads trick 1 even when his partner chose; choice and push public.
    let mut s = any_deal(&game_with(&[("first_dealer", "1")]));
    assert_eq!(seat(&s), 2);
    act(&mut s, "schieben");
    assert_eq!(seat(&s), 0);
    act(&mut s, "trump shields");
    assert_eq!(s.mode(), Some(Mode::Trump(Suit::SHIELDS)));
    assert_eq!(seat(&s), 2, "the forehand leads");
    // §6.5 / §12: mode, push and chooser are public.
    let v = s.view(Viewer::Spectator).unwrap();
    assert!(v.pushed);
    assert_eq!(v.chooser, Some(0));
    assert_eq!(v.mode, Some(Mode::Trump(Suit::SHIELDS)));
    assert_eq!(v.multiplier, Some(2));
    let v = s.view(Viewer::Seat(3)).unwrap();
    assert!(v.pushed && v.chooser == Some(0));
}

#[test]
fn mode_not_pushed_is_public_with_the_forehand_as_chooser() {
    // §6.5.
    let mut s = any_deal(&game_fh0(&[]));
    act(&mut s, "undenufe");
    let v = s.view(Viewer::Seat(1)).unwrap();
    assert!(!v.pushed);
    assert_eq!(v.chooser, Some(0));
    assert_eq!(v.mode, Some(Mode::Undenufe));
    assert_eq!(v.multiplier, Some(4));
}

#[test]
fn option_schieben_back_partner_may_push_back_then_forehand_must_choose() {
    // §16 `schieben_back`.
    let mut s = any_deal(&game_fh0(&[("schieben_back", "true")]));
    act(&mut s, "schieben");
    assert_eq!(seat(&s), 2);
    assert!(legal_texts(&s).contains(&"schieben".to_owned()));
    act(&mut s, "schieben");
    assert_eq!(seat(&s), 0, "pushed back to the forehand");
    assert_eq!(legal_texts(&s).len(), 6, "no third push");
    assert!(try_act(&mut s, "schieben").is_err());
    act(&mut s, "obenabe");
    assert_eq!(seat(&s), 0);
    let v = s.view(Viewer::Spectator).unwrap();
    assert_eq!(v.chooser, Some(0));
    assert!(v.pushed);
}

#[test]
fn edge_04_forehand_lead_without_declaring_equals_trump_of_led_suit() {
    // §6.4: not a separate engine action; a card cannot be laid before the mode. The
    // equivalent is `trump <suit of card>` followed by the lead.
    let h = fill(["KA 7R", "", "", ""]);
    let mut s = deal(&game_fh0(&[]), hands_ref(&h));
    let before = (s.history(), view_json(&s));
    let err = try_act(&mut s, "play KA").unwrap_err();
    match &err {
        Error::IllegalAction { reason, .. } => {
            assert!(reason.contains("mode must be chosen"), "{err}");
        }
        e => panic!("unexpected {e}"),
    }
    assert_eq!((s.history(), view_json(&s)), before);
    script(&mut s, "trump acorns, play KA");
    assert_eq!(s.mode(), Some(Mode::Trump(Suit::ACORNS)));
    let v = s.view(Viewer::Spectator).unwrap();
    assert_eq!(v.trick.len(), 1);
    assert_eq!(v.trick[0].seat, 0);
    assert_eq!(v.trick[0].card, "KA");
    assert_eq!(v.trick[0].french, "K♦");
}

#[test]
fn multipliers_seed_scheme() {
    // §6 multiplier table (default `multiplier_scheme = seed`).
    let g = game_with(&[]);
    assert_eq!(g.multiplier(Mode::Trump(Suit::ACORNS)), 1);
    assert_eq!(g.multiplier(Mode::Trump(Suit::ROSES)), 1);
    assert_eq!(g.multiplier(Mode::Trump(Suit::SHIELDS)), 2);
    assert_eq!(g.multiplier(Mode::Trump(Suit::BELLS)), 2);
    assert_eq!(g.multiplier(Mode::Obenabe), 3);
    assert_eq!(g.multiplier(Mode::Undenufe), 4);
}

#[test]
fn option_multiplier_scheme_swisslos_undenufe_times_three() {
    // §16 `multiplier_scheme = swisslos`: as seed but Undenufe ×3.
    let g = game_with(&[("multiplier_scheme", "swisslos")]);
    let expect = [1, 1, 2, 2, 3, 3];
    for (m, e) in Mode::ALL.iter().zip(expect) {
        assert_eq!(g.multiplier(*m), e, "{m:?}");
    }
    let s = finished_deal(&[("multiplier_scheme", "swisslos")], "undenufe", 5);
    let ld = s.last_deal().unwrap();
    assert_eq!(ld.scored, [ld.raw[0] * 3, ld.raw[1] * 3]);
    let s = finished_deal(&[], "undenufe", 5);
    let ld = s.last_deal().unwrap();
    assert_eq!(ld.scored, [ld.raw[0] * 4, ld.raw[1] * 4]);
}

#[test]
fn option_multiplier_scheme_none_everything_times_one() {
    // §16 `multiplier_scheme = none`.
    let g = game_with(&[("multiplier_scheme", "none")]);
    for m in Mode::ALL {
        assert_eq!(g.multiplier(m), 1, "{m:?}");
    }
    for mode in ["trump bells", "obenabe", "undenufe"] {
        let s = finished_deal(&[("multiplier_scheme", "none")], mode, 9);
        let ld = s.last_deal().unwrap();
        assert_eq!(ld.scored, ld.raw, "{mode}");
    }
}
