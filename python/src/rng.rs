//! `cardhouse.Rng`: the engine's seeded generator as a Python object whose stream continues
//! from call to call.

use cardhouse::{Rng as _, SeededRng};
use pyo3::prelude::*;

use crate::convert::seed_u64;

/// The engine's reference random generator (xoshiro256++ seeded through SplitMix64).
///
/// Pass it wherever a seed is accepted (``apply_random_chance``, ``resolve_chance``,
/// ``resample``): unlike an int seed, which starts a fresh stream on every call, an ``Rng``
/// continues its stream, so ``Rng(seed)`` reproduces a whole sequence of calls. Its output
/// for a seed is fixed forever (golden files depend on it).
///
/// Args:
///     seed: an int from 0 to 2**64-1.
#[pyclass(module = "cardhouse", name = "Rng")]
#[derive(Clone, Debug)]
pub struct PyRng {
    pub(crate) rng: SeededRng,
}

#[pymethods]
impl PyRng {
    #[new]
    fn new(seed: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(PyRng {
            rng: SeededRng::new(seed_u64(seed)?),
        })
    }

    /// The next uniformly random 64-bit word (advances the stream).
    fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// A uniform integer from 0 to ``n - 1`` (advances the stream).
    ///
    /// Raises:
    ///     ValueError: if ``n`` is 0.
    fn below(&mut self, n: crate::args::U64) -> PyResult<u64> {
        let n = n.0;
        if n == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "below(n) needs n > 0",
            ));
        }
        Ok(self.rng.below(n))
    }

    /// An independent copy that continues from the same point of the stream.
    fn clone(&self) -> PyRng {
        Clone::clone(self)
    }

    fn __repr__(&self) -> String {
        "cardhouse.Rng(...)".to_owned()
    }
}
