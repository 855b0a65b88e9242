//! `cardhouse._core`: the native module behind the `cardhouse` Python package.
//!
//! A thin layer over the engine's dynamic API ([`cardhouse::AnyGame`],
//! [`cardhouse::AnyState`]): it converts arguments, calls the engine and converts back,
//! generic over every registered game. Docstrings here are the Python documentation; the
//! stubs in `cardhouse/_core.pyi` are checked against this module by `mypy.stubtest`.
//!
//! GIL policy: batched and potentially long work (`VectorEnv`, `resample`, decoding,
//! replay) runs with the GIL released. Single-step `State` methods (`apply`,
//! `legal_actions`, …) take well under a microsecond, less than releasing and re-acquiring
//! the GIL would cost, so they keep it.

mod args;
mod autoplay;
mod bots;
mod classes;
mod convert;
mod cribbage;
mod errors;
mod game;
mod rng;
mod simulate;
mod state;
mod vector_env;

use pyo3::prelude::*;

/// The native core of cardhouse. Import ``cardhouse`` instead.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add("CHANCE", cardhouse::CHANCE)?;
    m.add("TERMINAL", cardhouse::TERMINAL)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<classes::PyGame>()?;
    m.add_class::<classes::PyState>()?;
    m.add_class::<rng::PyRng>()?;
    m.add_class::<vector_env::PyVectorEnv>()?;
    m.add_function(wrap_pyfunction!(game::list_games, m)?)?;
    m.add_function(wrap_pyfunction!(game::new_game, m)?)?;
    m.add_function(wrap_pyfunction!(game::option_specs, m)?)?;
    m.add_function(wrap_pyfunction!(game::state_from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(game::state_from_json, m)?)?;
    cribbage::register(m)?;
    bots::register(m)?;
    simulate::register(m)?;
    Ok(())
}
