//! Wys (melds, §8): the declarable items of a hand, their values and comparison, the
//! announcement protocol, and the state's steps: declaring, committing at the first card, and
//! the Wys-winning team after the first trick.
//!
//! **Engine form \[decision, §8.2\].** A Wys *item* is a four-of-a-kind or a sequence. A seat
//! declares items one action at a time, in ascending item id, before laying its first card:
//! quartets (ids below every sequence) first, then sequences, where the sequences offered are
//! the **maximal** runs of ≥ 3 cards among the hand's cards not used by a declared quartet.
//! Every declarable set has exactly one action path, no card is in two Wys and a run is never
//! split. Laying the first card commits the set and makes the announcement public.

use serde::Serialize;

use super::{JassGame, JassState, LongSequenceValues, Mode, WYS_BASE};
use crate::{Action, ActionSet, Card, CardSet, Rank, Suit};

/// Number of Wys item ids: 9 quartets (by rank 6..A) + 4 suits × 28 runs.
pub(crate) const NUM_ITEMS: u8 = 9 + 4 * 28;
/// Runs per suit: lengths 3..=9 with every low card; `RUN_OFFSET[len]` is the first index.
const RUN_OFFSET: [u8; 10] = [0, 0, 0, 0, 7, 13, 18, 22, 25, 27];

/// One Wys: a four-of-a-kind or a maximal sequence. Ids `0..NUM_ITEMS`, ordered quartets first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct WysItem(u8);

/// What a Wys item is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WysKind {
    /// All four cards of a rank.
    FourOfAKind {
        /// The rank (Swiss notation in JSON: `"U"`).
        #[serde(serialize_with = "super::swiss_rank")]
        rank: Rank,
    },
    /// `len` consecutive cards of `suit` in natural order, from `low` upwards.
    Sequence {
        /// The suit (Swiss name in JSON: `"roses"`).
        #[serde(serialize_with = "super::swiss_suit")]
        suit: Suit,
        /// Lowest card in natural order (6 low, A high; Swiss notation in JSON).
        #[serde(serialize_with = "super::swiss_rank")]
        low: Rank,
        /// Number of cards, 3..=9.
        len: u8,
    },
}

impl WysItem {
    pub(crate) fn from_id(id: u8) -> Option<WysItem> {
        (id < NUM_ITEMS).then_some(WysItem(id))
    }

    pub(crate) fn id(self) -> u8 {
        self.0
    }

    fn quartet(rank: Rank) -> WysItem {
        WysItem(rank as u8 - 4)
    }

    fn run(suit: Suit, low: u8, len: u8) -> WysItem {
        // `low` is a rank bit (4..=12).
        WysItem(9 + suit as u8 * 28 + RUN_OFFSET[len as usize] + (low - 4))
    }

    /// What this item is.
    #[must_use]
    pub fn kind(self) -> WysKind {
        if self.0 < 9 {
            return WysKind::FourOfAKind {
                rank: rank_at(self.0 + 4),
            };
        }
        let i = self.0 - 9;
        let suit = Suit::from_index(i / 28).unwrap_or(Suit::Clubs);
        let j = i % 28;
        let len = (3..=9)
            .rev()
            .find(|&l| RUN_OFFSET[l as usize] <= j)
            .unwrap_or(3);
        WysKind::Sequence {
            suit,
            low: rank_at(j - RUN_OFFSET[len as usize] + 4),
            len,
        }
    }

    /// The cards of this item.
    #[must_use]
    pub fn cards(self) -> CardSet {
        match self.kind() {
            WysKind::FourOfAKind { rank } => CardSet::rank_mask(rank),
            WysKind::Sequence { suit, low, len } => {
                CardSet::from_bits(((1u64 << len) - 1) << (low as u64 + suit as u64 * 16))
            }
        }
    }

    /// Points (§8.1).
    #[must_use]
    pub fn points(self, game: &JassGame) -> u32 {
        match self.kind() {
            WysKind::FourOfAKind { rank: Rank::Jack } => 200,
            WysKind::FourOfAKind { rank: Rank::Nine } => 150,
            WysKind::FourOfAKind { .. } => 100,
            WysKind::Sequence { len: 3, .. } => 20,
            WysKind::Sequence { len: 4, .. } => 50,
            WysKind::Sequence { len, .. } => match game.long_sequence_values {
                LongSequenceValues::Flat100 => 100,
                LongSequenceValues::Escalating => 100 + 50 * (u32::from(len) - 5),
            },
        }
    }

    /// The comparison facts of §8.3 for this item in `mode`.
    #[must_use]
    pub(crate) fn info(self, game: &JassGame, mode: Mode) -> WysInfo {
        let (cards, top, trump) = match self.kind() {
            WysKind::FourOfAKind { rank } => (4, rank, false),
            WysKind::Sequence { suit, low, len } => {
                // In Undenufe the "top" of a sequence is its lowest natural card.
                let top = if mode == Mode::Undenufe {
                    low
                } else {
                    rank_at(low as u8 + len - 1)
                };
                (len, top, mode == Mode::Trump(suit))
            }
        };
        let strength = if mode == Mode::Undenufe {
            16 - top as u8
        } else {
            top as u8
        };
        WysInfo {
            points: self.points(game) as u16,
            cards,
            top,
            strength,
            trump,
        }
    }

    /// Short text, e.g. `four U`, `run 7A-9A`.
    #[must_use]
    pub fn name(self) -> String {
        match self.kind() {
            WysKind::FourOfAKind { rank } => format!("four {}", rank.swiss_short()),
            WysKind::Sequence { suit, low, len } => format!(
                "run {}-{}",
                Card::new(low, suit).swiss(),
                Card::new(rank_at(low as u8 + len - 1), suit).swiss()
            ),
        }
    }

    /// Parses [`WysItem::name`] output.
    pub(crate) fn parse(text: &str) -> Option<WysItem> {
        let t = text.trim();
        if let Some(r) = t.strip_prefix("four ") {
            let rank = Rank::parse(r).ok()?;
            return (rank >= Rank::Six).then(|| WysItem::quartet(rank));
        }
        let (a, b) = t.strip_prefix("run ")?.split_once('-')?;
        let (lo, hi) = (Card::parse(a).ok()?, Card::parse(b).ok()?);
        if lo.suit() != hi.suit() || lo.rank() < Rank::Six || hi.rank() < lo.rank() {
            return None;
        }
        let len = hi.rank() as u8 - lo.rank() as u8 + 1;
        (3..=9)
            .contains(&len)
            .then(|| WysItem::run(lo.suit(), lo.rank() as u8, len))
    }
}

fn rank_at(bit: u8) -> Rank {
    Rank::from_index(bit).unwrap_or(Rank::Ace)
}

/// The facts compared in §8.3, in order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct WysInfo {
    pub points: u16,
    pub cards: u8,
    /// The rank that is compared (top card, or the lowest in Undenufe; the quartet's rank).
    pub top: Rank,
    /// `top` as a comparable strength (reversed in Undenufe).
    pub strength: u8,
    /// A sequence in the trump suit.
    pub trump: bool,
}

impl WysInfo {
    /// Comparison key of §8.3 rules 1–4 (higher wins; rule 5, declaration order, is the
    /// caller's).
    pub fn key(&self) -> u32 {
        u32::from(self.points) << 16
            | u32::from(self.cards) << 12
            | u32::from(self.strength) << 4
            | u32::from(self.trump)
    }
}

/// A seat's declared Wys: up to four items, in the order declared (ascending ids).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct WysSet {
    items: [u8; 4],
    len: u8,
}

impl WysSet {
    pub(crate) fn push(&mut self, item: WysItem) {
        if (self.len as usize) < self.items.len() {
            self.items[self.len as usize] = item.0;
            self.len += 1;
        }
    }

    /// The items.
    pub fn iter(&self) -> impl Iterator<Item = WysItem> + '_ {
        self.items[..self.len as usize].iter().map(|&i| WysItem(i))
    }

    /// True if nothing is declared.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn last(&self) -> Option<WysItem> {
        self.len
            .checked_sub(1)
            .map(|i| WysItem(self.items[i as usize]))
    }

    /// All cards of the items.
    #[must_use]
    pub fn cards(&self) -> CardSet {
        self.iter().fold(CardSet::EMPTY, |acc, i| acc | i.cards())
    }

    /// Sum of the items' points.
    #[must_use]
    pub fn points(&self, game: &JassGame) -> u32 {
        self.iter().map(|i| i.points(game)).sum()
    }

    /// The best item's comparison facts.
    pub(crate) fn best(&self, game: &JassGame, mode: Mode) -> Option<WysInfo> {
        self.iter()
            .map(|i| i.info(game, mode))
            .max_by_key(WysInfo::key)
    }
}

/// Ranks whose four-of-a-kind scores (§8.1, option `four_banners_wys`), as rank bits.
fn scoring_quartet_ranks(game: &JassGame) -> u16 {
    let mut r = 1 << Rank::Ace as u16 | 1 << Rank::King as u16 | 1 << Rank::Queen as u16;
    r |= 1 << Rank::Jack as u16 | 1 << Rank::Nine as u16;
    if game.four_banners_wys {
        r |= 1 << Rank::Ten as u16;
    }
    r
}

/// Complete scoring four-of-a-kinds in `hand`, as rank bits.
fn quartets(game: &JassGame, hand: CardSet) -> u16 {
    let b = hand.bits();
    let all = (b & b >> 16 & b >> 32 & b >> 48) as u16;
    all & scoring_quartet_ranks(game)
}

/// Calls `f` for every maximal run of ≥ 3 cards in `cards`.
fn for_each_run(cards: CardSet, mut f: impl FnMut(WysItem)) {
    for suit in Suit::ALL {
        let x = cards.suit_bits(suit);
        // Bit i of `three`: cards i, i+1 and i+2 are held. A maximal run of >= 3 cards starts
        // at each bit of `three` whose lower neighbour is not in `three`, so only runs are
        // visited (not every stretch of the lane).
        let three = x & x >> 1 & x >> 2;
        let mut starts = three & !(three << 1);
        while starts != 0 {
            let low = starts.trailing_zeros() as u8;
            let len = (x >> low).trailing_ones() as u8;
            f(WysItem::run(suit, low, len));
            starts &= starts - 1;
        }
    }
}

/// Items a seat holding `hand` may declare next, having declared `declared` (§8.2, engine
/// form above). Calls `f` in ascending id order.
pub(crate) fn for_each_candidate(
    game: &JassGame,
    hand: CardSet,
    declared: &WysSet,
    mut f: impl FnMut(WysItem),
) {
    let after = declared.last().map_or(0, |i| i.0 + 1);
    let mut q = quartets(game, hand);
    while q != 0 {
        let r = q.trailing_zeros() as u8;
        q &= q - 1;
        let item = WysItem::quartet(rank_at(r));
        if item.0 >= after {
            f(item);
        }
    }
    let used = declared
        .iter()
        .filter(|i| i.0 < 9)
        .fold(CardSet::EMPTY, |a, i| a | i.cards());
    for_each_run(hand - used, |item| {
        if item.0 >= after {
            f(item);
        }
    });
}

/// The declaration of `wys = auto`: the choice of quartets that gives the most points (then
/// the best single Wys), with every resulting Wys declared.
pub(crate) fn best_set(game: &JassGame, mode: Mode, hand: CardSet) -> WysSet {
    let q = quartets(game, hand);
    let b = hand.bits();
    if q == 0 && b & b >> 1 & b >> 2 == 0 {
        return WysSet::default(); // no quartet and no three cards in a row
    }
    let mut best = WysSet::default();
    let mut best_score = (0u32, 0u32);
    // Every subset of the (at most two) available quartets.
    let mut sub = q;
    loop {
        let mut set = WysSet::default();
        let mut used = CardSet::EMPTY;
        let mut s = sub;
        while s != 0 {
            let r = s.trailing_zeros() as u8;
            s &= s - 1;
            let item = WysItem::quartet(rank_at(r));
            set.push(item);
            used |= item.cards();
        }
        for_each_run(hand - used, |item| set.push(item));
        let score = (
            set.points(game),
            set.best(game, mode).map_or(0, |i| i.key()),
        );
        if score > best_score {
            best_score = score;
            best = set;
        }
        if sub == 0 {
            break;
        }
        sub = (sub - 1) & q;
    }
    best
}

/// What the table hears when a seat commits its Wys (§8.5).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Announcement {
    /// The seat has committed (laid its first card).
    pub made: bool,
    /// What it said.
    pub said: Said,
    /// Its best Wys's points, if that stage was reached.
    pub points: Option<u16>,
    /// Its best Wys's card count, if that stage was reached.
    pub cards: Option<u8>,
    /// Its best Wys's compared rank, if that stage was reached (Swiss notation in JSON).
    #[serde(serialize_with = "swiss_top")]
    pub top: Option<Rank>,
    /// Whether its best Wys is a trump sequence, if that stage was reached.
    pub trump: Option<bool>,
    /// Its Wys became the best so far.
    pub best: bool,
}

fn swiss_top<S: serde::Serializer>(top: &Option<Rank>, s: S) -> Result<S::Ok, S::Error> {
    match top {
        Some(r) => s.serialize_str(r.swiss_short()),
        None => s.serialize_none(),
    }
}

/// The first word of an announcement.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Said {
    /// Not yet announced.
    #[default]
    Nothing,
    /// No Wys announced at the table yet, and none from this seat.
    NoWys,
    /// "Good": none, or not better than the best so far at the first differing stage.
    Good,
    /// It announced its points (and possibly further stages).
    Points,
}

/// The announcement of a seat whose best Wys is `mine`, after `best_so_far` (§8.5).
#[inline]
pub(crate) fn announce(best_so_far: Option<WysInfo>, mine: Option<WysInfo>) -> Announcement {
    let mut a = Announcement {
        made: true,
        ..Announcement::default()
    };
    let Some(m) = mine else {
        a.said = if best_so_far.is_some() {
            Said::Good
        } else {
            Said::NoWys
        };
        return a;
    };
    let Some(b) = best_so_far else {
        a.said = Said::Points;
        a.points = Some(m.points);
        a.best = true;
        return a;
    };
    if m.points < b.points {
        a.said = Said::Good;
        return a;
    }
    a.said = Said::Points;
    a.points = Some(m.points);
    if m.points > b.points {
        a.best = true;
        return a;
    }
    a.cards = Some(m.cards);
    if m.cards != b.cards {
        a.best = m.cards > b.cards;
        return a;
    }
    a.top = Some(m.top);
    if m.strength != b.strength {
        a.best = m.strength > b.strength;
        return a;
    }
    a.trump = Some(m.trump);
    // Still equal: the earlier declaration (the best so far) wins.
    a.best = m.trump && !b.trump;
    a
}

impl JassState {
    /// True if `seat`, to play in the first trick, may have Wys items to declare now
    /// (`wys = manual`, its card not laid yet, and its hand holding three cards in a row of
    /// a suit or four of a rank).
    #[inline(always)]
    pub(super) fn may_declare(&self, seat: usize) -> bool {
        let b = self.hand_cards(seat & 3).bits();
        self.trick_no == 0
            && !self.committed[seat & 3]
            && !self.game.auto_wys
            && (b & b >> 1 & b >> 2 != 0 || b & b >> 16 & b >> 32 & b >> 48 != 0)
    }

    /// Adds the Wys items `seat` may declare next (none if the hand cannot hold a Wys).
    pub(super) fn wys_candidates(&self, seat: usize, out: &mut ActionSet) {
        let Some(_) = self.mode else { return };
        // Quick exit: no three consecutive cards in a suit and no four of a kind.
        let b = self.hand_cards(seat).bits();
        if b & b >> 1 & b >> 2 == 0 && b & b >> 16 & b >> 32 & b >> 48 == 0 {
            return;
        }
        for_each_candidate(
            &self.game,
            self.hand_cards(seat),
            &self.declared[seat],
            |item| {
                out.insert(WYS_BASE + Action::from(item.id()));
            },
        );
    }

    /// A Wys item declared by the seat to play (the action ids from [`WYS_BASE`]).
    pub(super) fn declare_wys(&mut self, action: Action) {
        if let Some(item) = WysItem::from_id((action - WYS_BASE) as u8) {
            self.declared[usize::from(self.to_act)].push(item);
        }
    }

    /// [`JassState::commit_wys`] of a seat that declared nothing (`wys = manual`), inline:
    /// its announcement alone (it cannot become the best).
    #[inline(always)]
    pub(super) fn commit_no_wys(&mut self, seat: usize) {
        self.committed[seat] = true;
        self.announcements[seat] = announce(self.best_wys.map(|b| b.1), None);
    }

    /// Laying its first card commits `seat`'s Wys (its best set with `wys = auto`) and makes
    /// its announcement (§8.5).
    #[inline(never)]
    pub(super) fn commit_wys(&mut self, seat: usize) {
        let Some(mode) = self.mode else { return };
        if self.game.auto_wys {
            self.declared[seat] = best_set(&self.game, mode, self.hand_cards(seat));
        }
        self.committed[seat] = true;
        // Most seats declare nothing: skip the search over their (empty) set.
        let mine = if self.declared[seat].is_empty() {
            None
        } else {
            self.declared[seat].best(&self.game, mode)
        };
        let ann = announce(self.best_wys.map(|b| b.1), mine);
        if ann.best {
            self.best_wys = mine.map(|m| (seat as u8, m));
        }
        self.announcements[seat] = ann;
    }

    /// After the first trick: the team with the best Wys scores all its members' Wys and
    /// shows their cards.
    #[inline(never)]
    pub(super) fn resolve_wys(&mut self) {
        let Some((seat, _)) = self.best_wys else {
            return;
        };
        let team = usize::from(seat & 1);
        self.wys_winner = Some(team as u8);
        let pts =
            self.declared[team].points(&self.game) + self.declared[team + 2].points(&self.game);
        self.revealed = self.declared[team].cards() | self.declared[team + 2].cards();
        self.wys_points[team] = pts;
        self.credit(team, pts);
    }

    /// Why a Wys action of `seat` is not legal now (assumes it is not).
    pub(super) fn wys_reason(&self, seat: usize) -> String {
        if self.trick_no > 0 || self.committed[seat] {
            "Wys can only be declared in the first trick, before laying one's card".to_owned()
        } else if self.game.auto_wys {
            "Wys are declared automatically (option wys = auto)".to_owned()
        } else {
            "this Wys is not in the hand, overlaps a declared Wys, splits a run, or is not after the last declared Wys (quartets first, then sequences, ascending)".to_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_ids_round_trip_through_kind_name_and_cards() {
        let game = JassGame::default();
        let mut seen = std::collections::HashSet::new();
        for id in 0..NUM_ITEMS {
            let item = WysItem(id);
            assert_eq!(WysItem::parse(&item.name()), Some(item), "{}", item.name());
            assert!(seen.insert(item.cards()), "two items with the same cards");
            assert!(item.cards().len() >= 3);
            assert!(item.points(&game) >= 20);
        }
    }
}
