//! The text forms: actions as each viewer learns them, parsing, the observation string and
//! the debug display of a state.

use std::fmt;

use super::view::{PlayView, SwissCards, view};
use super::{JassState, MODE_BASE, Mode, Phase, SCHIEBEN, WYS_BASE, action_card, wys::WysItem};
use crate::{Action, Card, Error, Player, Scope, State, Viewer};

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

/// What `seat` knows as text, built from its own [`JassView`](super::JassView) only (so it cannot
/// show more).
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
