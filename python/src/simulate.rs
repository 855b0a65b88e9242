//! `cardhouse.ray.simulate`: bots against bots with the engine's arena
//! ([`cardhouse::bots::arena`]), one slice of a simulation per call.
//!
//! Registered on `cardhouse._core` as `_simulate`. Match `i` of a simulation is seeded from
//! `mix(seed, i)`, exactly as the `cardhouse simulate` command does, so a simulation split
//! into slices (Ray tasks) gives the same per-match results as one call, and as the command.

use cardhouse::Error;
use cardhouse::bots::arena::{self, mix, num_sides};
use numpy::PyArray2;
use pyo3::prelude::*;

use crate::bots::bot_kind;
use crate::errors::{Kind, ResultExt, new_err};
use crate::game::PyGame;

/// Plays matches ``start`` to ``stop - 1`` (or duplicate sets with ``duplicate``) of
/// ``game`` with ``bots[s]`` on seat ``s``; returns a float64 array of shape
/// ``(stop - start, sides)``: per match, one seat's return for each side (the seats of a side
/// share their returns). Runs in Rust with the GIL released. A bot is a name or a
/// ``cardhouse.bots.Bot`` (a policy loaded from a file, for instance).
///
/// Raises:
///     InvalidOptionError: an unknown bot name, not one bot per seat, or ``stop < start``.
#[pyfunction]
#[pyo3(name = "_simulate", signature = (game, bots, seed, start, stop, duplicate=false))]
pub(crate) fn simulate<'py>(
    py: Python<'py>,
    game: PyRef<'_, PyGame>,
    bots: Vec<Bound<'py, PyAny>>,
    seed: u64,
    start: u64,
    stop: u64,
    duplicate: bool,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
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
    let sides = num_sides(n);
    let rows = py
        .detach(|| {
            (start..stop)
                .map(|i| {
                    let seed = mix(seed, i);
                    arena::play_unit(&game, &kinds, seed, duplicate, &mut || false)
                })
                .collect::<Result<Vec<Vec<f64>>, Error>>()
        })
        .py()?;
    if rows.is_empty() {
        return Ok(PyArray2::zeros(py, [0, sides], false));
    }
    PyArray2::from_vec2(py, &rows)
        .map_err(|e| new_err(Kind::Cardhouse, format!("simulation results: {e}")))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Private names stay out of the module's `__all__` (set, not added).
    m.setattr("_simulate", wrap_pyfunction!(simulate, m)?)?;
    Ok(())
}
