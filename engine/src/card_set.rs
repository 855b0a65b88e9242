//! [`CardSet`]: a set of cards as a `u64` bitset, one 16-bit lane per suit; and the packs
//! ([`Pack`]) the games deal from.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not, Sub, SubAssign};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{Card, Error, Rank, Suit};

/// A set of cards. Bit `suit * 16 + rank` is set when the card is in the set.
///
/// Iteration is ascending by bit index: suit by suit (♣ ♦ ♥ ♠), each from Two to Ace.
/// Display prints the cards separated by spaces in French notation; [`CardSet::swiss`]
/// prints the Swiss notation. `FromStr` accepts either notation, separated by spaces or
/// commas.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct CardSet(u64);

/// The bits that are cards (13 per lane).
const VALID: u64 = 0x1FFF_1FFF_1FFF_1FFF;

impl CardSet {
    /// The empty set.
    pub const EMPTY: CardSet = CardSet(0);

    /// The set with these bits, dropping any bit that is not a card.
    #[must_use]
    pub const fn from_bits(bits: u64) -> CardSet {
        CardSet(bits & VALID)
    }

    /// The raw bits.
    #[must_use]
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// The set holding one card.
    #[must_use]
    pub const fn single(card: Card) -> CardSet {
        CardSet(1 << card.to_u8())
    }

    /// All cards of one suit (all 13 ranks; intersect with a pack as needed).
    #[must_use]
    pub const fn suit_mask(suit: Suit) -> CardSet {
        CardSet(0x1FFF << (suit as u64 * 16))
    }

    /// All cards of one rank.
    #[must_use]
    pub const fn rank_mask(rank: Rank) -> CardSet {
        CardSet(0x0001_0001_0001_0001 << rank as u64)
    }

    /// Number of cards.
    #[must_use]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// True if there is no card.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True if `card` is in the set.
    #[must_use]
    pub const fn contains(self, card: Card) -> bool {
        self.0 >> card.to_u8() & 1 != 0
    }

    /// True if every card of `other` is in `self`.
    #[must_use]
    pub const fn is_superset(self, other: CardSet) -> bool {
        other.0 & !self.0 == 0
    }

    /// Adds a card.
    pub fn insert(&mut self, card: Card) {
        self.0 |= 1 << card.to_u8();
    }

    /// Removes a card.
    pub fn remove(&mut self, card: Card) {
        self.0 &= !(1 << card.to_u8());
    }

    /// The cards of `suit` in this set.
    #[must_use]
    pub const fn of_suit(self, suit: Suit) -> CardSet {
        CardSet(self.0 & (0x1FFF << (suit as u64 * 16)))
    }

    /// The 13-bit rank mask of `suit` (bit `r` = rank `r`).
    #[must_use]
    pub const fn suit_bits(self, suit: Suit) -> u16 {
        (self.0 >> (suit as u64 * 16)) as u16 & 0x1FFF
    }

    /// The lowest card (first in iteration order).
    #[must_use]
    pub fn first(self) -> Option<Card> {
        if self.0 == 0 {
            None
        } else {
            Card::from_u8(self.0.trailing_zeros() as u8)
        }
    }

    /// The highest card (last in iteration order).
    #[must_use]
    pub fn last(self) -> Option<Card> {
        if self.0 == 0 {
            None
        } else {
            Card::from_u8(63 - self.0.leading_zeros() as u8)
        }
    }

    /// The `n`-th card in iteration order (0-based).
    #[must_use]
    pub fn nth(self, n: usize) -> Option<Card> {
        select_bit(self.0, n).and_then(|bit| Card::from_u8(bit as u8))
    }

    /// Iterates in ascending order.
    #[must_use]
    pub const fn iter(self) -> Iter {
        Iter(self.0)
    }

    /// Cards in Swiss notation, separated by spaces.
    #[must_use]
    pub fn swiss(self) -> String {
        self.iter().map(Card::swiss).collect::<Vec<_>>().join(" ")
    }
}

/// Index of the `n`-th set bit of `bits` (0-based), counting from the lowest.
#[must_use]
#[inline]
pub(crate) fn select_bit(bits: u64, n: usize) -> Option<u32> {
    if n >= bits.count_ones() as usize {
        return None;
    }
    Some(select_in_word(bits, n as u32))
}

/// Index of the `n`-th set bit of `w` (`n < w.count_ones()`; otherwise the result is
/// meaningless or the call panics), without data-dependent
/// branches (random play picks `n` at random, so a loop or a branchy search would mispredict
/// on every call): S. Vigna's broadword select — byte prefix counts by multiplication, the
/// byte found by comparing all eight at once, the bit inside it from a table.
#[must_use]
#[inline]
pub fn select_in_word(w: u64, n: u32) -> u32 {
    const L8: u64 = 0x0101_0101_0101_0101;
    const H8: u64 = 0x8080_8080_8080_8080;
    let mut s = w - ((w & 0xAAAA_AAAA_AAAA_AAAA) >> 1);
    s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    s = (s + (s >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    // Byte i of `prefix` = number of set bits in bytes 0..=i.
    let prefix = s.wrapping_mul(L8);
    // Bytes whose prefix count is <= n: the wanted bit lies after all of them.
    let le = (((u64::from(n) * L8) | H8) - prefix) & H8;
    // They are the low bytes (prefix counts only grow): counting them with POPCNT is shorter
    // on the dependency chain from `n` than summing their flags by multiplication.
    let place = le.count_ones() * 8;
    let before = ((prefix << 8) >> place & 0xFF) as u32;
    let byte = (w >> place & 0xFF) as usize;
    place + u32::from(SELECT_IN_BYTE[(n - before) as usize * 256 + byte])
}

/// `SELECT_IN_BYTE[k * 256 + b]`: position of the `k`-th set bit of byte `b` (8 if none).
static SELECT_IN_BYTE: [u8; 2048] = {
    let mut t = [8u8; 2048];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        let mut bit = 0;
        while bit < 8 {
            if b >> bit & 1 == 1 {
                t[k * 256 + b] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
};

/// Ascending iterator over a [`CardSet`].
#[derive(Clone, Debug)]
pub struct Iter(u64);

impl Iterator for Iter {
    type Item = Card;
    fn next(&mut self) -> Option<Card> {
        if self.0 == 0 {
            return None;
        }
        let bit = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Card::from_u8(bit as u8)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Iter {}

impl IntoIterator for CardSet {
    type Item = Card;
    type IntoIter = Iter;
    fn into_iter(self) -> Iter {
        self.iter()
    }
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> CardSet {
        let mut set = CardSet::EMPTY;
        for card in iter {
            set.insert(card);
        }
        set
    }
}

impl From<Card> for CardSet {
    fn from(card: Card) -> CardSet {
        CardSet::single(card)
    }
}

macro_rules! bitop {
    ($tr:ident, $f:ident, $op:tt, $atr:ident, $af:ident) => {
        impl $tr for CardSet {
            type Output = CardSet;
            fn $f(self, rhs: CardSet) -> CardSet {
                CardSet(self.0 $op rhs.0)
            }
        }
        impl $atr for CardSet {
            fn $af(&mut self, rhs: CardSet) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bitop!(BitAnd, bitand, &, BitAndAssign, bitand_assign);
bitop!(BitOr, bitor, |, BitOrAssign, bitor_assign);

impl BitXor for CardSet {
    type Output = CardSet;
    fn bitxor(self, rhs: CardSet) -> CardSet {
        CardSet(self.0 ^ rhs.0)
    }
}

impl Sub for CardSet {
    type Output = CardSet;
    fn sub(self, rhs: CardSet) -> CardSet {
        CardSet(self.0 & !rhs.0)
    }
}

impl SubAssign for CardSet {
    fn sub_assign(&mut self, rhs: CardSet) {
        self.0 &= !rhs.0;
    }
}

/// Complement within all 52 cards.
impl Not for CardSet {
    type Output = CardSet;
    fn not(self) -> CardSet {
        CardSet(!self.0 & VALID)
    }
}

impl fmt::Display for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for card in self.iter() {
            if !first {
                f.write_str(" ")?;
            }
            first = false;
            fmt::Display::fmt(&card, f)?;
        }
        Ok(())
    }
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CardSet[{self}]")
    }
}

impl FromStr for CardSet {
    type Err = Error;
    /// Parses cards separated by spaces and/or commas; the empty string is the empty set.
    fn from_str(s: &str) -> Result<CardSet, Error> {
        let mut set = CardSet::EMPTY;
        for token in s
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
        {
            let card = Card::parse(token)?;
            if set.contains(card) {
                return Err(Error::InvalidCard {
                    text: token.to_owned(),
                    reason: "the card appears twice".to_owned(),
                });
            }
            set.insert(card);
        }
        Ok(set)
    }
}

impl Serialize for CardSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for card in self.iter() {
            seq.serialize_element(&card)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for CardSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<CardSet, D::Error> {
        let cards = Vec::<Card>::deserialize(d)?;
        Ok(cards.into_iter().collect())
    }
}

/// Which cards make up a pack.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Pack {
    /// A–7 in four suits (Klaberjass, Avinas).
    Piquet32,
    /// A–6 in four suits (Jass).
    Swiss36,
    /// A–2 in four suits (Cribbage).
    Full52,
}

impl Pack {
    /// The cards of this pack.
    #[must_use]
    pub const fn cards(self) -> CardSet {
        // Lane masks: A..7 = bits 5..=12, A..6 = bits 4..=12, A..2 = bits 0..=12.
        let lane: u64 = match self {
            Pack::Piquet32 => 0x1FE0,
            Pack::Swiss36 => 0x1FF0,
            Pack::Full52 => 0x1FFF,
        };
        CardSet::from_bits(lane | lane << 16 | lane << 32 | lane << 48)
    }

    /// Number of cards.
    #[must_use]
    pub const fn len(self) -> usize {
        match self {
            Pack::Piquet32 => 32,
            Pack::Swiss36 => 36,
            Pack::Full52 => 52,
        }
    }

    /// Always false: no pack is empty.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(s: &str) -> CardSet {
        s.parse().unwrap()
    }

    #[test]
    fn set_operations() {
        let a = set("AS KS 10H");
        let b = set("KS 2C");
        assert_eq!(a | b, set("AS KS 10H 2C"));
        assert_eq!(a & b, set("KS"));
        assert_eq!(a - b, set("AS 10H"));
        assert_eq!((a ^ b).len(), 3);
        assert_eq!((!a).len(), 49);
        assert!(a.is_superset(set("AS 10H")));
        assert!(!a.is_superset(b));
    }

    #[test]
    fn iteration_is_ascending_by_suit_then_rank() {
        let cards: Vec<String> = set("AS 2C KD 10C").iter().map(|c| c.french()).collect();
        assert_eq!(cards, ["2C", "10C", "KD", "AS"]);
        assert_eq!(set("AS 2C KD").to_string(), "2C KD AS");
    }

    #[test]
    fn select_in_word_matches_a_plain_scan() {
        for w in [
            1u64,
            0b1011,
            u64::MAX,
            0x8000_0000_0000_0001,
            0x1FF0_1FF0_0000_1234,
        ] {
            let bits: Vec<u32> = (0..64).filter(|b| w >> b & 1 == 1).collect();
            for (n, &b) in bits.iter().enumerate() {
                assert_eq!(select_in_word(w, n as u32), b);
            }
        }
    }

    #[test]
    fn nth_matches_iteration() {
        let s = Pack::Full52.cards() - set("5H 7D AS");
        for (i, card) in s.iter().enumerate() {
            assert_eq!(s.nth(i), Some(card));
        }
        assert_eq!(s.nth(s.len()), None);
    }

    #[test]
    fn parse_rejects_duplicates_and_garbage() {
        assert!("AS AS".parse::<CardSet>().is_err());
        assert!("AS XX".parse::<CardSet>().is_err());
        assert_eq!("".parse::<CardSet>().unwrap(), CardSet::EMPTY);
        assert_eq!("UR, OR".parse::<CardSet>().unwrap(), set("JH QH"));
    }

    #[test]
    fn suit_and_rank_masks() {
        let s = set("AS KS 10H 2C");
        assert_eq!(s.of_suit(Suit::Spades), set("AS KS"));
        assert_eq!(s.suit_bits(Suit::Spades), 1 << 12 | 1 << 11);
        assert_eq!(CardSet::rank_mask(Rank::Ace).len(), 4);
        assert_eq!(CardSet::suit_mask(Suit::Hearts).len(), 13);
    }

    #[test]
    fn packs_have_their_sizes() {
        assert_eq!(Pack::Piquet32.cards().len(), 32);
        assert_eq!(Pack::Swiss36.cards().len(), 36);
        assert_eq!(Pack::Full52.cards().len(), 52);
    }
}
