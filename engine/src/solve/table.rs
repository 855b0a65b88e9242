//! The transposition table: bounds on the value of trick-start positions, allocated once per
//! [`crate::solve::Solver`] and reused across solves.
//!
//! An entry is keyed on the **whole** position a trick-start value depends on: the four hands
//! (internal card bits), the leader and the game's context word (see
//! [`super::search::Position`]). The full key is stored and compared, so a hit is never a
//! hash collision and the solver stays exact. The rules' fixed parameters (trump, mode,
//! options, declarer, ...) are not in the key: the solver empties the table (in O(1), by an
//! epoch counter) whenever their fingerprint changes.
//!
//! Each slot pair (two-way set associative) keeps, on a collision, the entry of the current
//! solve over older ones, then the entry with more cards left (its subtree costs more).

/// Values stored in an entry fit an `i16`; this is the "unbounded" marker (beyond any value).
pub(crate) const UNBOUNDED: i32 = 10_000;

/// A trick-start position as the table keys it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Key {
    /// Each seat's hand (internal card bits; unused seats 0).
    pub hands: [u64; 4],
    /// The leader (low 8 bits) and the game's context word (the next 32).
    pub meta: u64,
}

impl Key {
    /// The slot-pair index of this key in a table of `mask + 1` pairs.
    #[inline]
    fn index(&self, mask: usize) -> usize {
        const K: [u64; 5] = [
            0x9E37_79B9_7F4A_7C15,
            0xC2B2_AE3D_27D4_EB4F,
            0x1656_67B1_9E37_79F9,
            0x85EB_CA77_C2B2_AE63,
            0x27D4_EB2F_1656_67C5,
        ];
        let mut h = self.hands[0].wrapping_mul(K[0])
            ^ self.hands[1].wrapping_mul(K[1])
            ^ self.hands[2].wrapping_mul(K[2])
            ^ self.hands[3].wrapping_mul(K[3])
            ^ self.meta.wrapping_mul(K[4]);
        h ^= h >> 29;
        h = h.wrapping_mul(K[0]);
        h ^= h >> 32;
        h as usize & mask
    }
}

/// One stored position: its key, a lower and an upper bound on its value (for the side to
/// lead), the best lead found, and bookkeeping for replacement.
#[derive(Copy, Clone, Debug, Default)]
struct Entry {
    key: Key,
    lo: i16,
    hi: i16,
    best: u8,
    /// Cards left in all hands (the size of the subtree, for replacement).
    depth: u8,
    /// The table epoch the entry belongs to (others are empty).
    epoch: u8,
    /// The solve that stored it (for replacement).
    age: u8,
}

/// What a probe found.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Hit {
    /// Lower bound on the value.
    pub lo: i32,
    /// Upper bound on the value.
    pub hi: i32,
    /// The best lead stored with it.
    pub best: u8,
}

/// The table: `2 * (mask + 1)` entries, two per slot pair.
#[derive(Clone, Debug)]
pub(crate) struct Table {
    entries: Vec<Entry>,
    mask: usize,
    epoch: u8,
    age: u8,
}

impl Table {
    /// A table of at least `entries` entries (rounded up to a power of two, at least 2).
    pub(crate) fn new(entries: usize) -> Table {
        let pairs = (entries.max(2) / 2).next_power_of_two();
        Table {
            entries: vec![Entry::default(); 2 * pairs],
            mask: pairs - 1,
            epoch: 1,
            age: 0,
        }
    }

    /// Number of entries.
    pub(crate) fn capacity(&self) -> usize {
        self.entries.len()
    }

    /// Forgets every entry in O(1) (a new epoch; the memory is rewritten only when the epoch
    /// counter wraps, once in 255 clears).
    pub(crate) fn clear(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.entries.fill(Entry::default());
            self.epoch = 1;
        }
    }

    /// Marks the start of a new solve: entries stored from now on are preferred on collisions.
    pub(crate) fn next_age(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    /// The bounds stored for `key`, if any.
    #[inline]
    pub(crate) fn probe(&self, key: &Key) -> Option<Hit> {
        let i = 2 * key.index(self.mask);
        for e in &self.entries[i..i + 2] {
            if e.epoch == self.epoch && e.key == *key {
                return Some(Hit {
                    lo: i32::from(e.lo),
                    hi: i32::from(e.hi),
                    best: e.best,
                });
            }
        }
        None
    }

    /// Stores bounds `lo..=hi` for `key` (intersected with the bounds already stored for it:
    /// both are true bounds of the same exact value).
    #[inline]
    pub(crate) fn store(&mut self, key: &Key, lo: i32, hi: i32, best: u8, depth: u8) {
        let i = 2 * key.index(self.mask);
        let (epoch, age) = (self.epoch, self.age);
        let pair = &mut self.entries[i..i + 2];
        let slot = if let Some(k) = (0..2).find(|&k| pair[k].epoch == epoch && pair[k].key == *key)
        {
            let e = &mut pair[k];
            e.lo = e.lo.max(clamp(lo));
            e.hi = e.hi.min(clamp(hi));
            e.best = best;
            e.age = age;
            return;
        } else {
            // Prefer an empty or stale slot, then one of an earlier solve, then the shallower.
            let rank = |e: &Entry| {
                if e.epoch != epoch {
                    (0, 0)
                } else {
                    (1 + u8::from(e.age == age), e.depth)
                }
            };
            if rank(&pair[0]) <= rank(&pair[1]) {
                0
            } else {
                1
            }
        };
        pair[slot] = Entry {
            key: *key,
            lo: clamp(lo),
            hi: clamp(hi),
            best,
            depth,
            epoch,
            age,
        };
    }
}

fn clamp(v: i32) -> i16 {
    v.clamp(-UNBOUNDED, UNBOUNDED) as i16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_intersects_and_clears() {
        let mut t = Table::new(64);
        let k = Key {
            hands: [1, 2, 4, 8],
            meta: 3,
        };
        assert!(t.probe(&k).is_none());
        t.store(&k, 5, UNBOUNDED, 7, 4);
        t.store(&k, -UNBOUNDED, 9, 6, 4);
        let h = t.probe(&k).expect("stored");
        assert_eq!((h.lo, h.hi, h.best), (5, 9, 6));
        let other = Key { meta: 4, ..k };
        assert!(t.probe(&other).is_none());
        t.clear();
        assert!(t.probe(&k).is_none());
        for _ in 0..300 {
            t.clear();
        }
        assert!(t.probe(&k).is_none());
    }
}
