//! The structured view of a state for one viewer.

use serde::Serialize;

use super::{CribbageState, GO, HandScore, LastDeal, Phase, action_card};
use crate::{Action, Card, CardSet, Error, State, Viewer};

/// What one viewer may see of a Cribbage state (serde; JSON for platforms and UIs). Cards
/// are in French notation (`"10H"`, `"JD"`).
#[derive(Clone, Debug, Serialize)]
pub struct CribbageView {
    /// The viewing seat; `None` for a spectator or the omniscient record.
    pub seat: Option<usize>,
    /// True for the omniscient record (every hand and the crib shown).
    pub omniscient: bool,
    /// Number of players.
    pub players: usize,
    /// The phase.
    pub phase: Phase,
    /// Seat to act, if a seat is to act.
    pub to_act: Option<usize>,
    /// Deal number, from 1.
    pub deal_number: u32,
    /// Dealer of the current deal (`None` before the first-dealer draw).
    pub dealer: Option<usize>,
    /// Hands this viewer may see, by seat (`None` = hidden).
    pub hands: Vec<Option<Vec<Card>>>,
    /// Number of cards each seat holds.
    pub hand_sizes: Vec<usize>,
    /// Discards to the crib this viewer may see, by seat (its own; all for the omniscient).
    pub discards: Vec<Option<Vec<Card>>>,
    /// Number of cards each seat has discarded.
    pub discard_counts: Vec<usize>,
    /// Number of cards in the crib.
    pub crib_size: usize,
    /// The crib, once shown (or to the omniscient viewer).
    pub crib: Option<Vec<Card>>,
    /// The starter, once cut.
    pub starter: Option<Card>,
    /// True if the dealer scored his heels (a Jack turned as starter) in this deal.
    pub heels: bool,
    /// The count of the current series (0 outside the play). A game that ended inside the
    /// play keeps, in its terminal view, the count, series and go calls of that instant.
    pub count: u8,
    /// Cards of the current series in play order.
    pub series: Vec<PegView>,
    /// Every card laid and every go said in this deal, in order.
    pub plays: Vec<PegView>,
    /// Who has said go in the current series, by seat.
    pub said_go: Vec<bool>,
    /// Show items counted in this deal so far, in show order.
    pub show: Vec<ShowItemView>,
    /// Scores per side (2 and 3 players: per seat; 4 players: team {0, 2}, team {1, 3}).
    /// With `scope = deal`, at the end: the points of the one deal.
    pub scores: Vec<u32>,
    /// Points per side in this deal (heels, pegging, show).
    pub deal_points: Vec<u32>,
    /// Pegging points per side in this deal.
    pub peg_points: Vec<u32>,
    /// Target score.
    pub target_score: u32,
    /// The previous deal's show (`scope = match`).
    pub last_deal: Option<LastDealView>,
    /// The winning side once the game is over (`scope = match`).
    pub winner: Option<usize>,
    /// Returns per seat (0 until terminal).
    pub returns: Vec<f64>,
    /// Legal actions, when the viewer is the seat to act (or omniscient).
    pub legal_actions: Vec<ActionView>,
}

/// A card laid or a go said in the play.
#[derive(Clone, Debug, Serialize)]
pub struct PegView {
    /// Who.
    pub seat: usize,
    /// The card laid, `None` for go.
    pub card: Option<Card>,
}

/// One item of the show: a hand or the crib, with the starter.
#[derive(Clone, Debug, Serialize)]
pub struct ShowItemView {
    /// Whose hand (the dealer for the crib).
    pub seat: usize,
    /// True for the crib.
    pub crib: bool,
    /// Its four cards.
    pub cards: Vec<Card>,
    /// Its score, item by item.
    pub score: HandScore,
}

/// A finished deal's show.
#[derive(Clone, Debug, Serialize)]
pub struct LastDealView {
    /// Its dealer.
    pub dealer: usize,
    /// Its starter.
    pub starter: Card,
    /// The show items in order.
    pub show: Vec<ShowItemView>,
    /// Points per side in that deal (heels, pegging, show).
    pub points: Vec<u32>,
    /// Pegging points per side in that deal.
    pub pegging: Vec<u32>,
}

/// An action with its text.
#[derive(Clone, Debug, Serialize)]
pub struct ActionView {
    /// Action id.
    pub id: Action,
    /// Text form.
    pub text: String,
}

fn list(set: CardSet) -> Vec<Card> {
    set.iter().collect()
}

/// Show items in order for `dealer`: hands from the dealer's left, then the crib.
fn show_items(
    n: usize,
    dealer: usize,
    hands: &[CardSet; 4],
    crib: CardSet,
    scores: &[HandScore],
) -> Vec<ShowItemView> {
    scores
        .iter()
        .enumerate()
        .map(|(k, &score)| {
            if k < n {
                let seat = (dealer + 1 + k) % n;
                ShowItemView {
                    seat,
                    crib: false,
                    cards: list(hands[seat]),
                    score,
                }
            } else {
                ShowItemView {
                    seat: dealer,
                    crib: true,
                    cards: list(crib),
                    score,
                }
            }
        })
        .collect()
}

fn last_deal_view(n: usize, sides: usize, d: &LastDeal) -> LastDealView {
    LastDealView {
        dealer: usize::from(d.dealer),
        starter: d.starter,
        show: show_items(n, usize::from(d.dealer), &d.hands, d.crib, &d.show[..=n]),
        points: d.points[..sides].to_vec(),
        pegging: d.pegging[..sides].to_vec(),
    }
}

pub(super) fn view(s: &CribbageState, viewer: Viewer) -> Result<CribbageView, Error> {
    let n = usize::from(s.game.players);
    let (me, all) = match viewer {
        Viewer::Seat(p) if p < n => (Some(p), false),
        Viewer::Seat(p) => {
            return Err(Error::InvalidSeat {
                seat: p as i64,
                last: n - 1,
            });
        }
        Viewer::Spectator => (None, false),
        Viewer::Omniscient => (None, true),
    };
    let sees = |p: usize| all || me == Some(p);
    let sides = s.game.num_sides();
    let peg = |&x: &u8| PegView {
        seat: usize::from(x >> 6),
        card: action_card(Action::from(x & 63)),
    };
    let pegs = &s.pegs[..usize::from(s.pegs_len)];
    let in_play = s.pegging_shown();
    let series = if in_play {
        pegs[usize::from(s.series_start)..]
            .iter()
            .filter(|&&x| Action::from(x & 63) != GO)
            .map(peg)
            .collect()
    } else {
        Vec::new()
    };
    let crib_shown = s.shown > s.game.players;
    let mut kept = [CardSet::EMPTY; 4];
    for (p, k) in kept.iter_mut().enumerate() {
        *k = s.dealt_hands[p] - s.discards[p];
    }
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
    Ok(CribbageView {
        seat: me,
        omniscient: all,
        players: n,
        phase: s.phase,
        to_act,
        deal_number: u32::from(s.deal_no) + 1,
        dealer: (s.phase != Phase::FirstDealer).then_some(usize::from(s.dealer)),
        hands: (0..n).map(|p| sees(p).then(|| list(s.hands[p]))).collect(),
        hand_sizes: (0..n).map(|p| s.hands[p].len()).collect(),
        discards: (0..n)
            .map(|p| sees(p).then(|| list(s.discards[p])))
            .collect(),
        discard_counts: (0..n).map(|p| s.discards[p].len()).collect(),
        crib_size: s.crib.len(),
        crib: (all || crib_shown).then(|| list(s.crib)),
        starter: s.starter,
        heels: s.heels,
        count: if in_play { s.count } else { 0 },
        series,
        plays: pegs.iter().map(peg).collect(),
        said_go: (0..n).map(|p| in_play && s.said_go >> p & 1 == 1).collect(),
        show: show_items(
            n,
            usize::from(s.dealer),
            &kept,
            s.crib,
            &s.show[..usize::from(s.shown)],
        ),
        scores: s.scores[..sides].to_vec(),
        deal_points: s.deal_points[..sides].to_vec(),
        peg_points: s.peg_points[..sides].to_vec(),
        target_score: s.game.target_score,
        last_deal: s.last_deal.as_ref().map(|d| last_deal_view(n, sides, d)),
        winner: s.winner.map(usize::from),
        returns: s.returns().to_vec(),
        legal_actions,
    })
}
