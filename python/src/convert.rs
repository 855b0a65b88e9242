//! Conversions between Python values and engine values: options, JSON views, seeds and
//! random generators, seats and action ids.

use cardhouse::{Action, OptionValue, Options, SeededRng};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString};

use crate::rng::PyRng;

/// Python keyword options to engine options: `bool` → Bool, `int` → Int, `str` → Str.
/// Anything else is passed as its `str()` so that the engine's validation names the key and
/// the allowed values.
pub(crate) fn options_from_dict(dict: Option<&Bound<'_, PyDict>>) -> PyResult<Options> {
    let mut options = Options::new();
    let Some(dict) = dict else {
        return Ok(options);
    };
    for (key, value) in dict.iter() {
        let key: String = key.extract().map_err(|_| {
            PyTypeError::new_err(format!("option names must be str, not {}", key.get_type()))
        })?;
        options.insert(key, option_value(&value)?);
    }
    Ok(options)
}

fn option_value(value: &Bound<'_, PyAny>) -> PyResult<OptionValue> {
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(OptionValue::Bool(b.is_true()));
    }
    if value.is_instance_of::<PyInt>() || value.hasattr("__index__")? {
        if let Ok(i) = value.extract::<i64>() {
            return Ok(OptionValue::Int(i));
        }
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(OptionValue::Str(s.to_cow()?.into_owned()));
    }
    Ok(OptionValue::Str(value.str()?.to_cow()?.into_owned()))
}

/// Engine option values to a Python dict of bool / int / str.
pub(crate) fn options_to_dict<'py>(
    py: Python<'py>,
    options: &Options,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (key, value) in options {
        match value {
            OptionValue::Bool(b) => dict.set_item(key, *b)?,
            OptionValue::Int(i) => dict.set_item(key, *i)?,
            OptionValue::Str(s) => dict.set_item(key, s)?,
        }
    }
    Ok(dict)
}

/// A JSON value as plain Python objects (dict, list, str, int, float, bool, None).
pub(crate) fn json_to_py<'py>(
    py: Python<'py>,
    value: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, json_to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// Where the randomness of a call comes from.
pub(crate) enum RngSource<'py> {
    /// A fresh [`SeededRng`] from a seed (an int, or drawn from a NumPy / stdlib generator).
    Fresh(SeededRng),
    /// A `cardhouse.Rng` whose stream continues after the call.
    Shared(Bound<'py, PyRng>),
}

impl<'py> RngSource<'py> {
    /// Reads `seed`: an int in `0..2**64`, a `cardhouse.Rng`, a `numpy.random.Generator`
    /// (one 64-bit seed is drawn from it) or a `random.Random` (likewise).
    pub(crate) fn extract(seed: &Bound<'py, PyAny>) -> PyResult<RngSource<'py>> {
        if let Ok(rng) = seed.cast::<PyRng>() {
            return Ok(RngSource::Shared(rng.clone()));
        }
        // Python ints and integer-like objects (NumPy integers) are seeds.
        if seed.is_instance_of::<PyInt>() || seed.hasattr("__index__")? {
            return Ok(RngSource::Fresh(SeededRng::new(seed_u64(seed)?)));
        }
        if seed.hasattr("bit_generator")? && seed.hasattr("integers")? {
            // numpy.random.Generator: draw one uint64.
            let kwargs = PyDict::new(seed.py());
            kwargs.set_item("dtype", "uint64")?;
            kwargs.set_item("endpoint", true)?;
            let drawn = seed.call_method("integers", (0u64, u64::MAX), Some(&kwargs))?;
            return Ok(RngSource::Fresh(SeededRng::new(drawn.extract::<u64>()?)));
        }
        if seed.hasattr("getrandbits")? {
            let drawn = seed.call_method1("getrandbits", (64,))?;
            return Ok(RngSource::Fresh(SeededRng::new(drawn.extract::<u64>()?)));
        }
        Err(PyTypeError::new_err(format!(
            "expected a seed (int from 0 to 2**64-1), a cardhouse.Rng, a numpy.random.Generator \
             or a random.Random, not {}",
            seed.get_type()
        )))
    }

    /// Runs `f` with the generator and without the GIL, writing a shared generator's
    /// advanced state back afterwards.
    pub(crate) fn run_detached<T: Send>(
        self,
        py: Python<'_>,
        f: impl FnOnce(&mut SeededRng) -> T + Send,
    ) -> T {
        match self {
            RngSource::Fresh(mut rng) => py.detach(|| f(&mut rng)),
            RngSource::Shared(shared) => {
                let mut rng = shared.borrow().rng.clone();
                let out = py.detach(|| f(&mut rng));
                shared.borrow_mut().rng = rng;
                out
            }
        }
    }

    /// Runs `f` with the generator, holding the GIL (for calls too short to release it).
    pub(crate) fn run<T>(self, f: impl FnOnce(&mut SeededRng) -> T) -> T {
        match self {
            RngSource::Fresh(mut rng) => f(&mut rng),
            RngSource::Shared(shared) => f(&mut shared.borrow_mut().rng),
        }
    }
}

/// A seed: an int in `0..2**64`.
pub(crate) fn seed_u64(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    seed.extract::<u64>().map_err(|_| {
        PyValueError::new_err(format!("seed must be an int from 0 to 2**64-1, got {seed}"))
    })
}

/// A seat index given from Python (checked against `num_players` by the caller or engine).
pub(crate) fn seat(seat: i64, num_players: usize) -> PyResult<usize> {
    if seat < 0 || seat as u64 >= num_players as u64 {
        return Err(crate::errors::to_py(cardhouse::Error::InvalidSeat {
            seat,
            last: num_players.saturating_sub(1),
        }));
    }
    Ok(seat as usize)
}

/// An action id given from Python: ids that do not fit an action are reported as unknown
/// actions here; the engine checks the rest.
#[inline]
pub(crate) fn action(action: i64, space: usize) -> PyResult<Action> {
    Action::try_from(action).map_err(|_| {
        crate::errors::to_py(cardhouse::Error::UnknownAction {
            action,
            reason: format!("action ids are 0 to {}", space.saturating_sub(1)),
        })
    })
}
