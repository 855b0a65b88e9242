//! `cardhouse.State`: one position of a game, with the State API of the engine.

use cardhouse::Viewer;
use numpy::{PyArray1, PyArrayDyn, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::args::I64;
use crate::classes::{PyGame, PyState};
use crate::convert::{json_to_py, seat};
use crate::errors::{Kind, ResultExt, new_err};
use crate::rng::RngSource;

thread_local! {
    /// The solver of `State.solve` on this thread: its table (12 MiB) is allocated on the
    /// first solve and reused (a table is exact across positions; it empties itself when the
    /// game or trump changes).
    static SOLVER: std::cell::RefCell<Option<cardhouse::solve::Solver>> =
        const { std::cell::RefCell::new(None) };
}

fn viewer(seat_arg: Option<i64>, omniscient: bool, players: usize) -> PyResult<Viewer> {
    match (seat_arg, omniscient) {
        (Some(_), true) => Err(new_err(
            Kind::InvalidSeat,
            "give either a seat or omniscient=True, not both".to_owned(),
        )),
        (None, true) => Ok(Viewer::Omniscient),
        (None, false) => Ok(Viewer::Spectator),
        (Some(s), false) => Ok(Viewer::Seat(seat(s, players)?)),
    }
}

#[pymethods]
impl PyState {
    /// The game (configuration) of this state.
    #[getter]
    fn game(&self) -> PyGame {
        PyGame {
            game: self.state.game(),
        }
    }

    /// Who acts now: a seat (0 to ``num_players - 1``), ``cardhouse.CHANCE`` (-1) at a chance
    /// node, or ``cardhouse.TERMINAL`` (-4) when the game is over.
    #[getter]
    fn current_player(&self) -> i32 {
        self.state.current_player().to_i32()
    }

    /// True at a chance node (a deal, cut or starter is pending).
    fn is_chance_node(&self) -> bool {
        self.state.is_chance_node()
    }

    /// True when the game is over.
    fn is_terminal(&self) -> bool {
        self.state.is_terminal()
    }

    /// The chance outcomes at this chance node as ``(outcome id, probability)`` pairs.
    ///
    /// Raises:
    ///     IllegalActionError: this is not a chance node.
    fn chance_outcomes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let outcomes = self.state.chance_outcomes().py()?;
        PyList::new(py, outcomes)
    }

    /// Applies one chance outcome drawn at random.
    ///
    /// Args:
    ///     seed: an int seed (a fresh generator is seeded with it, so the same seed gives the
    ///         same outcome), a ``cardhouse.Rng`` (its stream continues), a
    ///         ``numpy.random.Generator`` or a ``random.Random`` (one 64-bit seed is drawn).
    ///
    /// Raises:
    ///     IllegalActionError: this is not a chance node.
    fn apply_random_chance(&mut self, seed: &Bound<'_, PyAny>) -> PyResult<()> {
        let source = RngSource::extract(seed)?;
        self.legal = None;
        let state = &mut self.state;
        source.run(|r| state.apply_random_chance(r)).py()
    }

    /// Resolves every pending chance event (the whole deal) until a seat acts or the game
    /// ends. Accepts the same ``seed`` as ``apply_random_chance``. Games may shuffle once
    /// instead of drawing card by card, so the result need not equal repeated
    /// ``apply_random_chance`` calls with the same generator.
    ///
    /// Raises:
    ///     IllegalActionError: this is not a chance node (as ``apply_random_chance``); the
    ///         state is unchanged.
    fn resolve_chance(&mut self, seed: &Bound<'_, PyAny>) -> PyResult<()> {
        let source = RngSource::extract(seed)?;
        self.legal = None;
        let state = &mut self.state;
        source.run(|r| state.resolve_chance(r)).py()
    }

    /// Plays chance and the other seats until a seat that decides itself is to act, or the
    /// game ends: the engine's play-until-a-decision loop (the one the arena, the server and
    /// ``VectorEnv`` run). Returns the number of actions applied (chance outcomes included).
    ///
    /// Args:
    ///     players: one per seat: ``None`` for a seat that decides itself (the loop stops when
    ///         it is to act), a ``cardhouse.bots.Bot`` (it draws from its own generator), or a
    ///         callable ``(state, rng) -> action id`` (given a copy of the state and ``rng``;
    ///         a Gymnasium opponent policy).
    ///     rng: the chance events' randomness, as ``resolve_chance`` takes it: a
    ///         ``cardhouse.Rng`` runs on, a ``numpy.random.Generator`` or ``random.Random``
    ///         gives one seed per chance step, an int seeds one generator for this call.
    ///
    /// Raises:
    ///     InvalidOptionError: not one player per seat, or a player of another kind.
    ///     IllegalActionError: a callable returned an illegal action (the state is left
    ///         after the last legal one); what a callable raises propagates.
    fn play_until(
        &mut self,
        players: Vec<Bound<'_, PyAny>>,
        rng: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        crate::autoplay::play(self, &players, rng)
    }

    /// The legal actions of the seat to act (or the chance outcomes at a chance node), as an
    /// ascending list of ids; empty when the game is over.
    fn legal_actions<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let legal = self.state.legal_actions();
        self.legal = Some(legal);
        // Straight from the set's exact-size iterator into the list (a buffer of ids first
        // cost a 1 KB zeroing a call).
        PyList::new(py, legal.iter())
    }

    /// A boolean mask of length ``Game.num_distinct_actions`` (``max_chance_outcomes`` at a
    /// chance node) with True at the legal actions; a new NumPy array.
    fn legal_action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_vec(py, self.state.legal_action_mask())
    }

    /// Applies a player action (or a chance outcome at a chance node) after checking it.
    ///
    /// Raises:
    ///     IllegalActionError: the action is illegal now (the message says which rule
    ///         forbids it), does not exist, or the game is over. The state is unchanged.
    fn apply(&mut self, action: I64) -> PyResult<()> {
        let a = crate::convert::action(action.0, self.space)?;
        // A member of the set `legal_actions` returned for this very position is legal:
        // applied without checking it again. Anything else is checked (and refused with
        // the rule's reason, the state unchanged).
        match self.legal.take() {
            Some(legal) if legal.contains(a) => {
                self.state.apply_unchecked(a);
                Ok(())
            }
            _ => self.state.apply(a).py(),
        }
    }

    /// The text form of ``action`` at this state, e.g. ``"play UR"`` or ``"trump roses"``
    /// (at a chance node: the outcome as the omniscient viewer sees it).
    ///
    /// Raises:
    ///     IllegalActionError: the id is outside the action space (the chance outcome space
    ///         at a chance node).
    fn action_to_string(&self, action: I64) -> PyResult<String> {
        let a = crate::convert::action(action.0, self.space)?;
        self.state.checked_action_to_string(a).py()
    }

    /// The action id of a text form (the inverse of ``action_to_string``).
    ///
    /// Raises:
    ///     IllegalActionError: the text names no action (the message says what is expected).
    fn string_to_action(&self, text: &str) -> PyResult<u32> {
        self.state.string_to_action(text).py()
    }

    /// What ``seat`` knows, as a new float32 NumPy array of shape
    /// ``Game.observation_shape``; the layout is documented per game. It never depends on
    /// cards that ``seat`` may not see.
    ///
    /// Raises:
    ///     InvalidSeatError: the seat does not exist.
    fn observation<'py>(&self, py: Python<'py>, seat: I64) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let s = crate::convert::seat(seat.0, self.players)?;
        let obs = self.state.observation(s).py()?;
        Ok(PyArray1::from_vec(py, obs))
    }

    /// Writes ``observation(seat)`` into ``out``, a caller's C-contiguous float32 array with
    /// ``observation_len`` elements (any shape, e.g. a row of a batch), without allocating.
    ///
    /// Raises:
    ///     InvalidSeatError: the seat does not exist.
    ///     BufferSizeError: ``out`` has the wrong number of elements or is not contiguous.
    ///     TypeError: ``out`` is not a float32 NumPy array.
    fn write_observation(&self, seat: I64, out: &Bound<'_, PyAny>) -> PyResult<()> {
        let s = crate::convert::seat(seat.0, self.players)?;
        let Ok(out) = out.cast::<PyArrayDyn<f32>>() else {
            return Err(not_f32_array(out));
        };
        let mut guard = out
            .try_readwrite()
            .map_err(|e| new_err(Kind::BufferSize, format!("cannot write to the array: {e}")))?;
        let slice = guard.as_slice_mut().map_err(|e| {
            new_err(
                Kind::BufferSize,
                format!("the array must be C-contiguous: {e}"),
            )
        })?;
        self.state.write_observation(s, slice).py()
    }

    /// OpenSpiel's name for ``observation(player)``.
    ///
    /// Raises:
    ///     InvalidSeatError: the seat does not exist.
    fn observation_tensor<'py>(
        &self,
        py: Python<'py>,
        player: I64,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        self.observation(py, player)
    }

    /// What ``seat`` knows, as text: its own hand, the public cards and announcements, the
    /// scores, and its legal actions on its turn. Safe to show to that seat (it never
    /// depends on cards the seat may not see). ``str(state)`` is the omniscient text instead.
    ///
    /// Raises:
    ///     InvalidSeatError: the seat does not exist.
    fn observation_string(&self, seat: I64) -> PyResult<String> {
        let s = crate::convert::seat(seat.0, self.players)?;
        self.state.observation_string(s).py()
    }

    /// OpenSpiel's name for ``apply(action)``: applies a player action or chance outcome,
    /// checked.
    ///
    /// Raises:
    ///     IllegalActionError: as ``apply``; the state is unchanged.
    fn apply_action(&mut self, action: I64) -> PyResult<()> {
        self.apply(action)
    }

    /// A new state: this one with ``action`` applied (this state is unchanged).
    ///
    /// Raises:
    ///     IllegalActionError: as ``apply``.
    fn child(&self, action: I64) -> PyResult<PyState> {
        let mut next = Clone::clone(self);
        next.apply(action)?;
        Ok(next)
    }

    /// The structured record of what a viewer may see, as a dict (the same knowledge as
    /// ``observation``, for UIs and logs).
    ///
    /// Args:
    ///     seat: the seat whose view to build; None for the spectator (public) view.
    ///     omniscient: True for the full record with every hand (for referees and records
    ///         after the game); ``seat`` must then be None.
    ///
    /// Raises:
    ///     InvalidSeatError: the seat does not exist, or both a seat and omniscient are given.
    #[pyo3(signature = (seat = None, *, omniscient = false))]
    fn view<'py>(
        &self,
        py: Python<'py>,
        seat: Option<I64>,
        omniscient: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let v = viewer(seat.map(|s| s.0), omniscient, self.players)?;
        let json = self.state.view(v).py()?;
        json_to_py(py, &json)
    }

    /// Per-seat returns (a list of floats), zero-sum between the sides; all 0 until the game
    /// is over. Each game documents them for ``scope="match"`` and ``scope="deal"``.
    fn returns(&self) -> Vec<f64> {
        self.state.returns().to_vec()
    }

    /// Per-seat reward of the last transition: the returns at a terminal state, 0 elsewhere.
    fn rewards(&self) -> Vec<f64> {
        self.state.rewards().to_vec()
    }

    /// Every action and chance outcome applied since the initial state, in order.
    /// ``Game.replay(history)`` reproduces this state exactly.
    fn history(&self) -> Vec<u32> {
        self.state.history()
    }

    /// Number of actions and chance outcomes applied so far (``len(history())``). It counts
    /// private actions too; do not show it to players.
    fn move_number(&self) -> usize {
        self.state.move_number()
    }

    /// A full state consistent with everything ``seat`` knows (its hand, public cards,
    /// voids, announcements), for determinized search: ``seat``'s observation and view are
    /// unchanged, the cards it cannot see are redrawn. Runs without the GIL.
    ///
    /// Args:
    ///     seat: the seat whose knowledge is kept.
    ///     seed: as for ``apply_random_chance``.
    ///
    /// Raises:
    ///     InvalidSeatError: the seat does not exist.
    ///     ResampleFailedError: no consistent state was found.
    fn resample(&self, py: Python<'_>, seat: I64, seed: &Bound<'_, PyAny>) -> PyResult<PyState> {
        let s = crate::convert::seat(seat.0, self.players)?;
        let source = RngSource::extract(seed)?;
        let state = &self.state;
        let new = source.run_detached(py, |r| state.resample(s, r)).py()?;
        Ok(PyState::new(new))
    }

    /// The exact card-play solver (``cardhouse::solve`` in Rust): with every card known, the
    /// value of each legal action of the seat to move, under perfect play by every seat to
    /// the end of the deal, as that seat's side's deal result (its ``scope = "deal"`` return:
    /// the deal's score for its side minus the other side's). Omniscient: it reads every
    /// hand, so a bot must solve states drawn by ``resample``, not the real one. Runs
    /// without the GIL, on a table kept per thread.
    ///
    /// Returns:
    ///     ``{action id: value}`` for every legal action.
    ///
    /// Raises:
    ///     IllegalActionError: the game has no trick play to solve (Cribbage), or the state
    ///         is not one of play (a chance node, the bidding, the game is over); the message
    ///         says which.
    fn solve(&self, py: Python<'_>) -> PyResult<std::collections::BTreeMap<u32, f64>> {
        let state = &self.state;
        let solution = py.detach(|| {
            SOLVER.with_borrow_mut(|solver| {
                let solver = solver.get_or_insert_with(cardhouse::solve::Solver::new);
                solver.solve(state.solvable()?)
            })
        });
        let solution = solution.py()?;
        Ok(solution
            .actions
            .into_iter()
            .map(|(a, v)| (a, f64::from(v)))
            .collect())
    }

    /// An independent copy.
    fn clone(&self) -> PyState {
        Clone::clone(self)
    }

    fn __copy__(&self) -> PyState {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyState {
        Clone::clone(self)
    }

    /// Compact versioned bytes (game, options, rules version, history); decode with
    /// ``Game.state_from_bytes`` or ``cardhouse.state_from_bytes``.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.state.to_bytes())
    }

    /// Versioned JSON (game, options, rules version, history); decode with
    /// ``Game.state_from_json`` or ``cardhouse.state_from_json``.
    fn to_json(&self) -> String {
        self.state.to_json()
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let decode = py.import("cardhouse._core")?.getattr("state_from_bytes")?;
        (decode, (self.to_bytes(py),)).into_pyobject(py)
    }

    fn __repr__(&self) -> String {
        let who = match self.state.current_player() {
            cardhouse::Player::Seat(s) => format!("seat {s} to act"),
            cardhouse::Player::Chance => "chance node".to_owned(),
            cardhouse::Player::Terminal => {
                format!("terminal, returns {:?}", &*self.state.returns())
            }
        };
        format!(
            "<cardhouse.State {} move {}: {}>",
            self.state.game().name(),
            self.state.move_number(),
            who
        )
    }

    /// The omniscient text of the state (every hand): for debugging, never for a player.
    /// ``observation_string(seat)`` is what one seat may see.
    fn __str__(&self) -> String {
        self.state.to_string()
    }
}

/// The `TypeError` for a `write_observation` buffer that is not a float32 NumPy array,
/// naming what was given.
fn not_f32_array(out: &Bound<'_, PyAny>) -> PyErr {
    let what = match out.getattr("dtype") {
        Ok(dtype) => format!(
            "an array of dtype {}",
            dtype
                .str()
                .map_or_else(|_| "?".to_owned(), |s| s.to_string())
        ),
        Err(_) => format!("{}", out.get_type()),
    };
    pyo3::exceptions::PyTypeError::new_err(format!(
        "out must be a float32 NumPy array (e.g. numpy.zeros(n, dtype=numpy.float32)), \
         got {what}"
    ))
}
