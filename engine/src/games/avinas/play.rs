//! Trick play (§8): the trump rules of the first two tricks with the face-down lead, the
//! bidding game's opening lead (§7.3), card points (§3.3), the trick's winner and the
//! declarer's early stop. Which cards are trumps and how they rank: `trumps.rs`.
//!
//! Cards are ids `lane * 8 + rank bit` with rank bits 0..8 = 7 8 9 10 J Q K A.

use super::steps::STOP_MENU;
use super::trumps::{PLAIN_LANE, QJ, effective, strength, trump_count, trump_mask};
use super::{AvinasState, FACE_DOWN_BASE, Kind, NAMED_BASE, Phase, action_card, card_action};
use crate::{Action, ActionSet, Card, Suit};

/// Card points by rank bit (§3.3): 7 8 9 = 0, 10 = 10, J = 2, Q = 3, K = 4, A = 11.
const POINTS: [u8; 8] = [0, 0, 0, 10, 2, 3, 4, 11];

/// Card points of a card id.
#[must_use]
pub(super) const fn points(id: u8) -> u32 {
    POINTS[(id & 7) as usize] as u32
}

/// Position (0..4) of the winning card of a complete trick led with effective suit of
/// `trick[0]` (reference implementation for tests and debug checks).
#[must_use]
pub(super) fn trick_winner(trump: u8, trick: &[u8; 4]) -> usize {
    let led = effective(trump_mask(trump), trick[0]).1;
    (0..4)
        .max_by_key(|&i| strength(trump, led, trick[i]))
        .unwrap_or(0)
}

impl AvinasState {
    /// The card ids the seat to act may play face up now (not the bidding game's opening lead).
    #[inline(always)]
    pub(super) fn legal_cards(&self) -> u32 {
        let h = self.hands[usize::from(self.to_act)];
        if self.trick_len == 0 {
            if self.trick_no < 2 {
                // Tricks 1 and 2: lead a trump (at trick 2 only if one is held).
                let t = h & self.tmask;
                if t != 0 || self.trick_no == 0 { t } else { h }
            } else {
                h
            }
        } else {
            // Trick 2: a trump whatever was led; otherwise follow the effective suit.
            let m = if self.trick_no == 1 {
                self.tmask
            } else {
                self.led_mask
            };
            let f = h & m;
            if f != 0 { f } else { h }
        }
    }

    /// Legal actions in the play phase.
    pub(super) fn legal_plays(&self, set: &mut ActionSet) {
        if self.trick_no == 0 && self.trick_len == 0 && self.kind == Some(Kind::Bidding) {
            self.opening_leads(set);
            return;
        }
        let legal = self.legal_cards();
        set.insert_bits(0, u64::from(legal));
        if self.trick_no == 1 && self.trick_len == 0 && legal & self.tmask == 0 {
            // A leader without trumps may lead face down (§8).
            set.insert_bits(FACE_DOWN_BASE, u64::from(legal));
        }
    }

    /// The bidding game's opening lead (§7.3): a plain card of a suit whose trump count
    /// equals the bid, or a Queen or Jack naming such a suit.
    fn opening_leads(&self, set: &mut ActionSet) {
        let h = self.hands[usize::from(self.to_act)];
        let mut plain = 0;
        let mut named = 0u64;
        for s in 0..4u8 {
            if trump_count(h, s) == u32::from(self.high_bid) {
                plain |= h & PLAIN_LANE << (8 * u32::from(s));
                named |= 1 << s;
            }
        }
        set.insert_bits(0, u64::from(plain));
        // Each Queen or Jack held names the suits in `named`: its four ids from
        // `NAMED_BASE + named_index(id) * 4`. The eight of them without a loop over the ones
        // held (a varying trip count, which random deals make unpredictable).
        let mut leads = 0u64;
        for i in 0..8u32 {
            let id = (i / 2) * 8 + 4 + i % 2;
            debug_assert_eq!(named_index(id as u8), Action::from(i));
            leads |= (named * u64::from(h >> id & 1)) << (4 * i);
        }
        set.insert_bits(NAMED_BASE, leads);
    }

    /// Applies a play-phase action.
    #[inline(always)]
    pub(super) fn play_action(&mut self, action: Action) {
        let (id, face_down) = if action < FACE_DOWN_BASE {
            (action as u8, false)
        } else if action < NAMED_BASE {
            ((action - FACE_DOWN_BASE) as u8, true)
        } else {
            let (id, suit) = named_lead(action);
            self.fix_trump(suit);
            (id, false)
        };
        if self.trump > 3 {
            // The bidding game's opening lead with a plain card: its suit is trump.
            self.fix_trump(id >> 3);
        }
        self.play_card(id, face_down);
    }

    pub(super) fn fix_trump(&mut self, suit: u8) {
        self.trump = suit;
        self.tmask = trump_mask(suit);
    }

    #[inline(always)]
    fn play_card(&mut self, id: u8, face_down: bool) {
        let seat = usize::from(self.to_act);
        let bit = 1u32 << id;
        self.hands[seat] &= !bit;
        let pos = self.trick_len;
        let t = usize::from(self.trick_no);
        self.tricks[t][usize::from(pos)] = id;
        if pos == 0 {
            self.led_mask = effective(self.tmask, id).0;
            // Only trick 2 can be led face down; the fact stays public for the deal (§13).
            self.face_down |= face_down;
        }
        self.trick_len = pos + 1;
        if pos < 3 {
            self.to_act = (self.to_act + 1) & 3;
        } else {
            self.complete_trick();
        }
    }

    /// The effective suit led (a lane, 4 = trump), and the position (0..4) and strength of
    /// the card winning the current trick so far (its first `trick_len` cards, at least one).
    pub(super) fn trick_lead(&self) -> (u8, u8, u8) {
        let trick = &self.tricks[usize::from(self.trick_no & 7)];
        let led = effective(self.tmask, trick[0]).1;
        // Strength then position as one key: strengths in a trick differ but for zeros,
        // which never beat the lead's (at least 1), so the highest key is the winner.
        let mut best = 0;
        for (pos, &id) in trick.iter().enumerate().take(usize::from(self.trick_len)) {
            best = best.max(strength(self.trump, led, id) << 2 | pos as u8);
        }
        (led, best & 3, best >> 2)
    }

    /// The winner and card points of the complete current trick, computed once here rather
    /// than kept up to date at every card (each card's bytes are read one by one: stored
    /// one by one just before, a wider read would stall store-to-load forwarding).
    #[inline(never)]
    fn complete_trick(&mut self) {
        let t = usize::from(self.trick_no);
        let trick = &self.tricks[t];
        let led = effective(self.tmask, trick[0]).1;
        let mut best = 0;
        let mut trick_points = 0;
        for (pos, &id) in trick.iter().enumerate() {
            best = best.max(strength(self.trump, led, id) << 2 | pos as u8);
            trick_points += points(id);
        }
        let win_pos = best & 3;
        debug_assert_eq!(usize::from(win_pos), trick_winner(self.trump, trick));
        let winner = (self.leaders[t] + win_pos) & 3;
        self.winners[t] = winner;
        let team = usize::from(winner & 1);
        self.card_points[team] += trick_points;
        self.tricks_won[team] += 1;
        self.trick_no += 1;
        self.trick_len = 0;
        // A knock stands and the defenders won a trick: play stops (§6.5). One branch for
        // both ends of play (not one on the winning team, which random play cannot predict).
        let lost = self.knock.is_some() & ((winner ^ self.declarer) & 1 == 1);
        if lost | (self.trick_no == 8) {
            self.knock_failed |= lost;
            self.finish_deal();
            return;
        }
        self.leaders[t + 1] = winner;
        if self.stop_allowed {
            self.phase = Phase::StopChoice;
            self.to_act = self.declarer;
            self.menu = STOP_MENU;
        } else {
            self.to_act = winner;
        }
    }
}

/// Index 0..8 of a Queen or Jack id among the named-lead actions: `lane * 2 + [Queen]`.
#[must_use]
pub(super) fn named_index(id: u8) -> Action {
    Action::from(id >> 3) * 2 + Action::from(id & 1)
}

/// The card id and the named trump lane of a named opening lead action.
#[must_use]
pub(super) fn named_lead(action: Action) -> (u8, u8) {
    let i = action - NAMED_BASE;
    let qj = i / 4;
    (((qj / 2) * 8 + 4 + qj % 2) as u8, (i % 4) as u8)
}

pub(super) fn play_reason(s: &AvinasState, action: Action) -> String {
    let seat = usize::from(s.to_act);
    let hand = s.hands[seat];
    if action >= super::BID_BASE {
        return "a card must be played now".into();
    }
    let (id, kind) = if action < FACE_DOWN_BASE {
        (action as u8, 0)
    } else if action < NAMED_BASE {
        ((action - FACE_DOWN_BASE) as u8, 1)
    } else {
        (named_lead(action).0, 2)
    };
    let name = action_card(Action::from(id)).map_or_else(String::new, |c| c.to_string());
    if hand >> id & 1 == 0 {
        return format!("seat {seat} does not hold {name}");
    }
    let opening = s.trick_no == 0 && s.trick_len == 0 && s.kind == Some(Kind::Bidding);
    if kind == 2 && !opening {
        return "a trump suit is named only with the opening lead of a bidding game (§7.3)".into();
    }
    if opening {
        if kind == 1 {
            return "only the lead to trick 2 may be face down".into();
        }
        if kind == 0 && QJ >> id & 1 == 1 {
            return format!(
                "a Queen or Jack led to open a bidding game must name the trump suit, e.g. `play {name} trump hearts` (§7.3)"
            );
        }
        return format!(
            "the opening lead must be a trump of a suit whose trump count equals the bid {} (§7.3)",
            s.high_bid
        );
    }
    if kind == 1 {
        return "a card may be led face down only to trick 2, by a leader holding no trump (§8)"
            .into();
    }
    match (s.trick_no, s.trick_len) {
        (0, 0) => "the lead to trick 1 must be a trump (§8)".into(),
        (1, 0) => "the leader of trick 2 holds a trump and must lead one (§8)".into(),
        (1, _) => "at trick 2 a player holding a trump must play one (§8)".into(),
        _ => "must follow the suit led while holding it (Queens and Jacks are trumps) (§8)".into(),
    }
}

/// The position (0..4) of the card that wins a complete trick of these cards, in play order,
/// with `trump` as trump (§8): the highest trump, else the highest card of the suit led.
/// `None` if a card is not of the 32-card pack.
#[must_use]
pub fn winning_position(trump: Suit, cards: [Card; 4]) -> Option<usize> {
    let mut ids = [0u8; 4];
    for (slot, c) in ids.iter_mut().zip(cards) {
        *slot = card_action(c)? as u8;
    }
    Some(trick_winner(trump as u8, &ids))
}
