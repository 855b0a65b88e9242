//! `cardhouse.Game`: a validated game configuration, and the module-level registry functions.

use cardhouse::OptionKind;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::classes::{PyGame, PyState};
use crate::convert::{options_from_dict, options_to_dict};
use crate::errors::ResultExt;

#[pymethods]
impl PyGame {
    #[new]
    #[pyo3(signature = (name, options = None))]
    fn new(name: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let options = options_from_dict(options)?;
        Ok(PyGame {
            game: cardhouse::new_game(name, &options).py()?,
        })
    }

    /// The registry name, e.g. ``"jass"``.
    #[getter]
    fn name(&self) -> &'static str {
        self.game.name()
    }

    /// Every option with its effective value (defaults included), as a new dict.
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        options_to_dict(py, &self.game.options())
    }

    /// The rules version that serialized states of this game carry.
    #[getter]
    fn rules_version(&self) -> u32 {
        self.game.rules_version()
    }

    /// Number of seats.
    #[getter]
    fn num_players(&self) -> usize {
        self.game.num_players()
    }

    /// Size of the player action space: action ids are 0 to ``num_distinct_actions - 1``.
    #[getter]
    fn num_distinct_actions(&self) -> usize {
        self.game.num_distinct_actions()
    }

    /// Size of the chance outcome space: outcome ids are 0 to ``max_chance_outcomes - 1``.
    #[getter]
    fn max_chance_outcomes(&self) -> usize {
        self.game.max_chance_outcomes()
    }

    /// Shape of ``State.observation(seat)`` (a tuple; one dimension for every game so far).
    #[getter]
    fn observation_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.game.observation_shape())
    }

    /// The named slices of the observation, in order: a list of dicts with ``name``,
    /// ``offset``, ``shape`` (a tuple), ``meaning``, ``low`` and ``high`` (the bounds of
    /// every value in the slice). ``obs[offset:offset + prod(shape)].reshape(shape)`` is the
    /// slice.
    fn observation_layout<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for slice in self.game.observation_layout() {
            let d = PyDict::new(py);
            d.set_item("name", slice.name)?;
            d.set_item("offset", slice.offset)?;
            d.set_item("shape", PyTuple::new(py, &slice.shape)?)?;
            d.set_item("meaning", slice.meaning)?;
            d.set_item("low", slice.low)?;
            d.set_item("high", slice.high)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// The smallest return a seat can get under these options (OpenSpiel's
    /// ``min_utility``): -1 for a match, minus a bound on one deal's score for
    /// ``scope="deal"``. Every return is at least this.
    fn min_utility(&self) -> f64 {
        self.game.min_return()
    }

    /// The largest return a seat can get under these options (OpenSpiel's ``max_utility``).
    fn max_utility(&self) -> f64 {
        self.game.max_return()
    }

    /// The most player actions (chance outcomes not counted) a game under these options
    /// takes, or None when there is no bound (a match goes on while the scores tie).
    fn max_game_length(&self) -> Option<usize> {
        self.game.max_game_length()
    }

    /// Static facts about the game, as OpenSpiel's ``GameType``: a dict with
    /// ``short_name``, ``long_name``, ``dynamics`` (``"sequential"``), ``chance_mode``
    /// (``"explicit_stochastic"``), ``information`` (``"imperfect_information"``),
    /// ``utility`` (``"zero_sum"``), ``reward_model`` (``"terminal"``) and ``num_players``.
    fn get_type<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = self.game.game_type();
        let d = PyDict::new(py);
        d.set_item("short_name", t.short_name)?;
        d.set_item("long_name", t.long_name)?;
        d.set_item("dynamics", t.dynamics)?;
        d.set_item("chance_mode", t.chance_mode)?;
        d.set_item("information", t.information)?;
        d.set_item("utility", t.utility)?;
        d.set_item("reward_model", t.reward_model)?;
        d.set_item("num_players", t.num_players)?;
        Ok(d)
    }

    /// The state before the first deal: a chance node. Resolve the deal with
    /// ``State.resolve_chance(seed)`` or one card at a time with ``apply_random_chance``.
    fn new_initial_state(&self) -> PyState {
        PyState::new(self.game.new_initial_state())
    }

    /// Decodes ``State.to_bytes()`` output of a state of this game with these options.
    ///
    /// Raises:
    ///     DecodeError: malformed bytes, or a state of another game or other options.
    ///     RulesVersionError: written under rules this engine does not implement.
    fn state_from_bytes(&self, py: Python<'_>, data: &[u8]) -> PyResult<PyState> {
        let game = &self.game;
        let state = py.detach(|| game.state_from_bytes(data)).py()?;
        Ok(PyState::new(state))
    }

    /// Decodes ``State.to_json()`` output of a state of this game with these options.
    ///
    /// Raises:
    ///     DecodeError: malformed JSON, or a state of another game or other options.
    ///     RulesVersionError: written under rules this engine does not implement.
    fn state_from_json(&self, py: Python<'_>, text: &str) -> PyResult<PyState> {
        let game = &self.game;
        let state = py.detach(|| game.state_from_json(text)).py()?;
        Ok(PyState::new(state))
    }

    /// Replays a history (player actions and chance outcomes, as from ``State.history()``)
    /// from the initial state with checked ``apply``.
    ///
    /// Raises:
    ///     DecodeError: naming the first entry that does not apply (or is no action id).
    fn replay(&self, py: Python<'_>, history: Vec<crate::args::I64>) -> PyResult<PyState> {
        let mut ids = crate::args::vec_with_capacity(history.len(), "history entries")?;
        for (i, a) in history.iter().enumerate() {
            let id = u32::try_from(a.0).map_err(|_| {
                crate::errors::new_err(
                    crate::errors::Kind::Decode,
                    format!("history[{i}] = {}: action ids are 0 to {}", a.0, u32::MAX),
                )
            })?;
            ids.push(id);
        }
        let game = &self.game;
        let state = py.detach(|| game.replay(&ids)).py()?;
        Ok(PyState::new(state))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let cls = py.get_type::<PyGame>();
        let args = (self.game.name(), self.options(py)?);
        (cls, args).into_pyobject(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let opts = self.options(py)?;
        let mut parts = vec![format!("{:?}", self.game.name())];
        for (k, v) in opts.iter() {
            parts.push(format!("{}={}", k, v.repr()?));
        }
        Ok(format!("cardhouse.new_game({})", parts.join(", ")))
    }
}

/// The names of all registered games, e.g. ``["jass"]``.
#[pyfunction]
pub(crate) fn list_games() -> Vec<&'static str> {
    cardhouse::list_games().to_vec()
}

/// Creates a game by registry name with validated options, e.g.
/// ``cardhouse.new_game("jass", scope="deal", target_score=1000)``.
///
/// Option values may be bool, int or str; missing options take their defaults.
///
/// Raises:
///     UnknownGameError: the name is not registered (the message lists the games).
///     InvalidOptionError: an unknown option key or a bad value (the message names the key
///         and what is allowed).
#[pyfunction]
#[pyo3(signature = (name, **options))]
pub(crate) fn new_game(name: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<PyGame> {
    PyGame::new(name, options)
}

/// The options of a registered game: a list of dicts with ``name``, ``kind`` (``"bool"``,
/// ``"int"`` or ``"choice"``), ``default`` (as a value of that kind), ``allowed`` (text),
/// ``choices`` (for choices), ``min`` / ``max`` (for ints) and ``doc``.
///
/// Raises:
///     UnknownGameError: the name is not registered.
#[pyfunction]
pub(crate) fn option_specs<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
    let specs = cardhouse::option_specs(name).py()?;
    let list = PyList::empty(py);
    for spec in specs {
        let d = PyDict::new(py);
        d.set_item("name", spec.name)?;
        match spec.kind {
            OptionKind::Bool => {
                d.set_item("kind", "bool")?;
                d.set_item("default", spec.default == "true")?;
            }
            OptionKind::Int { min, max } => {
                d.set_item("kind", "int")?;
                d.set_item("default", spec.default.parse::<i64>().unwrap_or(min))?;
                d.set_item("min", min)?;
                d.set_item("max", max)?;
            }
            OptionKind::Choice(names) => {
                d.set_item("kind", "choice")?;
                d.set_item("default", spec.default)?;
                d.set_item("choices", names.to_vec())?;
            }
        }
        d.set_item("allowed", spec.allowed())?;
        d.set_item("doc", spec.doc)?;
        list.append(d)?;
    }
    Ok(list)
}

/// Decodes ``State.to_bytes()`` output of any registered game (the game and its options are
/// in the data). ``Game.state_from_bytes`` also checks that they match.
///
/// Raises:
///     DecodeError: malformed bytes.
///     RulesVersionError: written under rules this engine does not implement.
#[pyfunction]
pub(crate) fn state_from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<PyState> {
    let state = py.detach(|| cardhouse::state_from_bytes(data)).py()?;
    Ok(PyState::new(state))
}

/// Decodes ``State.to_json()`` output of any registered game.
///
/// Raises:
///     DecodeError: malformed JSON.
///     RulesVersionError: written under rules this engine does not implement.
#[pyfunction]
pub(crate) fn state_from_json(py: Python<'_>, text: &str) -> PyResult<PyState> {
    let state = py.detach(|| cardhouse::state_from_json(text)).py()?;
    Ok(PyState::new(state))
}
