//! The structured view of a state for one viewer, the text forms of actions, and the
//! state's debug text (`Display`).

use std::fmt;

use serde::Serialize;

use super::{
    Announcement, DealResult, JassState, MODE_BASE, Mode, Phase, SCHIEBEN, WYS_BASE, action_card,
    wys::WysItem,
};
use crate::{Action, Card, CardSet, Error, Player, Scope, State, Viewer};

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

/// Text of `action` at `s` as `viewer` learns it; `None` if the viewer learns nothing.
pub(super) fn action_text(s: &JassState, viewer: Viewer, action: Action) -> Option<String> {
    match s.current_player() {
        Player::Chance => {
            let seat = s.deal_target(s.dealt);
            let card = action_card(action)?;
            match viewer {
                Viewer::Omniscient => Some(format!("deal {} to {seat}", card.swiss())),
                Viewer::Seat(p) if p == seat => Some(format!("deal {} to {seat}", card.swiss())),
                _ => Some(format!("deal a card to {seat}")),
            }
        }
        Player::Seat(seat) => {
            if let Some(card) = action_card(action) {
                Some(format!("play {}", card.swiss()))
            } else if (MODE_BASE..SCHIEBEN).contains(&action) {
                Some(Mode::ALL[(action - MODE_BASE) as usize].name())
            } else if action == SCHIEBEN {
                Some("schieben".to_owned())
            } else {
                let item = WysItem::from_id(u8::try_from(action.checked_sub(WYS_BASE)?).ok()?)?;
                match viewer {
                    Viewer::Omniscient => Some(format!("wys {}", item.name())),
                    Viewer::Seat(p) if p == seat => Some(format!("wys {}", item.name())),
                    // A private declaration: others do not even learn that it happened.
                    _ => None,
                }
            }
        }
        Player::Terminal => None,
    }
}

pub(super) fn parse_action(s: &JassState, text: &str) -> Result<Action, Error> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let bad = |reason: &str| Error::UnparsableAction {
        text: text.to_owned(),
        reason: reason.to_owned(),
    };
    if let Some(rest) = lower
        .strip_prefix("play ")
        .or_else(|| lower.strip_prefix("deal "))
    {
        let card_text = rest.split(" to ").next().unwrap_or("");
        let card = Card::parse(card_text).map_err(|e| bad(&e.to_string()))?;
        if card.rank() < crate::Rank::Six {
            return Err(bad("the Swiss pack has no cards below 6"));
        }
        return Ok(super::card_action(card));
    }
    if lower == "schieben" {
        return Ok(SCHIEBEN);
    }
    if let Some(i) = Mode::ALL.iter().position(|m| m.name() == lower) {
        return Ok(MODE_BASE + i as Action);
    }
    if let Some(rest) = t.strip_prefix("wys ") {
        let item = WysItem::parse(rest).ok_or_else(|| {
            bad("a Wys is `four <rank>` or `run <low card>-<high card>`, e.g. `wys run 7A-9A`")
        })?;
        return Ok(WYS_BASE + Action::from(item.id()));
    }
    let _ = s;
    Err(bad(
        "expected `play <card>` (e.g. `play UR`), `trump <acorns|roses|shields|bells>`, `obenabe`, `undenufe`, `schieben` or `wys ...`",
    ))
}

/// What `seat` knows as text, built from its own [`JassView`] only (so it cannot show more).
pub(super) fn observation_string(s: &JassState, seat: usize) -> Result<String, Error> {
    use std::fmt::Write;
    let v = view(s, Viewer::Seat(seat))?;
    let cards = |c: &Option<SwissCards>| {
        c.map_or_else(String::new, |c| {
            c.0.iter().map(Card::swiss).collect::<Vec<_>>().join(" ")
        })
    };
    let plays = |p: &[PlayView]| {
        p.iter()
            .map(|p| format!("{}:{}", p.seat, p.card))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = String::new();
    let phase = match v.phase {
        Phase::Deal => "deal",
        Phase::ChooseMode => "choose mode",
        Phase::Play => "play",
        Phase::Over => "over",
    };
    let _ = writeln!(
        out,
        "jass, seat {seat} (team {}), deal {}, dealer {}, forehand {}, phase {phase}",
        seat & 1,
        v.deal_number,
        v.dealer,
        v.forehand
    );
    let _ = writeln!(out, "hand: {}", cards(&v.hands[seat]));
    if let Some(m) = v.mode {
        let _ = writeln!(
            out,
            "mode: {} x{}, chosen by seat {}{}",
            m.name(),
            v.multiplier.unwrap_or(1),
            v.chooser.unwrap_or(0),
            if v.pushed { " (pushed)" } else { "" }
        );
    } else if v.pushed {
        let _ = writeln!(out, "mode: pushed (schieben)");
    }
    for (i, t) in v.tricks.iter().enumerate() {
        let _ = writeln!(
            out,
            "trick {}: {} -> seat {} ({} points)",
            i + 1,
            plays(&t.cards),
            t.winner,
            t.points
        );
    }
    if !v.trick.is_empty() {
        let _ = writeln!(out, "current trick: {}", plays(&v.trick));
    }
    let said: Vec<String> = v
        .announcements
        .iter()
        .enumerate()
        .filter(|(_, a)| a.made)
        .map(|(p, a)| {
            let mut t = match a.said {
                super::Said::NoWys => "no Wys".to_owned(),
                super::Said::Good => "good".to_owned(),
                super::Said::Points | super::Said::Nothing => {
                    a.points.map_or_else(String::new, |pts| format!("{pts}"))
                }
            };
            if let Some(c) = a.cards {
                let _ = write!(t, ", {c} cards");
            }
            if let Some(r) = a.top {
                let _ = write!(t, ", top {}", r.swiss_short());
            }
            if let Some(trump) = a.trump {
                t.push_str(if trump {
                    ", in trumps"
                } else {
                    ", not in trumps"
                });
            }
            if a.best {
                t.push_str(" (best so far)");
            }
            format!("seat {p}: {t}")
        })
        .collect();
    if !said.is_empty() {
        let _ = writeln!(out, "wys announced: {}", said.join("; "));
    }
    for (p, w) in v.wys.iter().enumerate() {
        if let Some(items) = w.as_ref().filter(|w| !w.is_empty()) {
            let names: Vec<String> = items
                .iter()
                .map(|i| format!("{} ({})", i.name, i.points))
                .collect();
            let _ = writeln!(out, "wys of seat {p}: {}", names.join(", "));
        }
    }
    // With `scope = deal` the game is one deal: no target is played to.
    let goal = if s.game.scope == Scope::Deal {
        "one deal".to_owned()
    } else {
        format!("target {}", v.target_score)
    };
    let _ = writeln!(
        out,
        "deal points: {}:{}; scores: {}:{} ({goal})",
        v.deal_points[0], v.deal_points[1], v.scores[0], v.scores[1]
    );
    match v.to_act {
        Some(p) if p == seat => {
            let legal: Vec<&str> = v.legal_actions.iter().map(|a| a.text.as_str()).collect();
            let _ = write!(out, "to act: you; legal: {}", legal.join(", "));
        }
        Some(p) => {
            let _ = write!(out, "to act: seat {p}");
        }
        None if v.phase == Phase::Over => {
            let _ = write!(out, "game over; returns {:?}", v.returns);
        }
        None => {
            let _ = write!(out, "to act: chance (dealing)");
        }
    }
    Ok(out)
}

impl fmt::Display for JassState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "jass deal {} dealer {} {:?}",
            self.deal_no + 1,
            self.dealer,
            self.phase
        )?;
        if let Some(m) = self.mode {
            write!(f, " {}", m.name())?;
        }
        writeln!(f, " scores {}:{}", self.scores[0], self.scores[1])?;
        for s in 0..4 {
            writeln!(f, "  seat {s}: {}", self.hand_cards(s).swiss())?;
        }
        if self.phase == Phase::Play {
            let trick: Vec<String> = self.trick().iter().map(|c| c.swiss()).collect();
            write!(
                f,
                "  trick {}: [{}] to act: {}",
                self.trick_no + 1,
                trick.join(" "),
                self.to_act
            )?;
        }
        Ok(())
    }
}
