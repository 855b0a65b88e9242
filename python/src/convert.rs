//! Conversions between Python values and engine values: options, JSON views, seats and
//! action ids.

use cardhouse::{Action, OptionValue, Options};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString};

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
