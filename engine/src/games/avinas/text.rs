//! The text forms: actions as each viewer learns them, parsing, the observation string and
//! the debug display of a state.

use std::fmt;

use super::ids::card;
use super::play::{named_index, named_lead};
use super::trumps::QJ;
use super::view::{BidView, PlayView, view};
use super::{
    AvinasState, BID_BASE, CONTINUE, DOUBLE, FACE_DOWN_BASE, KNOCK, Kind, NAMED_BASE, PASS, Phase,
    STOP, action_card, card_action, to_cards,
};
use crate::{Action, Card, CardSet, Error, Player, State, Suit, Viewer};

/// Text of `action` at `s` as `viewer` learns it; `None` if it is not an action here.
pub(super) fn action_text(s: &AvinasState, viewer: Viewer, action: Action) -> Option<String> {
    match s.current_player() {
        Player::Chance if s.phase == Phase::ChooseDealer => {
            (action < 4).then(|| format!("first dealer {action}"))
        }
        Player::Chance => {
            let c = card(u8::try_from(action).ok().filter(|&a| a < 32)?)?;
            let k = s.dealt;
            let seat = s.deal_target(k);
            let special = AvinasState::is_special(k);
            let up = special && s.face_up(seat, action as u8);
            let sees = match viewer {
                Viewer::Omniscient => true,
                Viewer::Seat(p) => p == seat || up || (special && p == usize::from(s.dealer)),
                Viewer::Spectator => up,
            };
            let how = match (special, up) {
                (false, _) => "",
                (true, true) => " face up",
                (true, false) => " face down",
            };
            Some(if sees {
                format!("deal {c} to {seat}{how}")
            } else {
                format!("deal a card to {seat}{how}")
            })
        }
        Player::Seat(seat) => {
            if action < FACE_DOWN_BASE {
                Some(format!("play {}", card(action as u8)?))
            } else if action < NAMED_BASE {
                let c = card((action - FACE_DOWN_BASE) as u8)?;
                let sees = match viewer {
                    Viewer::Omniscient => true,
                    Viewer::Seat(p) => p == seat,
                    Viewer::Spectator => false,
                };
                Some(if sees {
                    format!("play {c} face down")
                } else {
                    "play a card face down".to_owned()
                })
            } else if action < BID_BASE {
                let (id, suit) = named_lead(action);
                Some(format!(
                    "play {} trump {}",
                    card(id)?,
                    Suit::from_index(suit)?.name()
                ))
            } else if action < PASS {
                Some(format!("bid {}", action - BID_BASE + 1))
            } else {
                Some(
                    match action {
                        PASS => "pass",
                        KNOCK => "knock",
                        DOUBLE => "double",
                        CONTINUE => "continue",
                        STOP => "stop",
                        _ => return None,
                    }
                    .to_owned(),
                )
            }
        }
        Player::Terminal => None,
    }
}

pub(super) fn parse_action(text: &str) -> Result<Action, Error> {
    let t = text.trim().to_ascii_lowercase();
    let bad = |reason: &str| Error::UnparsableAction {
        text: text.to_owned(),
        reason: reason.to_owned(),
    };
    let card_id = |word: &str| -> Result<u8, Error> {
        let c = Card::parse(word).map_err(|e| bad(&e.to_string()))?;
        card_action(c)
            .map(|a| a as u8)
            .ok_or_else(|| bad("the Avinas pack has only A K Q J 10 9 8 7"))
    };
    match t.as_str() {
        "pass" => return Ok(PASS),
        "knock" => return Ok(KNOCK),
        "double" => return Ok(DOUBLE),
        "continue" => return Ok(CONTINUE),
        "stop" => return Ok(STOP),
        _ => {}
    }
    if let Some(rest) = t.strip_prefix("first dealer ") {
        return match rest.trim().parse::<Action>() {
            Ok(d) if d < 4 => Ok(d),
            _ => Err(bad("the first dealer is a seat 0..3")),
        };
    }
    if let Some(rest) = t.strip_prefix("bid ") {
        return match rest.trim().parse::<Action>() {
            Ok(n) if (1..=8).contains(&n) => Ok(BID_BASE + n - 1),
            _ => Err(bad("a bid is a number of trumps from 1 to 8")),
        };
    }
    if let Some(rest) = t.strip_prefix("deal ") {
        let word = rest.split_whitespace().next().unwrap_or("");
        return card_id(word).map(Action::from);
    }
    if let Some(rest) = t.strip_prefix("play ") {
        let words: Vec<&str> = rest.split_whitespace().collect();
        let id = card_id(words.first().copied().unwrap_or(""))?;
        return match words[1..] {
            [] => Ok(Action::from(id)),
            ["face", "down"] => Ok(FACE_DOWN_BASE + Action::from(id)),
            ["trump", suit] => {
                if QJ >> id & 1 == 0 {
                    return Err(bad("only a Queen or Jack is led naming a trump suit"));
                }
                let s = Suit::parse(suit).map_err(|e| bad(&e.to_string()))?;
                Ok(NAMED_BASE + named_index(id) * 4 + s as Action)
            }
            _ => Err(bad(
                "expected `play <card>`, `play <card> face down` or `play <Q|J> trump <suit>`",
            )),
        };
    }
    Err(bad(
        "expected `play <card>` (e.g. `play QS`, `play 8H face down`, `play JD trump hearts`), `bid <n>`, `pass`, `knock`, `double`, `continue`, `stop`, `deal <card>` or `first dealer <seat>`",
    ))
}

/// `cards` grouped by suit (♣ ♦ ♥ ♠, ranks 7..A), two spaces between suits.
fn by_suit(cards: CardSet) -> String {
    let text = Suit::ALL
        .iter()
        .map(|&suit| cards.of_suit(suit))
        .filter(|c| !c.is_empty())
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join("  ");
    if text.is_empty() {
        "(none)".to_owned()
    } else {
        text
    }
}

fn play_text(p: &PlayView) -> String {
    match (p.card, p.face_down) {
        (Some(c), true) => format!("{}:{c} (face down)", p.seat),
        (Some(c), false) => format!("{}:{c}", p.seat),
        (None, _) => format!("{}:face down", p.seat),
    }
}

/// What `seat` knows as text, built from its own [`AvinasView`](super::AvinasView) only (so it
/// cannot show more).
pub(super) fn observation_string(s: &AvinasState, seat: usize) -> Result<String, Error> {
    use std::fmt::Write;
    let v = view(s, Viewer::Seat(seat))?;
    let team = |t: usize| format!("team {t} (seats {}+{})", t, t + 2);
    let phase = match v.phase {
        Phase::ChooseDealer => "draw for the first dealer",
        Phase::Deal => "deal",
        Phase::Knock => "knock or pass",
        Phase::Double => "double or pass",
        Phase::Bid => "auction",
        Phase::Play => "play",
        Phase::StopChoice => "continue or stop",
        Phase::Over => "over",
    };
    let mut out = String::new();
    let _ = write!(
        out,
        "avinas, seat {seat} (partner {}), deal {}",
        (seat + 2) % 4,
        v.deal_number
    );
    if let Some(d) = v.dealer {
        let _ = write!(out, ", dealer {d}");
    }
    let _ = writeln!(out, ", phase {phase}");
    let _ = writeln!(out, "hand: {}", by_suit(v.hands[seat].unwrap_or_default()));
    if !v.exposures.is_empty() {
        let shown: Vec<String> = v
            .exposures
            .iter()
            .map(|e| {
                let how = if e.face_up { "up" } else { "down" };
                match e.card {
                    Some(c) => format!("{}:{c} {how}", e.seat),
                    None => format!("{}:? {how}", e.seat),
                }
            })
            .collect();
        let _ = writeln!(out, "4th/8th cards: {}", shown.join(", "));
    }
    for (p, known) in v.known.iter().enumerate() {
        if p != seat && !known.is_empty() {
            let _ = writeln!(out, "seat {p} still holds: {}", by_suit(*known));
        }
    }
    match v.kind {
        Some(Kind::Sevens) => {
            let _ = write!(out, "sevens game: {} face-up Seven(s)", v.base);
            if let Some(d) = v.declarer {
                let _ = write!(out, ", declarer {d}");
            }
            if let Some(t) = v.trump {
                let _ = write!(out, ", trump {}", t.name());
            }
            if let Some(k) = v.knocked_by {
                let _ = write!(out, "; knocked by seat {k}");
            }
            if let Some(d) = v.doubled_by {
                let _ = write!(out, "; doubled by seat {d}");
            }
            let _ = writeln!(out);
        }
        Some(Kind::Bidding) => {
            let bids: Vec<String> = v
                .bids
                .iter()
                .enumerate()
                .filter_map(|(p, b)| match b {
                    BidView::Waiting => None,
                    BidView::Pass => Some(format!("seat {p} pass")),
                    BidView::Bid(n) => Some(format!("seat {p} bid {n}")),
                })
                .collect();
            let _ = write!(out, "bidding game");
            if !bids.is_empty() {
                let _ = write!(out, ": {}", bids.join(", "));
            }
            if v.phase != Phase::Bid {
                if let Some(d) = v.declarer {
                    let _ = write!(out, "; declarer {d}");
                }
            }
            if let Some(t) = v.trump {
                let _ = write!(out, ", trump {}", t.name());
            }
            let _ = writeln!(out);
        }
        None => {}
    }
    for (i, t) in v.tricks.iter().enumerate() {
        let cards: Vec<String> = t.cards.iter().map(play_text).collect();
        let _ = writeln!(
            out,
            "trick {}: {} -> seat {} ({} points)",
            i + 1,
            cards.join(" "),
            t.winner,
            t.points
        );
    }
    if !v.trick.is_empty() {
        let cards: Vec<String> = v.trick.iter().map(play_text).collect();
        let _ = writeln!(out, "current trick: {}", cards.join(" "));
    }
    if v.stopped {
        let _ = writeln!(out, "the declarer stopped play");
    }
    let _ = writeln!(
        out,
        "this deal: {} {} card points, {} tricks; {} {} card points, {} tricks",
        team(0),
        v.card_points[0],
        v.tricks_won[0],
        team(1),
        v.card_points[1],
        v.tricks_won[1]
    );
    if let Some(d) = &v.last_deal {
        let result = match (d.kind, d.against) {
            (None, _) => "all passed, no score".to_owned(),
            (Some(kind), Some(x)) => {
                let unit = if kind == Kind::Sevens { "rams" } else { "pips" };
                format!(
                    "{} {unit} against team {x} (declarer {} card points, defenders {})",
                    d.amount, d.declarer_points, d.defender_points
                )
            }
            (Some(_), None) => "nothing given".to_owned(),
        };
        let _ = writeln!(out, "last deal: {result}");
    }
    let _ = writeln!(
        out,
        "rams: team 0 {}, team 1 {}; pips: team 0 {}, team 1 {} (limit {})",
        v.rams[0], v.rams[1], v.pips[0], v.pips[1], v.pip_limit
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
            let result = match v.loser {
                Some(l) if v.cat => format!("team {l} loses as the cat"),
                Some(l) => format!("team {l} loses"),
                None => "deal over".to_owned(),
            };
            let _ = write!(out, "game over: {result}; returns {:?}", v.returns);
        }
        None => {
            let _ = write!(out, "to act: chance (dealing)");
        }
    }
    Ok(out)
}

impl fmt::Display for AvinasState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "avinas deal {} dealer {} {:?}",
            self.deal_no + 1,
            self.dealer,
            self.phase
        )?;
        if let Some(k) = self.kind {
            write!(f, " {k:?}")?;
        }
        if let Some(t) = self.trump() {
            write!(f, " trump {}", t.name())?;
        }
        writeln!(
            f,
            " rams {}:{} pips {}:{}",
            self.rams[0], self.rams[1], self.pips[0], self.pips[1]
        )?;
        for s in 0..4 {
            writeln!(f, "  seat {s}: {}", to_cards(self.hands[s]))?;
        }
        if self.phase == Phase::Play {
            let t = usize::from(self.trick_no);
            let trick: Vec<String> = self.tricks[t][..usize::from(self.trick_len)]
                .iter()
                .filter_map(|&c| action_card(Action::from(c)).map(|c| c.to_string()))
                .collect();
            write!(
                f,
                "  trick {}: [{}] to act: {}",
                t + 1,
                trick.join(" "),
                self.to_act
            )?;
        }
        Ok(())
    }
}
