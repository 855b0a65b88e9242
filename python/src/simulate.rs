//! `cardhouse.ray.simulate`: bots against bots with the engine's arena
//! ([`cardhouse::bots::arena`]), one slice of a simulation per call.
//!
//! Registered on `cardhouse._core` as `_simulate`. Match `i` of a simulation is seeded from
//! `mix(seed, i)`, exactly as the `cardhouse simulate` command does, so a simulation split
//! into slices (Ray tasks) gives the same per-match results as one call, and as the command.

use cardhouse::Error;
use cardhouse::bots::arena::{self, num_sides};
use cardhouse::seeds::mix;
use numpy::{PyArray2, PyArrayMethods};
use pyo3::prelude::*;

use crate::args::{MAX_MATCHES, U64, zeros2};
use crate::bots::bot_kind;
use crate::classes::PyGame;
use crate::errors::{Kind, ResultExt, new_err};

/// Plays matches ``start`` to ``stop - 1`` (or duplicate sets with ``duplicate``) of
/// ``game`` with ``bots[s]`` on seat ``s``; returns a float64 array of shape
/// ``(stop - start, sides)``: per match, one seat's return for each side (the seats of a side
/// share their returns). Runs in Rust with the GIL released. A bot is a name or a
/// ``cardhouse.bots.Bot`` (a policy loaded from a file, for instance).
///
/// Raises:
///     InvalidOptionError: an unknown bot name, not one bot per seat, ``stop < start``, or
///         more than 100,000,000 matches.
///     MemoryError: not enough memory for the results.
#[pyfunction]
#[pyo3(name = "_simulate", signature = (game, bots, seed, start, stop, duplicate=false))]
pub(crate) fn simulate<'py>(
    py: Python<'py>,
    game: PyRef<'_, PyGame>,
    bots: Vec<Bound<'py, PyAny>>,
    seed: U64,
    start: U64,
    stop: U64,
    duplicate: bool,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (seed, start, stop) = (seed.0, start.0, stop.0);
    let game = game.game.clone();
    let kinds = bots.iter().map(bot_kind).collect::<PyResult<Vec<_>>>()?;
    for k in &kinds {
        k.check_game(&game).py()?;
    }
    let n = game.num_players();
    if kinds.len() != n {
        return Err(new_err(
            Kind::InvalidOption,
            format!(
                "{} bots given: {} has {n} seats, give one bot per seat",
                kinds.len(),
                game.name()
            ),
        ));
    }
    if stop < start {
        return Err(new_err(
            Kind::InvalidOption,
            format!("stop={stop} is before start={start}"),
        ));
    }
    if stop - start > MAX_MATCHES {
        return Err(new_err(
            Kind::InvalidOption,
            format!(
                "{} matches (stop - start): at most {MAX_MATCHES} per call",
                stop - start
            ),
        ));
    }
    let sides = num_sides(n);
    let count = (stop - start) as usize;
    // The result array first, from NumPy (memory it cannot get is a MemoryError), then
    // filled in place without the GIL.
    let out = zeros2::<f64>(py, count, sides, "float64")?;
    let mut guard = out.try_readwrite()?;
    let cells = guard
        .as_slice_mut()
        .map_err(|e| new_err(Kind::Cardhouse, format!("simulation results: {e}")))?;
    py.detach(|| {
        for (i, row) in (start..stop).zip(cells.chunks_mut(sides.max(1))) {
            let returns = arena::play_unit(&game, &kinds, mix(seed, i), duplicate, &mut || false)?;
            row.copy_from_slice(&returns[..sides]);
        }
        Ok::<(), Error>(())
    })
    .py()?;
    drop(guard);
    Ok(out)
}

/// The 95% Wilson score interval ``(low, high)`` of ``wins`` successes (a draw counts a
/// half) in ``n`` trials, clamped to ``[0, 1]`` (the engine's, as ``cardhouse simulate``
/// reports it).
///
/// Raises:
///     InvalidOptionError: ``n`` is not positive, or ``wins`` is not in ``[0, n]``.
#[pyfunction]
#[pyo3(name = "_wilson")]
pub(crate) fn wilson(wins: f64, n: f64) -> PyResult<(f64, f64)> {
    if !(n > 0.0 && n.is_finite() && (0.0..=n).contains(&wins)) {
        return Err(new_err(
            Kind::InvalidOption,
            format!("a Wilson interval needs 0 <= wins <= n and n > 0, not wins={wins}, n={n}"),
        ));
    }
    Ok(arena::wilson(wins, n))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Private names stay out of the module's `__all__` (set, not added).
    m.setattr("_simulate", wrap_pyfunction!(simulate, m)?)?;
    m.setattr("_wilson", wrap_pyfunction!(wilson, m)?)?;
    Ok(())
}
