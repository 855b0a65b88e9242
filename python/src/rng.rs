//! `cardhouse.Rng`: the engine's seeded generator as a Python object whose stream continues
//! from call to call; and where a call's randomness comes from (a seed, a `cardhouse.Rng`, a
//! NumPy or stdlib generator).

use cardhouse::{Rng as _, SeededRng};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt};

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
            return Err(PyValueError::new_err("below(n) needs n > 0"));
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
