//! The text forms: actions as each viewer learns them, parsing, the observation string and
//! the debug display of a state.

use std::fmt;

use super::view::{PegView, ShowItemView, view};
use super::{CribbageState, GO, Phase, action_card, card_action};
use crate::{Action, Card, CardSet, Error, Viewer};

/// Text of `action` at `s` as `viewer` learns it; `None` if it names no action here.
pub(super) fn action_text(s: &CribbageState, viewer: Viewer, action: Action) -> Option<String> {
    let card = action_card(action);
    match s.phase {
        Phase::FirstDealer => {
            (action < Action::from(s.game.players)).then(|| format!("first dealer {action}"))
        }
        Phase::Deal => {
            let card = card?;
            let target = s.deal_target(s.dealt);
            let sees = match (viewer, target) {
                (Viewer::Omniscient, _) => true,
                (Viewer::Seat(p), Some(t)) => p == t,
                _ => false,
            };
            let to = target.map_or_else(|| "the crib".to_owned(), |t| t.to_string());
            Some(if sees {
                format!("deal {card} to {to}")
            } else {
                format!("deal a card to {to}")
            })
        }
        Phase::Starter => Some(format!("starter {}", card?)),
        Phase::Discard => {
            let card = card?;
            let actor = usize::from(s.to_act);
            Some(match viewer {
                Viewer::Omniscient => format!("discard {card}"),
                Viewer::Seat(p) if p == actor => format!("discard {card}"),
                _ => "discard a card".to_owned(),
            })
        }
        Phase::Play => match card {
            Some(c) => Some(format!("play {c}")),
            None if action == GO => Some("go".to_owned()),
            None => None,
        },
        Phase::Over => None,
    }
}

pub(super) fn parse_action(s: &CribbageState, text: &str) -> Result<Action, Error> {
    let lower = text.trim().to_ascii_lowercase();
    let bad = |reason: &str| Error::UnparsableAction {
        text: text.to_owned(),
        reason: reason.to_owned(),
    };
    if lower == "go" {
        return Ok(GO);
    }
    if let Some(rest) = lower.strip_prefix("first dealer ") {
        return match rest.trim().parse::<u8>() {
            Ok(d) if d < s.game.players => Ok(Action::from(d)),
            _ => Err(bad(&format!(
                "the first dealer is a seat from 0 to {}",
                s.game.players - 1
            ))),
        };
    }
    for prefix in ["play ", "discard ", "deal ", "starter "] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            let card_text = rest.split(" to ").next().unwrap_or("");
            let card = Card::parse(card_text).map_err(|e| bad(&e.to_string()))?;
            return Ok(card_action(card));
        }
    }
    // Suggest what can be typed now: a player's moves at a player's turn, the chance forms
    // only while a chance event is pending.
    Err(bad(match s.phase {
        Phase::Discard => "expected `discard <card>` (e.g. `discard 5H`)",
        Phase::Play => "expected `play <card>` (e.g. `play 5H`) or `go`",
        Phase::Deal => "expected `deal <card>` (e.g. `deal 5H`), a chance outcome",
        Phase::Starter => "expected `starter <card>` (e.g. `starter 5H`), a chance outcome",
        Phase::FirstDealer => "expected `first dealer <seat>`, a chance outcome",
        Phase::Over => {
            "the game is over; moves read `discard <card>`, `play <card>` (e.g. `play 5H`) or `go`"
        }
    }))
}

/// `cards` grouped by suit (♣ ♦ ♥ ♠, ranks 2..A), two spaces between suits.
fn by_suit(cards: &[Card]) -> String {
    let set: CardSet = cards.iter().copied().collect();
    let text = crate::Suit::ALL
        .iter()
        .map(|&suit| set.of_suit(suit))
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

fn show_text(item: &ShowItemView) -> String {
    let sc = &item.score;
    let whose = if item.crib {
        format!("crib of seat {}", item.seat)
    } else {
        format!("hand of seat {}", item.seat)
    };
    format!(
        "{whose}: {} = {} (fifteens {}, pairs {}, runs {}, flush {}, nobs {})",
        by_suit(&item.cards),
        sc.total,
        sc.fifteens,
        sc.pairs,
        sc.runs,
        sc.flush,
        sc.nobs
    )
}

/// How a losing side's loss counts at the end of a match (§8): `skunked (2 games)`,
/// `double-skunked (3 games)`, or `None` for a plain loss (and for the winner).
fn skunk_name(s: &CribbageState, side: usize, winner: usize, score: u32) -> Option<String> {
    let g = &s.game;
    let value = g.game_value(score);
    if side == winner || value <= 1 {
        return None;
    }
    let double = g.double_skunk_enabled && score < g.double_skunk_threshold;
    let kind = if double { "double-skunked" } else { "skunked" };
    let below = if double {
        g.double_skunk_threshold
    } else {
        g.skunk_threshold
    };
    Some(format!("{kind} (below {below}: {value} games)"))
}

/// What `seat` knows as text, built from its own [`CribbageView`](super::CribbageView) only (so it
/// cannot show more).
pub(super) fn observation_string(s: &CribbageState, seat: usize) -> Result<String, Error> {
    use std::fmt::Write;
    let v = view(s, Viewer::Seat(seat))?;
    let n = v.players;
    let side_name = |side: usize| {
        if n == 4 {
            format!("seats {}+{}", side, side + 2)
        } else {
            format!("seat {side}")
        }
    };
    let per_side = |values: &[u32]| {
        values
            .iter()
            .enumerate()
            .map(|(side, x)| format!("{} {x}", side_name(side)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let peg = |p: &PegView| match p.card {
        Some(c) => format!("{}:{c}", p.seat),
        None => format!("{}:go", p.seat),
    };
    let phase = match v.phase {
        Phase::FirstDealer => "draw for the first dealer",
        Phase::Deal => "deal",
        Phase::Discard => "discard to the crib",
        Phase::Starter => "cut the starter",
        Phase::Play => "play",
        Phase::Over => "over",
    };
    let mut out = String::new();
    let _ = write!(out, "cribbage ({n} players), seat {seat}");
    if n == 4 {
        let _ = write!(out, " (partner {})", (seat + 2) % 4);
    }
    let _ = write!(out, ", deal {}", v.deal_number);
    if let Some(d) = v.dealer {
        let _ = write!(out, ", dealer {d}");
    }
    let _ = writeln!(out, ", phase {phase}");
    let own = v.hands[seat].as_deref().unwrap_or_default();
    let _ = writeln!(out, "hand: {}", by_suit(own));
    let discards = v.discards[seat].as_deref().unwrap_or_default();
    if !discards.is_empty() {
        let _ = writeln!(out, "your discards: {}", by_suit(discards));
    }
    match &v.crib {
        Some(crib) => {
            let _ = writeln!(out, "crib: {}", by_suit(crib));
        }
        None if v.crib_size > 0 => {
            let cards = if v.crib_size == 1 { "card" } else { "cards" };
            let _ = writeln!(out, "crib: {} {cards}, face down", v.crib_size);
        }
        None => {}
    }
    if let Some(st) = v.starter {
        let heels = if v.heels {
            " (his heels: 2 to the dealer)"
        } else {
            ""
        };
        let _ = writeln!(out, "starter: {st}{heels}");
    }
    if v.phase == Phase::Play || !v.plays.is_empty() {
        let laid: Vec<String> = (0..n)
            .map(|p| {
                let cards: Vec<Card> = v
                    .plays
                    .iter()
                    .filter(|x| x.seat == p)
                    .filter_map(|x| x.card)
                    .collect();
                format!("seat {p} [{}]", by_suit(&cards))
            })
            .collect();
        let _ = writeln!(out, "laid: {}", laid.join(", "));
    }
    // The pegging position, also at the end of a game that ended inside the play.
    if v.phase == Phase::Play || (v.phase == Phase::Over && !v.series.is_empty()) {
        let series: Vec<String> = v.series.iter().map(peg).collect();
        if series.is_empty() {
            let _ = write!(out, "count 0: a new series");
        } else {
            let _ = write!(out, "count {}: {}", v.count, series.join(" "));
        }
        let go: Vec<String> = (0..n)
            .filter(|&p| v.said_go[p])
            .map(|p| p.to_string())
            .collect();
        if !go.is_empty() {
            let _ = write!(out, "; go said by seat {}", go.join(", "));
        }
        let _ = writeln!(out);
    }
    let sizes: Vec<String> = v
        .hand_sizes
        .iter()
        .enumerate()
        .map(|(p, k)| format!("seat {p} {k}"))
        .collect();
    let _ = writeln!(out, "cards held: {}", sizes.join(", "));
    for item in &v.show {
        let _ = writeln!(out, "show: {}", show_text(item));
    }
    if let Some(d) = &v.last_deal {
        let _ = writeln!(
            out,
            "last deal (dealer {}, starter {}): points {}; pegging {}",
            d.dealer,
            d.starter,
            per_side(&d.points),
            per_side(&d.pegging)
        );
        for item in &d.show {
            let _ = writeln!(out, "  {}", show_text(item));
        }
    }
    let _ = writeln!(
        out,
        "this deal: {} (pegging {})",
        per_side(&v.deal_points),
        per_side(&v.peg_points)
    );
    // With `scope = deal` the game is one deal: no target is played to.
    let goal = if s.game.scope == crate::Scope::Deal {
        "one deal".to_owned()
    } else {
        format!("target {}", v.target_score)
    };
    let _ = writeln!(out, "scores: {} ({goal})", per_side(&v.scores));
    match v.to_act {
        Some(p) if p == seat => {
            let legal: Vec<&str> = v.legal_actions.iter().map(|a| a.text.as_str()).collect();
            let _ = write!(out, "to act: you; legal: {}", legal.join(", "));
        }
        Some(p) => {
            let _ = write!(out, "to act: seat {p}");
        }
        None if v.phase == Phase::Over => {
            let result = v.winner.map_or_else(
                || "deal over".to_owned(),
                |w| {
                    let mut t = format!("{} wins", side_name(w));
                    for (side, &score) in v.scores.iter().enumerate() {
                        if let Some(skunk) = skunk_name(s, side, w, score) {
                            let _ = write!(t, "; {} {skunk}", side_name(side));
                        }
                    }
                    t
                },
            );
            let _ = write!(out, "game over: {result}; returns {:?}", v.returns);
        }
        None => {
            let _ = write!(out, "to act: chance (dealing)");
        }
    }
    Ok(out)
}

impl fmt::Display for CribbageState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cribbage {}p deal {} dealer {} {:?} scores {:?}",
            self.n(),
            self.deal_no + 1,
            self.dealer,
            self.phase,
            self.scores()
        )?;
        if let Some(s) = self.starter {
            write!(f, " starter {s}")?;
        }
        writeln!(f)?;
        for s in 0..usize::from(self.n()) {
            writeln!(
                f,
                "  seat {s}: {} (discarded {})",
                self.hands[s], self.discards[s]
            )?;
        }
        if self.phase == Phase::Play {
            write!(f, "  count {} to act: {}", self.count, self.to_act)?;
        }
        Ok(())
    }
}
