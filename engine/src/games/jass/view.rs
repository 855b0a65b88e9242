//! The structured view of a state for one viewer.

use serde::Serialize;

use super::{Announcement, DealResult, JassState, Mode, Phase, wys::WysItem};
use crate::{Action, Card, CardSet, Error, State, Viewer};

/// What one viewer may see of a Jass state (serde; JSON for platforms and UIs).
#[derive(Clone, Debug, Serialize)]
pub struct JassView {
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
    /// Dealer of the current deal.
    pub dealer: usize,
    /// Forehand of the current deal.
    pub forehand: usize,
    /// Hands that this viewer may see, by seat (`None` = hidden), in Swiss notation.
    pub hands: Vec<Option<SwissCards>>,
    /// Number of cards in each hand.
    pub hand_sizes: Vec<usize>,
    /// The mode, once chosen.
    pub mode: Option<Mode>,
    /// The mode's multiplier, once chosen.
    pub multiplier: Option<u32>,
    /// Whether the choice was pushed (schieben).
    pub pushed: bool,
    /// Who chose the mode.
    pub chooser: Option<usize>,
    /// Completed tricks of this deal.
    pub tricks: Vec<TrickView>,
    /// The current trick so far.
    pub trick: Vec<PlayView>,
    /// Wys announcements by seat.
    pub announcements: Vec<Announcement>,
    /// The team whose Wys scored (after trick 1).
    pub wys_winner: Option<usize>,
    /// Wys shown by seat: the winning team's after trick 1, and the viewer's own declaration.
    pub wys: Vec<Option<Vec<WysView>>>,
    /// Number of Stöck scored by each seat this deal.
    pub stoeck: Vec<u8>,
    /// Raw points of this deal per team so far (cards, bonuses, Wys, Stöck).
    pub deal_points: [u32; 2],
    /// Match scores per team (multiplied points of the finished deals; with `end_check =
    /// immediate`, also of this deal so far). With `scope = deal`, once the deal is over: the
    /// points that deal scored.
    pub scores: [u32; 2],
    /// Target score.
    pub target_score: u32,
    /// Result of the previous deal (of this one once the game is over after it), with its
    /// breakdown: cards, Wys, Stöck, last trick, Match, multiplier.
    pub last_deal: Option<DealResult>,
    /// The winning team once the match is over.
    pub winner: Option<usize>,
    /// Returns per seat (0 until terminal).
    pub returns: Vec<f64>,
    /// Legal actions, when the viewer is the seat to act (or omniscient).
    pub legal_actions: Vec<ActionView>,
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
    /// The card in Swiss notation, e.g. `UR` (Under of Roses).
    pub card: String,
    /// The French-pack equivalent for display, e.g. `J♥`.
    pub french: String,
}

/// Cards serialized as a list in Swiss notation (`["6B", "UR"]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwissCards(pub CardSet);

impl Serialize for SwissCards {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(Card::swiss))
    }
}

/// A Wys shown.
#[derive(Clone, Debug, Serialize)]
pub struct WysView {
    /// What it is.
    #[serde(flatten)]
    pub kind: super::WysKind,
    /// Text, e.g. `run 7A-9A`.
    pub name: String,
    /// Its cards, in Swiss notation.
    pub cards: SwissCards,
    /// Its points.
    pub points: u32,
}

/// An action with its text.
#[derive(Clone, Debug, Serialize)]
pub struct ActionView {
    /// Action id.
    pub id: Action,
    /// Text form.
    pub text: String,
}

fn play_view(seat: usize, card: Card) -> PlayView {
    PlayView {
        seat,
        card: card.swiss(),
        french: card.unicode(),
    }
}

pub(super) fn view(s: &JassState, viewer: Viewer) -> Result<JassView, Error> {
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
    let t = s.trick_no as usize;
    let tricks = (0..t.min(9))
        .map(|i| TrickView {
            leader: usize::from(s.leaders[i]),
            cards: (0..4)
                .map(|k| play_view((usize::from(s.leaders[i]) + k) % 4, s.tricks[i][k]))
                .collect(),
            winner: usize::from(s.winners[i]),
            points: s.mode.map_or(0, |m| {
                s.tricks[i]
                    .iter()
                    .map(|&c| super::play::card_points(&s.game, m, c))
                    .sum()
            }),
        })
        .collect();
    // At an immediate end (`end_check = immediate`) the cards already laid to the unfinished
    // trick stay public as the current trick (§16).
    let trick = if s.phase == Phase::Play || s.trick_len > 0 {
        s.trick()
            .iter()
            .enumerate()
            .map(|(k, &c)| play_view((usize::from(s.leaders[t]) + k) % 4, c))
            .collect()
    } else {
        Vec::new()
    };
    let wys = (0..4)
        .map(|p| {
            let shown = s.wys_winner.is_some_and(|w| usize::from(w) == p & 1);
            (sees(p) || shown).then(|| {
                s.declared[p]
                    .iter()
                    .map(|i: WysItem| WysView {
                        kind: i.kind(),
                        name: i.name(),
                        cards: SwissCards(i.cards()),
                        points: i.points(&s.game),
                    })
                    .collect()
            })
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
    Ok(JassView {
        seat: me,
        omniscient: all,
        phase: s.phase,
        to_act,
        deal_number: u32::from(s.deal_no) + 1,
        dealer: s.dealer(),
        forehand: s.forehand(),
        hands: (0..4)
            .map(|p| sees(p).then_some(SwissCards(s.hand_cards(p))))
            .collect(),
        hand_sizes: (0..4).map(|p| s.hand_cards(p).len()).collect(),
        mode: s.mode,
        multiplier: s.mode.map(|m| s.game.multiplier(m)),
        pushed: s.pushes > 0,
        chooser: s.mode.map(|_| usize::from(s.chooser)),
        tricks,
        trick,
        announcements: s.announcements.to_vec(),
        wys_winner: s.wys_winner.map(usize::from),
        wys,
        stoeck: s.stoeck_scored.to_vec(),
        deal_points: s.raw,
        scores: s.scores,
        target_score: s.game.target_score,
        last_deal: s.last_deal,
        winner: s.winner.map(usize::from),
        returns: s.returns().to_vec(),
        legal_actions,
    })
}
