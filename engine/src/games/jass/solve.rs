//! The exact card-play solver's Jass rules (see [`crate::solve`]): trick play of §7 for the
//! search, and the deal's value by §10 (cards, last trick, Match, Wys, Stöck, multiplier).
//!
//! Internal cards: one lane per suit (lane = suit index), ordered by trick-taking strength in
//! the mode: trumps U 9 A K O 10 8 7 6, other suits (and Obenabe) A K O U 10 9 8 7 6,
//! Undenufe 6 7 8 9 10 U O K A. The search value is the raw point difference (team 0 minus
//! team 1) of the tricks to come: card points, the last-trick bonus and the Match bonus. The
//! context word says which teams may still take every trick (bit `t`: team `t` has lost no
//! trick so far), which the Match bonus depends on.
//!
//! The Wys of the first trick are settled apart (see [`crate::solve`]): the seats that have
//! not laid their first card yet choose, in turn, the declared set best for their side among
//! those they may still build (with `wys = auto`, the engine's set), and the best Wys at the
//! table, by §8.3 with earlier declarations winning ties, scores for its team.

use super::play::card_points;
use super::wys::{WysInfo, WysItem, best_set, for_each_candidate};
use super::{JassGame, JassState, Mode, Phase, UndertrumpRule, WYS_BASE, WysSet, card_action};
use crate::solve::{
    Config, Deck, Position, Rules, Solution, Solver, TrickEnd, not_solvable, sure_points,
};
use crate::{Action, Card, CardSet, Error, Rank, State, Suit};

/// Strength order index of each rank bit in the trump suit (U 9 A K O 10 8 7 6 → 8..0).
const TRUMP_ORDER: [u8; 16] = [0, 0, 0, 0, 0, 1, 2, 7, 3, 8, 4, 5, 6, 0, 0, 0];

/// Jass trick play in one mode, for the search.
#[derive(Clone, Debug)]
struct JassRules {
    deck: Deck,
    /// The trump lane (0..4), if the mode has trumps.
    trump: Option<u8>,
    undertrump: UndertrumpRule,
    last_bonus: i32,
    match_bonus: i32,
}

/// The internal card of `card` in `mode`.
fn internal(mode: Mode, card: Card) -> u8 {
    let r = card.rank_index();
    let order = match mode {
        Mode::Trump(t) if card.suit() == t => TRUMP_ORDER[r],
        Mode::Undenufe => (12 - r) as u8,
        _ => (r - 4) as u8,
    };
    (card.suit_index() * 16) as u8 + order
}

impl JassRules {
    fn new(game: &JassGame, mode: Mode) -> Self {
        let mut points = [0u8; 64];
        for suit in Suit::ALL {
            for rank in Rank::ALL.iter().filter(|&&r| r >= Rank::Six) {
                let card = Card::new(*rank, suit);
                points[usize::from(internal(mode, card))] = card_points(game, mode, card) as u8;
            }
        }
        let trump = mode.trump().map(|t| t as u8);
        JassRules {
            deck: Deck::new(points, trump.map_or(0, |t| 0x1FFu64 << (16 * u64::from(t)))),
            trump,
            undertrump: game.undertrump_rule,
            last_bonus: game.last_trick_bonus as i32,
            match_bonus: game.match_bonus as i32,
        }
    }
}

impl Rules for JassRules {
    const PLAYERS: usize = 4;

    fn deck(&self) -> &Deck {
        &self.deck
    }

    /// §7.1 and §7.2, as `play::legal_cards` states them.
    #[inline]
    fn legal(&self, pos: &Position) -> u64 {
        let hand = pos.hands[pos.mover(4)];
        if pos.trick_len == 0 {
            return hand;
        }
        let led = pos.trick[0] & 0x30;
        let follow = hand & 0xFFFF << led;
        let Some(t) = self.trump else {
            return if follow != 0 { follow } else { hand };
        };
        let lane = 0xFFFFu64 << (16 * t);
        let trumps = hand & lane;
        if u32::from(led) == 16 * u32::from(t) {
            // Trump led: a trump must be played unless the Under (order 8) is the only one.
            let under = 1u64 << (16 * t + 8);
            return if trumps & !under == 0 { hand } else { trumps };
        }
        let in_trick = pos.trick_bits() & lane;
        let allowed = if in_trick == 0 {
            trumps
        } else {
            let top = 63 - in_trick.leading_zeros();
            let higher = trumps & !((2u64 << top) - 1);
            match self.undertrump {
                UndertrumpRule::AllowedIfCannotOvertrump if higher == 0 => trumps,
                _ => higher,
            }
        };
        if follow != 0 {
            return follow | allowed;
        }
        let l = (hand & !lane) | allowed;
        if l == 0 { trumps } else { l }
    }

    #[inline]
    fn after_trick(&self, ctx: u32, winner: usize, points: i32, last: bool) -> TrickEnd {
        let team = winner & 1;
        let ctx = ctx & 1 << team;
        let mut gain = points;
        if last {
            gain += self.last_bonus;
            if ctx != 0 {
                gain += self.match_bonus;
            }
        }
        TrickEnd {
            gain: if team == 0 { gain } else { -gain },
            ctx,
            over: last,
        }
    }

    fn terminal(&self, _ctx: u32, _rem: i32) -> i32 {
        0
    }

    #[inline]
    /// Each team takes at least its sure points (see [`sure_points`]); the Match bonus only
    /// to a team that has lost no trick, while the other takes no trick surely.
    fn bounds(&self, pos: &Position) -> (i32, i32) {
        let r = pos.rem + self.last_bonus;
        let (sure, takes) = sure_points(&self.deck, pos, 4);
        let m = |team: u32| {
            if pos.ctx >> team & 1 != 0 && takes >> (1 - team) & 1 == 0 {
                self.match_bonus
            } else {
                0
            }
        };
        (2 * sure[0] - r - m(1), r - 2 * sure[1] + m(0))
    }

    /// `2 p0 - (points to come)`, and an even Match bonus keeps the parity.
    fn parity(&self, pos: &Position) -> Option<i32> {
        (self.match_bonus % 2 == 0).then_some((pos.rem + self.last_bonus) & 1)
    }
}

/// The declared sets `seat` may still end with, having declared `declared` so far (§8.2
/// engine form: items in ascending order), or the engine's set with `wys = auto`.
fn wys_choices(state: &JassState, mode: Mode, seat: usize, declared: WysSet) -> Vec<WysSet> {
    let game = &state.game;
    let hand = state.hand_cards(seat);
    if game.auto_wys {
        return vec![best_set(game, mode, hand)];
    }
    let mut out = Vec::new();
    let mut stack = vec![declared];
    while let Some(set) = stack.pop() {
        out.push(set);
        for_each_candidate(game, hand, &set, |item: WysItem| {
            let mut next = set;
            next.push(item);
            stack.push(next);
        });
    }
    out
}

/// The raw Wys difference (team 0 minus team 1) when the seats `order` (not committed yet,
/// in playing order) choose their sets in turn, each best for its side; `first`, if given,
/// is the first seat's only choice.
fn wys_game(state: &JassState, mode: Mode, order: &[usize], first: Option<WysSet>) -> i32 {
    let choices: Vec<Vec<WysSet>> = order
        .iter()
        .enumerate()
        .map(|(i, &seat)| match first {
            Some(set) if i == 0 => vec![set],
            _ => wys_choices(state, mode, seat, state.declared[seat]),
        })
        .collect();
    let mut sets = state.declared;
    wys_step(state, mode, order, &choices, 0, state.best_wys, &mut sets)
}

/// One seat's choice in [`wys_game`], then the others'.
fn wys_step(
    state: &JassState,
    mode: Mode,
    order: &[usize],
    choices: &[Vec<WysSet>],
    k: usize,
    best: Option<(u8, WysInfo)>,
    sets: &mut [WysSet; 4],
) -> i32 {
    let game = &state.game;
    let Some(&seat) = order.get(k) else {
        // The trick is complete: the best Wys's team scores all its members' Wys (§8.4).
        let Some((winner, _)) = best else { return 0 };
        let team = usize::from(winner & 1);
        let pts = (sets[team].points(game) + sets[team + 2].points(game)) as i32;
        return if team == 0 { pts } else { -pts };
    };
    let sign = if seat & 1 == 0 { 1 } else { -1 };
    let mut value = i32::MIN;
    for &set in &choices[k] {
        sets[seat] = set;
        // A Wys becomes the best if it beats the best so far (§8.3; ties: the earlier).
        let mine = set.best(game, mode);
        let next = match (mine, best) {
            (Some(m), Some((_, b))) if m.key() > b.key() => Some((seat as u8, m)),
            (Some(m), None) => Some((seat as u8, m)),
            _ => best,
        };
        let v = sign * wys_step(state, mode, order, choices, k + 1, next, sets);
        value = value.max(v);
    }
    sets[seat] = state.declared[seat];
    sign * value
}

impl crate::solve::sealed::Solve for JassState {
    fn solve_with(&self, solver: &mut Solver, actions: bool) -> Result<Solution, Error> {
        let (Phase::Play, Some(mode)) = (self.phase, self.mode) else {
            return Err(not_solvable(
                "jass",
                &format!("it is in the {:?} phase", self.phase),
                "the play phase (trick play, the first trick's Wys included)",
            ));
        };
        let game = &self.game;
        let rules = JassRules::new(game, mode);
        let t = usize::from(self.trick_no);
        let mut hands = [0u64; 4];
        let mut in_play = CardSet::EMPTY;
        for (seat, hand) in hands.iter_mut().enumerate() {
            for card in self.hand_cards(seat) {
                *hand |= 1 << internal(mode, card);
                in_play.insert(card);
            }
        }
        let leader = usize::from(self.leaders[t]);
        // Bit `team`: that team has lost no trick yet.
        let ctx = u32::from(self.tricks_won[1] == 0) | u32::from(self.tricks_won[0] == 0) << 1;
        let mut pos = Position::start(hands, leader, ctx, 0);
        for (k, &card) in self.trick().iter().enumerate() {
            pos = pos.with_card(&rules.deck, (leader + k) & 3, internal(mode, card));
            in_play.insert(card);
        }
        pos.rem = in_play
            .iter()
            .map(|c| card_points(game, mode, c) as i32)
            .sum();
        // Raw points so far, with the Stöck to come (certain: the holder plays both cards).
        let mut past = self.raw[0] as i32 - self.raw[1] as i32;
        for seat in 0..4 {
            let stoeck = 20 * self.stoeck_open[seat].count_ones() as i32;
            past += if seat & 1 == 0 { stoeck } else { -stoeck };
        }
        // The first trick's Wys, decided by the seats still to commit.
        let seat = usize::from(self.to_act);
        let open: Vec<usize> = if t == 0 {
            (0..4 - usize::from(self.trick_len))
                .map(|k| (seat + k) & 3)
                .collect()
        } else {
            Vec::new()
        };
        let wys = |first: Option<WysSet>| {
            if open.is_empty() {
                0
            } else {
                wys_game(self, mode, &open, first)
            }
        };
        let mult = game.multiplier(mode) as i32;
        let sign = if seat & 1 == 0 { 1 } else { -1 };
        let config: Config = [
            1,
            mode.index() as u32
                | (game.undertrump_rule as u32) << 4
                | u32::from(game.undenufe_six_is_eleven) << 6,
            game.last_trick_bonus,
            game.match_bonus,
        ];
        let mut search = solver.search(&rules, config);
        if !actions {
            let v = search.value(&pos, 0);
            return Ok(Solution {
                seat,
                value: sign * mult * (past + wys(None) + v),
                actions: Vec::new(),
            });
        }
        let (legal, values) = search.card_values(&pos, 0);
        debug_assert!(self.legal_actions().iter().all(|a| a >= WYS_BASE || {
            let c = super::action_card(a).expect("card");
            legal >> internal(mode, c) & 1 != 0 && card_action(c) == a
        }));
        let card_value = |c: Card| values[usize::from(internal(mode, c))];
        let list = action_values(self, mode, &open, card_value)
            .into_iter()
            .map(|(a, raw)| (a, sign * mult * (past + raw)))
            .collect();
        Ok(Solution::from_actions(seat, list))
    }
}

/// The raw value for team 0 of each legal action at `state` (Stöck and what is already
/// scored aside), from `card_value`, team 0's raw value of the card play after each legal
/// card: a card adds the Wys game (`open`: the seats still to commit, the mover first) with
/// the mover's declared set committed; a Wys item adds the best card's value to the Wys game
/// with the item declared.
fn action_values(
    state: &JassState,
    mode: Mode,
    open: &[usize],
    card_value: impl Fn(Card) -> i32,
) -> Vec<(Action, i32)> {
    let game = &state.game;
    let seat = usize::from(state.to_act);
    let sign = if seat & 1 == 0 { 1 } else { -1 };
    let legal = state.legal_actions();
    let cards = legal.iter().filter_map(super::action_card);
    let best_card = cards.map(|c| sign * card_value(c)).max().unwrap_or(0);
    let wys = |s: &JassState, first: Option<WysSet>| {
        if open.is_empty() {
            0
        } else {
            wys_game(s, mode, open, first)
        }
    };
    // A card commits the Wys declared so far (the engine's set with `wys = auto`).
    let committing = (!open.is_empty()).then(|| {
        if game.auto_wys {
            best_set(game, mode, state.hand_cards(seat))
        } else {
            state.declared[seat]
        }
    });
    let wys_after_card = wys(state, committing);
    legal
        .iter()
        .map(|a| match super::action_card(a) {
            Some(card) => (a, wys_after_card + card_value(card)),
            None => {
                let mut after = state.clone();
                after.apply_unchecked(a);
                (a, wys(&after, None) + sign * best_card)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::MODE_BASE;
    use super::*;
    use crate::{Game, Options, SeededRng};

    /// The raw Wys difference (team 0 minus team 1) of the first trick by trying every
    /// action of the engine: each seat's Wys items in every order the engine allows, then a
    /// card (which card does not change the Wys), each seat best for its side.
    fn wys_by_actions(state: &JassState) -> i32 {
        if state.trick_no > 0 {
            return state.wys_points[0] as i32 - state.wys_points[1] as i32;
        }
        let seat = usize::from(state.to_act);
        let legal = state.legal_actions();
        let card = legal.iter().find(|&a| a < WYS_BASE).expect("a card");
        let values = legal
            .iter()
            .filter(|&a| a >= WYS_BASE || a == card)
            .map(|a| {
                let mut child = state.clone();
                child.apply(a).expect("legal");
                wys_by_actions(&child)
            });
        if seat & 1 == 0 {
            values.max().expect("an action")
        } else {
            values.min().expect("an action")
        }
    }

    /// The raw value for team 0 of each action of the seat to move in the first trick by
    /// trying its actions (Wys items, then a card), with `card_value` standing for the card
    /// play after its card and [`wys_by_actions`] for the other seats' Wys.
    fn by_actions(state: &JassState, card_value: &impl Fn(Card) -> i32) -> Vec<(Action, i32)> {
        let seat = usize::from(state.to_act);
        state
            .legal_actions()
            .iter()
            .map(|a| {
                let mut child = state.clone();
                child.apply(a).expect("legal");
                let v = match super::super::action_card(a) {
                    Some(card) => card_value(card) + wys_by_actions(&child),
                    None => {
                        let values = by_actions(&child, card_value).into_iter().map(|(_, v)| v);
                        if seat & 1 == 0 {
                            values.max().expect("an action")
                        } else {
                            values.min().expect("an action")
                        }
                    }
                };
                (a, v)
            })
            .collect()
    }

    #[test]
    fn first_trick_actions_add_card_play_and_the_wys_game() {
        let mut rng = SeededRng::new(12);
        // Any card values will do: the Wys do not depend on the card play.
        let card_value = |c: Card| i32::from(c.to_u8()) * 7 % 23 - 11;
        let mut tried = 0;
        for wys in ["manual", "auto"] {
            let mut options = Options::new();
            options.insert("wys".into(), wys.into());
            let game = JassGame::from_options(&options).expect("options");
            for deal in 0..100 {
                let mut s = game.new_initial_state();
                s.resolve_chance(&mut rng);
                s.apply(MODE_BASE + (deal % 6)).expect("a mode");
                for _ in 0..deal % 5 {
                    let a = s.legal_actions().choose(&mut rng).expect("legal");
                    s.apply(a).expect("legal");
                }
                if s.trick_no > 0 {
                    continue;
                }
                let seat = usize::from(s.to_act);
                let open: Vec<usize> = (0..4 - usize::from(s.trick_len))
                    .map(|i| (seat + i) & 3)
                    .collect();
                let mode = s.mode.expect("a mode");
                assert_eq!(
                    action_values(&s, mode, &open, card_value),
                    by_actions(&s, &card_value),
                    "{s}"
                );
                tried += 1;
            }
        }
        assert!(tried > 150, "{tried}");
    }

    #[test]
    fn the_wys_game_equals_trying_every_declaration() {
        let mut rng = SeededRng::new(11);
        let (mut tried, mut scored) = (0, 0);
        for (k, wys) in ["manual", "auto", "manual"].iter().enumerate() {
            let mut options = Options::new();
            options.insert("wys".into(), (*wys).into());
            if k == 2 {
                options.insert("long_sequence_values".into(), "escalating".into());
                options.insert("four_banners_wys".into(), "true".into());
            }
            let game = JassGame::from_options(&options).expect("options");
            for deal in 0..150 {
                let mut s = game.new_initial_state();
                s.resolve_chance(&mut rng);
                s.apply(MODE_BASE + (deal % 6)).expect("a mode");
                // Somewhere in the first trick, some Wys perhaps declared already.
                for _ in 0..deal % 4 {
                    let a = s.legal_actions().choose(&mut rng).expect("legal");
                    s.apply(a).expect("legal");
                }
                if s.trick_no > 0 {
                    continue;
                }
                let mode = s.mode.expect("a mode");
                let seat = usize::from(s.to_act);
                let open: Vec<usize> = (0..4 - usize::from(s.trick_len))
                    .map(|i| (seat + i) & 3)
                    .collect();
                let v = wys_by_actions(&s);
                assert_eq!(wys_game(&s, mode, &open, None), v, "{s}");
                tried += 1;
                scored += usize::from(v != 0);
            }
        }
        assert!(tried > 300 && scored > 100, "{tried} {scored}");
    }

    #[test]
    fn internal_order_follows_the_rank_orders() {
        let t = Suit::ROSES;
        let order = |mode: Mode, ranks: &[Rank]| -> Vec<u8> {
            ranks
                .iter()
                .map(|&r| internal(mode, Card::new(r, t)))
                .collect()
        };
        let trump = [
            Rank::Jack,
            Rank::Nine,
            Rank::Ace,
            Rank::King,
            Rank::Queen,
            Rank::Ten,
            Rank::Eight,
            Rank::Seven,
            Rank::Six,
        ];
        let o = order(Mode::Trump(t), &trump);
        assert!(o.windows(2).all(|w| w[0] > w[1]), "{o:?}");
        let mut plain = [
            Rank::Ace,
            Rank::King,
            Rank::Queen,
            Rank::Jack,
            Rank::Ten,
            Rank::Nine,
            Rank::Eight,
            Rank::Seven,
            Rank::Six,
        ];
        let o = order(Mode::Obenabe, &plain);
        assert!(o.windows(2).all(|w| w[0] > w[1]), "{o:?}");
        plain.reverse();
        let o = order(Mode::Undenufe, &plain);
        assert!(o.windows(2).all(|w| w[0] > w[1]), "{o:?}");
    }
}
