//! Options and errors.

use super::*;

// Options and errors ----------------------------------------------------------------------

#[test]
fn scope_deal_views_show_the_rams_or_pips_the_deal_gave() {
    // §12 [decision]: at the end of a `scope = deal` game the view's scores (rams, pips) hold
    // what the deal gave, as after the first deal of a match (the same in every game).
    let g = game(&[("scope", "deal")]);
    let mut kinds = [0; 3];
    for seed in 0..40 {
        let mut rng = SeededRng::new(seed);
        let mut s = g.new_initial_state();
        while !s.is_terminal() {
            if s.is_chance_node() {
                s.apply_random_chance(&mut rng).expect("chance");
            } else {
                let a = s.legal_actions().choose(&mut rng).expect("legal");
                s.apply(a).expect("legal");
            }
        }
        let d = s.last_deal().expect("one deal");
        let mut rams = [0; 2];
        let mut pips = [0; 2];
        match (d.kind, d.against) {
            (Some(Kind::Sevens), Some(t)) => rams[t] = d.amount,
            (Some(Kind::Bidding), Some(t)) => pips[t] = d.amount,
            _ => {}
        }
        kinds[d.kind.map_or(2, |k| usize::from(k == Kind::Bidding))] += 1;
        for v in [Viewer::Seat(seed as usize % 4), Viewer::Spectator] {
            let view = s.view(v).expect("view");
            assert_eq!((view.rams, view.pips), (rams, pips), "seed {seed} {v:?}");
        }
        if d.kind.is_some() {
            assert_ne!(rams, pips, "seed {seed}: a scored deal gives something");
        }
    }
    assert!(
        kinds[0] > 0 && kinds[1] > 0,
        "both kinds of deal: {kinds:?}"
    );
}

#[test]
fn options_are_validated_with_precise_errors() {
    let bad = |k: &str, v: &str| {
        let o: Options = [(k.to_string(), v.into())].into_iter().collect();
        AvinasGame::from_options(&o).unwrap_err().to_string()
    };
    assert!(bad("pip_limit", "0").contains("pip_limit"));
    assert!(bad("first_dealer", "4").contains("random, 0, 1, 2, 3"));
    assert!(bad("schwarz_basis", "x").contains("card_points, tricks"));
    assert!(bad("nope", "1").contains("unknown option `nope`"));
    let o: Options = [("first_dealer".to_string(), 2.into())]
        .into_iter()
        .collect();
    let g = AvinasGame::from_options(&o).expect("an integer seat is accepted");
    assert_eq!(g.new_initial_state().dealer(), 2);
    assert_eq!(g.options()["first_dealer"], "2".into());
    // The random first dealer is a chance event with four equally likely outcomes.
    let s = AvinasGame::default().new_initial_state();
    assert_eq!(s.phase(), Phase::ChooseDealer);
    let o = s.chance_outcomes().unwrap();
    assert_eq!(o.len(), 4);
    assert!((o.iter().map(|x| x.1).sum::<f64>() - 1.0).abs() < 1e-12);
    assert_eq!(s.action_to_string(2), "first dealer 2");
    let mut t = s.clone();
    t.apply(2).unwrap();
    assert_eq!(t.dealer(), 2);
    let _ = SeededRng::new(0).next_u64();
}

#[test]
fn bad_actions_are_errors_that_leave_the_state_unchanged() {
    let s = dealt(dealer0(), BID_DEAL);
    let mut t = s.clone();
    assert!(matches!(t.apply(200), Err(Error::UnknownAction { .. })));
    assert_eq!(t, s);
    assert!(s.string_to_action("play 6H").is_err());
    assert!(s.string_to_action("play 9H trump spades").is_err());
    assert!(s.string_to_action("bid 9").is_err());
    assert!(s.string_to_action("hello").is_err());
    let mut b = s.clone();
    act(&mut b, "bid 3");
    assert!(illegal(&b, "play QS").contains("bid"));
}

#[test]
fn default_game_equals_the_default_options_and_the_observation_length_is_documented() {
    assert_eq!(
        AvinasGame::default(),
        AvinasGame::from_options(&Options::new()).unwrap()
    );
    assert_eq!(cardhouse::games::avinas::layout::TOTAL, 540);
    assert_eq!(AvinasGame::default().observation_len(), 540);
}

#[test]
fn first_dealer_may_be_given_as_an_integer() {
    for (int, text) in [(0i64, "0"), (3, "3")] {
        let a = cardhouse::games::avinas::AvinasGame::from_options(&cardhouse::options([(
            "first_dealer",
            int.into(),
        )]))
        .expect("an integer seat");
        assert_eq!(a, game(&[("first_dealer", text)]));
    }
    let e = cardhouse::games::avinas::AvinasGame::from_options(&cardhouse::options([(
        "first_dealer",
        4i64.into(),
    )]))
    .unwrap_err();
    assert!(e.to_string().contains("first_dealer"), "{e}");
}
