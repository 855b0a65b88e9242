//! The structured view of a state for one viewer.

use serde::Serialize;

use super::sequences::{self, Run};
use super::{Announcement, DealResult, KlaberjassState, NAME_BASE, PASS, Phase, TAKE, play};
use crate::{Action, Card, CardSet, Error, State, Suit, Viewer};

/// What one viewer may see of a Klaberjass state (serde; JSON for platforms and UIs).
#[derive(Clone, Debug, Serialize)]
pub struct KlaberjassView {
    /// The viewing seat; `None` for a spectator or the omniscient record.
    pub seat: Option<usize>,
    /// True for the omniscient record (every hand shown).
    pub omniscient: bool,
    /// Phase of the current deal.
    pub phase: Phase,
    /// Seat to act, if a seat is to act.
    pub to_act: Option<usize>,
    /// Deal number, from 1.
    pub deal_number: u32,
    /// Dealer (younger player) of the current deal; `None` before the cut.
    pub dealer: Option<usize>,
    /// Hands that this viewer may see, by seat (`None` = hidden).
    pub hands: Vec<Option<CardSet>>,
    /// Number of cards in each hand.
    pub hand_sizes: Vec<usize>,
    /// Cards this viewer knows each seat holds (a taken turn-up, shown sequences).
    pub known_cards: Vec<CardSet>,
    /// The face-up card beside the stock (the turn-up, or the trump 7 after an exchange).
    pub turn_up: Option<Card>,
    /// The turn-up as dealt.
    pub original_turn_up: Option<Card>,
    /// The bottom card of the stock, once turned.
    pub bottom: Option<Card>,
    /// Bids in order.
    pub bids: Vec<BidView>,
    /// Trump suit, once chosen.
    pub trump: Option<Suit>,
    /// The maker, once trump is chosen.
    pub maker: Option<usize>,
    /// The Dix exchange, if one happened.
    pub exchange: Option<ExchangeView>,
    /// The public announcement record (§8.4).
    pub announcement: Announcement,
    /// Declared sequences by seat: the viewer's own, and the sequence winner's.
    pub sequences: Vec<Option<Vec<RunView>>>,
    /// Sequence points per seat in this deal.
    pub sequence_points: [u32; 2],
    /// Bella scored per seat in this deal.
    pub bella: [bool; 2],
    /// Completed tricks of this deal.
    pub tricks: Vec<TrickView>,
    /// The current trick so far.
    pub trick: Vec<PlayView>,
    /// Card points taken per seat in this deal.
    pub card_points: [u32; 2],
    /// Deal totals `T` so far per seat (§11).
    pub deal_totals: [u32; 2],
    /// Cumulative scores. With `scope = deal`, at the end: the points the deal added (§12).
    pub scores: [u32; 2],
    /// Points held over by `maker_tie_rule = hang`.
    pub held_over: u32,
    /// Target score.
    pub target_score: u32,
    /// Result of the previous deal.
    pub last_deal: Option<DealResult>,
    /// The winner once the match is over.
    pub winner: Option<usize>,
    /// True if the match ended drawn.
    pub draw: bool,
    /// Returns per seat (0 until terminal).
    pub returns: Vec<f64>,
    /// Legal actions, when the viewer is the seat to act (or omniscient).
    pub legal_actions: Vec<ActionView>,
}

/// A bid.
#[derive(Clone, Debug, Serialize)]
pub struct BidView {
    /// Who bid.
    pub seat: usize,
    /// Text: `pass`, `take`, `name hearts`.
    pub bid: String,
}

/// The Dix exchange.
#[derive(Clone, Debug, Serialize)]
pub struct ExchangeView {
    /// Who exchanged.
    pub seat: usize,
    /// Window 1 (before the announcements) or 2 (after).
    pub window: u8,
    /// The trump 7 given.
    pub gave: Card,
    /// The turn-up taken.
    pub took: Card,
}

/// A declared sequence.
#[derive(Clone, Debug, Serialize)]
pub struct RunView {
    /// Text, e.g. `9S-KS`.
    pub name: String,
    /// Its cards.
    pub cards: CardSet,
    /// Its points.
    pub points: u32,
}

/// A completed trick.
#[derive(Clone, Debug, Serialize)]
pub struct TrickView {
    /// Who led.
    pub leader: usize,
    /// Cards in play order.
    pub cards: Vec<PlayView>,
    /// Who won it.
    pub winner: usize,
    /// Card points in it.
    pub points: u32,
}

/// One card laid.
#[derive(Clone, Debug, Serialize)]
pub struct PlayView {
    /// Who laid it.
    pub seat: usize,
    /// The card.
    pub card: Card,
}

/// An action with its text.
#[derive(Clone, Debug, Serialize)]
pub struct ActionView {
    /// Action id.
    pub id: Action,
    /// Text form.
    pub text: String,
}

fn run_views(hand_at_declaration: CardSet, items: u32) -> Vec<RunView> {
    let (runs, n) = sequences::runs(hand_at_declaration);
    runs[..n]
        .iter()
        .flatten()
        .filter(|r| items >> r.item() & 1 == 1)
        .map(|r: &Run| RunView {
            name: r.name(),
            cards: r.cards(),
            points: r.points(),
        })
        .collect()
}

pub(super) fn bid_text(action: Action) -> String {
    match action {
        PASS => "pass".to_owned(),
        TAKE => "take".to_owned(),
        a => format!(
            "name {}",
            Suit::from_index((a - NAME_BASE) as u8).map_or("?", Suit::name)
        ),
    }
}

pub(super) fn view(s: &KlaberjassState, viewer: Viewer) -> Result<KlaberjassView, Error> {
    let (me, all) = match viewer {
        Viewer::Seat(p) if p < 2 => (Some(p), false),
        Viewer::Seat(p) => {
            return Err(Error::InvalidSeat {
                seat: p as i64,
                last: 1,
            });
        }
        Viewer::Spectator => (None, false),
        Viewer::Omniscient => (None, true),
    };
    let sees = |p: usize| all || me == Some(p);
    let trump = s.trump.unwrap_or(Suit::Clubs);
    let t = usize::from(s.trick_no);
    let tricks = (0..t.min(9))
        .map(|i| TrickView {
            leader: usize::from(s.leaders[i]),
            cards: (0..2)
                .map(|k| PlayView {
                    seat: (usize::from(s.leaders[i]) + k) & 1,
                    card: s.trick_card(i, k),
                })
                .collect(),
            winner: usize::from(s.winners[i]),
            points: (0..2)
                .map(|k| play::card_points(trump, s.trick_card(i, k)))
                .sum(),
        })
        .collect();
    let trick = if s.phase == Phase::Play {
        s.trick()
            .enumerate()
            .map(|(k, c)| PlayView {
                seat: (usize::from(s.leaders[t]) + k) & 1,
                card: c,
            })
            .collect()
    } else {
        Vec::new()
    };
    let sequences = (0..2)
        .map(|p| {
            let won = s.announcement.winner == Some(p as u8);
            (sees(p) || won).then(|| {
                // The actor's items so far, or the committed declaration.
                let d = if s.phase == Phase::Announce && usize::from(s.to_act) == p {
                    super::Declaration::of(s.hand(p), s.items[p], trump)
                } else {
                    s.declarations[p]
                };
                run_views(d.cards, d.items)
            })
        })
        .collect();
    let elder = s.elder();
    let bids = s.bids[..usize::from(s.num_bids)]
        .iter()
        .enumerate()
        .map(|(i, &b)| BidView {
            seat: if i % 2 == 0 { elder } else { 1 - elder },
            bid: bid_text(Action::from(b)),
        })
        .collect();
    let exchange = match (s.exchanged, s.first_turn_up) {
        (Some((p, w)), Some(took)) => Some(ExchangeView {
            seat: usize::from(p),
            window: w,
            gave: crate::Card::new(crate::Rank::Seven, trump),
            took,
        }),
        _ => None,
    };
    let to_act = s.current_player().seat();
    let legal_actions = if all || (to_act.is_some() && to_act == me) {
        s.legal_actions()
            .iter()
            .map(|a| ActionView {
                id: a,
                text: s.action_to_string(a),
            })
            .collect()
    } else {
        Vec::new()
    };
    let known_cards = (0..2)
        .map(|p| {
            if sees(p) {
                s.hand(p)
            } else {
                s.known_cards_of(p)
            }
        })
        .collect();
    Ok(KlaberjassView {
        seat: me,
        omniscient: all,
        phase: s.phase,
        to_act,
        deal_number: u32::from(s.deal_no) + 1,
        dealer: (s.phase != Phase::Cut).then(|| s.dealer()),
        hands: (0..2).map(|p| sees(p).then_some(s.hand(p))).collect(),
        hand_sizes: (0..2).map(|p| s.hand(p).len()).collect(),
        known_cards,
        turn_up: s.turn_up,
        original_turn_up: s.first_turn_up,
        bottom: s.bottom,
        bids,
        trump: s.trump,
        maker: s.maker(),
        exchange,
        announcement: s.announcement,
        sequences,
        sequence_points: s.seq_points,
        bella: s.bella,
        tricks,
        trick,
        card_points: s.card_points,
        deal_totals: s.deal_totals(),
        scores: s.scores,
        held_over: s.held_over,
        target_score: s.game.target_score,
        last_deal: s.last_deal,
        winner: s.winner(),
        draw: s.drawn,
        returns: s.returns().to_vec(),
        legal_actions,
    })
}

impl KlaberjassState {
    /// Cards that `seat` knows its opponent holds now: the turn-up he took by an exchange and
    /// his shown sequences, not yet played.
    #[must_use]
    pub fn known_cards_of(&self, seat: usize) -> CardSet {
        let seat = seat & 1;
        let mut known = CardSet::EMPTY;
        if let (Some((s, _)), Some(t)) = (self.exchanged, self.first_turn_up) {
            if usize::from(s) == seat {
                known.insert(t);
            }
        }
        if self.announcement.winner == Some(seat as u8) {
            known |= self.shown;
        }
        known & self.hand(seat)
    }
}
