//! Numeric arguments from Python, checked at the entry points: every integer parameter takes
//! any Python int (a value beyond 64 bits is a `ValueError`, where PyO3 alone raises
//! `OverflowError`), and sizes, counts and budgets have documented bounds, checked before
//! anything is allocated. Memory the system refuses is a `MemoryError`, never an abort or a
//! `PanicException`.

use numpy::{Element, PyArray1, PyArray2, PyArray3, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyAnyMethods;

/// The most envs one `VectorEnv` may step.
pub(crate) const MAX_ENVS: u64 = 1 << 24;
/// The most threads one call may use.
pub(crate) const MAX_THREADS: u64 = 1024;
/// The most matches one `_simulate` call may play.
pub(crate) const MAX_MATCHES: u64 = 100_000_000;
/// The longest time budget of one bot move, in seconds.
pub(crate) const MAX_TIME_BUDGET: f64 = 3600.0;

/// An int argument that fits 64 signed bits; another int is a `ValueError` (a non-int a
/// `TypeError`, as PyO3 raises it).
#[derive(Clone, Copy)]
pub(crate) struct I64(pub i64);

/// An int argument from 0 to 2**64 - 1; another int is a `ValueError`.
#[derive(Clone, Copy)]
pub(crate) struct U64(pub u64);

fn out_of_range(obj: &Bound<'_, PyAny>, e: PyErr, range: &str) -> PyErr {
    if e.is_instance_of::<PyOverflowError>(obj.py()) {
        PyValueError::new_err(format!(
            "{} is out of range: a number in {range} is expected",
            obj.repr()
                .map_or_else(|_| "the value".into(), |r| r.to_string())
        ))
    } else {
        e
    }
}

/// A float argument (an int is converted); an int too large for a float is a `ValueError`.
#[derive(Clone, Copy)]
pub(crate) struct F64(pub f64);

impl<'a, 'py> FromPyObject<'a, 'py> for F64 {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        obj.extract::<f64>()
            .map(F64)
            .map_err(|e| out_of_range(&obj, e, "the range of a float"))
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for I64 {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        obj.extract::<i64>()
            .map(I64)
            .map_err(|e| out_of_range(&obj, e, "-2**63 .. 2**63 - 1"))
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for U64 {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        obj.extract::<u64>()
            .map(U64)
            .map_err(|e| out_of_range(&obj, e, "0 .. 2**64 - 1"))
    }
}

/// `value` of parameter `name` if it is from `min` to `max`, else a `ValueError` naming both.
pub(crate) fn within(name: &str, value: i64, min: u64, max: u64) -> PyResult<usize> {
    match u64::try_from(value) {
        Ok(v) if (min..=max).contains(&v) => Ok(v as usize),
        _ => Err(PyValueError::new_err(format!(
            "{name}={value}: must be from {min} to {max}"
        ))),
    }
}

/// Room for `n` values of `T` in a new vector, or a `MemoryError` naming `what`.
pub(crate) fn vec_with_capacity<T>(n: usize, what: &str) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| PyMemoryError::new_err(format!("not enough memory for {n} {what}")))?;
    Ok(v)
}

/// A zeroed NumPy array made by NumPy itself (`numpy.zeros`), so that memory it cannot get
/// is a `MemoryError`.
fn zeros<'py>(py: Python<'py>, shape: Vec<usize>, dtype: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("numpy")?.call_method1("zeros", (shape, dtype))
}

/// A zeroed 1-d array of `n` elements (see [`zeros`]).
pub(crate) fn zeros1<'py, T: Element>(
    py: Python<'py>,
    n: usize,
    dtype: &str,
) -> PyResult<Bound<'py, PyArray1<T>>> {
    Ok(zeros(py, vec![n], dtype)?.cast_into::<PyArray1<T>>()?)
}

/// A zeroed 2-d array of `rows` × `cols` elements (see [`zeros`]).
pub(crate) fn zeros2<'py, T: Element>(
    py: Python<'py>,
    rows: usize,
    cols: usize,
    dtype: &str,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    Ok(zeros(py, vec![rows, cols], dtype)?.cast_into::<PyArray2<T>>()?)
}

/// A zeroed 3-d array (see [`zeros`]).
pub(crate) fn zeros3<'py, T: Element>(
    py: Python<'py>,
    shape: [usize; 3],
    dtype: &str,
) -> PyResult<Bound<'py, PyArray3<T>>> {
    Ok(zeros(py, shape.to_vec(), dtype)?.cast_into::<PyArray3<T>>()?)
}

/// Action ids as a C-contiguous int64 vector: an int64 array as is, any other array or
/// sequence of integers converted (safely: no truncation, no wrap-around); floats, bools,
/// strings and objects are a `TypeError`, another number of dimensions a `ValueError`.
pub(crate) fn action_ids<'py>(actions: &Bound<'py, PyAny>) -> PyResult<PyReadonlyArray1<'py, i64>> {
    if let Ok(a) = actions.extract::<PyReadonlyArray1<'py, i64>>()
        && a.is_c_contiguous()
    {
        return Ok(a);
    }
    let np = actions.py().import("numpy")?;
    let array = np.call_method1("asarray", (actions,))?;
    let dtype = array.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    if kind != "i" && kind != "u" {
        return Err(PyTypeError::new_err(format!(
            "actions must be integer action ids, got an array of {}",
            dtype.str()?
        )));
    }
    if array.getattr("ndim")?.extract::<usize>()? != 1 {
        return Err(PyValueError::new_err(
            "actions must be a 1-d sequence of action ids (one per env)",
        ));
    }
    let kwargs = pyo3::types::PyDict::new(actions.py());
    kwargs.set_item("casting", "safe")?;
    let converted = array
        .call_method("astype", ("int64",), Some(&kwargs))
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "actions of {} do not all fit int64 action ids",
                dtype
                    .str()
                    .map_or_else(|_| String::new(), |s| s.to_string())
            ))
        })?;
    np.call_method1("ascontiguousarray", (converted,))?
        .extract()
        .map_err(|_| PyValueError::new_err("actions must be a 1-d contiguous array"))
}
