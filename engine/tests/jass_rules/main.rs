//! Rule-by-rule tests of Swiss Jass (Schieber) against `shared/rules/jass_schieber.md`.
//!
//! One test per rule, per edge case of §14 (`edge_NN_...`) and per worked example of §13
//! (`eN_...`), plus every option of §16 and the engine options. Section numbers in comments
//! refer to the rules file. Tests use the public API only: states are built by applying the
//! 36 deal outcomes so that every seat gets exactly the hand the test wants.
//!
//! One test binary, a module per section of the rules; the helpers that build states are here.

mod deal;
mod end;
mod errors;
mod mode;
mod options;
mod play;
mod points;
mod scoring;
mod stoeck;
mod wys;

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

// ---------------------------------------------------------------------------------------------
// Scenarios and checks shared by several sections
// ---------------------------------------------------------------------------------------------

const ROSES: Mode = Mode::Trump(Suit::ROSES);

/// §10: raw = card points + 5 (last trick) + 100 (all nine tricks) + Wys + 20 per Stöck.
fn expected_raw(s: &JassState, team: usize) -> u32 {
    let last = if last_trick_team(s) == team { 5 } else { 0 };
    let matsch = if s.tricks_won()[team] == 9 { 100 } else { 0 };
    let stoeck = 20 * u32::from(s.stoeck_scored(team) + s.stoeck_scored(team + 2));
    s.card_points()[team] + last + matsch + s.wys_points()[team] + stoeck
}

/// The team that won the last trick of the deal (the deal must be complete, `scope = deal`).
fn last_trick_team(s: &JassState) -> usize {
    let v = s.view(Viewer::Omniscient).unwrap();
    assert_eq!(v.tricks.len(), 9, "the deal is complete");
    v.tricks[8].winner % 2
}

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

/// E2 positions: trump Roses, seat 0 leads; `finals` are the hands at that moment.
fn e2(extra: &[(&str, &str)], finals: [&str; 4], trick: &str) -> JassState {
    let mut s = late_trick(extra, ROSES, finals, 0);
    script(&mut s, trick);
    s
}

/// Trick 1 of a trump-Roses deal, seat 0 forehand, after `trick` has been played.
fn trick_one(extra: &[(&str, &str)], partial: [&str; 4], mode: &str, trick: &str) -> JassState {
    let h = fill(partial);
    let mut s = deal(&game_fh0(extra), hands_ref(&h));
    act(&mut s, mode);
    script(&mut s, trick);
    s
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

fn swap_all(text: &str) -> String {
    text.split_whitespace()
        .map(|t| t.split('-').map(swap_rs).collect::<Vec<_>>().join("-"))
        .collect::<Vec<_>>()
        .join(" ")
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

/// Swaps Roses and Shields in a card token (`UR` <-> `US`).
fn swap_rs(token: &str) -> String {
    let (body, last) = token.split_at(token.len() - 1);
    match last {
        "R" => format!("{body}S"),
        "S" => format!("{body}R"),
        _ => token.to_owned(),
    }
}
