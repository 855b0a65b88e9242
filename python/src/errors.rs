//! The exception hierarchy of `cardhouse` and the mapping from [`cardhouse::Error`].
//!
//! ```text
//! CardhouseError(Exception)
//! ├── InvalidOptionError(CardhouseError, ValueError)    unknown option key, bad option value
//! │   └── UnknownGameError                              game name not registered
//! ├── IllegalActionError(CardhouseError, ValueError)    illegal, unknown or unparsable action,
//! │                                                     game over, wrong kind of node
//! ├── InvalidSeatError(CardhouseError, ValueError)      seat outside 0 to num_players - 1
//! ├── BufferSizeError(CardhouseError, ValueError)       output array of the wrong length
//! ├── InvalidCardError(CardhouseError, ValueError)      card text that does not parse
//! ├── DecodeError(CardhouseError, ValueError)           malformed bytes or JSON of a state
//! │   └── RulesVersionError                             state written under other rules
//! └── ResampleFailedError(CardhouseError)               no consistent state found
//! ```
//!
//! The classes are created at import (they need two bases, which `create_exception!` cannot
//! express) and live in `cardhouse._core`; the `cardhouse` package re-exports them.

use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

/// The exception classes, in creation order (a base before its subclasses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Cardhouse,
    InvalidOption,
    UnknownGame,
    IllegalAction,
    InvalidSeat,
    BufferSize,
    InvalidCard,
    Decode,
    RulesVersion,
    ResampleFailed,
}

struct ClassSpec {
    kind: Kind,
    name: &'static str,
    /// A base class among the cardhouse classes.
    base: Kind,
    /// Also a `ValueError` (the caller passed something wrong).
    value_error: bool,
    doc: &'static str,
}

const CLASSES: &[ClassSpec] = &[
    ClassSpec {
        kind: Kind::Cardhouse,
        name: "CardhouseError",
        base: Kind::Cardhouse,
        value_error: false,
        doc: "Base class of every error raised by cardhouse.",
    },
    ClassSpec {
        kind: Kind::InvalidOption,
        name: "InvalidOptionError",
        base: Kind::Cardhouse,
        value_error: true,
        doc: "An unknown option key or a value the option does not allow; the message names \
              the key and the allowed keys or values.",
    },
    ClassSpec {
        kind: Kind::UnknownGame,
        name: "UnknownGameError",
        base: Kind::InvalidOption,
        value_error: false,
        doc: "A game name that is not registered; the message lists the available games.",
    },
    ClassSpec {
        kind: Kind::IllegalAction,
        name: "IllegalActionError",
        base: Kind::Cardhouse,
        value_error: true,
        doc: "An action that cannot be applied now: illegal by the rules, outside the action \
              space, unparsable text, the game is over, or the wrong kind of node (e.g. chance \
              outcomes asked at a player node). The state is unchanged.",
    },
    ClassSpec {
        kind: Kind::InvalidSeat,
        name: "InvalidSeatError",
        base: Kind::Cardhouse,
        value_error: true,
        doc: "A seat outside 0 to num_players - 1.",
    },
    ClassSpec {
        kind: Kind::BufferSize,
        name: "BufferSizeError",
        base: Kind::Cardhouse,
        value_error: true,
        doc: "An output array of the wrong length, dtype or layout.",
    },
    ClassSpec {
        kind: Kind::InvalidCard,
        name: "InvalidCardError",
        base: Kind::Cardhouse,
        value_error: true,
        doc: "A card or card list that does not parse.",
    },
    ClassSpec {
        kind: Kind::Decode,
        name: "DecodeError",
        base: Kind::Cardhouse,
        value_error: true,
        doc: "Serialized state bytes or JSON that are malformed, inconsistent, or of another \
              game or options.",
    },
    ClassSpec {
        kind: Kind::RulesVersion,
        name: "RulesVersionError",
        base: Kind::Decode,
        value_error: false,
        doc: "A serialized state written under a rules version this engine does not implement.",
    },
    ClassSpec {
        kind: Kind::ResampleFailed,
        name: "ResampleFailedError",
        base: Kind::Cardhouse,
        value_error: false,
        doc: "No full state consistent with the seat's knowledge was found.",
    },
];

static TYPES: PyOnceLock<Vec<(Kind, Py<PyType>)>> = PyOnceLock::new();

fn build(py: Python<'_>) -> PyResult<Vec<(Kind, Py<PyType>)>> {
    let mut made: Vec<(Kind, Py<PyType>)> = Vec::with_capacity(CLASSES.len());
    for spec in CLASSES {
        let mut bases: Vec<Bound<'_, PyType>> = Vec::new();
        if spec.kind == Kind::Cardhouse {
            bases.push(py.get_type::<PyException>());
        } else if let Some((_, base)) = made.iter().find(|(k, _)| *k == spec.base) {
            bases.push(base.bind(py).clone());
        }
        if spec.value_error {
            bases.push(py.get_type::<PyValueError>());
        }
        let dict = PyDict::new(py);
        dict.set_item("__doc__", spec.doc)?;
        dict.set_item("__module__", "cardhouse")?;
        let ty = py
            .get_type::<PyType>()
            .call1((spec.name, PyTuple::new(py, bases)?, dict))?
            .cast_into::<PyType>()?;
        made.push((spec.kind, ty.unbind()));
    }
    Ok(made)
}

/// Adds the exception classes to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let types = TYPES.get_or_try_init(py, || build(py))?;
    for ((_, ty), spec) in types.iter().zip(CLASSES) {
        m.add(spec.name, ty.bind(py))?;
    }
    Ok(())
}

/// A new exception of `kind` with `message`.
pub(crate) fn new_err(kind: Kind, message: String) -> PyErr {
    Python::attach(|py| match TYPES.get(py) {
        Some(types) => {
            let ty = types
                .iter()
                .find(|(k, _)| *k == kind)
                .map(|(_, t)| t.bind(py).clone());
            match ty {
                Some(ty) => PyErr::from_type(ty, message),
                None => PyException::new_err(message),
            }
        }
        // Only reachable if the module failed to initialize.
        None => PyException::new_err(message),
    })
}

/// The exception class of an engine error. Every current variant is listed; the wildcard arm
/// exists only because [`cardhouse::Error`] is `#[non_exhaustive]` (future variants map to
/// the base class until they are listed here).
pub(crate) fn kind_of(err: &cardhouse::Error) -> Kind {
    use cardhouse::Error as E;
    match err {
        E::UnknownGame { .. } => Kind::UnknownGame,
        E::UnknownOption { .. }
        | E::InvalidOption { .. }
        | E::InvalidBot { .. }
        | E::InvalidPolicy { .. } => Kind::InvalidOption,
        E::UnknownAction { .. }
        | E::UnparsableAction { .. }
        | E::IllegalAction { .. }
        | E::GameOver
        | E::WrongNode(_) => Kind::IllegalAction,
        E::InvalidSeat { .. } => Kind::InvalidSeat,
        E::BufferSize { .. } => Kind::BufferSize,
        E::InvalidCard { .. } => Kind::InvalidCard,
        E::Decode(_) => Kind::Decode,
        E::RulesVersion { .. } => Kind::RulesVersion,
        E::ResampleFailed { .. } => Kind::ResampleFailed,
        _ => Kind::Cardhouse,
    }
}

/// Converts an engine error into the matching Python exception.
pub(crate) fn to_py(err: cardhouse::Error) -> PyErr {
    new_err(kind_of(&err), err.to_string())
}

/// Converts an engine error, prefixing the message (e.g. with the environment index).
pub(crate) fn to_py_with(prefix: &str, err: cardhouse::Error) -> PyErr {
    new_err(kind_of(&err), format!("{prefix}{err}"))
}

/// `Result` extension: `.py()?` maps engine errors.
pub(crate) trait ResultExt<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> ResultExt<T> for Result<T, cardhouse::Error> {
    #[inline]
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}
