//! Seed derivation: how every surface turns one seed into the independent generators of a
//! match, a batch or a simulation. **A frozen contract**: stored matches are resumed by
//! re-deriving every chance draw and bot choice from these functions, simulations are split
//! across processes by them, and seeded replays and golden results depend on them. Their
//! outputs never change (the tests below pin them); a new derivation gets a new function.
//!
//! All are built on SplitMix64's finalizer ([`splitmix64`]), which also seeds
//! [`crate::SeededRng`].
//!
//! | function | derives | used by |
//! |---|---|---|
//! | [`mix`] | a stream from a seed and an index | everything below, `cardhouse simulate`, the Python simulations, `BatchStep` |
//! | [`arena_chance`], [`arena_seat`] | the chance and per-seat bot streams of one match | the arena, `cardhouse play` |
//! | [`move_chance`], [`move_bot`] | a generator per move number | server-held matches |
//! | [`env_seed`], [`env_bot_seed`] | the streams of each env of a batch | Python's `VectorEnv` |

/// SplitMix64's finalizer after its golden-ratio step: `z + φ`, then the two xor-shift
/// multiplies. One step of SplitMix64 from state `z`.
#[must_use]
#[inline]
pub const fn splitmix64(z: u64) -> u64 {
    finalize(z.wrapping_add(GOLDEN))
}

/// 2⁶⁴ / φ, SplitMix64's increment.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's finalizer alone (Stafford's variant 13).
#[inline]
const fn finalize(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of stream `b` of seed `a`: `a ^ b·φ`, finalized. Independent streams from one
/// seed (unit `i` of a simulation is `mix(seed, i)`).
#[must_use]
#[inline]
pub const fn mix(a: u64, b: u64) -> u64 {
    finalize(a ^ b.wrapping_mul(GOLDEN))
}

/// The chance stream of an arena match of `seed` ([`crate::bots::arena::play_match`]).
#[must_use]
pub const fn arena_chance(seed: u64) -> u64 {
    mix(seed, 0x00C4_A7CE)
}

/// The stream of the bot on `seat` in an arena match of `seed`.
#[must_use]
pub const fn arena_seat(seed: u64, seat: usize) -> u64 {
    mix(seed, 1 + seat as u64)
}

/// Salt that separates a server-held match's bot choices from its chance draws.
const MOVE_BOT_SALT: u64 = 0xB07B_07B0_7B07_B07B;

/// The generator seed of the chance event at `move_number` of a match seeded `seed` (each
/// event is drawn alone, so a match resumes from any move number exactly).
#[must_use]
pub const fn move_chance(seed: u64, move_number: u64) -> u64 {
    mix(seed, move_number)
}

/// The generator seed of the bot move at `move_number` of a match seeded `seed`.
#[must_use]
pub const fn move_bot(seed: u64, move_number: u64) -> u64 {
    mix(seed ^ MOVE_BOT_SALT, move_number)
}

/// Salt of a batch env's bot streams (kept apart from its chance stream).
const ENV_BOT_SALT: u64 = 0xB075_0B07_5B07_50B0;

/// The chance stream of env `index` of a batch seeded `seed`.
#[must_use]
pub const fn env_seed(seed: u64, index: u64) -> u64 {
    splitmix64(splitmix64(seed).wrapping_add(index))
}

/// The stream of the bot on `seat` (or a further stream of the env, numbered past the
/// seats) of env `index` of a batch seeded `seed`.
#[must_use]
pub const fn env_bot_seed(seed: u64, index: u64, seat: u64) -> u64 {
    splitmix64(splitmix64(env_seed(seed, index) ^ ENV_BOT_SALT).wrapping_add(seat))
}

/// A uniform float in `[0, 1)` from the top 53 bits of `word` (how a server-held match
/// draws a chance outcome, [`crate::State::chance_outcome_at`]).
#[must_use]
pub fn unit_float(word: u64) -> f64 {
    (word >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outputs as they have been since each derivation was first used: never change
    /// them (stored matches and seeded results depend on them).
    #[test]
    fn outputs_are_pinned() {
        assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(mix(0, 0), 0);
        assert_eq!(mix(7, 3), 0xE831_3FE1_D735_0611);
        assert_eq!(mix(u64::MAX, 1), 0xDE0A_564C_BCD0_60C4);
        assert_eq!(arena_chance(42), 0x6B48_0D67_9733_9FE6);
        assert_eq!(arena_seat(42, 2), 0x5FD3_0D2F_CBEF_75E3);
        assert_eq!(move_chance(42, 36), 0x25CE_23A0_9516_D170);
        assert_eq!(move_bot(42, 36), 0x8CB2_6819_3DC2_1C85);
        assert_eq!(env_seed(0, 5), 0x0C73_D8B4_10FE_6447);
        assert_eq!(env_bot_seed(0, 5, 1), 0x64C0_3A1D_3DBD_B4FB);
        assert_eq!(unit_float(u64::MAX), 1.0 - 1.0 / (1u64 << 53) as f64);
        assert_eq!(unit_float(0), 0.0);
    }
}
