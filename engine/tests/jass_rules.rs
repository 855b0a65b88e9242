//! Rule-by-rule tests of Swiss Jass (Schieber) against `shared/rules/jass_schieber.md`.
//!
//! One test per rule, per edge case of §14 (`edge_NN_...`) and per worked example of §13
//! (`eN_...`), plus every option of §16 and the engine options. Section numbers in comments
//! refer to the rules file. Tests use the public API only: states are built by applying the
//! 36 deal outcomes so that every seat gets exactly the hand the test wants.

use cardhouse::games::jass::{JassGame, JassState, Mode, Phase, Said, action_card, card_action};
use cardhouse::{
    Action, Card, CardSet, Error, Game, OptionValue, Options, Player, Rank, SeededRng, State, Suit,
    Viewer,
};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A game from option pairs (values as text, as callers may pass them).
fn game_with(opts: &[(&str, &str)]) -> JassGame {
    let o: Options = opts
        .iter()
        .map(|(k, v)| ((*k).to_owned(), OptionValue::Str((*v).to_owned())))
        .collect();
    JassGame::from_options(&o).unwrap_or_else(|e| panic!("options {opts:?}: {e}"))
}

/// Default options, but seat 3 deals so that seat 0 is forehand.
fn game_fh0(extra: &[(&str, &str)]) -> JassGame {
    let mut opts = vec![("first_dealer", "3")];
    opts.extend_from_slice(extra);
    game_with(&opts)
}

fn cards(text: &str) -> CardSet {
    text.parse()
        .unwrap_or_else(|e| panic!("cards `{text}`: {e}"))
}

fn card(text: &str) -> Card {
    Card::parse(text).unwrap_or_else(|e| panic!("card `{text}`: {e}"))
}

/// The 36-card Swiss pack.
fn pack() -> CardSet {
    let mut set = CardSet::EMPTY;
    for suit in Suit::ALL {
        for rank in Rank::ALL {
            if rank >= Rank::Six {
                set.insert(Card::new(rank, suit));
            }
        }
    }
    set
}

/// Applies the 36 deal outcomes so that seat `s` receives `hands[s]` (9 cards each): the
/// k-th card goes to seat `(dealer + 1 + k / 3) % 4` (§5, packets of three from the forehand).
fn deal_into(state: &mut JassState, hands: [&str; 4]) {
    let h: Vec<Vec<Card>> = hands
        .iter()
        .map(|h| h.split_whitespace().map(card).collect())
        .collect();
    let all: CardSet = h.iter().flatten().copied().collect();
    assert!(
        h.iter().all(|x| x.len() == 9) && all.len() == 36,
        "hands must be 9 distinct cards each: {hands:?}"
    );
    assert_eq!(state.phase(), Phase::Deal);
    let dealer = state.dealer();
    for k in 0..36 {
        let seat = (dealer + 1 + k / 3) % 4;
        let c = h[seat][(k / 12) * 3 + k % 3];
        state
            .apply(card_action(c))
            .unwrap_or_else(|e| panic!("deal {}: {e}", c.swiss()));
    }
}

/// A new game dealt with exactly these hands (seat order).
fn deal(game: &JassGame, hands: [&str; 4]) -> JassState {
    let mut s = game.new_initial_state();
    deal_into(&mut s, hands);
    s
}

/// Completes partial hands to a full deal without creating new runs or quartets where
/// avoidable: each remaining card goes to a seat that holds no neighbour of it in natural
/// order and fewer than three cards of its rank.
fn fill(partial: [&str; 4]) -> [String; 4] {
    let mut hands = partial.map(cards);
    let used = hands.iter().fold(CardSet::EMPTY, |a, &h| a | h);
    assert_eq!(
        hands.iter().map(|h| h.len()).sum::<usize>(),
        used.len(),
        "a card is in two partial hands: {partial:?}"
    );
    let adjacent = |h: CardSet, c: Card| {
        h.of_suit(c.suit())
            .iter()
            .any(|x| (x.rank() as i32 - c.rank() as i32).abs() == 1)
    };
    for c in pack() - used {
        let ok = |h: CardSet| {
            h.len() < 9 && !adjacent(h, c) && (h & CardSet::rank_mask(c.rank())).len() < 3
        };
        let seat = (0..4)
            .find(|&s| ok(hands[s]))
            .or_else(|| (0..4).find(|&s| hands[s].len() < 9))
            .expect("room for every card");
        hands[seat].insert(c);
    }
    hands.map(CardSet::swiss)
}

fn hands_ref(h: &[String; 4]) -> [&str; 4] {
    [&h[0], &h[1], &h[2], &h[3]]
}

/// Applies one action given as text (`play UR`, `trump roses`, `schieben`, `wys four U`).
fn act(s: &mut JassState, text: &str) {
    let a = s
        .string_to_action(text)
        .unwrap_or_else(|e| panic!("`{text}`: {e}"));
    s.apply(a)
        .unwrap_or_else(|e| panic!("`{text}`: {e}\nstate: {s}"));
}

/// Applies comma-separated actions.
fn script(s: &mut JassState, actions: &str) {
    for t in actions.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        act(s, t);
    }
}

/// Tries an action given as text.
fn try_act(s: &mut JassState, text: &str) -> Result<(), Error> {
    let a = s.string_to_action(text)?;
    s.apply(a)
}

/// The cards the seat to act may play.
fn legal_cards(s: &JassState) -> CardSet {
    s.legal_actions().iter().filter_map(action_card).collect()
}

/// The legal actions as text.
fn legal_texts(s: &JassState) -> Vec<String> {
    s.legal_actions()
        .iter()
        .map(|a| s.action_to_string(a))
        .collect()
}

/// Plays the legal card with the lowest id (deterministic, never declares Wys).
fn play_lowest(s: &mut JassState) {
    let a = s
        .legal_actions()
        .iter()
        .find(|&a| a < 36)
        .expect("a legal card");
    s.apply(a).expect("legal");
}

/// Plays the rest of the current deal with [`play_lowest`].
fn play_out(s: &mut JassState) {
    while s.phase() == Phase::Play {
        play_lowest(s);
    }
}

fn seat(s: &JassState) -> usize {
    s.current_player().seat().expect("a seat to act")
}

/// Omniscient view as JSON text (for before/after comparisons).
fn view_json(s: &JassState) -> String {
    serde_json::to_string(&s.view(Viewer::Omniscient).expect("view")).expect("json")
}

/// Strength of a card within its own suit in `mode` (higher wins), for building tricks.
fn in_suit_strength(mode: Mode, c: Card) -> u8 {
    const TRUMP: [Rank; 9] = [
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Ten,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
        Rank::Nine,
        Rank::Jack,
    ];
    match mode {
        Mode::Trump(t) if c.suit() == t => TRUMP.iter().position(|&r| r == c.rank()).unwrap() as u8,
        Mode::Undenufe => 20 - c.rank() as u8,
        _ => c.rank() as u8,
    }
}

/// A state in trick `10 - n` (n = cards per hand) where `leader` is to lead and seat `s`
/// holds exactly `finals[s]` (n cards each). The earlier tricks are one suit each, one card
/// from every seat, always won by `leader` (who is also forehand). Every suit must occur
/// 1, 5 or 9 times in `finals` so that the other cards form one-suit tricks.
fn late_trick(extra: &[(&str, &str)], mode: Mode, finals: [&str; 4], leader: usize) -> JassState {
    let dealer = ((leader + 3) % 4).to_string();
    let mut opts = vec![("first_dealer", dealer.as_str())];
    opts.extend_from_slice(extra);
    let game = game_with(&opts);
    let fin = finals.map(cards);
    let n = fin[0].len();
    assert!(
        fin.iter().all(|h| h.len() == n),
        "final hands of equal size"
    );
    let used = fin.iter().fold(CardSet::EMPTY, |a, &h| a | h);
    assert_eq!(used.len(), 4 * n, "final hands overlap: {finals:?}");
    let mut groups: Vec<Vec<Card>> = Vec::new();
    for suit in Suit::ALL {
        let mut rest: Vec<Card> = (pack() - used).of_suit(suit).iter().collect();
        assert_eq!(
            rest.len() % 4,
            0,
            "{suit:?} occurs 1, 5 or 9 times in {finals:?}"
        );
        rest.sort_by_key(|&c| std::cmp::Reverse(in_suit_strength(mode, c)));
        groups.extend(rest.chunks(4).map(<[Card]>::to_vec));
    }
    assert_eq!(groups.len(), 9 - n);
    let mut hands = fin;
    for g in &groups {
        for (k, &c) in g.iter().enumerate() {
            hands[(leader + k) % 4].insert(c);
        }
    }
    let texts = hands.map(CardSet::swiss);
    let mut s = deal(&game, hands_ref(&texts));
    act(&mut s, &mode.name());
    for g in &groups {
        for &c in g {
            act(&mut s, &format!("play {}", c.swiss()));
        }
    }
    assert_eq!(seat(&s), leader);
    for (p, h) in fin.iter().enumerate() {
        assert_eq!(s.hand(p), *h, "seat {p}");
    }
    s
}

const ROSES: Mode = Mode::Trump(Suit::ROSES);

// ---------------------------------------------------------------------------------------------
// §2, §4, §5 — seats, dealer, forehand, the deal
// ---------------------------------------------------------------------------------------------

#[test]
fn deal_is_three_at_a_time_starting_with_the_forehand() {
    // §5: 36 cards, three at a time, starting with the dealer's right (d+1).
    let game = game_with(&[("first_dealer", "2")]);
    let mut s = game.new_initial_state();
    assert_eq!(s.current_player(), Player::Chance);
    assert_eq!(s.legal_actions().len(), 36);
    let order: Vec<Card> = pack().iter().collect();
    for (k, &c) in order.iter().enumerate() {
        let expected_seat = (2 + 1 + k / 3) % 4;
        assert_eq!(
            s.action_to_string(card_action(c)),
            format!("deal {} to {expected_seat}", c.swiss())
        );
        // Other seats only learn that a card was dealt.
        let other = (expected_seat + 1) % 4;
        assert_eq!(
            s.action_to_string_for(Viewer::Seat(other), card_action(c)),
            Some(format!("deal a card to {expected_seat}"))
        );
        s.apply(card_action(c)).unwrap();
    }
    for p in 0..4 {
        let expected: CardSet = order
            .iter()
            .enumerate()
            .filter(|(k, _)| (3 + k / 3) % 4 == p)
            .map(|(_, &c)| c)
            .collect();
        assert_eq!(s.hand(p), expected, "seat {p}");
    }
    assert_eq!(s.phase(), Phase::ChooseMode);
    assert_eq!(s.current_player(), Player::Seat(3));
}

#[test]
fn deal_helper_gives_each_seat_exactly_its_hand() {
    let hands = [
        "UR 9R AR KR OR 10R 8R 7R 6R",
        "JD 9D AD KD QD 10D 8D 7D 6D", // French notation for Acorns (= ♦)
        "US 9S AS KS OS 10S 8S 7S 6S",
        "UB 9B AB KB OB 10B 8B 7B 6B",
    ];
    for d in 0..4 {
        let s = deal(&game_with(&[("first_dealer", &d.to_string())]), hands);
        for (p, h) in hands.iter().enumerate() {
            assert_eq!(s.hand(p), cards(h));
        }
    }
}

/// The team that won the last trick of the deal (the deal must be complete, `scope = deal`).
fn last_trick_team(s: &JassState) -> usize {
    let v = s.view(Viewer::Omniscient).unwrap();
    assert_eq!(v.tricks.len(), 9, "the deal is complete");
    v.tricks[8].winner % 2
}

/// §10: raw = card points + 5 (last trick) + 100 (all nine tricks) + Wys + 20 per Stöck.
fn expected_raw(s: &JassState, team: usize) -> u32 {
    let last = if last_trick_team(s) == team { 5 } else { 0 };
    let matsch = if s.tricks_won()[team] == 9 { 100 } else { 0 };
    let stoeck = 20 * u32::from(s.stoeck_scored(team) + s.stoeck_scored(team + 2));
    s.card_points()[team] + last + matsch + s.wys_points()[team] + stoeck
}

#[test]
fn teams_are_opposite_seats() {
    // §2: team A = {0, 2}, team B = {1, 3}: Stöck by seat 2 is team A's, by seat 1 team B's.
    let h = fill(["", "KS OS", "KR OR", ""]);
    let game = game_fh0(&[("stoeck_suits", "any_suit"), ("scope", "deal")]);
    let mut s = deal(&game, hands_ref(&h));
    act(&mut s, "trump roses");
    play_out(&mut s);
    assert_eq!(s.stoeck_scored(2), 1);
    assert_eq!(s.stoeck_scored(1), 1);
    let won: u32 = s
        .view(Viewer::Omniscient)
        .unwrap()
        .tricks
        .iter()
        .map(|t| u32::from(t.winner % 2 == 0))
        .sum();
    assert_eq!(u32::from(s.tricks_won()[0]), won);
    for team in 0..2 {
        assert_eq!(s.deal_points()[team], expected_raw(&s, team), "team {team}");
    }
}

#[test]
fn edge_02_counter_clockwise_forehand_deal_start_and_dealer_rotation() {
    // §2, §4, §5: forehand = dealer + 1, the deal starts with him, the next dealer is d + 1.
    let game = game_with(&[("first_dealer", "2")]);
    let mut s = game.new_initial_state();
    let mut rng = SeededRng::new(11);
    for deal_no in 0..5 {
        let d = (2 + deal_no) % 4;
        assert_eq!(s.dealer(), d, "deal {deal_no}");
        assert_eq!(s.forehand(), (d + 1) % 4);
        let first = s.legal_actions().iter().next().unwrap();
        assert!(
            s.action_to_string(first)
                .ends_with(&format!(" to {}", (d + 1) % 4))
        );
        s.resolve_chance(&mut rng);
        assert_eq!(s.phase(), Phase::ChooseMode);
        assert_eq!(seat(&s), (d + 1) % 4, "forehand chooses first");
        act(&mut s, "trump acorns");
        assert_eq!(seat(&s), (d + 1) % 4, "forehand leads trick 1");
        // Play proceeds to seat + 1.
        play_lowest(&mut s);
        assert_eq!(seat(&s), (d + 2) % 4);
        play_out(&mut s);
        assert_eq!(s.phase(), Phase::Deal, "2500 is not reached in one deal");
    }
}

#[test]
fn option_first_dealer_sets_dealer_and_forehand() {
    // Engine parameter (§4): dealer of the first deal; forehand is the seat to his right.
    for d in 0..4 {
        let game = game_with(&[("first_dealer", &d.to_string())]);
        let mut s = game.new_initial_state();
        assert_eq!(s.dealer(), d);
        assert_eq!(s.forehand(), (d + 1) % 4);
        s.resolve_chance(&mut SeededRng::new(3));
        assert_eq!(s.current_player(), Player::Seat((d + 1) % 4));
        assert_eq!(s.view(Viewer::Spectator).unwrap().dealer, d);
    }
}

#[test]
fn option_first_forehand_roses_seven_holder_is_forehand_of_deal_one() {
    // §4, §16 `first_forehand = roses_seven` (pagat): the holder of the Roses 7 is forehand.
    let h = fill(["", "", "7R", ""]);
    let game = game_with(&[("first_forehand", "roses_seven")]);
    let mut s = deal(&game, hands_ref(&h));
    assert_eq!(s.forehand(), 2);
    assert_eq!(s.dealer(), 1);
    assert_eq!(seat(&s), 2);
    act(&mut s, "obenabe");
    assert_eq!(seat(&s), 2, "the Roses-7 holder leads trick 1");
    play_out(&mut s);
    // The deal then passes counter-clockwise as usual: dealer 2, forehand 3.
    assert_eq!(s.dealer(), 2);
    assert_eq!(s.forehand(), 3);
    // Default (`dealer_param`): the Roses 7 does not matter.
    let s = deal(&game_with(&[]), hands_ref(&h));
    assert_eq!((s.dealer(), s.forehand()), (0, 1));
}

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

/// A finished deal (`scope = deal`) in `mode`, played with the lowest legal card.
fn finished_deal(extra: &[(&str, &str)], mode: &str, seed: u64) -> JassState {
    let mut opts = vec![("scope", "deal")];
    opts.extend_from_slice(extra);
    let mut s = game_with(&opts).new_initial_state();
    s.resolve_chance(&mut SeededRng::new(seed));
    act(&mut s, mode);
    play_out(&mut s);
    assert_eq!(s.phase(), Phase::Over);
    s
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

// ---------------------------------------------------------------------------------------------
// §7 — trick play: E2 (every row), edges 5–10, trick winner, `undertrump_rule`
// ---------------------------------------------------------------------------------------------

/// E2 positions: trump Roses, seat 0 leads; `finals` are the hands at that moment.
fn e2(extra: &[(&str, &str)], finals: [&str; 4], trick: &str) -> JassState {
    let mut s = late_trick(extra, ROSES, finals, 0);
    script(&mut s, trick);
    s
}

#[test]
fn e2_row1_holding_led_suit_may_follow_or_trump_not_discard() {
    // Acorns K led; hand Acorns 7, Roses 6, Shields A -> Acorns 7, Roses 6.
    let s = e2(
        &[],
        ["KA KS OS", "7A 6R AS", "AA OA US", "UA 10S 6B"],
        "play KA",
    );
    assert_eq!(seat(&s), 1);
    assert_eq!(legal_cards(&s), cards("7A 6R"));
}

#[test]
fn e2_row2_following_suit_or_overtrumping_roses_six_would_undertrump() {
    // Acorns K, Roses 10; hand Acorns 7, Roses 6, Roses U -> Acorns 7, Roses U.
    let s = e2(
        &[],
        ["KA AA OA", "10R UA 8R", "7A 6R UR", "9R AS AB"],
        "play KA, play 10R",
    );
    assert_eq!(seat(&s), 2);
    assert_eq!(legal_cards(&s), cards("7A UR"));
}

#[test]
fn e2_row3_void_in_led_suit_and_cannot_overtrump_plays_plain_card() {
    // Acorns K, Roses 10; hand Shields A, Roses 6 -> Shields A only.
    let s = e2(
        &[],
        ["KA 7R", "10R 8R", "AS 6R", "9R 6B"],
        "play KA, play 10R",
    );
    assert_eq!(seat(&s), 2);
    assert_eq!(legal_cards(&s), cards("AS"));
}

#[test]
fn e2_row4_only_lower_trumps_in_hand_may_undertrump() {
    // Acorns K, Roses 10; hand Roses 6, Roses 7 -> both (only trumps).
    let s = e2(
        &[],
        ["KA 8R", "10R 9R", "6R 7R", "AS 6B"],
        "play KA, play 10R",
    );
    assert_eq!(legal_cards(&s), cards("6R 7R"));
}

#[test]
fn e2_row5_only_trumps_must_overtrump_when_able() {
    // Acorns K, Roses 10; hand Roses 6, 7, A -> Roses A only.
    let s = e2(
        &[],
        ["KA AA OA", "10R UA 9A", "6R 7R AR", "8R AS AB"],
        "play KA, play 10R",
    );
    assert_eq!(legal_cards(&s), cards("AR"));
}

#[test]
fn e2_row6_under_exemption_trump_led_only_trump_is_under_any_card() {
    // Roses K led; hand Roses U, Acorns 7, Shields 8 -> all three.
    let s = e2(
        &[],
        ["KR AA KA", "UR 7A 8S", "9R OA UA", "AR 10R 6B"],
        "play KR",
    );
    assert_eq!(seat(&s), 1);
    assert_eq!(legal_cards(&s), cards("UR 7A 8S"));
}

#[test]
fn e2_row7_trump_led_with_other_trumps_must_play_trump() {
    // Roses K led; hand Roses U, Roses 6, Acorns 7 -> Roses U, Roses 6.
    let s = e2(
        &[],
        ["KR AA KA", "UR 6R 7A", "9R OA UA", "AR 8S 6B"],
        "play KR",
    );
    assert_eq!(legal_cards(&s), cards("UR 6R"));
}

/// Trick 1 of a trump-Roses deal, seat 0 forehand, after `trick` has been played.
fn trick_one(extra: &[(&str, &str)], partial: [&str; 4], mode: &str, trick: &str) -> JassState {
    let h = fill(partial);
    let mut s = deal(&game_fh0(extra), hands_ref(&h));
    act(&mut s, mode);
    script(&mut s, trick);
    s
}

#[test]
fn edge_05_trump_under_exemption_when_only_trump_is_the_under() {
    // §7.1: trump led, the hand's only trump is the U -> any card (9 cards).
    let s = trick_one(
        &[],
        ["9R AR KR", "UR", "OR 10R 8R", "7R 6R"],
        "trump roses",
        "play 9R",
    );
    assert_eq!(legal_cards(&s), s.hand(1));
    assert_eq!(s.hand(1).len(), 9);
    let mut s2 = s.clone();
    let plain = (s.hand(1) - cards("UR")).first().unwrap();
    act(&mut s2, &format!("play {}", plain.swiss()));
}

#[test]
fn edge_05_with_other_trumps_a_trump_must_be_played_but_the_under_may_be_kept() {
    let mut s = trick_one(
        &[],
        ["9R AR KR", "UR 6R", "OR 10R 8R", "7R"],
        "trump roses",
        "play 9R",
    );
    assert_eq!(legal_cards(&s), cards("UR 6R"));
    let before = (s.history(), view_json(&s));
    let plain = (s.hand(1) - cards("UR 6R")).first().unwrap();
    let err = try_act(&mut s, &format!("play {}", plain.swiss())).unwrap_err();
    match &err {
        Error::IllegalAction { reason, .. } => {
            assert!(reason.contains("a trump must be played"), "{err}")
        }
        e => panic!("unexpected {e}"),
    }
    assert_eq!((s.history(), view_json(&s)), before);
    act(&mut s, "play 6R"); // keeps the Under
    assert!(s.hand(1).contains(card("UR")));
}

#[test]
fn trump_led_without_any_trump_any_card() {
    // §7.1: trump led and no trump in the hand -> any card.
    let s = trick_one(
        &[],
        ["9R AR KR OR 10R", "", "UR 8R 7R 6R", ""],
        "trump roses",
        "play 9R",
    );
    assert!(s.hand(1).of_suit(Suit::ROSES).is_empty());
    assert_eq!(legal_cards(&s), s.hand(1));
}

#[test]
fn edge_06_trumping_allowed_while_holding_led_suit() {
    // §7.1: trumps are always allowed instead of following suit.
    let mut s = trick_one(
        &[],
        ["KA", "7A 9A 6R 10R", "", ""],
        "trump roses",
        "play KA",
    );
    let h = s.hand(1);
    assert_eq!(
        legal_cards(&s),
        h.of_suit(Suit::ACORNS) | h.of_suit(Suit::ROSES)
    );
    assert!(legal_cards(&s).contains(card("6R")));
    act(&mut s, "play 6R");
}

/// Trick 1, trump Roses: KA led by seat 0, seat 1 trumps with 10R; seat 2 is void in Acorns
/// and holds `seat2` plus Shields/Bells.
fn trumped_plain_lead(extra: &[(&str, &str)], seat2_roses: &str, seat3_roses: &str) -> JassState {
    trick_one(
        extra,
        [
            "KA AA OA UA 10A",
            "10R 9A 8A 7A",
            seat2_roses,
            &format!("6A {seat3_roses}"),
        ],
        "trump roses",
        "play KA, play 10R",
    )
}

#[test]
fn edge_07_no_undertrumping_while_holding_another_legal_card() {
    // §7.1: a lower trump is illegal if the hand has any other legal card.
    let s = trumped_plain_lead(&[], "6R 7R", "UR 9R AR KR OR 8R");
    assert_eq!(seat(&s), 2);
    let h = s.hand(2);
    assert!(h.of_suit(Suit::ACORNS).is_empty());
    assert_eq!(legal_cards(&s), h - cards("6R 7R"));
}

#[test]
fn edge_07_undertrump_allowed_when_hand_is_only_lower_trumps() {
    let s = late_trick(&[], ROSES, ["KA 9R", "UR 8R", "6R 7R", "AS 6B"], 0);
    let mut s = s;
    script(&mut s, "play KA, play UR");
    assert_eq!(legal_cards(&s), cards("6R 7R"));
    act(&mut s, "play 6R");
}

#[test]
fn edge_08_must_overtrump_when_trumping_over_a_trump_and_able() {
    // §7.1: only trumps higher than the 10R may be added; plain discards stay legal.
    let s = trumped_plain_lead(&[], "6R AR", "UR 9R KR OR 8R 7R");
    let h = s.hand(2);
    assert_eq!(legal_cards(&s), h - cards("6R"));
    assert!(legal_cards(&s).contains(card("AR")));
}

#[test]
fn edge_09_no_obligation_to_beat_when_trump_is_led() {
    // §7.1: trump led -> any trump, no need to beat.
    let mut s = trick_one(&[], ["10R", "6R 9R", "", ""], "trump roses", "play 10R");
    let h = s.hand(1);
    assert_eq!(legal_cards(&s), h.of_suit(Suit::ROSES));
    assert!(legal_cards(&s).contains(card("6R")));
    act(&mut s, "play 6R"); // does not beat the 10
}

#[test]
fn option_undertrump_rule_allowed_if_cannot_overtrump() {
    // §16 `undertrump_rule = allowed_if_cannot_overtrump` (literal seed): a lower trump is
    // legal whenever no higher trump is held.
    let opt: &[(&str, &str)] = &[("undertrump_rule", "allowed_if_cannot_overtrump")];
    // E2 row 3 hand: Shields A, Roses 6 -> now both.
    let finals = ["KA 7R", "10R 8R", "AS 6R", "9R 6B"];
    assert_eq!(
        legal_cards(&e2(&[], finals, "play KA, play 10R")),
        cards("AS")
    );
    assert_eq!(
        legal_cards(&e2(opt, finals, "play KA, play 10R")),
        cards("AS 6R")
    );
    // Holding the led suit and only a lower trump: default follow only; option adds 6R.
    let finals = ["KA AA OA", "10R UA 8R", "7A 6R 7R", "9R AS AB"];
    assert_eq!(
        legal_cards(&e2(&[], finals, "play KA, play 10R")),
        cards("7A")
    );
    assert_eq!(
        legal_cards(&e2(opt, finals, "play KA, play 10R")),
        cards("7A 6R 7R")
    );
    // E2 row 2 (a higher trump held): unchanged, no undertrumping.
    let finals = ["KA AA OA", "10R UA 8R", "7A 6R UR", "9R AS AB"];
    assert_eq!(
        legal_cards(&e2(opt, finals, "play KA, play 10R")),
        cards("7A UR")
    );
    // 9-card hand void in Acorns with only lower trumps: every card.
    let s = trumped_plain_lead(opt, "6R 7R", "UR 9R AR KR OR 8R");
    assert_eq!(legal_cards(&s), s.hand(2));
}

#[test]
fn trick_winner_trump_order_under_nell_ace_king() {
    // §3.2 / §7.3: trump order U, 9, A, K, O, 10, 8, 7, 6.
    let s = trick_one(
        &[],
        ["AR", "9R", "UR", "KR"],
        "trump roses",
        "play AR, play 9R, play UR, play KR",
    );
    assert_eq!(s.card_points(), [11 + 14 + 20 + 4, 0]);
    assert_eq!(seat(&s), 2, "the winner leads the next trick");
    let v = s.view(Viewer::Spectator).unwrap();
    assert_eq!(v.tricks[0].winner, 2);
    // Ober beats 10, 8, 7.
    let t = trick_one(
        &[],
        ["10R", "8R", "OR", "7R"],
        "trump roses",
        "play 10R, play 8R, play OR, play 7R",
    );
    assert_eq!(t.view(Viewer::Spectator).unwrap().tricks[0].winner, 2);
    assert_eq!(t.card_points(), [10 + 3, 0]);
}

#[test]
fn trick_winner_lowest_trump_beats_led_suit_and_higher_trump_beats_lower() {
    // §7.3: a trump wins a plain-suit trick; the highest trump wins.
    let s = trick_one(
        &[],
        ["AA", "6R", "KA", "7R OA UA 10A 9A 8A 7A 6A"],
        "trump roses",
        "play AA, play 6R, play KA, play 7R",
    );
    assert_eq!(s.view(Viewer::Spectator).unwrap().tricks[0].winner, 3);
    assert_eq!(s.card_points(), [0, 11 + 4]);
}

#[test]
fn trick_winner_plain_highest_of_led_suit_off_suit_never_wins() {
    // §7.3: without trump the highest card of the led suit wins; a discard never wins.
    let s = trick_one(
        &[],
        ["10A", "AS KS OS US 10S 9S 8S 7S 6S", "KA", "6A"],
        "trump roses",
        "play 10A, play AS, play KA, play 6A",
    );
    assert_eq!(s.view(Viewer::Spectator).unwrap().tricks[0].winner, 2);
    assert_eq!(s.card_points(), [10 + 11 + 4, 0]);
}

#[test]
fn edge_10_obenabe_high_wins_undenufe_six_wins_ace_loses() {
    // §7.3: Obenabe A high; Undenufe 6 beats 7 ... beats A. Discards never win.
    let partial = ["10A", "AS KS OS US 10S 9S 8S 7S 6S", "6A", "AA"];
    let s = trick_one(
        &[],
        partial,
        "obenabe",
        "play 10A, play AS, play 6A, play AA",
    );
    assert_eq!(s.view(Viewer::Spectator).unwrap().tricks[0].winner, 3);
    let s = trick_one(
        &[],
        partial,
        "undenufe",
        "play 10A, play AS, play 6A, play AA",
    );
    assert_eq!(s.view(Viewer::Spectator).unwrap().tricks[0].winner, 2);
    // Undenufe: 7 beats 8 and A (no 6 in the trick).
    let s = trick_one(
        &[],
        ["AA", "8A", "7A", "KA"],
        "undenufe",
        "play AA, play 8A, play 7A, play KA",
    );
    assert_eq!(s.view(Viewer::Spectator).unwrap().tricks[0].winner, 2);
    assert_eq!(s.card_points(), [11 + 8 + 4, 0]);
}

#[test]
fn edge_10_obenabe_and_undenufe_follow_suit_if_able_otherwise_any_card() {
    // §7.2: no trumps exist; follow the led suit if able, otherwise any card.
    for mode in ["obenabe", "undenufe"] {
        let s = trick_one(&[], ["KA", "7A 6R", "", ""], mode, "play KA");
        assert_eq!(legal_cards(&s), s.hand(1).of_suit(Suit::ACORNS), "{mode}");
        let s = trick_one(
            &[],
            ["KA AA OA UA 10A 9A 8A 7A 6A", "", "", ""],
            mode,
            "play KA",
        );
        assert_eq!(legal_cards(&s), s.hand(1), "{mode}: void -> any card");
    }
}

// ---------------------------------------------------------------------------------------------
// Error paths: illegal actions name the rule and leave the state unchanged
// ---------------------------------------------------------------------------------------------

/// Applies `text`, expects `IllegalAction` whose reason contains `needle`, and checks that
/// history, omniscient view, legal actions and player to act are unchanged.
fn assert_illegal(s: &mut JassState, text: &str, needle: &str) {
    let before = (
        s.history(),
        view_json(s),
        s.legal_actions(),
        s.current_player(),
    );
    let err = try_act(s, text).expect_err(text);
    match &err {
        Error::IllegalAction { name, reason, .. } => {
            assert!(
                reason.contains(needle),
                "`{text}`: reason `{reason}` lacks `{needle}`"
            );
            assert_eq!(name, text);
        }
        e => panic!("`{text}`: expected IllegalAction, got {e:?}"),
    }
    assert!(err.to_string().contains(needle));
    let after = (
        s.history(),
        view_json(s),
        s.legal_actions(),
        s.current_player(),
    );
    assert_eq!(before, after, "`{text}` changed the state");
}

#[test]
fn illegal_card_must_follow_suit_names_rule_and_leaves_state_unchanged() {
    let mut s = e2(
        &[],
        ["KA KS OS", "7A 6R AS", "AA OA US", "UA 10S 6B"],
        "play KA",
    );
    assert_illegal(&mut s, "play AS", "follow suit");
    // Obenabe too.
    let mut s = trick_one(&[], ["KA", "7A AS", "", ""], "obenabe", "play KA");
    assert_illegal(&mut s, "play AS", "follow suit");
}

#[test]
fn illegal_undertrump_names_rule_and_leaves_state_unchanged() {
    let mut s = trumped_plain_lead(&[], "6R 7R", "UR 9R AR KR OR 8R");
    assert_illegal(&mut s, "play 6R", "undertrumping");
    // Also while holding the led suit (E2 row 2: Roses 6 = undertrump).
    let mut s = e2(
        &[],
        ["KA AA OA", "10R UA 8R", "7A 6R UR", "9R AS AB"],
        "play KA, play 10R",
    );
    assert_illegal(&mut s, "play 6R", "undertrumping");
}

#[test]
fn illegal_card_not_in_hand_and_trump_led_errors() {
    let mut s = trick_one(
        &[],
        ["9R AR KR", "UR 6R", "OR 10R 8R", "7R"],
        "trump roses",
        "play 9R",
    );
    assert_illegal(&mut s, "play AR", "does not hold");
    let plain = (s.hand(1) - cards("UR 6R")).first().unwrap();
    assert_illegal(
        &mut s,
        &format!("play {}", plain.swiss()),
        "trump must be played",
    );
    assert_illegal(&mut s, "obenabe", "mode has already been chosen");
}

#[test]
fn illegal_wys_after_first_trick() {
    // §8.5: Wys are declared only in trick 1, before laying one's card.
    let h = fill(["6B 7B 8B KA", "", "", ""]);
    let mut s = deal(&game_fh0(&[]), hands_ref(&h));
    act(&mut s, "trump roses");
    assert!(legal_texts(&s).contains(&"wys run 6B-8B".to_owned()));
    act(&mut s, "play KA"); // commits an empty set
    play_lowest(&mut s);
    while seat(&s) != 0 {
        play_lowest(&mut s);
    }
    assert_eq!(s.view(Viewer::Spectator).unwrap().tricks.len(), 1);
    assert!(s.hand(0).is_superset(cards("6B 7B 8B")));
    assert!(!legal_texts(&s).iter().any(|t| t.starts_with("wys")));
    assert_illegal(&mut s, "wys run 6B-8B", "first trick");
}

#[test]
fn unknown_action_ids_unparsable_text_and_game_over_errors() {
    let mut s = game_fh0(&[("scope", "deal")]).new_initial_state();
    // At the deal, only card ids 0..36 exist.
    let before = view_json(&s);
    match s.apply(36) {
        Err(Error::UnknownAction { reason, .. }) => assert!(reason.contains("0 to 35"), "{reason}"),
        r => panic!("{r:?}"),
    }
    assert_eq!(view_json(&s), before);
    s.resolve_chance(&mut SeededRng::new(1));
    match s.apply(9999) {
        Err(Error::UnknownAction { reason, .. }) => {
            assert!(reason.contains("0 to 163"), "{reason}")
        }
        r => panic!("{r:?}"),
    }
    match s.string_to_action("trump hearts please") {
        Err(Error::UnparsableAction { reason, .. }) => assert!(reason.contains("play <card>")),
        r => panic!("{r:?}"),
    }
    match s.string_to_action("play 5R") {
        Err(Error::UnparsableAction { reason, .. }) => assert!(reason.contains("below 6")),
        r => panic!("{r:?}"),
    }
    act(&mut s, "obenabe");
    play_out(&mut s);
    assert!(s.is_terminal());
    assert_eq!(s.apply(0), Err(Error::GameOver));
    assert!(s.legal_actions().is_empty());
}

#[test]
fn action_text_forms_round_trip() {
    // Swiss and French notation both parse; text forms are stable.
    let h = fill(["UR 7A 8A 9A UB UA US", "", "", ""]);
    let mut s = deal(&game_fh0(&[]), hands_ref(&h));
    for t in ["trump roses", "obenabe", "undenufe", "schieben"] {
        let a = s.string_to_action(t).unwrap();
        assert_eq!(s.action_to_string(a), t);
    }
    act(&mut s, "trump roses");
    for t in ["play UR", "wys four U", "wys run 7A-9A"] {
        let a: Action = s.string_to_action(t).unwrap();
        assert_eq!(s.action_to_string(a), t);
        assert!(s.legal_actions().contains(a), "{t}");
    }
    assert_eq!(
        s.string_to_action("play JH").unwrap(),
        s.string_to_action("play UR").unwrap()
    );
    assert_eq!(
        s.string_to_action("play UR").unwrap(),
        card_action(card("UR"))
    );
    // Another seat does not learn that a Wys was declared (§12).
    let w = s.string_to_action("wys four U").unwrap();
    assert_eq!(s.action_to_string_for(Viewer::Seat(1), w), None);
    assert_eq!(
        s.action_to_string_for(Viewer::Seat(0), w),
        Some("wys four U".to_owned())
    );
}

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

// ---------------------------------------------------------------------------------------------
// §9 — Stöck; edge 14; option `stoeck_suits`
// ---------------------------------------------------------------------------------------------

/// A finished deal (`scope = deal`, seat 0 forehand) from partial hands, lowest-card play.
fn played_deal(extra: &[(&str, &str)], partial: [&str; 4], mode: &str) -> JassState {
    let mut opts = vec![("scope", "deal")];
    opts.extend_from_slice(extra);
    let h = fill(partial);
    let mut s = deal(&game_fh0(&opts), hands_ref(&h));
    act(&mut s, mode);
    play_out(&mut s);
    assert_eq!(s.phase(), Phase::Over);
    s
}

#[test]
fn stoeck_only_for_king_and_ober_of_trump() {
    // §9: K+O of trumps = 20; K+O of a plain suit scores nothing (default `trump_only`).
    let partial = ["KA OA KR OR", "", "", ""];
    let s = played_deal(&[], partial, "trump roses");
    assert_eq!(s.stoeck_scored(0), 1);
    assert_eq!(s.deal_points()[0], expected_raw(&s, 0));
    assert_eq!(s.deal_points()[0] + s.deal_points()[1], 157 + 20);
    let s = played_deal(&[], partial, "trump acorns");
    assert_eq!(
        s.stoeck_scored(0),
        1,
        "the Acorns pair is Stöck in an Acorns game"
    );
    let s = played_deal(&[], partial, "trump shields");
    assert_eq!(s.stoeck_scored(0), 0, "plain K+O are no Stöck");
    for team in 0..2 {
        assert_eq!(s.deal_points()[team], expected_raw(&s, team));
    }
}

#[test]
fn stoeck_needs_one_player_to_hold_both_cards() {
    // §9: "a player who holds both": K and O split between partners score nothing.
    let s = played_deal(&[], ["KR", "", "OR", ""], "trump roses");
    assert!((0..4).all(|p| s.stoeck_scored(p) == 0));
    assert_eq!(s.deal_points()[0] + s.deal_points()[1], 157);
}

#[test]
fn edge_14_stoeck_credited_automatically_when_second_card_is_played() {
    // §9 [decision]: credited automatically the moment the second of K/O is laid.
    let h = fill(["OR KR UR 9R AR", "", "", ""]);
    let mut s = deal(&game_fh0(&[("scope", "deal")]), hands_ref(&h));
    act(&mut s, "trump roses");
    act(&mut s, "play OR");
    assert_eq!(s.stoeck_scored(0), 0);
    for _ in 0..3 {
        play_lowest(&mut s);
    }
    assert_eq!(
        seat(&s),
        0,
        "the Ober wins trick 1 (U, 9, A, K are seat 0's)"
    );
    let before = s.deal_points();
    act(&mut s, "play KR");
    assert_eq!(s.stoeck_scored(0), 1);
    assert_eq!(s.deal_points(), [before[0] + 20, before[1]]);
    let v = s.view(Viewer::Spectator).unwrap();
    assert_eq!(v.stoeck, [1, 0, 0, 0], "Stöck is public");
}

/// Trump Bells (×2): seat 0 holds seven trumps (6-card run 6B-UB + AB) and AA AR and takes
/// all nine tricks; seat 1 holds K+O of trump (Stöck); seat 3 declares a 3-run.
fn bells_match_deal(extra: &[(&str, &str)]) -> JassState {
    let mut opts = vec![("scope", "deal")];
    opts.extend_from_slice(extra);
    let h = fill(["UB 9B AB 10B 8B 7B 6B AA AR", "KB OB", "", "6S 7S 8S"]);
    let mut s = deal(&game_fh0(&opts), hands_ref(&h));
    act(&mut s, "trump bells");
    let mut leads = ["UB", "9B", "AB", "10B", "8B", "7B", "6B", "AA", "AR"].into_iter();
    while s.phase() == Phase::Play {
        let p = seat(&s);
        if s.view(Viewer::Spectator).unwrap().tricks.is_empty() {
            match p {
                0 => act(&mut s, "wys run 6B-UB"),
                3 => act(&mut s, "wys run 6S-8S"),
                _ => {}
            }
        }
        if p == 0 {
            act(&mut s, &format!("play {}", leads.next().unwrap()));
        } else {
            play_lowest(&mut s);
        }
    }
    s
}

#[test]
fn edge_14_stoeck_counts_without_tricks() {
    // §9: Stöck counts even if the team wins no trick.
    let s = bells_match_deal(&[]);
    assert_eq!(s.tricks_won(), [9, 0]);
    assert_eq!(s.stoeck_scored(1), 1);
    assert_eq!(s.card_points(), [152, 0]);
    assert_eq!(s.deal_points()[1], 20);
    assert_eq!(s.last_deal().unwrap().scored[1], 40);
}

#[test]
fn edge_14_stoeck_in_addition_to_a_wys_using_the_same_cards() {
    // §8.2 / §9: O-K-A of trump as a Wys (20) and K+O as Stöck (20).
    let h = fill(["OR KR AR", "", "", ""]);
    let mut s = deal(&game_fh0(&[("scope", "deal")]), hands_ref(&h));
    act(&mut s, "trump roses");
    act(&mut s, "wys run OR-AR");
    play_out(&mut s);
    assert_eq!(s.wys_points(), [20, 0]);
    assert_eq!(s.stoeck_scored(0), 1);
    assert_eq!(s.deal_points()[0], expected_raw(&s, 0));
    assert_eq!(s.deal_points()[0] + s.deal_points()[1], 157 + 20 + 20);
}

#[test]
fn edge_14_no_stoeck_in_obenabe_or_undenufe() {
    for mode in ["obenabe", "undenufe"] {
        let s = played_deal(&[], ["KA OA KR OR KS OS KB OB", "", "", ""], mode);
        assert_eq!(s.stoeck_scored(0), 0, "{mode}");
        assert_eq!(s.deal_points()[0], expected_raw(&s, 0), "{mode}");
    }
}

#[test]
fn option_stoeck_suits_any_suit() {
    // §16 `stoeck_suits = any_suit` (literal seed): every K+O pair of one suit held by one
    // player scores, in every mode [decision, mod.rs docs].
    let opt: &[(&str, &str)] = &[("stoeck_suits", "any_suit")];
    let partial = ["KA OA KS OS", "", "", ""];
    let s = played_deal(opt, partial, "trump roses");
    assert_eq!(s.stoeck_scored(0), 2);
    assert_eq!(s.deal_points()[0], expected_raw(&s, 0));
    let s = played_deal(opt, partial, "obenabe");
    assert_eq!(s.stoeck_scored(0), 2);
    let s = played_deal(&[], partial, "obenabe");
    assert_eq!(s.stoeck_scored(0), 0);
}

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

/// Swaps Roses and Shields in a card token (`UR` <-> `US`).
fn swap_rs(token: &str) -> String {
    let (body, last) = token.split_at(token.len() - 1);
    match last {
        "R" => format!("{body}S"),
        "S" => format!("{body}R"),
        _ => token.to_owned(),
    }
}

fn swap_all(text: &str) -> String {
    text.split_whitespace()
        .map(|t| t.split('-').map(swap_rs).collect::<Vec<_>>().join("-"))
        .collect::<Vec<_>>()
        .join(" ")
}

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

// ---------------------------------------------------------------------------------------------
// §11 — end of game: E6, edge 17, options `target_score`, `end_check`, engine `scope`
// ---------------------------------------------------------------------------------------------

/// E6 deal: trump Bells (×2), forehand 0; raw A 48 (card points, B takes the last trick),
/// B 104 + 5 = 109: A +96, B +218. Nobody declares Wys; no Stöck (K and O of Bells split).
const E6_HANDS: [&str; 4] = [
    "6B UB 9A AR 6S 7S 8S 9S AS",
    "9B KB AB 7R 10R KR 10S US KS",
    "7A 8A KA AA 8R 9R UR OR OS",
    "7B 8B 10B OB 6A 10A UA OA 6R",
];
const E6_PLAYS: &str = "9S KS OS 6R  US 7A OB UB  AS 9B AA 10A  10S KA 8B 8S  7B 6B AB OR \
                        10R 9R UA AR  9A KR 8A OA  6A 6S 7R 8R  10B 7S KB UR";

fn e6_state(extra: &[(&str, &str)]) -> JassState {
    let mut s = deal(&game_fh0(extra), E6_HANDS);
    act(&mut s, "trump bells");
    for c in E6_PLAYS.split_whitespace() {
        assert_eq!(s.phase(), Phase::Play);
        act(&mut s, &format!("play {c}"));
    }
    s
}

#[test]
fn e6_deal_is_a_96_b_218() {
    let s = e6_state(&[("scope", "deal")]);
    assert_eq!(s.card_points(), [48, 104]);
    assert_eq!(last_trick_team(&s), 1);
    let ld = s.last_deal().unwrap();
    assert_eq!(ld.raw, [48, 109]);
    assert_eq!(ld.scored, [96, 218]);
}

#[test]
fn edge_17_both_over_target_higher_total_wins() {
    // E6 / §11: both teams at or above the target after the deal -> the higher total wins,
    // even though A also reached it. (E6 starts from 2420 : 2390 with target 2500; a state
    // cannot start with scores, so the same deal is played from 0 : 0 with target 90.)
    let s = e6_state(&[("target_score", "90")]);
    assert_eq!(s.scores(), [96, 218]);
    assert!(s.scores()[0] >= 90 && s.scores()[1] >= 90);
    assert_eq!(s.phase(), Phase::Over);
    assert_eq!(s.winner(), Some(1));
    assert_eq!(&s.returns()[..], &[-1.0, 1.0, -1.0, 1.0]);
    assert_eq!(s.view(Viewer::Spectator).unwrap().winner, Some(1));
}

#[test]
fn option_target_score() {
    // §16 `target_score` (default 2500): the game ends after the deal that leaves a team at
    // or above it.
    for (target, over, winner) in [
        ("2500", false, None),
        ("1000", false, None),
        ("219", false, None),
        ("218", true, Some(1)),
        ("96", true, Some(1)),
    ] {
        let s = e6_state(&[("target_score", target)]);
        assert_eq!(s.scores(), [96, 218], "target {target}");
        assert_eq!(s.is_terminal(), over, "target {target}");
        assert_eq!(s.winner(), winner, "target {target}");
        if !over {
            assert_eq!(s.phase(), Phase::Deal, "next deal");
            assert_eq!(s.dealer(), 0);
            assert!(s.returns().iter().all(|&r| r == 0.0));
        }
    }
    assert_eq!(
        game_with(&[]).options()["target_score"],
        OptionValue::Int(2500)
    );
}

#[test]
fn end_checked_only_after_the_deal_by_default() {
    // §11 (`end_check = end_of_deal`): match scores change only when the deal is scored.
    let mut s = deal(&game_fh0(&[("target_score", "90")]), E6_HANDS);
    act(&mut s, "trump bells");
    for c in E6_PLAYS.split_whitespace() {
        assert_eq!(s.scores(), [0, 0]);
        assert!(!s.is_terminal());
        act(&mut s, &format!("play {c}"));
    }
    assert_eq!(s.scores(), [96, 218]);
    assert!(s.is_terminal());
}

#[test]
fn end_exact_tie_at_target_plays_another_deal() {
    // §11 [decision]: equal totals at or above the target -> another deal. Deal 2 is deal 1
    // turned by one seat (the dealer moved on), so the teams swap their results: both end on
    // 157 = target.
    let game = game_fh0(&[("target_score", "157")]);
    let mut s = game.new_initial_state();
    deal_into(&mut s, E6_HANDS);
    act(&mut s, "trump roses");
    play_out(&mut s);
    let [a, b] = s.scores();
    assert_eq!(a + b, 157);
    assert!(a < 157 && b < 157 && a != b);
    assert_eq!(s.phase(), Phase::Deal);
    assert_eq!(s.dealer(), 0);
    let turned = [E6_HANDS[3], E6_HANDS[0], E6_HANDS[1], E6_HANDS[2]];
    deal_into(&mut s, turned);
    assert_eq!(seat(&s), 1);
    act(&mut s, "trump roses");
    play_out(&mut s);
    assert_eq!(s.scores(), [157, 157]);
    assert_eq!(s.last_deal().unwrap().scored, [b, a]);
    assert!(!s.is_terminal(), "a tie at the target plays another deal");
    assert_eq!(s.winner(), None);
    assert_eq!(s.phase(), Phase::Deal);
    assert!(s.returns().iter().all(|&r| r == 0.0));
    // Deal 3 decides (157 points are odd, so no second tie without Wys/Stöck/Match).
    s.resolve_chance(&mut SeededRng::new(5));
    act(&mut s, "trump acorns");
    play_out(&mut s);
    assert!(s.is_terminal());
    let sc = s.scores();
    assert_ne!(sc[0], sc[1]);
    let w = usize::from(sc[1] > sc[0]);
    assert_eq!(s.winner(), Some(w));
    assert_eq!(s.returns()[w], 1.0);
    assert_eq!(s.returns()[1 - w], -1.0);
}

/// Trump Roses, forehand 0. Trick 1: 7R, seat 1 declares 6B-8B (20) and plays OR, seat 2
/// wins with AR (A: 3 + 11 = 14). Trick 2: UR, 9R, 10R and seat 1's KR (Stöck, B 40).
const IMM_HANDS: [&str; 4] = [
    "7R 10R 6A 7A 8A 9A 10A UA OA",
    "OR KR 6B 7B 8B KA AA 6S 7S",
    "AR UR 8R 8S 9S 10S US OS KS",
    "6R 9R AS 9B 10B UB OB KB AB",
];

fn immediate(target: &str) -> JassState {
    let game = game_fh0(&[("end_check", "immediate"), ("target_score", target)]);
    let mut s = deal(&game, IMM_HANDS);
    script(
        &mut s,
        "trump roses, play 7R, wys run 6B-8B, play OR, play AR, play 6R",
    );
    s
}

#[test]
fn option_end_check_immediate_credits_points_as_they_arise() {
    // §16 `end_check = immediate`: Wys at the end of trick 1, trick points after each trick,
    // Stöck when played; the end-of-deal total equals the deal score (nothing counted twice).
    let mut s = immediate("2500");
    assert_eq!(s.scores(), [14, 20]);
    script(&mut s, "play UR, play 9R, play 10R");
    assert_eq!(s.scores(), [14, 20]);
    act(&mut s, "play KR");
    assert_eq!(s.scores(), [14 + 20 + 14 + 10 + 4, 20 + 20]);
    play_out(&mut s);
    assert_eq!(s.phase(), Phase::Deal);
    assert_eq!(s.scores(), s.last_deal().unwrap().scored);
    // Multiplied at once: the same deal in a Shields game credits twice the trick points.
    let game = game_fh0(&[("end_check", "immediate")]);
    let mut s = deal(
        &game,
        IMM_HANDS.map(swap_all).each_ref().map(String::as_str),
    );
    script(
        &mut s,
        "trump shields, play 7S, wys run 6B-8B, play OS, play AS, play 6S",
    );
    assert_eq!(s.scores(), [28, 40]);
}

#[test]
fn option_end_check_immediate_team_wins_the_instant_it_reaches_the_target() {
    let mut s = immediate("60");
    script(&mut s, "play UR, play 9R, play 10R");
    assert!(!s.is_terminal());
    act(&mut s, "play KR"); // completes trick 2: A 14 + 48 = 62
    assert!(s.is_terminal());
    assert_eq!(s.winner(), Some(0));
    assert_eq!(&s.returns()[..], &[1.0, -1.0, 1.0, -1.0]);
    assert_eq!(s.apply(0), Err(Error::GameOver));
}

#[test]
fn option_end_check_immediate_wys_before_stich() {
    // "Stöck, Wys, Stich": at the end of trick 1 both teams reach 14 (B by its Wys 20, A by
    // the trick's 14); the Wys counts first, so B wins and A's trick is not credited.
    let s = immediate("14");
    assert!(s.is_terminal());
    assert_eq!(s.winner(), Some(1));
    assert_eq!(s.scores(), [0, 20]);
    assert_eq!(&s.returns()[..], &[-1.0, 1.0, -1.0, 1.0]);
    // The same position under `end_of_deal` goes on.
    let game = game_fh0(&[("target_score", "14")]);
    let mut s = deal(&game, IMM_HANDS);
    script(
        &mut s,
        "trump roses, play 7R, wys run 6B-8B, play OR, play AR, play 6R",
    );
    assert!(!s.is_terminal());
    assert_eq!(s.scores(), [0, 0]);
}

#[test]
fn option_end_check_immediate_stoeck_before_stich() {
    // Trick 2's last card is seat 1's KR: B reaches 40 by Stöck, A would reach 62 by the
    // trick; Stöck counts first, so B wins.
    let mut s = immediate("40");
    script(&mut s, "play UR, play 9R, play 10R");
    assert!(!s.is_terminal());
    act(&mut s, "play KR");
    assert!(s.is_terminal());
    assert_eq!(s.winner(), Some(1));
    assert_eq!(s.scores(), [14, 40]);
}

#[test]
fn scope_deal_terminal_after_one_deal_target_does_not_apply() {
    // §11 returns, `scope = deal`: terminal after one deal; returns = own team's deal score
    // minus the other's; no winner; the target is ignored.
    let s = e6_state(&[("scope", "deal"), ("target_score", "1")]);
    assert!(s.is_terminal());
    assert_eq!(s.winner(), None);
    // The cumulative scores hold the deal's scored totals, as after deal 1 of a match.
    assert_eq!(s.scores(), s.last_deal().unwrap().scored);
    let json = serde_json::to_value(s.view(Viewer::Seat(0)).unwrap()).unwrap();
    assert_eq!(
        json["scores"],
        serde_json::json!(s.last_deal().unwrap().scored)
    );
    assert_eq!(&s.returns()[..], &[-122.0, 122.0, -122.0, 122.0]);
    let s = e6_state(&[("scope", "deal"), ("target_score", "100000")]);
    assert!(s.is_terminal());
    assert_eq!(s.rewards(), s.returns());
}

#[test]
fn scope_match_returns_zero_until_terminal_then_plus_minus_one() {
    // §11 returns, `scope = match` (default): 0 until terminal, then ±1 per team.
    let mut s = deal(&game_fh0(&[("target_score", "90")]), E6_HANDS);
    act(&mut s, "trump bells");
    for c in E6_PLAYS.split_whitespace() {
        assert!(s.returns().iter().all(|&r| r == 0.0));
        assert!(s.rewards().iter().all(|&r| r == 0.0));
        act(&mut s, &format!("play {c}"));
    }
    assert_eq!(&s.returns()[..], &[-1.0, 1.0, -1.0, 1.0]);
    let json = serde_json::to_value(s.view(Viewer::Spectator).unwrap()).unwrap();
    assert_eq!(json["phase"], "over");
    assert_eq!(json["winner"], 1);
    assert_eq!(json["scores"], serde_json::json!([96, 218]));
    assert_eq!(json["returns"], serde_json::json!([-1.0, 1.0, -1.0, 1.0]));
}

// ---------------------------------------------------------------------------------------------
// Options: validation errors name the key and the allowed values (§16)
// ---------------------------------------------------------------------------------------------

fn option_error(key: &str, value: OptionValue) -> Error {
    let o: Options = [(key.to_owned(), value)].into_iter().collect();
    JassGame::from_options(&o).expect_err(key)
}

#[test]
fn unknown_option_error_names_the_key_and_lists_the_options() {
    match option_error("trump_first", OptionValue::Bool(true)) {
        Error::UnknownOption { key, allowed, .. } => {
            assert_eq!(key, "trump_first");
            for k in [
                "scope",
                "target_score",
                "multiplier_scheme",
                "long_sequence_values",
                "four_banners_wys",
                "undenufe_six_is_eleven",
                "undertrump_rule",
                "stoeck_suits",
                "end_check",
                "schieben_back",
                "first_forehand",
                "match_bonus",
                "last_trick_bonus",
                "first_dealer",
                "wys",
            ] {
                assert!(allowed.contains(k), "{k} in {allowed}");
            }
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn bad_option_values_name_the_key_and_the_allowed_values() {
    let cases: [(&str, OptionValue, &str); 10] = [
        (
            "multiplier_scheme",
            "double".into(),
            "one of seed, swisslos, none",
        ),
        (
            "long_sequence_values",
            "big".into(),
            "one of flat_100, escalating",
        ),
        (
            "undertrump_rule",
            "never".into(),
            "one of forbidden_unless_only_trumps, allowed_if_cannot_overtrump",
        ),
        ("stoeck_suits", "all".into(), "one of trump_only, any_suit"),
        ("end_check", "now".into(), "one of end_of_deal, immediate"),
        (
            "first_forehand",
            "random".into(),
            "one of dealer_param, roses_seven",
        ),
        ("four_banners_wys", "maybe".into(), "true or false"),
        (
            "target_score",
            OptionValue::Int(0),
            "an integer from 1 to 1000000",
        ),
        (
            "first_dealer",
            OptionValue::Int(4),
            "an integer from 0 to 3",
        ),
        ("wys", "sometimes".into(), "one of manual, auto"),
    ];
    for (key, value, allowed_text) in cases {
        let shown = value.to_string();
        match option_error(key, value) {
            e @ Error::InvalidOption { .. } => {
                let msg = e.to_string();
                assert!(msg.contains(key), "{msg}");
                assert!(msg.contains(&shown), "{msg}");
                assert!(msg.contains(allowed_text), "{msg}");
            }
            e => panic!("{key}: {e:?}"),
        }
    }
    // Every option has a valid default and the defaults are those of §16.
    let o = game_with(&[]).options();
    for (k, v) in [
        ("target_score", OptionValue::Int(2500)),
        ("multiplier_scheme", "seed".into()),
        ("long_sequence_values", "flat_100".into()),
        ("four_banners_wys", OptionValue::Bool(false)),
        ("undenufe_six_is_eleven", OptionValue::Bool(false)),
        ("undertrump_rule", "forbidden_unless_only_trumps".into()),
        ("stoeck_suits", "trump_only".into()),
        ("end_check", "end_of_deal".into()),
        ("schieben_back", OptionValue::Bool(false)),
        ("first_forehand", "dealer_param".into()),
        ("match_bonus", OptionValue::Int(100)),
        ("last_trick_bonus", OptionValue::Int(5)),
        ("first_dealer", OptionValue::Int(0)),
        ("wys", "manual".into()),
        ("scope", "match".into()),
    ] {
        assert_eq!(o[k], v, "{k}");
    }
}

#[test]
fn views_name_suits_and_ranks_as_the_action_texts_do() {
    // One naming everywhere: the mode, the last deal's mode, Wys kinds and announced ranks
    // use the Swiss names of the action texts (`trump roses`, `UR`), never the French ones.
    for (mode, name) in [
        ("trump acorns", "acorns"),
        ("trump roses", "roses"),
        ("trump shields", "shields"),
        ("trump bells", "bells"),
    ] {
        let mut s = finished_deal(&[("wys", "auto")], mode, 3);
        let json = serde_json::to_value(s.view(Viewer::Spectator).unwrap()).unwrap();
        assert_eq!(json["mode"], serde_json::json!({ "trump": name }));
        assert_eq!(
            json["last_deal"]["mode"],
            serde_json::json!({ "trump": name })
        );
        s = finished_deal(&[], mode, 3);
        assert_eq!(s.last_deal().unwrap().mode.name(), mode);
    }
    let s = finished_deal(&[], "obenabe", 3);
    let json = serde_json::to_value(s.view(Viewer::Spectator).unwrap()).unwrap();
    assert_eq!(json["mode"], "obenabe");
    // Wys items and announcements: ranks as in card texts, suits by their Swiss names.
    let four_unders = cardhouse::games::jass::WysKind::FourOfAKind { rank: Rank::Jack };
    assert_eq!(
        serde_json::to_value(four_unders).unwrap(),
        serde_json::json!({"kind": "four_of_a_kind", "rank": "U"})
    );
    let run = cardhouse::games::jass::WysKind::Sequence {
        suit: Suit::ROSES,
        low: Rank::Seven,
        len: 3,
    };
    assert_eq!(
        serde_json::to_value(run).unwrap(),
        serde_json::json!({"kind": "sequence", "suit": "roses", "low": "7", "len": 3})
    );
    let text = serde_json::to_string(&s.view(Viewer::Omniscient).unwrap()).unwrap();
    for french in ["Clubs", "Diamonds", "Hearts", "Spades", "Jack", "Queen"] {
        assert!(!text.contains(french), "{french} in {text}");
    }
}
