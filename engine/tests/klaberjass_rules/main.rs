//! Rule-by-rule tests of Klaberjass against `shared/rules/klaberjass.md`.
//!
//! One test per rule, per worked example of §14 (`eN_...`) and per edge case of §15
//! (`edge_NN_...`), plus every option of §17. Section numbers refer to the rules file. Tests
//! use the public API only: deals are built by applying the chance outcomes so that each
//! seat gets exactly the cards the test wants.
//!
//! One test binary, a module per section of the rules; the helpers that build deals are here.

mod bidding;
mod deal;
mod end;
mod exchange;
mod play;
mod scoring;
mod sequences;

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
