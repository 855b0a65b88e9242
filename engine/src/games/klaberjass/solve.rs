//! The exact card-play solver's Klaberjass rules (see [`crate::solve`]): trick play of §10 for
//! the search, and the deal's value by the maker rule of §11.
//!
//! Internal cards: one lane per suit (lane = suit index), ordered by trick-taking strength:
//! trumps J 9 A 10 K Q 8 7, other suits A 10 K Q J 9 8 7. The search value is the card-point
//! difference (seat 0 minus seat 1) of the tricks to come, the last-trick bonus included; the
//! context word is unused. The deal's value is then the §11 table applied to the final totals
//! (exact: the result is non-decreasing in a player's total, see the module docs of
//! [`crate::solve`]).

use super::play::card_points;
use super::scoring::score_deal;
use super::{KlaberjassState, Phase, card_action};
use crate::solve::{
    Config, Deck, Position, Rules, Solution, Solver, TrickEnd, not_solvable, sure_points,
};
use crate::{Card, Error, Rank, State, Suit};

/// Strength order index of each rank bit in the trump suit (J 9 A 10 K Q 8 7 → 7..0).
const TRUMP_ORDER: [u8; 16] = [0, 0, 0, 0, 0, 0, 1, 6, 4, 7, 2, 3, 5, 0, 0, 0];
/// Strength order index of each rank bit in another suit (A 10 K Q J 9 8 7 → 7..0).
const PLAIN_ORDER: [u8; 16] = [0, 0, 0, 0, 0, 0, 1, 2, 6, 3, 4, 5, 7, 0, 0, 0];

/// Klaberjass trick play for the search.
#[derive(Clone, Debug)]
struct KlaberjassRules {
    deck: Deck,
    /// The trump lane as a mask.
    trumps: u64,
    last_bonus: i32,
}

/// The internal card of `card` with `trump`.
fn internal(trump: Suit, card: Card) -> u8 {
    let r = card.rank_index();
    let order = if card.suit() == trump {
        TRUMP_ORDER[r]
    } else {
        PLAIN_ORDER[r]
    };
    (card.suit_index() * 16) as u8 + order
}

impl KlaberjassRules {
    fn new(trump: Suit, last_bonus: u32) -> Self {
        let mut points = [0u8; 64];
        for suit in Suit::ALL {
            for rank in Rank::ALL.iter().filter(|&&r| r >= Rank::Seven) {
                let card = Card::new(*rank, suit);
                points[usize::from(internal(trump, card))] = card_points(trump, card) as u8;
            }
        }
        let trumps = 0xFFu64 << (16 * trump as u64);
        KlaberjassRules {
            deck: Deck::new(points, trumps),
            trumps,
            last_bonus: last_bonus as i32,
        }
    }
}

impl Rules for KlaberjassRules {
    const PLAYERS: usize = 2;

    fn deck(&self) -> &Deck {
        &self.deck
    }

    /// §10: the reply to a trump must beat it if it can, else be a trump, else anything; to
    /// another suit it must follow, else trump, else anything.
    #[inline]
    fn legal(&self, pos: &Position) -> u64 {
        let hand = pos.hands[pos.mover(2)];
        if pos.trick_len == 0 {
            return hand;
        }
        let lead = pos.trick[0];
        let trumps = hand & self.trumps;
        let first = if self.trumps >> lead & 1 != 0 {
            trumps & !((2u64 << lead) - 1)
        } else {
            hand & 0xFFFF << (lead & 0x30)
        };
        if first != 0 {
            first
        } else if trumps != 0 {
            trumps
        } else {
            hand
        }
    }

    #[inline]
    fn after_trick(&self, ctx: u32, winner: usize, points: i32, last: bool) -> TrickEnd {
        let gain = points + if last { self.last_bonus } else { 0 };
        TrickEnd {
            gain: if winner == 0 { gain } else { -gain },
            ctx,
            over: last,
        }
    }

    fn terminal(&self, _ctx: u32, _rem: i32) -> i32 {
        0
    }

    #[inline]
    fn bounds(&self, pos: &Position) -> (i32, i32) {
        let r = pos.rem + self.last_bonus;
        let (sure, _) = sure_points(&self.deck, pos, 2);
        (2 * sure[0] - r, r - 2 * sure[1])
    }

    /// `2 p0 - (points to come)`.
    fn parity(&self, pos: &Position) -> Option<i32> {
        Some((pos.rem + self.last_bonus) & 1)
    }
}

impl crate::solve::sealed::Solve for KlaberjassState {
    fn solve_with(&self, solver: &mut Solver, actions: bool) -> Result<Solution, Error> {
        let (Phase::Play, Some(trump)) = (self.phase, self.trump) else {
            return Err(not_solvable(
                "klaberjass",
                &format!("it is in the {:?} phase", self.phase),
                "the play phase (trick play)",
            ));
        };
        let rules = KlaberjassRules::new(trump, self.game.last_trick_bonus);
        let mut hands = [0u64; 4];
        let mut in_play = crate::CardSet::EMPTY;
        for (seat, hand) in hands.iter_mut().enumerate().take(2) {
            for card in self.hand(seat) {
                *hand |= 1 << internal(trump, card);
                in_play.insert(card);
            }
        }
        let leader = usize::from(self.leaders[usize::from(self.trick_no)]);
        let mut pos = Position::start(hands, leader, 0, 0);
        for (k, card) in self.trick().enumerate() {
            pos = pos.with_card(&rules.deck, (leader + k) & 1, internal(trump, card));
            in_play.insert(card);
        }
        pos.rem = super::play::set_points(trump, in_play) as i32;
        // The totals so far with Bella to come (certain: its holder plays both cards), and
        // the fixed sum of the final totals.
        let mut totals = self.deal_totals();
        for (s, t) in totals.iter_mut().enumerate() {
            *t += 20 * u32::from(self.bella_open[s]);
        }
        let sum = (totals[0] + totals[1]) as i32 + pos.rem + rules.last_bonus;
        let past = totals[0] as i32 - totals[1] as i32;
        let maker = usize::from(self.maker);
        let tie_rule = self.game.maker_tie_rule;
        // Seat 0's return from the final card-point difference to come.
        let result0 = |future: i32| {
            let d = past + future;
            let t0 = ((sum + d) / 2) as u32;
            let t1 = ((sum - d) / 2) as u32;
            let (_, added, _) = score_deal(maker, [t0, t1], tie_rule);
            added[0] as i32 - added[1] as i32
        };
        let config: Config = [2, trump as u32, self.game.last_trick_bonus, 0];
        let seat = usize::from(self.to_act);
        let sign = if seat == 0 { 1 } else { -1 };
        let mut search = solver.search(&rules, config);
        if !actions {
            let v = search.value(&pos, 0);
            return Ok(Solution {
                seat,
                value: sign * result0(v),
                actions: Vec::new(),
            });
        }
        let (_, values) = search.card_values(&pos, 0);
        let list = self
            .hand(seat)
            .iter()
            .filter(|&c| self.legal_actions().contains(card_action(c)))
            .map(|c| {
                let v = values[usize::from(internal(trump, c))];
                (card_action(c), sign * result0(v))
            })
            .collect();
        Ok(Solution::from_actions(seat, list))
    }
}
