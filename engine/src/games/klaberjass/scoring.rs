//! Deal scoring (§11), the end of the game (§12) and the dealer rotation (§4), as pure
//! functions of the figures they need.

use std::sync::Arc;

use serde::Serialize;

use super::{DealerRotation, GameTieRule, KlaberjassState, MakerTieRule, Phase};
use crate::Scope;

/// How a deal ended (§11).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Both players passed twice: no score.
    Annulled,
    /// `Tm > To`.
    MakerWins,
    /// `Tm = To`.
    Tie,
    /// `Tm < To` (bête).
    Bete,
}

/// The result of a finished deal.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct DealResult {
    /// How it ended.
    pub outcome: Outcome,
    /// The maker (none for an annulled deal).
    pub maker: Option<usize>,
    /// Deal totals `T` per seat (sequences, Bella, cards, last trick).
    pub totals: [u32; 2],
    /// Points each seat added by the table of §11.
    pub added: [u32; 2],
    /// Held-over points (`maker_tie_rule = hang`) awarded after this deal: (seat, points).
    pub held_over_awarded: Option<(usize, u32)>,
}

/// The §11 table: from the maker and the deal totals `T`, the outcome, the points each seat
/// adds, and the points set aside by `maker_tie_rule = hang` (0 otherwise).
#[must_use]
pub fn score_deal(
    maker: usize,
    totals: [u32; 2],
    tie_rule: MakerTieRule,
) -> (Outcome, [u32; 2], u32) {
    let m = maker & 1;
    let (tm, to) = (totals[m], totals[1 - m]);
    let mut added = [0; 2];
    if tm > to {
        added[m] = tm;
        added[1 - m] = to;
        (Outcome::MakerWins, added, 0)
    } else if tm == to {
        match tie_rule {
            MakerTieRule::OpponentScoresOwn => {
                added[1 - m] = to;
                (Outcome::Tie, added, 0)
            }
            MakerTieRule::Hang => (Outcome::Tie, added, tm + to),
        }
    } else {
        added[1 - m] = tm + to;
        (Outcome::Bete, added, 0)
    }
}

/// The seat that receives held-over points after a deal with these additions: the one who
/// added more; `None` if the additions are equal (the points stay set aside).
#[must_use]
pub fn held_over_goes_to(added: [u32; 2]) -> Option<usize> {
    (added[0] != added[1]).then(|| usize::from(added[1] > added[0]))
}

/// How a game ends after a deal's scoring (§12).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// This seat has the higher score at or above the target.
    Winner(usize),
    /// Equal scores at or above the target under `game_tie_rule = draw`.
    Draw,
}

/// `None` while the game goes on: nobody has reached `target`, or an exact tie under
/// `game_tie_rule = play_another_deal`.
#[must_use]
pub fn game_end(scores: [u32; 2], target: u32, tie_rule: GameTieRule) -> Option<GameEnd> {
    if scores[0] < target && scores[1] < target {
        return None;
    }
    if scores[0] != scores[1] {
        return Some(GameEnd::Winner(usize::from(scores[1] > scores[0])));
    }
    match tie_rule {
        GameTieRule::PlayAnotherDeal => None,
        GameTieRule::Draw => Some(GameEnd::Draw),
    }
}

/// The dealer of the next deal: alternate, or (`winner_deals`) the seat that added more in a
/// completed deal (`added = None` for an annulled deal, which alternates).
#[must_use]
pub fn next_dealer(dealer: usize, added: Option<[u32; 2]>, rotation: DealerRotation) -> usize {
    match (rotation, added) {
        (DealerRotation::WinnerDeals, Some(a)) if a[0] != a[1] => usize::from(a[1] > a[0]),
        _ => 1 - (dealer & 1),
    }
}

impl KlaberjassState {
    /// Deal totals `T` so far per seat (§11): sequences, Bella, cards, last trick.
    #[must_use]
    pub fn deal_totals(&self) -> [u32; 2] {
        let mut t = [0; 2];
        for (s, slot) in t.iter_mut().enumerate() {
            *slot = self.seq_points[s] + 20 * u32::from(self.bella[s]) + self.card_points[s];
        }
        if self.trick_no == 9 {
            t[usize::from(self.winners[8])] += self.game.last_trick_bonus;
        }
        t
    }

    /// §11 scoring, then §12.
    pub(super) fn finish_deal(&mut self) {
        let totals = self.deal_totals();
        let m = usize::from(self.maker);
        let (outcome, added, set_aside) = score_deal(m, totals, self.game.maker_tie_rule);
        let awarded = if self.game.scope == Scope::Match && set_aside == 0 && self.held_over > 0 {
            held_over_goes_to(added).map(|s| (s, self.held_over))
        } else {
            None
        };
        self.held_over += set_aside;
        self.last_deal = Some(DealResult {
            outcome,
            maker: Some(m),
            totals,
            added,
            held_over_awarded: awarded,
        });
        self.scores[0] += added[0];
        self.scores[1] += added[1];
        if self.game.scope == Scope::Deal {
            // The view's scores then hold what the deal added, as after a match's first deal.
            self.phase = Phase::Over;
            return;
        }
        if let Some((s, pts)) = awarded {
            self.scores[s] += pts;
            self.held_over = 0;
        }
        match game_end(self.scores, self.game.target_score, self.game.game_tie_rule) {
            Some(GameEnd::Winner(w)) => {
                self.winner = Some(w as u8);
                self.phase = Phase::Over;
            }
            Some(GameEnd::Draw) => {
                self.drawn = true;
                self.phase = Phase::Over;
            }
            None => {
                let next = next_dealer(
                    usize::from(self.dealer),
                    Some(added),
                    self.game.dealer_rotation,
                );
                self.next_deal(next as u8);
            }
        }
    }

    pub(super) fn next_deal(&mut self, dealer: u8) {
        let mut past = self.past.take().map_or_else(Vec::new, |p| {
            Arc::try_unwrap(p).unwrap_or_else(|a| (*a).clone())
        });
        past.extend_from_slice(&self.log[..usize::from(self.log_len)]);
        let fresh = KlaberjassState::new(self.game);
        *self = KlaberjassState {
            phase: Phase::Deal,
            deal_no: self.deal_no + 1,
            dealer,
            scores: self.scores,
            held_over: self.held_over,
            last_deal: self.last_deal,
            past: Some(Arc::new(past)),
            ..fresh
        };
    }
}
