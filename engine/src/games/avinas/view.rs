//! The structured view of a state for one viewer.

use serde::Serialize;

use super::ids::card;
use super::play::points;
use super::{AvinasState, DealResult, Kind, PASSED, Phase, to_cards};
use crate::{Action, Card, CardSet, Error, State, Suit, Viewer};

/// What one viewer may see of an Avinas state (serde; JSON for platforms and UIs). Cards are
/// in French notation (`10H`, `QS`).
#[derive(Clone, Debug, Serialize)]
pub struct AvinasView {
    /// The viewing seat; `None` for a spectator or the omniscient record.
    pub seat: Option<usize>,
    /// True for the omniscient record (every hand shown).
    pub omniscient: bool,
    /// Phase.
    pub phase: Phase,
    /// Seat to act, if a seat is to act.
    pub to_act: Option<usize>,
    /// Deal number, from 1.
    pub deal_number: u32,
    /// Dealer of the current deal (`None` before the first dealer is drawn).
    pub dealer: Option<usize>,
    /// Hands this viewer may see, by seat (`None` = hidden).
    pub hands: Vec<Option<CardSet>>,
    /// Number of cards in each hand.
    pub hand_sizes: Vec<usize>,
    /// Cards the viewer knows were dealt to each seat (without seeing the hand) and has not
    /// seen played: face-up dealt cards, and for the dealer his partner's face-down 4th/8th
    /// cards. A pending face-down lead to trick 2 is not removed for the viewers who did not
    /// see it (that would reveal it), so a listed card may lie face down in the current trick.
    pub known: Vec<CardSet>,
    /// The 4th and 8th cards dealt so far, in exposure order (§5.3).
    pub exposures: Vec<ExposedView>,
    /// Kind of deal, once dealt.
    pub kind: Option<Kind>,
    /// Declarer, once known.
    pub declarer: Option<usize>,
    /// Trump, once fixed.
    #[serde(serialize_with = "super::scoring::suit_name")]
    pub trump: Option<Suit>,
    /// Sevens game: number of face-up Sevens `b`.
    pub base: u32,
    /// Who knocked.
    pub knocked_by: Option<usize>,
    /// Who doubled.
    pub doubled_by: Option<usize>,
    /// The auction by seat.
    pub bids: Vec<BidView>,
    /// Completed tricks of this deal.
    pub tricks: Vec<TrickView>,
    /// The current trick so far.
    pub trick: Vec<PlayView>,
    /// The declarer stopped play early.
    pub stopped: bool,
    /// Card points taken per team in this deal.
    pub card_points: [u32; 2],
    /// Tricks won per team in this deal.
    pub tricks_won: [u32; 2],
    /// Rams per team. With `scope = deal`, at the end: the rams that deal gave.
    pub rams: [u32; 2],
    /// Pips per team. With `scope = deal`, at the end: the pips that deal gave.
    pub pips: [u32; 2],
    /// The pip limit.
    pub pip_limit: u32,
    /// Result of the previous deal.
    pub last_deal: Option<DealResult>,
    /// The losing team once the match is over.
    pub loser: Option<usize>,
    /// The loser is the cat.
    pub cat: bool,
    /// Returns per seat (0 until terminal).
    pub returns: Vec<f64>,
    /// Legal actions, when the viewer is the seat to act (or omniscient).
    pub legal_actions: Vec<ActionView>,
}

/// A 4th or 8th card as the viewer saw it dealt.
#[derive(Clone, Debug, Serialize)]
pub struct ExposedView {
    /// Who received it.
    pub seat: usize,
    /// Dealt face up.
    pub face_up: bool,
    /// The card, if the viewer saw it.
    pub card: Option<Card>,
}

/// One seat's part of the auction.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BidView {
    /// Not asked yet.
    Waiting,
    /// Passed.
    Pass,
    /// Bid this many trumps.
    Bid(u32),
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
    /// The card; `None` for a face-down lead the viewer has not seen.
    pub card: Option<Card>,
    /// Laid face down (trick 2 lead); stays true on trick 2's record once it is complete.
    pub face_down: bool,
}

/// An action with its text.
#[derive(Clone, Debug, Serialize)]
pub struct ActionView {
    /// Action id.
    pub id: Action,
    /// Text form.
    pub text: String,
}

pub(super) fn view(s: &AvinasState, viewer: Viewer) -> Result<AvinasView, Error> {
    let (me, all) = match viewer {
        Viewer::Seat(p) if p < 4 => (Some(p), false),
        Viewer::Seat(p) => {
            return Err(Error::InvalidSeat {
                seat: p as i64,
                last: 3,
            });
        }
        Viewer::Spectator => (None, false),
        Viewer::Omniscient => (None, true),
    };
    let sees = |p: usize| all || me == Some(p);
    let dealer = usize::from(s.dealer);
    let t = usize::from(s.trick_no);
    let tricks = (0..t)
        .map(|i| {
            let leader = usize::from(s.leaders[i]);
            TrickView {
                leader,
                cards: (0..4)
                    .map(|k| PlayView {
                        seat: (leader + k) & 3,
                        card: card(s.tricks[i][k]),
                        face_down: i == 1 && k == 0 && s.face_down,
                    })
                    .collect(),
                winner: usize::from(s.winners[i]),
                points: s.tricks[i].iter().map(|&c| points(c)).sum(),
            }
        })
        .collect();
    let trick = if s.phase == Phase::Play {
        let leader = usize::from(s.leaders[t]);
        (0..usize::from(s.trick_len))
            .map(|k| {
                let seat = (leader + k) & 3;
                let hidden = k == 0 && s.face_down_pending();
                PlayView {
                    seat,
                    card: (!hidden || sees(seat))
                        .then(|| card(s.tricks[t][k]))
                        .flatten(),
                    face_down: hidden,
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    let dealt = if matches!(s.phase, Phase::ChooseDealer) {
        0
    } else {
        usize::from(s.dealt)
    };
    let exposures = (0..dealt / 4)
        .map(|k| {
            let id = s.log[usize::from(s.deal_start) + 4 * k + 3];
            let seat = s.deal_target((4 * k) as u8);
            let up = s.exposed >> id & 1 == 1;
            let visible = up || all || me == Some(seat) || me == Some(dealer);
            ExposedView {
                seat,
                face_up: up,
                card: visible.then(|| card(id)).flatten(),
            }
        })
        .collect();
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
    let started = s.phase != Phase::ChooseDealer;
    Ok(AvinasView {
        seat: me,
        omniscient: all,
        phase: s.phase,
        to_act,
        deal_number: u32::from(s.deal_no) + 1,
        dealer: started.then_some(dealer),
        hands: (0..4)
            .map(|p| sees(p).then(|| to_cards(s.hands[p])))
            .collect(),
        hand_sizes: (0..4).map(|p| s.hands[p].count_ones() as usize).collect(),
        known: (0..4)
            .map(|p| {
                if sees(p) {
                    CardSet::EMPTY
                } else {
                    to_cards(s.known_cards(me, p))
                }
            })
            .collect(),
        exposures,
        kind: s.kind,
        declarer: s.declarer(),
        trump: s.trump(),
        base: u32::from(s.base),
        knocked_by: s.knock.map(usize::from),
        doubled_by: s.double.map(usize::from),
        bids: s
            .bids
            .iter()
            .map(|&b| match b {
                0 => BidView::Waiting,
                PASSED => BidView::Pass,
                n => BidView::Bid(u32::from(n)),
            })
            .collect(),
        tricks,
        trick,
        stopped: s.stopped,
        card_points: s.card_points,
        tricks_won: s.tricks_won.map(u32::from),
        rams: s.rams,
        pips: s.pips,
        pip_limit: s.game.pip_limit,
        last_deal: s.last_deal,
        loser: s.loser.map(usize::from),
        cat: s.cat,
        returns: s.returns().to_vec(),
        legal_actions,
    })
}
