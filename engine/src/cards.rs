//! Cards, suits and ranks shared by all four games.
//!
//! A [`Card`] is one byte: `suit * 16 + rank`, so that a [`CardSet`](crate::CardSet) keeps each
//! suit in its own 16-bit lane of a `u64` and per-suit questions are shifts and masks.
//!
//! Two notations print and parse:
//! * **French** (`"10H"`, `"JD"`, `"AS"`, or with symbols `"10♥"`): rank `2`–`10`, `J`, `Q`,
//!   `K`, `A` and suit `C` `D` `H` `S` / `♣` `♦` `♥` `♠`. Used by Klaberjass, Cribbage, Avinas.
//! * **Swiss** (`"UR"`, `"10A"`, `"OS"`): rank `6`–`10`, `U` (Under), `O` (Ober), `K`, `A` and
//!   suit `A` (Acorns), `R` (Roses), `S` (Shields), `B` (Bells). Used by Jass.
//!
//! The Swiss suits are the French suits under another name, following the Jass rules file
//! (§3.1): Acorns = ♦, Roses = ♥, Shields = ♠, Bells = ♣; Under = J, Ober = Q. The parser
//! accepts either notation for any card (the suit letters never clash: `S` is Spades and
//! Shields alike).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::Error;

/// One of the four suits.
///
/// The discriminants are the lane numbers of a [`CardSet`](crate::CardSet). The Swiss names
/// (Jass) are aliases: see [`Suit::ACORNS`] and friends.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum Suit {
    /// ♣ (Swiss: Bells).
    Clubs = 0,
    /// ♦ (Swiss: Acorns).
    Diamonds = 1,
    /// ♥ (Swiss: Roses).
    Hearts = 2,
    /// ♠ (Swiss: Shields).
    Spades = 3,
}

impl Suit {
    /// All suits in lane order.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];
    /// Swiss Acorns (Eicheln), played as ♦.
    pub const ACORNS: Suit = Suit::Diamonds;
    /// Swiss Roses (Rosen), played as ♥.
    pub const ROSES: Suit = Suit::Hearts;
    /// Swiss Shields (Schilten), played as ♠.
    pub const SHIELDS: Suit = Suit::Spades;
    /// Swiss Bells (Schellen), played as ♣.
    pub const BELLS: Suit = Suit::Clubs;
    /// The Swiss suits in the order the Jass rules list them (Acorns, Roses, Shields, Bells).
    pub const SWISS: [Suit; 4] = [Suit::ACORNS, Suit::ROSES, Suit::SHIELDS, Suit::BELLS];

    /// The suit with lane number `index` (0..4).
    #[must_use]
    pub const fn from_index(index: u8) -> Option<Suit> {
        match index {
            0 => Some(Suit::Clubs),
            1 => Some(Suit::Diamonds),
            2 => Some(Suit::Hearts),
            3 => Some(Suit::Spades),
            _ => None,
        }
    }

    /// Lane number 0..4.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// French letter: `C`, `D`, `H`, `S`.
    #[must_use]
    pub const fn letter(self) -> char {
        ['C', 'D', 'H', 'S'][self as usize]
    }

    /// French symbol: `♣`, `♦`, `♥`, `♠`.
    #[must_use]
    pub const fn symbol(self) -> char {
        ['♣', '♦', '♥', '♠'][self as usize]
    }

    /// Swiss letter: `B` (Bells), `A` (Acorns), `R` (Roses), `S` (Shields).
    #[must_use]
    pub const fn swiss_letter(self) -> char {
        ['B', 'A', 'R', 'S'][self as usize]
    }

    /// English name of the Swiss suit, lower case: `bells`, `acorns`, `roses`, `shields`.
    #[must_use]
    pub const fn swiss_name(self) -> &'static str {
        ["bells", "acorns", "roses", "shields"][self as usize]
    }

    /// English name of the French suit, lower case: `clubs`, `diamonds`, `hearts`, `spades`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        ["clubs", "diamonds", "hearts", "spades"][self as usize]
    }

    /// Parses a suit letter, symbol or name in either notation.
    ///
    /// # Errors
    /// [`Error::InvalidCard`] naming the accepted spellings.
    pub fn parse(text: &str) -> Result<Suit, Error> {
        let t = text.trim();
        let suit = match t.to_ascii_lowercase().as_str() {
            "c" | "♣" | "clubs" | "b" | "bells" => Suit::Clubs,
            "d" | "♦" | "diamonds" | "a" | "acorns" => Suit::Diamonds,
            "h" | "♥" | "hearts" | "r" | "roses" => Suit::Hearts,
            "s" | "♠" | "spades" | "shields" => Suit::Spades,
            _ => {
                return Err(Error::InvalidCard {
                    text: text.to_owned(),
                    reason: "unknown suit; use C D H S (♣ ♦ ♥ ♠) or Swiss B A R S (bells, acorns, roses, shields)".to_owned(),
                });
            }
        };
        Ok(suit)
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

/// A rank, from Two (lowest number) to Ace.
///
/// The discriminant is the bit position inside a suit's lane. It is *not* a trick-taking
/// strength: each game defines its own orders.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum Rank {
    Two = 0,
    Three = 1,
    Four = 2,
    Five = 3,
    Six = 4,
    Seven = 5,
    Eight = 6,
    Nine = 7,
    Ten = 8,
    /// Jack; the Swiss Under (U).
    Jack = 9,
    /// Queen; the Swiss Ober (O).
    Queen = 10,
    King = 11,
    Ace = 12,
}

impl Rank {
    /// All thirteen ranks, Two to Ace.
    pub const ALL: [Rank; 13] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];
    /// The Swiss Under.
    pub const UNDER: Rank = Rank::Jack;
    /// The Swiss Ober.
    pub const OBER: Rank = Rank::Queen;

    /// The rank at bit position `index` (0..13).
    #[must_use]
    pub const fn from_index(index: u8) -> Option<Rank> {
        if index < 13 {
            Some(Rank::ALL[index as usize])
        } else {
            None
        }
    }

    /// Bit position 0..13 inside a suit lane.
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// French short name: `2`..`10`, `J`, `Q`, `K`, `A`.
    #[must_use]
    pub const fn short(self) -> &'static str {
        [
            "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
        ][self as usize]
    }

    /// Swiss short name: `6`..`10`, `U`, `O`, `K`, `A` (lower ranks print as French).
    #[must_use]
    pub const fn swiss_short(self) -> &'static str {
        [
            "2", "3", "4", "5", "6", "7", "8", "9", "10", "U", "O", "K", "A",
        ][self as usize]
    }

    /// Parses `2`..`10`, `T`, `J`/`U`, `Q`/`O`, `K`, `A` (case-insensitive).
    ///
    /// # Errors
    /// [`Error::InvalidCard`] naming the accepted spellings.
    pub fn parse(text: &str) -> Result<Rank, Error> {
        let rank = match text.trim().to_ascii_uppercase().as_str() {
            "2" => Rank::Two,
            "3" => Rank::Three,
            "4" => Rank::Four,
            "5" => Rank::Five,
            "6" => Rank::Six,
            "7" => Rank::Seven,
            "8" => Rank::Eight,
            "9" => Rank::Nine,
            "10" | "T" => Rank::Ten,
            "J" | "U" => Rank::Jack,
            "Q" | "O" => Rank::Queen,
            "K" => Rank::King,
            "A" => Rank::Ace,
            _ => {
                return Err(Error::InvalidCard {
                    text: text.to_owned(),
                    reason: "unknown rank; use 2-10, J (U), Q (O), K, A".to_owned(),
                });
            }
        };
        Ok(rank)
    }
}

/// A playing card in one byte: `suit * 16 + rank`.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

impl Card {
    /// The card of `rank` in `suit`.
    #[must_use]
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card((suit as u8) << 4 | rank as u8)
    }

    /// The card with this byte value, if it is one (suit 0..4, rank 0..13).
    #[must_use]
    pub const fn from_u8(value: u8) -> Option<Card> {
        if value >> 4 < 4 && value & 15 < 13 {
            Some(Card(value))
        } else {
            None
        }
    }

    /// The byte value `suit * 16 + rank`, also the bit index in a [`CardSet`](crate::CardSet).
    #[must_use]
    pub const fn to_u8(self) -> u8 {
        self.0
    }

    /// The card's suit.
    #[must_use]
    pub const fn suit(self) -> Suit {
        // Constructors keep the suit in 0..4; the mask makes this a plain shift.
        match self.0 >> 4 & 3 {
            0 => Suit::Clubs,
            1 => Suit::Diamonds,
            2 => Suit::Hearts,
            _ => Suit::Spades,
        }
    }

    /// The card's rank.
    #[must_use]
    pub const fn rank(self) -> Rank {
        // Constructors keep the rank in 0..13.
        match self.0 & 15 {
            0 => Rank::Two,
            1 => Rank::Three,
            2 => Rank::Four,
            3 => Rank::Five,
            4 => Rank::Six,
            5 => Rank::Seven,
            6 => Rank::Eight,
            7 => Rank::Nine,
            8 => Rank::Ten,
            9 => Rank::Jack,
            10 => Rank::Queen,
            11 => Rank::King,
            _ => Rank::Ace,
        }
    }

    /// The rank's bit position 0..13 (`rank() as usize`, without building the enum).
    #[must_use]
    #[inline]
    pub const fn rank_index(self) -> usize {
        (self.0 & 15) as usize
    }

    /// The suit's lane 0..4 (`suit() as usize`, without building the enum).
    #[must_use]
    #[inline]
    pub const fn suit_index(self) -> usize {
        (self.0 >> 4) as usize
    }

    /// French ASCII notation, e.g. `10H`, `JD`.
    #[must_use]
    pub fn french(self) -> String {
        format!("{}{}", self.rank().short(), self.suit().letter())
    }

    /// French notation with a suit symbol, e.g. `10♥`, `J♦`.
    #[must_use]
    pub fn unicode(self) -> String {
        format!("{}{}", self.rank().short(), self.suit().symbol())
    }

    /// Swiss notation, e.g. `UR` (Under of Roses), `10A` (Banner of Acorns).
    #[must_use]
    pub fn swiss(self) -> String {
        format!(
            "{}{}",
            self.rank().swiss_short(),
            self.suit().swiss_letter()
        )
    }

    /// Parses French (`10H`, `J♦`) or Swiss (`UR`, `6B`) notation. Rank first, then suit.
    ///
    /// # Errors
    /// [`Error::InvalidCard`] saying what was wrong.
    pub fn parse(text: &str) -> Result<Card, Error> {
        let t = text.trim();
        let split = t.char_indices().last().map(|(i, _)| i).unwrap_or(0);
        if t.is_empty() || split == 0 {
            return Err(Error::InvalidCard {
                text: text.to_owned(),
                reason: "a card is a rank followed by a suit, e.g. 10H, J♦ or UR".to_owned(),
            });
        }
        let rank = Rank::parse(&t[..split]).map_err(|_| Error::InvalidCard {
            text: text.to_owned(),
            reason: format!(
                "unknown rank `{}`; use 2-10, J (U), Q (O), K, A",
                &t[..split]
            ),
        })?;
        let suit = Suit::parse(&t[split..]).map_err(|_| Error::InvalidCard {
            text: text.to_owned(),
            reason: format!(
                "unknown suit `{}`; use C D H S (♣ ♦ ♥ ♠) or Swiss B A R S",
                &t[split..]
            ),
        })?;
        Ok(Card::new(rank, suit))
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.french())
    }
}

/// Prints the French ASCII notation (`10H`); `{:#}` prints the symbol form (`10♥`).
impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.write_str(&self.unicode())
        } else {
            f.write_str(&self.french())
        }
    }
}

impl FromStr for Card {
    type Err = Error;
    fn from_str(s: &str) -> Result<Card, Error> {
        Card::parse(s)
    }
}

impl Serialize for Card {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.french())
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let text = String::deserialize(d)?;
        Card::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// How a game's texts (its views and action texts) write cards: [`Card::french`] or
/// [`Card::swiss`]. A client draws a card from a view's text with the letters and names
/// below, whatever the game ([`crate::Game::NOTATION`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Notation {
    /// `10H`, `JD`, `AS`: Klaberjass, Cribbage, Avinas.
    French,
    /// `UR`, `10A`, `OS`: Jass.
    Swiss,
}

impl Notation {
    /// `french` or `swiss`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Notation::French => "french",
            Notation::Swiss => "swiss",
        }
    }

    /// `card` as this notation writes it.
    #[must_use]
    pub fn card(self, card: Card) -> String {
        match self {
            Notation::French => card.french(),
            Notation::Swiss => card.swiss(),
        }
    }

    /// The suits in the order this notation lists them (French: ♣ ♦ ♥ ♠; Swiss: acorns,
    /// roses, shields, bells).
    #[must_use]
    pub const fn suits(self) -> [Suit; 4] {
        match self {
            Notation::French => Suit::ALL,
            Notation::Swiss => Suit::SWISS,
        }
    }

    /// The letter of `suit`: `C` `D` `H` `S`, or Swiss `B` `A` `R` `S`.
    #[must_use]
    pub const fn suit_letter(self, suit: Suit) -> char {
        match self {
            Notation::French => suit.letter(),
            Notation::Swiss => suit.swiss_letter(),
        }
    }

    /// The English name of `suit`, lower case: `hearts`, or Swiss `roses`.
    #[must_use]
    pub const fn suit_name(self, suit: Suit) -> &'static str {
        match self {
            Notation::French => suit.name(),
            Notation::Swiss => suit.swiss_name(),
        }
    }

    /// The text of `rank`: `2`..`10`, `J`, `Q`, `K`, `A`, or Swiss `U` and `O`.
    #[must_use]
    pub const fn rank_text(self, rank: Rank) -> &'static str {
        match self {
            Notation::French => rank.short(),
            Notation::Swiss => rank.swiss_short(),
        }
    }

    /// The English name of `rank`: `2`..`10`, `Jack`, `Queen`, `King`, `Ace`, or Swiss
    /// `Under` and `Ober`.
    #[must_use]
    pub const fn rank_name(self, rank: Rank) -> &'static str {
        match (self, rank) {
            (Notation::Swiss, Rank::Jack) => "Under",
            (Notation::Swiss, Rank::Queen) => "Ober",
            (_, Rank::Jack) => "Jack",
            (_, Rank::Queen) => "Queen",
            (_, Rank::King) => "King",
            (_, Rank::Ace) => "Ace",
            (_, r) => r.short(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips_in_both_styles() {
        for suit in Suit::ALL {
            for rank in Rank::ALL {
                let card = Card::new(rank, suit);
                assert_eq!(Card::parse(&card.french()).unwrap(), card);
                assert_eq!(Card::parse(&card.unicode()).unwrap(), card);
                assert_eq!(Card::parse(&card.swiss()).unwrap(), card);
                assert_eq!(Card::from_u8(card.to_u8()), Some(card));
            }
        }
    }

    #[test]
    fn swiss_suits_map_to_french_equivalents_of_the_rules() {
        assert_eq!(Card::parse("UR").unwrap(), Card::parse("JH").unwrap());
        assert_eq!(Card::parse("OA").unwrap(), Card::parse("Q♦").unwrap());
        assert_eq!(Card::parse("10S").unwrap(), Card::parse("10♠").unwrap());
        assert_eq!(
            Card::parse("6B").unwrap(),
            Card::new(Rank::Six, Suit::Clubs)
        );
        assert_eq!(Card::new(Rank::UNDER, Suit::ROSES).swiss(), "UR");
    }

    #[test]
    fn bad_cards_are_errors_not_panics() {
        for bad in ["", "H", "1H", "11S", "ZZ", "10", "♥", "JX", "ÄÖ"] {
            assert!(Card::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Card::from_u8(13), None);
        assert_eq!(Card::from_u8(64), None);
    }
}
