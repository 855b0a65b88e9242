//! Klaberjass invariants over random playouts: cards are conserved, the card points of a deal
//! are those of the 18 cards in play plus the last trick, hidden information never reaches a
//! seat's observation, view or events, and `resample` keeps the seat's knowledge and every
//! inference of §13.

use cardhouse::games::klaberjass::{
    KlaberjassGame, KlaberjassState, Outcome, Phase, action_card, card_action, card_value,
};
use cardhouse::{Card, CardSet, Game, Options, Pack, Rank, Rng, SeededRng, State, Suit, Viewer};

fn game(pairs: &[(&str, &str)]) -> KlaberjassGame {
    let opts: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), (*v).into()))
        .collect();
    KlaberjassGame::from_options(&opts).expect("valid options")
}

const OPTION_SETS: &[&[(&str, &str)]] = &[
    &[("scope", "deal")],
    &[("scope", "deal"), ("equal_sequence_rule", "elder_scores")],
    &[
        ("scope", "deal"),
        ("first_dealer", "0"),
        ("last_trick_bonus", "0"),
    ],
    &[
        ("scope", "match"),
        ("target_score", "200"),
        ("maker_tie_rule", "hang"),
        ("dealer_rotation", "winner_deals"),
        ("game_tie_rule", "draw"),
    ],
];

/// A policy that declares every run most of the time (so the announcement protocol is
/// exercised), otherwise uniform.
fn choose(s: &KlaberjassState, rng: &mut SeededRng) -> u32 {
    let legal = s.legal_actions();
    if s.phase() == Phase::Announce && rng.below(4) != 0 {
        if let Some(a) = legal.iter().find(|&a| a > 41) {
            return a;
        }
    }
    legal.choose(rng).expect("legal action")
}

/// Plays one random game, calling `f` on every state (before each action and at the end).
fn play(
    g: KlaberjassGame,
    seed: u64,
    mut f: impl FnMut(&KlaberjassState, &mut SeededRng),
) -> KlaberjassState {
    let mut rng = SeededRng::new(seed);
    let mut s = g.new_initial_state();
    while !s.is_terminal() {
        f(&s, &mut rng);
        let a = choose(&s, &mut rng);
        s.apply(a).expect("legal");
    }
    f(&s, &mut rng);
    s
}

mod conservation;
mod hidden;
mod observation;
mod resample;

/// Rebuilds `s` with the cards `a` and `b` swapped in the deal outcomes of the current deal,
/// replaying the same actions. `None` if the swapped deal makes some action illegal.
fn with_swapped(s: &KlaberjassState, a: Card, b: Card) -> Option<KlaberjassState> {
    let swap = |x: u32| match action_card(x) {
        Some(c) if c == a => card_action(b),
        Some(c) if c == b => card_action(a),
        _ => x,
    };
    let history = s.history();
    let mut t = s.game().new_initial_state();
    let current_start = history.len() - current_deal_len(s);
    for (i, &x) in history.iter().enumerate() {
        let y = if i >= current_start && t.is_chance_node() && t.phase() != Phase::Cut {
            swap(x)
        } else {
            x
        };
        t.apply(y).ok()?;
    }
    Some(t)
}

/// Number of history entries in the current deal (the deal number changes at its start).
fn current_deal_len(s: &KlaberjassState) -> usize {
    let h = s.history();
    let deal = s.view(Viewer::Spectator).expect("view").deal_number;
    let mut t = s.game().new_initial_state();
    for (i, &x) in h.iter().enumerate() {
        if t.view(Viewer::Spectator).expect("view").deal_number == deal {
            return h.len() - i;
        }
        t.apply(x).expect("replays");
    }
    0
}

/// Suits and trumps a seat has shown it cannot hold, recomputed from the spectator view.
fn shown_voids(s: &KlaberjassState) -> [CardSet; 2] {
    let v = s.view(Viewer::Spectator).expect("view");
    let mut out = [CardSet::EMPTY; 2];
    let Some(t) = s.trump() else { return out };
    let trumps = CardSet::suit_mask(t) & Pack::Piquet32.cards();
    let strength = |c: Card| {
        [
            Rank::Seven,
            Rank::Eight,
            Rank::Queen,
            Rank::King,
            Rank::Ten,
            Rank::Ace,
            Rank::Nine,
            Rank::Jack,
        ]
        .iter()
        .position(|&r| r == c.rank())
        .expect("rank")
    };
    for trick in &v.tricks {
        let (lead, reply) = (trick.cards[0].card, trick.cards[1].card);
        let p = trick.cards[1].seat;
        if lead.suit() == t {
            if reply.suit() != t {
                out[p] |= trumps;
            } else if strength(reply) < strength(lead) {
                for c in trumps.iter().filter(|&c| strength(c) > strength(lead)) {
                    out[p].insert(c);
                }
            }
        } else if reply.suit() != lead.suit() {
            out[p] |= CardSet::suit_mask(lead.suit());
            if reply.suit() != t {
                out[p] |= trumps;
            }
        }
    }
    out
}
