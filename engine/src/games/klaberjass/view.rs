//! The structured view of a state for one viewer, and the text forms of actions.

use serde::Serialize;

use super::sequences::{self, Run};
use super::{
    ANNOUNCE, Announcement, DECLARE_BASE, DealResult, EXCHANGE, KEEP, KlaberjassState, NAME_BASE,
    PASS, Phase, TAKE, Target, WAIT, action_card, card_action, play,
};
use crate::{Action, Card, CardSet, Error, Player, State, Suit, Viewer};

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
    /// Cumulative scores.
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

fn bid_text(action: Action) -> String {
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
                    card: s.tricks[i][k],
                })
                .collect(),
            winner: usize::from(s.winners[i]),
            points: s.tricks[i]
                .iter()
                .map(|&c| play::card_points(trump, c))
                .sum(),
        })
        .collect();
    let trick = if s.phase == Phase::Play {
        s.trick()
            .iter()
            .enumerate()
            .map(|(k, &c)| PlayView {
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
                    super::Declaration::of(s.hands[p], s.items[p], trump)
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
                s.hands[p]
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
        hands: (0..2).map(|p| sees(p).then_some(s.hands[p])).collect(),
        hand_sizes: (0..2).map(|p| s.hands[p].len()).collect(),
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

/// The public text of the announcement that `action` (ANNOUNCE) makes at `s`.
fn announce_text(s: &KlaberjassState) -> String {
    let seat = usize::from(s.to_act);
    let trump = s.trump.unwrap_or(Suit::Clubs);
    let mine = super::Declaration::of(s.hands[seat], s.items[seat], trump);
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
                    let text = match sequences::run_of_item(s.hands[seat], item) {
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

/// What `seat` knows as text, built from its own [`KlaberjassView`] only (so it cannot show
/// more). The legal `announce` reads just `announce`: its full text would tell the younger
/// player the elder's top sequence before committing.
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
        let mut t = match value {
            0 => "elder none".to_owned(),
            n => format!("elder {n}"),
        };
        if let Some(r) = a.reply {
            let _ = write!(t, "; younger {}", r.text());
        }
        if let (Some(top), Some(r)) = (a.elder_top, a.second_reply) {
            let _ = write!(t, "; elder top {}; younger {}", top.short(), r.text());
        }
        if let Some(p) = a.in_trumps {
            let _ = write!(t, "; seat {p} in trumps");
        }
        if a.done {
            match a.winner {
                Some(w) => {
                    let _ = write!(t, "; sequences to seat {w}");
                }
                None => t.push_str("; no sequences score"),
            }
        }
        let _ = writeln!(out, "announcements: {t}");
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
    let _ = write!(
        out,
        "scores (seat 0:seat 1): {}:{} (target {})",
        v.scores[0], v.scores[1], v.target_score
    );
    if v.held_over > 0 {
        let _ = write!(out, ", held over {}", v.held_over);
    }
    let _ = writeln!(out);
    match v.to_act {
        Some(p) if p == seat => {
            let legal: Vec<&str> = v
                .legal_actions
                .iter()
                .map(|a| {
                    if a.id == ANNOUNCE {
                        "announce"
                    } else {
                        a.text.as_str()
                    }
                })
                .collect();
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
