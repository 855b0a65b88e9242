//! Scoring (§9–§11): Stöck, points credited to a team (at once to the match with
//! `end_check = immediate`), the last-trick and Match bonuses, the end of a deal and of the
//! game, the next deal, and the returns.

use std::sync::Arc;

use super::{DealResult, EndCheck, JassState, Mode, Phase};
use crate::{Card, CardSet, Rank, Scope, SeatValues, Suit};

impl JassState {
    /// The Stöck each seat can score in this deal (§9): per seat, the suits whose K and O it
    /// holds, of trump only or of any suit with `stoeck_suits = any_suit`.
    /// From the packed hands: lane bit 7 (the K) where lane bit 6 (the O) is held too.
    pub(super) fn open_stoeck(&mut self, mode: Mode) {
        const KINGS: u64 = 0x80 | 0x80 << 9 | 0x80 << 18 | 0x80 << 27;
        let eligible = if self.game.stoeck_any_suit {
            KINGS
        } else {
            mode.trump().map_or(0, |t| KINGS & 0x1FF << (9 * t as u64))
        };
        for seat in 0..4 {
            let p = self.packed[seat];
            let x = p & p << 1 & eligible;
            self.stoeck_open[seat] = (x >> 7 & 1 | x >> 15 & 2 | x >> 23 & 4 | x >> 31 & 8) as u8;
            debug_assert_eq!(self.stoeck_open[seat], {
                let ko = |s: Suit| {
                    CardSet::single(Card::new(Rank::King, s))
                        | CardSet::single(Card::new(Rank::Queen, s))
                };
                Suit::ALL
                    .iter()
                    .filter(|&&s| self.game.stoeck_any_suit || mode == Mode::Trump(s))
                    .filter(|&&s| self.hand_cards(seat).is_superset(ko(s)))
                    .fold(0u8, |o, &s| o | 1 << s as u8)
            });
        }
    }

    /// Stöck: the second of K+O of an open suit scores 20 (§9).
    #[inline(never)]
    pub(super) fn check_stoeck(&mut self, seat: usize, card: Card) {
        let suit_bit = 1u8 << card.suit() as u8;
        if self.stoeck_open[seat] & suit_bit == 0
            || !matches!(card.rank(), Rank::King | Rank::Queen)
        {
            return;
        }
        let other = Card::new(
            if card.rank() == Rank::King {
                Rank::Queen
            } else {
                Rank::King
            },
            card.suit(),
        );
        if !self.hand_cards(seat).contains(other) {
            self.stoeck_open[seat] &= !suit_bit;
            self.stoeck_scored[seat] += 1;
            self.credit(seat & 1, 20);
        }
    }

    /// Credits raw points to a team; with `end_check = immediate` the multiplied points go
    /// to the match score at once and the game may end.
    #[inline(always)]
    pub(super) fn credit(&mut self, team: usize, points: u32) {
        self.raw[team] += points;
        if self.game.end_check == EndCheck::Immediate && self.game.scope == Scope::Match {
            self.credit_match(team, points);
        }
    }

    /// [`JassState::credit`]'s step with `end_check = immediate`: the multiplied points to
    /// the match score at once.
    #[inline(never)]
    fn credit_match(&mut self, team: usize, points: u32) {
        if self.winner.is_none() {
            let m = self.mode.map_or(1, |m| self.game.multiplier(m));
            self.scores[team] += points * m;
            if self.scores[team] >= self.game.target_score {
                self.winner = Some(team as u8);
                self.phase = Phase::Over;
            }
        }
    }

    /// The ninth trick was won by `team`: the last-trick bonus, the Match bonus if it took
    /// all nine, then the end of the deal.
    #[inline(never)]
    pub(super) fn score_last_trick(&mut self, team: usize) {
        self.credit(team, self.game.last_trick_bonus);
        if self.tricks_won[team] == 9 {
            self.credit(team, self.game.match_bonus);
        }
        self.finish_deal();
    }

    /// The deal is scored (multiplied); the game ends, or the next deal begins (§11).
    fn finish_deal(&mut self) {
        let Some(mode) = self.mode else { return };
        let m = self.game.multiplier(mode);
        let scored = [self.raw[0] * m, self.raw[1] * m];
        let last = usize::from(self.winners[8] & 1);
        let mut last_trick = [0; 2];
        last_trick[last] = self.game.last_trick_bonus;
        let mut match_bonus = [0; 2];
        if self.tricks_won[last] == 9 {
            match_bonus[last] = self.game.match_bonus;
        }
        let stoeck =
            |team: usize| 20 * u32::from(self.stoeck_scored[team] + self.stoeck_scored[team + 2]);
        let result = DealResult {
            mode,
            cards: self.card_points,
            wys: self.wys_points,
            stoeck: [stoeck(0), stoeck(1)],
            last_trick,
            match_bonus,
            raw: self.raw,
            multiplier: m,
            scored,
        };
        debug_assert!((0..2).all(|t| {
            result.cards[t]
                + result.wys[t]
                + result.stoeck[t]
                + result.last_trick[t]
                + result.match_bonus[t]
                == result.raw[t]
        }));
        self.last_deal = Some(result);
        if self.game.scope == Scope::Deal {
            // The scores hold the deal's result, as after the first deal of a match (§11).
            self.scores[0] += scored[0];
            self.scores[1] += scored[1];
            self.phase = Phase::Over;
            return;
        }
        if self.phase == Phase::Over {
            return; // `end_check = immediate` ended the game during the deal.
        }
        if self.game.end_check == EndCheck::EndOfDeal {
            self.scores[0] += scored[0];
            self.scores[1] += scored[1];
            let target = self.game.target_score;
            if (self.scores[0] >= target || self.scores[1] >= target)
                && self.scores[0] != self.scores[1]
            {
                self.winner = Some(u8::from(self.scores[1] > self.scores[0]));
                self.phase = Phase::Over;
                return;
            }
        }
        self.next_deal();
    }

    /// A fresh deal with the next dealer; the finished deal's log joins the shared past.
    fn next_deal(&mut self) {
        let mut past = self.past.take().map_or_else(Vec::new, |p| {
            Arc::try_unwrap(p).unwrap_or_else(|a| (*a).clone())
        });
        past.extend_from_slice(&self.log[..self.log_len as usize]);
        let fresh = JassState::new(self.game);
        let dealer = (self.dealer + 1) % 4;
        *self = JassState {
            deal_no: self.deal_no + 1,
            dealer,
            forehand: (dealer + 1) % 4,
            scores: self.scores,
            last_deal: self.last_deal,
            past: Some(Arc::new(past)),
            ..fresh
        };
    }

    /// The returns (§11): 0 until the game is over; `scope = match`: ±1 by team;
    /// `scope = deal`: the team's deal score minus the other team's.
    pub(super) fn final_returns(&self) -> SeatValues {
        let mut r = SeatValues::zeros(4);
        if self.phase != Phase::Over {
            return r;
        }
        for seat in 0..4 {
            let team = seat & 1;
            r[seat] = match self.game.scope {
                Scope::Match => match self.winner {
                    Some(w) if usize::from(w) == team => 1.0,
                    Some(_) => -1.0,
                    None => 0.0,
                },
                Scope::Deal => {
                    let s = self.last_deal.map_or([0, 0], |d| d.scored);
                    f64::from(s[team]) - f64::from(s[1 - team])
                }
            };
        }
        r
    }

    /// Between two deals of a match: each seat's team score in the deal just finished minus
    /// the other team's.
    pub(super) fn finished_deal_outcome(&self) -> Option<SeatValues> {
        if self.phase != Phase::Deal || self.dealt != 0 {
            return None;
        }
        let d = self.last_deal?;
        let mut r = SeatValues::zeros(4);
        for seat in 0..4 {
            let team = seat & 1;
            r[seat] = f64::from(d.scored[team]) - f64::from(d.scored[1 - team]);
        }
        Some(r)
    }
}
