//! Sets of action ids: [`ActionSet`], a 256-bit mask that legal actions are returned in, and
//! its uniform random choice, the step of every random playout.

use std::fmt;

use crate::Rng;

/// An action id (player action or chance outcome).
pub type Action = u32;

/// The most action ids any game has; [`ActionSet`] holds this many.
pub const MAX_ACTIONS: usize = 256;

/// A set of action ids as a 256-bit mask: `Copy`, allocation-free, iterates ascending.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct ActionSet([u64; 4]);

impl ActionSet {
    /// The empty set.
    pub const EMPTY: ActionSet = ActionSet([0; 4]);

    /// Adds `a` (`a < 256`).
    #[inline]
    pub fn insert(&mut self, a: Action) {
        debug_assert!((a as usize) < MAX_ACTIONS);
        self.0[(a >> 6) as usize & 3] |= 1 << (a & 63);
    }

    /// Removes `a` (nothing if absent).
    #[inline]
    pub fn remove(&mut self, a: Action) {
        if (a as usize) < MAX_ACTIONS {
            self.0[(a >> 6) as usize & 3] &= !(1 << (a & 63));
        }
    }

    /// Adds the ids `offset + i` for every set bit `i` of `bits`.
    #[inline]
    pub fn insert_bits(&mut self, offset: u32, bits: u64) {
        if bits == 0 {
            return;
        }
        let word = (offset >> 6) as usize;
        let shift = offset & 63;
        self.0[word] |= bits << shift;
        if shift != 0 && word + 1 < 4 {
            self.0[word + 1] |= bits >> (64 - shift);
        }
    }

    /// True if `a` is in the set.
    #[inline]
    #[must_use]
    pub fn contains(&self, a: Action) -> bool {
        (a as usize) < MAX_ACTIONS && self.0[(a >> 6) as usize] >> (a & 63) & 1 != 0
    }

    /// Number of actions.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// True if there is no action.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    /// The `n`-th action in ascending order.
    #[inline]
    #[must_use]
    pub fn nth(&self, mut n: usize) -> Option<Action> {
        for (i, &w) in self.0.iter().enumerate() {
            let c = w.count_ones() as usize;
            if n < c {
                return crate::card_set::select_bit(w, n).map(|b| (i as u32) * 64 + b);
            }
            n -= c;
        }
        None
    }

    /// A uniformly random member (`None` if empty): `nth(below(len))`.
    #[inline(always)]
    pub fn choose<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<Action> {
        // Word by word: a wider load spanning the words that `legal_actions` just stored
        // one by one would stall store-to-load forwarding.
        let w = self.0[0];
        if self.0[1] | self.0[2] | self.0[3] != 0 {
            if self.0[2] | self.0[3] == 0 {
                // Ids below 128 (every game's actions but Jass's Wys items): two words,
                // inline (Avinas's bids and early-stop choices are frequent).
                let w1 = self.0[1];
                let c0 = w.count_ones();
                let k = rng.below(u64::from(c0 + w1.count_ones())) as u32;
                return Some(if k < c0 {
                    crate::card_set::select_in_word(w, k)
                } else {
                    64 + crate::card_set::select_in_word(w1, k - c0)
                });
            }
            return self.choose_wide(rng);
        }
        // Random play's common case: every legal id is below 64 (cards), one word.
        if w == 0 {
            return None;
        }
        let n = rng.below(u64::from(w.count_ones()));
        Some(crate::card_set::select_in_word(w, n as u32))
    }

    /// [`ActionSet::choose`] when an id at or above 128 is in the set.
    #[inline(never)]
    fn choose_wide<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<Action> {
        let counts = self.0.map(u64::count_ones);
        let n: u32 = counts.iter().sum();
        if n == 0 {
            return None;
        }
        // `nth(below(len))`, each word's count taken once.
        let mut k = rng.below(u64::from(n)) as u32;
        for (i, (&w, &c)) in self.0.iter().zip(&counts).enumerate() {
            if k < c {
                return Some(i as u32 * 64 + crate::card_set::select_in_word(w, k));
            }
            k -= c;
        }
        None
    }

    /// The set of the mask `words`: id `64 * i + b` for bit `b` of word `i`.
    #[inline]
    #[must_use]
    pub const fn from_words(words: [u64; 4]) -> ActionSet {
        ActionSet(words)
    }

    /// The mask as four 64-bit words: id `64 * i + b` is bit `b` of word `i`.
    #[must_use]
    pub const fn words(&self) -> [u64; 4] {
        self.0
    }

    /// Calls `f` with every action, ascending. Unlike [`ActionSet::iter`], each word is
    /// read once, by itself (a set `legal_actions` just stored word by word is not reloaded
    /// wider, which would stall store-to-load forwarding), and the loop keeps it in a
    /// register.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(Action)) {
        for i in 0..4 {
            let mut w = self.0[i];
            while w != 0 {
                f(i as u32 * 64 + w.trailing_zeros());
                w &= w - 1;
            }
        }
    }

    /// Iterates in ascending order.
    #[must_use]
    pub fn iter(&self) -> ActionIter {
        ActionIter {
            words: self.0,
            word: 0,
        }
    }

    /// The actions as a vector, ascending.
    #[must_use]
    pub fn to_vec(&self) -> Vec<Action> {
        self.iter().collect()
    }

    /// Writes a 0/1 mask of length `out.len()`; ids beyond it are ignored.
    pub fn write_mask<T: From<bool>>(&self, out: &mut [T]) {
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = T::from(self.contains(i as Action));
        }
    }
}

impl fmt::Debug for ActionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl FromIterator<Action> for ActionSet {
    fn from_iter<I: IntoIterator<Item = Action>>(iter: I) -> Self {
        let mut s = ActionSet::EMPTY;
        for a in iter {
            s.insert(a);
        }
        s
    }
}

/// Ascending iterator over an [`ActionSet`].
#[derive(Clone, Debug)]
pub struct ActionIter {
    words: [u64; 4],
    word: usize,
}

impl Iterator for ActionIter {
    type Item = Action;
    fn next(&mut self) -> Option<Action> {
        while self.word < 4 {
            let w = &mut self.words[self.word];
            if *w != 0 {
                let b = w.trailing_zeros();
                *w &= *w - 1;
                return Some(self.word as u32 * 64 + b);
            }
            self.word += 1;
        }
        None
    }

    /// Exact: the actions left (so that a collector, e.g. a Python list, is sized once).
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.len();
        (n, Some(n))
    }
}

impl ExactSizeIterator for ActionIter {
    fn len(&self) -> usize {
        // Words before `word` are empty: each is cleared before the iterator moves past it.
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }
}

impl std::iter::FusedIterator for ActionIter {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SeededRng;

    #[test]
    fn the_iterator_knows_how_many_actions_are_left() {
        let mut s = ActionSet::EMPTY;
        for a in [0, 5, 63, 64, 130, 255] {
            s.insert(a);
        }
        let mut it = s.iter();
        for left in (0..=6).rev() {
            assert_eq!(it.len(), left);
            assert_eq!(it.size_hint(), (left, Some(left)));
            assert_eq!(it.next().is_some(), left > 0);
        }
        assert_eq!(it.next(), None);
    }

    #[test]
    fn for_each_visits_what_iter_yields() {
        let mut s = ActionSet::EMPTY;
        for a in [0, 5, 63, 64, 130, 191, 192, 255] {
            s.insert(a);
        }
        let mut seen = Vec::new();
        s.for_each(|a| seen.push(a));
        assert_eq!(seen, s.to_vec());
        ActionSet::EMPTY.for_each(|_| panic!("the empty set has no action"));
    }

    #[test]
    fn action_set_basics() {
        let mut s = ActionSet::EMPTY;
        for a in [0, 5, 63, 64, 130, 255] {
            s.insert(a);
        }
        assert_eq!(s.to_vec(), vec![0, 5, 63, 64, 130, 255]);
        assert_eq!(s.len(), 6);
        assert_eq!(s.nth(3), Some(64));
        assert_eq!(s.nth(6), None);
        assert!(s.contains(130) && !s.contains(131) && !s.contains(1000));
        let mut t = ActionSet::EMPTY;
        t.insert_bits(60, 0b1011);
        assert_eq!(t.to_vec(), vec![60, 61, 63]);
        let mut mask = [false; 8];
        s.write_mask(&mut mask);
        assert_eq!(mask, [true, false, false, false, false, true, false, false]);
        let words = [0b101, 1 << 63, 0, 1];
        assert_eq!(ActionSet::from_words(words).words(), words);
        assert_eq!(ActionSet::from_words(words).to_vec(), vec![0, 2, 127, 192]);
    }

    #[test]
    fn choose_is_nth_of_below_len() {
        // The fast paths draw the same number and pick the same action as the definition.
        let mut bits = SeededRng::new(5);
        for round in 0..2000 {
            let mut s = ActionSet::EMPTY;
            let words = [1, 2, 4][round as usize % 3];
            for w in 0..words {
                let b = bits.next_u64() & bits.next_u64();
                s.insert_bits(64 * w, b);
            }
            let (mut a, mut b) = (SeededRng::new(round), SeededRng::new(round));
            let expected = match s.len() {
                0 => None,
                n => s.nth(b.below(n as u64) as usize),
            };
            assert_eq!(s.choose(&mut a), expected);
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }
}
