//! Trick play (§7 of the rules): rank orders, card points, legal cards, the trick winner,
//! and the state's steps of laying a card and completing a trick.

use super::{JassGame, JassState, Mode, UndertrumpRule, WYS_BASE, action_card, pack_cards};
use crate::{Action, ActionSet, Card, CardSet, Rank, Suit};

/// Adds the card actions of `cards`.
#[inline]
pub(super) fn insert_cards(set: &mut ActionSet, cards: CardSet) {
    set.insert_bits(0, pack_cards(cards));
}

/// Trump order U, 9, A, K, O, 10, 8, 7, 6 as a strength per rank bit (higher wins).
pub(crate) const TRUMP_STRENGTH: [u8; 16] = {
    let mut t = [0u8; 16];
    t[Rank::Jack as usize] = 8;
    t[Rank::Nine as usize] = 7;
    t[Rank::Ace as usize] = 6;
    t[Rank::King as usize] = 5;
    t[Rank::Queen as usize] = 4;
    t[Rank::Ten as usize] = 3;
    t[Rank::Eight as usize] = 2;
    t[Rank::Seven as usize] = 1;
    t[Rank::Six as usize] = 0;
    t
};

/// For each trump rank, the lane bits of the trump ranks that beat it.
pub(crate) const HIGHER_TRUMPS: [u16; 16] = {
    let mut t = [0u16; 16];
    let mut r = 4;
    while r < 13 {
        let mut o = 4;
        while o < 13 {
            if TRUMP_STRENGTH[o] > TRUMP_STRENGTH[r] {
                t[r] |= 1 << o;
            }
            o += 1;
        }
        r += 1;
    }
    t
};

/// For each trump strength (a winning strength `32 + s`), the lane bits of the trumps that
/// beat it: the legal overtrumps follow from the trick's winning strength alone.
const HIGHER_THAN: [u64; 16] = {
    let mut t = [0u64; 16];
    let mut s = 0;
    while s < 9 {
        let mut r = 4;
        while r < 13 {
            if TRUMP_STRENGTH[r] > s as u8 {
                t[s] |= 1 << (r - 4);
            }
            r += 1;
        }
        s += 1;
    }
    t
};

/// Points of the trump suit's cards (§3.3): U 20, 9 14, A 11, 10 10, K 4, O 3.
const TRUMP_POINTS: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 14, 10, 20, 3, 4, 11, 0, 0, 0];
/// Points of a non-trump suit in a trump game: A 11, 10 10, K 4, O 3, U 2.
const PLAIN_POINTS: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 10, 2, 3, 4, 11, 0, 0, 0];
/// Obenabe and Undenufe: as plain, and the 8 is worth 8.
const SLALOM_POINTS: [u8; 16] = [0, 0, 0, 0, 0, 0, 8, 0, 10, 2, 3, 4, 11, 0, 0, 0];
/// Undenufe with `undenufe_six_is_eleven`: the 6 is worth 11 and the A nothing.
const SIX_ELEVEN_POINTS: [u8; 16] = [0, 0, 0, 0, 11, 0, 8, 0, 10, 2, 3, 4, 0, 0, 0, 0];

/// Card points of `card` in `mode` (§3.3).
#[must_use]
pub(crate) fn card_points(game: &JassGame, mode: Mode, card: Card) -> u32 {
    let r = card.rank() as usize;
    u32::from(match mode {
        Mode::Trump(t) if card.suit() == t => TRUMP_POINTS[r],
        Mode::Trump(_) => PLAIN_POINTS[r],
        Mode::Obenabe => SLALOM_POINTS[r],
        Mode::Undenufe if game.undenufe_six_is_eleven => SIX_ELEVEN_POINTS[r],
        Mode::Undenufe => SLALOM_POINTS[r],
    })
}

/// Card points of the four cards of a trick.
#[must_use]
#[inline]
pub(crate) fn trick_points(game: &JassGame, mode: Mode, trick: &[Card; 4]) -> u32 {
    let (plain, trump) = match mode {
        Mode::Trump(t) => (&PLAIN_POINTS, Some(t as usize)),
        Mode::Obenabe => (&SLALOM_POINTS, None),
        Mode::Undenufe if game.undenufe_six_is_eleven => (&SIX_ELEVEN_POINTS, None),
        Mode::Undenufe => (&SLALOM_POINTS, None),
    };
    trick
        .iter()
        .map(|&c| {
            let r = c.rank_index();
            u32::from(if Some(c.suit_index()) == trump {
                TRUMP_POINTS[r]
            } else {
                plain[r]
            })
        })
        .sum()
}

/// Index of `mode` in the per-mode tables: the trump suit's lane `0..4`, Obenabe 4,
/// Undenufe 5 (6 with `undenufe_six_is_eleven` for points).
#[inline(always)]
pub(super) fn mode_index(mode: Mode) -> usize {
    match mode {
        Mode::Trump(t) => t as usize & 3,
        Mode::Obenabe => 4,
        Mode::Undenufe => 5,
    }
}

/// Per mode index and card action id: the card's [`strength`] when it counts (a trump, or a
/// card of the suit led). Eight rows (the last two unused), so that an index masked with 7
/// needs no bounds check.
static ACTION_STRENGTH: [[u8; 36]; 8] = {
    let mut t = [[0u8; 36]; 8];
    let mut m = 0;
    while m < 6 {
        let mut a = 0;
        while a < 36 {
            let r = a % 9 + 4;
            t[m][a] = if m < 4 && a / 9 == m {
                32 + TRUMP_STRENGTH[r]
            } else if m == 5 {
                20 - r as u8
            } else {
                1 + r as u8
            };
            a += 1;
        }
        m += 1;
    }
    t
};

/// Per mode index (6: Undenufe with the 6 worth 11) and card action id: the card's points
/// (as [`card_points`]); the last row unused, as in [`ACTION_STRENGTH`].
static ACTION_POINTS: [[u8; 36]; 8] = {
    let mut t = [[0u8; 36]; 8];
    let mut m = 0;
    while m < 7 {
        let mut a = 0;
        while a < 36 {
            let r = a % 9 + 4;
            t[m][a] = if m < 4 && a / 9 == m {
                TRUMP_POINTS[r]
            } else if m < 4 {
                PLAIN_POINTS[r]
            } else if m == 6 {
                SIX_ELEVEN_POINTS[r]
            } else {
                SLALOM_POINTS[r]
            };
            a += 1;
        }
        m += 1;
    }
    t
};

/// Strength of `card` in a trick led with suit `led` (higher wins; 0 cannot win).
#[must_use]
pub(crate) fn strength(mode: Mode, led: Suit, card: Card) -> u8 {
    let r = card.rank_index();
    match mode {
        Mode::Trump(t) if card.suit_index() == t as usize => 32 + TRUMP_STRENGTH[r],
        _ if card.suit_index() != led as usize => 0,
        Mode::Undenufe => 20 - r as u8,
        _ => 1 + r as u8,
    }
}

/// The cards `hand` may play to a trick whose cards so far are `trick` (§7.1, §7.2).
/// `trick` holds the cards in play order; empty means a lead (any card).
#[must_use]
pub(crate) fn legal_cards(game: &JassGame, mode: Mode, hand: CardSet, trick: &[Card]) -> CardSet {
    let Some(&lead) = trick.first() else {
        return hand;
    };
    let led = lead.suit();
    let follow = hand.of_suit(led);
    let Mode::Trump(t) = mode else {
        return if follow.is_empty() { hand } else { follow };
    };
    let trumps = hand.of_suit(t);
    if led == t {
        // Trump led: a trump must be played unless the trump Under is the only one.
        let under = CardSet::single(Card::new(Rank::UNDER, t));
        return if (trumps - under).is_empty() {
            hand
        } else {
            trumps
        };
    }
    // Plain suit led: trumps are allowed instead of following, without undertrumping.
    let best_trump = trick
        .iter()
        .filter(|c| c.suit() == t)
        .map(|c| c.rank())
        .max_by_key(|r| TRUMP_STRENGTH[*r as usize]);
    let allowed_trumps = match best_trump {
        None => trumps,
        Some(r) => {
            let higher =
                CardSet::from_bits(u64::from(HIGHER_TRUMPS[r as usize]) << (t as u64 * 16))
                    & trumps;
            match game.undertrump_rule {
                UndertrumpRule::ForbiddenUnlessOnlyTrumps => higher,
                UndertrumpRule::AllowedIfCannotOvertrump if higher.is_empty() => trumps,
                UndertrumpRule::AllowedIfCannotOvertrump => higher,
            }
        }
    };
    if !follow.is_empty() {
        return follow | allowed_trumps;
    }
    let legal = (hand - trumps) | allowed_trumps;
    if legal.is_empty() { trumps } else { legal }
}

/// Index (0..4, play order) of the card that wins `trick` (non-empty).
#[must_use]
pub(crate) fn trick_winner(mode: Mode, trick: &[Card]) -> usize {
    let led = trick[0].suit();
    let mut best = 0;
    for (i, &c) in trick.iter().enumerate().skip(1) {
        if strength(mode, led, c) > strength(mode, led, trick[best]) {
            best = i;
        }
    }
    best
}

impl JassState {
    /// The legal actions of the seat to play: its Wys items while it may still declare
    /// (`wys = manual`, first trick, before laying its card), and its legal cards.
    #[inline]
    pub(super) fn play_actions(&self, set: &mut ActionSet) {
        let seat = usize::from(self.to_act);
        if self.trick_no == 0 && !self.committed[seat] && !self.game.auto_wys {
            self.wys_candidates(seat, set);
        }
        set.insert_bits(0, self.legal_cards());
    }

    /// A card laid or a Wys item declared.
    #[inline(always)]
    pub(super) fn apply_play_action(&mut self, action: Action) {
        if let Some(card) = action_card(action) {
            self.play_card(action, card);
        } else {
            self.declare_wys(action);
        }
    }

    /// Lays a card. The common path (not the end of a trick, no Wys commit, no Stöck) is kept
    /// small and branch-free where random play is unpredictable (strength and points come
    /// from per-mode tables by action id); the rare paths are out of line.
    #[inline(always)]
    fn play_card(&mut self, action: Action, card: Card) {
        let seat = usize::from(self.to_act) & 3;
        if self.trick_no == 0 && !self.committed[seat] {
            if self.declared[seat].is_empty() && !self.game.auto_wys {
                self.commit_no_wys(seat);
            } else {
                self.commit_wys(seat);
            }
        }
        let a = action as usize % 36;
        let bit = 1u64 << a;
        self.packed[seat] &= !bit;
        let pos = self.trick_len;
        self.tricks[usize::from(self.trick_no)][usize::from(pos)] = card;
        let points = u32::from(ACTION_POINTS[usize::from(self.points_ix) & 7][a]);
        let card_str = ACTION_STRENGTH[usize::from(self.mode_ix) & 7][a];
        if pos == 0 {
            self.led_lane = 0x1FF << (9 * (a / 9));
            self.win_pos = 0;
            self.win_str = card_str;
            self.trick_points = points;
        } else {
            // Branch-free: who is winning a trick is unpredictable in random play. A card
            // counts if it is a trump or of the suit led.
            let counting = self.trump_lane | self.led_lane;
            let card_str = if counting & bit != 0 { card_str } else { 0 };
            let better = card_str > self.win_str;
            self.win_pos = if better { pos } else { self.win_pos };
            self.win_str = self.win_str.max(card_str);
            self.trick_points += points;
        }
        debug_assert_eq!(self.win_str, {
            let t = &self.tricks[usize::from(self.trick_no)][..=usize::from(pos)];
            let mode = self.mode.unwrap_or(Mode::Obenabe);
            t.iter()
                .map(|&c| strength(mode, t[0].suit(), c))
                .max()
                .unwrap_or(0)
        });
        if self.stoeck_open[seat] != 0 {
            self.check_stoeck(seat, card);
        }
        self.trick_len = pos + 1;
        if pos < 3 {
            self.to_act = (self.to_act + 1) & 3;
        } else {
            self.complete_trick();
        }
    }

    /// The fourth card is down: the trick goes to its winner (Wys are settled after the
    /// first), and the deal ends after the ninth.
    #[inline(never)]
    fn complete_trick(&mut self) {
        let t = usize::from(self.trick_no);
        let mode = self.mode.unwrap_or(Mode::Obenabe);
        debug_assert_eq!(
            usize::from(self.win_pos),
            trick_winner(mode, &self.tricks[t])
        );
        let winner = (usize::from(self.leaders[t]) + usize::from(self.win_pos)) & 3;
        self.winners[t] = winner as u8;
        let team = winner & 1;
        if t == 0 {
            self.resolve_wys();
        }
        let pts = self.trick_points;
        debug_assert_eq!(pts, trick_points(&self.game, mode, &self.tricks[t]));
        self.card_points[team] += pts;
        self.tricks_won[team] += 1;
        self.credit(team, pts);
        self.trick_no += 1;
        self.trick_len = 0;
        self.to_act = winner as u8;
        if t + 1 < 9 {
            self.leaders[t + 1] = winner as u8;
            return;
        }
        self.score_last_trick(team);
    }

    /// Legal card actions of the seat to act (§7.1, §7.2) as an action-id word, from the
    /// packed hand and the incrementally kept trick state. Lanes are 9 bits wide (ranks 6..A).
    /// Debug builds check it against the reference function [`legal_cards`].
    #[inline(always)]
    pub(super) fn legal_cards(&self) -> u64 {
        let hand = self.packed[usize::from(self.to_act) & 3];
        let legal = if self.trick_len == 0 {
            hand
        } else {
            let follow = hand & self.led_lane;
            if self.trump_lane == 0 {
                if follow == 0 { hand } else { follow }
            } else {
                let t = u64::from(self.mode_ix);
                let shift = 9 * t;
                let trumps = hand & self.trump_lane;
                if self.led_lane == self.trump_lane {
                    // The trump Under (rank bit 9, lane bit 5) is never forced.
                    let under = 1u64 << (shift + 5);
                    if trumps & !under == 0 { hand } else { trumps }
                } else {
                    // A trump in the trick is always the winning card so far.
                    let allowed = if self.win_str >= 32 {
                        let s = usize::from(self.win_str - 32) & 15;
                        let higher = HIGHER_THAN[s] << shift & trumps;
                        match self.game.undertrump_rule {
                            UndertrumpRule::AllowedIfCannotOvertrump if higher == 0 => trumps,
                            _ => higher,
                        }
                    } else {
                        trumps
                    };
                    if follow != 0 {
                        follow | allowed
                    } else {
                        let l = (hand & !trumps) | allowed;
                        if l == 0 { trumps } else { l }
                    }
                }
            }
        };
        debug_assert_eq!(
            legal,
            pack_cards(legal_cards(
                &self.game,
                self.mode.unwrap_or(Mode::Obenabe),
                self.hand_cards(usize::from(self.to_act)),
                self.trick()
            ))
        );
        debug_assert_eq!(hand, pack_cards(self.hand_cards(usize::from(self.to_act))));
        legal
    }

    /// Why `action` is not legal in trick play (assumes it is not).
    pub(super) fn play_reason(&self, action: Action) -> String {
        let seat = usize::from(self.to_act);
        if let Some(card) = action_card(action) {
            if !self.hand_cards(seat).contains(card) {
                return format!("seat {seat} does not hold {}", card.swiss());
            }
            self.card_reason(card)
        } else if action >= WYS_BASE {
            self.wys_reason(seat)
        } else {
            "the mode has already been chosen; a card must be played".to_owned()
        }
    }

    fn card_reason(&self, card: Card) -> String {
        let Some(mode) = self.mode else {
            return String::new();
        };
        let trick = self.trick();
        let hand = self.hand_cards(usize::from(self.to_act));
        let led = trick[0].suit();
        match mode.trump() {
            Some(t) if led == t => "trump was led and the hand holds a trump other than the Under: a trump must be played".to_owned(),
            Some(t) if card.suit() == t => {
                if trick.iter().any(|c| c.suit() == t) {
                    "no undertrumping: this trump is lower than the trump already in the trick".to_owned()
                } else {
                    "this trump may not be played".to_owned()
                }
            }
            _ if !hand.of_suit(led).is_empty() => {
                format!("must follow suit ({}) while holding it", led.swiss_name())
            }
            _ => "this card may not be played now".to_owned(),
        }
    }
}
