//! Playing bots against each other: one match, or one duplicate set (the same deals played
//! again with the bots moved round the table, so that card luck cancels).
//!
//! Pure and single-threaded: the caller spreads matches over threads (the `cardhouse
//! simulate` command does). A match is fully determined by its seed: chance draws from one
//! generator, each seat's bot from its own, both derived from the seed.

use crate::bots::BotKind;
use crate::bots::autoplay::{Streams, Until, play_until};
use crate::{AnyGame, AnyState, Error, SeededRng, seeds};

/// The sides of a game with `players` seats: partnerships (seats `s` and `s + 2`) with four
/// players, every seat for itself otherwise.
#[must_use]
pub fn num_sides(players: usize) -> usize {
    if players == 4 { 2 } else { players }
}

/// The side of `seat`.
#[must_use]
pub fn side_of(seat: usize, players: usize) -> usize {
    seat % num_sides(players)
}

/// Plays one match of `game` with `bots[s]` on seat `s`, from `seed`; returns the final
/// state. `stop` is handed to every bot decision (a time budget), `|| false` for none.
///
/// # Errors
/// If `bots` does not have one entry per seat, or a bot fails.
pub fn play_match(
    game: &AnyGame,
    bots: &[BotKind],
    seed: u64,
    stop: &mut dyn FnMut() -> bool,
) -> Result<AnyState, Error> {
    let n = game.num_players();
    if bots.len() != n {
        return Err(Error::InvalidBot {
            value: format!("{} bots", bots.len()),
            allowed: format!("one bot per seat: {} has {n} seats", game.name()),
        });
    }
    let mut chance = SeededRng::new(seeds::arena_chance(seed));
    let mut rngs: Vec<SeededRng> = (0..n)
        .map(|s| SeededRng::new(seeds::arena_seat(seed, s)))
        .collect();
    let seated: Vec<Option<BotKind>> = bots.iter().cloned().map(Some).collect();
    let mut auto = Streams {
        bots: &seated,
        chance: &mut chance,
        seats: &mut rngs,
    };
    let mut state = game.new_initial_state();
    play_until(
        &mut state,
        &mut auto,
        &mut Until {
            stop: Some(stop),
            ..Until::default()
        },
    )?;
    Ok(state)
}

/// One duplicate set: the match of `seed` played once per side, the lineup `bots` turned by
/// one seat each time (so each bot plays each side's cards). Returns, per lineup entry `j`
/// (the bot given as `bots[j]`), its returns summed over the set, and the final states.
///
/// # Errors
/// As [`play_match`].
pub fn play_duplicate(
    game: &AnyGame,
    bots: &[BotKind],
    seed: u64,
    stop: &mut dyn FnMut() -> bool,
) -> Result<(Vec<f64>, Vec<AnyState>), Error> {
    let n = game.num_players();
    let mut totals = vec![0.0; bots.len()];
    let mut states = Vec::new();
    for turn in 0..num_sides(n) {
        // Seat s gets the bot of lineup entry (s + turn) mod n.
        let seated: Vec<BotKind> = (0..n).map(|s| bots[(s + turn) % n].clone()).collect();
        let state = play_match(game, &seated, seed, stop)?;
        let returns = state.returns();
        for s in 0..n {
            totals[(s + turn) % n] += returns[s];
        }
        states.push(state);
    }
    Ok((totals, states))
}

/// One unit of a simulation, from `seed`: a match, or with `duplicate` a duplicate set
/// ([`play_duplicate`]). Returns each side's return (one seat's: the mean over the side's
/// seats, which share their returns in every game here), summed over the set.
///
/// # Errors
/// As [`play_match`].
pub fn play_unit(
    game: &AnyGame,
    bots: &[BotKind],
    seed: u64,
    duplicate: bool,
    stop: &mut dyn FnMut() -> bool,
) -> Result<Vec<f64>, Error> {
    let n = game.num_players();
    let returns = if duplicate {
        play_duplicate(game, bots, seed, stop)?.0
    } else {
        play_match(game, bots, seed, stop)?.returns().to_vec()
    };
    Ok(side_returns(&returns, n))
}

/// Each side's return: the mean of its seats' `returns`.
#[must_use]
pub fn side_returns(returns: &[f64], players: usize) -> Vec<f64> {
    (0..num_sides(players))
        .map(|side| {
            let (sum, count) = (0..players)
                .filter(|&s| side_of(s, players) == side)
                .fold((0.0, 0usize), |(sum, count), s| {
                    (sum + returns[s], count + 1)
                });
            sum / count.max(1) as f64
        })
        .collect()
}

/// The 95% Wilson score interval of `wins` successes (a draw counts a half) in `n > 0`
/// trials, clamped to `[0, 1]`: how the arena's win rates are reported everywhere
/// (`cardhouse simulate`, `cardhouse.bots.duplicate`, `cardhouse.ray.simulate`).
#[must_use]
pub fn wilson(wins: f64, n: f64) -> (f64, f64) {
    let z = 1.96f64;
    let p = wins / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) + z * z / (4.0 * n)) / n).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::wilson;

    #[test]
    fn wilson_intervals_are_the_textbook_ones() {
        // 60 of 100: Wilson's interval is about 0.502 to 0.691.
        let (lo, hi) = wilson(60.0, 100.0);
        assert!(
            (lo - 0.502_0).abs() < 1e-3 && (hi - 0.690_7).abs() < 1e-3,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0.0, 10.0).0, 0.0);
        assert_eq!(wilson(10.0, 10.0).1, 1.0);
        let (lo, hi) = wilson(5.0, 10.0);
        assert!((lo + hi - 1.0).abs() < 1e-12, "symmetric about one half");
    }
}
