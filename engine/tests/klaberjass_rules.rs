//! Rule-by-rule tests of Klaberjass against `shared/rules/klaberjass.md`.
//!
//! One test per rule, per worked example of §14 (`eN_...`) and per edge case of §15
//! (`edge_NN_...`), plus every option of §17. Section numbers refer to the rules file. Tests
//! use the public API only: deals are built by applying the chance outcomes so that each
//! seat gets exactly the cards the test wants.

use cardhouse::games::klaberjass::scoring::{
    GameEnd, game_end, held_over_goes_to, next_dealer, score_deal,
};
use cardhouse::games::klaberjass::sequences::{Declaration, runs};
use cardhouse::games::klaberjass::{
    Announcement, DealerRotation, GameTieRule, KlaberjassGame, KlaberjassState, MakerTieRule,
    Outcome, Phase, Reply, action_card, card_action, card_value,
};
use cardhouse::{
    Action, Card, CardSet, Error, Game, OptionValue, Options, Player, Rank, SeededRng, State, Suit,
    Viewer, new_game,
};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A game from option pairs (values as text). Seat 1 deals first (seat 0 is elder) and the
/// scope is one deal, unless the pairs say otherwise.
fn game(opts: &[(&str, &str)]) -> KlaberjassGame {
    let mut o: Options = [("first_dealer", "1"), ("scope", "deal")]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), OptionValue::Str((*v).to_owned())))
        .collect();
    for (k, v) in opts {
        o.insert((*k).to_owned(), OptionValue::Str((*v).to_owned()));
    }
    KlaberjassGame::from_options(&o).unwrap_or_else(|e| panic!("options {opts:?}: {e}"))
}

fn card(text: &str) -> Card {
    Card::parse(text).unwrap_or_else(|e| panic!("card `{text}`: {e}"))
}

fn cards(text: &str) -> CardSet {
    text.parse()
        .unwrap_or_else(|e| panic!("cards `{text}`: {e}"))
}

fn list(text: &str) -> Vec<Card> {
    text.split_whitespace().map(card).collect()
}

fn act(s: &mut KlaberjassState, text: &str) {
    let a = s
        .string_to_action(text)
        .unwrap_or_else(|e| panic!("`{text}`: {e}"));
    s.apply(a)
        .unwrap_or_else(|e| panic!("`{text}` at {:?}: {e}\n{s}", s.phase()));
}

fn try_act(s: &mut KlaberjassState, text: &str) -> Result<(), Error> {
    let a = s.string_to_action(text)?;
    s.apply(a)
}

/// Deals round 1 (§5.1–2): elder's first six cards, the dealer's first six, the turn-up.
fn start(g: &KlaberjassGame, elder: &str, dealer: &str, up: &str) -> KlaberjassState {
    let mut s = g.new_initial_state();
    start_deal(&mut s, elder, dealer, up);
    s
}

fn start_deal(s: &mut KlaberjassState, elder: &str, dealer: &str, up: &str) {
    let (e, d) = (list(elder), list(dealer));
    assert_eq!(s.phase(), Phase::Deal);
    for c in e[0..3]
        .iter()
        .chain(&d[0..3])
        .chain(&e[3..6])
        .chain(&d[3..6])
        .chain([card(up)].iter())
    {
        s.apply(card_action(*c))
            .unwrap_or_else(|e| panic!("deal {c}: {e}"));
    }
    assert_eq!(s.phase(), Phase::BidTurnUp);
}

/// Deals the 3 + 3 completion (elder's cards 7–9, the dealer's 7–9) and the bottom card.
fn complete(s: &mut KlaberjassState, elder: &str, dealer: &str, bottom: &str) {
    let (e, d) = (list(elder), list(dealer));
    assert_eq!(s.phase(), Phase::SecondDeal);
    for c in e[6..9].iter().chain(&d[6..9]).chain([card(bottom)].iter()) {
        s.apply(card_action(*c))
            .unwrap_or_else(|e| panic!("deal {c}: {e}"));
    }
}

/// A whole deal up to the first decision after the bottom card.
fn dealt(
    g: &KlaberjassGame,
    elder: &str,
    dealer: &str,
    up: &str,
    bottom: &str,
    bids: &[&str],
) -> KlaberjassState {
    let mut s = start(g, elder, dealer, up);
    for b in bids {
        act(&mut s, b);
    }
    complete(&mut s, elder, dealer, bottom);
    s
}

fn texts(s: &KlaberjassState) -> Vec<String> {
    s.legal_actions()
        .iter()
        .map(|a| s.action_to_string(a))
        .collect()
}

fn legal_cards(s: &KlaberjassState) -> CardSet {
    s.legal_actions().iter().filter_map(action_card).collect()
}

/// Both windows passed (if held) and nothing declared: straight to play.
fn skip_to_play(s: &mut KlaberjassState) {
    while s.phase() != Phase::Play {
        let t = match s.phase() {
            Phase::Exchange1 => "wait",
            Phase::Exchange2 => "keep",
            Phase::Announce => "announce",
            p => panic!("unexpected phase {p:?}"),
        };
        act(s, t);
    }
}

/// Plays the first legal card until the deal ends.
fn play_out(s: &mut KlaberjassState) {
    while s.phase() == Phase::Play {
        let a = s.legal_actions().iter().next().expect("a legal card");
        s.apply(a).expect("legal");
    }
}

// Elder (seat 0) and dealer (seat 1) hands used by several tests: no sequences anywhere.
const PLAIN_ELDER: &str = "AC 10D KH QS 8C 9D JH 7S AS";
const PLAIN_DEALER: &str = "JC 7D AH 9S QC 8D 9H 10S KC";

// ---------------------------------------------------------------------------------------------
// §3 cards and §14 E1
// ---------------------------------------------------------------------------------------------

#[test]
fn card_points_total_152_and_trump_suit_62() {
    let pack = cardhouse::Pack::Piquet32.cards();
    for t in Suit::ALL {
        assert_eq!(card_value(t, pack), 152);
        assert_eq!(card_value(t, pack.of_suit(t)), 62);
        for s in Suit::ALL.into_iter().filter(|&s| s != t) {
            assert_eq!(card_value(t, pack.of_suit(s)), 30);
        }
    }
}

#[test]
fn e1_card_points_of_the_18_cards_in_play_plus_last_trick_is_121() {
    let g = game(&[]);
    // Out of play: turn-up 8H, bottom 7H, and the 12 stock cards AS 10C JH 9C 8C 7C 9D 8D 7D
    // 9S 8S 7S.
    let elder = "AC KC QC JC AD KD QD JD 10D";
    let dealer = "AH KH QH 10H 9H KS QS JS 10S";
    let in_play = cards(elder) | cards(dealer);
    assert_eq!(card_value(Suit::Hearts, in_play), 111);
    let mut s = dealt(&g, elder, dealer, "8H", "7H", &["take"]);
    assert_eq!(s.trump(), Some(Suit::Hearts));
    skip_to_play(&mut s);
    play_out(&mut s);
    let cp = s.card_points();
    assert_eq!(cp[0] + cp[1], 111);
    assert_eq!(
        s.bella(),
        [false, true],
        "the dealer holds K and Q of hearts"
    );
    let t = s.last_deal().expect("scored").totals;
    assert_eq!(t[0] + t[1], 121 + 20);
}

// ---------------------------------------------------------------------------------------------
// §4 first dealer, rotation
// ---------------------------------------------------------------------------------------------

#[test]
fn first_dealer_random_is_one_fair_chance_event() {
    let g = KlaberjassGame::from_options(&Options::new()).expect("defaults");
    let s = g.new_initial_state();
    assert_eq!(s.current_player(), Player::Chance);
    assert_eq!(s.phase(), Phase::Cut);
    assert_eq!(
        s.chance_outcomes().expect("chance"),
        vec![(0, 0.5), (1, 0.5)]
    );
    for seat in 0..2 {
        let mut t = s.clone();
        assert_eq!(t.action_to_string(seat), format!("seat {seat} deals first"));
        t.apply(seat).expect("cut outcome");
        assert_eq!(t.dealer(), seat as usize);
        assert_eq!(t.elder(), 1 - seat as usize);
        assert_eq!(t.phase(), Phase::Deal);
    }
    assert!(s.clone().apply(2).is_err());
}

#[test]
fn first_dealer_option_fixes_the_dealer_as_text_or_integer() {
    for (v, dealer) in [
        (OptionValue::from("0"), 0),
        (OptionValue::from("1"), 1),
        (OptionValue::Int(1), 1),
        (OptionValue::Int(0), 0),
    ] {
        let g = KlaberjassGame::from_options(&cardhouse::options([("first_dealer", v)]))
            .expect("valid");
        let s = g.new_initial_state();
        assert_eq!(s.phase(), Phase::Deal);
        assert_eq!(s.dealer(), dealer);
    }
    for bad in [
        OptionValue::Int(2),
        OptionValue::from("north"),
        OptionValue::Bool(true),
    ] {
        let e =
            KlaberjassGame::from_options(&cardhouse::options([("first_dealer", bad)])).unwrap_err();
        assert!(
            e.to_string().contains("first_dealer") && e.to_string().contains("random, 0, 1"),
            "{e}"
        );
    }
}

#[test]
fn deal_is_three_to_elder_three_to_dealer_twice_then_the_turn_up() {
    let g = game(&[]);
    let mut s = g.new_initial_state();
    let mut rng = SeededRng::new(4);
    let mut to = Vec::new();
    while s.is_chance_node() {
        let a = s.legal_actions().choose(&mut rng).expect("outcome");
        to.push(s.action_to_string(a));
        s.apply(a).expect("outcome");
    }
    assert_eq!(to.len(), 13);
    for (k, t) in to.iter().enumerate().take(12) {
        let seat = if (k / 3) % 2 == 0 { 0 } else { 1 };
        assert!(
            t.starts_with("deal ") && t.ends_with(&format!(" to {seat}")),
            "{t}"
        );
    }
    assert!(to[12].starts_with("turn up "));
    assert_eq!(s.hand(0).len(), 6);
    assert_eq!(s.hand(1).len(), 6);
    assert!(s.turn_up().is_some());
    assert_eq!(s.current_player(), Player::Seat(0), "elder bids first");
}

#[test]
fn second_deal_gives_three_to_elder_then_three_to_dealer_then_turns_the_bottom_card() {
    let g = game(&[]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    act(&mut s, "take");
    assert_eq!(s.phase(), Phase::SecondDeal);
    let mut rng = SeededRng::new(1);
    let mut to = Vec::new();
    while s.is_chance_node() {
        let a = s.legal_actions().choose(&mut rng).expect("outcome");
        to.push(s.action_to_string(a));
        s.apply(a).expect("outcome");
    }
    assert_eq!(to.len(), 7);
    assert!(to[..3].iter().all(|t| t.ends_with(" to 0")));
    assert!(to[3..6].iter().all(|t| t.ends_with(" to 1")));
    assert!(to[6].starts_with("turn bottom "));
    assert_eq!((s.hand(0).len(), s.hand(1).len()), (9, 9));
    let bottom = s.bottom().expect("bottom card");
    for v in [Viewer::Seat(0), Viewer::Seat(1), Viewer::Spectator] {
        let view = s.view(v).expect("view");
        assert_eq!(view.bottom, Some(bottom), "the bottom card is public");
        assert_eq!(view.turn_up, Some(card("10H")), "the turn-up is public");
    }
}

// ---------------------------------------------------------------------------------------------
// §6 bidding
// ---------------------------------------------------------------------------------------------

#[test]
fn take_makes_the_turn_up_suit_trump_and_the_taker_maker() {
    let g = game(&[]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    act(&mut s, "pass");
    assert_eq!(s.current_player(), Player::Seat(1));
    act(&mut s, "i accept");
    assert_eq!(s.trump(), Some(Suit::Hearts));
    assert_eq!(s.maker(), Some(1));
}

#[test]
fn name_in_round_two_makes_that_suit_trump() {
    let g = game(&[]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    act(&mut s, "pass");
    act(&mut s, "pass");
    assert_eq!(s.phase(), Phase::BidOtherSuit);
    assert_eq!(
        s.current_player(),
        Player::Seat(0),
        "elder first in round 2"
    );
    act(&mut s, "pass");
    act(&mut s, "name spades");
    assert_eq!((s.trump(), s.maker()), (Some(Suit::Spades), Some(1)));
}

#[test]
fn edge_01_both_pass_twice_annuls_the_deal_without_second_deal_and_the_other_player_deals() {
    let g = game(&[("scope", "match")]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    for _ in 0..4 {
        act(&mut s, "pass");
    }
    assert_eq!(s.phase(), Phase::Deal, "a new deal starts");
    assert_eq!(s.dealer(), 0, "the other player deals");
    assert_eq!(s.scores(), [0, 0]);
    assert_eq!(s.last_deal().expect("annulled").outcome, Outcome::Annulled);
    assert_eq!(s.history().len(), 13 + 4, "no second deal of cards");
    assert!(s.hand(0).is_empty() && s.hand(1).is_empty());
    // One deal only: the annulled deal ends the state with 0 each.
    let g = game(&[]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    for _ in 0..4 {
        act(&mut s, "pass");
    }
    assert!(s.is_terminal());
    assert_eq!(&*s.returns(), &[0.0, 0.0]);
}

#[test]
fn edge_02_round_two_cannot_name_the_turn_up_suit_and_round_one_names_no_suit() {
    let g = game(&[]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    assert_eq!(texts(&s), vec!["pass", "take"]);
    let before = s.clone();
    let e = try_act(&mut s, "name spades").unwrap_err();
    assert!(e.to_string().contains("round 1"), "{e}");
    assert_eq!(s, before, "a rejected action leaves the state unchanged");
    act(&mut s, "pass");
    act(&mut s, "pass");
    assert_eq!(
        texts(&s),
        vec!["pass", "name clubs", "name diamonds", "name spades"]
    );
    let e = try_act(&mut s, "name hearts").unwrap_err();
    assert!(e.to_string().contains("turn-up's suit"), "{e}");
    let e = try_act(&mut s, "take").unwrap_err();
    assert!(e.to_string().contains("round 2"), "{e}");
}

#[test]
fn edge_03_bidding_stops_at_the_first_take_or_name() {
    let g = game(&[]);
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    act(&mut s, "take");
    assert_eq!(
        s.current_player(),
        Player::Chance,
        "the dealer gets no turn"
    );
    assert_eq!(s.maker(), Some(0));
    let mut s = start(&g, PLAIN_ELDER, PLAIN_DEALER, "10H");
    act(&mut s, "pass");
    act(&mut s, "pass");
    act(&mut s, "name clubs");
    assert_eq!(s.current_player(), Player::Chance);
}

// ---------------------------------------------------------------------------------------------
// §7 Dix exchange
// ---------------------------------------------------------------------------------------------

#[test]
fn edge_04_dix_exchange_only_for_the_holder_when_trump_is_the_turn_up_suit_at_most_once() {
    // Dealer holds 7H; turn-up 10H taken: windows held, both players act in each.
    let g = game(&[]);
    let elder = "AC 10D KH QS 8C 9D JH 8S AS";
    let dealer = "JC 7D AH 9S QC 8D 7H 10S KC";
    let mut s = dealt(&g, elder, dealer, "10H", "7S", &["take"]);
    assert_eq!(s.phase(), Phase::Exchange1);
    assert_eq!(
        s.current_player(),
        Player::Seat(0),
        "elder acts first in the window"
    );
    assert_eq!(texts(&s), vec!["wait"], "elder does not hold the 7");
    let e = try_act(&mut s.clone(), "exchange").unwrap_err();
    assert!(e.to_string().contains("does not hold the trump 7"), "{e}");
    act(&mut s, "wait");
    assert_eq!(texts(&s), vec!["exchange 7H for 10H", "wait"]);
    act(&mut s, "exchange");
    assert!(s.hand(1).contains(card("10H")) && !s.hand(1).contains(card("7H")));
    assert_eq!(s.turn_up(), Some(card("7H")));
    assert_eq!(s.exchanged(), Some((1, 1)));
    assert_eq!(s.phase(), Phase::Announce);
    assert!(
        !texts(&s).iter().any(|t| t.starts_with("exchange")),
        "never during the announcements"
    );
    act(&mut s, "announce");
    act(&mut s, "announce");
    assert_eq!(
        s.phase(),
        Phase::Exchange2,
        "window 2 is held after an exchange too"
    );
    assert_eq!(texts(&s), vec!["keep"]);
    act(&mut s, "keep");
    assert_eq!(texts(&s), vec!["keep"], "at most once");
    let e = try_act(&mut s.clone(), "exchange").unwrap_err();
    assert!(e.to_string().contains("already been exchanged"), "{e}");
    act(&mut s, "keep");
    assert_eq!(s.phase(), Phase::Play);
    // The exchange is public.
    let v = s.view(Viewer::Seat(0)).expect("view");
    let x = v.exchange.expect("exchange shown");
    assert_eq!((x.seat, x.gave, x.took), (1, card("7H"), card("10H")));
    assert_eq!(v.known_cards[1], cards("10H"), "the taken turn-up is known");
}

#[test]
fn edge_04_no_windows_when_trump_was_named_or_the_turn_up_is_the_trump_seven() {
    let g = game(&[]);
    let elder = "AC 10D KH QS 8C 9D JH 8S AS";
    let dealer = "JC 7D AH 9S QC 8D 10H 10S KC";
    let s = dealt(&g, elder, dealer, "7H", "7S", &["take"]);
    assert_eq!(s.phase(), Phase::Announce, "turn-up is the trump 7");
    let s = dealt(
        &g,
        elder,
        dealer,
        "7H",
        "7S",
        &["pass", "pass", "name spades"],
    );
    assert_eq!(s.phase(), Phase::Announce, "trump named in round 2");
    // The trump 7 in the stock, even as the bottom card: both players only wait / keep.
    let dealer = "JC 7D AH 9S QC 8D 7S 10S KC";
    let mut s = dealt(&g, elder, dealer, "10H", "7H", &["take"]);
    assert_eq!(s.phase(), Phase::Exchange1);
    assert_eq!(texts(&s), vec!["wait"]);
    act(&mut s, "wait");
    assert_eq!(texts(&s), vec!["wait"]);
}

#[test]
fn edge_05_dix_taken_in_window_one_completes_a_sequence_and_bella() {
    // Turn-up KH; elder holds 7H, QH, JH: the exchange gives J-Q-K of hearts and K+Q.
    let g = game(&[]);
    let elder = "7H QH JH AC 9D 8S AS 10C 8D";
    let dealer = "JC 7D AH 9S QC 10D 7S 10S KC";
    let mut s = dealt(&g, elder, dealer, "KH", "8C", &["take"]);
    act(&mut s, "exchange");
    act(&mut s, "wait");
    assert_eq!(texts(&s), vec!["announce none", "declare run JH-KH"]);
    act(&mut s, "declare run JH-KH");
    act(&mut s, "announce");
    act(&mut s, "announce");
    let a = s.announcement();
    assert_eq!(a.elder_value, Some(20));
    assert_eq!(a.winner, Some(0));
    assert_eq!(s.sequence_points(), [20, 0]);
    assert_eq!(s.shown(), cards("JH QH KH"));
    skip_to_play(&mut s);
    play_out(&mut s);
    assert_eq!(s.bella(), [true, false]);
}

#[test]
fn edge_05_dix_taken_in_window_two_counts_for_bella_but_not_for_sequences() {
    let g = game(&[]);
    let elder = "7H QH JH AC 9D 8S AS 10C 8D";
    let dealer = "JC 7D AH 9S QC 10D 7S 10S KC";
    let mut s = dealt(&g, elder, dealer, "KH", "8C", &["take"]);
    act(&mut s, "wait");
    act(&mut s, "wait");
    assert_eq!(
        texts(&s),
        vec!["announce none"],
        "no sequence before the exchange"
    );
    act(&mut s, "announce");
    act(&mut s, "announce");
    assert_eq!(s.phase(), Phase::Exchange2);
    act(&mut s, "exchange");
    act(&mut s, "keep");
    assert_eq!(s.sequence_points(), [0, 0]);
    play_out(&mut s);
    assert_eq!(s.bella(), [true, false]);
    assert!(s.last_deal().expect("done").totals[0] >= 20);
}

#[test]
fn declared_sequence_keeps_its_value_when_its_trump_seven_is_exchanged_in_window_two() {
    let g = game(&[]);
    // Elder holds 7H 8H 9H (a trump sequence) and exchanges the 7H afterwards.
    let elder = "7H 8H 9H AC 10D 8S AS 10C 8D";
    let dealer = "JC 7D AH 9S QC JD 7S 10S KC";
    let mut s = dealt(&g, elder, dealer, "KH", "8C", &["take"]);
    act(&mut s, "wait");
    act(&mut s, "wait");
    act(&mut s, "declare run 7H-9H");
    act(&mut s, "announce");
    act(&mut s, "announce");
    act(&mut s, "exchange");
    act(&mut s, "keep");
    assert_eq!(s.sequence_points(), [20, 0]);
    play_out(&mut s);
    assert!(s.last_deal().expect("done").totals[0] >= 20);
}

// ---------------------------------------------------------------------------------------------
// §8 sequences
// ---------------------------------------------------------------------------------------------

fn decl(hand: &str, trump: Suit) -> Declaration {
    let h = cards(hand);
    let (r, n) = runs(h);
    let items = r[..n].iter().flatten().fold(0, |m, r| m | 1 << r.item());
    Declaration::of(h, items, trump)
}

fn compare(elder: &str, younger: &str, trump: Suit, elder_wins_ties: bool) -> Announcement {
    Announcement::complete(
        0,
        &decl(elder, trump),
        &decl(younger, trump),
        trump,
        elder_wins_ties,
    )
}

#[test]
fn e3_sequences_trump_breaks_equal_value_and_top_and_the_winner_scores_all() {
    let g = game(&[]);
    let elder = "9S 10S JS QS KS AD 8D AC JC";
    let dealer = "10H JH QH KH 7C 8C 9C 10D QD";
    let mut s = dealt(
        &g,
        elder,
        dealer,
        "7D",
        "AS",
        &["pass", "pass", "name hearts"],
    );
    assert_eq!(s.phase(), Phase::Announce);
    act(&mut s, "declare run 9S-KS");
    act(&mut s, "announce");
    assert_eq!(s.announcement().elder_value, Some(50));
    let ann = s
        .legal_actions()
        .iter()
        .find(|&a| s.action_to_string(a).starts_with("announce"))
        .expect("announce");
    act(&mut s, "declare run 7C-9C");
    act(&mut s, "declare run 10H-KH");
    // The younger's move text says only his own reply: the elder's top card is told to him
    // after he commits.
    assert_eq!(s.action_to_string(ann), "announce: equal");
    act(&mut s, "announce");
    let a = s.announcement();
    assert_eq!(a.reply, Some(Reply::Equal));
    assert_eq!(a.elder_top, Some(Rank::King));
    assert_eq!(a.second_reply, Some(Reply::Equal));
    assert_eq!(a.in_trumps, Some(1));
    assert_eq!(a.winner, Some(1));
    assert_eq!(s.sequence_points(), [0, 70]);
    assert_eq!(s.shown(), cards("10H JH QH KH 7C 8C 9C"));
    // The loser's sequence is never shown.
    let v = s.view(Viewer::Seat(1)).expect("view");
    assert!(v.sequences[0].is_none());
    assert_eq!(v.known_cards[0], CardSet::EMPTY);
}

/// The `to act: you; legal: …` line of `observation_string`.
fn legal_line(s: &KlaberjassState, seat: usize) -> String {
    let text = s.observation_string(seat).expect("text");
    text.lines()
        .find_map(|l| l.strip_prefix("to act: you; legal: "))
        .unwrap_or_else(|| panic!("no legal line in\n{text}"))
        .to_owned()
}

/// The `announcements: …` line of `observation_string`.
fn announcements_line(s: &KlaberjassState, seat: usize) -> String {
    let text = s.observation_string(seat).expect("text");
    text.lines()
        .find_map(|l| l.strip_prefix("announcements: "))
        .unwrap_or_else(|| panic!("no announcements line in\n{text}"))
        .to_owned()
}

#[test]
fn the_observation_text_lists_the_moves_as_they_are_offered_and_reads_the_announcements() {
    // The legal line shows the same texts as the moves offered (`announce: equal`, not a bare
    // `announce`), and the protocol of §8.4 reads step by step.
    let g = game(&[]);
    let elder = "9S 10S JS QS KS AD 8D AC JC";
    let dealer = "10H JH QH KH 7C 8C 9C 10D QD";
    let mut s = dealt(
        &g,
        elder,
        dealer,
        "7D",
        "AS",
        &["pass", "pass", "name hearts"],
    );
    act(&mut s, "declare run 9S-KS");
    assert_eq!(legal_line(&s, 0), texts(&s).join(", "));
    assert!(legal_line(&s, 0).starts_with("announce 50"));
    act(&mut s, "announce");
    assert_eq!(announcements_line(&s, 1), "elder: 50");
    act(&mut s, "declare run 7C-9C");
    act(&mut s, "declare run 10H-KH");
    assert_eq!(legal_line(&s, 1), texts(&s).join(", "));
    assert!(legal_line(&s, 1).starts_with("announce: equal"));
    act(&mut s, "announce");
    assert_eq!(
        announcements_line(&s, 0),
        "elder: 50; younger: equal; elder's top: K; younger: equal; seat 1: in trumps; \
         sequences score for seat 1"
    );
    // Nobody declares anything.
    let mut s = dealt(
        &g,
        PLAIN_ELDER,
        PLAIN_DEALER,
        "QD",
        "8H",
        &["pass", "pass", "name hearts"],
    );
    while s.phase() != Phase::Announce {
        let t = if s.phase() == Phase::Exchange1 {
            "wait"
        } else {
            "keep"
        };
        act(&mut s, t);
    }
    assert_eq!(legal_line(&s, 0), "announce none");
    act(&mut s, "announce");
    assert!(legal_line(&s, 1).starts_with("announce: good"));
    act(&mut s, "announce");
    assert_eq!(
        announcements_line(&s, 1),
        "elder: none; younger: none either; nobody scores sequences"
    );
}

#[test]
fn e3_variant_equal_non_trump_sequences_nobody_scores_or_elder_by_option() {
    let a = compare("AS KS QS", "AD KD QD", Suit::Hearts, false);
    assert_eq!(a.winner, None);
    assert_eq!(a.second_reply, Some(Reply::Equal));
    assert_eq!(a.in_trumps, None);
    let a = compare("AS KS QS", "AD KD QD", Suit::Hearts, true);
    assert_eq!(a.winner, Some(0));
    // Through the engine, with the option.
    for (rule, points) in [("nobody_scores", [0, 0]), ("elder_scores", [20, 0])] {
        let g = game(&[("equal_sequence_rule", rule)]);
        let elder = "AS KS QS 9C 7D 10H 8C JD 7H";
        let dealer = "AD KD QD 9S 7C JH 10S 8H JC";
        let mut s = dealt(
            &g,
            elder,
            dealer,
            "9H",
            "7S",
            &["pass", "pass", "name clubs"],
        );
        act(&mut s, "declare run QS-AS");
        act(&mut s, "announce");
        act(&mut s, "declare run QD-AD");
        act(&mut s, "announce");
        assert_eq!(s.sequence_points(), points, "{rule}");
    }
}

#[test]
fn sequence_values_are_20_for_three_and_50_for_four_or_more() {
    assert_eq!(decl("7C 8C 9C", Suit::Hearts).points, 20);
    assert_eq!(decl("7C 8C 9C 10C", Suit::Hearts).points, 50);
    assert_eq!(decl("7C 8C 9C 10C JC QC", Suit::Hearts).points, 50);
}

#[test]
fn edge_09_sequence_comparison() {
    // 50 beats 20 regardless of the top.
    let a = compare("7C 8C 9C 10C", "QD KD AD", Suit::Hearts, false);
    assert_eq!((a.reply, a.winner), (Some(Reply::Good), Some(0)));
    // A five-card 50 topped by Q loses to a four-card 50 topped by K.
    let a = compare("8C 9C 10C JC QC", "10D JD QD KD", Suit::Hearts, false);
    assert_eq!(a.reply, Some(Reply::Equal));
    assert_eq!(a.elder_top, Some(Rank::Queen));
    assert_eq!((a.second_reply, a.winner), (Some(Reply::NotGood), Some(1)));
    // Trump breaks equal tops.
    let a = compare("JH QH KH", "JD QD KD", Suit::Hearts, false);
    assert_eq!((a.in_trumps, a.winner), (Some(0), Some(0)));
    // Equal non-trump: nobody, or elder by option.
    assert_eq!(
        compare("JC QC KC", "JD QD KD", Suit::Hearts, false).winner,
        None
    );
    assert_eq!(
        compare("JC QC KC", "JD QD KD", Suit::Hearts, true).winner,
        Some(0)
    );
    // Younger lower top.
    let a = compare("JC QC KC", "9D 10D JD", Suit::Hearts, false);
    assert_eq!((a.second_reply, a.winner), (Some(Reply::Good), Some(0)));
}

#[test]
fn edge_10_natural_order_for_sequences() {
    for (hand, n) in [
        ("9H 10H JH", 1),
        ("10H JH QH", 1),
        ("QH KH AH", 1),
        ("KH AH 7H", 0),
        ("7H 8H 10H", 0),
    ] {
        assert_eq!(runs(cards(hand)).1, n, "{hand}");
    }
}

#[test]
fn edge_11_the_winner_scores_all_declared_sequences_the_loser_none() {
    let g = game(&[]);
    let elder = "7C 8C 9C 10C 7D 8D 9D AS KH";
    let dealer = "QC KC AC JS QS KS 10D AD AH";
    let mut s = dealt(
        &g,
        elder,
        dealer,
        "8H",
        "7S",
        &["pass", "pass", "name spades"],
    );
    act(&mut s, "declare run 7C-10C");
    act(&mut s, "declare run 7D-9D");
    act(&mut s, "announce");
    act(&mut s, "declare run QC-AC");
    act(&mut s, "declare run JS-KS");
    act(&mut s, "announce");
    assert_eq!(s.announcement().reply, Some(Reply::Good));
    assert_eq!(s.sequence_points(), [70, 0]);
}

#[test]
fn edge_12_withheld_sequences_are_neither_compared_nor_scored_nor_revealed() {
    let g = game(&[]);
    // Elder withholds his 50 and declares only a 20 topped by 9; younger's 20 topped by K wins.
    let elder = "7C 8C 9C 10C 7D 8D 9D AS KH";
    let dealer = "QC KC JC JS QS 8S 10D AD AH";
    let mut s = dealt(
        &g,
        elder,
        dealer,
        "8H",
        "7S",
        &["pass", "pass", "name spades"],
    );
    act(&mut s, "declare run 7D-9D");
    act(&mut s, "announce");
    assert_eq!(s.announcement().elder_value, Some(20));
    act(&mut s, "declare run JC-KC");
    act(&mut s, "announce");
    let a = s.announcement();
    assert_eq!(
        (a.reply, a.second_reply, a.winner),
        (Some(Reply::Equal), Some(Reply::NotGood), Some(1))
    );
    assert_eq!(s.sequence_points(), [0, 20]);
    // The younger player withheld his JS-QS… no: 8S JS QS is no run; his shown cards are JC-KC.
    assert_eq!(s.shown(), cards("JC QC KC"));
    let v = s.view(Viewer::Seat(1)).expect("view");
    assert!(
        v.sequences[0].is_none(),
        "elder's sequences are not revealed"
    );
    assert_eq!(v.known_cards[0], CardSet::EMPTY);
    // Declarations are private events: the opponent does not learn that one happened.
    let mut t = dealt(
        &g,
        elder,
        dealer,
        "8H",
        "7S",
        &["pass", "pass", "name spades"],
    );
    let d = t.string_to_action("declare run 7C-10C").expect("parse");
    assert_eq!(t.action_to_string_for(Viewer::Seat(1), d), None);
    assert_eq!(t.action_to_string_for(Viewer::Spectator, d), None);
    assert_eq!(
        t.action_to_string_for(Viewer::Seat(0), d).as_deref(),
        Some("declare run 7C-10C")
    );
    let before = t.public_move_number();
    t.apply(d).expect("legal");
    assert_eq!(t.public_move_number(), before);
}

#[test]
fn edge_13_elder_announces_none_and_younger_with_a_sequence_wins() {
    let a = compare("7C 9C JC", "QD KD AD", Suit::Hearts, false);
    assert_eq!(a.elder_value, Some(0));
    assert_eq!((a.reply, a.winner), (Some(Reply::NotGood), Some(1)));
    // Both none: no score.
    let a = compare("7C 9C JC", "QD 9D AD", Suit::Hearts, false);
    assert_eq!((a.reply, a.winner), (Some(Reply::Good), None));
}

#[test]
fn edge_21_an_eight_card_run_scores_50_once() {
    let d = decl("7C 8C 9C 10C JC QC KC AC", Suit::Hearts);
    assert_eq!(d.points, 50);
    assert_eq!(runs(cards("7C 8C 9C 10C JC QC KC AC")).1, 1);
}

#[test]
fn declarations_are_in_ascending_item_order_and_only_maximal_runs() {
    let g = game(&[]);
    let elder = "7C 8C 9C 10C 7D 8D 9D AS KH";
    let dealer = "QC KC AC JS QS KS 10D AD AH";
    let mut s = dealt(
        &g,
        elder,
        dealer,
        "8H",
        "7S",
        &["pass", "pass", "name spades"],
    );
    assert_eq!(
        texts(&s),
        vec!["announce none", "declare run 7C-10C", "declare run 7D-9D"]
    );
    act(&mut s, "declare run 7D-9D");
    assert_eq!(
        texts(&s),
        vec!["announce 20"],
        "items in ascending order only"
    );
    assert!(try_act(&mut s, "declare run 8C-10C").is_err());
}

// ---------------------------------------------------------------------------------------------
// §10 trick play
// ---------------------------------------------------------------------------------------------

/// A deal with trump spades (named by the dealer in round 2), at the first lead.
fn spades_deal(elder: &str, dealer: &str) -> KlaberjassState {
    let g = game(&[]);
    let rest = cardhouse::Pack::Piquet32.cards() - cards(elder) - cards(dealer);
    let up = (rest - CardSet::suit_mask(Suit::Spades))
        .first()
        .expect("a card");
    let bottom = (rest - CardSet::single(up)).first().expect("a card");
    let (up, bottom) = (up.to_string(), bottom.to_string());
    let mut s = dealt(
        &g,
        elder,
        dealer,
        &up,
        &bottom,
        &["pass", "pass", "pass", "name spades"],
    );
    skip_to_play(&mut s);
    s
}

#[test]
fn e2_edge_06_trump_led_must_overtrump_else_any_trump_else_any_card() {
    let mut s = spades_deal(
        "10S JC QC KC 8C 9C 10C AC 9D",
        "KS AS 8H 7H 9H 10H JH QH KH",
    );
    act(&mut s, "play 10S");
    assert_eq!(legal_cards(&s), cards("AS"), "A♠ beats 10♠ in trumps");
    let mut s = spades_deal(
        "10S JC QC KC 8C 9C 10C AC 9D",
        "KS 8H 7H 9H 10H JH QH KH AH",
    );
    act(&mut s, "play 10S");
    assert_eq!(legal_cards(&s), cards("KS"), "no higher trump: any trump");
    let e = try_act(&mut s, "play 8H").unwrap_err();
    assert!(e.to_string().contains("trump must be played"), "{e}");
    let mut s = spades_deal(
        "10S JC QC KC 8C 9C 10C AC 9D",
        "8D 8H 7H 9H 10H JH QH KH AH",
    );
    act(&mut s, "play 10S");
    assert_eq!(legal_cards(&s), s.hand(1), "no trump: any card");
}

#[test]
fn edge_07_plain_led_must_follow_even_holding_trumps_else_trump_else_any() {
    let mut s = spades_deal("AC 7S 8S QC KC 8C 9C 10C 9D", "7C KS AS 8H 7H 9H 10H JH QH");
    act(&mut s, "play AC");
    assert_eq!(legal_cards(&s), cards("7C"), "must follow; may not trump");
    let e = try_act(&mut s, "play KS").unwrap_err();
    assert!(e.to_string().contains("must follow suit"), "{e}");
    let mut s = spades_deal("AC 7S 8S QC KC 8C 9C 10C 9D", "KS AS JD 8H 7H 9H 10H JH QH");
    act(&mut s, "play AC");
    assert_eq!(legal_cards(&s), cards("KS AS"), "void: any trump");
    let mut s = spades_deal(
        "AC 7S 8S QC KC 8C 9C 10C 9D",
        "JD 8D 10D 8H 7H 9H 10H JH QH",
    );
    act(&mut s, "play AC");
    assert_eq!(legal_cards(&s), s.hand(1), "void in both: free");
}

#[test]
fn edge_08_trump_jack_always_wins_and_trump_nine_beats_trump_ace() {
    let mut s = spades_deal("AS 7S 8S QC KC 8C 9C 10C 9D", "JS 9S 8H 7H 9H 10H JH QH AC");
    act(&mut s, "play AS");
    assert_eq!(legal_cards(&s), cards("JS 9S"));
    act(&mut s, "play 9S");
    assert_eq!(s.tricks_won(), [0, 1], "trump 9 beats trump A");
    act(&mut s, "play JS");
    act(&mut s, "play 7S");
    assert_eq!(s.tricks_won(), [0, 2], "the trump J wins");
    // A trump on a plain lead wins; a discard never does.
    let mut s = spades_deal("AC 7S 8S QC KC 8C 9C 10C 9D", "QS KS AS JD 8H 7H 9H 10H JH");
    act(&mut s, "play AC");
    act(&mut s, "play QS");
    assert_eq!(s.tricks_won(), [0, 1]);
}

#[test]
fn elder_leads_the_first_trick_whoever_is_maker_and_the_winner_leads_next() {
    let mut s = spades_deal("AC 7S 8S QC KC 8C 9C 10C 9D", "KS AS JD 8H 7H 9H 10H JH QH");
    assert_eq!(s.maker(), Some(1));
    assert_eq!(s.current_player(), Player::Seat(0));
    act(&mut s, "play AC");
    act(&mut s, "play KS");
    assert_eq!(s.current_player(), Player::Seat(1));
}

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
