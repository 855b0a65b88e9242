//! The text forms: actions as each viewer learns them, parsing, the observation string and
//! the debug display of a state.

use std::fmt;

use super::view::{PlayView, bid_text, view};
use super::{
    ANNOUNCE, Announcement, DECLARE_BASE, EXCHANGE, KEEP, KlaberjassState, NAME_BASE, PASS, Phase,
    TAKE, Target, WAIT, action_card, card_action, sequences,
};
use crate::{Action, Card, CardSet, Error, Player, State, Suit, Viewer};

/// The public text of the announcement that `action` (ANNOUNCE) makes at `s`.
fn announce_text(s: &KlaberjassState) -> String {
    let seat = usize::from(s.to_act);
    let trump = s.trump.unwrap_or(Suit::Clubs);
    let mine = super::Declaration::of(s.hand(seat), s.items[seat], trump);
    if seat == s.elder() {
        return match mine.best_value() {
            0 => "announce none".to_owned(),
            v => format!("announce {v}"),
        };
    }
    let a = Announcement::complete(
        s.elder() as u8,
        &s.declarations[s.elder()],
        &mine,
        trump,
        s.game.equal_sequence_rule == super::EqualSequenceRule::ElderScores,
    );
    // Only the younger's own reply: the elder's top card and who holds his sequence in
    // trumps are told to the younger after he commits (§8.4 steps 3-4), so they must not
    // show in the text of a move he is still choosing (the view then shows the whole record).
    format!("announce: {}", a.reply.map_or("good", |r| r.text()))
}

/// Text of `action` at `s` as `viewer` learns it; `None` if the viewer learns nothing.
pub(super) fn action_text(s: &KlaberjassState, viewer: Viewer, action: Action) -> Option<String> {
    match s.current_player() {
        Player::Chance => {
            if s.phase == Phase::Cut {
                return (action < 2).then(|| format!("seat {action} deals first"));
            }
            let card = action_card(action)?;
            match s.target(s.dealt) {
                Target::TurnUp => Some(format!("turn up {card}")),
                Target::Bottom => Some(format!("turn bottom {card}")),
                Target::Seat(seat) => match viewer {
                    Viewer::Omniscient => Some(format!("deal {card} to {seat}")),
                    Viewer::Seat(p) if p == seat => Some(format!("deal {card} to {seat}")),
                    _ => Some(format!("deal a card to {seat}")),
                },
            }
        }
        Player::Seat(seat) => {
            if let Some(card) = action_card(action) {
                return Some(format!("play {card}"));
            }
            match action {
                PASS | TAKE => Some(bid_text(action)),
                a if (NAME_BASE..EXCHANGE).contains(&a) => Some(bid_text(a)),
                EXCHANGE => {
                    let seven = s.trump.map(|t| crate::Card::new(crate::Rank::Seven, t));
                    match (seven, s.turn_up) {
                        (Some(g), Some(t)) => Some(format!("exchange {g} for {t}")),
                        _ => Some("exchange".to_owned()),
                    }
                }
                WAIT => Some("wait".to_owned()),
                KEEP => Some("keep".to_owned()),
                ANNOUNCE => Some(announce_text(s)),
                a => {
                    let item = u8::try_from(a.checked_sub(DECLARE_BASE)?).ok()?;
                    if u32::from(item) >= sequences::NUM_ITEMS {
                        return None;
                    }
                    let text = match sequences::run_of_item(s.hand(seat), item) {
                        Some(r) => format!("declare run {}", r.name()),
                        None => {
                            let (suit, high) = sequences::item_parts(item);
                            let top = Card::new(
                                sequences::rank_of_bit(high),
                                Suit::from_index(suit).unwrap_or(Suit::Clubs),
                            );
                            format!("declare run to {top}")
                        }
                    };
                    match viewer {
                        Viewer::Omniscient => Some(text),
                        Viewer::Seat(p) if p == seat => Some(text),
                        // A private declaration: others do not even learn that it happened.
                        _ => None,
                    }
                }
            }
        }
        Player::Terminal => None,
    }
}

pub(super) fn parse_action(s: &KlaberjassState, text: &str) -> Result<Action, Error> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let bad = |reason: &str| Error::UnparsableAction {
        text: text.to_owned(),
        reason: reason.to_owned(),
    };
    let card_id = |card_text: &str| -> Result<Action, Error> {
        let card = Card::parse(card_text).map_err(|e| bad(&e.to_string()))?;
        if card.rank() < crate::Rank::Seven {
            return Err(bad("the 32-card pack has no cards below 7"));
        }
        Ok(card_action(card))
    };
    if s.phase == Phase::Cut {
        if let Some(rest) = lower.strip_prefix("seat ") {
            return match rest.split_whitespace().next() {
                Some("0") => Ok(0),
                Some("1") => Ok(1),
                _ => Err(bad(
                    "the cut outcome is `seat 0 deals first` or `seat 1 deals first`",
                )),
            };
        }
    }
    for prefix in ["play ", "deal ", "turn up ", "turn bottom "] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            return card_id(rest.split(" to ").next().unwrap_or(""));
        }
    }
    match lower.as_str() {
        "pass" => return Ok(PASS),
        "take" | "accept" | "i accept" => return Ok(TAKE),
        "wait" => return Ok(WAIT),
        "keep" => return Ok(KEEP),
        _ => {}
    }
    if lower == "exchange" || lower.starts_with("exchange ") {
        return Ok(EXCHANGE);
    }
    if lower.starts_with("announce") {
        return Ok(ANNOUNCE);
    }
    if let Some(rest) = lower.strip_prefix("name ") {
        let suit = Suit::parse(rest).map_err(|e| bad(&e.to_string()))?;
        return Ok(NAME_BASE + suit as Action);
    }
    if let Some(rest) = lower.strip_prefix("declare run ") {
        let top_text = rest
            .strip_prefix("to ")
            .or_else(|| rest.split('-').nth(1))
            .ok_or_else(|| {
                bad("a declaration is `declare run <low>-<top>`, e.g. `declare run 9S-KS`")
            })?;
        let top = Card::parse(top_text).map_err(|e| bad(&e.to_string()))?;
        let high = top.rank_index() as u8;
        if !(7..=12).contains(&high) {
            return Err(bad("a sequence's top card is 9, 10, J, Q, K or A"));
        }
        return Ok(DECLARE_BASE + Action::from(top.suit() as u8 * 6 + high - 7));
    }
    Err(bad(
        "expected `play <card>` (e.g. `play JH`), `pass`, `take`, `name <suit>`, `exchange`, `wait`, `keep`, `declare run <low>-<top>` or `announce`",
    ))
}

/// `cards` grouped by suit (♣ ♦ ♥ ♠, ranks ascending), two spaces between suits.
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

fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Cut => "cut for the first dealer",
        Phase::Deal => "deal",
        Phase::BidTurnUp => "bidding round 1 (take or pass the turn-up)",
        Phase::BidOtherSuit => "bidding round 2 (name another suit or pass)",
        Phase::SecondDeal => "second deal",
        Phase::Exchange1 => "exchange window 1",
        Phase::Announce => "sequences",
        Phase::Exchange2 => "exchange window 2",
        Phase::Play => "play",
        Phase::Over => "over",
    }
}

/// The announcement protocol of §8.4 as heard at the table, step by step: the elder's value,
/// the younger's reply, the top card and "in trumps" after an equal, and who scores.
fn announcement_text(a: &Announcement, elder_value: u32) -> String {
    use super::Reply;
    let mut parts = vec![match elder_value {
        0 => "elder: none".to_owned(),
        n => format!("elder: {n}"),
    }];
    if let Some(r) = a.reply {
        parts.push(
            match (elder_value, r) {
                (0, Reply::Good) => "younger: none either",
                (0, _) => "younger: has one (not good)",
                (_, Reply::Good) => "younger: good (lower or none)",
                (_, Reply::NotGood) => "younger: not good (higher)",
                (_, Reply::Equal) => "younger: equal",
            }
            .to_owned(),
        );
    }
    if let (Some(top), Some(r)) = (a.elder_top, a.second_reply) {
        let reply = match r {
            Reply::Good => "good (lower top)",
            Reply::NotGood => "not good (higher top)",
            Reply::Equal => "equal",
        };
        parts.push(format!("elder's top: {}; younger: {reply}", top.short()));
    }
    if let Some(p) = a.in_trumps {
        parts.push(format!("seat {p}: in trumps"));
    }
    if a.done {
        parts.push(match a.winner {
            Some(w) => format!("sequences score for seat {w}"),
            None => "nobody scores sequences".to_owned(),
        });
    }
    parts.join("; ")
}

/// What `seat` knows as text, built from its own [`KlaberjassView`](super::KlaberjassView) only (so
/// it cannot show more). Legal moves read as in the view's `legal_actions` (the younger's
/// `announce: …` text holds only his own first reply, which the elder's public value and his own
/// declaration decide).
pub(super) fn observation_string(s: &KlaberjassState, seat: usize) -> Result<String, Error> {
    use std::fmt::Write;
    let v = view(s, Viewer::Seat(seat))?;
    let opp = 1 - seat;
    let plays = |p: &[PlayView]| {
        p.iter()
            .map(|p| format!("{}:{}", p.seat, p.card))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = String::new();
    let _ = write!(out, "klaberjass, seat {seat}");
    if let Some(d) = v.dealer {
        let role = if d == seat {
            "younger, dealer"
        } else {
            "elder"
        };
        let _ = write!(out, " ({role})");
    }
    let _ = writeln!(
        out,
        ", deal {}, phase {}",
        v.deal_number,
        phase_name(v.phase)
    );
    let _ = writeln!(out, "hand: {}", by_suit(v.hands[seat].unwrap_or_default()));
    let mut table = Vec::new();
    if let Some(up) = v.turn_up {
        if v.original_turn_up.is_some_and(|o| o != up) {
            table.push(format!(
                "turn-up {up} (dealt {})",
                v.original_turn_up.unwrap_or(up)
            ));
        } else {
            table.push(format!("turn-up {up}"));
        }
    }
    if let Some(b) = v.bottom {
        table.push(format!("bottom {b}"));
    }
    if !table.is_empty() {
        let _ = writeln!(out, "table: {}", table.join(", "));
    }
    if !v.bids.is_empty() {
        let bids: Vec<String> = v
            .bids
            .iter()
            .map(|b| format!("seat {} {}", b.seat, b.bid))
            .collect();
        let _ = writeln!(out, "bids: {}", bids.join(", "));
    }
    if let (Some(t), Some(m)) = (v.trump, v.maker) {
        let _ = writeln!(out, "trump: {}, maker seat {m}", t.name());
    }
    if let Some(x) = &v.exchange {
        let _ = writeln!(
            out,
            "exchange: seat {} gave {} for {} (window {})",
            x.seat, x.gave, x.took, x.window
        );
    }
    let a = &v.announcement;
    if let Some(value) = a.elder_value {
        let _ = writeln!(out, "announcements: {}", announcement_text(a, value));
    }
    for (p, runs) in v.sequences.iter().enumerate() {
        if let Some(runs) = runs.as_ref().filter(|r| !r.is_empty()) {
            let names: Vec<String> = runs
                .iter()
                .map(|r| format!("{} ({})", r.name, r.points))
                .collect();
            let who = if p == seat {
                "your sequences".to_owned()
            } else {
                format!("sequences of seat {p}")
            };
            let _ = writeln!(out, "{who}: {}", names.join(", "));
        }
    }
    let known = v.known_cards[opp];
    if !known.is_empty() {
        let _ = writeln!(out, "seat {opp} holds: {}", by_suit(known));
    }
    let _ = writeln!(
        out,
        "cards held: seat 0 {}, seat 1 {}",
        v.hand_sizes[0], v.hand_sizes[1]
    );
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
    let bella: Vec<String> = (0..2)
        .filter(|&p| v.bella[p])
        .map(|p| format!("seat {p}"))
        .collect();
    if !bella.is_empty() {
        let _ = writeln!(out, "bella: {}", bella.join(", "));
    }
    let _ = writeln!(
        out,
        "deal points (seat 0:seat 1): sequences {}:{}, cards {}:{}, totals {}:{}",
        v.sequence_points[0],
        v.sequence_points[1],
        v.card_points[0],
        v.card_points[1],
        v.deal_totals[0],
        v.deal_totals[1]
    );
    if let Some(d) = &v.last_deal {
        let outcome = match d.outcome {
            super::Outcome::Annulled => "annulled",
            super::Outcome::MakerWins => "maker wins",
            super::Outcome::Tie => "tie",
            super::Outcome::Bete => "bete",
        };
        let _ = writeln!(
            out,
            "last deal: {outcome}, totals {}:{}, added {}:{}",
            d.totals[0], d.totals[1], d.added[0], d.added[1]
        );
    }
    // With `scope = deal` the game is one deal: no target is played to.
    let goal = if s.game.scope == crate::Scope::Deal {
        "one deal".to_owned()
    } else {
        format!("target {}", v.target_score)
    };
    let _ = write!(
        out,
        "scores (seat 0:seat 1): {}:{} ({goal})",
        v.scores[0], v.scores[1]
    );
    if v.held_over > 0 {
        let _ = write!(out, ", held over {}", v.held_over);
    }
    let _ = writeln!(out);
    match v.to_act {
        Some(p) if p == seat => {
            let legal: Vec<&str> = v.legal_actions.iter().map(|a| a.text.as_str()).collect();
            let _ = write!(out, "to act: you; legal: {}", legal.join(", "));
        }
        Some(p) => {
            let _ = write!(out, "to act: seat {p}");
        }
        None if v.phase == Phase::Over => {
            let result = match (v.winner, v.draw) {
                (Some(w), _) => format!("seat {w} wins"),
                (None, true) => "drawn".to_owned(),
                (None, false) => "deal over".to_owned(),
            };
            let _ = write!(out, "game over: {result}; returns {:?}", v.returns);
        }
        None => {
            let _ = write!(out, "to act: chance (dealing)");
        }
    }
    Ok(out)
}

impl fmt::Display for KlaberjassState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "klaberjass deal {} dealer {} {:?}",
            self.deal_no + 1,
            self.dealer,
            self.phase
        )?;
        if let Some(t) = self.trump {
            write!(f, " trump {} maker {}", t.name(), self.maker)?;
        }
        writeln!(f, " scores {}:{}", self.scores[0], self.scores[1])?;
        if let Some(up) = self.turn_up {
            write!(f, "  turn-up {up}")?;
        }
        if let Some(b) = self.bottom {
            write!(f, " bottom {b}")?;
        }
        writeln!(f)?;
        for s in 0..2 {
            writeln!(f, "  seat {s}: {}", self.hand(s))?;
        }
        if self.phase == Phase::Play {
            let trick: Vec<String> = self.trick().map(|c| c.to_string()).collect();
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
